"""GNU Go over the Go Text Protocol: its moves (the `gnugo` player) and its count of a finished game.

Debian's `gnugo` (3.8, installed by `make engines`) in a subprocess. GTP names a point by its column
letter (no I) and row from the bottom (`D4`); OpenSpiel's Go action is row-major from a1 with
`size * size` the pass, so `vertex` and `action_of` translate one into the other.
"""

from __future__ import annotations

from .binary import find_binary
from .engine_process import RESTARTS, EngineRefusal, TextProcess

COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP's columns: no I
MAX_SIZE = 19  # GNU Go's largest board
INSTALL = "install it with `make engines` (Debian: apt-get install gnugo)"


def gnugo_path() -> str | None:
    """The GNU Go binary ($PLYLAB_GNUGO, else on PATH, else Debian's /usr/games/gnugo); None if absent."""
    return find_binary("gnugo", "PLYLAB_GNUGO")


def vertex(action: int, size: int) -> str:
    """OpenSpiel's Go action (row-major from a1; size x size is pass) as a GTP vertex ('D4', 'pass')."""
    if action == size * size:
        return "pass"
    row, col = divmod(action, size)
    return f"{COLUMNS[col]}{row + 1}"


def action_of(text: str, size: int) -> int | None:
    """A GTP vertex as OpenSpiel's action (pass and resign as pass); None where it names no point."""
    v = text.strip().upper()
    if v in ("PASS", "RESIGN"):
        return size * size
    if len(v) < 2 or v[0] not in COLUMNS[:size] or not v[1:].isdigit():
        return None
    row = int(v[1:]) - 1
    return row * size + COLUMNS.index(v[0]) if 0 <= row < size else None


class Gtp(TextProcess):
    """A GTP engine (one command, one answer ended by a blank line), on a clear board of `board`
    (size, komi) after every start where one is given; `?` is a refusal (EngineRefusal)."""

    def __init__(
        self,
        argv: list[str],
        timeout: float,
        board: tuple[int, float] | None = None,
        restarts: int = RESTARTS,
        name: str = "gnugo",
    ) -> None:
        super().__init__(name, argv, timeout, restarts)
        self.board = board

    def handshake(self) -> None:
        if self.board is not None:
            size, komi = self.board
            self.send(f"boardsize {size}")
            self.send("clear_board")
            self.send(f"komi {komi:g}")

    def send(self, command: str) -> str:
        """The answer to `command` (without its `=`)."""
        answer = self.ask(command, "\n\n").strip()
        if answer.startswith("?"):
            raise EngineRefusal(f"'{command}' refused: {answer[1:].strip()}")
        return answer[1:].strip() if answer.startswith("=") else answer

    def quit_command(self) -> str:
        return "quit"


def gnugo_argv(path: str, *extra: str) -> list[str]:
    """GNU Go in GTP mode under Chinese (area) rules, as every plylab use of it runs."""
    return [path, "--mode", "gtp", "--chinese-rules", *extra]
