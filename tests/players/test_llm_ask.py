"""How the `llm` player asks beyond the paper's one prompt (issue 41): `legal=listed|hidden` (the
paper lists the legal moves, 003 l.425), `sample=majority:N` (N answers, the most frequent legal move
played, every answer stored) and `sample=rethink:N` (Game Arena's fresh re-ask naming the rejected
move), against scripted replies and, for what a run stores, a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import sqlite3

import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms.exploitability import exploitability

from plylab.analysis.stated import stated_exploitability
from plylab.errors import UserError
from plylab.games import get_game
from plylab.games.rules import MOVES, MOVES_UNLISTED
from plylab.players import Turn, make_player
from plylab.players.llm import build_prompt
from tests.players.test_llm import Script, act, scripted
from tests.support.fake_openai_server import Behaviour, FakeOpenAIServer


def prompt_for(spec: str, game: str, formulation: str = "standard") -> tuple[str, list[str]]:
    g = get_game(game)
    player = make_player(spec, g, 0)
    f = g.formulation(formulation)
    state = g.new_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    labels = list(f.legal_labels(state))
    turn = Turn(g, f, state, int(state.current_player()), 0, "j")
    o = player.options
    return build_prompt(turn, labels, o.output, 0, player.prompt, o.legal), labels


# -- legal=listed|hidden ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "game, formulation",
    [
        ("tic_tac_toe", "standard"),  # the list is the prompt's own
        ("kuhn_poker", "standard"),  # hidden information: the position lists the moves too
        ("checkers", "standard"),  # OpenSpiel's generic surface: its position lists them
        ("tic_tac_toe", "relabel"),  # a relabelling with its legend in the rules
    ],
)
def test_hidden_leaves_every_list_of_legal_moves_out(game, formulation) -> None:
    listed, labels = prompt_for("llm:model=local", game, formulation)
    hidden, _ = prompt_for("llm:model=local,legal=hidden", game, formulation)
    assert "Legal moves" in listed and all(f"- {x}" in listed for x in labels)
    assert "Legal moves" not in hidden and "as listed" not in hidden
    assert not any(f"- {x}\n" in hidden for x in labels)
    rules = listed.split("The current position:")[0]
    assert hidden.split("The current position:")[0] == rules.replace(MOVES, MOVES_UNLISTED)


def test_hidden_refuses_a_relabelling_whose_code_words_only_the_list_gives() -> None:
    with pytest.raises(UserError, match="code words are given only in each position's list"):
        prompt_for("llm:model=local,legal=hidden", "kuhn_poker", "relabel")


def test_listed_is_the_default_and_hidden_an_illegal_answer_still_fails() -> None:
    assert make_player("llm:model=local", get_game("nim"), 0).options.legal == "listed"
    player, turn, _ = scripted("llm:model=local,legal=hidden", "B2")  # B2 is taken
    d = act(player, turn)
    assert d.action is None and d.failure == "illegal"
    player, turn, f = scripted("llm:model=local,legal=hidden,on_failure=retry:1", "B2", "A1")
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["A1"]
    again = player.model.calls[1]["messages"][-1]["content"]
    assert "not a legal move" in again and "legal moves are" not in again  # the re-ask lists none


@pytest.mark.parametrize(
    "spec, message",
    [
        ("llm:legal=hidden,output=enum", "legal=hidden cannot go with output=enum"),
        ("llm:legal=some", "legal"),
        ("llm:sample=majority:1", "majority:n with n from 2"),
        ("llm:sample=vote:3", "expected one, majority:n"),
        ("llm:sample=majority:3,temperature=0", "at temperature=0 the n answers are one answer"),
        ("llm:sample=rethink:2,on_failure=retry:2", "two re-asking rules"),
    ],
)
def test_contradictory_or_bad_keys_are_one_line(spec, message) -> None:
    with pytest.raises(UserError, match=message) as err:
        make_player(spec, get_game("tic_tac_toe"), 0)
    assert "\n" not in str(err.value)


# -- sample=majority:N ------------------------------------------------------------------------


def test_the_majority_of_scripted_answers_is_played_and_every_answer_kept() -> None:
    player, turn, f = scripted("llm:model=local,sample=majority:3", "C3", "A1", "C3")
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["C3"] and d.failure is None
    assert [a.reply for a in d.attempts] == ["C3", "A1", "C3"]
    assert d.note["votes"] == {"C3": 2, "A1": 1} and d.note["answers"] == ["C3", "A1", "C3"]
    keys = [c["cache_key"] for c in player.model.calls]
    seeds = {c["config"].seed for c in player.model.calls}
    assert keys == ["job-7/1/0", "job-7/1/1", "job-7/1/2"] and len(seeds) == 3  # independent samples
    # the local model is greedy by default: majority samples it at 1.0 unless told otherwise
    assert {c["config"].temperature for c in player.model.calls} == {1.0}


def test_a_sample_that_fails_does_not_vote_and_a_tie_is_the_seeds() -> None:
    chosen = set()
    for seed in range(12):
        player, turn, f = scripted("llm:model=local,sample=majority:3", "A1", "B2", "C3", seed=seed)
        d = act(player, turn)  # B2 is taken: A1 and C3 tie with one vote each
        assert [a.failure for a in d.attempts] == [None, "illegal", None]
        assert d.note["answers"] == ["A1", None, "C3"]
        chosen.add(f.action_label(turn.state, d.action))
        player2, turn2, _ = scripted("llm:model=local,sample=majority:3", "A1", "B2", "C3", seed=seed)
        assert act(player2, turn2).action == d.action  # the same seed breaks the tie the same way
    assert chosen == {"A1", "C3"}


def test_no_legal_sample_is_a_failure_under_the_policy() -> None:
    player, turn, _ = scripted("llm:model=local,sample=majority:2", "B2", "nonsense words here")
    d = act(player, turn)
    assert d.action is None and d.failure == "unparseable" and len(d.attempts) == 2


@pytest.mark.slow
def test_a_run_stores_every_sample_and_counts_their_tokens(cli, tmp_path, monkeypatch) -> None:
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        # the first move: two of three samples say C3 (the server's own answer would be A1)
        server.queue(Behaviour(text="C3"), Behaviour(text="A1"), Behaviour(text="C3"))
        store = tmp_path / "s.sqlite"
        spec = "llm:model=openai-api/fake/m,sample=majority:3"
        args = ["run", "--game", "tic_tac_toe", "--player", spec, "--opponent", "random"]
        res = cli(*args, "--games", "1", "--seed", "3", "--store", str(store), "-q")
        assert res.code == 0, res.err
    conn = sqlite3.connect(store)
    rows = conn.execute(
        "SELECT ply, action_label, input_tokens, output_tokens, calls, attempts, note FROM moves "
        "WHERE attempts IS NOT NULL ORDER BY ply"
    ).fetchall()
    assert rows
    first = rows[0]
    assert first[0] == 0 and first[1] == "C3"
    for _, _, inp, out, calls, attempts, note in rows:
        kept = json.loads(attempts)
        assert len(kept) == 3 == calls and all(a.get("reply") for a in kept)
        assert (inp, out) == (3 * 50, 3 * 7)  # every sample's tokens count
        assert json.loads(note)["sample"] == "majority:3"
    assert [a["reply"] for a in json.loads(first[5])] == ["C3", "A1", "C3"]


# -- sample=rethink:N -------------------------------------------------------------------------


def test_rethink_asks_the_same_prompt_afresh_naming_the_rejected_move() -> None:
    player, turn, f = scripted("llm:model=local,sample=rethink:2", "B2", "what?\nno idea at all", "A1")
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["A1"]
    first, second, third = (c["messages"] for c in player.model.calls)
    assert len(second) == 1 == len(third)  # not a conversation: one fresh prompt each time
    assert second[0]["content"].startswith(first[0]["content"])
    assert "Your previously suggested move was: B2, which is an illegal move." in second[0]["content"]
    assert "Potential reason: 'B2' is not a legal move now" in second[0]["content"]
    assert "not parsable" in third[0]["content"] and "no idea at all" in third[0]["content"]
    assert "legal moves are" not in second[0]["content"]


def test_rethink_runs_out_then_the_policy() -> None:
    player, turn, _ = scripted("llm:model=local,sample=rethink:1,on_failure=random", "B2", "B2")
    d = act(player, turn)
    assert d.action is not None and d.failure == "illegal" and len(d.attempts) == 2


# -- output=distribution: a stated strategy ---------------------------------------------------


def kuhn_turn(spec: str, *replies: str, seed: int = 0):
    g = get_game("kuhn_poker")
    player = make_player(spec, g, seed)
    player.model = Script(*replies)
    state = g.new_state()
    state.apply_action(0)
    state.apply_action(1)  # Jack to the first seat, Queen to the second; the first seat to move
    return player, Turn(g, g.formulation("standard"), state, 0, 2, "job-k")


def test_a_stated_strategy_is_drawn_from_by_the_seed_and_stored() -> None:
    spec = "llm:model=local,output=distribution"
    player, turn = kuhn_turn(spec, '{"Pass": 1, "Bet": 0}')
    d = act(player, turn)
    assert d.action == 0 and d.note == {
        "distribution": {"Pass": 1.0, "Bet": 0.0},
        "by_action": {"0": 1.0, "1": 0.0},
    }
    schema = player.model.calls[0]["schema"]
    assert (
        schema["required"] == ["Bet", "Pass"]  # the legal moves as listed: sorted by name (issue 46)
        and "probability" in player.model.calls[0]["messages"][0]["content"]
    )
    drawn = set()
    for seed in range(16):
        player, turn = kuhn_turn(spec, '{"Pass": 0.5, "Bet": 0.5}', seed=seed)
        d = act(player, turn)
        again, turn2 = kuhn_turn(spec, '{"Pass": 0.5, "Bet": 0.5}', seed=seed)
        assert act(again, turn2).action == d.action  # the seed draws the move
        drawn.add(d.action)
    assert drawn == {0, 1}


@pytest.mark.parametrize(
    "reply",
    [
        '{"Fold": 1}',  # no such move
        '{"Pass": -1, "Bet": 2}',  # negative
        "Pass",  # no object
        '{"Pass": NaN, "Bet": 1}',  # not a number
        '{"Pass": Infinity, "Bet": 1}',
        '{"Pass": 1e999, "Bet": 1}',  # JSON's overflow to infinity
        '{"Pass": 1' + "0" * 400 + ', "Bet": 1}',  # an integer no float holds
        '{"Pass": 0, "Bet": 0}',  # nothing to draw from
        '{"Pass": true, "Bet": 0}',
    ],
    ids=["unknown", "negative", "no object", "nan", "infinity", "1e999", "10^400", "zero total", "bool"],
)
def test_an_unusable_strategy_is_a_failure(reply) -> None:
    player, turn = kuhn_turn("llm:model=local,output=distribution", reply)
    d = act(player, turn)
    assert d.action is None and d.failure == "unparseable"


def test_a_stated_strategy_whose_numbers_overflow_their_sum_is_half_and_half() -> None:
    """`{"Pass": 1e308, "Bet": 1e308}` summed to infinity: every weight 0 and `ValueError: Total of
    weights must be greater than zero` out of the run (issue 47 point 2). Divided by the largest
    first, it is the strategy it says, and the note keeps the sum it gave."""
    player, turn = kuhn_turn("llm:model=local,output=distribution", '{"Pass": 1e308, "Bet": 1e308}')
    d = act(player, turn)
    assert d.action in (0, 1) and d.failure is None
    assert d.note["distribution"] == {"Pass": 0.5, "Bet": 0.5}
    assert d.note["stated_sum"] == "more than 1.798e+308"  # strict JSON: no Infinity in the store


def test_a_stated_strategy_not_summing_to_one_is_rescaled_and_says_so() -> None:
    player, turn = kuhn_turn("llm:model=local,output=distribution", '{"Pass": 1, "Bet": 3}')
    d = act(player, turn)
    assert d.note["distribution"] == {"Pass": 0.25, "Bet": 0.75} and d.note["stated_sum"] == 4
    player, turn = kuhn_turn("llm:model=local,output=distribution", '{"Pass": 0.25, "Bet": 0.75}')
    assert "stated_sum" not in act(player, turn).note  # summing to 1: nothing to say


@pytest.mark.slow
def test_a_run_of_stated_strategies_that_overflow_or_fail_finishes_and_so_does_its_rerun(
    cli, tmp_path, monkeypatch
) -> None:
    """The run died on the first such reply, and the cached reply killed every re-run: a store that
    could never finish. Now an overflowing one is played, an unusable one is the model's failure
    under its policy, and the same command again reads every reply back from the cache."""
    replies = ['{"Pass": 1e308, "Bet": 1e308}', '{"Pass": NaN, "Bet": 1}', '{"Pass": -1, "Bet": 1}']
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        server.queue(*[Behaviour(text=replies[i % 3]) for i in range(60)])
        store = tmp_path / "s.sqlite"
        spec = "llm:model=openai-api/fake/m,output=distribution,on_failure=random"
        args = ["run", "--game", "kuhn_poker", "--player", spec, "--opponent", "random", "--games", "6"]
        first = cli(*args, "--store", str(store), "-q")
        assert first.code == 0 and "6/6 games saved" in first.out, first.err
        asked = len(server.requests)
        again = cli(*args, "--store", str(store), "--run", "again", "-q")
        assert again.code == 0 and "6/6 games saved" in again.out, again.err
        assert len(server.requests) == asked  # every reply from the cache
    conn = sqlite3.connect(store)
    kinds = {r[0] for r in conn.execute("SELECT failure_kind FROM moves WHERE player LIKE 'llm%'")}
    conn.close()
    assert {None, "unparseable"} <= kinds


@pytest.mark.slow
def test_a_suite_run_of_stated_strategies_that_overflow_or_fail_finishes_and_so_does_its_rerun(
    cli, tmp_path, monkeypatch
) -> None:
    """`suite run` died on `{"Pass": 1e308, "Bet": 1e308}` as `run` did, and on every re-run."""
    suite = tmp_path / "k.jsonl"
    assert cli("suite", "build", "k", "--game", "kuhn_poker", "-n", "4", "--out", str(suite)).code == 0
    replies = ['{"Pass": 1e308, "Bet": 1e308}', '{"Pass": NaN, "Bet": 1}']
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        server.queue(*[Behaviour(text=replies[i % 2]) for i in range(8)])
        args = ["suite", "run", str(suite), "--player", "llm:model=openai-api/fake/m,output=distribution"]
        done = cli(*args, "--store", str(tmp_path / "s.sqlite"), "-q")
        assert done.code == 0 and "4/4" in done.out, done.err
        asked = len(server.requests)
        again = cli(*args, "--store", str(tmp_path / "s.sqlite"), "-q")
        assert again.code == 0 and len(server.requests) == asked, again.err


def test_the_uniform_stated_strategy_has_openspiels_uniform_exploitability() -> None:
    """Asked at each of Kuhn's 12 information sets, always (1/2, 1/2): 0.4583, OpenSpiel's figure for
    its uniform policy; always Pass is another strategy, with another exploitability."""
    g = get_game("kuhn_poker")
    uniform = make_player("llm:model=local,output=distribution", g, 0)
    uniform.model = Script(*['{"Pass": 0.5, "Bet": 0.5}'] * 12)
    stated = stated_exploitability(uniform, g, g.formulation("standard"))
    assert (stated.infosets, stated.uniform) == (12, 0) and len(uniform.model.calls) == 12
    assert stated.exploitability == pytest.approx(0.4583, abs=5e-5)
    passive = make_player("llm:model=local,output=distribution", g, 0)
    passive.model = Script(*['{"Pass": 1, "Bet": 0}'] * 12)
    assert stated_exploitability(passive, g, g.formulation("standard")).exploitability > 0.6


class ByCard(Script):
    """Bets only with the King: a strategy that depends on what the prompt shows."""

    async def generate(self, messages, *, schema=None, config=None, cache_key=None, cache=None):
        king = "Your card: King" in messages[-1]["content"]
        self.replies = ['{"Pass": 0, "Bet": 1}' if king else '{"Pass": 1, "Bet": 0}']
        return await super().generate(
            messages, schema=schema, config=config, cache_key=cache_key, cache=cache
        )


def test_each_information_set_gets_its_own_answer() -> None:
    g = get_game("kuhn_poker")
    player = make_player("llm:model=local,output=distribution", g, 0)
    player.model = ByCard()
    got = stated_exploitability(player, g, g.formulation("standard"))
    expected = os_policy.TabularPolicy(g.engine)
    for key in expected.state_lookup:  # OpenSpiel's information state starts with the card: 2 is King
        expected.policy_for_key(key)[:] = [0.0, 1.0] if key.startswith("2") else [1.0, 0.0]
    assert got.exploitability == pytest.approx(exploitability(g.engine, expected))
    assert got.strategy["2"] == {0: 0.0, 1: 1.0} and got.strategy["0"] == {0: 1.0, 1: 0.0}


@pytest.mark.slow
def test_the_report_prices_the_stated_distribution_beside_the_drawn_move(cli, tmp_path, monkeypatch) -> None:
    """Always (1/2, 1/2) in Kuhn poker: the stated distribution's loss is the mean over informative
    decisions of half of each move's loss, read back from the stored grades."""
    from plylab.oracles.graded import Grade

    with FakeOpenAIServer() as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        server.queue(*[Behaviour(text='{"Pass": 0.5, "Bet": 0.5}') for _ in range(40)])
        store = tmp_path / "s.sqlite"
        spec = "llm:model=openai-api/fake/m,output=distribution"
        args = ["run", "--game", "kuhn_poker", "--player", spec, "--opponent", "equilibrium"]
        res = cli(*args, "--games", "8", "--seed", "1", "--store", str(store), "-q")
        assert res.code == 0, res.err
    conn = sqlite3.connect(store)
    rows = conn.execute(
        "SELECT grade, note FROM moves WHERE note IS NOT NULL AND grade IS NOT NULL"
    ).fetchall()
    grades = [Grade.from_json(g) for g, _ in rows]
    expected = [(g.loss(0) + g.loss(1)) / 2 for g in grades if g.informative]
    assert expected and all(json.loads(n)["by_action"] == {"0": 0.5, "1": 0.5} for _, n in rows)
    report = cli("report", "--store", str(store), "--format", "json")
    assert report.code == 0, report.err
    (row,) = json.loads(report.out)["matchups"]
    stated = row["equilibrium"]["stated_loss"]
    assert stated["n"] == len(expected) and stated["mean"] == pytest.approx(sum(expected) / len(expected))
    table = cli("report", "--store", str(store), "--table", "equilibrium", "--format", "csv")
    assert "stated distribution's loss" in table.out.splitlines()[0]
