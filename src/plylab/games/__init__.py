"""Games and their formulations. Adding a game is one new module, imported here: the hand-written games in
the order `plylab games` lists them, then the passes over every OpenSpiel game of a class, which extend what
those modules registered."""

# isort: off
from . import tic_tac_toe, nim, connect_four, breakthrough, pig, backgammon  # noqa: F401 (each registers its game)

# isort: on
from . import equilibria, generic, hidden, relabel, structs
from .base import GAMES, Formulation, GameDef, GroundTruth, register_game

generic.register_every_game()  # every other OpenSpiel game of the class
hidden.register_every_game()  # and every hidden-information one
equilibria.attach_every_equilibrium()  # small ones solved: their equilibrium
relabel.relabel_every_game()  # after every game: each gets `relabel`
structs.struct_every_game()  # OpenSpiel 2.0's JSON, where its build has it


def get_game(name: str) -> GameDef:
    return GAMES.get(name)


__all__ = ["GAMES", "Formulation", "GameDef", "GroundTruth", "get_game", "register_game"]
