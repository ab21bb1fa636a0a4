"""Seeds derived from parts, decided once for the whole house (stable across processes, unlike hash()).

`derive_seed` gives every study its game and seat seeds; `call_seed` gives every model call its
sampling seed, under the rule (`SEEDING`) a run records in its plan. Here, on the ground floor, so
the store records the rule and `models.call` applies it without either importing the other.
"""

from __future__ import annotations

import hashlib

# The per-call seed rule a new run records (`seeding` in its plan): `call_seed`. Runs stored
# without it keep their callers' old seeds (1), so their replies still come from the cache.
SEEDING = 2

# The `llm` player's text prompt a new run records (`llm_prompt` in its plan) for specs that name
# none: `line`, the paper's released code's (one line `Action: <move>`, the last line read;
# 003 l.324, PyPI plybench 3.0.5). Runs stored with `action` (the move alone) keep it; runs stored
# without the rule were played with `reason` (think it through, then `ANSWER:`) and resume with
# it: their cached replies are keyed by the request.
LLM_PROMPT = "line"

# How the `llm` player lists the legal moves, recorded as `llm_listing` in a new run's plan: `sorted`
# by name, as the paper's code lists them (plybench 3.0.5's `order_actions`; games.base
# `Formulation.order_actions`). Runs stored without it listed them in the engine's order, which under
# a disguise spelled out the hidden board, and resume with it (the prompt is part of the cache key).
LLM_LISTING = "sorted"

# How a Clue prompt writes the possibility matrix's cells, recorded as `clue_cells` in a new run's
# plan: `words`, YES / NO / MAYBE as the seed names them (000 l.90). Runs stored without it were
# played with `symbols` (Y / - / ?) and resume with them (the prompt is part of the cache key).
CLUE_CELLS = "words"


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


def call_seed(seed: int, *call: object) -> int:
    """A call's sampling seed from the player's seed (one per game and seat) and the call's place
    (the ply and the call within it): reproducible, different for every call of a run."""
    digest = hashlib.sha256("/".join(map(str, (seed, *call))).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
