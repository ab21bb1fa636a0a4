"""Is a hosted model reachable, and does it accept our key? One cheap request, before any game.

A wrong base URL or a rejected key found mid-run would turn every move into a failure; found
here it is one clear UserError. Servers that lack the probed route (404) still count as up.
"""

from __future__ import annotations

import httpx

from ..errors import UserError

PROBE_TIMEOUT = 10.0


def check_reachable(name: str, api: object) -> None:
    """Raise UserError when the server of model `name` (inspect's provider `api`) cannot be reached
    or refuses our credentials. Given the name and the provider, not the `Model`: the model door
    calls this, and the probe stands below it."""
    target = _probe_target(name, api)
    if target is None:
        return  # a provider we do not know how to probe: its first call will tell
    url, headers = target
    try:
        response = httpx.get(url, headers=headers, timeout=PROBE_TIMEOUT, follow_redirects=True)
    except httpx.HTTPError as exc:
        reason = type(exc).__name__
        raise UserError(
            f"model '{name}': its server at {_origin(url)} is unreachable ({reason}); "
            "start it, or check base_url and the network"
        ) from None
    if response.status_code in (401, 403):
        raise UserError(
            f"model '{name}': the server at {_origin(url)} rejected the API key "
            f"(HTTP {response.status_code}); check the key in the environment"
        )


def _probe_target(name: str, api: object) -> tuple[str, dict[str, str]] | None:
    client = getattr(api, "client", None)
    provider = name.split("/", 1)[0]
    base = getattr(client, "base_url", None)
    key = getattr(client, "api_key", None) or getattr(api, "api_key", None)
    if provider == "anthropic":
        root = str(base or getattr(api, "base_url", None) or "https://api.anthropic.com").rstrip("/")
        return f"{root}/v1/models?limit=1", {"x-api-key": str(key or ""), "anthropic-version": "2023-06-01"}
    if provider == "google":
        root = str(getattr(api, "base_url", None) or "https://generativelanguage.googleapis.com").rstrip("/")
        return f"{root}/v1beta/models?pageSize=1", {"x-goog-api-key": str(key or "")}
    if base is not None and hasattr(client, "chat"):  # an OpenAI-SDK client: openai, vllm, ollama, openai-api
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return f"{str(base).rstrip('/')}/models", headers
    return None


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.host}" + (f":{parsed.port}" if parsed.port else "")
