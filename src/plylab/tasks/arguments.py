"""The inspect tasks' arguments (`inspect eval plylab/game -T games=4`), checked as the CLI checks its own.

inspect reads each `-T key=value` as YAML and hands it to the task function untyped (`games=abc`
arrives as the text 'abc'), and prints the whole traceback of any exception a task function raises,
except inspect's own `PrerequisiteError`, which it prints as its message alone. So a task checks
every argument before it builds anything (a count or seed as `plylab run` checks `--games` and
`--seed`; names, specs and files by the parsers `plylab run`, `plylab suite run` and `plylab clue
run` use) and says what was wrong in one line: `TaskArgumentError`, a plylab `UserError` (one line,
exit 2, in plylab's own CLI) that inspect also prints as one line (exit 1).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from inspect_ai._util.error import PrerequisiteError

from ..errors import UserError
from ..harness.plan import INT64, check_int

__all__ = ["TaskArgumentError", "integer", "refused_in_one_line", "text"]


class TaskArgumentError(UserError, PrerequisiteError):
    """A task argument refused: one line for plylab (a UserError) and for inspect (a PrerequisiteError,
    whose message alone inspect prints, through rich: wrapped at the terminal's width, exit 1).

    inspect silences rich under `--display none`, and with it the message of a PrerequisiteError
    raised while its tasks are built; the line then goes to stderr here, so it is said once either way.
    """

    def __init__(self, message: str) -> None:
        import rich

        UserError.__init__(self, message)
        self.message = message
        if rich.get_console().quiet:
            print(message, file=sys.stderr, flush=True)


@contextmanager
def refused_in_one_line(task: str) -> Iterator[None]:
    """Any UserError raised while the task `task` (`plylab/game`) is built, as one line naming it."""
    try:
        yield
    except TaskArgumentError:
        raise
    except UserError as exc:
        raise TaskArgumentError(f"{task}: {exc}") from None


def integer(key: str, value: object, least: int) -> int:
    """`-T key=value` as a whole number from `least` to what the store holds, as the CLI's counts
    and seeds (`harness.plan.check_int`)."""
    flag = f"-T {key}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{flag} must be a whole number from {least} to {INT64} (got '{value}')")
    return check_int(flag, value, least)


def text(key: str, value: object) -> str:
    """`-T key=value` as text: a name or spec (YAML reads `game=2048` as a number, `seed=` as null)."""
    if value is None or isinstance(value, bool | list | dict):
        got = "nothing" if value is None else f"'{value}'"
        raise UserError(f"-T {key} must be a name or spec (got {got})")
    return str(value)
