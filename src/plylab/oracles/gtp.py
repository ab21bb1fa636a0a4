"""GNU Go over the Go Text Protocol: its moves (the `gnugo` player) and its count of a finished game.

Debian's `gnugo` (3.8, installed by `make engines`) in a subprocess. GTP names a point by its column
letter (no I) and row from the bottom (`D4`); OpenSpiel's Go action is row-major from a1 with
`size * size` the pass, so `vertex` and `action_of` translate one into the other.

A finished game is scored here by GNU Go itself (`final_score`), not by OpenSpiel's count: OpenSpiel's
Go counts every stone on the board as alive (area scoring with no dead-stone removal), so a random
player's hopeless stones left on the board win it games GNU Go scores as lost by 70 points. GNU Go is
given the game's moves under Chinese (area) rules with the game's komi; its answer (`B+73.5`, `W+3.5`,
`0`) is the game's result. Where GNU Go is not installed, or refuses a move of the game, the result is
OpenSpiel's own count, and the game's record says which count was applied (its `scoring`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .binary import find_binary
from .engine_process import RESTARTS, EngineRefusal, TextProcess

if TYPE_CHECKING:
    import pyspiel

COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP's columns: no I
MAX_SIZE = 19  # GNU Go's largest board
INSTALL = "install it with `make engines` (Debian: apt-get install gnugo)"
SCORE_TIMEOUT = 120.0  # seconds GNU Go may take to count a finished game
GNUGO = "GNU Go 3.8"
CHINESE = f"{GNUGO}'s final_score: Chinese (area) rules, dead stones removed by GNU Go"
NAIVE = "OpenSpiel's area count: every stone on the board counted alive (no dead-stone removal)"


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


def returns_of(score: str) -> list[float] | None:
    """GTP's final_score ('B+73.5', 'W+3.5', '0') as OpenSpiel's returns (black, white); None if unread."""
    text = score.strip().upper()
    if text == "0":
        return [0.0, 0.0]
    if text[:2] in ("B+", "W+"):
        return [1.0, -1.0] if text[0] == "B" else [-1.0, 1.0]
    return None


def final_score(moves: list[int], size: int, komi: float, path: str, timeout: float = SCORE_TIMEOUT) -> str:
    """GNU Go's `final_score` of the game `moves` (OpenSpiel's actions, black first). A move GNU Go
    refuses is EngineRefusal; a GNU Go that dies or does not answer in time is restarted, then the
    game is left unfinished (the rule of every engine: oracles/engine_process.py)."""
    engine = Gtp(gnugo_argv(path), timeout, (size, komi))

    def replay() -> str:
        engine.send("clear_board")
        for ply, action in enumerate(moves):
            engine.send(f"play {'black' if ply % 2 == 0 else 'white'} {vertex(action, size)}")
        return engine.send("final_score")

    try:
        return engine.call(replay)
    finally:
        engine.close()


def go_count(state: pyspiel.State) -> tuple[list[float], str]:
    """The result of the finished Go game `state` (returns: black, white) and the rules that made it:
    GNU Go's final_score of its moves where GNU Go is installed and takes them all, else OpenSpiel's
    own count."""
    params = state.get_game().get_parameters()
    size, komi = int(params["board_size"]), float(params["komi"])
    naive = [float(r) for r in state.returns()]
    path = gnugo_path()
    if path is None:
        return naive, f"{NAIVE}; GNU Go is not installed ({INSTALL})"
    if size > MAX_SIZE or int(params["handicap"]):
        return naive, f"{NAIVE}; GNU Go counts no board over {MAX_SIZE}x{MAX_SIZE} nor handicap stones"
    try:
        score = final_score(list(state.history()), size, komi, path)
    except EngineRefusal as exc:
        return naive, f"{NAIVE}; GNU Go did not take the game's moves ({exc})"
    returns = returns_of(score)
    if returns is None:
        return naive, f"{NAIVE}; GNU Go's count '{score}' is not a score"
    return returns, f"{CHINESE}, komi {komi:g}: {score}"
