"""Prompt text for every component. Structured variants ask for JSON; the Original asks for prose.

Retrieved cases appear by their per-move label: positive ones as examples to emulate, the rest
as mistakes to avoid (for REAPER the label comes from the reflection, so a sound move from a
lost game is still an example; without reflection it is the terminal reward, as in Baseline).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from .memory import Case
from .retrieval import Retrieved
from .schemas import Final, Reflection

Messages = list[dict[str, str]]
OUTCOME = {1.0: "won", 0.0: "drew", -1.0: "lost"}


def _indent(text: str, by: str = "    ") -> str:
    return textwrap.indent(text, by)


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(items, 1))


def outcome_word(reward: float) -> str:
    return OUTCOME.get(reward, "won" if reward > 0 else "lost" if reward < 0 else "drew")


CONTRIBUTION = {
    "helped": "helped the result",
    "hurt": "hurt the result",
    "neutral": "did not change the result",
}


def review(reflection: Reflection) -> str:
    return (
        f"{reflection['quality']} move that {CONTRIBUTION.get(reflection['contribution'], 'mattered')}; "
        f"lesson: {reflection['lesson']}"
    )


def render_case(case: Case, *, with_reward: bool) -> str:
    lines = [f"- Position:\n{_indent(case.observation)}", f"  Move played: {case.action}"]
    if case.intent:
        lines.append(f"  Intent: {case.intent}")
    if with_reward:
        lines.append(f"  Reward: {case.reward:+g} (the game was {outcome_word(case.reward)})")
    else:
        lines.append(f"  Game result: {outcome_word(case.reward)}")
    if case.reflection:
        lines.append(f"  Review: {review(case.reflection)}")
    return "\n".join(lines)


@dataclass
class Situation:
    """What the planner knows at one move."""

    rules_text: str  # the game's rules
    seat: str
    observation: str
    legal: list[str]
    learned_rules: list[str] = field(default_factory=list)
    cases: list[Retrieved] = field(default_factory=list)
    description: str | None = None
    feedback: str | None = None  # why the previous try at this move was rejected (on_failure=retry:N)


def _memory_block(s: Situation, *, prose: bool) -> str:
    parts = []
    if s.learned_rules:
        parts.append("Strategic rules learned from experience:\n" + _numbered(s.learned_rules))
    good = [r.case for r in s.cases if r.case.positive]
    bad = [r.case for r in s.cases if not r.case.positive]
    if good:
        parts.append(
            "Examples to emulate (similar past positions):\n"
            + "\n".join(render_case(c, with_reward=prose) for c in good)
        )
    if bad:
        parts.append(
            "Mistakes to avoid (similar past positions):\n"
            + "\n".join(render_case(c, with_reward=prose) for c in bad)
        )
    return "\n\n".join(parts)


def planner_messages(
    s: Situation, steps: Sequence[tuple[str, str]], *, structured: bool, final_only: bool, subtasks: int
) -> Messages:
    system = (
        f"You are the planner of an agent playing a game. {s.rules_text}\nYou play as {s.seat}. On each turn "
        f"you either write a short plan (at most {subtasks} analysis subtasks that an executor answers for "
        "you) "
        "or give the final answer: the move to play, with its intent."
    )
    parts = [f"Position:\n{s.observation}"]
    if s.description:
        parts.append(f"In words: {s.description}")
    parts.append(f"Legal moves: {', '.join(s.legal)}")
    memory = _memory_block(s, prose=not structured)
    if memory:
        parts.append(memory)
    if s.feedback:
        parts.append(f"Your previous answer was not accepted: {s.feedback}")
    if steps:
        parts.append("Results of your plan so far:\n" + "\n".join(f"- {q}\n  -> {a}" for q, a in steps))
    if structured:
        ask = (
            'Reply with JSON: {"kind": "final", "answer": <one legal move>, "intent": <one sentence>}'
            if final_only
            else 'Reply with JSON: either your move, {"kind": "final", "answer": <one legal move>, "intent": '
            '<one sentence>}, or a plan, {"kind": "plan", "subtask_1": <short subtask>'
            + "".join(f', "subtask_{i}": <subtask or "">' for i in range(2, subtasks + 1))
            + "}"
        )
    else:
        ask = (
            "Reply either with a plan, written as\nPLAN:\n1. <subtask>\n2. <subtask>\n"
            "or with your move, written as\nFINAL ANSWER: <move>\nINTENT: <what the move should achieve>"
        )
    parts.append(ask)
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def executor_messages(
    s: Situation, plan: Sequence[str], done: Sequence[tuple[str, str]], subtask: str, *, structured: bool
) -> Messages:
    system = f"You are the executor of an agent playing a game. {s.rules_text}\nYou play as {s.seat}."
    parts = [f"Position:\n{s.observation}", f"Legal moves: {', '.join(s.legal)}", "Plan:\n" + _numbered(plan)]
    if done:
        parts.append("Subtasks already solved:\n" + "\n".join(f"- {q}\n  -> {a}" for q, a in done))
    parts.append(f"Your subtask: {subtask}")
    parts.append('Answer briefly, as JSON: {"result": <answer>}' if structured else "Answer briefly.")
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def descriptor_messages(rules_text: str, seat: str, observation: str) -> Messages:
    return [
        {"role": "system", "content": f"You describe game positions. {rules_text}"},
        {
            "role": "user",
            "content": (
                f"Position ({seat} to move):\n{observation}\n\n"
                "Describe the position in two or three plain sentences: "
                'material, threats and opportunities for both sides. Reply as JSON: {"description": <text>}'
            ),
        },
    ]


@dataclass
class Step:
    """One of the agent's moves in a finished game, as the reflector sees it."""

    observation: str
    action: str
    intent: str
    reply: str | None  # the opponent's answer, None when the game ended first


