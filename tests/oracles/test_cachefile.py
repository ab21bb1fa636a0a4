"""An oracle's cache file that cannot be written (a directory in its place) is one line naming the
cache file, and no temporary file is left behind; two processes needing one table build it once
(oracles/cachefile.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plylab.errors import UserError
from plylab.oracles.cachefile import write_whole
from tests.support.cli import plylab_subprocess

# Each kind of table: the equilibrium (kuhn_poker), the minimax table, the generic exact table.
CACHED = {
    "kuhn_poker": "equilibrium-kuhn_poker-*.json",
    "tic_tac_toe": "minimax-tic_tac_toe.json",
    "nim:pile_sizes=1;2": "generic-nim_pile_sizes=1_2-*.json",
}


# The equilibrium and the minimax table take seconds to build before the damage: `make test` only.
@pytest.mark.parametrize(
    "game",
    [pytest.param(g, marks=pytest.mark.slow) if g != "nim:pile_sizes=1;2" else g for g in sorted(CACHED)],
)
def test_a_directory_in_place_of_a_cache_file_is_one_line_and_leaves_no_temporary_file(
    tmp_path: Path, game: str
) -> None:
    env = {"PLYLAB_CACHE": str(tmp_path)}
    assert plylab_subprocess("solve", "--game", game, env=env).returncode == 0
    (written,) = tmp_path.glob(CACHED[game])
    written.unlink()
    written.mkdir()  # a directory where the table goes: read fails, the rebuilt table cannot be written
    res = plylab_subprocess("solve", "--game", game, env=env)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert f"cache file '{written}' is a directory, not a regular file: remove it" in res.stderr
    assert ".tmp" not in res.stderr and "Traceback" not in res.stderr
    assert written.is_dir() and not list(tmp_path.glob("*.tmp"))  # no temporary file left


def test_a_table_that_cannot_be_written_names_its_cache_file_and_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    """The write half alone (a directory appearing between the read and the write)."""
    target = tmp_path / "minimax-x.json"
    target.mkdir()
    with pytest.raises(
        UserError, match=f"cannot write the oracle cache file '{target}': a directory is in its place"
    ):
        write_whole(target, "{}")
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


# Each child process waits for `go`, then asks for Kuhn poker's equilibrium: without the lock both find no file
# and both build (two build times); with it the second reads the first one's file (one build time).
BUILDER = """
import os, sys, time
from pathlib import Path
import pyspiel
from plylab.oracles.equilibrium import EquilibriumOracle
folder = Path(sys.argv[1])
(folder / f"ready-{sys.argv[2]}").touch()
while not (folder / "go").exists():
    time.sleep(0.001)
print(repr(EquilibriumOracle.load_or_build(pyspiel.load_game("kuhn_poker"), "kuhn_poker").build_seconds))
"""


def test_two_processes_needing_one_table_build_it_once(tmp_path: Path) -> None:
    env = {**os.environ, "PLYLAB_CACHE": str(tmp_path / "cache")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", BUILDER, str(tmp_path), str(k)], env=env, stdout=subprocess.PIPE, text=True
        )  # fmt: skip
        for k in range(2)
    ]
    while not all((tmp_path / f"ready-{k}").exists() for k in range(2)):
        assert all(p.poll() is None for p in procs), "a builder died before it started"
        time.sleep(0.01)
    (tmp_path / "go").touch()
    times = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert times[0] == times[1], f"the table was built twice (in {times[0]} s and {times[1]} s)"
