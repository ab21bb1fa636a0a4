"""Suites: fixed positions with their ground truth, answered one call each by any player.

`file` reads and writes the content-hashed suite file; `build` draws and grades its positions;
`study` runs it on the one driver into the store; `report` is its tables (per player, per pair).
"""
