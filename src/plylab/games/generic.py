"""Every two-player zero-sum perfect-information OpenSpiel game, with no module of its own.

Each such game is registered under its OpenSpiel name with a `standard` formulation read off the
engine: the rules as a short text (`games.rules` where we ship one, else OpenSpiel's long name),
the position as OpenSpiel's observation string with the legal moves listed, and moves named by
`action_to_string` and parsed back by exact label (case and spacing tolerated where that leaves
one move). Games with chance nodes (backgammon, pig) are included: the harness samples chance
outcomes from the job's seed. An exact oracle is attached wherever `oracles.generic` fits; chess and its
variants are graded by an engine (`games.base.GroundTruth`).
"""

from __future__ import annotations

import re

import pyspiel

from ..errors import ParseError, UserError
from ..oracles.engine import ENGINE_FOR
from ..oracles.generic import BOUNDS, GenericOracle, TooLarge, fits
from ..oracles.gtp import go_count
from ..oracles.uci import maps
from ..quiet import engine_quiet
from .base import GAMES, Formulation, GameDef, GroundTruth, register_game
from .rules import rules_text
from .surface import LEGAL_LINE, turn_line

# Of the class, yet not playable as a game: it is read from a file the user supplies.
EXCLUDED = frozenset({"efg_game"})
# Recognition names where the game's own names are common words or single letters ("go", "y").
ALIASES: dict[str, tuple[str, ...]] = {
    "go": ("game of Go", "Go board", "baduk", "weiqi", "igo"),
    "cursor_go": ("cursor Go", "game of Go", "Go board", "baduk", "weiqi"),
    "y": ("Y Connection Game", "game of Y", "Y board"),
}
# Parameters plylab fixes: two players, and plain text for a player to read (no colour codes).
PLAIN = {"ansi_color_output": False, "players": 2}
# Games whose engine cannot name an action that is not legal in the position: chess and crazyhouse
# crash the process (SIGSEGV), antichess and shogi print OpenSpiel's exceptions on stderr, one per
# action. Their replies are judged against the legal labels only; every other game names any action
# safely (tests/games/test_hostile_moves.py checks each in a child process).
LEGAL_NAMES_ONLY = frozenset({"chess", "crazyhouse", "antichess", "shogi"})
# Why a game has no ground truth where the reason is not size (listed by `plylab games`, and said
# when `optimal` is asked for): an opponent is not a grader.
NO_TRUTH: dict[str, str] = {
    "go": "no ground truth: no engine strong enough to grade is available (GNU Go plays it: the gnugo player)",
}


def generic_oracle(game: GameDef) -> GenericOracle:
    """The game's minimax table (built on first use, cached on disk under its canonical name)."""
    try:
        return GenericOracle.load_or_build(game.engine, game.spec)
    except TooLarge as exc:
        raise UserError(f"no exact oracle for '{game.spec}': {exc}") from None


GENERIC = GroundTruth("exact", "minimax table", generic_oracle)


def derived_truth(game: GameDef) -> GroundTruth | None:
    """For a parametrised game: the generic table where it fits, else no ground truth."""
    return GENERIC if fits(game.engine) else None


def zero_sum_types(
    information: pyspiel.GameType.Information, excluded: frozenset[str]
) -> list[pyspiel.GameType]:
    """OpenSpiel's two-player, zero-sum, sequential games of one kind of information, by name: its C++
    games, not the Python re-implementations (`python_kuhn_poker`, ...) that importing parts of
    `open_spiel.python` registers later in a process, so the list is the same whatever was imported."""
    out = []
    for gt in pyspiel.registered_games():
        if (
            not gt.short_name.startswith("python_")
            and gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
            and gt.information == information
            and gt.utility == pyspiel.GameType.Utility.ZERO_SUM
            and gt.min_num_players <= 2 <= gt.max_num_players
            and gt.short_name not in excluded
        ):
            out.append(gt)
    return sorted(out, key=lambda gt: gt.short_name)


def playable_types() -> list[pyspiel.GameType]:
    """OpenSpiel's two-player, zero-sum, sequential, perfect-information games."""
    return zero_sum_types(pyspiel.GameType.Information.PERFECT_INFORMATION, EXCLUDED)


