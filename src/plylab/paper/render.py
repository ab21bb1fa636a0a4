"""How a paper table, figure or Clue table is written out, kept under its old name: the home is
`plylab.render.grid` (grids, comments and a plain HTML page in every report format)."""

from ..render.grid import comment, grid, html_page

__all__ = ["comment", "grid", "html_page"]
