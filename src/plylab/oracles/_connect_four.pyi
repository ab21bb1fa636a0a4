"""Types of the compiled Connect Four solver (source: _c4/solver.c)."""

from collections.abc import Sequence

BOOK_PLY: int

class Solver:
    """Exact Connect Four scores; `book` is a 12-ply distance book (bitbully-databases format)."""

    nodes: int
    book_size: int

    def __init__(self, book: bytes = b"") -> None: ...
    def solve(self, moves: Sequence[int]) -> int: ...
    def analyze(self, moves: Sequence[int]) -> tuple[int | None, ...]: ...
    def reset(self) -> None: ...
