"""Plans: matchups expanded into deterministic game jobs.

A job's seed, seats and cache key depend only on (run seed, matchup, index, games per matchup),
so re-running a plan replays exactly the same games and finds finished ones already stored.
Jobs are generated one at a time, never listed: a plan of a billion games costs no memory.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Iterator
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypedDict

import pyspiel
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..errors import UserError
from ..games import GAMES, get_game
from ..games.base import engine_message
from ..players import player_class
from ..quiet import engine_quiet
from ..secrets import scrub_spec
from ..seeds import derive_seed
from ..specs import shown

INT64 = 2**63 - 1  # what SQLite stores; a larger seed or count is refused up front
# A plan file's size, bounded before it is read into memory: its bytes, its YAML nodes (scalars, lists,
# mappings) counted after aliases are expanded (a 9x9x... alias bomb is billions), and its matchups.
MAX_PLAN_BYTES = 1_000_000
MAX_PLAN_NODES = 100_000
MAX_MATCHUPS = 100_000
__all__ = ["GameJob", "Matchup", "Plan", "PlanFile", "derive_seed", "load_plan", "single_plan"]


@dataclass(frozen=True)
class Matchup:
    """One player against its opponents in one game and formulation.

    `opponent` sits in the second seat of a two-seat game; `others` are the opponents of the further
    seats of a game of more (empty for two seats, so a two-seat matchup's key is what it always was)."""

    game: str
    formulation: str
    player: str
    opponent: str
    score: bool = True  # False: moves are not scored against an oracle (`--score off`)
    others: tuple[str, ...] = ()
    # The engine's search limit for games graded by an engine (`--score nodes=N`); "" = the default.
    score_limit: str = ""

    @property
    def opponents(self) -> tuple[str, ...]:
        return (self.opponent, *self.others)

    @property
    def seats(self) -> int:
        return 1 + len(self.opponents)

    @property
    def key(self) -> str:
        # stored (job keys, cache keys): a key written into a base_url is redacted (plylab.secrets),
        # each part alone so a redacted query never swallows the parts after it (the same key as
        # scrubbing the whole wherever nothing was swallowed)
        parts = (self.game, self.formulation, self.player, self.opponent, *self.others)
        return "|".join(scrub_spec(p) for p in parts)

    @property
    def specs(self) -> tuple[str, ...]:
        """The player, then every opponent."""
        return (self.player, *self.opponents)


class StoredPlan(TypedDict):
    """A plan as its run stores it (`runs.plan`; the store adds the run's rules): its seed, games per
    matchup, and each matchup's fields (`score` only when off, `others` and `score_limit` only when set)."""

    seed: int
    games: int
    matchups: list[dict[str, object]]


@dataclass(frozen=True)
class GameJob:
    matchup: Matchup
    idx: int
    games: int  # games in this matchup: the player moves first in the first half
    run_seed: int

    @property
    def player_seat(self) -> int:
        """The seat rotation: the games split into one block per seat, the player in seat r in block r.
        For two seats that is the paper's half and half (003 l.60), the first half one longer."""
        if self.matchup.seats == 2:
            return 0 if self.idx < (self.games + 1) // 2 else 1
        return self.idx * self.matchup.seats // self.games

    @cached_property
    def seed(self) -> int:
        return derive_seed(self.run_seed, self.matchup.key, self.idx, self.player_seat)

    @cached_property
    def key(self) -> str:
        """Stable identity of the game: same key = same game (and same cached model replies)."""
        return f"{self.matchup.key}|seed={self.run_seed}|{self.idx}|seat={self.player_seat}"

    def seat_specs(self) -> tuple[str, ...]:
        """The spec in each seat: the player in its seat, its opponents after it in turn order."""
        m = self.matchup
        if m.seats == 2:
            return (m.player, m.opponent) if self.player_seat == 0 else (m.opponent, m.player)
        n, r = m.seats, self.player_seat
        order = [""] * n
        for k, spec in enumerate(m.specs):
            order[(r + k) % n] = spec
        return tuple(order)


def check_int(flag: str, value: int, least: int) -> int:
    """A count or seed as SQLite can store it; one line otherwise."""
    if value < least:
        raise UserError(f"{flag} must be at least {least} (got {value})")
    if value > INT64:
        raise UserError(f"{flag} must be at most {INT64}, what the store holds (got {value})")
    return value


@dataclass
class Plan:
    name: str
    seed: int
    games: int
    matchups: list[Matchup] = field(default_factory=list)

    @property
    def planned(self) -> int:
        return self.games * len(self.matchups)

    def jobs(self, skip: Container[str] = ()) -> Iterator[GameJob]:
        """Every job in order, made as it is drawn; those whose key is in `skip` are left out."""
        for m in self.matchups:
            for i in range(self.games):
                job = GameJob(m, i, self.games, self.seed)
                if job.key not in skip:
                    yield job

    @property
    def uses_model(self) -> bool:
        return any(player_class(spec)[1].uses_model for m in self.matchups for spec in m.specs)

    @property
    def interactive(self) -> bool:
        return any(player_class(spec)[1].interactive for m in self.matchups for spec in m.specs)

    def to_dict(self) -> StoredPlan:
        # no base_url keys; `score` only when off, `others` and `score_limit` only when set, so plans
        # stored before they existed still resume
        matchups = [
            {
                k: scrub_spec(v) if isinstance(v, str) else [scrub_spec(x) for x in v] if k == "others" else v
                for k, v in asdict(m).items()
                if not (k == "score" and v is True) and not (k in ("others", "score_limit") and not v)
            }
            for m in self.matchups
        ]
        return {"seed": self.seed, "games": self.games, "matchups": matchups}

    def validate(self) -> Plan:
        check_int("--games", self.games, 1)
        check_int("--seed", self.seed, -INT64)
        if not self.matchups:
            raise UserError("the plan has no matchups")
        seen: set[str] = set()
        for m in self.matchups:  # a job twice would be saved once and awaited for ever
            if m.key in seen:
                raise UserError(
                    f"the plan has the matchup {m.game}/{m.formulation} {m.player} vs {m.opponent} twice; "
                    "name each player, opponent, game and formulation once"
                )
            seen.add(m.key)
        for m in self.matchups:
            game = get_game(m.game)
            game.formulation(m.formulation)
            try:
                with engine_quiet():
                    seats = game.engine.num_players()
            except pyspiel.SpielError as exc:  # a game that needs parameters it was not given
                raise UserError(
                    f"game '{game.spec}' cannot be loaded: {engine_message(exc)}; "
                    f"parameters: {game.parameters_text()}"
                ) from None
            if m.seats != seats:
                raise UserError(
                    f"'{game.spec}' is played by {seats} seats, and the matchup names {m.seats} "
                    f"(the player and {len(m.opponents)} opponent(s)); name {seats - 1} opponent(s)"
                )
            for spec in m.specs:
                _, cls, options = player_class(spec)
                if cls.games is not None and game.name not in cls.games:
                    raise UserError(
                        f"player '{cls.name}' does not play '{game.name}'; it plays: {', '.join(cls.games)}"
                    )
                if getattr(cls, "needs_oracle", False) and not game.has_oracle:
                    raise UserError(
                        f"'{cls.name}' needs an exact oracle, and {game.oracle_missing} ('{game.name}')"
                    )
                if (why := cls.refusal(game)) is not None:
                    raise UserError(f"player '{cls.name}' cannot play '{game.spec}': {why}")
                cls.prepare(options)
        self._refuse_same_players()
        return self

    def check_store(self, store_path: Path) -> None:
        """Each player's check of the store the run plays into (`Player.check_store`), made before
        the run's row is written."""
        for m in self.matchups:
            game = get_game(m.game)
            for spec in m.specs:
                _, cls, options = player_class(spec)
                cls.check_store(options, game, store_path)

    def _refuse_same_players(self) -> None:
        """Two matchups that differ only in how a player or game is spelled (`mcts:sims=1000,solve=true`
        and `mcts:solve=True,sims=1000`; `optimal` and `optimal:epsilon=0`) are one player twice: both
        would be stored under one name and reported as one row of double size."""
        from ..players.canonical import canonical_spec

        seen: dict[tuple[str, str, str, str], Matchup] = {}
        for m in self.matchups:
            same = (
                get_game(m.game).spec,
                m.formulation,
                canonical_spec(m.player),
                canonical_spec(m.opponent),
            )
            first = seen.setdefault(same, m)
            if first is not m:
                raise UserError(
                    f"the plan has the matchup {shown(same[0])}/{shown(m.formulation)} {shown(same[2])} vs "
                    f"{shown(same[3])} twice (as {shown(first.game)}: {shown(first.player)} vs "
                    f"{shown(first.opponent)} and {shown(m.game)}: {shown(m.player)} vs {shown(m.opponent)}); "
                    "name each player and game once"
                )


# The paper plays 100 games per matchup, sides switched after half (003 l.60); `--games N` is the opt-in.
GAMES_PER_MATCHUP = 100


def default_run_name(m: Matchup, seed: int, games: int) -> str:
    """Each part scrubbed alone: a key in a base_url's query is redacted up to its spec's end, so
    the opponent, seed and count after it stay in the name (the same name for any other spec)."""
    game, formulation, player, opponent = map(scrub_spec, (m.game, m.formulation, m.player, m.opponent))
    return f"{game}.{formulation}.{player}-vs-{opponent}.s{seed}.n{games}"


def single_plan(
    game: str, formulation: str, player: str, opponent: str, games: int, seed: int, name: str | None
) -> Plan:
    m = Matchup(game, formulation, player, opponent)
    return Plan(name or default_run_name(m, seed, games), seed, games, [m]).validate()


Names = list[str]
# Old spellings: one line naming the key that replaced each (never a silent reinterpretation).
RENAMED = {
    "run": "'run' is now 'name'",
    "game": "'game' is now 'games' (the game names)",
    "formulation": "'formulation' is now 'formulations'",
    "player": "'player' is now 'players'",
    "opponent": "'opponent' is now 'opponents'",
}
COUNT_RENAMED = "a number in 'games' is now 'games_per_matchup' ('games' lists the game names)"


class PlanFile(BaseModel):
    """A grid plan file: games x formulations x players x opponents; one spelling per key.

    `games` is one game name or a list; `formulations` a list (applied to every game) or a mapping
    game -> list; `games_per_matchup` the number of games per matchup.
    """

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)  # a game named 2048 is "2048"

    name: str | None = None
    seed: int = Field(0, ge=-INT64, le=INT64)
    games_per_matchup: int = Field(GAMES_PER_MATCHUP, ge=1, le=INT64)
    games: Names
    formulations: Names | dict[str, Names] = ["standard"]
    players: Names
    opponents: Names
    score: bool = True  # false: no move is scored against an oracle (`--score off`)

    @model_validator(mode="before")
    @classmethod
    def _old_spellings(cls, data: object) -> object:
        if isinstance(data, dict):
            old = [RENAMED[k] for k in data if k in RENAMED]
            count = data.get("games")
            if isinstance(count, int | float) and not isinstance(count, bool):
                old.append(COUNT_RENAMED)
            if old:
                raise PydanticCustomError("renamed", "; ".join(old))
        return data

    @field_validator("games", "players", "opponents", "formulations", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return [value]
        if isinstance(value, dict):
            return {k: cls._one_or_many(v) for k, v in value.items()}
        return value

    def duplicates(self) -> list[str]:
        """'key: value' for each value a list names twice (a matchup twice would never finish)."""
        lists = {"games": self.games, "players": self.players, "opponents": self.opponents}
        if isinstance(self.formulations, dict):
            lists |= {f"formulations.{g}": v for g, v in self.formulations.items()}
        else:
            lists["formulations"] = self.formulations
        return [
            f"'{key}' names '{v}' twice"
            for key, values in lists.items()
            for v in sorted({v for v in values if values.count(v) > 1})
        ]

    def size(self) -> int:
        """How many matchups the grid makes."""
        total = 0
        for g in self.games:
            forms = (
                self.formulations.get(g, ["standard"])
                if isinstance(self.formulations, dict)
                else self.formulations
            )
            total += len(forms) * len(self.players) * len(self.opponents)
        return total

    def matchups(self) -> list[Matchup]:
        out = []
        for g in self.games:
            forms = (
                self.formulations.get(g, ["standard"])
                if isinstance(self.formulations, dict)
                else self.formulations
            )
            out += [
                Matchup(g, f, p, o, self.score)
                for f, p, o in itertools.product(forms, self.players, self.opponents)
            ]
        return out


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """Nodes under `node`, aliases counted as often as they are used (each shared node sized once)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(n, sizes) for n in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = size
    return size


def _duplicate_key(node: yaml.Node, seen: set[int] | None = None) -> str | None:
    """The first key a mapping under `node` gives twice (PyYAML keeps the last silently), or None."""
    seen = set() if seen is None else seen
    if id(node) in seen:  # an alias: checked where it is defined
        return None
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        keys: set[str] = set()
        for k, _ in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value != "<<":  # `<<` merges, it is no key
                if k.value in keys:
                    return str(k.value)
                keys.add(k.value)
        children = [n for pair in node.value for n in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    else:
        return None
    for child in children:
        if (found := _duplicate_key(child, seen)) is not None:
            return found
    return None


def _read_yaml(path: Path) -> object:
    """The plan file's YAML, refused with one line when it is not a regular file, not UTF-8, not
    YAML, or larger than MAX_PLAN_BYTES / MAX_PLAN_NODES (aliases expanded) before it is built."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
            raise UserError(f"config '{path}' is not a regular file; give a YAML plan file")
        with path.open("rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
        if len(data) > MAX_PLAN_BYTES:
            raise UserError(
                f"config '{path}' is larger than {MAX_PLAN_BYTES:,} bytes; a plan is a short file"
            )
        loader = yaml.SafeLoader(data.decode("utf-8"))
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            if twice := _duplicate_key(node):
                raise UserError(
                    f"config '{path}' sets '{shown(twice)}' twice; YAML would keep only the last, so give "
                    "each key once"
                )
            if (n := _expanded_size(node, {})) > MAX_PLAN_NODES:
                raise UserError(
                    f"config '{path}' expands to {n:,} YAML values with its aliases; "
                    f"a plan holds at most {MAX_PLAN_NODES:,}"
                )
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except OSError as exc:
        raise UserError(f"cannot read config '{path}': {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"config '{path}' is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except RecursionError:
        raise UserError(f"config '{path}' nests too deeply; a plan is a flat mapping of lists") from None
    except yaml.YAMLError as exc:
        raise UserError(f"config '{path}' is not valid YAML: {str(exc).splitlines()[0]}") from None


def _plan_error(path: Path, exc: ValidationError) -> UserError:
    err = exc.errors()[0]
    if err["type"] == "renamed":
        return UserError(f"config '{path}': {err['msg']}")
    unknown = sorted({str(e["loc"][0]) for e in exc.errors() if e["type"] == "extra_forbidden"})
    if unknown:
        return UserError(
            f"config '{path}': unknown key(s) {', '.join(unknown)}; accepted: {', '.join(PlanFile.model_fields)}"
        )
    key = str(err["loc"][0]) if err["loc"] else ""
    if err["type"] == "missing":
        hint = f" ({', '.join(GAMES.names())})" if key == "games" else ""
        return UserError(f"config '{path}' needs '{key}'{hint}")
    if key in ("seed", "games_per_matchup"):
        least = 1 if key == "games_per_matchup" else -INT64
        return UserError(f"config '{path}': '{key}' must be an integer from {least} to {INT64}")
    return UserError(f"config '{path}': '{key}' must be a string or a list of strings")


def load_plan(
    path: Path, *, seed: int | None = None, games: int | None = None, name: str | None = None
) -> Plan:
    """A grid plan from YAML (see `PlanFile`); CLI flags override the seed, the games per matchup
    (`--games`) and the run name."""
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise UserError(f"config '{path}' must be a mapping with keys: {', '.join(PlanFile.model_fields)}")
    try:
        spec = PlanFile.model_validate(data)
    except ValidationError as exc:
        raise _plan_error(path, exc) from None
    except RecursionError:
        raise UserError(f"config '{path}' nests too deeply; a plan is a flat mapping of lists") from None
    if twice := spec.duplicates():
        raise UserError(f"config '{path}': {'; '.join(twice)}; list each once")
    if spec.size() > MAX_MATCHUPS:
        raise UserError(
            f"config '{path}' makes {spec.size():,} matchups; a plan holds at most {MAX_MATCHUPS:,}"
        )
    n = games if games is not None else spec.games_per_matchup
    s = seed if seed is not None else spec.seed
    return Plan(name or spec.name or Path(path).stem, s, n, spec.matchups()).validate()
