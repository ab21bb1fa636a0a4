"""REAPER's decision loop and learning hook with scripted replies: the planner-executor protocol,
failure kinds, retries, the game buffer, reflection labels and the rule schedule. (The real
local model plays the same code end to end in tests/learning.)"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable

import pytest

from plylab.harness.plan import GameJob, Matchup
from plylab.harness.session import play_game
from plylab.models import GenerateConfig, ModelError, Reply, Usage
from plylab.players import RunContext
from plylab.players.reaper import CaseMemory, lend_memory
from plylab.players.reaper import player as player_module
from plylab.players.reaper.calls import Caller, CallFailed
from plylab.players.reaper.loop import LoopShape, decide
from plylab.players.reaper.prompts import Situation

Script = Callable[[str, list[dict[str, str]], dict | None], str]


class Scripted:
    """A stand-in model: replies come from a function of (cache key, messages, schema).

    A reply starting with CUT is returned as cut off at max_tokens (the rest is its text).
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls: list[tuple[str, list[dict[str, str]], dict | None]] = []
        self.configs: list[GenerateConfig | None] = []

    async def generate(self, messages, *, schema=None, config=None, cache_key=None, cache=None) -> Reply:
        self.calls.append((cache_key, messages, schema))
        self.configs.append(config)
        text = self.script(cache_key, messages, schema)
        if text == "":
            raise ModelError("empty", "no text", reply=Reply(text="", usage=Usage(input_tokens=7)))
        stop = "max_tokens" if text.startswith("CUT") else "stop"
        return Reply(
            text=text.removeprefix("CUT"), usage=Usage(input_tokens=10, output_tokens=3), stop_reason=stop
        )


def legal(messages: list[dict[str, str]]) -> list[str]:
    return re.search(r"Legal moves: (.+)", messages[-1]["content"]).group(1).split(", ")


def final(move: str, intent: str = "win") -> str:
    return json.dumps({"kind": "final", "answer": move, "intent": intent})


SITUATION = Situation("Rules.", "X", "  A B C\n1 . . .", ["A1", "B2"])


def caller(model: Scripted) -> Caller:
    return Caller(
        {c: model for c in ("planner", "executor", "reflector", "extractor", "descriptor")},
        GenerateConfig(),
        None,
        0,
    )


def run(model: Scripted, shape: LoopShape, situation: Situation = SITUATION):
    c = caller(model)
    try:
        return asyncio.run(decide(c, situation, "job/0/0", shape)), c.take()
    except CallFailed as exc:
        return exc, c.take()


def test_plan_then_executor_then_final_answer():
    def script(key, messages, schema):
        if key.endswith("planner/0"):
            return json.dumps({"kind": "plan", "subtask_1": "find threats", "subtask_2": "pick a cell"})
        if "/executor/" in key:
            return json.dumps({"result": f"result of {key[-3:]}"})
        return final("B2", "take the centre")

    model = Scripted(script)
    outcome, attempts = run(model, LoopShape(True, True, iterations=3, subtasks=2))
    assert (outcome.answer, outcome.intent) == ("B2", "take the centre")
    assert outcome.trace == [
        {"plan": ["find threats", "pick a cell"], "results": ["result of 0/0", "result of 0/1"]}
    ]
    keys = [k for k, _, _ in model.calls]
    assert keys == ["job/0/0/planner/0", "job/0/0/executor/0/0", "job/0/0/executor/0/1", "job/0/0/planner/1"]
    assert "result of 0/0" in model.calls[2][1][-1]["content"]  # the executor sees earlier results
    assert "result of 0/1" in model.calls[3][1][-1]["content"]  # and so does the planner's next round
    assert model.calls[0][2]["anyOf"][0]["properties"]["answer"]["enum"] == ["A1", "B2"]
    assert len(attempts) == 4 and sum(a.output_tokens for a in attempts) == 12


