"""plylab inside inspect: the package's `inspect_ai` entry point (pyproject `[project.entry-points.inspect_ai]`).

Loading it registers, under the package's name,

- the task `plylab/game` (`game.py`): games against any plylab opponent, the model under evaluation
  as the player, scored by the game's ground truth (`analysis.inspect_scores`);
- the task `plylab/clue` (`clue.py`): the Clue study's games, every seat the model under evaluation;
- the task `plylab/suite` (`suite.py`): a suite's positions, one answer each, scored by their truth;
- the model provider `plylab` (`models.local`): `--model plylab/local` is the embedded Gemma 3 270M.
"""

from __future__ import annotations

from ..models import local as _local  # noqa: F401 - registers the `plylab` model provider
from .clue import clue
from .game import game
from .suite import suite

__all__ = ["clue", "game", "suite"]
