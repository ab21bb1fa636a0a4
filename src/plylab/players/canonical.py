"""One name per player: the canonical form of a player spec.

The rule (one for every player): parse and validate the spec against the player's options,
drop every key whose validated value equals that option's default, except `model` (it names who
plays, so it is always written, given or not, and written first), and write the remaining keys
sorted by name with their validated values (booleans as `true`/`false`). So `mcts:sims=1000`,
`mcts:solve=true,sims=1000` and `mcts:sims=1000,solve=True` are all `mcts:sims=1000`, and a
player is one row in every table, rating and plot. Games are stored under this form, and reports
map the specs of older stores through it when they read them.

A default that depends on the game (MCTS's `sims`) is not a field default, so `mcts` and
`mcts:sims=1000` stay two names even on tic-tac-toe, where they play alike. A spec this install
cannot validate (a player it no longer has) keeps its values and only has its keys sorted.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

from pydantic import BaseModel

from ..errors import UserError
from ..specs import parse_spec
from .base import BasePlayer, resolve

ALWAYS = ("model",)  # keys written even at their default, and first: they name who plays


def _text(value: object, given: str) -> str:
    """A validated value as spec text: one spelling for equal values, the given text otherwise."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, int | float | str):
        return str(value)
    return given  # a parsed structure (on_failure=retry:3): the text it came from


def _join(name: str, options: dict[str, str]) -> str:
    order = sorted(options, key=lambda k: (k not in ALWAYS, k))  # `model` first, then by name
    return name + (":" + ",".join(f"{k}={options[k]}" for k in order) if options else "")


def _kept(options: BaseModel, given: dict[str, str]) -> dict[str, str]:
    fields = type(options).model_fields
    out = {k: _text(getattr(options, k), "") for k in ALWAYS if k in fields and k not in given}
    for key, text in given.items():
        if key in ALWAYS:
            out[key] = _text(getattr(options, key), text)
            continue
        value = getattr(options, key)
        field = fields.get(key)
        if (
            field is not None
            and not field.is_required()
            and value == field.get_default(call_default_factory=True)
        ):
            continue
        out[key] = _text(value, text)
    return out


@lru_cache(maxsize=4096)
def canonical_spec(text: str) -> str:
    """The one spelling of player spec `text` (see the module docstring for the rule)."""
    try:
        spec, _, options = resolve(text, BasePlayer)  # a player of any family (two-player, Clue)
    except UserError:
        try:
            raw = parse_spec(text)
        except UserError:
            return text
        return _join(raw.name, raw.options)
    return _join(spec.name, _kept(options, spec.options))


# The names `plylab run` and `plylab learn` make from their specs (harness/plan.py
# default_run_name, learning/schedule.py Experiment.label and its phases' runs)
_MADE = (
    re.compile(r"^(?P<head>[^./]+\.[^./]+\.)(?P<player>.+?)-vs-(?P<opponent>.+)(?P<tail>\.s-?\d+\.n\d+)$"),
    re.compile(
        r"^(?P<head>learn\.[^./]+\.[^./]+\.)(?P<player>.+?)-vs-(?P<opponent>.+?)(?P<tail>\.s-?\d+(/.*)?)$"
    ),
)


def printed_run_name(name: str) -> str:
    """A stored run name as printed: where plylab made it from the specs as given, the specs are
    written canonically (`force_final=on` as `force_final=true`), so a player reads the same in a
    run's name as in every table. Only the printing changes: a store keeps, and resumes by, the
    name it made; a name given with `--run`/`--name` is printed as given."""
    for made in _MADE:
        m = made.match(name)
        if m:
            player, opponent = canonical_spec(m["player"]), canonical_spec(m["opponent"])
            return f"{m['head']}{player}-vs-{opponent}{m['tail']}"
    return name
