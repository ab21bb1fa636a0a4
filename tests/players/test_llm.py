"""The single-call LLM player: the real local model plays whole games; scripted replies drive
the parsing and failure paths; a loopback HTTP server stands in for a hosted model."""

from __future__ import annotations

import asyncio
import json

import pytest

from plylab.errors import ParseError, UserError
from plylab.games import get_game
from plylab.harness.store import Store
from plylab.models import ModelError, Reply, ResponseCache, Usage
from plylab.models.model import LOCAL_DEFAULTS
from plylab.players import RunContext, Turn, make_player
from plylab.players.llm import build_prompt, extract_answer, move_schema, policy_of
from tests.support.cli import run_args

# -- a game loop, as the harness drives it ------------------------------------------------------


async def play(
    game_name: str, specs: list[str], seed: int = 0, context: RunContext | None = None, job="job-1"
):
    """Play to the end (or a forfeit); returns (final state, [(seat, decision)])."""
    game = get_game(game_name)
    formulation = game.formulation("standard")
    players = [make_player(spec, game, seed + seat, context) for seat, spec in enumerate(specs)]
    state, log = game.new_state(), []
    try:
        while not state.is_terminal():
            seat = state.current_player()
            decision = await players[seat].act(Turn(game, formulation, state.clone(), seat, len(log), job))
            log.append((seat, decision))
            if decision.action is None:
                break
            assert decision.action in state.legal_actions()
            state.apply_action(decision.action)
    finally:
        for p in players:
            p.close()
    return state, log


def llm_moves(log):
    return [d.action for seat, d in log if d.attempts]


# -- the real local model -----------------------------------------------------------------------

# Gemma 270M is a base model: free text mostly fails, so these games opt in to constrained decoding.
LOCAL = "llm:model=local,output=enum,temperature=0,max_tokens=24"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A real run store, as a run gives a player: its cache lives in the store's `responses` table."""
    path = tmp_path_factory.mktemp("llm") / "store.sqlite"
    Store(path).close()
    return path


@pytest.fixture(scope="module")
def played(store):
    """One game of each, the local model first against optimal, replies cached in `store`."""
    context = RunContext(store_path=store, cache=ResponseCache.open(store))
    return {
        g: asyncio.run(play(g, [LOCAL, "optimal"], seed=3, context=context, job=f"{g}-A"))
        for g in ("tic_tac_toe", "nim", "connect_four")
    }


@pytest.mark.model
@pytest.mark.parametrize("game", ["tic_tac_toe", "nim", "connect_four"])
def test_local_model_plays_whole_games_against_optimal_without_failures(played, game):
    state, log = played[game]
    assert state.is_terminal()
    mine = [d for seat, d in log if seat == 0]
    assert mine and all(d.failure is None and d.action is not None for d in mine)
    for d in mine:
        (attempt,) = d.attempts
        assert attempt.failure is None and attempt.prompt and attempt.reply and not attempt.cached
        assert attempt.input_tokens > 0 and attempt.output_tokens > 0 and attempt.latency > 0
        assert json.loads(attempt.reply)["action"]
    assert state.returns()[0] <= 0  # Gemma 270M does not beat a perfect player


@pytest.mark.model
def test_two_runs_at_temperature_zero_give_identical_moves(played):
    """A second run, with no cache at all, replays the first move for move."""
    _, first = played["tic_tac_toe"]
    _, second = asyncio.run(play("tic_tac_toe", [LOCAL, "optimal"], seed=3))
    assert [d.action for _, d in second] == [d.action for _, d in first]
    assert [d.attempts[0].reply for _, d in second if d.attempts] == [
        d.attempts[0].reply for _, d in first if d.attempts
    ]


@pytest.mark.model
def test_a_rerun_is_served_from_the_cache_and_another_game_is_not(played, store):
    context = RunContext(store_path=store, cache=ResponseCache.open(store))
    for game, (_, first) in played.items():
        _, again = asyncio.run(play(game, [LOCAL, "optimal"], seed=3, context=context, job=f"{game}-A"))
        assert [d.action for _, d in again] == [d.action for _, d in first]
        assert all(a.cached for _, d in again for a in d.attempts)
    # the same opening prompt in another game job is a fresh sample
    game = get_game("tic_tac_toe")
    player = make_player(LOCAL, game, 3, context)
    d = asyncio.run(
        player.act(Turn(game, game.formulation("standard"), game.new_state(), 0, 0, "tic_tac_toe-B"))
    )
    assert d.attempts and not d.attempts[0].cached


