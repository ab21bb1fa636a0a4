"""Rendering, one package for every table and figure: `grid` draws cells in every format, `table`
is the typed table and the registry of table definitions, `plots` the style and saving of figures.
It imports nothing of plylab above the ground floor, so analysis, reports, the papers and Clue all
draw through it."""
