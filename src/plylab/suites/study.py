"""Running a suite: one call per position and player, a study on the one run driver.

Each job rebuilds the position from its history (chance outcomes included, so a seat's view with
its hidden information is what it was in play) and asks a fresh player through `Player.act`, the
path every game's session uses: the same prompt, formulation, output rules and failure policy. The
answer is scored against the position's stored truth and saved in a table of its own in the same
store, keyed by run, position and player, so a killed run resumes with exactly one answer each.
A suite's run is named after the suite and its hash: a rebuilt suite is another run; a player
added later joins the same run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Container, Iterator
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from ..db import blank
from ..errors import UserError
from ..games import Formulation, GameDef, get_game
from ..harness.forecast import Forecast, model_of
from ..harness.store import Store
from ..harness.study import Part, StudyContext
from ..players import RunContext, Turn
from ..players.canonical import canonical_spec
from ..seeds import derive_seed
from ..words import count
from .answer import Answer, SuiteRun
from .content import INT64, Position, Suite
from .kinds import kind_of
from .until import WidthStop

ANSWERS = """CREATE TABLE IF NOT EXISTS suite_answers (
    run_id INTEGER NOT NULL, position INTEGER NOT NULL, player TEXT NOT NULL, position_id TEXT NOT NULL,
    action INTEGER, label TEXT, optimal INTEGER NOT NULL, loss REAL NOT NULL, span REAL NOT NULL,
    chance REAL NOT NULL, features TEXT NOT NULL, failure TEXT, prompt TEXT, reply TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    calls INTEGER NOT NULL DEFAULT 0, cache_hits INTEGER NOT NULL DEFAULT 0, cost REAL, elapsed REAL,
    deduction TEXT, memory TEXT, repeat INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, position, player, repeat))"""


class SuiteStore(Store):
    """The games' store with the suites' answers table: one SQL home for what a suite run saves."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        super().__init__(path, create=create)
        if create:
            self._conn.execute(ANSWERS)

    def has_answer(self, run_id: int, position: int, player: str, repeat: int) -> bool:
        """Whether the run holds the player's answer (its `repeat`-th) to the position."""
        sql = "SELECT 1 FROM suite_answers WHERE run_id=? AND position=? AND player=? AND repeat=?"
        return self._conn.execute(sql, (run_id, position, player, repeat)).fetchone() is not None

    def answer_count(self, run_id: int, positions: int, players: list[str], repeats: int) -> int:
        """The run's stored answers among those asked: positions below `positions`, of `players`,
        repeats below `repeats` (counted in SQL, so however many are asked, nothing is listed)."""
        marks = ", ".join("?" * len(players))
        sql = (
            f"SELECT COUNT(*) FROM suite_answers WHERE run_id=? AND position<? AND repeat<? "
            f"AND player IN ({marks})"
        )
        return int(self._conn.execute(sql, (run_id, positions, repeats, *players)).fetchone()[0])

    def memories(self, run_id: int) -> dict[str, set[str | None]]:
        """Per player of the run, the memory hashes its stored answers were given with."""
        out: dict[str, set[str | None]] = {}
        rows = self._conn.execute(
            "SELECT DISTINCT player, memory FROM suite_answers WHERE run_id=?", (run_id,)
        )
        for player, memory in rows:
            out.setdefault(str(player), set()).add(memory)
        return out

    def save_answer(self, run_id: int, answer: Answer) -> bool:
        row = {f.name: getattr(answer, f.name) for f in fields(answer)}  # asdict deep-copies: 4x slower
        row["features"] = json.dumps(row["features"], sort_keys=True)
        row["deduction"] = None if answer.deduction is None else json.dumps(answer.deduction, sort_keys=True)
        row["optimal"] = int(answer.optimal)
        names = ["run_id", *row]
        sql = (
            f"INSERT OR IGNORE INTO suite_answers ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        )
        cur = self._conn.execute(sql, (run_id, *row.values()))
        return cur.rowcount == 1

    def suite_runs(self) -> list[SuiteRun]:
        """The store's suite runs, read through the store's own typed rows."""
        out = []
        for r in self.runs():
            if r.kind != "suite":
                continue
            plan = json.loads(r.plan)
            out.append(SuiteRun(r.id, r.name, str(plan["suite"]), str(plan["hash"]), str(plan["game"])))
        return out

    def answers(self, run_id: int) -> list[Answer]:
        if not self.has_answers():
            return []
        rows = self._conn.execute(
            "SELECT * FROM suite_answers WHERE run_id=? ORDER BY player, position, repeat", (run_id,)
        ).fetchall()
        fields = Answer.__dataclass_fields__
        later = ("features", "optimal", "deduction")  # parsed below
        return [
            Answer(
                **{k: r[k] for k in fields if k not in later},
                optimal=bool(r["optimal"]),
                features=json.loads(r["features"]),
                deduction=json.loads(r["deduction"]) if r["deduction"] else None,
            )
            for r in rows
        ]

    def has_answers(self) -> bool:
        row = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='suite_answers'")
        return row.fetchone() is not None


@dataclass(frozen=True)
class Answered:
    """A run's stored answers, looked up one (position, player, repeat) at a time: memory stays flat
    however many answers a run asks for (`--repeats 1000000000`), as the games' `SavedKeys`."""

    store: SuiteStore
    run_id: int
    none: bool  # the run held no answer when its jobs were drawn: nothing to look up (a new run)

    def __contains__(self, key: object) -> bool:
        if self.none:
            return False
        position, player, repeat = cast(tuple[int, str, int], key)
        return self.store.has_answer(self.run_id, position, player, repeat)


@dataclass(frozen=True)
class SuiteJob:
    """One position put to one player (picklable: a process pool or Ray may play it)."""

    key: str
    game: str
    formulation: str
    player: str
    position: Position
    seed: int
    uses_model: bool
    memory: str | None = None  # the player's frozen memory (`Player.memory_hash`), saved with the answer
    repeat: int = 0  # which of `--repeats` answers to the position this is (0: the first, and the only one)

    def turn(self) -> Turn:
        """The position as a session would put it to its mover: the state rebuilt from the history
        (chance included), the suite's formulation; what the player reads is `turn.view`."""
        game, formulation = asked_in(self.game, self.formulation)
        pos = self.position
        return Turn(game, formulation, pos.state(game), pos.mover, pos.ply, self.key)

    async def play(self, context: RunContext) -> Answer:
        """The position put to the player and the answer scored, as the suite's kind does both."""
        return await kind_of(self.game).ask(self, context)


@lru_cache(maxsize=16)
def asked_in(game_spec: str, formulation: str) -> tuple[GameDef, Formulation[Any]]:
    """The suite's game and formulation, made once per process: a session makes them once per game
    and a suite's answer is one decision, so making them per answer (its labels with them) cost a
    suite run a third more than games with as many decisions."""
    game = get_game(game_spec)
    return game, game.formulation(formulation)


def run_name(suite: Suite) -> str:
    """A suite's run: its name and hash, so a rebuilt suite is another run."""
    return f"suite-{suite.name}-{suite.hash.removeprefix('sha256:')[:12]}"


def suite_job(suite: Suite, pos: Position, spec: str, memory: str | None = None, repeat: int = 0) -> SuiteJob:
    """`pos` put to the player `spec` (canonical): its key and seed are the suite's and the player's,
    the same for `plylab suite run` and for `inspect eval plylab/suite` (`tasks.suite`). `memory`:
    the hash of the frozen memory the player reads, recorded with its answer. A repeat (`--repeats`)
    has a key and seed of its own (so a model's call is its own, not the cached first answer); the
    first answer's are those of a run without repeats."""
    key, seed = f"{run_name(suite)}/{pos.index}/{spec}", derive_seed(suite.hash, pos.index, spec)
    if repeat:
        key, seed = f"{key}#{repeat}", derive_seed(suite.hash, pos.index, spec, repeat)
    return SuiteJob(
        key=key,
        game=suite.game,
        formulation=suite.formulation,
        player=spec,
        position=pos,
        seed=seed,
        uses_model=kind_of(suite.game).uses_model(suite.game, spec),
        memory=memory,
        repeat=repeat,
    )


class SuiteStudy:
    """A suite put to players: jobs are (position, player) in the suite's order, missing ones only."""

    kind = "suite run"

    def __init__(
        self, suite: Suite, players: list[str], until: float | None = None, repeats: int = 1
    ) -> None:
        if not 1 <= repeats <= INT64:
            raise UserError(
                f"--repeats must be a whole number of answers per position, from 1 to {INT64} (got {repeats})"
            )
        self.suite = suite
        self.until = until
        self.repeats = repeats
        self.players = [canonical_spec(p) for p in players]
        self.name = run_name(suite)
        self.lease = f"suite:{self.name}"
        self.planned = len(suite.positions) * len(self.players) * repeats
        # every spec checked (and refused in one line) before anything runs; a memory named by its hash
        self.memories = {spec: kind_of(suite.game).player(suite.game, spec) for spec in self.players}

    def open_store(self, path: Path) -> SuiteStore:
        return SuiteStore(path)

    def plan(self) -> dict[str, object]:
        s = self.suite
        return {"suite": s.name, "hash": s.hash, "game": s.game, "formulation": s.formulation}

    def asked(self, answer: Answer) -> bool:
        """Whether the answer is one this run asks for (its player, one of its repeats)."""
        return answer.player in self.players and answer.repeat < self.repeats

    def missing(self, done: Container[tuple[int, str, int]]) -> Iterator[tuple[Position, int, str]]:
        """(position, repeat, player) of every answer not in `done`, in the run's order: position by
        position in the suite's order, a position's repeats together; made as it is drawn, so a run
        of any size starts at once with flat memory."""
        for pos in self.suite.positions:
            for r in range(self.repeats):
                for spec in self.players:
                    if (pos.index, spec, r) not in done:
                        yield pos, r, spec

    def jobs(self, done: Container[tuple[int, str, int]] = ()) -> Iterator[SuiteJob]:
        """The missing answers' jobs (`missing`), made as they are drawn."""
        for pos, r, spec in self.missing(done):
            yield suite_job(self.suite, pos, spec, self.memories[spec], r)

    async def parts(
        self, store: SuiteStore, context: StudyContext
    ) -> AsyncGenerator[Part[SuiteJob, Answer], None]:
        run_id = store.open_run(self.name, 0, self.plan(), kind="suite")
        self._same_memories(store.memories(run_id))
        already = store.answer_count(run_id, len(self.suite.positions), self.players, self.repeats)
        done = Answered(store, run_id, none=not store.answer_count(run_id, INT64, self.players, INT64))
        budget = None
        if self.until is not None:
            budget = WidthStop(self.until, self.players, (pos.index for pos, _, _ in self.missing(done)))
            for a in store.answers(run_id):
                if self.asked(a):
                    budget.count(a.player, a.optimal)
        yield Part(
            self.jobs(done),
            lambda answer: store.save_answer(run_id, answer),
            lambda status, why: store.finish_run(run_id, status, why),
            self.planned,
            already=already,
            model=any(kind_of(self.suite.game).uses_model(self.suite.game, p) for p in self.players),
            extra=store.rules(run_id),
            budget=budget,
        )

    def _same_memories(self, stored: dict[str, set[str | None]]) -> None:
        """A player whose memory changed since its stored answers is another player: refused in one
        line, so one run never mixes answers of two memories under one name."""
        for spec in self.players:
            before = stored.get(spec, set()) - {self.memories[spec]}
            if before:
                then = ", ".join(sorted(m or "none" for m in before))
                raise UserError(
                    f"player '{spec}' answered this suite with memory {then}; its memory is now "
                    f"{self.memories[spec] or 'none'}: a changed memory is another player, so copy it "
                    "to a new path (memory=NEW) or use another --store"
                )

    def details(self) -> list[str]:
        line = f"{count(len(self.suite.positions), 'position')} x {count(len(self.players), 'player')}"
        return [line + (f" x {self.repeats} repeats" if self.repeats > 1 else "")]

    def forecast(self, store_path: Path) -> Forecast:
        saved = 0
        store = self._stored(store_path)
        if store is not None:
            try:
                runs = [r for r in store.suite_runs() if r.name == self.name]
                if runs and store.has_answers():
                    self._same_memories(store.memories(runs[0].id))  # refused before the first line
                    n = len(self.suite.positions)
                    saved = store.answer_count(runs[0].id, n, self.players, self.repeats)
            finally:
                store.close()
        out = Forecast(self.kind, self.name, self.planned - saved, saved, unit="answer")
        for spec in self.players:
            model = model_of(spec)
            if model is not None:
                out.load(model).calls += len(self.suite.positions) * self.repeats
        return out

    @staticmethod
    def _stored(store_path: Path) -> SuiteStore | None:
        """The store as the forecast reads it: as `plylab run`'s forecast (`harness.store.StoreView`),
        what cannot be read (none yet, an empty file) has taught it nothing, and the run's own
        opening, the games' `Store`'s, makes it a store or refuses it in one line."""
        if not store_path.exists() or blank(store_path):  # a blank file is made a store by the run
            return None
        try:
            return SuiteStore(store_path, create=False)
        except UserError:
            return None


__all__ = ["Answer", "SuiteJob", "SuiteRun", "SuiteStore", "SuiteStudy", "run_name", "suite_job"]