@pytest.mark.model
def test_without_a_context_cache_the_player_opens_the_store(played, store):
    before = len(ResponseCache.open(store))
    game = get_game("tic_tac_toe")
    player = make_player(LOCAL, game, 0, RunContext(store_path=store))
    state = game.new_state()
    asyncio.run(player.act(Turn(game, game.formulation("standard"), state, 0, 0, "tic_tac_toe-C")))
    player.close()
    assert len(ResponseCache.open(store)) == before + 1


# -- scripted replies: parsing and failure policies --------------------------------------------


class Script:
    """Stands in for a Model: returns (or raises) the queued replies and records each request."""

    is_local = False

    def __init__(self, *replies: str | ModelError) -> None:
        self.replies = list(replies)
        self.calls: list[dict] = []

    async def generate(self, messages, *, schema=None, config=None, cache_key=None, cache=None):
        self.calls.append(
            {
                "messages": [dict(m) for m in messages],
                "schema": schema,
                "cache_key": cache_key,
                "config": config,
            }
        )
        item = self.replies.pop(0)
        if isinstance(item, ModelError):
            raise item
        if isinstance(item, Reply):
            return item
        return Reply(text=item, usage=Usage(input_tokens=100, output_tokens=9, cost=0.002), latency=0.25)


def scripted(spec: str, *replies, game="tic_tac_toe", seed=0):
    g = get_game(game)
    player = make_player(spec, g, seed)
    player.model = Script(*replies)
    f = g.formulation("standard")
    state = g.new_state()
    state.apply_action(4)  # X took B2; O to move
    return player, Turn(g, f, state, 1, 1, "job-7"), f


def act(player, turn):
    return asyncio.run(player.act(turn))


def test_enum_reply_becomes_the_move_with_its_usage():
    player, turn, f = scripted("llm:model=local,output=enum", '{"action": "A1"}')
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["A1"] and d.failure is None
    (a,) = d.attempts
    assert (a.input_tokens, a.output_tokens, a.cost, a.latency, a.cached) == (100, 9, 0.002, 0.25, False)
    call = player.model.calls[0]
    assert call["cache_key"] == "job-7/1/0"
    assert call["schema"]["properties"]["action"]["enum"] == list(f.legal_labels(turn.state))
    assert "B2" not in call["schema"]["properties"]["action"]["enum"]


def test_the_default_is_the_papers_free_answer():
    """No schema, no enum: the model writes its move, and an illegal one is a failure (seed 003 l.74)."""
    player, turn, f = scripted("llm:model=local", "Action: <c3>")
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["C3"]
    assert player.model.calls[0]["schema"] is None
    assert "Action: <your move>" in player.model.calls[0]["messages"][0]["content"]
    player, turn, _ = scripted("llm:model=local", "Action: B2")  # B2 is taken
    d = act(player, turn)
    assert d.action is None and d.failure == "illegal"


def test_json_output_is_structured_but_the_action_a_free_string():
    player, turn, _ = scripted("llm:model=local,output=json", '{"action": "B2"}')
    d = act(player, turn)
    schema = player.model.calls[0]["schema"]
    assert schema["properties"]["action"] == {"type": "string"}
    assert d.action is None and d.failure == "illegal"  # the failure channel stays open


def test_text_output_extracts_the_answer_line():
    player, turn, f = scripted("llm:model=local,prompt=reason", "Corners are strong.\n**ANSWER: c3**")
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["C3"]
    assert player.model.calls[0]["schema"] is None
    assert "ANSWER: <your move>" in player.model.calls[0]["messages"][0]["content"]


@pytest.mark.parametrize(
    "reply, kind",
    [("I like corners", "unparseable"), ("Action: B2", "illegal"), ("Action: D9", "unparseable")],
)
def test_forfeit_is_the_default(reply, kind):
    player, turn, _ = scripted("llm:model=local,output=text", reply)
    d = act(player, turn)
    assert d.action is None and d.failure == kind
    assert d.attempts[0].failure == kind and d.attempts[0].reply == reply and d.attempts[0].error


@pytest.mark.parametrize(
    "error, kind",
    [
        (ModelError("timeout", "attempt_timeout exceeded"), "timeout"),
        (ModelError("rate_limit", "429"), "provider_error"),
        (ModelError("provider_error", "HTTP 500"), "provider_error"),
        (ModelError("unreachable", "connection refused"), "provider_error"),
        (ModelError("empty", "no text", reply=Reply(text="", usage=Usage(output_tokens=24))), "empty"),
    ],
)
def test_model_errors_are_failures_of_their_kind(error, kind):
    """Under the old policy (on_provider_failure=forfeit) every error is the move's failure, of its kind."""
    player, turn, _ = scripted("llm:model=local,on_provider_failure=forfeit", error)
    d = act(player, turn)
    assert d.action is None and d.failure == kind
    assert d.attempts[0].error == error.message and d.attempts[0].prompt
    # A reply that came back (empty) still cost its tokens; a call that failed cost none.
    assert d.attempts[0].output_tokens == (0 if error.reply is None else 24)


