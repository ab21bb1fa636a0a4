"""Reproducing the two seed papers: every table and figure as a protocol, the published numbers as
data, and the runs and reports that put them side by side (`plylab paper list | run | report`).

    PROTOCOLS["table3"]            # what Table 3 plays (protocols.py, seed lines cited)
    published("table3")            # what the paper prints (published/*.json)
    play_plan(p, Options(model))   # the harness plan of a table (plan.py)
    report(store, "table3", "markdown")
    table_layout(table_data(store, "table7"))   # the printed layout as data (two-level header)
"""

from .plan import Options, learning_experiments, play_plan, reference_plan
from .protocols import PROTOCOLS, Protocol, get_protocol
from .published import published
from .report import report, table_data, table_layout

__all__ = [
    "PROTOCOLS",
    "Options",
    "Protocol",
    "get_protocol",
    "learning_experiments",
    "play_plan",
    "published",
    "reference_plan",
    "report",
    "table_data",
    "table_layout",
]
