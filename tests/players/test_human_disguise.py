"""The human screen under a disguise (issue 46, point 8): it opens with the game as the formulation
names it and the formulation's rules, never the real game's name, and lists the legal moves in the
formulation's order (sorted by name: not a magic square's cells)."""

from __future__ import annotations

import asyncio
import io
import random

import pytest
from rich.console import Console

import plylab.players.human as human
from plylab.analysis.recognition import names_game
from plylab.games import GAMES, get_game
from plylab.players import Turn, make_player
from tests.games.test_formulations import specs
from tests.support.games import past_chance


def screen(game_name: str, spec: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """What a human sees up to the first move (typed: the first listed one), and that listing."""
    game = get_game(game_name)
    f = game.formulation(spec)
    player = make_player("human", game, 0)
    assert isinstance(player, human.HumanPlayer)
    out = io.StringIO()
    player.console = Console(file=out, width=300, highlight=False)
    state = past_chance(game.new_state(), random.Random(0))
    listed = list(f.legal_labels(state))

    async def typed() -> str:
        return listed[0]

    monkeypatch.setattr(human, "read_line", typed)
    decision = asyncio.run(player.act(Turn(game, f, state, state.current_player(), 0, "j")))
    assert decision.action == f.legal_labels(state)[listed[0]]
    return " ".join(out.getvalue().split()), listed  # the terminal wraps long lines: compared as words


# Every obfuscation of every game a person can play from text (`not_for_text`: the human player refuses).
DISGUISES = [
    (g, s)
    for g in GAMES.names()
    if get_game(g).not_for_text is None
    for s in specs(g)
    if s not in ("standard", "struct")
]


@pytest.mark.parametrize(("game_name", "spec"), DISGUISES)
def test_a_disguise_opens_with_its_own_name_and_rules_and_never_the_games(
    game_name: str, spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = get_game(game_name)
    f = game.formulation(spec)
    shown, listed = screen(game_name, spec, monkeypatch)
    assert f"New game of {f.title()}:" in shown and " ".join(f.rules().split()) in shown
    assert not names_game(game, shown), shown
    if len(listed) > 1:
        assert f"Legal moves: {' | '.join(listed)}" in shown


@pytest.mark.parametrize("game_name", ["tic_tac_toe", "nim", "connect_four", "kuhn_poker"])
def test_the_standard_surface_names_the_game(game_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    shown, _ = screen(game_name, "standard", monkeypatch)
    assert f"New game of {get_game(game_name).title}:" in shown


def test_the_magic_square_screen_lists_numbers_not_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    shown, _ = screen("tic_tac_toe", "magic_square", monkeypatch)
    assert "Legal moves: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9" in shown
    assert "Tic-tac-toe" not in shown and "New game of Numbers adding up to 15:" in shown
