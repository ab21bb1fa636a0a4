"""`plylab learn --backend ray` plays the same protocol as the local backend."""

import json

import pytest

pytestmark = [pytest.mark.ray, pytest.mark.model, pytest.mark.slow]
pytest.importorskip("ray", reason="the ray extra is not installed")


def test_learning_on_ray_matches_local(cli, tmp_path):
    args = [
        "learn",
        "--game",
        "tic_tac_toe",
        "--player",
        # the 270M base model plays only with its one round forced to a legal answer
        "cbr:model=local,max_tokens=48,iterations=1,k=4,answer=legal,force_final=on",
        "--opponent",
        "optimal",
        "--runs",
        "1",
        "--epochs",
        "1",
        "--learn-games",
        "1",
        "--eval-games",
        "1",
        "--quiet",
    ]
    reports = []
    for backend in ("local", "ray"):
        store = tmp_path / backend / "s.sqlite"
        res = cli(*args, "--store", str(store), "--backend", backend)
        assert res.code == 0, res.err
        assert "3/3 games saved" in res.out and "(3 played now" in res.out
        out = cli("report", "--store", str(store), "--learning", "--format", "json")
        assert out.code == 0, out.err
        reports.append(json.loads(out.out)["experiments"])
    for exp in reports:
        for cp in exp[0]["checkpoints"]:
            cp.pop("tokens_per_move", None)  # identical here too, but not the point of this test
        for run in exp[0]["updates"]["runs"]:
            assert run.pop("memory").endswith("run0/memory.sqlite")  # beside each backend's own store
    assert (
        reports[0][0]["checkpoints"][-1]["failure_rate"]["mean"] < 1
    )  # games were played, not all forfeited
    assert reports[0] == reports[1]
    bad = cli(*args, "--store", str(tmp_path / "x.sqlite"), "--backend", "bogus")
    assert bad.code == 2 and "unknown backend 'bogus'" in bad.err
