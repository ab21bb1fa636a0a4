"""The `plylab` command. Each subcommand lives in its own module here with `register(app)`, listed in
`_load_commands`; a command module imports what its command uses inside the command's function, so
`plylab --help` loads no store, analysis or Clue (tests/cli/test_startup.py).

User mistakes (UserError, click usage errors) become one line on stderr and exit code 2.
`PLYLAB_DEBUG=1` prints the whole exception chain above that line (even a `raise ... from None`).
"""

from __future__ import annotations

import errno
import os
import re
import sys
import traceback
from typing import TextIO, cast

import typer
import typer.main

try:  # typer >= 0.17 vendors click; its exceptions live there
    from typer._click import exceptions as click_exc
    from typer._click.utils import PacifyFlushWrapper
except ImportError:  # pragma: no cover - older typer on real click
    from click import exceptions as click_exc  # type: ignore[no-redef]
    from click.utils import PacifyFlushWrapper  # type: ignore[no-redef]

from ..errors import UserError
from ..printable import printable

app = typer.Typer(
    name="plylab",
    help="Measure how well language models and game AIs reason in games, against ground truth.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _load_commands() -> None:
    from . import clue, demo, export, learn, listing, models, paper, report, run, solve, stated, suite

    for module in (clue, demo, export, learn, listing, models, paper, report, run, solve, stated, suite):
        module.register(app)


_load_commands()


def first_sentence(text: str) -> str:
    """A help text's first sentence, on one line: what `plylab --help` lists beside each command
    (click would otherwise cut the text at 45 characters, mid-clause)."""
    flat = " ".join(text.split())
    m = re.search(r"(?<!e\.g)(?<!i\.e)(?<!etc)\.(\s|$)", flat)
    return flat[: m.start() + 1] if m else flat


def _short_helps(group: typer.Typer) -> None:
    """Each command's and group's listed help is its first sentence (unless it names its own)."""
    for info in group.registered_commands:
        doc = info.help if isinstance(info.help, str) else getattr(info.callback, "__doc__", None)
        if not isinstance(info.short_help, str) and doc:
            info.short_help = first_sentence(doc)
    for sub_info in group.registered_groups:
        sub = sub_info.typer_instance
        doc = sub_info.help if isinstance(sub_info.help, str) else None
        if doc is None and sub is not None and isinstance(sub.info.help, str):
            doc = sub.info.help
        if not isinstance(sub_info.short_help, str) and doc:
            sub_info.short_help = first_sentence(doc)
        if sub is not None:
            _short_helps(sub)


_short_helps(app)


def debugging() -> bool:
    return os.environ.get("PLYLAB_DEBUG", "").strip() not in ("", "0")


def _user_error(exc: BaseException, message: str) -> int:
    """One line and exit code 2; under PLYLAB_DEBUG=1 the full chain first, suppressed links included."""
    if debugging():
        seen: set[int] = set()
        link: BaseException | None = exc
        while link is not None and id(link) not in seen:
            seen.add(id(link))
            link.__suppress_context__ = False
            link = link.__cause__ or link.__context__
        traceback.print_exception(exc, file=sys.stderr)
    line = LONG_WORD.sub(lambda m: shortened(m.group()), printable(message.strip()))  # a 131,000-char path
    print(f"plylab: error: {line}", file=sys.stderr)  # one line, inert
    return 2


LONG_WORD = re.compile(r"\S{240,}")


def shortened(text: object, most: int = 120) -> str:
    """A user's argument as an error line may quote it: printable, and cut where it is very long."""
    shown = printable(text)
    return shown if len(shown) <= most else f"{shown[:most]}... ({len(shown):,} characters)"


def check_arguments(argv: list[str]) -> None:
    """Every argument is text: bytes that are not UTF-8 (surrogate-escaped by Python) are refused
    before any command sees them, not met later as a UnicodeEncodeError."""
    for i, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise UserError(
                f"argument {i} ('{shortened(arg)}') is not UTF-8 text; give names and paths in UTF-8"
            ) from None


def _invoke(args: list[str]) -> int:
    """Parse `args` and run the command, as typer's `main` does, minus what it does with Ctrl-C:
    it returns exit code 130 for a KeyboardInterrupt, silently and indistinguishable from a
    command's own 130 (an interrupted run, which has said its line), so a Ctrl-C while the
    arguments were parsed or the command imported what it uses ended with nothing said. Here the
    KeyboardInterrupt reaches `main`, which says the line the manual promises."""
    try:
        from typer._click.utils import _detect_program_name
    except ImportError:  # pragma: no cover - older typer on real click
        from click.utils import _detect_program_name

    command = typer.main.get_command(app)
    with command.make_context(_detect_program_name(), args) as ctx:
        return int(command.invoke(ctx) or 0)


def main(argv: list[str] | None = None) -> int:
    try:
        args = sys.argv[1:] if argv is None else list(argv)
        check_arguments(args)
        return _invoke(args)
    except UserError as exc:
        return _user_error(exc, str(exc))
    except OSError as exc:  # a path the system refuses (too long, a missing or read-only folder)
        if exc.errno == errno.EPIPE and exc.filename is None:  # the reader went away (`| head`)
            sys.stdout = cast(TextIO, PacifyFlushWrapper(sys.stdout))
            sys.stderr = cast(TextIO, PacifyFlushWrapper(sys.stderr))
            return 1
        if exc.filename is None:
            raise
        return _user_error(exc, f"cannot use '{shortened(exc.filename)}': {exc.strerror or exc}")
    except RecursionError as exc:  # a path of thousands of folders
        return _user_error(exc, "an argument nests too deeply to handle (a path of thousands of folders?)")
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, EOFError):
        print("plylab: interrupted", file=sys.stderr)
        return 130
    except click_exc.ClickException as exc:
        return _user_error(exc, exc.format_message().replace("Value error, ", "", 1))  # typer's choices
    except KeyboardInterrupt:
        print("plylab: interrupted", file=sys.stderr)
        return 130
