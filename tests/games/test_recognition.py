"""Recognition patterns: a trace that names the underlying game counts; look-alike words do not."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from plylab.analysis.recognition import Tally, names_game, recognizer
from plylab.games import get_game
from tests.support.cli import run_args

NAMED = {
    "tic_tac_toe": [
        "This is just tic-tac-toe with numbers.",
        "It's Tic Tac Toe in disguise",
        "a TicTacToe board",
        "tick-tack-toe",
        "the classic game of noughts and crosses",
        "Naughts & Crosses",
        "TTT with relabeled cells",
        "This is tic\u2011tac\u2011toe",  # non-breaking hyphens
        "tic\u2010tac\u2010toe",  # Unicode hyphens
        "Tic\u2013Tac\u2013Toe, in disguise",  # en dashes
    ],
    "nim": [
        "This is misère Nim.",
        "the game of Nim",
        "the nim-sum is 0",
        "Nim's losing positions",
        "a Nim-like game",
    ],
    "connect_four": [
        "this is Connect Four",
        "connect-4 strategy",
        "Connect\u20114 in disguise",
        "Connect4",
        "an old game called Four in a Row",
        "the captain's mistress",
    ],
}

# Not the game's name, so not counted by default (003 l.305: traces that "explicitly identify" the
# game "by name"); counted under the named option `--recognize wide`.
WIDER = {
    "tic_tac_toe": [
        "map it onto X and O",
        "like Xs and Os",
        "X's & O's",
        "in Italy this is called tris",
        "le morpion",
        "tres en raya",
    ],
    "nim": [
        "compute the nimsum",
        "each pile has a nimber",
        "the misere convention",
        "a misère game",
        "the game of Marienbad",
    ],
}

NOT_NAMED = {
    "tic_tac_toe": [
        "three in a row wins",
        "the numbers 2, 7 and 6 sum to 15",
        "let x and o be unknowns",
        "B and W alternate",
        "a magic square",
        "tactic: take the center",
        "the toe of the river bank",
        "tristan claims 5",
    ],
    "nim": [
        "be nimble",
        "the minimum is 1",
        "unanimous",
        "a nimbus of light",
        "Nimrod",
        "I feel miserable",
        "take the minimal number of stones",
        "animation",
    ],
    "connect_four": [
        "connect the dots",
        "four discs in a line",
        "connected four times",
    ],
}


@pytest.mark.parametrize(("game_name", "text"), [(g, t) for g, ts in NAMED.items() for t in ts])
def test_names(game_name: str, text: str) -> None:
    assert names_game(get_game(game_name), text)


@pytest.mark.parametrize(("game_name", "text"), [(g, t) for g, ts in NOT_NAMED.items() for t in ts])
def test_does_not_name(game_name: str, text: str) -> None:
    assert not names_game(get_game(game_name), text)


@pytest.mark.parametrize(("game_name", "text"), [(g, t) for g, ts in WIDER.items() for t in ts])
def test_wider_wording_counts_only_under_the_named_option(game_name: str, text: str) -> None:
    game = get_game(game_name)
    assert not names_game(game, text)
    assert names_game(game, text, scope="wide")


def test_an_unknown_recognition_scope_is_one_clear_error(cli, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", games=1, store=store)).code == 0
    res = cli("report", "--store", str(store), "--table", "recognition", "--recognize", "vibes")
    assert res.code == 2 and "names, wide" in res.err


def test_every_unicode_dash_reads_as_a_hyphen() -> None:
    """Each dash punctuation character (category Pd), the minus sign and the soft hyphen join the
    words of a name as `-` does, in a trace counted by the report (Tally) as in `names_game`."""
    dashes = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Pd"]
    dashes += ["\u2212", "\u00ad"]
    game = get_game("tic_tac_toe")
    pattern = recognizer(tuple(game.recognition))
    assert pattern is not None
    for dash in dashes:
        text = f"This is tic{dash}tac{dash}toe."
        assert names_game(game, text), f"U+{ord(dash):04X}"
        tally = Tally()
        tally.add(pattern, text, text)
        assert (tally.on_trace, tally.on_reply) == (1, 1), f"U+{ord(dash):04X}"


def test_games_do_not_recognize_each_other() -> None:
    assert not names_game(get_game("nim"), NAMED["tic_tac_toe"][0])
    assert not names_game(get_game("tic_tac_toe"), NAMED["nim"][0])


def test_empty_text_and_pattern_override() -> None:
    game = get_game("nim")
    assert not names_game(game, "")
    assert not names_game(game, None)
    assert not names_game(game, "Nim", patterns=())
    assert names_game(game, "a subtraction game", patterns=[r"subtraction\s+game"])
    assert recognizer(()) is None


# -- recognition in a report: on traces by default, the reply as a named alternative -----------------


@pytest.fixture
def server(monkeypatch):
    from tests.support.fake_openai_server import FakeOpenAIServer

    monkeypatch.setenv("TRACE_API_KEY", "sk-trace")
    with FakeOpenAIServer(api_key="sk-trace") as srv:
        yield srv


def _recognition(cli, store, run, on=None):
    args = ["report", "--store", str(store), "--run", run, "--table", "recognition", "--by", "formulation"]
    res = cli(*args, "--format", "json", *(["--on", on] if on else []))
    assert res.code == 0, res.err
    [row] = json.loads(res.out)["rows"]
    return row["cells"]["standard"], cli(*args, "--format", "csv", *(["--on", on] if on else [])).out


@pytest.mark.slow
def test_recognition_is_counted_on_traces_and_a_traceless_cell_is_missing(cli, tmp_path, server):
    from tests.support.fake_openai_server import Behaviour

    store, spec = tmp_path / "s.sqlite", f"llm:model=openai-api/trace/m,base_url={server.url}"
    server.queue(*[Behaviour(reasoning="Plainly this is tic-tac-toe; take a corner.") for _ in range(9)])
    run = [
        *run_args("tic_tac_toe", spec, "optimal", games=1, store=store),
    ]
    assert cli(*run, "--run", "traced").code == 0
    on_trace, csv = _recognition(cli, store, "traced")
    moves = on_trace["moves"]
    assert moves > 0 and on_trace["traced"] == moves and on_trace["rate"] == 1.0 and on_trace["on"] == "trace"
    assert f"({moves}/{moves} traced)" in csv
    on_reply, _ = _recognition(cli, store, "traced", "reply")  # "ANSWER: <cell>" never names the game
    assert on_reply["rate"] == 0.0 and on_reply["n"] == moves and on_reply["on"] == "reply"

    server.reset()  # the rest of the scripted traces go unused
    assert cli(*run, "--run", "bare", "--seed", "1").code == 0  # no reasoning at all: no trace rate, not zero
    bare, csv = _recognition(cli, store, "bare")
    assert bare["rate"] is None and bare["traced"] == 0 and bare["moves"] > 0
    assert f"– (0/{bare['moves']} traced)" in csv


def test_an_unknown_recognition_source_is_one_clear_error(cli, tmp_path, server):
    store = tmp_path / "s.sqlite"
    assert cli(*run_args("nim", games=1, store=store)).code == 0
    res = cli("report", "--store", str(store), "--table", "recognition", "--on", "vibes")
    assert res.code == 2 and "trace, reply" in res.err
