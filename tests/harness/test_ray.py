"""The ray backend: same games as local, a real two-node cluster, chaos, Ctrl-C, model games.

Ray start-up is slow, so the suite starts Ray twice: one local instance (the checked interface,
`--backend ray` with no address) and one two-node loopback cluster shared by the other tests.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import chaos
from tests.support.chaos import assert_clean_interrupt, interrupt_run
from tests.support.cli import plylab_subprocess

pytestmark = pytest.mark.ray
needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="the ray extra is not installed"
)
TIMINGS = {"started", "finished", "elapsed", "latency", "seconds", "duration"}
CHECKED = [
    "--game",
    "tic_tac_toe",
    "--player",
    "mcts:sims=200",
    "--opponent",
    "random",
    "--games",
    "40",
    "--seed",
    "3",
]


def plylab(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return plylab_subprocess(*args, cwd=cwd, timeout=timeout)


def strip_timings(value: Any) -> Any:
    """The value without timing fields (the only thing allowed to differ between backends)."""
    if isinstance(value, dict):
        return {k: strip_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [strip_timings(v) for v in value]
    return value


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON values differ (for a readable failure)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def stored_games(store: Path) -> dict[str, Any]:
    """Every game of a store with all its moves, by job key, without row ids and timings."""
    import sqlite3

    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row
    out = {}
    for g in conn.execute("SELECT * FROM games"):
        moves = [
            dict(m) for m in conn.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (g["id"],))
        ]
        game = {k: g[k] for k in g.keys() if k not in ("id", "run_id")}
        game["moves"] = [{k: v for k, v in m.items() if k != "game_id"} for m in moves]
        out[g["job_key"]] = strip_timings(game)
    conn.close()
    return out


def test_without_ray_it_is_one_clear_line(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    code = (
        "import sys; sys.modules['ray'] = None\n"  # as if the extra were not installed
        "from plylab.cli import main\n"
        f"sys.exit(main({['run', *CHECKED, '--backend', 'ray', '--store', str(store)]!r}))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert (
        r.stderr.strip()
        == "plylab: error: the ray backend needs Ray, an optional extra: pip install 'plylab[ray]'"
    )
    assert not store.exists()


@needs_ray
def test_batches_draw_a_billion_jobs_a_window_ahead() -> None:
    from plylab.harness.backends.ray import MAX_CPU_BATCH, BatchPlanner
    from plylab.harness.plan import Matchup, Plan

    plan = Plan("big", 0, 10**9, [Matchup("nim", "standard", "random", "random")])
    planner = BatchPlanner(plan.jobs(), 2, 1, lambda: True)  # listing the jobs first would never return
    first, second = planner.next_batch(), planner.next_batch()
    assert first is not None and second is not None
    assert [j.idx for j in first.jobs + second.jobs] == list(range(2 * MAX_CPU_BATCH))
    assert len(planner.cpu) == planner.window


@needs_ray
def test_unreachable_address_is_one_clear_line(tmp_path: Path) -> None:
    from tests.support.ports import free_port

    store = tmp_path / "s.sqlite"
    r = plylab(
        "run", *CHECKED, "--backend", "ray", "--address", f"127.0.0.1:{free_port()}", "--store", str(store)
    )
    assert r.returncode == 2 and r.stderr.startswith("plylab: error: cannot reach the Ray cluster"), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not store.exists()


@pytest.fixture(scope="module")
def checked_runs() -> Iterator[tuple[Path, subprocess.CompletedProcess[str]]]:
    """The checked interface, run once: `--backend ray --store S1` (a local Ray instance, started under
    the run's folder and stopped) and `--backend local --store S2`, in one short folder."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed")
    with tempfile.TemporaryDirectory(prefix="pl-") as short:  # Ray's socket paths live under it
        folder = Path(short)
        ray_run = plylab("run", *CHECKED, "--backend", "ray", "--store", "S1", "--quiet", cwd=folder)
        assert ray_run.returncode == 0, ray_run.stderr
        local_run = plylab("run", *CHECKED, "--backend", "local", "--store", "S2", "--quiet", cwd=folder)
        assert local_run.returncode == 0, local_run.stderr
        yield folder, ray_run


@needs_ray
@pytest.mark.timeout(600)
def test_checked_interface_same_games_move_for_move(checked_runs: tuple[Path, Any]) -> None:
    folder, ray_run = checked_runs
    (started,) = ray_run.stderr.splitlines()  # the run's first line and nothing of Ray's
    assert "40 games to play" in started and ray_run.stdout.count("\n") == 1, ray_run
    assert not (folder / ".ray").exists(), "the local Ray instance left its temporary files"
    leftover = subprocess.run(["pgrep", "-f", str(folder)], capture_output=True, text=True).stdout.split()
    assert leftover == [], "processes of the local Ray instance are still running"
    s1, s2 = stored_games(folder / "S1"), stored_games(folder / "S2")
    assert len(s1) == 40 and s1 == s2


@needs_ray
def test_checked_interface_same_report_rows(checked_runs: tuple[Path, Any]) -> None:
    folder, _ = checked_runs
    reports = []
    for store in ("S1", "S2"):
        r = plylab("report", "--store", store, "--format", "json", cwd=folder)
        assert r.returncode == 0, r.stderr
        reports.append(strip_timings(json.loads(r.stdout)))
    assert reports[0]["matchups"][0]["games"] == 40
    assert reports[0] == reports[1], differences(reports[0], reports[1])


# -- the two-node loopback cluster ----------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A head and a worker node (`ray start`, one CPU each) on 127.0.0.1, stopped after the module."""
    if importlib.util.find_spec("ray") is None:
        pytest.skip("the ray extra is not installed")
    from tests.support.cluster import LoopbackCluster

    with LoopbackCluster(tmp_path_factory.mktemp("rc"), nodes=2, cpus_per_node=1) as address:
        yield address


def same_game(here: Any, there: Any) -> None:
    assert [(m.ply, m.state, m.action) for m in here.moves] == [
        (m.ply, m.state, m.action) for m in there.moves
    ], here.job_key
    assert (here.returns, here.outcome) == (there.returns, there.outcome), here.job_key


@needs_ray
@pytest.mark.timeout(300)
def test_plan_on_two_node_cluster_matches_local(cluster: str, tmp_path: Path) -> None:
    """A plan run on the cluster streams back every game, each identical to the same job played here;
    and a batch pinned to each node (Ray's own node affinity, not the timing of a run) runs on that
    node and plays the same games. Where the executor's batches land is Ray's business: not checked."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from plylab.harness.backends import ExecOptions
    from plylab.harness.backends.ray import RayExecutor, ray_session
    from plylab.harness.backends.ray_worker import play_batch
    from plylab.harness.plan import single_plan
    from plylab.harness.session import play_game
    from plylab.players import RunContext

    jobs = list(single_plan("tic_tac_toe", "standard", "mcts:sims=2000", "optimal", 24, 5, None).jobs())
    local = {job.key: asyncio.run(play_game(job, RunContext())) for job in jobs}
    options = ExecOptions(address=cluster)
    with ray_session(options):
        executor = RayExecutor(options)
        got: dict[str, Any] = {}
        asyncio.run(
            executor.run(
                jobs,
                RunContext(store_path=tmp_path / "s.sqlite"),
                lambda r: got.setdefault(r.job_key, r),
                lambda: True,
            )
        )
        assert sorted(got) == sorted(local)
        assert executor.batches > 2 and sum(executor.nodes.values()) == len(jobs)
        for key, record in got.items():
            same_game(local[key], record)

        nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
        assert len(nodes) == 2
        remote = ray.remote(num_returns="streaming")(play_batch)
        for i, node in enumerate(nodes):
            batch = jobs[i::2][:3]
            pinned = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
            gen = remote.options(num_cpus=1, scheduling_strategy=pinned).remote(
                batch, RunContext(), False, None
            )
            played = [ray.get(ref) for ref in gen]
            assert [n for n, _ in played] == [node] * len(batch)
            assert [r.job_key for _, r in played] == [j.key for j in batch]
            for _, record in played:
                same_game(local[record.job_key], record)


@needs_ray
@pytest.mark.timeout(400)
def test_sigkill_and_resume_on_cluster(cluster: str, tmp_path: Path) -> None:
    r = chaos.chaos(
        tmp_path / "chaos.sqlite",
        backend="ray",
        address=cluster,
        kills=4,
        games=150,
        delay=(2.0, 8.0),
        rng_seed=2,
    )
    assert r.final_code == 0, r.final_out
    assert r.problems == []
    assert r.kills == 4 and r.mid_run_kills >= 2, r
    assert r.strays == 0


@needs_ray
@pytest.mark.timeout(300)
def test_ctrl_c_on_cluster(cluster: str, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    code, out, err = interrupt_run(store, backend="ray", address=cluster)
    assert_clean_interrupt(store, code, out, err)


@needs_ray
@pytest.mark.timeout(400)
def test_model_games_on_cluster_share_one_cap_cache_and_budget(
    cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LLM games on the cluster: the model's cap (2) holds cluster-wide, replies reach the store's cache
    from either node (a re-run asks the server nothing), and a budget stops and then resumes the run."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from plylab.harness.backends import ExecOptions, backend_session
    from plylab.harness.backends.ray import RayExecutor
    from plylab.harness.backends.ray_worker import CacheServer, ModelGates, Services, play_batch
    from plylab.harness.budget import Budget
    from plylab.harness.plan import single_plan
    from plylab.harness.runner import run_plan
    from plylab.players import RunContext
    from tests.support.fake_openai_server import FakeOpenAIServer

    monkeypatch.setenv("FAKE_API_KEY", "sk-fake")  # forwarded to the workers: it ends in _API_KEY
    with FakeOpenAIServer(delay=0.2) as server:
        server.gather, server.gather_timeout = (
            2,
            1.0,
        )  # a call waits for a second one: the cap of 2 is met by events
        spec = f"llm:model=openai-api/fake/fake,base_url={server.url},max_connections=2"
        store = tmp_path / "s.sqlite"
        plan = single_plan("tic_tac_toe", "standard", spec, "random", 12, 1, None)
        options = ExecOptions(concurrency=6, address=cluster)
        with backend_session("ray", options):  # one connection for the three runs
            budget = Budget(max_calls=12)
            first = run_plan(plan, store, backend="ray", options=options, progress=False, budget=budget)
            assert (
                first.status == "stopped"
                and first.reason
                and first.reason.startswith("budget --max-calls 12")
            )
            assert 0 < first.saved < 12
            assert server.max_in_flight <= 2, f"{server.max_in_flight} calls at once to a model capped at 2"

            second = run_plan(
                plan, store, backend="ray", options=options, progress=False, budget=Budget(max_calls=1000)
            )
            assert second.status == "finished" and second.saved == 12
            asked = len(server.requests)
            assert server.max_in_flight == 2  # the cap, and no lower: the gate does not serialise calls

            # The same games again: every reply comes from the store's cache.
            executor = RayExecutor(options)
            got: list[Any] = []
            asyncio.run(executor.run(plan.jobs(), RunContext(store_path=store), got.append, lambda: True))
            assert len(got) == 12
            assert len(server.requests) == asked
            assert sum(m.calls for r in got for m in r.moves) == 0
            assert sum(m.cache_hits for r in got for m in r.moves) == asked

            # And from either node, whatever Ray's placement above: a model batch pinned to each node
            # (the head, which opens the store itself, and the worker, served by the cache actor).
            driver = ray.get_runtime_context().get_node_id()
            on_driver = NodeAffinitySchedulingStrategy(node_id=driver, soft=False)
            services = Services(
                cache=CacheServer.options(scheduling_strategy=on_driver).remote(str(store.resolve())),
                gates=ModelGates.options(scheduling_strategy=on_driver).remote(),
                driver_node=driver,
            )
            remote = ray.remote(num_returns="streaming")(play_batch)
            jobs = list(plan.jobs())
            nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
            assert len(nodes) == 2 and driver in nodes
            for i, node in enumerate(nodes):
                batch = jobs[i * 2 : i * 2 + 2]
                pinned = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
                gen = remote.options(num_cpus=0.5, scheduling_strategy=pinned).remote(
                    batch, RunContext(store_path=store.resolve()), True, services
                )
                played = [ray.get(ref) for ref in gen]
                assert {n for n, _ in played} == {node} and len(played) == 2
                assert sum(m.calls for _, r in played for m in r.moves) == 0
                assert sum(m.cache_hits for _, r in played for m in r.moves) > 0
            assert len(server.requests) == asked
