"""Exact game-theoretic values: the ground truth every move is scored against."""

from .base import MoveValues, Oracle, best_actions

__all__ = ["MoveValues", "Oracle", "best_actions"]