@pytest.mark.parametrize(
    "error, provider",
    [
        (ModelError("timeout", "attempt_timeout exceeded"), True),
        (ModelError("rate_limit", "429"), True),
        (ModelError("provider_error", "HTTP 500"), True),
        (ModelError("connection", "reset"), True),
        (ModelError("unreachable", "connection refused"), True),
        (ModelError("empty", "no text", reply=Reply(text="", usage=Usage(output_tokens=24))), False),
        (ModelError("bad_reply", "not JSON"), False),
    ],
)
def test_by_default_only_the_providers_failures_leave_the_move_undecided(error, provider):
    """F is what the model answered (seed 003 l.202): an empty or unusable reply is the move's failure,
    a provider's failure raises, so the game is left unfinished rather than forfeited."""
    from plylab.errors import ProviderFailure

    player, turn, _ = scripted("llm:model=local", error)
    if provider:
        with pytest.raises(ProviderFailure) as raised:
            act(player, turn)
        assert raised.value.kind == error.kind
    else:
        assert act(player, turn).failure == error.kind


def test_retry_reasks_with_the_error_shown():
    player, turn, f = scripted(
        "llm:model=local,output=json,on_failure=retry:2", '{"action": "B2"}', '{"action": "A3"}'
    )
    d = act(player, turn)
    assert d.action == f.legal_labels(turn.state)["A3"] and d.failure is None
    assert [a.failure for a in d.attempts] == ["illegal", None]
    second = player.model.calls[1]
    assert second["cache_key"] == "job-7/1/1"
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert second["messages"][1]["content"] == '{"action": "B2"}'
    assert "not a legal move" in second["messages"][2]["content"]
    assert second["config"].seed != player.model.calls[0]["config"].seed
    assert d.attempts[1].prompt == second["messages"][2]["content"]


def test_retry_after_a_transport_failure_asks_the_same_question():
    player, turn, _ = scripted(
        "llm:model=local,output=json,on_failure=retry:1", ModelError("timeout", "slow"), '{"action": "A1"}'
    )
    d = act(player, turn)
    assert d.action is not None and [a.failure for a in d.attempts] == ["timeout", None]
    assert player.model.calls[1]["messages"] == player.model.calls[0]["messages"]


def test_retries_run_out_then_forfeit():
    player, turn, _ = scripted(
        "llm:model=local,output=json,on_failure=retry:2", "nope", "{}", '{"action": "B2"}'
    )
    d = act(player, turn)
    assert d.action is None and d.failure == "illegal"
    assert [a.failure for a in d.attempts] == ["unparseable", "unparseable", "illegal"]


def test_random_policy_plays_a_legal_move_and_records_why():
    moves = set()
    for seed in range(6):
        player, turn, _ = scripted("llm:model=local,on_failure=random", "gibberish", seed=seed)
        d = act(player, turn)
        assert d.action in turn.state.legal_actions() and d.failure == "unparseable"
        assert d.note == {"fallback": "random"} and len(d.attempts) == 1
        moves.add(d.action)
    assert len(moves) > 1  # from the player's seeded stream, not a fixed choice
    again, turn, _ = scripted("llm:model=local,on_failure=random", "gibberish", seed=0)
    first, turn0, _ = scripted("llm:model=local,on_failure=random", "gibberish", seed=0)
    assert act(again, turn).action == act(first, turn0).action


@pytest.mark.parametrize(
    "spec, message",
    [
        ("llm:on_failure=sometimes", "on_failure"),
        ("llm:on_failure=retry:0", "on_failure"),
        ("llm:output=xml", "output"),
        ("llm:effort=extreme", "effort"),
        ("llm:temperature=-1", "temperature"),
        ("llm:colour=red", "unknown option 'colour'"),
        ("llm:model=gpt-5", "unknown model 'gpt-5'"),
    ],
)
def test_bad_specs_are_one_clear_error(spec, message):
    with pytest.raises(UserError, match=message):
        make_player(spec, get_game("nim"), 0)


def test_policies():
    assert policy_of("forfeit") == ("forfeit", 0)
    assert policy_of("random") == ("random", 0)
    assert policy_of("retry:3") == ("retry", 3)


# -- the adapter ----------------------------------------------------------------------------------


