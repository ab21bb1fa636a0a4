"""What `plylab --help` and friends say (issue 30 point 7): whole sentences, named arguments, and
help on every option."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from plylab.cli import app


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, cmd in group.commands.items():
        yield (*path, name), cmd
        if hasattr(cmd, "commands"):
            yield from commands(cmd, (*path, name))


ROOT: Any = typer.main.get_command(app)
ALL = list(commands(ROOT))


@pytest.mark.parametrize(("path", "cmd"), ALL, ids=[" ".join(p) for p, _ in ALL])
def test_each_listed_description_is_a_whole_sentence(path: tuple[str, ...], cmd: Any) -> None:
    listed = cmd.get_short_help_str(limit=45)  # what the parent's --help shows beside the name
    assert not listed.endswith("..."), (path, listed)
    assert listed.endswith("."), (path, listed)


def test_export_usage_names_its_argument() -> None:
    usage = CliRunner().invoke(app, ["export", "--help"]).output.splitlines()[0]
    assert "{OUT}" in usage, usage  # typer writes a required argument in braces


def test_every_clue_study_option_has_help() -> None:
    study = ROOT.commands["clue"].commands["study"]
    options = [p for p in study.params if p.param_type_name == "option" and not p.hidden]
    missing = [p.name for p in options if not p.help]
    assert missing == []
