"""Numbers a user can type that the C++ engine cannot hold are one line and exit 2, not a crash inside OpenSpiel."""

from __future__ import annotations

import pytest

from tests.support.cli import run_args


@pytest.mark.parametrize(
    ("game", "player", "says"),
    [
        (
            "hex:board_size=99999999999999999999999",
            "random",
            "parameter 'board_size' must be between 0 and 2147483647",
        ),
        ("mnk:m=4294967296", "random", "parameter 'm' must be between 0 and 2147483647"),
        ("tic_tac_toe", "mcts:sims=99999999999", "option 'sims'"),
    ],
)
def test_numbers_beyond_the_engine_are_one_line(cli, tmp_path, game: str, player: str, says: str) -> None:
    store = tmp_path / "s.sqlite"
    r = cli(*run_args(game, player, "random", games=1, store=store, quiet=False))
    assert r.code == 2
    assert says in r.err
    assert "Traceback" not in r.err + r.out
    assert not store.exists()