def reflector_messages(rules_text: str, seat: str, steps: Sequence[Step], result: str) -> Messages:
    moves = []
    for i, st in enumerate(steps, 1):
        after = f"Opponent replied: {st.reply}" if st.reply else "The game ended with this move."
        moves.append(
            f"Move {i}.\nPosition:\n{_indent(st.observation)}\n"
            f"You played: {st.action}\nIntent: {st.intent or '-'}\n{after}"
        )
    user = (
        f"You played as {seat}. Result: {result}.\n\nYour moves:\n\n" + "\n\n".join(moves) + "\n\n"
        "For each of your moves judge: quality (was it sound when it was played, whatever the "
        "result), contribution (did it help, hurt, or not matter for the final result), whether it "
        "achieved its intent, and a short lesson for future play. Name the turning point (the move "
        "number that decided the game, 0 if none). Reply as JSON with one entry per move "
        '("move_1", "move_2", ...), then "turning_point".'
    )
    return [
        {"role": "system", "content": f"You review finished games to learn from them. {rules_text}"},
        {"role": "user", "content": user},
    ]


def extractor_messages(
    rules_text: str, current: Sequence[str], cases: Sequence[Case], max_rules: int
) -> Messages:
    lines = []
    for c in cases:
        judged = f"; judged a {review(c.reflection)}" if c.reflection else ""
        lines.append(
            f"- {c.action} in a game the agent {outcome_word(c.reward)} ({c.label}){judged}\n"
            + _indent(c.observation)
        )
    user = (
        ("Current rules:\n" + _numbered(current) if current else "There are no rules yet.")
        + "\n\nNew experience since the last update:\n"
        + "\n".join(lines)
        + "\n\n"
        f"Write the updated rule set: at most {max_rules} rules, each a general strategic principle "
        "that applies to many positions, never a statement about one particular position. Prefer rules "
        "supported by several cases or by clear win/loss patterns; merge overlapping rules, sharpen "
        "vague ones and drop rules the new experience contradicts. Reply as JSON: "
        f'{{"rule_1": <rule>, ..., "rule_{max_rules}": <rule>}}, leaving unused rules empty ("").'
    )
    return [
        {
            "role": "system",
            "content": f"You distil strategic rules for playing a game from experience. {rules_text}",
        },
        {"role": "user", "content": user},
    ]


def read_prose_planner(text: str) -> Final | list[str]:
    """The Original's reply: a final answer, or a plan's subtasks; ValueError otherwise."""
    final = re.search(r"FINAL ANSWER\s*:\s*(.+)", text, re.IGNORECASE)
    if final:
        intent = re.search(r"INTENT\s*:\s*(.+)", text, re.IGNORECASE)
        return Final(
            kind="final", answer=final.group(1).strip(), intent=intent.group(1).strip() if intent else ""
        )
    plan = re.search(r"PLAN\s*:\s*\n(.+)", text, re.IGNORECASE | re.DOTALL)
    steps = re.findall(r"^\s*\d+[.)]\s*(.+)$", plan.group(1), re.MULTILINE) if plan else []
    if steps:
        return [t.strip() for t in steps]
    raise ValueError("no 'FINAL ANSWER:' line and no 'PLAN:' with numbered subtasks")
