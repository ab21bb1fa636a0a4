"""Plans: matchups expanded into deterministic game jobs.

A job's seed, seats and cache key depend only on (run seed, matchup, index, games per matchup),
so re-running a plan replays exactly the same games and finds finished ones already stored.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from ..errors import UserError
from ..games import GAMES, get_game
from ..players import player_class


def derive_seed(*parts: object) -> int:
    """A 31-bit seed from any parts (stable across processes and machines, unlike hash())."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Matchup:
    game: str
    formulation: str
    player: str
    opponent: str

    @property
    def key(self) -> str:
        return f"{self.game}|{self.formulation}|{self.player}|{self.opponent}"


@dataclass(frozen=True)
class GameJob:
    matchup: Matchup
    idx: int
    games: int  # games in this matchup: the player moves first in the first half
    run_seed: int

    @property
    def player_seat(self) -> int:
        return 0 if self.idx < (self.games + 1) // 2 else 1

    @cached_property
    def seed(self) -> int:
        return derive_seed(self.run_seed, self.matchup.key, self.idx, self.player_seat)

    @cached_property
    def key(self) -> str:
        """Stable identity of the game: same key = same game (and same cached model replies)."""
        return f"{self.matchup.key}|seed={self.run_seed}|{self.idx}|seat={self.player_seat}"

    def seat_specs(self) -> tuple[str, str]:
        m = self.matchup
        return (m.player, m.opponent) if self.player_seat == 0 else (m.opponent, m.player)


@dataclass
class Plan:
    name: str
    seed: int
    games: int
    matchups: list[Matchup] = field(default_factory=list)

    def jobs(self) -> list[GameJob]:
        return [GameJob(m, i, self.games, self.seed) for m in self.matchups for i in range(self.games)]

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "games": self.games, "matchups": [asdict(m) for m in self.matchups]}

    def validate(self, preflight: bool = True) -> "Plan":
        if self.games < 1:
            raise UserError(f"--games must be at least 1 (got {self.games})")
        if not self.matchups:
            raise UserError("the plan has no matchups")
        for m in self.matchups:
            game = get_game(m.game)
            game.formulation(m.formulation)
            for spec in (m.player, m.opponent):
                _, cls, options = player_class(spec)
                if cls.games is not None and game.name not in cls.games:
                    raise UserError(f"player '{cls.name}' does not play '{game.name}'; it plays: {', '.join(cls.games)}")
                if cls.name == "optimal" and not game.has_oracle:
                    raise UserError(f"'optimal' needs an exact oracle, and {game.oracle_missing} ('{game.name}')")
                if preflight:
                    cls.preflight(options)
        return self


def default_run_name(m: Matchup, seed: int, games: int) -> str:
    return f"{m.game}.{m.formulation}.{m.player}-vs-{m.opponent}.s{seed}.n{games}"


def single_plan(
    game: str, formulation: str, player: str, opponent: str, games: int, seed: int, name: str | None
) -> Plan:
    m = Matchup(game, formulation, player, opponent)
    return Plan(name or default_run_name(m, seed, games), seed, games, [m]).validate()


def _as_list(value: Any, key: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, int, float)):
        return [str(value)]
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    raise UserError(f"config key '{key}' must be a string or a list of strings")


CONFIG_KEYS = {"name", "run", "seed", "games", "games_per_matchup", "game", "formulations", "formulation",
               "players", "player", "opponents", "opponent"}


def load_plan(path: Path, *, seed: int | None = None, games: int | None = None, name: str | None = None) -> Plan:
    """A grid plan from YAML: games x formulations x players x opponents.

    `game`/`games_list` may be a list; `formulations` a list (applied to every game) or a mapping
    game -> list. CLI flags override `seed`, `games` and the run name.
    """
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise UserError(f"cannot read config '{path}': {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise UserError(f"config '{path}' is not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise UserError(f"config '{path}' must be a mapping with keys: {', '.join(sorted(CONFIG_KEYS))}")
    unknown = set(data) - CONFIG_KEYS
    if unknown:
        raise UserError(f"config '{path}': unknown key(s) {', '.join(sorted(unknown))}; accepted: {', '.join(sorted(CONFIG_KEYS))}")
    game_names = _as_list(data.get("game"), "game")
    if not game_names:
        raise UserError(f"config '{path}' needs 'game': one name or a list ({', '.join(GAMES.names())})")
    forms = data.get("formulations", data.get("formulation", "standard"))
    players = _as_list(data.get("players", data.get("player")), "players")
    opponents = _as_list(data.get("opponents", data.get("opponent")), "opponents")
    if not players or not opponents:
        raise UserError(f"config '{path}' needs 'players' and 'opponents'")
    matchups = []
    for g in game_names:
        fl = _as_list(forms.get(g, "standard") if isinstance(forms, dict) else forms, "formulations")
        matchups += [Matchup(g, f, p, o) for f, p, o in itertools.product(fl, players, opponents)]
    n = games if games is not None else data.get("games", data.get("games_per_matchup", 10))
    s = seed if seed is not None else data.get("seed", 0)
    if not isinstance(n, int) or not isinstance(s, int):
        raise UserError(f"config '{path}': 'games' and 'seed' must be integers")
    run = name or data.get("name") or data.get("run") or Path(path).stem
    return Plan(str(run), s, n, matchups).validate()
