"""Suite kinds: what differs between a suite of moves and a Clue deduction suite is asked of the suite's
kind (`suites.kinds`), chosen once from the file's header, never branched on where it is used.

Issue 50 found about 13 `is_clue(...)` / `pos.entailed` branches across the CLI, the run, the
report and the site, and private names imported across modules. These checks read the source, as
the floors test does, so a branch that comes back is named with its file and line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from plylab.suites import kinds
from plylab.suites.deduction import DEDUCTION
from plylab.suites.moves import MOVES

SRC = Path(__file__).resolve().parents[2] / "src" / "plylab"
CLUE_KIND = "suites/deduction.py"  # the one module that knows what a Clue suite is
# a kind branch: asking whether a game is Clue, or whether a position holds Clue's facts
BRANCH = re.compile(r"\bis_clue\(|\.entailed\b")
# where suites are built, run, reported and shown: no comparison with a kind's name or Clue's game
USERS = ["suites", "cli/suite.py", "reports/suites.py"]
KIND_WORDS = {"clue", "deduction", "moves"}


def branch_lines(path: Path, root: Path = SRC) -> list[str]:
    """Lines of `path` that ask whether a game is Clue or whether a position holds Clue's facts."""
    rel = path.relative_to(root)
    return [
        f"{rel}:{n}: {line.strip()}"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if BRANCH.search(line)
    ]


def kind_comparisons(path: Path, root: Path = SRC) -> list[str]:
    """Comparisons in `path` with the name of a kind or of Clue's game (`s.truth.get("kind") == "deduction"`)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            words = {n.value for n in [node.left, *node.comparators] if isinstance(n, ast.Constant)}
            if KIND_WORDS & {w for w in words if isinstance(w, str)}:
                out.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return out


def private_imports(path: Path, root: Path = SRC) -> list[str]:
    """`from M import _name` in `path` where `_name` is not a module: a private name used across modules."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = (path.parent if node.level else root.parent).joinpath(
                *([".."] * max(node.level - 1, 0)), *(node.module or "").split(".")
            )
            for alias in node.names:
                module = base / alias.name
                if alias.name.startswith("_") and not (module.with_suffix(".py").exists() or module.is_dir()):
                    out.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return out


def used_in(rel: str) -> list[Path]:
    where = SRC / rel
    return sorted(where.rglob("*.py")) if where.is_dir() else [where]


def test_the_finders_see_what_they_look_for(tmp_path: Path) -> None:
    """The checks below are only worth something if they can fail: the old code's branches are seen."""
    sample = tmp_path / "m.py"
    sample.write_text(
        "from .build import _one_game, build_suite\nfrom . import _private_module\n"
        "if is_clue(run.game):\n    pass\n"
        "if self.position.entailed is not None:\n    pass\n"
        "if s.truth.get('kind') == 'deduction':\n    pass\n"
        "ok = pos.more\n"
    )
    (tmp_path / "_private_module.py").write_text("")
    assert len(branch_lines(sample, tmp_path)) == 2
    assert kind_comparisons(sample, tmp_path) == ["m.py:7: s.truth.get('kind') == 'deduction'"]
    assert private_imports(sample, tmp_path) == ["m.py:1: from .build import _one_game, build_suite"]


def test_no_clue_branch_outside_the_clue_suite_kind() -> None:
    """Nowhere in plylab, but the Clue suite kind, asks `is_clue(...)` or reads a position's `.entailed`."""
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        if str(path.relative_to(SRC)) != CLUE_KIND
        for line in branch_lines(path)
    ]
    assert found == [], "ask the suite's kind (suites.kinds.kind_of) instead:\n" + "\n".join(found)


def test_no_kind_named_where_suites_are_built_run_and_shown() -> None:
    found = [
        line
        for rel in USERS
        for path in used_in(rel)
        if path != SRC / CLUE_KIND
        for line in kind_comparisons(path)
    ]
    assert found == [], "ask the suite's kind (suites.kinds.kind_of) instead:\n" + "\n".join(found)


def test_no_private_name_imported_across_modules_where_suites_live() -> None:
    found = [line for rel in [*USERS, "games"] for path in used_in(rel) for line in private_imports(path)]
    assert found == [], "a name another module uses is public:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("game", "kind"),
    [
        ("clue", DEDUCTION),
        ("clue:players=4", DEDUCTION),
        ("tic_tac_toe", MOVES),
        ("chess", MOVES),
        ("cluedo", MOVES),
    ],
)
def test_the_kind_is_chosen_from_the_game_the_header_names(game: str, kind: kinds.SuiteKind) -> None:
    assert kinds.kind_of(game) is kind


def test_the_built_in_kinds_are_registered_moves_first() -> None:
    """The report's tables come in the kinds' order: players (moves), then Clue's deductions."""
    assert [k.name for k in kinds.kinds()] == ["moves", "deduction"]
