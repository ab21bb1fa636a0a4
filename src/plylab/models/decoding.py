"""Decoding on the embedded model, deterministic by construction, at the speed of llama.cpp.

A prompt is evaluated in fixed blocks of `BLOCK` tokens at fixed positions (0-31, 32-63, ...).
A block's KV-cache entries depend only on the tokens up to its end, so when the next prompt starts
with the same whole blocks (the rules text, the chat header) they are kept in place and only the
rest is evaluated: the logits, and so the reply, are bit for bit those of a cold evaluation in the
same blocks (`prefix_reuse=False` does exactly that). The state of the first blocks of each of the last few
prompts (at most Gemma 3's 512-position sliding window) is kept aside (`SNAPSHOTS`, as
llama.cpp saves a sequence: the same bytes come back), so prompts that alternate (a REAPER planner
and its executors) find theirs. Every prompt cell is pinned to a second sequence (`pin`), since
llama.cpp reuses a lone sequence's cells once the window has passed them. Nothing else survives.

The reply is then produced one of two ways:

- A schema `structured.py` can write (every object's properties required, no extra ones, a tagged
  union at most: `output=enum`, `output=json`, REAPER's messages) is written where it leaves no
  choice, its choices scored in one batch each (`choice.py`) and its free values sampled.
- Any other reply is decoded token by token as llama-cpp-python did (the same sampler chain,
  temperature 0 greedy, a GBNF grammar for a schema), but the grammar is asked only about the
  best-ranked candidates instead of all 262k entries of Gemma 3's vocabulary: the token chosen
  is the same one, at a fraction of the cost.
"""

from __future__ import annotations

import ctypes
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from llama_cpp import Llama, LlamaGrammar
    from llama_cpp.llama_cpp import llama_token_data_array

BLOCK = 32  # prompt tokens per evaluation block: fixed, since the blocks decide the bits of the result
SEQ_MAX = (
    64  # llama.cpp sequences in the context: seq 0 is the prompt, the last its pin, the others score labels
)
TOP_K = 40  # llama-cpp-python's default top-k (the chain below is its `_init_sampler`'s)
CHECK = 256  # candidates shown to the grammar at once before it is asked about the whole vocabulary
SCRATCH = 1  # a label sequence, free while a prompt is evaluated: a snapshot is saved from it
SNAPSHOTS = 8  # recent prompts whose whole blocks are kept aside (a REAPER move alternates between two)

Entry = tuple[int, int, Sequence[int], bool]  # token, position, sequence ids, logits wanted
Snapshot = ctypes.Array[ctypes.c_uint8]  # a sequence's saved state (llama_state_seq_get_data)
# A llama.cpp call as `Timings.ops` records it, to be made again (`Decoder.replay`).
Op = (
    tuple[Literal["decode"], list[Entry]]
    | tuple[Literal["rm"], int, int, int]
    | tuple[Literal["cp"], int, int, int, int]
    | tuple[Literal["restore"], Snapshot]
)


@dataclass
class Timings:
    """Where one call's time went (seconds) and how much of its prompt was reused (tokens)."""

    setup: float = 0.0  # formatting, tokenizing, grammar and sampler set-up
    prompt: float = 0.0  # llama_decode of the prompt blocks not already in the cache
    reply: float = 0.0  # the reply: label scoring or token-by-token decoding and sampling
    prompt_tokens: int = 0
    reused_tokens: int = 0
    prompt_ops: int = 0  # how many of `ops` evaluated the prompt (the rest made the reply)
    ops: list[Op] = field(default_factory=list)  # llama.cpp calls made, for `replay`
    tokens: list[int] = field(default_factory=list)  # the prompt, when recording


