"""One plot style and one way to save for every figure plylab draws (report, learning curves, Clue,
paper figures): the home of plotting, below the papers and the report, so none reaches up.

Everything a figure does not set itself comes from here: the site's colours in the site's order,
one font size, titles on the left, no top and right spines, a light grid behind the data, legends
without frames. A figure made inside `styled()` and saved inside it gets the style; the style is a
matplotlib rc context, so nothing global of the process changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# the site's palette (reports/static/site.css), then matplotlib's defaults for more series
PALETTE = ("#0969da", "#bf3989", "#1a7f37", "#9a6700", "#cf222e", "#8250df", "#57606a", "#1b7c83")

RC: dict[str, Any] = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.labelsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "savefig.dpi": 130,
}


@contextmanager
def styled() -> Iterator[None]:
    """Figures created and saved inside get plylab's style."""
    import matplotlib
    from cycler import cycler

    rc: Any = {**RC, "axes.prop_cycle": cycler(color=list(PALETTE))}  # matplotlib types keys as literals
    with matplotlib.rc_context(rc):
        yield


def save(fig: Figure, out_dir: Path, name: str) -> Path:
    """Write NAME.png and NAME.svg; return the PNG."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_dir / f"{name}.svg", bbox_inches="tight")
    png = out_dir / f"{name}.png"
    fig.savefig(png, dpi=130, bbox_inches="tight")
    return png
