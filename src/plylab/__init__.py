"""plylab: measure how well language models and game AIs reason in games, against ground truth."""

__version__ = "0.1.0"
