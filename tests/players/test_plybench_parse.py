"""plylab's default text prompt and parser against the paper's own code (PyPI `plybench` 3.0.5,
`player/output_strategies.py`): the same one-line `Action:` format asked, and every reply read to the
same move as `TextStrategy.extract` reads it (plybench runs in its side venv: tests.support.plybench).
"""

from __future__ import annotations

import random

import pytest

from plylab.errors import ParseError
from plylab.games import get_game
from plylab.players import Turn, make_player
from plylab.players.llm import build_prompt, extract_answer
from tests.support.plybench import SKIP, in_plybench

pytestmark = SKIP

# Run in the side venv: plybench's own extractor on every reply, and its text prompt.
SIDE = """
import json, sys
from plybench.player.output_strategies import TextStrategy
s = TextStrategy()
replies = json.load(sys.stdin)
json.dump({"actions": [s.extract(r).action for r in replies], "prompt": s.output_prompt("<your move>")}, sys.stdout)
"""


def plybench_reads(replies: list[str]) -> tuple[list[str | None], str]:
    """plybench's `TextStrategy.extract(reply).action` for each reply, and its `output_prompt`."""
    out = in_plybench(SIDE, list(replies))
    assert isinstance(out, dict) and isinstance(out["actions"], list) and isinstance(out["prompt"], str)
    return [a if isinstance(a, str) else None for a in out["actions"]], out["prompt"]


def plylab_reads(reply: str) -> str | None:
    """plylab's default rule, written as plybench writes its result: `<move>`, or None."""
    try:
        move, _ = extract_answer(reply, "text")
    except ParseError:
        return None
    return f"<{move}>"


# Reply shapes a model writes: the asked form, its slips, explanations before and after, labels in
# other cases and in markdown, empty and blank replies, other line endings and whitespace.
CORPUS = [
    "Action: <C1R1>",
    "Action: C1R1",
    "C1R1",
    "<C1R1>",
    "  Action:   <pile:1, take:2>  \n\n",
    "I take the centre.\nAction: <B2>",
    "Action: <A1>\nBecause corners are strong.",
    "action: A1",
    "ACTION: A1",
    "**Action:** A1",
    "Action: `A1`",
    "Action:A1",
    "Action: <<A1>>",
    "Action: A1.",
    "",
    "   \n \t \n",
    "Action:",
    "Action: <>",
    "Action:   ",
    "ANSWER: A1",
    "Move: A1",
    "Action: Action: A1",
    " Action: A1",
    "\tAction:\tA1\t",
    "I think\r\nAction: A1\r\n",
    "Thinking...\u2028Action: A1",
    "Thinking...\x0bAction: A1",
    "Action: pile 1, take 2",
    "The answer is A1.",
    "Action: <C1R1>, e.g., <C1R1>, <C3R3>",
    "Action: <your move>",
    "Action\uff1aA1",
    "\u00a0Action: A1\u00a0",
    "Action: A1\n\n\n",
    "```\nAction: A1\n```",
    "Action: <A1>\nAction: <B2>",
    "<Action: A1>",
    "Action:\n<A1>",
    "Action: <a> <b>",
    "Action: \u2003<A1>\u2003",
    "Action: 😀",
    "Action: " + "x" * 5000,
]

FRAGMENTS = [
    "Action:",
    "action:",
    "ANSWER:",
    "<",
    ">",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\u2028",
    "\u00a0",
    "A1",
    "B2",
    "x",
    ".",
]


def random_corpus(n: int, seed: int = 0) -> list[str]:
    """Replies stitched from the fragments the rule turns on, many of them in the wrong places."""
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 12))) for _ in range(n)]


@pytest.mark.parametrize("corpus", ["shapes", "random"])
def test_plylab_reads_every_reply_as_plybench_does(corpus: str) -> None:
    replies = CORPUS if corpus == "shapes" else random_corpus(3000)
    theirs, _ = plybench_reads(replies)
    differ = [(r, p, plylab_reads(r)) for r, p in zip(replies, theirs, strict=True) if plylab_reads(r) != p]
    assert differ == []
    if corpus == "shapes":  # the corpus holds both outcomes: a move read, and none
        assert None in theirs and "<B2>" in theirs


@pytest.mark.slow
def test_the_default_prompt_states_plybenchs_one_line_format() -> None:
    """plybench asks for `Action: <format>` on a line of its own, the action only, no explanation;
    plylab's default prompt asks for the same line (the format its legal moves as listed)."""
    _, theirs = plybench_reads([])
    game = get_game("tic_tac_toe")
    f = game.formulation("standard")
    state = game.new_state()
    player = make_player("llm:model=local", game, 0)
    ours = build_prompt(
        Turn(game, f, state, 0, 0, "j"), list(f.legal_labels(state)), "text", 0, player.prompt
    )
    assert "Action: <your move>" in theirs.splitlines() and "Action: <your move>" in ours.splitlines()
    assert "action only, no explanation" in theirs and "action only, no explanation" in ours
    assert "ANSWER" not in ours
