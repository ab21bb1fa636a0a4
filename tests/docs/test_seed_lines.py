"""The project stands alone: every seed-paper line the code or the manual cites (`003 l.62`) is quoted
in the manual's docs/seeds.md, word for word where the papers' text is at hand."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "seeds.md"


def hook() -> ModuleType:
    """The manual's build hook (docs/hooks/reference.py), which finds the citations."""
    spec = importlib.util.spec_from_file_location(
        "manual_reference", ROOT / "docs" / "hooks" / "reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_cited_seed_line_is_quoted_in_the_manual() -> None:
    reference = hook()
    quoted = set(re.findall(r"\{#(seed-[^}]+)\}", PAGE.read_text()))
    cited = reference.citations(ROOT)
    assert len(cited) > 50  # the code cites the papers often: finding none would be the bug
    unquoted = {
        reference.seed_anchor(c): sorted(cited[c]) for c in cited if reference.seed_anchor(c) not in quoted
    }
    assert not unquoted, f"run `python docs/hooks/reference.py SEEDS_FOLDER > docs/seeds.md`: {unquoted}"


def test_a_citation_is_found_in_each_form_the_code_writes(tmp_path: Path) -> None:
    reference = hook()
    (tmp_path / "docs").mkdir()
    src = tmp_path / "src" / "plylab" / "clue"
    src.mkdir(parents=True)
    (tmp_path / "src" / "plylab" / "a.py").write_text("# seed 003 l.60; (003 l.174, l.324); 003 l.100-110\n")
    (src / "b.py").write_text('"""the paper fixes six players (l.82)"""\n')
    found = reference.citations(tmp_path)
    assert set(found) == {
        ("003", 60, 60),
        ("003", 174, 174),
        ("003", 324, 324),
        ("003", 100, 110),
        ("000", 82, 82),
    }


SEEDS = Path(os.environ.get("PLYLAB_SEEDS", ROOT.parent / "shared" / "seeds"))


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the seed papers' text is not at {SEEDS} (PLYLAB_SEEDS)")
def test_the_quotes_are_the_papers_lines() -> None:
    assert hook().quote_page(SEEDS) == PAGE.read_text()
