"""Registration from above (issue 50, point 1): a player's name is written once, as its entry point in
pyproject.toml, and the registries below Clue and the best response find them through the one loader
(`plylab.registry`) without naming them."""

from __future__ import annotations

import ast
import subprocess
import sys

from plylab.players import PLAYERS

from .test_floors import SRC, declared_entry_points


def test_every_declared_player_is_registered_under_its_declared_name() -> None:
    declared = declared_entry_points()["plylab.players"]
    for name, value in declared.items():
        cls = PLAYERS.get(name)
        assert cls.name == name and f"{cls.__module__}:{cls.__qualname__}" == value
    assert set(PLAYERS.names()) == set(declared)


def test_a_players_name_is_written_once() -> None:
    """No player class repeats the name its entry point gives it (STYLE.md, "one declaration")."""
    names = set(declared_entry_points()["plylab.players"])
    repeated = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "name" for t in stmt.targets)
                        and isinstance(stmt.value, ast.Constant)
                        and stmt.value.value in names
                    ):
                        repeated.append(f"{path.relative_to(SRC)}:{stmt.lineno} {node.name}")
    assert repeated == []


def test_the_layers_below_find_clue_and_the_best_response_by_name_alone() -> None:
    """Asking the game and player registries for a name loads the module above that declares it; until
    then nothing above the players' floor is imported."""
    probe = (
        "import sys\n"
        "from plylab.games import get_game\n"
        "from plylab.players import PLAYERS\n"
        "assert not [m for m in sys.modules if m.startswith(('plylab.clue', 'plylab.analysis'))]\n"
        "assert get_game('clue').name == 'clue' and 'plylab.clue.game' in sys.modules\n"
        "assert PLAYERS.get('best_response').name == 'best_response'\n"
        "assert PLAYERS.get('clue-oracle').family == 'clue'\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def test_an_unknown_player_is_one_line_naming_the_declared_ones() -> None:
    from plylab.errors import UserError

    try:
        PLAYERS.get("mctz")
    except UserError as exc:
        assert "did you mean 'mcts'" in str(exc) and "\n" not in str(exc)
    else:
        raise AssertionError("an unknown player was accepted")