def test_prompt_has_rules_position_and_every_legal_move():
    game = get_game("nim")
    f = game.formulation("standard")
    state = game.new_state()
    labels = list(f.legal_labels(state))
    prompt = build_prompt(Turn(game, f, state, 0, 0, "j"), labels, "json", 0)
    assert f.rules() in prompt and f.render_state(state) in prompt
    assert all(f"- {label}\n" in prompt + "\n" for label in labels)
    assert '"reasoning"' not in prompt
    assert '"reasoning"' in build_prompt(Turn(game, f, state, 0, 0, "j"), labels, "json", 300)


def test_schema_puts_reasoning_before_the_move():
    schema = move_schema(["1", "2"], 300)
    assert list(schema["properties"]) == ["reasoning", "action"]
    assert schema["required"] == ["reasoning", "action"]
    assert schema["properties"]["reasoning"]["maxLength"] == 300
    assert list(move_schema(["1"], 0)["properties"]) == ["action"]


@pytest.mark.parametrize(
    "text, output, prompt, answer",
    [
        ('{"reasoning": "centre", "action": "B2"}', "json", "line", "B2"),
        ('```json\n{"action": "pile 2, take 3"}\n```', "json", "line", "pile 2, take 3"),
        ('Sure! {"action": 4}', "json", "line", "4"),
        ("Action: A1", "text", "line", "A1"),
        ("I think...\n\nAction: <pile 2, take 3>\n\n", "text", "line", "pile 2, take 3"),
        ("B2", "text", "line", "B2"),
        ("Action: B1\nwait, no: B3", "text", "line", "wait, no: B3"),  # the last line, as plybench reads
        ("I think...\nANSWER: A1", "text", "reason", "A1"),
        ("answer: `C3`", "text", "action", "C3"),
        ("ANSWER: B1\nwait, no.\nANSWER: B3", "text", "reason", "B3"),
        ("B2", "text", "action", "B2"),
    ],
)
def test_answers_are_extracted(text, output, prompt, answer):
    assert extract_answer(text, output, prompt)[0] == answer


@pytest.mark.parametrize(
    "text, output, prompt, error",
    [
        ("not json", "json", "line", "JSON object"),
        ('{"move": "A1"}', "json", "line", "JSON object"),
        ('{"action": null}', "json", "line", "JSON object"),
        (" \n\t\n", "text", "line", "last line names no move"),
        ("I think...\nAction: <>", "text", "line", "last line names no move"),
        ("I would play the centre because it is strong.", "text", "action", "not the move alone"),
        ("I would play the centre because it is strong.", "text", "reason", "no line of the form 'ANSWER"),
    ],
)
def test_unanswered_replies_do_not_parse(text, output, prompt, error):
    """Each rule's failure names what its prompt asked for (never `ANSWER:` where it was not asked)."""
    with pytest.raises(ParseError, match=error):
        extract_answer(text, output, prompt)


def test_a_reply_cut_off_at_max_tokens_says_so():
    cut = Reply(
        text='{"reasoning": "let me think about', stop_reason="max_tokens", usage=Usage(output_tokens=24)
    )
    player, turn, _ = scripted("llm:model=local,output=json,max_tokens=24", cut)
    d = act(player, turn)
    assert d.failure == "unparseable" and "cut off at max_tokens=24" in d.attempts[0].error
    assert player.model.calls[0]["config"].max_tokens == 24


def test_a_local_reply_cut_at_the_default_cap_names_it():
    """Gemma 270M may echo the prompt until the local model's default cap (256 tokens) cuts it: the
    failure names the cap, so the key to raise is in the message."""
    echo = "We are playing tic-tac-toe on a 3x3 grid. Columns are A, B, C (left"
    player, turn, _ = scripted("llm:model=local", Reply(text=echo, stop_reason="max_tokens", usage=Usage()))
    player.model.defaults = LOCAL_DEFAULTS  # the local model's own, as `get_model("local")` has them
    d = act(player, turn)
    assert d.failure == "unparseable" and d.attempts[0].error.endswith(
        "(the reply was cut off at max_tokens=256)"
    )


def test_a_json_reasoning_field_is_reply_not_trace():
    """The trace is the provider's reasoning only: recognition on traces must not count reply text."""
    player, turn, _ = scripted(
        "llm:model=local,output=json", '{"reasoning": "block the diagonal", "action": "A1"}'
    )
    d = act(player, turn)
    assert d.attempts[0].reasoning is None and "block the diagonal" in d.attempts[0].reply


# -- a hosted model over HTTP -------------------------------------------------------------------


