"""No game a user can name eats the machine (issue 31, point 2).

Each game is named to `plylab` in a child process whose own address space is capped with
`resource.setrlimit` (not the machine's memory): before the fix `nim:pile_sizes=100000` grew to
24 GB (a `MemoryError: std::bad_alloc` traceback under a cap) and `mnk:m=200,n=200,k=5` took 4.2 GB
for one random game. Now each is refused in one line before anything is built.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

CAP_BYTES = 3 * 2**30  # the child's address space: far below what the games above used to take

LIMITED = """
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
sys.argv = ["plylab", *sys.argv[2:]]
runpy.run_module("plylab", run_name="__main__")
"""


def _limited(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LIMITED, str(CAP_BYTES), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


ONE_STICK_PILES = "nim:pile_sizes=" + ";".join(["1"] * 65_000)


@pytest.mark.slow
@pytest.mark.parametrize(
    "game",
    ["nim:pile_sizes=100000", "mnk:m=200,n=200,k=5", ONE_STICK_PILES, "mnk:m=150,n=150,k=5"],
    ids=["one-huge-pile", "mnk-200", "65000-piles", "mnk-150"],
)
@pytest.mark.parametrize("command", ["run", "solve"])
def test_a_costly_game_is_refused_in_one_line_under_a_memory_cap(
    tmp_path: Path, game: str, command: str
) -> None:
    store = tmp_path / "s.sqlite"
    if command == "run":
        args = ["run", "--game", game, "--player", "random", "--opponent", "random", "--games", "1"]
        args += ["--store", str(store), "--quiet"]
    else:
        args = ["solve", "--game", game]
    started = time.monotonic()
    res = _limited(*args)
    assert res.returncode == 2, (res.returncode, res.stderr[-800:])
    assert "too large to play" in res.stderr and "PLYLAB_GAME_LIMIT" in res.stderr, res.stderr[-800:]
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert time.monotonic() - started < 60
    assert not store.exists()


@pytest.mark.slow
def test_a_game_under_the_bound_still_plays_under_the_cap(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "--game", "mnk:m=30,n=30,k=5", "--player", "random", "--opponent", "random"]
    res = _limited(*args, "--games", "1", "--store", str(store), "--quiet")
    assert res.returncode == 0, res.stderr[-800:]


def test_the_generic_oracle_counts_edges_and_depth() -> None:
    from plylab.games import get_game
    from plylab.oracles.generic import bound, fits, limit

    wide = get_game("nim:pile_sizes=1000;1000").engine  # 2,004,002 positions... of 2,000 moves each
    assert bound(wide) is not None and not fits(wide)
    narrow = get_game("nim:pile_sizes=500;500").engine  # 502,002 positions under the limit...
    assert bound(narrow) <= limit() and not fits(narrow)  # ...but 5 x 10^8 edges: no table
    assert fits(get_game("nim:pile_sizes=2;4;6").engine)


def test_plylab_games_says_the_bounds(cli) -> None:
    res = cli("games")
    assert res.code == 0 and "Bounds: a parametrised game is refused" in res.out
    assert "600,000,000 entries" in res.out and "2,000,000 positions" in res.out
    data = json.loads(cli("games", "--format", "json").out)
    assert data["bounds"]["stored_entries_per_game"] == 600_000_000
    assert data["bounds"]["oracle_edges"] == 40_000_000


def test_a_costly_game_that_starts_with_chance_is_refused_in_words_that_hold(cli, tmp_path: Path) -> None:
    """Liar's dice starts with a roll, so no legal move is counted when it is costed: the refusal
    said "of 0 legal moves each"; it now counts the moves alone, as the least a game costs."""
    got = cli("run", "--game", "liars_dice:numdice=3000", "--player", "random", "--opponent", "random",
              "--games", "1", "--store", str(tmp_path / "s.sqlite"))  # fmt: skip
    assert got.code == 2 and got.err.count("\n") == 1, got.err
    assert "0 legal moves" not in got.err
    assert "up to 36,001 moves, each stored with the moves before it, cost at least 1,296,108,002" in got.err
