"""The flags the run-playing commands share are declared once (cli/options.py): `run`, `paper run`,
`learn` and `suite run` list them alike, after their own, and hand them on as one group."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from plylab.cli import app
from plylab.cli import options as o

PLAYING = ["--store", "--concurrency", "--backend", "--address", "--quiet", "--dry-run"]
LIMITS = ["--max-calls", "--max-tokens", "--max-cost"]
COMMANDS = {
    ("run",): PLAYING + LIMITS,
    ("paper", "run"): PLAYING + LIMITS,
    ("learn",): PLAYING,
    ("suite", "run"): PLAYING,
}


def listed(path: tuple[str, ...]) -> list[tuple[str, str]]:
    """The command's visible options as its help lists them: (long flag, help line), in order."""
    command = typer.main.get_command(app)
    context = command.make_context("plylab", [*path, "--help"], resilient_parsing=True)
    for name in path:
        command = command.get_command(context, name)
    records = [p.get_help_record(context) for p in command.get_params(context)]
    return [(flags.split(", ")[-1].split()[0], text) for flags, text in filter(None, records)]


def test_the_run_playing_commands_list_the_shared_flags_alike_after_their_own() -> None:
    helps: dict[str, set[str]] = {}
    for path, shared in COMMANDS.items():
        options = [flag for flag, _ in listed(path) if flag != "--help"]
        assert options[-len(shared) :] == shared, path  # one order, after the command's own flags
        assert not set(shared) & set(options[: -len(shared)]), path  # and nowhere else
        for flag, text in listed(path):
            helps.setdefault(flag, set()).add(text)
    assert all(len(helps[flag]) == 1 for flag in PLAYING + LIMITS)  # one help text each


def test_a_group_arrives_as_one_value_with_what_was_given() -> None:
    got: list[tuple[int, o.Playing, o.Limits]] = []

    @o.grouped
    def command(n: int = typer.Option(1, "--n"), *, playing: o.Playing, limits: o.Limits) -> None:
        got.append((n, playing, limits))

    toy = typer.Typer()
    toy.command()(command)
    result = CliRunner().invoke(toy, ["--n", "3", "--store", "x.sqlite", "-q", "--max-calls", "5"])
    assert result.exit_code == 0, result.output
    [(n, playing, limits)] = got
    assert n == 3 and playing == o.Playing(store=Path("x.sqlite"), quiet=True)
    assert limits == o.Limits(max_calls=5) and limits.given and not o.Limits().given


def test_a_group_field_may_not_take_an_options_name() -> None:
    def command(store: str = typer.Option("", "--where"), *, playing: o.Playing) -> None: ...

    with pytest.raises(TypeError, match=r"\['store'\]"):
        o.grouped(command)
