"""Collect every benchmark's own results file (bench/RESULTS-<area>.md) into bench/RESULTS.md.

Each bench script writes (or, for bench_harness.py, prints) its figures with the command that made
them; run this after any of them: `python bench/merge_results.py`.
"""

from pathlib import Path

BENCH = Path(__file__).resolve().parent
ORDER = ["harness", "games", "connect_four", "models", "clue", "reaper", "scaleout", "reports", "paper"]
HEAD = """# Benchmark results

Every figure below was printed by the script named with it, on this project's 2-core machine, which
was shared with other work while they ran (load average 2-10): compare the ratios measured within one
run, not absolute times across sections. Re-run any of them with the command shown.

`plybench` 3.0.5 (PyPI, the first paper's own package) runs in a side venv of Python >= 3.12 (`make plybench`);
its side-by-side figures are in the plybench section.

Sections are collected from `bench/RESULTS-<area>.md` by `python bench/merge_results.py`.
"""


def section(path: Path) -> str:
    lines = path.read_text().strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines[0] = "#" + lines[0]
    return "\n".join(("#" + line if i and line.startswith("## ") else line) for i, line in enumerate(lines))


def main() -> None:
    found = {p.stem.removeprefix("RESULTS-"): p for p in BENCH.glob("RESULTS-*.md")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))  # a new area is never dropped
    parts = [HEAD] + [section(found[n]) for n in names]
    (BENCH / "RESULTS.md").write_text("\n\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
