"""Seeds derived from parts: the one function every study uses (stable across processes, unlike hash())."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 31-bit seed from any parts (run seed, matchup, index, seat...)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def clue_seed_v1(*parts: object) -> int:
    """The 63-bit seed Clue used before `derive_seed` was shared. Kept ONLY so that Clue runs stored
    before the change resume with the seeds their saved games were played with (see clue/study.py);
    new runs never use it. Remove it once no such store is left to resume."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
