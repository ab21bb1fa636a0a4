"""Games and their formulations. Adding a game is one new module imported here."""

from importlib import import_module

from .base import GAMES, Formulation, GameDef, GroundTruth, register_game

for _module in ("tic_tac_toe", "nim", "connect_four", "breakthrough", "pig", "backgammon"):
    import_module(f"{__name__}.{_module}")
import_module(f"{__name__}.generic").register_every_game()  # every other OpenSpiel game of the class
import_module(f"{__name__}.hidden").register_every_game()  # and every hidden-information one
import_module(f"{__name__}.equilibria").attach_every_equilibrium()  # small ones solved: their equilibrium
import_module(f"{__name__}.relabel").relabel_every_game()  # after every game: each gets `relabel`
import_module(f"{__name__}.structs").struct_every_game()  # OpenSpiel 2.0's JSON, where its build has it


def get_game(name: str) -> GameDef:
    return GAMES.get(name)


__all__ = ["GAMES", "Formulation", "GameDef", "GroundTruth", "get_game", "register_game"]
