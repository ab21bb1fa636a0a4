"""No import circles in `src/plylab`: every module can be read (and changed) on top of the modules it
imports, never beside a module that imports it back.

The graph is grimp's, built from every import statement in the source, including the ones inside
functions (a lazy import is still a dependency) and those under `if TYPE_CHECKING:` (a module that
names another's type is read on top of it, even if the import never runs). A package's `__init__`
counts as a module of its own.
"""

from __future__ import annotations

import grimp
import pytest


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: the groups of modules that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph.get(node, ()):
                    groups.append(sorted(group))
    return groups


def test_the_cycle_finder_finds_cycles() -> None:
    """The check below is only worth something if it sees a circle, direct or through others."""
    assert strongly_connected({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert strongly_connected({"a": {"a"}}) == [["a"]]


def plylab_imports() -> dict[str, set[str]]:
    graph = grimp.build_graph("plylab", exclude_type_checking_imports=False, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def test_the_graph_is_the_real_one() -> None:
    """A graph that missed edges would pass trivially: known imports must be in it."""
    imports = plylab_imports()
    assert "plylab.errors" in imports["plylab.registry"]
    assert "plylab.clue.base" in imports["plylab.clue.llm"]  # a module-level import
    assert len(imports) > 80


def test_no_import_cycles() -> None:
    cycles = strongly_connected(plylab_imports())
    if cycles:
        pytest.fail("import circles in src/plylab:\n" + "\n".join("  " + " <-> ".join(c) for c in cycles))
