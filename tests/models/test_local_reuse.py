"""Prefix reuse on the local model changes the time, never the reply (issue 29).

Whole games of the `llm` player with the kept prompt blocks on, then off (every prompt evaluated
from an empty cache): the same replies, the same token counts, move for move, at temperature 0
and at temperature 1 with a fixed seed, for the label choice (`output=enum`) and for a reply
decoded under a grammar (`output=json`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import numpy as np
import pytest

from plylab.games import get_game
from plylab.models.local import LocalEngine
from plylab.players import Turn, make_player

pytestmark = pytest.mark.model


@pytest.fixture
def engine(local_model) -> Iterator[LocalEngine]:
    engine = LocalEngine.shared()
    yield engine
    engine.decoder.prefix_reuse = True


def play(spec: str, seed: int) -> list[tuple[str | None, int, int]]:
    """One tic-tac-toe game of `spec` against a random player: each model reply and its tokens."""
    return asyncio.run(game_of(spec, seed))


async def game_of(spec: str, seed: int) -> list[tuple[str | None, int, int]]:
    game = get_game("tic_tac_toe")
    f = game.formulation("standard")
    llm, rival = make_player(spec, game, seed), make_player("random", game, seed + 1)
    state, ply, out = game.new_state(), 0, []
    while not state.is_terminal():
        seat = state.current_player()
        turn = Turn(game, f, state.clone(), seat, ply, f"reuse-{seed}")
        d = await (llm if seat == 0 else rival).act(turn)
        if seat == 0:
            out.extend((a.reply, a.input_tokens, a.output_tokens) for a in d.attempts)
        if d.action is None:
            break
        state.apply_action(d.action)
        ply += 1
    return out


@pytest.mark.parametrize(
    "spec",
    [
        "llm:model=local,output=enum",
        "llm:model=local,output=enum,temperature=1",
        "llm:model=local,output=json,temperature=1,max_tokens=24,on_failure=random",
    ],
)
def test_kept_prompt_blocks_change_no_reply(engine: LocalEngine, spec: str) -> None:
    engine.decoder.prefix_reuse = True
    kept = play(spec, seed=5)
    assert engine.last.reused_tokens > 0  # the rules were not evaluated again
    engine.decoder.prefix_reuse = False
    cold = play(spec, seed=5)
    assert engine.last.reused_tokens == 0
    assert len(kept) >= 3 and kept == cold


def test_concurrent_games_share_the_model_and_keep_their_replies(engine: LocalEngine) -> None:
    """Two games at once queue for the one model, their calls interleaved: each game's replies are
    those it has alone (the kept blocks then come from the other game's prompts, too)."""
    spec = "llm:model=local,output=enum,temperature=1"

    async def both() -> list[list[tuple[str | None, int, int]]]:
        return list(await asyncio.gather(game_of(spec, 7), game_of(spec, 8)))

    together = asyncio.run(both())
    assert together == [play(spec, 7), play(spec, 8)]


def test_kept_blocks_give_the_cold_logits_bit_for_bit(engine: LocalEngine) -> None:
    d, llama = engine.decoder, engine._llama
    rules = "Tic-tac-toe is played on a 3x3 grid; three in a row wins. " * 4
    first = list(llama.tokenize(f"{rules} Position one.".encode(), add_bos=True))
    second = list(llama.tokenize(f"{rules} Position two, X in the centre.".encode(), add_bos=True))
    other = list(llama.tokenize(b"Something else entirely, " * 20, add_bos=True))
    d.prefix_reuse = True
    d.evaluate(first)
    d.evaluate(second)  # the blocks of `first` still in place
    assert d.timings.reused_tokens >= 64
    in_place = d.logits(-1)
    d.evaluate(other)
    d.evaluate(first)
    d.evaluate(other)
    d.evaluate(second)  # the blocks of `first` restored from its saved state
    assert d.timings.reused_tokens >= 64
    restored = d.logits(-1)
    d.prefix_reuse = False
    d.evaluate(second)
    assert np.array_equal(in_place, d.logits(-1)) and np.array_equal(restored, d.logits(-1))


def test_one_scoring_batch_gives_each_labels_own_log_probability(engine: LocalEngine) -> None:
    """The trie batch (labels as sequences sharing the prompt and first tokens) scores each label as
    evaluating it alone, token after token, does, to the rounding of other batch shapes: llama.cpp
    quantizes activations per batch for Q4_K weights and picks kernels by batch size and CPU, which moved
    a label by up to 0.19 nats on an AMD EPYC build (0.05 on an earlier Intel one). A label scored on
    the wrong prefix moves by several nats, and the order of the labels must not move at all."""
    from plylab.models.choice import continuations, score

    d, llama = engine.decoder, engine._llama
    prompt = list(llama.tokenize(b"Piles: 1, 3, 5, 7. Choose a move.", add_bos=True))
    labels = ["pile 1, take 1", "pile 2, take 3", "pile 2, take 1", "pass"]
    fixed = list(llama.tokenize(b'{"action": "', add_bos=False))
    conts = continuations(llama, labels, '"')  # plain labels: JSON-escaped as they are
    d.evaluate(prompt)
    batch = score(d, conts, fixed, len(prompt))
    d.remove(-1, len(prompt))
    alone = []
    for cont in conts:
        total, seen = 0.0, prompt + fixed
        for token in cont:
            d.evaluate(seen)
            row = d.logits(-1).astype(np.float64)
            total += row[token] - (row.max() + np.log(np.exp(row - row.max()).sum()))
            seen = seen + [token]
        alone.append(total)
    assert np.allclose(batch, alone, atol=0.3), (batch, alone)
    assert list(np.argsort(batch)) == list(np.argsort(alone)), (batch, alone)


def test_the_thread_count_changes_no_reply(engine: LocalEngine) -> None:
    """Threads are chosen per call by the free cores (`free_cores`): one and two give the same game."""
    spec = "llm:model=local,output=enum,temperature=1"
    try:
        engine.fixed_threads = 1
        one = play(spec, seed=9)
        assert engine.threads == 1
        engine.fixed_threads = 2
        two = play(spec, seed=9)
        assert engine.threads == 2
    finally:
        engine.fixed_threads = None
    assert len(one) >= 3 and one == two


def test_a_kept_prefix_survives_prompts_longer_than_the_sliding_window(engine: LocalEngine) -> None:
    """Gemma 3 attends over the last 512 positions in 5 of its 6 layers, and llama.cpp may overwrite
    a sequence's cells that fell out of that window. A prompt that keeps all but a few tokens of a
    long one, then one that keeps only its start, must still see the start's own cells."""
    d, llama = engine.decoder, engine._llama
    rules = list(
        llama.tokenize(b"Tic-tac-toe is played on a 3x3 grid; three in a row wins. " * 40, add_bos=True)
    )
    assert len(rules) > 600
    long, other = rules[:600], list(llama.tokenize(b"Something else entirely, " * 20, add_bos=True))
    nearly = rules[:576] + list(llama.tokenize(b" Position two, X in the centre.", add_bos=False))
    short = rules[:224] + list(llama.tokenize(b" Position three, O in a corner.", add_bos=False))
    d.prefix_reuse = False
    d.evaluate(short)
    cold = d.logits(-1)
    d.prefix_reuse = True
    for tokens in (long, other, nearly):  # `nearly` restores the state saved after `long`
        d.evaluate(tokens)
    d.evaluate(short)
    assert d.timings.reused_tokens == 224
    assert np.array_equal(d.logits(-1), cold)
