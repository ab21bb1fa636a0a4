"""A choice among labels, scored in one llama.cpp batch instead of sampled under a grammar.

`output=enum`'s `{"action": <one of the legal moves>}`, a string enum anywhere in a schema, a
boolean and the tag of a tagged union are all choices (`structured.py` finds them). Each
option's continuation (a string label JSON-escaped, in the model's own tokenization; with its
closing quote for every label when one label's tokens begin another's) is scored in one batch,
the options as sequences sharing the prompt and their common first tokens (a token trie). An
option's score is the sum of its tokens' log-probabilities; at temperature 0 the best is chosen
(the first listed on a tie), above it one is drawn with probability proportional to
exp(score / T), from the call's seed.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np

from .decoding import Decoder

if TYPE_CHECKING:
    from llama_cpp import Llama


def _log_softmax_at(row: np.ndarray, token: int, lse: dict[int, float], key: int) -> float:
    if key not in lse:
        m = float(row.max())
        lse[key] = m + float(np.log(np.exp(row - m, dtype=np.float64).sum()))
    return float(row[token]) - lse[key]


def continuations(llama: Llama, texts: list[str], closing: str = "") -> list[list[int]]:
    """Each option's tokens (`texts`: the options as the reply writes them, up to the `closing`
    text that follows every one, such as a string's quote); with `closing` as well when one
    option's tokens begin another's (it is then what tells them apart), for every option alike."""

    def tokens(text: str) -> list[int]:
        return list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    bare = [tokens(text) for text in texts]
    starts = {tuple(t[:k]) for t in bare for k in range(1, len(t))}
    if closing and any(not t or tuple(t) in starts for t in bare):
        return [tokens(text + closing) for text in texts]
    return bare


def pick(scores: list[float], temperature: float, rng: random.Random) -> int:
    if temperature <= 0:
        return int(np.argmax(np.array(scores)))  # the first best
    z = np.array(scores, dtype=np.float64) / temperature
    w = np.exp(z - z.max())
    u = rng.random() * float(w.sum())
    return min(int(np.searchsorted(np.cumsum(w), u, side="right")), len(scores) - 1)


def score(decoder: Decoder, conts: list[list[int]], fixed: list[int], pos: int) -> list[float]:
    """Each continuation's log-probability after the context (seq 0, `pos` tokens) and `fixed`, in
    batches of as many labels as the context has sequences besides the prompt's and the pin (the
    first batch writes `fixed` too)."""
    groups: list[list[list[int]]] = [[]]
    size = len(fixed)
    for cont in conts:
        if groups[-1] and (len(groups[-1]) + 1 >= decoder.pin or size + len(cont) > decoder.n_batch):
            groups.append([])
            size = 0
        groups[-1].append(cont)
        size += len(cont)
    scores, first = _score_group(decoder, groups[0], fixed, pos, None)
    for group in groups[1:]:
        scores += _score_group(decoder, group, [], pos + len(fixed), first)[0]
    return scores


def _score_group(
    decoder: Decoder, conts: list[list[int]], fixed: list[int], pos: int, first: np.ndarray | None
) -> tuple[list[float], np.ndarray]:
    """One batch: `fixed` (in seq 0 and every label's), then the labels' token trie, one entry per
    distinct (parent, token), in the sequences of the labels through it. `first` is the context's
    next-token logits when `fixed` is empty (a later batch); returns it for the next batch."""
    nodes: list[tuple[int, int, int]] = []  # token, depth, parent (-1: the context)
    seqs: list[list[int]] = []
    index: dict[tuple[int, int], int] = {}
    paths: list[list[int]] = []
    for label, cont in enumerate(conts):
        parent, path = -1, []
        for depth, token in enumerate(cont):
            k = (parent, token)
            if k not in index:
                index[k] = len(nodes)
                nodes.append((token, depth, parent))
                seqs.append([])
            node = index[k]
            seqs[node].append(label + 1)
            path.append(node)
            parent = node
        paths.append(path)
    parents = {p for _, _, p in nodes if p >= 0}
    for label in range(len(conts)):  # label i in sequence i + 1: seq 0 stays the prompt's
        decoder.copy(0, label + 1, 0, pos)
    every = [0, *range(1, len(conts) + 1)]
    entries = [(t, pos + j, every, j == len(fixed) - 1) for j, t in enumerate(fixed)]
    at = pos + len(fixed)
    entries += [(t, at + d, seqs[i], i in parents) for i, (t, d, _) in enumerate(nodes)]
    decoder.decode(entries)
    if fixed:
        first = decoder.logits(len(fixed) - 1)
    assert first is not None
    rows = {i: decoder.logits(len(fixed) + i) for i in sorted(parents)}  # by place in the batch
    lse: dict[int, float] = {}
    scores = []
    for path in paths:
        total = 0.0
        for node in path:
            token, _, parent = nodes[node]
            total += _log_softmax_at(first if parent < 0 else rows[parent], token, lse, parent)
        scores.append(total)
    for label in range(len(conts)):
        decoder.remove(label + 1, -1)
    return scores, first
