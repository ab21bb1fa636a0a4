"""`clue-llm`: reply parsing and failure paths with scripted replies; a real local-model game."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time

import pytest

from plylab.clue.engine import load
from plylab.clue.players import make_clue_player
from plylab.clue.prompts import parse_reply, reply_schema
from plylab.errors import ParseError
from plylab.models import ModelError, Reply, Usage
from tests.support.clue import clue_games, clue_turns


class Scripted:
    """Stands in for a model's replies (allowed for parsing and failure paths, never for behaviour)."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls = []

    async def generate(self, messages, *, schema=None, config=None, cache_key=None, cache=None):
        self.calls.append({"messages": messages, "schema": schema, "key": cache_key})
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, Reply):
            return reply
        return Reply(text=reply, usage=Usage(input_tokens=100, output_tokens=20), latency=0.5)


def a_view(players=4, turns=6, seed=0):
    game = load(players=players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    state.deal_randomly(rng)
    for _ in range(turns):
        state.apply_action(game.suggest_action(rng.choice(game.deck.triples)))
        if state.pending is not None:
            state.apply_action(state.show_options()[0])
    return game, state.view(state.current)


def decide(spec, *replies, view=None):
    _, v = view or a_view()
    player = make_clue_player(spec, v.me, 1)
    player.model = Scripted(*replies)
    return player, asyncio.run(player.act(v))


GOOD = json.dumps(
    {
        "action": "suggest",
        "suspect": "Mr. Green",
        "weapon": "Rope",
        "room": "Hall",
        "envelope": {"suspect": "Mr. Green", "weapon": "unknown", "room": "Hall"},
        "known": [
            {"card": "Knife", "holder": "Player 2"},
            {"card": "Study", "holder": "envelope"},
            {"card": "Nope", "holder": "Player 9"},
        ],
    }
)


def test_good_reply_becomes_action_and_deductions():
    player, d = decide("clue-llm:model=local,matrix=on", GOOD)
    deck = load().deck
    assert d.kind == "suggest" and d.cards == (
        deck.index("Mr. Green"),
        deck.index("Rope"),
        deck.index("Hall"),
    )
    assert d.deductions.envelope == {0: deck.index("Mr. Green"), 1: None, 2: deck.index("Hall")}
    assert d.deductions.known == {
        deck.index("Knife"): 1,
        deck.index("Study"): 4,
    }  # the unreadable entry is dropped
    assert d.call.failure is None and d.call.input_tokens == 100 and d.call.reply == GOOD
    assert d.ready is False
    prompt = json.loads(d.call.prompt)
    assert "Possibility matrix" in prompt[1]["content"]
    assert player.model.calls[0]["schema"] == reply_schema(deck, 4)


def test_matrix_replaces_the_history_unless_named():
    """000 l.138 ("shorter context"), l.56: the matrix stands in for the natural-language history."""
    _, d = decide("clue-llm:model=local,matrix=on", GOOD)
    content = json.loads(d.call.prompt)[1]["content"]
    assert "Possibility matrix" in content and "What has happened:" not in content
    assert "Your cards:" in content and "Now: turn" in content
    _, d = decide("clue-llm:model=local,matrix=on,history=on", GOOD)
    content = json.loads(d.call.prompt)[1]["content"]
    assert "Possibility matrix" in content and "What has happened:" in content


def test_reply_cap_is_large_enough_and_a_cut_reply_is_marked():
    from plylab.clue.base import TRUNCATED

    player, d = decide("clue-llm:model=local", GOOD)
    assert player.options.max_tokens == 16384 and player.options.temperature == 0.0
    cut = Reply(text=GOOD[:40], usage=Usage(output_tokens=400), stop_reason="max_tokens")
    _, d = decide("clue-llm:model=local", cut)
    assert d.kind == "pass" and d.call.failure == "unparseable" and TRUNCATED in d.call.error


def test_baseline_prompt_has_history_but_no_matrix():
    _, d = decide("clue-llm:model=local", GOOD)
    content = json.loads(d.call.prompt)[1]["content"]
    assert "Possibility matrix" not in content and "What has happened:" in content and d.ready is None


@pytest.mark.parametrize(
    "reply,kind",
    [
        ("", "empty"),
        ("I think it was the butler", "unparseable"),
        ("[1, 2]", "unparseable"),
        (json.dumps({"action": "dance"}), "illegal"),
        (json.dumps({"action": "accuse", "suspect": "Rope", "weapon": "Rope", "room": "Hall"}), "illegal"),
        (json.dumps({"action": "suggest", "suspect": "Mr. Green", "weapon": "Rope"}), "illegal"),
    ],
)
def test_bad_replies_are_recorded_passes(reply, kind):
    _, d = decide("clue-llm:model=local", reply)
    assert d.kind == "pass" and d.cards is None and d.call.failure == kind and d.call.reply == reply


def test_a_provider_failure_leaves_the_game_unfinished_or_is_a_recorded_pass_when_asked():
    from plylab.errors import ProviderFailure

    with pytest.raises(ProviderFailure) as failure:
        decide("clue-llm:model=local", ModelError("timeout", "too slow"))
    assert failure.value.kind == "timeout" and "too slow" in failure.value.message
    _, d = decide("clue-llm:model=local,on_provider_failure=pass", ModelError("timeout", "too slow"))
    assert d.kind == "pass" and d.call.failure == "timeout" and "too slow" in d.call.error and d.call.prompt


def test_parse_reply_accepts_code_fences_and_pass():
    deck = load().deck
    assert parse_reply('```json\n{"action": "pass"}\n```', deck, 6).kind == "pass"
    with pytest.raises(ParseError) as err:
        parse_reply(
            '{"action": "accuse", "suspect": "Colonel Mustard", "weapon": "Knife", "room": "Garage"}', deck, 6
        )
    assert err.value.kind == "illegal"


@pytest.mark.model
@pytest.mark.slow  # minutes on a shared 2-core machine (each call runs the real model)
def test_local_model_game_is_recorded(tmp_path, cli):
    """A real game with the embedded model in two seats (one with the matrix), under the turn limit."""
    store = tmp_path / "llm.sqlite"
    specs = [
        "clue-llm:model=local,matrix=on,max_tokens=160",
        "clue-llm:model=local,matrix=off,max_tokens=160",
        "clue-matrix",
    ]
    args = [
        "clue",
        "run",
        *[x for s in specs for x in ("-p", s)],
        "--games",
        "1",
        "--turn-limit",
        "9",
        "--seed",
        "3",
        "--store",
        str(store),
        "-q",
    ]
    start = time.time()
    res = cli(*args)
    assert res.code == 0, res.err
    [game] = clue_games(store)
    seats = game["seats"]
    llm = [i for i, s in enumerate(seats) if s.startswith("clue-llm")]
    turns = [t for t in clue_turns(store) if t["seat"] in llm]
    with sqlite3.connect(store) as conn:
        cached = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    assert 1 <= game["turns"] <= 9 and game["end_reason"] in ("solved", "turn_limit", "all_out")
    assert turns, "the model seats played no turn"
    for t in turns:
        assert t["prompt"] and (t["reply"] is not None or t["failure_kind"] is not None)
        if t["failure_kind"] is None:
            assert t["action"] in ("suggest", "accuse", "pass") and t["input_tokens"] > 0
    assert cached == sum(1 for t in turns if t["reply"])
    res = cli(*args)  # resuming replays nothing
    assert res.code == 0 and "(0 played now, 1 already there)" in res.out
    print(f"local-model game: {len(turns)} model turns in {time.time() - start:.0f}s")
