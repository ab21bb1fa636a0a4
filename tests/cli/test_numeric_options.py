"""Limits and counts are refused in one line when negative, not a number or out of range, naming the
option and what it accepts: never accepted and ignored, never a traceback (issue 47 point 10)."""

from __future__ import annotations

import pytest

RUN = ("run", "--game", "nim", "--player", "random", "--opponent", "random", "--games", "2", "-q")


@pytest.mark.parametrize(
    "game, limit, said",
    [
        ("tic_tac_toe", "nodes=-5", "graded by its minimax table, which takes none"),
        ("kuhn_poker", "nodes=1000", "which takes none: leave --limit out"),
        ("chess", "nodes=-5", "--limit 'nodes=-5' is not accepted; use on, off, nodes=N (1 to 100,000,000)"),
        ("chess", "depth=nan", "--limit 'depth=nan' is not accepted"),
    ],
)
def test_suite_build_refuses_a_limit_it_cannot_use(cli, tmp_path, game, limit, said) -> None:
    """`--limit nodes=-5` built a tic-tac-toe suite as if it were not there, and a chess one was
    refused as a `--score` it was not given."""
    r = cli(
        "suite", "build", "x", "--game", game, "-n", "1", "--limit", limit, "--out", str(tmp_path / "x.jsonl")
    )
    assert r.code == 2 and said in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize(
    "args, said",
    [
        (("--max-cost", "nan"), "--max-cost must be zero or more (got nan)"),
        (("--max-cost", "-1"), "--max-cost must be zero or more"),
        (("--max-calls", "-5"), "--max-calls must be zero or more"),
        (("--max-tokens", "-5"), "--max-tokens must be zero or more"),
        (("--games", "-1"), "--games must be at least 1"),
        (("--score", "nodes=-5"), "--score 'nodes=-5' is not accepted"),
    ],
)
def test_run_refuses_a_negative_or_nan_limit(cli, tmp_path, args, said) -> None:
    """`--max-cost nan` was accepted: NaN compares false with every number, so no budget ever tripped."""
    store = tmp_path / "s.sqlite"
    r = cli(*RUN, *args, "--store", str(store))
    assert r.code == 2 and said in r.err and len(r.err.strip().splitlines()) == 1, r.err
