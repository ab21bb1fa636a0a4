"""How typed the house is: lines naming `Any` and `dict[str, Any]` per 1,000 source lines (issue 26's
measure; inspect_ai reads 9 and 4), in all and per room, most first; with `--shape`, its shape as issue 50
reads it: rooms and floors (grimp's graph, as tests/core/test_floors.py builds it: every import, those inside
functions and under `if TYPE_CHECKING:`), the `Store` class's methods and the largest modules.

    python bench/house.py [--rooms] [--shape] [SRC]   (SRC: another checkout's src/plylab, to compare)
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

SRC = Path(
    next(
        (a for a in sys.argv[1:] if not a.startswith("--")),
        Path(__file__).resolve().parents[1] / "src" / "plylab",
    )
)
ANY = re.compile(r"\bAny\b")


def measure() -> tuple[int, Counter[str], Counter[str], Counter[str]]:
    lines: Counter[str] = Counter()
    anys: Counter[str] = Counter()
    dicts: Counter[str] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).parts
        room = parts[0] if len(parts) > 1 else "(ground)"
        for line in path.read_text().splitlines():
            lines[room] += 1
            anys[room] += bool(ANY.search(line))
            dicts[room] += "dict[str, Any]" in line
    return sum(lines.values()), lines, anys, dicts


def shape() -> list[str]:
    """Rooms (subpackages, plus the ground floor's modules), floors (the most rooms on one chain of
    imports between rooms), the `Store` class's methods, and the five largest modules."""
    import ast
    import functools

    import grimp

    sys.path.insert(0, str(SRC.parent))
    graph = grimp.build_graph("plylab", exclude_type_checking_imports=False, cache_dir=None)
    packages = {m for m in graph.modules if graph.find_children(m)}

    def room(m: str) -> str:
        top = ".".join(m.split(".")[:2])
        return top if top in packages and top != "plylab" else "plylab"

    edges: dict[str, set[str]] = {}
    for m in graph.modules:
        if m == "plylab.__main__":
            continue
        for t in graph.find_modules_directly_imported_by(m):
            if t != "plylab.__main__" and room(t) != room(m):
                edges.setdefault(room(m), set()).add(room(t))
    rooms = {room(m) for m in graph.modules if m != "plylab.__main__"}

    @functools.cache
    def floor(r: str) -> int:
        return 1 + max((floor(b) for b in edges.get(r, ())), default=0)

    store = ast.parse((SRC / "harness" / "store.py").read_text())
    methods = next(
        sum(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in c.body)
        for c in store.body
        if isinstance(c, ast.ClassDef) and c.name == "Store"
    )
    sizes = sorted(
        ((len(p.read_text().splitlines()), str(p.relative_to(SRC))) for p in SRC.rglob("*.py")), reverse=True
    )
    return [
        f"{len(rooms)} rooms on {max(floor(r) for r in rooms)} floors; Store has {methods} methods",
        "largest modules: " + ", ".join(f"{name} {n}" for n, name in sizes[:5]),
    ]


def main() -> None:
    total, lines, anys, dicts = measure()
    a, d = sum(anys.values()), sum(dicts.values())
    print(
        f"{total} source lines; Any on {a} ({1000 * a / total:.1f} per 1,000), dict[str, Any] on {d} ({1000 * d / total:.1f})"
    )
    if "--shape" in sys.argv:
        print("\n".join(shape()))
    if "--rooms" in sys.argv:
        for room in sorted(lines, key=lambda r: -anys[r]):
            print(f"  {room:10} {lines[room]:6} lines  Any {anys[room]:4}  dict[str, Any] {dicts[room]:4}")


if __name__ == "__main__":
    main()
