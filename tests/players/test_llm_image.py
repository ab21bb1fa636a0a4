"""`view=image`: the position drawn as the site draws it, sent as an image to a multimodal model."""

from __future__ import annotations

import asyncio
import base64

import pytest

from plylab.errors import UserError
from plylab.games import get_game
from plylab.games.boards import Marks, draw
from plylab.games.boards.picture import board_png, data_uri, svg_to_png
from plylab.players import Turn, make_player
from plylab.players.llm import IMAGE_POSITION
from tests.players.test_llm import Script
from tests.support.fake_openai_server import FakeOpenAIServer


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("PLAY_API_KEY", "sk-play")
    with FakeOpenAIServer(api_key="sk-play") as srv:
        yield srv


def _asked(server, view: str):
    """One move of tic-tac-toe after X took the centre; (decision, the request's user parts, state)."""
    game = get_game("tic_tac_toe")
    state = game.new_state()
    state.apply_action(4)
    player = make_player(f"llm:model=openai-api/play/m,base_url={server.url},view={view}", game, 1)
    decision = asyncio.run(player.act(Turn(game, game.formulation("standard"), state, 1, 1, "j")))
    content = server.requests[-1]["messages"][-1]["content"]
    return decision, content, state


@pytest.mark.slow
def test_the_image_sent_is_the_sites_board(server):
    decision, content, state = _asked(server, "image")
    assert isinstance(content, list), "view=image sends parts, not one text"
    images = [p for p in content if p["type"] == "image_url"]
    texts = [p["text"] for p in content if p["type"] == "text"]
    assert len(images) == 1 and len(texts) == 1
    url = images[0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    site = svg_to_png(draw("tic_tac_toe", state, Marks()) or "")
    assert base64.b64decode(url.split(",", 1)[1]) == site  # the site's board, coordinates and all
    assert IMAGE_POSITION in texts[0] and str(state) not in texts[0]  # the picture in the board's place
    assert decision.action is not None and decision.failure is None


def test_image_and_text_sends_both(server):
    _, content, state = _asked(server, "image+text")
    text = next(p["text"] for p in content if p["type"] == "text")
    assert any(p["type"] == "image_url" for p in content)
    assert IMAGE_POSITION in text and "Legal moves:" in text


def test_view_text_sends_no_image(server):
    _, content, _ = _asked(server, "text")
    assert isinstance(content, str)


def test_a_game_without_a_drawn_board_refuses_the_key(server):
    with pytest.raises(UserError, match=r"view=image: 'kuhn_poker' has no drawn board"):
        make_player(
            f"llm:model=openai-api/play/m,base_url={server.url},view=image", get_game("kuhn_poker"), 0
        )


def test_a_disguised_formulation_refuses_the_picture(server):
    """The picture is the real board with its coordinates: shown beside magic square, it undoes it."""
    game = get_game("tic_tac_toe")
    player = make_player(f"llm:model=openai-api/play/m,base_url={server.url},view=image", game, 0)
    turn = Turn(game, game.formulation("magic_square"), game.new_state(), 0, 0, "j")
    with pytest.raises(UserError, match="undoes formulation 'magic_square'"):
        asyncio.run(player.act(turn))
    assert server.requests == []  # refused before anything was sent


def test_the_local_text_model_refuses_the_key():
    with pytest.raises(UserError, match="needs a multimodal model"):
        make_player("llm:model=local,view=image", get_game("tic_tac_toe"), 0)


def test_the_replay_shows_the_image_the_model_saw(cli, tmp_path, monkeypatch) -> None:
    """A stored run with view=image: each of the model's steps in the replay carries the drawing whose
    PNG the server received, and a move asked in text carries none."""
    from plylab.harness.store import Store
    from plylab.reports.data import replay_payload

    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("FAKE_BASE_URL", srv.url)
        monkeypatch.setenv("FAKE_API_KEY", "sk-fake")
        store = tmp_path / "s.sqlite"
        spec = "llm:model=openai-api/fake/m,view=image"
        args = ["run", "--game", "tic_tac_toe", "--player", spec, "--opponent", "random", "--games", "1"]
        res = cli(*args, "--seed", "2", "--store", str(store), "-q")
        assert res.code == 0, res.err
        sent = [
            next(p for p in r["messages"][-1]["content"] if p["type"] == "image_url")["image_url"]["url"]
            for r in srv.requests
        ]
    s = Store(store, create=False)
    (g,) = s.games()
    steps = replay_payload(g, s.moves_for_games([g.id])[g.id], "r")["steps"]
    s.close()
    seen = [step["seen"] for step in steps if step["seat"] == g.player_seat]
    assert (
        seen
        and len(seen) == len(sent)
        and all(step["seen"] is None for step in steps if step["seat"] != g.player_seat)
    )
    for svg, url in zip(seen, sent, strict=True):
        assert svg_to_png(svg or "") == base64.b64decode(url.split(",", 1)[1])


class Interleaving(Script):
    """A scripted model that yields to the event loop before each reply, so two moves asked at once
    take turns between their calls."""

    async def generate(self, messages, **kwargs):
        await asyncio.sleep(0)
        return await super().generate(messages, **kwargs)


def test_two_moves_asked_at_once_each_show_their_own_board(server):
    """A move's picture is the move's own: two positions asked at once on one player, each rethought
    afresh after an illegal answer, attach their own board to every prompt (no move's state is kept
    on the player)."""
    game = get_game("tic_tac_toe")
    player = make_player(
        f"llm:model=openai-api/play/m,base_url={server.url},view=image,sample=rethink:1", game, 0
    )
    player.model = Interleaving("B2", "B2", "A3", "A3")  # B2 is taken in both: each is rethought once
    first, second = game.new_state(), game.new_state()
    first.apply_action(4)
    for action in (4, 0, 8):
        second.apply_action(action)
    f = game.formulation("standard")
    turns = [Turn(game, f, first, 1, 1, "one"), Turn(game, f, second, 1, 3, "two")]

    async def both():
        return await asyncio.gather(*(player.act(t) for t in turns))

    decisions = asyncio.run(both())
    assert [len(d.attempts) for d in decisions] == [2, 2] and all(d.action == 6 for d in decisions)
    drawn = {t.job_key: data_uri(board_png("tic_tac_toe", t.state) or b"") for t in turns}
    calls = player.model.calls
    assert len(calls) == 4 and {c["cache_key"].split("/")[0] for c in calls} == {"one", "two"}
    for c in calls:
        shown = [m["image"] for m in c["messages"] if "image" in m]
        assert shown and all(image == drawn[c["cache_key"].split("/")[0]] for image in shown)
    assert all(d.note == {"view": "image"} for d in decisions)
