"""`python -m plylab` is the `plylab` command."""

from .entry import entry

entry()