def test_no_final_answer_within_three_iterations_is_a_failure():
    """Seed 003 l.381: the last round is not forced; a plan there fails the move (no executor runs)."""

    def script(key, messages, schema):
        if "executor" in key:
            return json.dumps({"result": "r"})
        return json.dumps({"kind": "plan", "subtask_1": "x"})

    model = Scripted(script)
    error, attempts = run(model, LoopShape(True, False))
    assert isinstance(error, CallFailed) and error.kind == "no_final_answer"
    planner = [(k, s) for k, _, s in model.calls if "planner" in k]
    assert len(planner) == 3 and all("anyOf" in s for _, s in planner)  # a plan stays admissible
    assert not any("executor/2" in k for k, _, _ in model.calls)
    assert attempts[-1].failure == "no_final_answer"


def test_the_player_default_loop_is_free_and_unforced(scripted):
    """A reaper player built from its defaults: free-string answers, three unforced rounds."""
    model = scripted(
        lambda k, m, s: (
            json.dumps({"kind": "plan", "subtask_1": "x"}) if "planner" in k else json.dumps({"result": "r"})
        )
    )
    rec = play("reaper:model=local", 0, RunContext())
    assert rec.outcome == "failure" and rec.failure_kind == "no_final_answer"
    schemas_seen = [s for k, _, s in model.calls if "planner" in k]
    assert len(schemas_seen) == 3 and all("anyOf" in s for s in schemas_seen)
    assert schemas_seen[0]["anyOf"][0]["properties"]["answer"]["type"] == "string"
    assert "enum" not in schemas_seen[0]["anyOf"][0]["properties"]["answer"]


def test_the_last_round_admits_only_a_final_answer_when_forced():
    def script(key, messages, schema):
        if "executor" in key:
            return json.dumps({"result": "r"})
        return json.dumps({"kind": "plan", "subtask_1": "x"}) if "anyOf" in schema else final("A1")

    model = Scripted(script)
    outcome, _ = run(model, LoopShape(True, False, iterations=2, subtasks=1, force_final=True))
    assert outcome.answer == "A1"
    assert "anyOf" in model.calls[0][2] and model.calls[-1][2]["properties"]["kind"]["enum"] == ["final"]
    assert model.calls[-1][2]["properties"]["answer"] == {"type": "string", "description": "the move to play"}


@pytest.mark.parametrize(
    ("shape", "script", "kind"),
    [
        (
            LoopShape(False, False, iterations=2),
            lambda k, m, s: "PLAN:\n1. think" if "planner" in k else "ok",
            "no_final_answer",
        ),
        (
            LoopShape(True, True),
            lambda k, m, s: '{"kind": "final", "answer": "B2", "intent": ',
            "unparseable",
        ),
        (LoopShape(True, True), lambda k, m, s: "", "empty"),
        (LoopShape(False, False), lambda k, m, s: "I like the centre.", "unparseable"),
    ],
)
def test_failures_are_classified(shape, script, kind):
    error, attempts = run(Scripted(script), shape)
    assert isinstance(error, CallFailed) and error.kind == kind
    assert attempts[-1].failure == kind  # the failing attempt carries the kind (no_final_answer too)


def test_prose_messages_of_the_original():
    model = Scripted(
        lambda k, m, s: (
            "PLAN:\n1. look"
            if k.endswith("planner/0")
            else "Done: the centre."
            if "executor" in k
            else "FINAL ANSWER: b2\nINTENT: centre"
        )
    )
    outcome, _ = run(model, LoopShape(False, False))
    assert (outcome.answer, outcome.intent) == ("b2", "centre") and all(s is None for _, _, s in model.calls)


# -- the player in a game ------------------------------------------------------------------


def reflection(messages: list[dict[str, str]]) -> str:
    moves = len(re.findall(r"^Move \d+\.", messages[-1]["content"], re.MULTILINE))
    return json.dumps(
        {
            **{
                f"move_{i}": {
                    "quality": "sound" if i == 1 else "unsound",
                    "contribution": "neutral" if i == 1 else "hurt",
                    "intent_achieved": i == 1,
                    "lesson": f"lesson {i}",
                }
                for i in range(1, moves + 1)
            },
            "turning_point": moves,
        }
    )


