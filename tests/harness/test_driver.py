"""The run driver under pressure: a billion games, SIGTERM, two processes on one run, a full disk."""

from __future__ import annotations

import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plylab.harness.plan import GameJob, Matchup, Plan
from plylab.harness.store import Store
from plylab.learning.schedule import Phase
from plylab.seeds import derive_seed
from tests.support.cli import run_args
from tests.support.runs import count, no_run_outlives_its_test, plylab, stop, wait_for_games  # noqa: F401

BILLION = "1000000000"
SLOW = ["--player", "mcts:sims=20000", "--opponent", "mcts:sims=20000"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def status(store: Path) -> str:
    return sqlite3.connect(store).execute("SELECT status FROM runs").fetchone()[0]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_billion_games_start_at_once_in_flat_memory_and_a_signal_stops_them(
    tmp_path: Path, sig: int
) -> None:
    store = tmp_path / "s.sqlite"
    proc = plylab(
        *run_args("tic_tac_toe", games=BILLION, store=store),
        "--run",
        "big",
    )
    wait_for_games(proc, store, 50, timeout=60)  # listing a billion jobs first would take minutes and ~500 GB
    early = rss_mb(proc.pid)
    wait_for_games(proc, store, count(store) + 300)
    late = rss_mb(proc.pid)
    assert late < 600 and late - early < 50, f"resident memory {early:.0f} MB, then {late:.0f} MB"
    out, err = stop(proc, sig)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    lines = out.strip().splitlines()
    assert (
        len(lines) == 1
        and "run 'big' interrupted" in lines[0]
        and f"/{int(BILLION):,} games saved" in lines[0]
    )
    assert status(store) == "interrupted"


@pytest.mark.slow
def test_a_billion_clue_games_start_at_once_and_sigterm_stops_them(tmp_path: Path) -> None:
    store = tmp_path / "c.sqlite"
    proc = plylab(
        "clue", "run", *["--player", "clue-random"] * 3, "--games", BILLION, "--store", str(store), "-q"
    )
    wait_for_games(proc, store, 5, table="games", timeout=60)
    out, err = stop(proc, signal.SIGTERM)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(out.strip().splitlines()) == 1 and "interrupted" in out


def test_plans_and_learning_phases_make_jobs_as_they_are_drawn() -> None:
    plan = Plan("big", 0, 10**18, [Matchup("nim", "standard", "random", "random")] * 2)
    jobs = plan.jobs()
    first = next(jobs)
    assert (first.idx, plan.planned) == (0, 2 * 10**18)
    assert next(plan.jobs(skip={first.key})).idx == 1
    phase = Phase(0, "eval", 0, 10**18)
    from plylab.learning.schedule import Experiment

    exp = Experiment("tic_tac_toe", "standard", "reaper:model=local", "random")
    assert next(phase.jobs(exp)).idx == 0


@pytest.mark.slow
def test_a_second_process_on_a_run_in_progress_refuses_and_the_first_ends_right(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    args = [
        "run",
        "--game",
        "tic_tac_toe",
        *SLOW,
        "--games",
        "80",
        "--store",
        str(store),
        "--run",
        "r",
        "--quiet",
    ]
    first = plylab(*args)
    wait_for_games(first, store, 1)
    second = plylab(*args)
    out, err = second.communicate(timeout=120)
    assert first.poll() is None, "the first run ended before the second started; make its games slower"
    assert second.returncode == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and f"is being played by process {first.pid}" in err
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert "run 'r' finished: 80/80 games saved" in out and "(80 played now, 0 already there)" in out
    assert status(store) == "finished" and count(store) == 80
    again = plylab(*args)  # the lease ended with its process: the same command now just reports
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0 and "80/80 games saved" in out and "(0 played now, 80 already there)" in out


@pytest.mark.slow
def test_a_killed_process_leaves_the_run_free(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    args = [
        "run",
        "--game",
        "tic_tac_toe",
        *SLOW,
        "--games",
        "30",
        "--store",
        str(store),
        "--run",
        "k",
        "--quiet",
    ]
    first = plylab(*args)
    wait_for_games(first, store, 1)
    first.kill()
    first.communicate()
    lease = sqlite3.connect(store).execute("SELECT pid FROM run_leases").fetchone()
    assert lease == (first.pid,)  # a kill -9 leaves its lease behind ...
    done = plylab(*args, "--concurrency", "4")
    out, err = done.communicate(timeout=300)
    assert done.returncode == 0, err  # ... and the next process takes it over
    assert "30/30 games saved" in out


def _small_files(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["run", "clue"])
def test_a_full_disk_is_one_line_and_the_run_resumes(tmp_path: Path, kind: str) -> None:
    store = tmp_path / "s.sqlite"
    if kind == "run":
        args = [
            *run_args("tic_tac_toe", games=3000, store=store),
            "--run",
            "d",
        ]
        table, total, limit = "games", 3000, 400_000
    else:
        args = ["clue", "run", *["--player", "clue-random"] * 3, "--games", "60", "--store", str(store), "-q"]
        # a Clue move keeps its legal actions (670 at a turn): a game takes about 100 KB
        table, total, limit = "games", 60, 2_000_000
    full = subprocess.run(
        [sys.executable, "-m", "plylab", *args],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_small_files(limit),
    )
    assert full.returncode == 2, (full.stdout, full.stderr)
    started, error = full.stderr.strip().splitlines()  # the run's first line, then one line for the failure
    assert "games to play" in started and "Traceback" not in full.stderr
    assert "cannot write to store" in error and "re-run the same command to resume" in full.stderr
    saved = count(store, table)
    assert 0 < saved < total
    again = subprocess.run(
        [sys.executable, "-m", "plylab", *args], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
    assert count(store, table) == total


@pytest.mark.slow
@pytest.mark.parametrize(
    "text, needle",
    [
        (
            b"games: tic_tac_toe\nplayers: [random]\nopponents: [random]\nseed: 99999999999999999999\n",
            "'seed' must be an integer",
        ),
        (
            b"games: tic_tac_toe\nplayers: [random]\nopponents: [random]\ngames_per_matchup: 99999999999999999999\n",
            "'games_per_matchup' must be an integer",
        ),
        (b"games: tic_tac_toe\nplayers: [random]\nopponents: [random]\nname: caf\xe9\n", "is not UTF-8"),
        (b"games: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nests too deeply"),
        (b"games: tic_tac_toe\nplayer: random\nopponents: [random]\n", "'player' is now 'players'"),
        (
            b"games: tic_tac_toe\nplayers: {a: 1}\nopponents: [random]\n",
            "'players' must be a string or a list",
        ),
        (b"games: tic_tac_toe\nplayers: [random]\n", "needs 'opponents'"),
    ],
)
def test_bad_plan_files_are_one_line(cli, tmp_path: Path, text: bytes, needle: str) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(text)
    store = tmp_path / "s.sqlite"
    res = cli("run", "--config", str(plan), "--store", str(store), "--quiet")
    assert res.code == 2 and needle in res.err, res.err
    assert len(res.err.strip().splitlines()) == 1
    assert not store.exists()


def test_flags_beyond_64_bits_and_config_with_game_are_one_line(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    base = run_args("nim", store=store)
    res = cli(*base, "--seed", str(2**64))
    assert res.code == 2 and "--seed must be at most" in res.err
    res = cli(*base, "--games", str(2**64))
    assert res.code == 2 and "--games must be at most" in res.err
    res = cli("clue", "run", *["-p", "clue-random"] * 3, "--seed", str(2**64), "--store", str(store), "-q")
    assert res.code == 2 and "--seed must be at most" in res.err
    plan = tmp_path / "plan.yaml"
    plan.write_text("games: tic_tac_toe\nplayers: [random]\nopponents: [random]\ngames_per_matchup: 2\n")
    res = cli("run", "--config", str(plan), "--game", "nim", "--store", str(store), "--quiet")
    assert res.code == 2 and "--config sets the games and players; drop --game" in res.err
    assert not store.exists()
    res = cli("run", "--config", str(plan), "--store", str(store), "--quiet")
    assert res.code == 0 and "2/2 games saved" in res.out


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_old_flag_spellings_still_work(cli, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    res = cli(
        *run_args("nim", games=2, store=store, quiet=False),
        "--name",
        "old",
        "--parallel",
        "2",
        "--quiet",
    )
    assert res.code == 0 and "run 'old' finished" in res.out
    res = cli(
        "clue",
        "run",
        *["-p", "clue-random"] * 3,
        "--games",
        "2",
        "--parallel",
        "2",
        "--store",
        str(store),
        "-q",
    )
    assert res.code == 0 and "(2 played now" in res.out


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_clue_runs_stored_before_seeds_were_shared_resume_with_their_seeds(tmp_path: Path) -> None:
    from plylab.clue.study import RunPlan, key_spelling, run_plan
    from plylab.seeds import clue_seed_v1
    from tests.support.clue import clue_games

    store = tmp_path / "c.sqlite"
    plan = RunPlan(["clue-random"] * 3, 3, seed=7, turn_limit=40)
    specs = [key_spelling(s) for s in plan.specs]
    # a run stored before seeds were shared: its key has no seed marker
    old = Store(store)
    spec = {"condition": plan.condition, "turn_limit": plan.turn_limit, "specs": specs}
    old.open_run(plan.key(specs, legacy=True, seeding=1), plan.seed, spec, kind="clue")
    old.close()
    outcome = run_plan(plan, store, progress=False)
    assert outcome.run == plan.key(specs, legacy=True, seeding=1) and outcome.played == 3
    fresh = run_plan(
        RunPlan(["clue-random"] * 3, 3, seed=7, turn_limit=40), tmp_path / "new.sqlite", progress=False
    )
    assert fresh.run == plan.key(specs) != outcome.run
    seeds = {
        path: [g["seed"] for g in clue_games(path) if g["seats"].count("clue-random") == 3]
        for path in (store, tmp_path / "new.sqlite")
    }
    assert seeds[store] == [clue_seed_v1(7, i) for i in range(3)]
    assert seeds[tmp_path / "new.sqlite"] == [derive_seed(7, i) for i in range(3)]


def test_a_job_key_and_seed_are_what_runs_stored_before() -> None:
    # stored runs resume only if a job's key and seed never change: pinned to what d90f3af's plan.py gave
    job = GameJob(Matchup("nim", "standard", "random", "optimal"), 3, 10, 5)
    assert job.key == "nim|standard|random|optimal|seed=5|3|seat=0"
    assert job.seed == 463357481


def start_time(pid: int) -> str:
    """proc(5): field 22 of /proc/PID/stat, the process's start in clock ticks after boot (fields
    count from 1; the command name, field 2, is in parentheses and may hold spaces)."""
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return after_name[22 - 3]


def test_a_lease_names_its_process_by_pid_and_start_time(cli, tmp_path: Path) -> None:
    from plylab.harness.store import LEASES

    store = tmp_path / "s.sqlite"
    args = [*run_args("nim", games=2, store=store), "--run", "l"]
    other = subprocess.Popen(["sleep", "60"])  # a live process that is not playing the run
    try:
        Store(store).close()  # a plylab store (a writer refuses any other database)
        conn = sqlite3.connect(store)
        conn.execute(LEASES)
        host = __import__("socket").gethostname()
        conn.execute(
            "INSERT INTO run_leases VALUES ('play:l', ?, ?, 0, ?)", (other.pid, host, start_time(other.pid))
        )
        conn.commit()
        res = cli(*args)
        assert res.code == 2 and f"is being played by process {other.pid}" in res.err
        conn.execute("UPDATE run_leases SET born='1'")  # the pid now names a process started at another time
        conn.commit()
        res = cli(*args)
        assert res.code == 0 and "2/2 games saved" in res.out  # a reused pid does not hold the run
    finally:
        other.kill()
        other.wait()


def test_a_lease_held_on_another_host_is_free_once_its_heartbeat_is_stale(cli, tmp_path: Path) -> None:
    """A process on another host (a store on a shared disk) cannot be asked if it lives: its lease
    holds while its heartbeat is fresh, and a killed one frees the run once the heartbeat is old."""
    from plylab.harness.driver import LEASE_STALE
    from plylab.harness.store import LEASES

    store = tmp_path / "s.sqlite"
    args = [*run_args("nim", games=2, store=store), "--run", "far"]
    Store(store).close()  # a plylab store (a writer refuses any other database)
    conn = sqlite3.connect(store)
    conn.execute(LEASES)
    conn.execute("INSERT INTO run_leases VALUES ('play:far', 4242, 'elsewhere', ?, NULL)", (time.time(),))
    conn.commit()
    res = cli(*args)
    assert res.code == 2 and "is being played by process 4242 on elsewhere" in res.err
    conn.execute("UPDATE run_leases SET since=?", (time.time() - LEASE_STALE - 1,))
    conn.commit()
    res = cli(*args)
    assert res.code == 0 and "2/2 games saved" in res.out
    assert conn.execute("SELECT COUNT(*) FROM run_leases").fetchone()[0] == 0  # released at the end


def test_a_holder_renews_its_lease_while_it_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from plylab.harness import driver as driver_module
    from plylab.harness.driver import Driver
    from plylab.harness.store import Store

    monkeypatch.setattr(driver_module, "LEASE_BEAT", 0.05)
    with Driver(tmp_path / "s.sqlite", progress=False) as d:
        store = d.open(Store)
        d.claim(store, "play:beat")
        first = store.lease("play:beat").since
        deadline = time.monotonic() + 10
        while store.lease("play:beat").since == first:
            assert time.monotonic() < deadline, "the lease was never renewed"
            time.sleep(0.02)
    assert (
        sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT COUNT(*) FROM run_leases").fetchone()[0] == 0
    )
