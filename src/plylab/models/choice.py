"""A reply that is a choice among labels: every field of the JSON object a string enum.

`output=enum` asks the local model for `{"action": <one of the legal moves>}`. Nothing in that
reply is free but the choice, so it is not sampled token by token under a grammar: the fixed text
(`{"action": "`) is written, and each label's continuation (the label, JSON-escaped, in the
model's own tokenization; with its closing quote for every label when one label's tokens begin
another's) is scored in one llama.cpp batch, the labels as sequences sharing the prompt and
their common first tokens (a token trie). The label's score is the sum of its tokens'
log-probabilities; at temperature 0 the best label is chosen (the first
listed on a tie), above it one is drawn with probability proportional to exp(score / T), from the
call's seed. The reply is `{"action": "<label>"}`, as `json.dumps` writes it.
"""

from __future__ import annotations

import json
import random
import time
from typing import TYPE_CHECKING

import numpy as np

from ..jsontypes import JSONObject
from .decoding import Decoder

if TYPE_CHECKING:
    from llama_cpp import Llama


def enum_fields(schema: JSONObject | None) -> list[tuple[str, list[str]]] | None:
    """[(field, its labels)] when `schema` is an object of required string enums only, else None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    props, required = schema.get("properties"), schema.get("required")
    if schema.get("additionalProperties") is not False or not isinstance(props, dict) or not props:
        return None
    if (
        not isinstance(required, list)
        or list(props) != required
        or set(schema)
        - {
            "type",
            "properties",
            "required",
            "additionalProperties",
        }
    ):
        return None
    out = []
    for key, spec in props.items():
        if not isinstance(spec, dict) or set(spec) - {"type", "enum", "description"}:
            return None
        values = spec.get("enum")
        if spec.get("type", "string") != "string" or not isinstance(values, list) or not values:
            return None
        labels = [v for v in values if isinstance(v, str)]
        if len(labels) != len(values):
            return None
        out.append((key, list(dict.fromkeys(labels))))
    return out


def _log_softmax_at(row: np.ndarray, token: int, lse: dict[int, float], key: int) -> float:
    if key not in lse:
        m = float(row.max())
        lse[key] = m + float(np.log(np.exp(row - m, dtype=np.float64).sum()))
    return float(row[token]) - lse[key]


def choose(
    decoder: Decoder,
    prompt: list[int],
    fields: list[tuple[str, list[str]]],
    *,
    temperature: float,
    seed: int,
) -> tuple[str, int]:
    """The reply's text and its token count, `prompt` already evaluated (`Decoder.evaluate`)."""
    start = time.perf_counter()
    llama = decoder.llama
    rng = random.Random(seed)
    parts: list[str] = []
    pos = len(prompt)
    pending = "{"  # fixed text written since the last choice, not yet in the context
    for i, (key, labels) in enumerate(fields):
        pending += ("" if i == 0 else ", ") + json.dumps(key, ensure_ascii=False) + ': "'
        if len(labels) == 1:
            chosen = labels[0]
        else:
            fixed = list(llama.tokenize(pending.encode("utf-8"), add_bos=False, special=False))
            scores = _score(decoder, _continuations(llama, labels), fixed, pos)
            pos += len(fixed)
            chosen = labels[_pick(scores, temperature, rng)]
            pending = ""
        parts.append(f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(chosen, ensure_ascii=False)}")
        pending += json.dumps(chosen, ensure_ascii=False)[1:]
    text = "{" + ", ".join(parts) + "}"
    decoder.remove(-1, len(prompt))  # the reply's entries go; the prompt's stay for the next call
    decoder.timings.reply += time.perf_counter() - start
    return text, len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def _continuations(llama: Llama, labels: list[str]) -> list[list[int]]:
    """Each label's tokens, JSON-escaped; with its closing quote when one label's tokens begin
    another's (the quote is then what tells them apart), else without, for every label alike."""

    def tokens(text: str) -> list[int]:
        return list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    bare = [tokens(json.dumps(label, ensure_ascii=False)[1:-1]) for label in labels]
    starts = {tuple(t[:k]) for t in bare for k in range(1, len(t))}
    if any(not t or tuple(t) in starts for t in bare):
        return [tokens(json.dumps(label, ensure_ascii=False)[1:]) for label in labels]
    return bare


def _pick(scores: list[float], temperature: float, rng: random.Random) -> int:
    if temperature <= 0:
        return int(np.argmax(np.array(scores)))  # the first best
    z = np.array(scores, dtype=np.float64) / temperature
    w = np.exp(z - z.max())
    u = rng.random() * float(w.sum())
    return min(int(np.searchsorted(np.cumsum(w), u, side="right")), len(scores) - 1)


def _score(decoder: Decoder, conts: list[list[int]], fixed: list[int], pos: int) -> list[float]:
    """Each continuation's log-probability after the context (seq 0, `pos` tokens) and `fixed`, in
    batches of as many labels as the context has sequences (the first batch writes `fixed` too)."""
    groups: list[list[list[int]]] = [[]]
    size = len(fixed)
    for cont in conts:
        if groups[-1] and (len(groups[-1]) + 1 >= decoder.seq_max or size + len(cont) > decoder.n_batch):
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
