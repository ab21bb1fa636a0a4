"""The learning protocol: evaluate, learn, evaluate again — over runs, into a store and memories."""

from .protocol import Learner, RunFiles, memory_root
from .schedule import Experiment, Phase, run_phases

__all__ = ["Experiment", "Learner", "Phase", "RunFiles", "memory_root", "run_phases"]
