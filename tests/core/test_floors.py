"""The house's floors: every package of `src/plylab` stands on the ones below it, never on one above.

A room is one of plylab's subpackages (its nested packages belong to it); the ground floor is
plylab's own top-level modules (errors, registry, specs, seeds, secrets, texts, db, printable), which
import no subpackage. `plylab.__main__` is the front door (`python -m plylab` -> cli) and no room.
The imports are grimp's, every one: those inside functions and those under `if TYPE_CHECKING:` (a
type a room names is a room it depends on, even if the import never runs).

FLOORS says where each room stands; an import may only go to a lower floor (or within a room), so
the house has no circle and no stair back up, and a new package must be given its floor here.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

import grimp

from .test_import_graph import strongly_connected

GROUND = "plylab"
DOOR = "plylab.__main__"
MOST_FLOORS = 9

FLOORS = {
    GROUND: 1,  # errors, registry, specs, seeds, secrets, texts, db, printable, quiet
    "plylab.oracles": 2,  # ground truth: exact values, equilibria, engines
    "plylab.render": 2,  # grids in every format, the typed table and its registry, plot style
    "plylab.models": 2,  # the one door to language models
    "plylab.games": 3,
    "plylab.players": 4,
    "plylab.harness": 5,  # plan, driver, session, store
    "plylab.analysis": 6,
    "plylab.learning": 6,
    "plylab.clue": 6,
    "plylab.paper": 7,
    "plylab.suites": 7,  # suite files, their building, their runs on the driver, their tables
    "plylab.tasks": 8,  # inspect tasks over the session, Clue and suites (their scorers: analysis)
    "plylab.reports": 8,
    "plylab.cli": 9,
}


def room(module: str) -> str:
    parts = module.split(".")
    return GROUND if len(parts) == 1 else ".".join(parts[:2])


def rooms(graph: grimp.ImportGraph) -> dict[str, str]:
    """Each module's room: a subpackage, or the ground floor for plylab's own modules."""
    packages = {m for m in graph.modules if graph.find_children(m)}
    out = {}
    for m in graph.modules:
        if m == DOOR:
            continue
        top = ".".join(m.split(".")[:2])
        out[m] = top if top in packages and top != GROUND else GROUND
    return out


@functools.cache
def room_imports() -> dict[tuple[str, str], list[str]]:
    """(importing room, imported room) -> the module imports that make the edge."""
    graph = grimp.build_graph("plylab", exclude_type_checking_imports=False, cache_dir=None)
    where = rooms(graph)
    edges: dict[tuple[str, str], list[str]] = {}
    for m, a in where.items():
        for t in graph.find_modules_directly_imported_by(m):
            b = where.get(t)
            if b is not None and b != a:
                edges.setdefault((a, b), []).append(f"{m} -> {t}")
    return edges


def longest_path(edges: set[tuple[str, str]], nodes: set[str]) -> int:
    """The most rooms on one chain of imports (the number of floors the imports make); a circle
    makes a chain without end, counted as one more floor than there are rooms."""
    out: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        out[a].add(b)
    if strongly_connected(out):
        return len(nodes) + 1

    @functools.cache
    def floor(n: str) -> int:
        return 1 + max((floor(b) for b in out[n]), default=0)

    return max(floor(n) for n in nodes)


def test_the_measure_sees_floors_and_stairs() -> None:
    """The checks below are only worth something if they can fail."""
    assert longest_path({("a", "b"), ("b", "c"), ("a", "c")}, {"a", "b", "c", "d"}) == 3
    assert longest_path({("a", "b"), ("b", "a")}, {"a", "b"}) == 3  # a circle: more floors than rooms
    assert strongly_connected({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]
    edges = room_imports()
    assert ("plylab.cli", "plylab.harness") in edges  # a function-level import (cli loads lazily)
    assert ("plylab.harness", GROUND) in edges
    # a type-only import (`if TYPE_CHECKING:`) counts: reports/pgn.py names the store's rows only so
    assert "plylab.reports.pgn -> plylab.harness.rows" in edges["plylab.reports", "plylab.harness"]


def test_every_room_has_a_floor() -> None:
    named = {r for edge in room_imports() for r in edge}
    assert named - set(FLOORS) == set(), "give each new package its floor in FLOORS"


def test_no_circle_between_rooms() -> None:
    graph: dict[str, set[str]] = {r: set() for r in FLOORS}
    for a, b in room_imports():
        graph.setdefault(a, set()).add(b)
    assert strongly_connected(graph) == []


def test_no_stair_up() -> None:
    """Every import goes down a floor (or stays in its room)."""
    up = [
        f"{a} (floor {FLOORS[a]}) -> {b} (floor {FLOORS[b]}): {', '.join(sorted(set(why))[:3])}"
        for (a, b), why in sorted(room_imports().items())
        if FLOORS.get(b, 0) >= FLOORS.get(a, 0)
    ]
    assert up == [], "imports to the same or a higher floor:\n" + "\n".join(up)


def test_at_most_nine_floors() -> None:
    edges = set(room_imports())
    assert max(FLOORS.values()) <= MOST_FLOORS
    assert longest_path(edges, {r for e in edges for r in e}) <= MOST_FLOORS


# ---- dependencies named in strings ---------------------------------------------------------------------

SRC = Path(__file__).resolve().parents[2] / "src" / "plylab"
LOADER = "registry.py"  # the one loader: entry points, and a package's lazy attributes
IMPORTERS = {"import_module", "__import__"}
# Modules that import a third-party library chosen at run time (never a plylab module), and why.
THIRD_PARTY = {"models/wire.py": "httpx or httpcore, whichever the transport comes from"}


def imports_by_string(path: Path, root: Path = SRC) -> list[str]:
    """The lines of `path` that import a module named by a string (importlib, `__import__`)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in IMPORTERS:
                out.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_the_string_import_finder_finds_them(tmp_path: Path) -> None:
    """The check below is only worth something if it sees each way of writing one."""
    sample = tmp_path / "m.py"
    sample.write_text(
        "import importlib\nfrom importlib import import_module\n"
        "import_module('plylab.clue.game')\nimportlib.import_module(f'{__name__}.x')\n__import__('plylab')\n"
    )
    assert len(imports_by_string(sample, tmp_path)) == 3
    assert imports_by_string(SRC / "games" / "__init__.py") == []


