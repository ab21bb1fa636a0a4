"""The front door: `python -m plylab` and the `plylab` script start and end here.

A Ctrl-C before the command runs, or after it has said its last line, is one line (or nothing more)
and exit 130, never a traceback.

Between the two, `cli.main` owns Ctrl-C (one line, exit 130) and a run owns it while it plays
(`harness.driver`). Before: Python's own handler raised KeyboardInterrupt wherever the interpreter
was, and a Ctrl-C in the first half second, inside the imports of `plylab.cli` (typer, the
commands), ended the process with a page of traceback. After: a Ctrl-C while the interpreter shuts
down (joining a thread that loads the model, closing engines in `atexit`) raised it in the middle of
that clean-up, printed as "Exception ignored in ..." with its traceback.

Until `entry` runs, this module imports nothing of plylab's and only `os`, `sys` and `_signal` (the
`signal` module's C core: `signal` itself imports `enum`, which took most of the first 20 ms, and a
Ctrl-C there was a traceback), so its handler is in place within a millisecond of plylab's first
line. What is earlier is the interpreter's own start (Python, the site-packages' `.pth` files and
finding this module): a Ctrl-C then is Python's. A SIGINT the process was started ignoring (a job a shell without job
control put in the background) stays ignored.

Inside `main`, typer's own `main` returned exit 130 with nothing said for a Ctrl-C while it parsed
the arguments or the command imported what it uses (the first second of `plylab run`); `cli.main`
now drives the command itself and says the line (`cli._invoke`).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # no stub: signal's C core
import os
import sys


def _interrupted_starting(signum: int, frame: object) -> None:
    """Ctrl-C before the command ran: nothing was written or started yet; say so and stop."""
    os.write(2, b"plylab: interrupted\n")
    os._exit(130)


def _interrupted_ending(signum: int, frame: object) -> None:
    """Ctrl-C after the command returned: every game is saved and its line said; what is left is
    the interpreter's clean-up, which the system does as well (memory, the model; an engine ends
    when its input closes). Stop now, with what was written flushed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe, a closed stream: nothing more can be said
            pass
    os._exit(130)


def entry() -> None:
    """The `plylab` command (the console script and `python -m plylab`)."""
    ours = _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler
    if ours:
        _signal.signal(_signal.SIGINT, _interrupted_starting)
    from .cli import main

    code: int | None = None
    try:
        if ours:  # from here a Ctrl-C is a KeyboardInterrupt, which `main` turns into its line
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        code = main()
        if ours:
            _signal.signal(_signal.SIGINT, _interrupted_ending)
    except KeyboardInterrupt:  # between the lines above and `main`'s own handling
        if code is None:
            os.write(2, b"plylab: interrupted\n")
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    entry()
