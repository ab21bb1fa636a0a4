"""A task's samples made as inspect asks for them: `-T games=1000000000 --limit 1` builds one, not a billion.

inspect turns a dataset into a list before the first sample starts (it numbers and checks every
sample), so a task that takes a count hands it a `SampleSource` instead: the first `WINDOW` samples
to start with, then one more as each finishes, and the next window whenever none is left waiting,
until the count is reached. Memory stays flat in the count; `--limit N` stops the source after N
(inspect's own cap on a source). Samples are numbered 1..count in order, each made by `make(idx)`
from its 0-based index, so a sample is the same whichever way it was drawn (`inspect eval-retry`
reuses the finished ones by id).
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai import SampleSource
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalSample

__all__ = ["WINDOW", "Numbered"]

# Samples waiting at once: above inspect's default concurrency (10 connections), below the memory a
# count could cost. `--max-samples` above it runs at most this many samples at once.
WINDOW = 1000


class Numbered(SampleSource):
    """The samples `make(0)` .. `make(count - 1)`, drawn as they are needed (module doc)."""

    def __init__(self, count: int, make: Callable[[int], Sample]) -> None:
        self.count = count
        self.make = make
        self.drawn = 0  # samples handed to inspect so far

    def _draw(self, n: int) -> list[Sample]:
        upto = min(self.count, self.drawn + n)
        out = [self.make(idx) for idx in range(self.drawn, upto)]
        self.drawn = upto
        return out

    def initial_samples(self) -> list[Sample]:
        return self._draw(WINDOW)

    async def next_samples(self) -> list[Sample] | None:
        return self._draw(WINDOW) or None

    async def sample_complete(self, sample: EvalSample) -> list[Sample] | None:
        return self._draw(1) or None