def game_script(key: str, messages: list[dict[str, str]], schema: dict | None) -> str:
    if key.endswith("/reflect"):
        return reflection(messages)
    if key.endswith("rules"):
        return json.dumps({"rule_1": "Take the centre.", "rule_2": "", "rule_3": "Block open lines."})
    return final(legal(messages)[0], "first legal cell")


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch):
    def install(script: Script) -> Scripted:
        model = Scripted(script)
        monkeypatch.setattr(player_module, "get_model", lambda name: model)
        return model

    return install


def play(spec: str, idx: int, context: RunContext, games: int = 2):
    return asyncio.run(
        play_game(GameJob(Matchup("tic_tac_toe", "standard", spec, "optimal"), idx, games, 0), context)
    )


@pytest.mark.model  # case memory embeds with the real sentence encoder
def test_learning_game_writes_reflected_cases_and_rules_every_period(tmp_path, scripted):
    model = scripted(game_script)
    spec = "reaper:model=local,rule_period=2,max_rules=3"
    memory = tmp_path / "m.sqlite"
    context = RunContext()
    lend_memory(context.extra, spec, memory, learn=True)
    rec = play(spec, 0, context)
    mine = [m for m in rec.moves if m.seat == 0]
    mem = CaseMemory.open(memory, frozen=True)
    cases = mem.cases()
    assert [c.action for c in cases] == [m.action_label for m in mine] and rec.outcome == "loss"
    assert [c.label for c in cases] == ["positive"] + ["negative"] * (len(cases) - 1)  # sound move, lost game
    assert cases[-1].reflection["turning_point"] and cases[0].reflection["lesson"] == "lesson 1"
    assert all(c.reward == -1.0 and c.source == rec.job_key for c in cases)
    reflect_prompt = next(m for k, m, _ in model.calls if k.endswith("/reflect"))[-1]["content"]
    assert "Intent: first legal cell" in reflect_prompt
    # The opponent won with the game's last move: the reflector is told every reply, that one included.
    theirs = [m for m in rec.moves if m.seat == 1]
    assert rec.moves[-1].seat == 1 and reflect_prompt.count("Opponent replied: ") == len(mine)
    assert f"Opponent replied: {theirs[-1].action_label}" in reflect_prompt
    assert "The game ended with this move" not in reflect_prompt
    assert mem.rules() == [] and mem.games_learned == 1  # rule_period=2: not yet
    play(spec, 1, context)
    mem = CaseMemory.open(memory, frozen=True)
    assert mem.rules() == ["Take the centre.", "Block open lines."] and mem.games_learned == 2
    assert [u["kind"] for u in mem.conn.execute("SELECT kind FROM updates")] == [
        "reflect",
        "reflect",
        "rules",
    ]
    # the extractor saw every case of both games (l.154), not a recent window
    extract_prompt = next(m for k, m, _ in model.calls if k.endswith("rules"))[-1]["content"]
    assert extract_prompt.count("in a game the agent") == len(mem.cases())
    assert all(c.effort == "medium" for c in model.configs)  # the REAPER study's effort (l.162)
    # reflection and rule extraction are not cut short: the paper states no cap (l.51, D.2)
    updates = [c for (k, _, _), c in zip(model.calls, model.configs) if k.endswith(("/reflect", "rules"))]
    assert updates and all(c.max_tokens is None for c in updates)


def test_reflection_and_extraction_have_no_token_cap_unless_named():
    from plylab.players.reaper.options import ReaperOptions

    assert ReaperOptions().update_max_tokens is None  # l.51, D.2: no cap stated
    assert ReaperOptions(update_max_tokens=1024).update_max_tokens == 1024  # the named key keeps one


