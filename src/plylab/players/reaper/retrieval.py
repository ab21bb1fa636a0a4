"""Case retrieval: the k nearest cases by cosine similarity, optionally stratified.

Stratified (Baseline, REAPER): the cases split into a positive and a non-positive stratum by
their recorded reward (seed 003 l.399; `by="label"`, the spec key `strata=label`, splits by the
reflection's label instead), and about half of the k slots go to the most similar of each, so a neighbourhood dominated by one outcome
still shows both what to emulate and what to avoid; a short stratum is backfilled by the next
most similar cases of either kind. Plain top-k (Original) when not stratified. Ties break by
case id, so retrieval (and with it every prompt) is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encoder import Encoder
from .memory import Case, CaseMemory, Index


@dataclass(frozen=True)
class Retrieved:
    case: Case
    similarity: float

    def trace(self) -> dict[str, object]:
        return {"case": self.case.id, "similarity": round(self.similarity, 4), "label": self.case.label}


def _top(sims: np.ndarray, ids: np.ndarray, pool: np.ndarray, n: int) -> np.ndarray:
    """The n most similar of `pool` (indices), ties by id: a partition, then a sort of the few left."""
    if n <= 0 or len(pool) == 0:
        return pool[:0]
    if len(pool) > n:
        nth = np.partition(sims[pool], len(pool) - n)[len(pool) - n]
        pool = pool[sims[pool] >= nth]  # keeps every case tied with the n-th
    return pool[np.lexsort((ids[pool], -sims[pool]))][:n]


def nearest(
    index: Index, query: np.ndarray, k: int, *, stratified: bool, by: str = "reward"
) -> list[Retrieved]:
    """The retrieved set, most similar first."""
    if k <= 0 or not index.cases:
        return []
    # einsum, not `@`: a threaded BLAS matvec leaves OpenBLAS workers spinning, stealing the cores
    # from the encoder and llama.cpp calls that follow (3x slower at 10,000 cases on 2 cores).
    sims = np.einsum("ij,j->i", index.vectors, query / (np.linalg.norm(query) or 1.0))
    every = np.arange(len(index.cases))
    if stratified:
        half = k - k // 2
        positive = index.rewarded if by == "reward" else index.positive
        chosen = np.concatenate(
            [
                _top(sims, index.ids, every[positive], half),
                _top(sims, index.ids, every[~positive], k - half),
            ]
        )
        rest = np.setdiff1d(every, chosen, assume_unique=True)
        chosen = np.concatenate(
            [chosen, _top(sims, index.ids, rest, k - len(chosen))]
        )  # backfill a short stratum
    else:
        chosen = _top(sims, index.ids, every, k)
    picked = chosen[np.lexsort((index.ids[chosen], -sims[chosen]))]
    return [Retrieved(index.cases[i], float(sims[i])) for i in picked]


class Retriever:
    """Queries one memory; a key already stored in it costs no encoder pass."""

    def __init__(self, memory: CaseMemory, encoder: Encoder) -> None:
        self.memory = memory
        self.encoder = encoder

    def query_vector(self, key: str) -> np.ndarray:
        stored = self.memory.vector(key)
        return stored if stored is not None else self.encoder.encode([key])[0]

    def __call__(self, key: str, k: int, *, stratified: bool, by: str = "reward") -> list[Retrieved]:
        index = self.memory.index()
        if not index.cases or k <= 0:
            return []
        return nearest(index, self.query_vector(key), k, stratified=stratified, by=by)
