"""The `llm` player's text prompt: one line `Action: <move>` by default, as the paper's released code
asks (003 l.324; PyPI plybench 3.0.5), `prompt=action` (the move alone) and `prompt=reason` (visible
reasoning) as named keys, and runs stored before a default changed resume with the prompt they were
played with (their cached replies are keyed by the request)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from plylab.games import get_game
from plylab.players import Turn, make_player
from plylab.players.canonical import canonical_spec
from plylab.players.llm import build_prompt
from tests.support.fake_openai_server import FakeOpenAIServer

# Written by plylab at 5b9a60f (the reasoning prompt the default then), with tests/support's fake server:
#   FAKE_BASE_URL=<server> FAKE_API_KEY=sk-fake plylab run --game tic_tac_toe
#     --player llm:model=openai-api/fake/m --opponent random --games 2 --seed 5 --store S --run today
TODAY = Path(__file__).parents[1] / "data" / "stores" / "prompt_reason.sqlite"
# Written the same way by plylab at 07f7aa6 (the move alone the default then: `llm_prompt` "action").
ACTION = Path(__file__).parents[1] / "data" / "stores" / "prompt_action.sqlite"
SPEC = "llm:model=openai-api/fake/m"
RUN = [
    "run",
    "--game",
    "tic_tac_toe",
    "--player",
    SPEC,
    "--opponent",
    "random",
    "--games",
    "2",
    "--seed",
    "5",
]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("FAKE_BASE_URL", srv.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        yield srv


def prompt_of(spec: str) -> str:
    game = get_game("tic_tac_toe")
    player = make_player(spec, game, 0)
    f = game.formulation("standard")
    state = game.new_state()
    labels = list(f.legal_labels(state))
    return build_prompt(Turn(game, f, state, 0, 0, "j"), labels, "text", 0, player.prompt)


def test_the_default_asks_for_one_action_line_and_the_others_are_named_keys() -> None:
    default = prompt_of("llm:model=local")
    action, reason = prompt_of("llm:model=local,prompt=action"), prompt_of("llm:model=local,prompt=reason")
    # the paper's code's format: one line `Action: <move>`, the action only, no explanation
    assert default.endswith(
        "Reply on one line, in this format:\nAction: <your move>\n"
        "with the move written exactly as listed: the action only, no explanation."
    )
    assert "ANSWER" not in default and "Think it through" not in default
    assert "move alone" in action and "Action:" not in action
    assert "Think it through" in reason and "ANSWER: <your move>" in reason
    assert canonical_spec("llm:model=local,prompt=line") == "llm:model=local"  # the default: one name
    assert canonical_spec("llm:prompt=action,model=local") == "llm:model=local,prompt=action"
    assert canonical_spec("llm:prompt=reason,model=local") == "llm:model=local,prompt=reason"


def test_a_new_run_records_its_prompt_and_asks_for_the_action(cli, server, tmp_path) -> None:
    store = tmp_path / "new.sqlite"
    assert cli(*RUN, "--store", str(store), "--run", "today", "-q").code == 0
    asked = [m["content"] for r in server.requests for m in r["messages"] if m["role"] == "user"]
    assert asked and all("Action: <your move>" in p and "move alone" not in p for p in asked)
    plan = json.loads(sqlite3.connect(store).execute("SELECT plan FROM runs").fetchone()[0])
    assert plan["llm_prompt"] == "line"


@pytest.mark.slow
@pytest.mark.parametrize("made", [TODAY, ACTION], ids=["reason", "action"])
def test_a_store_made_before_the_default_changed_resumes_with_its_prompt(cli, server, tmp_path, made) -> None:
    """Its plan records no rule (`reason`) or `llm_prompt: action`: either reopens (the rules it recorded
    are its own) and asks its own prompt again, so every reply comes from the cache."""
    store = tmp_path / "today.sqlite"
    shutil.copy(made, store)
    with sqlite3.connect(store) as conn:  # the games go, the replies stay: a resume must replay them
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("DELETE FROM moves")
        conn.execute("DELETE FROM games")
        replies = conn.execute("SELECT count(*) FROM responses").fetchone()[0]
    res = cli(*RUN, "--store", str(store), "--run", "today", "-q")
    assert res.code == 0, res.err
    assert server.requests == []  # every reply came from the cache: the old prompt was asked again
    conn = sqlite3.connect(store)
    assert conn.execute("SELECT count(*) FROM responses").fetchone()[0] == replies
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 2
    attempts = [a for (t,) in conn.execute("SELECT attempts FROM moves") for a in json.loads(t or "[]")]
    assert attempts and all(a.get("cached") for a in attempts)
