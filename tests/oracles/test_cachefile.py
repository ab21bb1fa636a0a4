"""An oracle's cache file that cannot be written (a directory in its place) is one line naming the
cache file, and no temporary file is left behind (oracles/cachefile.py)."""

from __future__ import annotations

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
