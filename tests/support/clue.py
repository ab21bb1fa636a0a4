"""Shared by the Clue tests: play a real game on the engine and keep every action; read a store's
Clue games and turns through the one reader (`plylab.clue.records`)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

from plylab.clue.engine import ClueGame, ClueState, load
from plylab.clue.players import make_clue_player


def play_recorded(
    specs: list[str], seed: int, *, turn_limit: int = 150, sizes: tuple[int, int, int] = (6, 6, 9)
) -> tuple[ClueGame, ClueState, list[int]]:
    """A game between real players on the engine (seats in the given order); returns the final
    state and every action after the deal (turn actions and shows)."""
    game = load(
        players=len(specs), turn_limit=turn_limit, suspects=sizes[0], weapons=sizes[1], rooms=sizes[2]
    )
    state = game.new_initial_state()
    state.deal_randomly(random.Random(seed))
    players = [make_clue_player(s, seat, seed * 10 + seat) for seat, s in enumerate(specs)]
    actions: list[int] = []
    while not state.is_terminal():
        seat = state.current_player()
        if state.pending is not None:
            action = players[seat].show(state.view(seat))
        else:
            d = asyncio.run(players[seat].act(state.view(seat)))
            action = {"suggest": game.suggest_action, "accuse": game.accuse_action}.get(
                d.kind, lambda _: game.pass_action
            )(d.cards)
        state.apply_action(action)
        actions.append(action)
    for p in players:
        p.close()
    return game, state, actions


def clue_games(store: Path) -> list[dict[str, Any]]:
    """Every Clue game (old tables and the one schema alike), run by run and by index, its fields
    by name."""
    from plylab.clue.records import ClueRecords

    records = ClueRecords(store)
    try:
        return [asdict(g) for g in records.games()]
    finally:
        records.close()


def clue_turns(store: Path) -> list[dict[str, Any]]:
    """Every Clue turn of the store, game by game, its fields by name with its game's seats."""
    from plylab.clue.records import ClueRecords

    records = ClueRecords(store)
    try:
        return [asdict(t) | {"seats": g.seats} for g in records.games() for t in records.turns(g.id)]
    finally:
        records.close()
