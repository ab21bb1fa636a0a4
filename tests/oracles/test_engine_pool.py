"""Chess is graded by a pool of engine processes at once: the same grades whatever the pool's size,
none of its processes outlives it, and a run grades its moves there while its games go on."""

from __future__ import annotations

import dataclasses
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from plylab.errors import UserError
from plylab.games import get_game
from plylab.oracles import engine_pool
from plylab.oracles.engine import EngineOracle, EvalCache, Limit, engine_path
from tests.support.engines import live, needs_stockfish
from tests.support.fake_engine import install

FAST = Limit(nodes=3000)
HELD = 300  # seconds a held search waits for what must come before it fails the test (never reached)


class TogetherFirst:
    """`Engine.analyse` (one process's search) made to hold its first `n` searches until all `n` are
    searching at once: passing proves `n` processes searched together, with no timing to hope for."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, n: int) -> None:
        from plylab.oracles.engine import Engine

        self.barrier = threading.Barrier(n, timeout=HELD)
        self.threads: list[str] = []
        self._lock = threading.Lock()
        analyse = Engine.analyse

        def held(engine: Engine, board, limit):  # noqa: ANN001, ANN202
            with self._lock:
                self.threads.append(threading.current_thread().name)
                first = len(self.threads) <= self.barrier.parties
            if first:
                self.barrier.wait()  # BrokenBarrierError (the test fails) if the others never come
            return analyse(engine, board, limit)

        monkeypatch.setattr(Engine, "analyse", held)


def _decisions(games: int, plies: int) -> list[tuple[object, int]]:
    """(state, action) of random chess games from a fixed seed: positions no cache has seen."""
    game, rng, out = get_game("chess"), random.Random(7), []
    for _ in range(games):
        state = game.new_state()
        while not state.is_terminal() and len(out) % plies != plies - 1:
            action = rng.choice(state.legal_actions())
            out.append((state.clone(), action))
            state.apply_action(action)
        out.append((state.clone(), rng.choice(state.legal_actions())))
    return out


@pytest.mark.slow
@needs_stockfish
def test_a_pool_of_two_grades_exactly_as_one_process_does_and_leaves_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decisions = _decisions(games=2, plies=12)
    graded, pids = {}, {}
    for size in (1, 2):
        if size == 2:  # its first two searches run at once, in its two processes
            together = TogetherFirst(monkeypatch, 2)
        oracle = EngineOracle(
            "chess", FAST, str(engine_path("stockfish")), EvalCache(tmp_path / f"c{size}.sqlite"), size=size
        )
        try:
            # every decision at once, as a run's games in flight ask: the pool's threads share them out
            futures = [oracle.executor.submit(oracle.grade, s, a) for s, a in decisions]
            graded[size] = [f.result().to_json() for f in futures]
            pids[size] = oracle.pool.pids()
        finally:
            oracle.close()
    assert len(pids[1]) == 1 and len(pids[2]) == 2  # two processes searched, the held two at once
    assert all(t.startswith("stockfish grader") for t in together.threads)  # on the pool's threads
    assert graded[1] == graded[2]  # evaluations, best moves, lines and losses: identical
    assert not any(live(p) for p in pids[1] + pids[2])


@pytest.mark.slow
@needs_stockfish
def test_a_position_two_threads_need_at_once_is_searched_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grades of consecutive moves share a position (after the one, before the next). Each search
    is held until the three other threads wait for it (no sleep: their waits are counted)."""
    from concurrent.futures import Future

    from plylab.oracles import engine as engine_mod

    [(state, action)] = _decisions(games=1, plies=1)
    waiting = threading.Condition()
    waits = [0]

    class Counted(Future):  # the search in progress that a thread needing the same position waits for
        def result(self, timeout=None):  # noqa: ANN001, ANN202
            with waiting:
                waits[0] += 1
                waiting.notify_all()
            return super().result(timeout)

    monkeypatch.setattr(engine_mod, "Future", Counted)
    oracle = EngineOracle(
        "chess", FAST, str(engine_path("stockfish")), EvalCache(tmp_path / "c.sqlite"), size=4
    )
    searched: list[str] = []
    analyse = oracle.pool.analyse

    def counting(board, limit):  # the pool's own search, counted; held until the others wait for it
        searched.append(board.fen())
        with waiting:
            assert waiting.wait_for(lambda: waits[0] >= 3 * len(searched), timeout=HELD)
        return analyse(board, limit)

    oracle.pool.analyse = counting  # type: ignore[method-assign]
    try:
        grades = [f.result() for f in [oracle.executor.submit(oracle.grade, state, action) for _ in range(4)]]
    finally:
        oracle.close()
    assert len(searched) == len(set(searched)) == 2  # before and after the move, once each
    assert all(g.to_json() == grades[0].to_json() for g in grades)


def test_the_pool_size_is_the_cores_a_worker_s_share_or_plylab_engines(monkeypatch) -> None:
    monkeypatch.delenv(engine_pool.ENGINES_ENV, raising=False)
    monkeypatch.setattr(engine_pool, "_share", [])
    assert engine_pool.pool_size() == engine_pool.cores() == len(os.sched_getaffinity(0))
    engine_pool.set_share(0)  # a worker given less than a core still grades, with one process
    assert engine_pool.pool_size() == 1
    monkeypatch.setenv(engine_pool.ENGINES_ENV, "3")
    assert engine_pool.pool_size() == 3
    for bad in ("0", "many", "-2", "2000"):
        monkeypatch.setenv(engine_pool.ENGINES_ENV, bad)
        with pytest.raises(UserError, match=f"PLYLAB_ENGINES='{bad}' is not accepted; give the number"):
            engine_pool.pool_size()


