"""Parse the PlyBench seed's tables straight from its text (the check on the shipped published data).

Each table is a block of tab-separated rows under a header line; a cell is `.880 [.828, .918]`
(rate or mean with its interval), `7247.8 $\\pm$578.1` (mean ± half-width) or an integer count.
"""

from __future__ import annotations

import re
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"  # shared/ lies beside the checkout
RATE = re.compile(r"\$?([\d.]+)(\^\{\\dagger\})?\$?\s*\[([\d.]+),\s*([\d.]+)\]")
PM = re.compile(r"([\d.]+)\s*\$\\pm\$\s*([\d.]+)")

# table -> (first line, last line) of its body rows in the seed (1-based, inclusive)
BODIES = {
    "table2": (67, 72),
    "table3": (82, 84),
    "table4": (103, 108),
    "table5": (117, 122),
    "table6": (206, 214),
    "table7": (222, 230),
    "table8": (251, 259),
    "table9": (266, 274),
    "table10": (293, 301),
    "table11": (310, 318),
    "table12": (331, 339),
    "table13": (346, 354),
    "table14": (366, 369),
}


def cell(text: str) -> dict:
    text = text.strip()
    m = RATE.fullmatch(text)
    if m:
        out = {"value": float(m.group(1)), "low": float(m.group(3)), "high": float(m.group(4))}
        if m.group(2):
            out["dagger"] = True
        return out
    m = PM.fullmatch(text)
    if m:
        v, h = float(m.group(1)), float(m.group(2))
        return {"value": v, "pm": h}
    return {"count": int(text)}


def parse_table(lines: list[str], name: str, columns: list[str]) -> dict[str, dict[str, dict]]:
    first, last = BODIES[name]
    rows: dict[str, dict[str, dict]] = {}
    model = ""
    for line in lines[first - 1 : last]:
        parts = line.rstrip("\n").split("\t")
        if name == "table14":  # two lines per model: optimality, then tokens
            model = parts[0] or model
            metric = "optimality" if parts[1] == "Optimality" else "tokens"
            for eff, text in zip(("low", "medium", "high"), parts[2:]):
                rows.setdefault(model, {})[f"{metric}.{eff}"] = cell(text)
            continue
        values = [p for p in parts[1:] if p.strip()]
        assert len(values) == len(columns), (name, line, columns)
        rows[parts[0]] = {c: cell(v) for c, v in zip(columns, values)}
    return rows
