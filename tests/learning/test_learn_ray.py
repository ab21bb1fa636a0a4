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
        "memento:model=local",
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
        assert "3 games played" in res.out
        out = cli("report", "--store", str(store), "--learning", "--format", "json")
        assert out.code == 0, out.err
        reports.append(json.loads(out.out)["experiments"])
    for exp in reports:
        for cp in exp[0]["checkpoints"]:
            cp.pop("tokens_per_move", None)  # identical here too, but not the point of this test
    assert reports[0] == reports[1]
    bad = cli(*args, "--store", str(tmp_path / "x.sqlite"), "--backend", "bogus")
    assert bad.code == 2 and "unknown backend 'bogus'" in bad.err
