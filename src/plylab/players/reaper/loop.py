"""The planner-executor decision loop (Memento's, kept by Baseline and REAPER).

The planner emits a plan (subtasks) or a final answer with an action intent; the executor
solves a plan's subtasks one at a time, each seeing the results before it; then the planner
goes again, for at most `iterations` rounds (3 in the paper, seed 003 l.381). Structured variants
exchange JSON; the Original exchanges prose, parsed by pattern. An unparseable message, or no
final answer within the budget, is a failure (CallFailed), as in the paper: a plan on the last
round fails the move at once (no round is left to use its results). `force_final` (opt-in, not
the paper's) makes the last round's schema admit only a final answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from . import prompts, schemas
from .calls import Caller


class PlanRound(TypedDict):
    """One planner round as a move's note keeps it: the plan's subtasks and the executor's results."""

    plan: list[str]
    results: list[str]


@dataclass(frozen=True)
class LoopShape:
    structured: bool  # JSON messages (else prose)
    legal_only: bool  # the final answer is an enum of the legal moves
    iterations: int = 3
    subtasks: int = 3
    force_final: bool = False  # the last round may only answer (not the paper's protocol)


@dataclass
class Outcome:
    answer: str
    intent: str
    trace: list[PlanRound] = field(default_factory=list)


async def decide(caller: Caller, s: prompts.Situation, key: str, shape: LoopShape) -> Outcome:
    """Run the loop for one move; CallFailed(kind) when it ends without a usable final answer."""
    steps: list[tuple[str, str]] = []
    trace: list[PlanRound] = []
    for it in range(shape.iterations):
        last = it == shape.iterations - 1
        final_only = shape.structured and shape.force_final and last
        messages = prompts.planner_messages(
            s, steps, structured=shape.structured, final_only=final_only, subtasks=shape.subtasks
        )
        schema = None
        if shape.structured:
            schema = schemas.planner_schema(
                s.legal if shape.legal_only else None, shape.subtasks, final_only=final_only
            )
        reply = _read_planner(
            caller, await caller.ask("planner", messages, schema, f"{key}/planner/{it}"), shape
        )
        if isinstance(reply, schemas.Final):
            return Outcome(reply.answer, reply.intent, trace)
        plan = reply[: shape.subtasks]
        if last:
            trace.append({"plan": plan, "results": []})
            break
        done: list[tuple[str, str]] = []
        for j, sub in enumerate(plan):
            messages = prompts.executor_messages(s, plan, done, sub, structured=shape.structured)
            text = await caller.ask(
                "executor",
                messages,
                schemas.EXECUTOR_SCHEMA if shape.structured else None,
                f"{key}/executor/{it}/{j}",
            )
            done.append((sub, _read_executor(caller, text, shape.structured)))
        steps += done
        trace.append({"plan": plan, "results": [r for _, r in done]})
    raise caller.fail("no_final_answer", f"no final answer within {shape.iterations} planner iterations")


def _read_planner(caller: Caller, text: str, shape: LoopShape) -> schemas.Final | list[str]:
    try:
        return (
            schemas.read_planner(text, shape.subtasks)
            if shape.structured
            else prompts.read_prose_planner(text)
        )
    except ValueError as exc:
        raise caller.fail("unparseable", f"planner: {exc}") from None


def _read_executor(caller: Caller, text: str, structured: bool) -> str:
    if not structured:
        return text.strip()
    try:
        return schemas.read(schemas.ExecutorResult, text).result
    except ValueError as exc:
        raise caller.fail("unparseable", f"executor: {exc}") from None
