"""The manual's prompts page (docs/hooks/reference.py `prompts_page`) says the truth (issue 46, point 1):
the form it calls the default, and the paper's, is the one a new run asks (`seeds.LLM_PROMPT`, one
line `Action: <move>` as plybench asks), and a disguise's moves are listed sorted, not in cell order."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from plylab.seeds import LLM_PROMPT

HOOK = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "reference.py"


def prompts_page() -> str:
    spec = importlib.util.spec_from_file_location("manual_reference", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page: str = module.prompts_page()
    return page


def sections(page: str) -> dict[str, str]:
    """Each `## title` with the first code block under it."""
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r"^## (.+?)\n\n```text\n(.*?)\n```", page, re.DOTALL | re.MULTILINE)
    }


def test_the_page_calls_the_default_line_prompt_the_papers() -> None:
    assert LLM_PROMPT == "line"
    shown = sections(prompts_page())
    [paper] = [body for title, body in shown.items() if "paper's" in title]
    [named] = [title for title in shown if "paper's" in title]
    assert "default" in named and "`prompt=" not in named
    assert paper.endswith(
        "Action: <your move>\nwith the move written exactly as listed: the action only, no explanation."
    )
    [action] = [body for title, body in shown.items() if title == "`prompt=action`"]
    assert action.endswith("Reply with your move alone, written exactly as listed, and nothing else.")


def test_the_disguised_prompt_lists_its_numbers_sorted() -> None:
    [disguised] = [body for title, body in sections(prompts_page()).items() if "magic_square" in title]
    listed = disguised.split("Legal moves:\n", 1)[1].split("\n\n")[0].splitlines()
    assert listed == [f"- {n}" for n in range(1, 10)]  # not 2, 7, 6, 9, 5, 1, 4, 3, 8: the square's rows