def _grades(store: Path) -> list[tuple[str, int, str]]:
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT g.job_key, m.ply, m.grade FROM moves m JOIN games g ON g.id = m.game_id "
            "ORDER BY g.job_key, m.ply"
        ).fetchall()
    return [(str(k), int(p), str(g)) for k, p, g in rows]


def _run(tmp_path: Path, name: str, env: dict[str, str], games: int = 2) -> subprocess.CompletedProcess[str]:
    argv = ["run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", str(games),
            "--concurrency", "2", "--score", "nodes=2000", "--store", str(tmp_path / f"{name}.sqlite"),
            "--quiet"]  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "plylab", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PLYLAB_CACHE": str(tmp_path / f"cache-{name}"), **env},
    )


@needs_stockfish
@pytest.mark.slow  # two runs of two chess games, every position searched: a minute on a busy core
def test_a_run_grades_the_same_with_one_engine_or_three(tmp_path: Path) -> None:
    for name, engines in (("one", "1"), ("three", "3")):
        done = _run(tmp_path, name, {"PLYLAB_ENGINES": engines})
        assert done.returncode == 0 and "2/2 games saved" in done.stdout, done.stdout + done.stderr
    one, three = _grades(tmp_path / "one.sqlite"), _grades(tmp_path / "three.sqlite")
    assert len(one) > 20 and all(g != "None" for _, _, g in one)  # every move graded, none left out
    assert one == three


@pytest.mark.slow
@needs_stockfish
def test_a_run_grades_its_moves_in_the_pool_while_its_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session hands each move to the pool's threads and plays on: two of one game's positions
    are searched at once (held until both are: with one grade at a time, as before, the second never
    comes), on the pool's threads, and the grades are those of a pool of one."""
    import asyncio

    from plylab.harness.plan import single_plan
    from plylab.harness.session import play_game
    from plylab.oracles import engine as engine_mod

    plan = single_plan("chess", "standard", "random", "random", 1, 3, None)
    plan.matchups = [dataclasses.replace(m, score_limit="nodes=3000") for m in plan.matchups]
    job = next(iter(plan.jobs()))
    stockfish = str(engine_path("stockfish"))
    grades, pids = {}, []
    try:
        for size in (1, 3):
            # nothing cached: every position searched
            monkeypatch.setenv("PLYLAB_CACHE", str(tmp_path / f"cache{size}"))
            if size == 3:
                together = TogetherFirst(monkeypatch, 2)
            engine_mod._close_all()
            engine_mod._POOLS[stockfish] = engine_mod.EnginePool("stockfish", stockfish, size=size)
            record = asyncio.run(play_game(job))
            pids += engine_mod._POOLS[stockfish].pids()
            grades[size] = [m.grade for m in record.moves]
    finally:
        engine_mod._close_all()
    assert len(grades[1]) > 1 and None not in grades[1]  # every move graded
    assert grades[3] == grades[1]
    assert len(together.threads) >= 2 and all(t.startswith("stockfish grader") for t in together.threads)
    assert pids and not any(live(p) for p in pids)


@pytest.mark.slow
def test_a_failing_engine_in_a_pool_is_still_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    env = {**install(fake, "hang", after=6), "PLYLAB_ENGINE_TIMEOUT": "2", "PLYLAB_ENGINES": "3"}
    started = time.monotonic()
    done = _run(tmp_path, "hang", env, games=3)
    assert time.monotonic() - started < 60  # three tries of 2 s, not three for every process in turn
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    lines = [x for x in done.stderr.splitlines() if not x.startswith("run '")]
    assert len(lines) == 1 and lines[0].startswith(f"plylab: stockfish ({fake / 'stockfish'}) failed 3 times")
    assert "unfinished by provider failures" in done.stdout, done.stdout
    assert not any(live(p) for p in _pids_of(str(fake)))


def _pids_of(text: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmd and int(pid) != os.getpid():
            found.append(int(pid))
    return found


@needs_stockfish
@pytest.mark.ray
@pytest.mark.slow  # a local Ray instance and two runs of chess graded at every move
@pytest.mark.timeout(600)
def test_on_ray_each_worker_grades_where_it_plays_and_the_grades_are_local_s(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pl-") as short:  # Ray's socket paths live under it
        folder = Path(short)
        for name, backend in (
            ("local", ["--backend", "local"]),
            ("ray", ["--backend", "ray", "--workers", "2"]),
        ):
            argv = ["run", "--game", "chess", "--player", "random", "--opponent", "random", "--games", "4",
                    "--score", "nodes=1000", "--store", f"{name}.sqlite", "--quiet", *backend]  # fmt: skip
            done = subprocess.run(
                [sys.executable, "-m", "plylab", *argv],
                capture_output=True,
                text=True,
                timeout=500,
                cwd=folder,
                env={**os.environ, "PLYLAB_CACHE": str(folder / f"cache-{name}")},  # every position searched
            )
            assert done.returncode == 0 and "4/4 games saved" in done.stdout, done.stdout + done.stderr
        local, on_ray = _grades(folder / "local.sqlite"), _grades(folder / "ray.sqlite")
        assert len(local) > 40 and all(g != "None" for _, _, g in on_ray)
        assert on_ray == local
        assert not _pids_of(str(folder))  # Ray's processes are gone
        assert not [p for p in _pids_with_env(str(folder)) if live(p)]  # and no engine they started


def _pids_with_env(text: str) -> list[int]:
    """Processes whose environment mentions `text` (an engine inherits its run's PLYLAB_CACHE)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().decode(errors="replace")
        except OSError:
            continue
        if text in env and int(pid) != os.getpid():
            found.append(int(pid))
    return found
