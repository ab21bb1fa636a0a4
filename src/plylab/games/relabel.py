"""`relabel:seed=K`: a seeded renaming of any game's `standard` formulation.

Every game gets at least one obfuscation this way, Connect Four included: the game's name becomes
a made-up word, the seats' marks become other symbols, and every action gets a nonsense code word
(listed in the rules against the standard notation). Board pictures and rules are otherwise the
standard ones, so the tree is untouched by construction; the tests check it anyway.
"""

from __future__ import annotations

import random
import re

import pyspiel

from ..specs import Params
from .base import GAMES, GameDef
from .surface import LEGAL_LINE, FixedLabels, turn_line

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
ENDINGS = "kxz"  # a closing consonant few English words end with, so code words read as nonsense
# Replacement marks: none is a letter, digit or '.', so none collides with coordinates or empty cells.
SYMBOLS = "#@%&*+$~"


def coined_word(rng: random.Random, syllables: int) -> str:
    """A made-up word of `syllables` consonant-vowel pairs and an ending (the structs' field names too)."""
    stem = "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables))
    return stem + rng.choice(ENDINGS)


def _name_runs(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """Runs of names of a game ('misère Nim' is one run), so each run becomes one made-up name."""
    if not patterns:
        return None
    one = "|".join(f"(?:{p})" for p in patterns)
    return re.compile(f"(?:{one})(?:[\\s-]+(?:{one}))*", re.IGNORECASE)


IDENTIFIER = re.compile(r"\b\w*[_\d]\w*\b")  # a word with '_' or a digit: a parameter's name


def _name_inside(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """A name of a game where it is part of a longer identifier (no word boundaries)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p.replace(chr(92) + 'b', '')})" for p in patterns), re.IGNORECASE)


class RelabelOptions(Params):
    seed: int = 0


class Relabel(FixedLabels[RelabelOptions]):
    """The standard surface under a seeded renaming of the game's name, marks and actions.

    The legend is written once, from the standard's action names in the initial position, where those
    names do not depend on the position; a standard with `position_labels` (the generic OpenSpiel
    surface) gets a legend of the legal moves in every position instead.
    """

    name = "relabel"
    Options = RelabelOptions

    def __init__(self, game: GameDef, options: RelabelOptions | None = None) -> None:
        super().__init__(game, options)
        rng = random.Random(f"relabel:{game.name}:{self.options.seed}")  # str seeds are stable
        self.inner = game.formulation("standard")
        marks = getattr(self.inner, "marks", None)
        if marks:  # formulations that declare `marks` draw their seats and pieces with them
            self.inner.marks = tuple(rng.sample(SYMBOLS, len(marks)))  # type: ignore[attr-defined]
        self._names_game = _name_runs((*game.recognition, *game.recognition_wide))
        self._names_inside = _name_inside((*game.recognition, *game.recognition_wide))
        start = game.new_state()
        n = game.engine.num_distinct_actions()
        # Where the standard names depend on the position (generic games: chess SAN), each position
        # carries its own legend of the legal moves instead of one legend in the rules.
        self.per_position = bool(getattr(self.inner, "position_labels", False))
        self._standard = [] if self.per_position else [self.inner.action_label(start, a) for a in range(n)]
        # Code words must be fresh: not a word of the standard text, not a name of the game.
        taken = set(re.findall(r"[a-z]+", " ".join([self.inner.rules(), *self._standard]).lower()))
        self.made_up = self._fresh(rng, 3, taken).capitalize()  # the game's new name
        syllables = 2  # enough that random draws rarely collide, even for games with many actions
        while len(ENDINGS) * (len(CONSONANTS) * len(VOWELS)) ** syllables < 50 * n:
            syllables += 1
        self.words = [self._fresh(rng, syllables, taken) for _ in range(n)]

    def _fresh(self, rng: random.Random, syllables: int, taken: set[str]) -> str:
        while True:
            word = coined_word(rng, syllables)
            if word not in taken and not (self._names_game and self._names_game.search(word)):
                taken.add(word)
                return word

    def disguise(self, text: str) -> str:
        """The text with every run of names of the game replaced by the made-up title, also inside an
        identifier such as a parameter's name (`chess960`, `hyper_backgammon`)."""
        if self._names_game is None or self._names_inside is None:
            return text
        text = self._names_game.sub(lambda _: self.made_up, text)
        inside = self._names_inside
        return IDENTIFIER.sub(lambda m: inside.sub(self.made_up.lower(), m.group(0)), text)

    def rules(self) -> str:
        if self.per_position:
            return (
                f"{self.disguise(self.inner.rules())}\n\nIn this game every move has a code word instead "
                "of its usual notation, and you answer with the code word. Each position lists the legal "
                "moves as code words, each followed by the usual notation in brackets."
            )
        legend = "\n".join(f"{w}: {s}" for w, s in zip(self.words, self._standard))
        return (
            f"{self.disguise(self.inner.rules())}\n\nIn this game every move has a code word instead of "
            "the notation above, and you answer with the code word. Each code word stands for the "
            f"move written after it:\n{legend}"
        )

    def render_state(self, state: pyspiel.State) -> str:
        if not self.per_position:
            return self.disguise(self.inner.render_state(state))
        if state.is_chance_node():
            return self.disguise(self.inner.render_state(state))
        lines = [self.disguise(self.inner.board(state))]  # type: ignore[attr-defined]
        if not state.is_terminal():
            legend = ", ".join(
                f"{word} ({self.inner.action_label(state, a)})"
                for word, a in self.legal_labels(state).items()
            )
            lines.append(self.disguise(f"{LEGAL_LINE}{legend}"))
        lines.append(self.disguise(turn_line(self, state)))
        return "\n".join(lines)

    def label(self, action: int) -> str:
        return self.words[action]

    def title(self) -> str:
        return self.made_up

    def render_view(self, state: pyspiel.State, seat: int) -> str:
        """The mover's view is the position; any other seat's is the standard one's, disguised (under
        hidden information it is not the mover's)."""
        if state.current_player() == seat or self.game.perfect_information:
            return self.render_state(state)
        return self.disguise(self.inner.render_view(state, seat))

    def render_whole(self, state: pyspiel.State) -> str | None:
        return self.inner.render_whole(state)

    def seen_label(self, state: pyspiel.State, action: int, seat: int) -> str | None:
        """The code word where the standard surface shows the move to `seat`; else None."""
        seen = self.inner.seen_label(state, action, seat)
        if seen is None or state.is_chance_node():  # a deal or a roll keeps its own name
            return None if seen is None else self.disguise(seen)
        return self.action_label(state, action)

    def seat_name(self, seat: int) -> str:
        return self.inner.seat_name(seat)

    def describe_outcome(self, state: pyspiel.State) -> str:
        return self.disguise(self.inner.describe_outcome(state))

    def canonical(self, text: str) -> str:
        named = {w for w in re.findall(r"[a-z]+", text.lower()) if w in self._actions}
        return named.pop() if len(named) == 1 else text


def relabel_every_game() -> None:
    """Register `relabel` for every game with a `standard` formulation (idempotent: call again after
    registering a game later)."""
    for name in GAMES:
        game = GAMES.get(name)
        if "standard" in game.formulations and Relabel.name not in game.formulations:
            game.add_formulation(Relabel)
