"""`struct`: a game as OpenSpiel 2.0 writes it in JSON, the representation 003 l.425 compares with.

The position is the observation struct of the player to move (`to_observation_struct`: under
perfect information the whole state, the same as `to_json`), the moves are action structs
(`action_to_struct`), and an answer is an action struct written as JSON: it is built with the game's
own struct class and `validate_action_struct` decides whether it is legal, so the reason a move is
refused is OpenSpiel's. The obfuscations 003 l.439 proposes for structs are two seeded keys, each a
bijection that leaves the tree alone (tests/games/test_formulations.py walks them):
`fields=K` renames every field name of the state and the actions to a made-up word, and
`actions=K` gives every action a code word in place of its struct (a legend in the rules, as
`relabel` does for text). With either, the rules no longer name the game.

OpenSpiel 2.0.2 has state and action structs for tic-tac-toe and Connect Four among plylab's games
(`STRUCT_GAMES`); no hidden-information game has action structs (gin rummy has an observation struct
only, and is not for text players).
"""

from __future__ import annotations

import json
import random
from functools import cached_property
from typing import Any

import pyspiel

from ..errors import ParseError
from ..quiet import engine_quiet
from ..specs import Params
from .base import GAMES, engine_message
from .relabel import coined_word
from .surface import FixedLabels, turn_line

STRUCT_GAMES = ("tic_tac_toe", "connect_four")


class StructOptions(Params):
    fields: int = 0  # 0: OpenSpiel's field names; K: each renamed to a made-up word, seeded by K
    actions: int = 0  # 0: moves are action structs; K: each move a code word, seeded by K


def compact(value: object) -> str:
    """One canonical JSON text: keys sorted, no spaces (so a label is one string per action)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def rename(value: Any, names: dict[str, str]) -> Any:
    """`value` (parsed JSON) with every object key mapped through `names` (unknown keys kept)."""
    if isinstance(value, dict):
        return {names.get(k, k): rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [rename(v, names) for v in value]
    return value


def keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


class Struct(FixedLabels[StructOptions]):
    """OpenSpiel 2.0's JSON structs as the surface, optionally with fields renamed and moves coded."""

    name = "struct"
    Options = StructOptions

    @cached_property
    def _start(self) -> pyspiel.State:
        return self.game.new_state()

    @cached_property
    def action_type(self) -> type[Any]:
        """The game's action struct class (built from JSON text)."""
        return type(self._start.action_to_struct(self._start.legal_actions()[0]))

    @cached_property
    def structs(self) -> list[dict[str, Any]]:
        """Every distinct action's struct (OpenSpiel's field names), by engine action."""
        n = self.game.engine.num_distinct_actions()
        return [json.loads(self._start.action_to_struct(a).to_json()) for a in range(n)]

    @cached_property
    def names(self) -> dict[str, str]:
        """OpenSpiel's field name -> the name shown (itself unless `fields=K`)."""
        fields = sorted(keys_of(json.loads(self._start.to_json())) | keys_of(self.structs))
        if not self.options.fields:
            return {k: k for k in fields}
        rng = random.Random(f"struct-fields:{self.game.name}:{self.options.fields}")
        words: list[str] = []
        while len(words) < len(fields):
            word = coined_word(rng, 2)
            if word not in words and word not in fields:
                words.append(word)
        return dict(zip(fields, words, strict=True))

    @cached_property
    def _unnamed(self) -> dict[str, str]:
        return {v: k for k, v in self.names.items()}

    @cached_property
    def codes(self) -> list[str] | None:
        """A code word per action where `actions=K`; None where moves are written as structs."""
        if not self.options.actions:
            return None
        rng = random.Random(f"struct-actions:{self.game.name}:{self.options.actions}")
        taken = set(self.names.values()) | set(self.names)
        words: list[str] = []
        while len(words) < len(self.structs):
            word = coined_word(rng, 2)
            if word not in taken:
                taken.add(word)
                words.append(word)
        return words

    @property
    def obfuscated(self) -> bool:
        return bool(self.options.fields or self.options.actions)

    def title(self) -> str:
        return "A game of JSON structs" if self.obfuscated else self.game.title

    def shown(self, action: int) -> str:
        """The action's struct as the model reads it (field names as shown)."""
        return compact(rename(self.structs[action], self.names))

    def label(self, action: int) -> str:
        return self.shown(action) if self.codes is None else self.codes[action]

    def rules(self) -> str:
        what = "a two-player game" if self.obfuscated else f"{self.game.title}"
        form = {k: type(v).__name__ for k, v in rename(self.structs[0], self.names).items()}
        text = (
            f"We are playing {what}, written in JSON: each position is a JSON object (OpenSpiel 2.0's "
            "observation struct for the player to move), and "
        )
        if self.codes is None:
            shape = compact(form).replace('"', "")
            return text + (
                f"each move is a JSON object (its action struct) of the form {shape}; answer with one "
                "move as such a JSON object."
            )
        legend = "\n".join(f"{c}: {self.shown(a)}" for a, c in enumerate(self.codes))
        return text + (
            "each move has a code word, and you answer with the code word. Each code word stands for "
            f"the move (a JSON object) written after it:\n{legend}"
        )

    def render_state(self, state: pyspiel.State) -> str:
        if state.is_terminal():
            return f"{compact(rename(json.loads(state.to_json()), self.names))}\n{turn_line(self, state)}"
        seen = state.to_observation_struct(int(state.current_player())).to_json()
        return f"{compact(rename(json.loads(seen), self.names))}\n{turn_line(self, state)}"

    def seat_name(self, seat: int) -> str:
        return f"Player {seat + 1}"

    def canonical(self, text: str) -> str:
        """A JSON object written any way (spacing, key order) -> its label."""
        obj = _json_object(text)
        return text if obj is None else compact(obj)

    def parse_action(self, state: pyspiel.State, text: str) -> int:
        """A code word by lookup; an action struct through OpenSpiel: built from the JSON, then
        `validate_action_struct` says whether it is legal (and why not)."""
        if self.codes is not None:
            return super().parse_action(state, text)
        obj = _json_object(text)
        if obj is None:
            raise ParseError(f"'{text.strip()}' is not a JSON object naming a move")
        try:
            with engine_quiet():
                struct = self.action_type(compact(rename(obj, self._unnamed)))
                status = state.validate_action_struct(struct)
                actions = state.struct_to_actions(struct) if status.ok() else []
        except (pyspiel.SpielError, RuntimeError, ValueError) as exc:
            # OpenSpiel's complaint names its own fields: shown only where they are the ones shown
            why = "" if self.options.fields else f" ({engine_message(exc)})"
            raise ParseError(f"'{text.strip()}' does not name a move{why}") from None
        if not status.ok():
            raise ParseError(f"'{text.strip()}' is not a legal move now", kind="illegal")
        if len(actions) != 1:
            raise ParseError(f"'{text.strip()}' does not name one move")
        return int(actions[0])


def _json_object(text: str) -> dict[str, Any] | None:
    body = text.strip().strip("`")
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(body[start : end + 1])
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def struct_every_game() -> None:
    """Register `struct` for the games whose OpenSpiel build has state and action structs."""
    for name in STRUCT_GAMES:
        game = GAMES.get(name)
        if Struct.name not in game.formulations:
            game.add_formulation(Struct)
