"""The CLI starts at once: each command imports only what it uses (issue 22, point 5).

A behaviour test, not a timing test: each command runs in a fresh interpreter, which then reports
which heavy modules got imported. The times are in bench/bench_startup.py and bench/RESULTS.md."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.support.cli import plylab_subprocess, run_args

# What no short command needs: the model stack, the encoder, Ray, plots, the Clue solver.
NEVER = {"inspect_ai", "torch", "ray", "llama_cpp", "matplotlib", "sentence_transformers", "openai", "pysat"}
PROBE = """
import json, sys
from plylab.cli import main
code = main(sys.argv[1:])
heavy = ["inspect_ai", "torch", "ray", "llama_cpp", "matplotlib", "sentence_transformers", "openai", "pysat",
         "scipy", "pyspiel", "numpy", "pydantic", "rich", "jinja2", "pyarrow", "yaml",
         "plylab.players.reaper", "plylab.players.llm", "plylab.players.mcts"]
ours = sorted(m for m in sys.modules if m.startswith("plylab."))
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules], "ours": ours}), file=sys.stderr)
"""


def probe(*args: str) -> dict[str, Any]:
    res = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120, check=False
    )
    report: dict[str, Any] = json.loads(res.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, res.stderr
    return report


def loaded(*args: str) -> set[str]:
    return set(probe(*args)["loaded"])


# What the front door must not open for a command that reads no results (issue 50, point 8): the store,
# any analysis module, Clue. `plylab.analysis` itself only names the report's tables and formats.
NOT_FOR_SHORT_COMMANDS = ("plylab.harness.store", "plylab.analysis.", "plylab.clue", "plylab.players.")


@pytest.mark.parametrize("args", [("--help",), ("games",)])
def test_help_and_games_open_no_store_analysis_or_clue(args: tuple[str, ...]) -> None:
    ours = probe(*args)["ours"]
    assert "plylab.cli.report" in ours  # every command's module is imported (each registers its command)
    assert [m for m in ours if m.startswith(NOT_FOR_SHORT_COMMANDS)] == []


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = tmp_path_factory.mktemp("startup") / "s.sqlite"
    res = plylab_subprocess(*run_args("tic_tac_toe", "random", "optimal", games=4, store=store))
    assert res.returncode == 0, res.stderr
    return str(store)


def test_help_loads_no_library_beyond_the_cli():
    assert loaded("--help") & (NEVER | {"scipy", "pyspiel", "numpy", "pydantic", "rich", "yaml"}) == set()


@pytest.mark.parametrize("args", [("games",), ("solve", "--game", "tic_tac_toe", "--moves", "B2 A1")])
def test_games_and_solve_load_openspiel_but_no_model_or_statistics(args):
    assert loaded(*args) & (NEVER | {"scipy", "numpy"}) == set()


@pytest.mark.slow
def test_a_report_loads_no_model_no_scipy_no_numpy(small_store):
    # It reads canonical player names, so it loads the modules of the players the store names
    # (random, optimal) and no other: the registry imports a player's module on first use. A small
    # store's intervals need no numpy, and its names no OpenSpiel.
    unused_players = {"plylab.players.reaper", "plylab.players.llm", "plylab.players.mcts"}
    never = NEVER | {"scipy", "numpy", "pyspiel"} | unused_players
    assert loaded("report", "--store", small_store) & never == set()
    assert loaded("report", "--store", small_store, "--format", "json") & (NEVER | {"scipy"}) == set()
