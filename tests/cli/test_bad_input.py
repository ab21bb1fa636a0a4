"""A user's mistake: one line on stderr, exit code 2, no traceback, nothing written."""

import pytest

RUN = [
    "run",
    "--game",
    "tic_tac_toe",
    "--player",
    "random",
    "--opponent",
    "random",
    "--games",
    "2",
    "--quiet",
]


def swap(args, flag, value):
    out = list(args)
    out[out.index(flag) + 1] = value
    return out


@pytest.mark.parametrize(
    "args, needle",
    [
        (swap(RUN, "--game", "klingon_chess"), "unknown game 'klingon_chess'; accepted: "),
        (RUN + ["--formulation", "klingon"], "unknown formulation 'klingon'"),
        (swap(RUN, "--player", "alphazero"), "unknown player 'alphazero'; accepted:"),
        (swap(RUN, "--player", "mcts:sims=abc"), "option 'sims'"),
        (swap(RUN, "--player", "mcts:sims"), "expected key=value"),
        (swap(RUN, "--games", "0"), "--games must be at least 1"),
        (["run", "--game", "nim"], "missing --player, --opponent"),
        (RUN + ["--bogus"], "No such option: --bogus"),
    ],
)
def test_bad_run_input(cli, tmp_path, args, needle):
    store = tmp_path / "s.sqlite"
    res = cli(*args, "--store", str(store))
    assert res.code == 2
    assert needle in res.err
    assert len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err
    assert not store.exists()


def test_unreadable_store_and_config(cli, tmp_path):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    res = cli("report", "--store", str(garbage))
    assert res.code == 2 and "not a plylab store" in res.err
    res = cli("report", "--store", str(tmp_path / "missing.sqlite"))
    assert res.code == 2 and "does not exist" in res.err
    broken = tmp_path / "plan.yaml"
    broken.write_text("games: [tic_tac_toe\nplayers: {")
    res = cli("run", "--config", str(broken), "--store", str(tmp_path / "s.sqlite"))
    assert res.code == 2 and "not valid YAML" in res.err
    broken.write_text("games: tic_tac_toe\nplayrs: [random]\n")
    res = cli("run", "--config", str(broken), "--store", str(tmp_path / "s.sqlite"))
    assert res.code == 2 and "unknown key(s) playrs" in res.err
    res = cli("run", "--config", str(tmp_path / "nope.yaml"))
    assert res.code == 2 and "cannot read config" in res.err
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize(
    "text, needles",
    [
        (  # a plan file as written before the keys said what they hold
            "game: [tic_tac_toe]\ngames: 4\nplayers: [random]\nopponents: [random]\n",
            ["'game' is now 'games'", "a number in 'games' is now 'games_per_matchup'"],
        ),
        ("games: 4\nplayers: [random]\nopponents: [random]\n", ["'games' is now 'games_per_matchup'"]),
        ("game: nim\nplayers: [random]\nopponents: [random]\n", ["'game' is now 'games' (the game names)"]),
    ],
)
def test_old_plan_keys_name_the_new_ones(cli, tmp_path, text, needles):
    plan = tmp_path / "plan.yaml"
    plan.write_text(text)
    store = tmp_path / "s.sqlite"
    res = cli("run", "--config", str(plan), "--store", str(store), "--quiet")
    assert res.code == 2 and all(n in res.err for n in needles), res.err
    assert len(res.err.strip().splitlines()) == 1 and not store.exists()


def test_bad_report_options(cli, tmp_path):
    store = tmp_path / "s.sqlite"
    assert cli(*RUN, "--store", str(store)).code == 0
    for args, needle in [
        (["--format", "xml"], "unknown format 'xml'"),
        (["--table", "elo"], "unknown table 'elo'"),
        (["--run", "nope"], "no run 'nope'"),
    ]:
        res = cli("report", "--store", str(store), *args)
        assert res.code == 2 and needle in res.err, res.err


@pytest.mark.slow
@pytest.mark.parametrize(
    "player, needle",
    [
        ("llm:model=openai-api/nowhere/m,base_url=http://127.0.0.1:9/v1", "unreachable"),
        ("llm:model=nosuchprovider/x", "nosuchprovider"),
        ("llm:model=local,output=yaml", "option 'output'"),
    ],
)
def test_bad_model_is_one_line_before_any_game(cli, tmp_path, monkeypatch, player, needle):
    monkeypatch.setenv("NOWHERE_API_KEY", "sk-test")
    store = tmp_path / "s.sqlite"
    res = cli(*swap(RUN, "--player", player), "--store", str(store))
    assert res.code == 2, res.err
    assert needle in res.err and len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err
    assert not store.exists()