def test_no_module_is_imported_by_a_string_outside_the_loader() -> None:
    """A module named in a string is a dependency grimp cannot see (issue 50: `games/base.py` loaded
    `plylab.clue.game`, floor 3 naming floor 6). Extensions above a registry are entry points in
    pyproject.toml, loaded by `plylab.registry` alone; everything else is an import statement."""
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        if (rel := str(path.relative_to(SRC))) != LOADER and rel not in THIRD_PARTY
        for line in imports_by_string(path)
    ]
    assert found == [], "modules imported by name in a string:\n" + "\n".join(found)
    for rel in THIRD_PARTY:  # only ever a library's name, never plylab's
        for line in imports_by_string(SRC / rel):
            assert "plylab" not in line and "__name__" not in line and "package" not in line, line


def declared_entry_points() -> dict[str, dict[str, str]]:
    """pyproject.toml's plylab entry points: group -> name -> "module[:attr]"."""
    project = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text())["project"]
    return {g: eps for g, eps in project["entry-points"].items() if g.startswith("plylab.")}


# Each entry-point group extends one registry, in this room.
EXTENDS = {"plylab.players": "plylab.players", "plylab.unlisted_games": "plylab.games"}


def test_every_entry_point_stands_above_the_registry_it_extends() -> None:
    """An entry point is a dependency too, from the declared module to the registry it fills: the module
    exists, imports that registry's room (it registers itself there) and stands on the same or a higher
    floor, so the loader never brings a lower floor's module into a higher one's registry."""
    graph = grimp.build_graph("plylab", exclude_type_checking_imports=False, cache_dir=None)
    declared = declared_entry_points()
    assert set(declared) == set(EXTENDS), "give each new entry-point group the registry it extends in EXTENDS"
    for group, eps in declared.items():
        target = EXTENDS[group]
        for name, value in eps.items():
            module = value.partition(":")[0]
            assert module in graph.modules, f"{group} '{name}': no module {module}"
            assert FLOORS[room(module)] >= FLOORS[target], f"{group} '{name}': {module} is below {target}"
            reached = graph.find_upstream_modules(module) | {module}  # what it depends on
            assert any(m == target or m.startswith(target + ".") for m in reached), (
                f"{group} '{name}': {module} does not import {target}, the registry it extends"
            )


def test_the_installed_entry_points_are_pyprojects() -> None:
    """The loader reads the installed metadata: an install older than pyproject.toml would lose players
    silently, so say here that it must be reinstalled (`pip install -e .`)."""
    from importlib.metadata import entry_points

    for group, eps in declared_entry_points().items():
        installed = {ep.name: ep.value for ep in entry_points(group=group)}
        assert {n: v for n, v in installed.items() if v.startswith("plylab.")} == {
            n: v.replace(" ", "") for n, v in eps.items()
        }, f"plylab's installed '{group}' entry points differ from pyproject.toml: pip install -e ."
