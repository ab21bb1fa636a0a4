"""How typed the house is: lines naming `Any` and `dict[str, Any]` per 1,000 source lines (issue 26's
measure; inspect_ai reads 9 and 4), in all and per room, most first.

    python bench/house.py [--rooms]
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "plylab"
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


def main() -> None:
    total, lines, anys, dicts = measure()
    a, d = sum(anys.values()), sum(dicts.values())
    print(
        f"{total} source lines; Any on {a} ({1000 * a / total:.1f} per 1,000), dict[str, Any] on {d} ({1000 * d / total:.1f})"
    )
    if "--rooms" in sys.argv:
        for room in sorted(lines, key=lambda r: -anys[r]):
            print(f"  {room:10} {lines[room]:6} lines  Any {anys[room]:4}  dict[str, Any] {dicts[room]:4}")


if __name__ == "__main__":
    main()
