"""What the report's tables are built from (`plylab report --table`): a store, the run, the options.

Its own module so that a table defined beside the paper's layouts (analysis/tables.py) and one
defined elsewhere (analysis/ratings_table.py) both build from it, and `tables` registers them all
without importing a module that imports it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .results import MatchupRow

if TYPE_CHECKING:
    from ..harness.store import Store


@dataclass(frozen=True)
class ReportSource:
    """What the report's tables are built from: a store, the run to read, and the report's options."""

    store: Store
    run: str | None = None
    by: str = "opponent"
    recognition_on: str = "trace"
    recognize: str = "names"
    _rows: list[MatchupRow] = field(default_factory=list, compare=False, repr=False)

    def rows(self) -> list[MatchupRow]:
        """The matchup rows, read from the store once however many tables are built from them."""
        if not self._rows:
            from .metrics import matchup_results  # scipy is slow to import: only when a table is built

            self._rows.extend(matchup_results(self.store, self.run, self.recognition_on, self.recognize))
        return self._rows