@pytest.fixture
def server(monkeypatch):
    from tests.support.fake_openai_server import FakeOpenAIServer

    monkeypatch.setenv("PLAY_API_KEY", "sk-play")
    with FakeOpenAIServer(api_key="sk-play") as srv:
        yield srv


@pytest.mark.slow
def test_a_hosted_model_plays_over_http(server):
    spec = f"llm:model=openai-api/play/m,base_url={server.url},output=enum"
    state, log = asyncio.run(play("tic_tac_toe", [spec, "optimal"], seed=1))
    assert state.is_terminal() and all(d.failure is None for seat, d in log if seat == 0)
    body = server.requests[0]
    props = body["response_format"]["json_schema"]["schema"]["properties"]
    assert list(props) == ["reasoning", "action"]  # hosted models get a reasoning field first


def _first_request(server, spec):
    game = get_game("tic_tac_toe")
    player = make_player(spec, game, 0)
    server.reset()
    asyncio.run(player.act(Turn(game, game.formulation("standard"), game.new_state(), 0, 0, "j")))
    return player, server.requests[0]


@pytest.mark.slow  # seconds on two cores: `make test` only (bench/RESULTS-house.md, the fast lane)
def test_the_papers_high_effort_is_sent_where_the_provider_takes_it(server):
    base = f"llm:model=openai-api/play/m,base_url={server.url}"
    _, body = _first_request(server, base)
    assert body["reasoning_effort"] == "high" and "response_format" not in body  # free answer
    _, body = _first_request(server, base + ",effort=medium")
    assert body["reasoning_effort"] == "medium"
    _, body = _first_request(server, base + ",effort=unset")
    assert "reasoning_effort" not in body


@pytest.mark.slow
def test_reasoning_summaries_are_asked_for_by_key(server):
    base = f"llm:model=openai-api/play/m,base_url={server.url}"
    for spec, summary in (
        (base, None),
        (base + ",summary=detailed", "detailed"),
        (base + ",summary=none", "none"),
    ):
        player, turn, _ = scripted(spec, "ANSWER: A1")
        act(player, turn)
        assert player.model.calls[0]["config"].reasoning_summary == summary  # None: inspect's auto-detection
    player, turn, _ = scripted("llm:model=local,summary=detailed", "ANSWER: A1")  # no traces to summarise
    act(player, turn)
    assert (
        player.model.calls[0]["config"].reasoning_summary is None
        and player.model.calls[0]["config"].effort is None
    )


@pytest.mark.slow
def test_a_slow_server_is_a_timeout_and_the_game_goes_on(server):
    from plylab.models import GenerateConfig, get_model
    from tests.support.fake_openai_server import Behaviour

    server.queue(Behaviour(delay=3.0), Behaviour(delay=3.0))
    player, turn, _ = scripted(
        f"llm:model=openai-api/play/slow,base_url={server.url},timeout=1,on_failure=random,"
        "on_provider_failure=forfeit"  # the old policy: the failure is the move's (random fallback)
    )
    player.model = get_model(
        "openai-api/play/slow", base_url=server.url, backoff=0.01, defaults=GenerateConfig(max_retries=1)
    )
    d = act(player, turn)
    assert d.action in turn.state.legal_actions() and d.failure == "timeout"
    assert len(server.requests) == 1  # timeout= bounds the whole move: no second 1 s attempt


@pytest.mark.slow
def test_a_provider_failure_leaves_the_move_undecided_by_default(server):
    from plylab.errors import ProviderFailure
    from plylab.models import GenerateConfig, get_model
    from tests.support.fake_openai_server import Behaviour

    server.queue(Behaviour(delay=3.0))
    player, turn, _ = scripted(
        f"llm:model=openai-api/play/slow2,base_url={server.url},timeout=1,on_failure=random"
    )
    player.model = get_model(
        "openai-api/play/slow2", base_url=server.url, backoff=0.01, defaults=GenerateConfig(max_retries=1)
    )
    with pytest.raises(
        ProviderFailure
    ) as failure:  # not a move, not a random fallback: the game is unfinished
        act(player, turn)
    assert failure.value.kind == "timeout"


@pytest.mark.slow
def test_a_non_default_output_is_named_in_the_table(server, cli, tmp_path):
    """Constrained decoding is not the paper's protocol: every table shows the key with the player."""
    store = tmp_path / "s.sqlite"
    spec = f"llm:model=openai-api/play/m,base_url={server.url},output=enum"
    assert cli(*run_args("nim", spec, "optimal", games=1, store=store)).code == 0
    for table in ("matchups", "optimality", "outcomes"):
        out = cli("report", "--store", str(store), "--table", table, "--format", "csv").out
        assert "output=enum" in out, table