class Generic(Formulation):
    """OpenSpiel's own surface: observation string, `action_to_string` labels, listed legal moves."""

    name = "standard"
    # Labels may depend on the position (chess SAN), so `relabel` puts its legend in each position.
    position_labels = True

    def rules(self) -> str:
        return rules_text(self.game)

    @staticmethod
    def observer(state: pyspiel.State) -> int:
        mover = state.current_player()
        return int(mover) if mover >= 0 else 0

    def board(self, state: pyspiel.State) -> str:
        """The position as OpenSpiel writes it for the player to move."""
        return str(state.observation_string(self.observer(state))).rstrip()

    def render_state(self, state: pyspiel.State) -> str:
        lines = [self.board(state)]
        if state.is_chance_node():  # a replay page's last position may await the dice
            return "\n".join([*lines, "A chance move (dice or the like) comes next."])
        if not state.is_terminal():
            lines.append(LEGAL_LINE + ", ".join(self.legal_labels(state)))
        lines.append(turn_line(self, state))
        return "\n".join(lines)

    def action_label(self, state: pyspiel.State, action: int) -> str:
        return str(state.action_to_string(self.observer(state), action))

    def all_labels(self, state: pyspiel.State) -> dict[str, int]:
        """Every action the engine names here; only the legal ones where naming others is unsafe."""
        if self.game.openspiel_name in LEGAL_NAMES_ONLY:
            return self.legal_labels(state)
        out: dict[str, int] = {}
        with engine_quiet():  # the engine prints its exception before raising it
            for a in range(self.game.engine.num_distinct_actions()):
                try:
                    out.setdefault(self.action_label(state, a), a)
                except pyspiel.SpielError:
                    continue  # an action the engine cannot name here
        return out

    def parse_action(self, state: pyspiel.State, text: str) -> int:
        """Exact label first; then case- and space-insensitive where that names one legal move;
        then the one legal label written inside a longer reply."""
        wanted = text.strip().strip("`'\".").strip()
        if not wanted:
            raise ParseError("empty answer", kind="empty")
        legal = self.legal_labels(state)
        if wanted in legal:
            return legal[wanted]
        loose = self._loose(legal, wanted)
        if loose is not None:
            return loose
        named = [a for lab, a in legal.items() if re.search(rf"(?<!\w){re.escape(lab)}(?!\w)", text)]
        if len(named) == 1:
            return named[0]
        if self.game.openspiel_name in LEGAL_NAMES_ONLY:
            # a move of the legal labels' shape (`e5` among `e4, Nf3`) is a move, illegal here
            if self.shape(wanted) in {self.shape(lab) for lab in legal}:
                raise ParseError(f"'{text.strip()}' is not a legal move now", kind="illegal")
            raise ParseError(f"'{text.strip()}' does not name a move")
        every = self.all_labels(state)
        if wanted in every or self._loose(every, wanted) is not None:
            raise ParseError(f"'{text.strip()}' is not a legal move now", kind="illegal")
        raise ParseError(f"'{text.strip()}' does not name a move")

    def _loose(self, labels: dict[str, int], wanted: str) -> int | None:
        key = self.squash(wanted)
        hits = {a for lab, a in labels.items() if self.squash(lab) == key}
        return hits.pop() if len(hits) == 1 else None

    @staticmethod
    def squash(text: str) -> str:
        return re.sub(r"[\s*]+", "", text).lower()  # spacing, case and a capture mark are optional

    @classmethod
    def shape(cls, text: str) -> str:
        """A label's shape: each run of letters `a`, of digits `9`, the rest as written (`Nf3`: `a9`)."""
        return re.sub(r"[0-9]+", "9", re.sub(r"[^\W\d_]+", "a", cls.squash(text)))


def game_def(gt: pyspiel.GameType) -> GameDef:
    """A registry entry for one OpenSpiel game, with the generic table where it fits."""
    spec = dict(gt.parameter_specification)
    fixed: dict[str, object] = {k: v for k, v in PLAIN.items() if k in spec}
    game = GameDef(
        name=gt.short_name,
        title=gt.long_name,
        openspiel_name=gt.short_name,
        openspiel_params=fixed,
        summary=f"OpenSpiel '{gt.short_name}'" + (" (chance moves)" if _has_chance(gt) else ""),
        aliases=ALIASES.get(gt.short_name)
        or tuple(dict.fromkeys([gt.long_name, gt.short_name.replace("_", " ")])),
        fixed_params=frozenset(fixed),
        derived_truth=derived_truth,
        ground_truth=GroundTruth("engine", ENGINE_FOR[gt.short_name]) if maps(gt.short_name) else None,
    )
    if gt.short_name in NO_TRUTH:
        game.oracle_missing = NO_TRUTH[gt.short_name]
    if gt.short_name == "go":
        game.count = go_count
    if not _has_chance(gt) and _fits_cheaply(game):
        game.ground_truth = GENERIC
    game.add_formulation(Generic)
    return game


def _has_chance(gt: pyspiel.GameType) -> bool:
    return bool(gt.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC)


def _fits_cheaply(game: GameDef) -> bool:
    return game.openspiel_name in BOUNDS and fits(game.engine)


def register_every_game() -> None:
    """Register each playable OpenSpiel game not already registered by a module of its own."""
    for gt in playable_types():
        if gt.short_name not in GAMES:
            register_game(game_def(gt))