@pytest.mark.model  # case memory embeds with the real sentence encoder
def test_truncated_or_partial_reflections_are_logged_as_failures(tmp_path, scripted):
    def script(key, messages, schema):
        if key.endswith("/reflect"):
            judged = json.loads(reflection(messages))
            judged["move_2"] = None  # one move unjudged
            return json.dumps(judged)
        return game_script(key, messages, schema)

    scripted(script)
    spec = "reaper:model=local,rules=off"
    memory = tmp_path / "m.sqlite"
    context = RunContext()
    lend_memory(context.extra, spec, memory, learn=True)
    play(spec, 0, context)
    scripted(lambda k, m, s: "CUT" + reflection(m) if k.endswith("/reflect") else game_script(k, m, s))
    play(spec, 1, context)
    mem = CaseMemory.open(memory, frozen=True)
    assert [u["failure"] for u in mem.conn.execute("SELECT failure FROM updates ORDER BY id")] == [
        "partial",
        "truncated",
    ]


@pytest.mark.model  # case memory embeds with the real sentence encoder
def test_evaluation_reads_memory_without_learning(tmp_path, scripted):
    model = scripted(game_script)
    spec = "cbr:model=local"
    memory = tmp_path / "m.sqlite"
    learn_ctx = RunContext()
    lend_memory(learn_ctx.extra, spec, memory, learn=True)
    play(spec, 0, learn_ctx)
    before = memory.read_bytes()
    eval_ctx = RunContext()
    lend_memory(eval_ctx.extra, spec, memory, learn=False)
    rec = play(spec, 0, eval_ctx)
    assert memory.read_bytes() == before and not any(k.endswith("/reflect") for k, _, _ in model.calls)
    first = next(m for m in rec.moves if m.seat == 0)
    note, attempts = json.loads(first.note), json.loads(first.attempts)
    assert note["retrieved"][0]["similarity"] == pytest.approx(1.0, abs=1e-5)
    assert note["recall"] is True  # D.4.1: the stored state was retrieved for itself
    assert "Mistakes to avoid" in attempts[0]["prompt"]  # a lost game's moves, without reflection


def test_retry_shows_the_error_and_random_falls_back(tmp_path, scripted):
    def script(key, messages, schema):
        return final("Z9") if key.endswith("/0/planner/0") else final(legal(messages)[-1])

    scripted(script)
    rec = play("reaper:model=local,answer=free,on_failure=retry:1", 0, RunContext())
    first = rec.moves[0]
    assert first.action is not None and first.failure_kind is None and first.calls == 2
    attempts = json.loads(first.attempts)
    assert "not accepted" in attempts[1]["prompt"] and attempts[0]["failure"] == "unparseable"

    scripted(lambda k, m, s: final("Z9"))
    rec = play("reaper:model=local,answer=free,on_failure=random", 0, RunContext())
    assert (
        rec.outcome != "failure"
        and rec.moves[0].failure_kind == "unparseable"
        and json.loads(rec.moves[0].note)["fallback"] == "random"
    )
    rec = play("reaper:model=local,answer=free", 0, RunContext())
    assert rec.outcome == "failure" and rec.failure_kind == "unparseable"


@pytest.mark.model  # case memory embeds with the real sentence encoder
def test_descriptor_mode_keys_retrieval_by_the_description(tmp_path, scripted):
    def script(key, messages, schema):
        if key.endswith("/descriptor"):
            empty = messages[-1]["content"].split("to move):")[1].count(".")
            return json.dumps({"description": f"{empty} empty cells"})
        return game_script(key, messages, schema)

    model = scripted(script)
    spec = "reaper:model=local,descriptor=on,rules=off"
    context = RunContext()
    lend_memory(context.extra, spec, tmp_path / "m.sqlite", learn=True)
    play(spec, 0, context)
    cases = CaseMemory.open(tmp_path / "m.sqlite", frozen=True).cases()
    assert all(c.key.endswith(" empty cells") and c.observation.startswith("  A B C") for c in cases)
    assert len({c.key for c in cases}) == len(cases)
    planner = next(m for k, m, _ in model.calls if k.endswith("planner/0"))
    assert f"In words: {cases[0].key}" in planner[-1]["content"]
