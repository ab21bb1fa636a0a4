"""`python -m plylab` is the `plylab` command."""

from .cli import entry

entry()
