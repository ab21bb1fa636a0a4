"""From stored games to numbers: intervals, per-matchup metrics, tables.

Here, the names `plylab report` takes (its tables, pivots, formats and recognition scopes): the command
lists them in its help without importing the modules that build the tables (`plylab --help` loads no
analysis module).
"""

FORMATS = ("table", "markdown", "csv", "latex", "json")
TABLES = ("matchups", "outcomes", "optimality", "recognition", "tokens", "equilibrium")
REPORT_TABLES = (*TABLES, "chess", "ratings")  # what `plylab report --table` accepts
BY = ("formulation", "opponent", "game")  # a table's pivot columns
# Which wording counts: the game's names and spellings (the paper's, 003 l.305 "explicitly identify"
# the game "by name") or, as a named option, also the wider set (other languages, "X and O",
# "misère", "marienbad", nimber).
SCOPES = ("names", "wide")