class Decoder:
    """Prompt evaluation with block-prefix reuse, and sampling, on one llama-cpp-python `Llama`."""

    def __init__(self, llama: Llama) -> None:
        import llama_cpp

        self._c = llama_cpp
        self.llama = llama
        self.ctx = llama._ctx.ctx
        self.mem = llama_cpp.llama_get_memory(self.ctx)
        self.vocab = llama._model.vocab
        self.n_vocab = int(llama.n_vocab())
        self.n_ctx = int(llama.n_ctx())
        self.n_batch = int(llama.n_batch)
        self.seq_max = min(SEQ_MAX, int(llama_cpp.llama_n_seq_max(self.ctx)))
        # The prompt's cells also belong to this sequence, which nothing else uses: llama.cpp reuses
        # a cell of one sequence once it falls out of the sliding window (Gemma 3's 512 positions),
        # but never a shared one. Without it, a long prompt's start is overwritten while its end is
        # evaluated, and a later prompt that keeps only the start would attend over other tokens.
        self.pin = self.seq_max - 1
        # Snapshots hold at most the whole blocks of one window (see `_save`); longer prefixes are
        # kept in place only.
        swa = int(llama_cpp.llama_model_n_swa(llama._model.model))
        self.window = swa // BLOCK * BLOCK if swa > 0 else self.n_ctx
        self.batch = llama_cpp.llama_batch_init(max(BLOCK, self.n_batch), 0, self.seq_max)
        self.cached: list[int] = []  # seq 0's tokens whose cache entries came from whole blocks
        # seq 0's saved state after recent prompts, by their whole-block tokens (most recent last)
        self.snapshots: OrderedDict[tuple[int, ...], Snapshot] = OrderedDict()
        self.prefix_reuse = True
        self.record = False  # keep the llama.cpp calls of the last call in `timings.ops`
        self.timings = Timings()

    def close(self) -> None:
        if self.batch is not None:
            self._c.llama_batch_free(self.batch)
            self.batch = None

    # -- llama.cpp calls ---------------------------------------------------------------------

    def decode(self, entries: Sequence[Entry]) -> None:
        self._fill(entries)
        rc = self._c.llama_decode(self.ctx, self.batch)
        if rc != 0:
            raise RuntimeError(f"llama_decode failed ({rc})")
        if self.record:
            self.timings.ops.append(("decode", list(entries)))

    def _fill(self, entries: Sequence[Entry]) -> None:
        b = self.batch
        b.n_tokens = len(entries)
        for i, (token, pos, seqs, out) in enumerate(entries):
            b.token[i] = token
            b.pos[i] = pos
            b.n_seq_id[i] = len(seqs)
            for j, s in enumerate(seqs):
                b.seq_id[i][j] = s
            b.logits[i] = out

    def remove(self, seq: int, start: int, end: int = -1) -> None:
        self._c.llama_memory_seq_rm(self.mem, seq, start, end)
        if self.record:
            self.timings.ops.append(("rm", seq, start, end))

    def copy(self, src: int, dst: int, start: int, end: int) -> None:
        self._c.llama_memory_seq_cp(self.mem, src, dst, start, end)
        if self.record:
            self.timings.ops.append(("cp", src, dst, start, end))

    def logits(self, i: int) -> np.ndarray:
        """The logits of the batch's `i`-th output token (-1: the last), as a copy."""
        ptr = self._c.llama_get_logits_ith(self.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy()

    def replay(self, ops: list[Op]) -> float:
        """Seconds for llama.cpp alone to make `ops` (a call's recorded llama.cpp calls) again."""
        start = time.perf_counter()
        for op in ops:
            match op:
                case ("decode", entries):
                    self._fill(entries)
                    self._c.llama_decode(self.ctx, self.batch)
                case ("rm", seq, begin, end):
                    self._c.llama_memory_seq_rm(self.mem, seq, begin, end)
                case ("restore", blob):
                    self._c.llama_state_seq_set_data(self.ctx, blob, len(blob), 0)
                case ("cp", src, dst, begin, end):
                    self._c.llama_memory_seq_cp(self.mem, src, dst, begin, end)
        return time.perf_counter() - start

    def prompt_ops(self, tokens: list[int], chunk: int) -> list[Op]:
        """The llama.cpp calls that evaluate `tokens` from an empty cache in chunks of `chunk`."""
        n = len(tokens)
        ops: list[Op] = [("rm", -1, 0, -1)]
        for s in range(0, n, chunk):
            block: list[Entry] = [(tokens[i], i, (0,), i == n - 1) for i in range(s, min(n, s + chunk))]
            ops.append(("decode", block))
        return ops

    # -- the prompt ----------------------------------------------------------------------------

    def evaluate(self, tokens: list[int]) -> None:
        """Bring the context to the end of `tokens`, the last token's logits ready (`logits(-1)`).

        Whole blocks shared with the previous prompt stay; or, when a recent prompt shares more,
        its saved state comes back (the same bytes, in the same cells); the rest is evaluated in
        blocks. Block boundaries are positions, not content, so the result never depends on what
        came before. The last block is always evaluated: its last token's logits are wanted."""
        start = time.perf_counter()
        n = len(tokens)
        keep, snapshot = 0, None
        if self.prefix_reuse:
            keep = _kept(self.cached, tokens)
            for key in self.snapshots:
                k = _kept(key, tokens)
                if k > keep:
                    keep, snapshot = k, key
        if snapshot is not None:
            self.remove(-1, 0)
            blob = self.snapshots[snapshot]
            self.snapshots.move_to_end(snapshot)
            if self._c.llama_state_seq_set_data(self.ctx, blob, len(blob), 0) == 0:
                keep = 0  # llama.cpp refused it: evaluate from the start
            elif self.record:
                self.timings.ops.append(("restore", blob))
        self.remove(-1, keep)
        if keep and self._c.llama_memory_seq_pos_min(self.mem, 0) != 0:
            keep = 0  # the kept start is not whole after all (never seen since the pin): start over
            self.remove(-1, 0)
        self.copy(0, self.pin, 0, keep)
        for s in range(keep, n, BLOCK):
            end = min(n, s + BLOCK)
            self.decode([(tokens[i], i, (0,), i == n - 1) for i in range(s, end)])
            self.copy(0, self.pin, s, end)
        # a final block with the output flag set is left out: only blocks made alike are reused
        self.cached = tokens[: (n - 1) // BLOCK * BLOCK]
        kept_aside = tuple(self.cached[: self.window])
        if self.prefix_reuse and kept_aside and kept_aside not in self.snapshots:
            self._save(kept_aside)
        t = self.timings
        t.prompt += time.perf_counter() - start
        t.prompt_tokens, t.reused_tokens, t.prompt_ops = n, keep, len(t.ops)
        if self.record:
            t.tokens = list(tokens)

    def _save(self, key: tuple[int, ...]) -> None:
        """Keep aside the state of the prompt's first `len(key)` tokens, saved from a scratch copy:
        llama.cpp leaves out of a sequence's saved state the cells its sliding window has passed,
        and a copy that ends at `key` (at most the window long) has passed none."""
        self.copy(0, SCRATCH, 0, len(key))
        try:
            size = self._c.llama_state_seq_get_size(self.ctx, SCRATCH)
            blob = (ctypes.c_uint8 * size)()
            if self._c.llama_state_seq_get_data(self.ctx, blob, size, SCRATCH) == size:
                self.snapshots[key] = blob
                while len(self.snapshots) > SNAPSHOTS:
                    self.snapshots.popitem(last=False)
        finally:
            self.remove(SCRATCH, -1)

    # -- token-by-token replies -------------------------------------------------------------------

    def sampler(self, grammar: LlamaGrammar | None, temperature: float, seed: int) -> TokenSampler:
        return TokenSampler(self, grammar, temperature, seed)

    def generate(
        self,
        prompt: list[int],
        sampler: TokenSampler,
        *,
        max_tokens: int,
        stop: Sequence[bytes],
        cancelled: Callable[[], bool],
    ) -> tuple[list[int], bytes, str]:
        """Sample after `prompt` (already evaluated) until end of turn, a stop text or `max_tokens`:
        (the reply's tokens, its text, the finish reason), as llama-cpp-python's completion loop."""
        start = time.perf_counter()
        llama, c = self.llama, self._c
        tokens: list[int] = []
        text = b""
        finish = "length"
        multibyte_fix = 0
        pos = len(prompt)
        try:
            while True:
                if cancelled():
                    text = llama.detokenize(tokens)
                    finish = "stop"
                    break
                token = sampler.sample(self.logits(-1))
                if c.llama_vocab_is_eog(self.vocab, token):
                    text = llama.detokenize(tokens)
                    finish = "stop"
                    break
                tokens.append(token)
                all_text = llama.detokenize(tokens)
                for k, char in enumerate(all_text[-3:]):  # llama-cpp-python's multi-byte UTF-8 rule
                    k = 3 - k
                    for num, pattern in ((2, 192), (3, 224), (4, 240)):
                        if num > k and pattern & char == pattern:
                            multibyte_fix = num - k
                if multibyte_fix > 0:
                    multibyte_fix -= 1
                else:
                    hits = [s for s in stop if s in all_text]
                    if hits:
                        text = all_text[: all_text.index(hits[0])]
                        finish = "stop"
                        break
                    if len(tokens) >= max_tokens:
                        text = all_text
                        finish = "length"
                        break
                self.decode([(token, pos, (0,), True)])
                pos += 1
        finally:
            sampler.close()
        self.timings.reply += time.perf_counter() - start
        return tokens, text, finish


def _kept(cached: Sequence[int], tokens: list[int]) -> int:
    """The whole blocks of `cached` that begin `tokens`, short of its last token."""
    common = 0
    for a, b in zip(cached, tokens, strict=False):
        if a != b:
            break
        common += 1
    return min(common, len(tokens) - 1) // BLOCK * BLOCK


class TokenSampler:
    """llama-cpp-python's sampler chain (temperature 0: greedy; above: top-k 40, typical 1, top-p
    0.95, min-p 0.05, temperature, seeded draw), with an optional grammar asked lazily.

    The grammar only ever removes tokens, and the chain looks only at the top 40 that remain (the
    single best at temperature 0), so showing the grammar the candidates best first, until 40
    pass (or one), and the chain just those, gives the token the whole-vocabulary pass gave."""

    def __init__(self, decoder: Decoder, grammar: LlamaGrammar | None, temperature: float, seed: int) -> None:
        c = decoder._c
        self._c = c
        self.n_vocab = decoder.n_vocab
        self.temperature = temperature
        self.grammar = None
        if grammar is not None:
            self.grammar = c.llama_sampler_init_grammar(
                decoder.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
            )
            if not self.grammar:
                raise ValueError("llama.cpp cannot parse the grammar for this schema")
        self.chain = None
        if temperature > 0:
            chain = c.llama_sampler_chain_init(c.llama_sampler_chain_default_params())
            for s in (
                c.llama_sampler_init_top_k(TOP_K),
                c.llama_sampler_init_typical(1.0, 1),
                c.llama_sampler_init_top_p(0.95, 1),
                c.llama_sampler_init_min_p(0.05, 1),
                c.llama_sampler_init_temp(temperature),
                c.llama_sampler_init_dist(seed),
            ):
                c.llama_sampler_chain_add(chain, s)
            self.chain = chain
        self._dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)

    def close(self) -> None:
        if self.grammar:
            self._c.llama_sampler_free(self.grammar)
            self.grammar = None
        if self.chain:
            self._c.llama_sampler_free(self.chain)
            self.chain = None

    def _array(self, ids: np.ndarray, logits: np.ndarray) -> tuple[np.ndarray, llama_token_data_array]:
        data = np.zeros(len(ids), dtype=self._dtype)
        data["id"], data["logit"] = ids, logits[ids]
        arr = self._c.llama_token_data_array(
            data=data.ctypes.data_as(self._c.llama_token_data_p), size=len(ids), selected=-1, sorted=False
        )
        return data, arr

    def _allowed(self, ids: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """The tokens of `ids` (in order) that the grammar allows next."""
        data, arr = self._array(ids, logits)
        self._c.llama_sampler_apply(self.grammar, ctypes.byref(arr))
        allowed: np.ndarray = ids[np.isfinite(data["logit"][: arr.size])]
        return allowed

    def _chain(self, ids: np.ndarray, logits: np.ndarray) -> int:
        data, arr = self._array(ids, logits)
        self._c.llama_sampler_apply(self.chain, ctypes.byref(arr))
        return int(data["id"][arr.selected])

    def sample(self, logits: np.ndarray) -> int:
        need = 1 if self.chain is None else TOP_K
        if self.grammar is None:
            if self.chain is None:
                token = int(np.argmax(logits))  # greedy: the first best
            else:
                token = self._chain(np.arange(self.n_vocab, dtype=np.intc), logits)
        else:
            allowed = np.empty(0, dtype=np.intc)
            best = int(np.argmax(logits))
            if need == 1:
                allowed = self._allowed(np.array([best], dtype=np.intc), logits)
            if len(allowed) < need:
                top = np.argpartition(-logits, CHECK)[:CHECK].astype(np.intc)
                top = top[np.lexsort((top, -logits[top]))]  # best first, ties by id (as the chain)
                allowed = self._allowed(top, logits)
                if len(allowed) < need:  # few allowed among the best: ask about every token
                    allowed = self._allowed(np.arange(self.n_vocab, dtype=np.intc), logits)
                    if len(allowed) == 0:
                        raise RuntimeError("the grammar allows no token")
                    allowed = allowed[np.lexsort((allowed, -logits[allowed]))]
            token = int(allowed[0]) if self.chain is None else self._chain(allowed, logits)
            self._c.llama_sampler_accept(self.grammar, token)
        if self.chain is not None:
            self._c.llama_sampler_accept(self.chain, token)
        return token
