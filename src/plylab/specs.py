"""Spec strings: `name` or `name:key=value,key=value`.

The first `:` ends the name; values may themselves contain `:` and `/` (model names,
`on_failure=retry:3`), so only `,` separates options and only the first `=` splits a pair.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import UserError


@dataclass(frozen=True)
class Spec:
    name: str
    options: dict[str, str] = field(default_factory=dict)
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.name


# An option whose name says it holds a credential (api_key=, token=, password=...): an error line
# names the option, never its value (which may be a key typed where it does not belong).
_SECRET_NAME = (
    r"(?:[a-z0-9]+[_\-])*(?:key|apikey|token|secret|password|passwd|pwd|auth|credentials?)(?:[_\-][a-z0-9]+)*"
)
_SECRET_OPTION = re.compile(rf"(?i)((?:^|[,:])\s*{_SECRET_NAME}\s*=)[^,]*")


def shown(text: object) -> str:
    """A spec as an error message may quote it: credential-like option values and a base_url's
    user-info and query values are [redacted]."""
    from .secrets import REDACTED, scrub, scrub_spec

    return scrub(scrub_spec(_SECRET_OPTION.sub(lambda m: m.group(1) + REDACTED, str(text))))


def parse_spec(text: str, *, kind: str = "spec") -> Spec:
    raw = text.strip()
    if not raw:
        raise UserError(f"empty {kind}; expected 'name' or 'name:key=value,...'")
    name, sep, rest = raw.partition(":")
    name = name.strip()
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise UserError(f"malformed {kind} '{shown(text)}': the name must be letters, digits, '-' or '_'")
    options: dict[str, str] = {}
    if sep and not rest.strip():
        raise UserError(
            f"malformed {kind} '{shown(text)}': nothing after ':'; write '{name}' alone or '{name}:key=value,...'"
        )
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise UserError(f"malformed {kind} '{shown(text)}': expected key=value, got '{shown(part)}'")
            if key in options:
                raise UserError(f"malformed {kind} '{shown(text)}': option '{key}' given twice")
            options[key] = value.strip()
    return Spec(name=name, options=options, text=raw)


class Params(BaseModel):
    """Base for a component's options; unknown keys are an error, values are coerced from text."""

    model_config = ConfigDict(extra="forbid", frozen=True)


P = TypeVar("P", bound=BaseModel)

INT64 = (-(2**63), 2**63 - 1)  # what SQLite, NumPy and OpenSpiel's C++ can hold


def _out_of_range(value: object) -> bool:
    """True for an int beyond 64 bits or a float that is not finite (1e999 parses as inf)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not INT64[0] <= value <= INT64[1]
    if isinstance(value, float):
        return not math.isfinite(value)
    return False


def bind(spec: Spec, model: type[P], *, kind: str = "spec") -> P:
    """Validate a spec's options against a pydantic model, with a one-line message on failure."""
    try:
        params = model(**spec.options)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "?"
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown option '{loc}'")
            else:
                got = spec.options.get(str(err["loc"][0]), "") if err["loc"] else ""
                if re.fullmatch(f"(?i){_SECRET_NAME}", loc):
                    got = "[redacted]"
                problems.append(f"option '{loc}': {err['msg'].lower()} (got '{got}')")
        accepted = ", ".join(model.model_fields) or "none"
        raise UserError(
            f"bad {kind} '{shown(spec)}': {'; '.join(problems)}; accepted options: {accepted}"
        ) from None
    # Checked after validation so that every component's options get it, whatever their bounds.
    for key in spec.options:
        value = getattr(params, key, None)
        if _out_of_range(value):
            raise UserError(
                f"bad {kind} '{shown(spec)}': option '{key}' is out of range (got '{shown(spec.options[key])}'); "
                f"integers must fit in 64 bits ({INT64[0]}..{INT64[1]}) and numbers must be finite"
            )
    return params
