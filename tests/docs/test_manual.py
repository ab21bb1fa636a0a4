"""The manual (docs/, MkDocs Material) builds strictly, its reference pages are generated from the
code's own registries and help, it fetches nothing, and the README stays a first five minutes that
points into it."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.docs.conftest import build

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def text_of(page: Path, between_tags: str = " ") -> str:
    """A built page's visible text, roughly: tags dropped (a highlighted code block's tokens are
    joined with between_tags=""), entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", between_tags, page.read_text()))


@pytest.mark.slow
def test_the_manual_builds_strictly_with_every_page_of_its_nav(manual: Path) -> None:
    for page in (
        "index.html",
        "getting-started.html",
        "ground-truth.html",
        "durability.html",
        "extending/oracle.html",
        "seeds.html",
        "reference/players.html",
        "reference/cli.html",
        "reference/games.html",
        "reference/prompts.html",
    ):
        assert (manual / page).is_file(), page
    for page in manual.rglob("*.html"):  # user-facing text names no issue of the project's tracker
        assert not re.search(r"\bissues? \d+", text_of(page), re.I), page


@pytest.mark.slow
def test_the_worked_examples_are_the_tests_code(manual: Path) -> None:
    """Each extension page includes its example from the test that runs it (a snippet section);
    a section marker lost from the test would leave an empty code block."""
    for page, code in (
        ("game", "register_game("),
        ("player", "class Lowest(Player)"),
        ("table", "def toy_outcomes(source: ToySource) -> Table"),
        ("oracle", "def move_values(self, state: pyspiel.State) -> MoveValues"),
    ):
        assert code in text_of(manual / "extending" / f"{page}.html", between_tags=""), page


@pytest.mark.slow
def test_the_manual_builds_from_outside_the_repository(tmp_path: Path) -> None:
    """`mkdocs build -f /repo/mkdocs.yml` from another folder: the snippets' paths were taken from the
    working directory, so every `--8<--` failed the strict build there."""
    done = build(tmp_path / "site", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "class Lowest(Player)" in text_of(tmp_path / "site" / "extending" / "player.html", between_tags="")


@pytest.mark.slow
def test_the_player_reference_is_the_registry(manual: Path) -> None:
    from plylab.players import PLAYERS

    page = text_of(manual / "reference" / "players.html")
    for name in PLAYERS:
        keys = PLAYERS.get(name).Options.model_fields
        section = page.split(f" {name} ", 1)
        assert len(section) == 2, name
        for key in keys:
            assert key in page, (name, key)
    # a key's accepted values and its comment in the code reach the page
    assert "text|json|enum" in page and "the paper's free answer" in page


@pytest.mark.slow
def test_the_command_reference_is_typers_help(manual: Path) -> None:
    import typer

    from plylab.cli import app

    page = text_of(manual / "reference" / "cli.html")
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        assert f"plylab {name}" in page, name
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--") and not param.hidden:
                    assert opt in page, (name, opt)
    assert "--concurrency" in page and "games in flight at once" in page


@pytest.mark.slow
def test_the_manual_fetches_nothing(manual: Path) -> None:
    """No web font, CDN script or stylesheet: every page opens from disk, offline."""
    for page in manual.rglob("*.html"):
        html = page.read_text()
        for ref in re.findall(r'<(?:link|script|img)[^>]+(?:href|src)="([^"]+)"', html):
            assert not re.match(r"(https?:)?//", ref), (page.name, ref)


def test_the_readme_starts_with_the_two_commands_and_stays_short() -> None:
    text = README.read_text()
    lines = text.splitlines()
    assert len(lines) < 200, len(lines)
    block = text.split("```", 2)[1]
    commands = [line.split()[0:2] for line in block.splitlines() if line and not line[0].isspace()]
    assert commands == [["make", "demo"], ["make", "test"]], commands
    assert not re.search(r"\bissues? \d+", text, re.I)


def test_every_readme_link_into_the_manual_is_a_page_of_it() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", README.read_text())
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link
        assert link.removeprefix("docs/") in nav, link
