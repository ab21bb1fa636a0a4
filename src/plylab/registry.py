"""A tiny named registry (the extension point for games, formulations, players and tables), and the one
loader of extensions that stand above the registry they extend.

A registry never names the modules that fill it. Most register themselves when their package imports them
(a game module of `games/`); the rest are declared as entry points in pyproject.toml, as inspect_ai and
Gymnasium load theirs: `[project.entry-points."plylab.players"]` says `mcts = "plylab.players.mcts:MctsPlayer"`,
the one place the player's name is written. The loader imports an entry point's module the first time its name
is asked for (so a report of MCTS games loads no model code), and Clue, the best response (above the store)
and a contributor's own package extend the registries below them without those naming them. Nothing else in
plylab imports a module by its name as a string (`tests/core/test_floors.py` checks it, and checks that each
declared module stands above the registry it extends); a package whose names load lazily (`models`) does so
through `lazy_attributes` here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Generic, TypeVar

from .errors import one_of

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

T = TypeVar("T")


@cache
def declared(group: str) -> dict[str, EntryPoint]:
    """The entry points of `group` by name, plylab's own and any installed package's (read once)."""
    from importlib.metadata import entry_points  # here: `plylab --help` reads no metadata

    found = {ep.name: ep for ep in entry_points(group=group)}
    if not found:
        raise RuntimeError(
            f"no '{group}' entry points are installed: plylab's metadata is out of date "
            "(pyproject.toml declares them); reinstall it with `pip install -e .`"
        )
    return found


def declared_name(group: str, item: object) -> str | None:
    """The name `item` (a class or function) is declared under in `group`, if it is: how a class
    declared only by its entry point learns its name."""
    where = f"{getattr(item, '__module__', '')}:{getattr(item, '__qualname__', '')}"
    return next((name for name, ep in declared(group).items() if ep.value == where), None)


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """A package's `__getattr__` (PEP 562) that imports the module (`homes[name]`, within `package`) an
    attribute lives in when it is first asked for, so importing the package costs nothing. The package
    imports each of those modules under `if TYPE_CHECKING:` as well, where the floors test sees them."""

    def __getattr__(name: str) -> object:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{homes[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


class Registry(Generic[T]):
    """Items by name. With `group`, names declared as entry points of that group are loaded on first use."""

    def __init__(self, kind: str, group: str | None = None) -> None:
        self.kind = kind
        self.group = group
        self._items: dict[str, T] = {}
        self._deferred: dict[str, Callable[[], object]] = {}  # name -> what registers it when called

    def defer(self, names: Iterable[str], load: Callable[[], object]) -> None:
        """Names that `load` registers, called on first use. `load` imports inside itself, where the
        floors test sees the import (a module name in a string it could not see)."""
        self._deferred.update(dict.fromkeys(names, load))

    def _pending(self) -> dict[str, Callable[[], object]]:
        """Every name not registered yet, with what registers it."""
        out = {n: load for n, load in self._deferred.items() if n not in self._items}
        if self.group is not None:
            out |= {n: ep.load for n, ep in declared(self.group).items() if n not in self._items}
        return out

    def _load(self, name: str | None = None) -> None:
        pending = self._pending()
        for load in dict.fromkeys(m for n, m in pending.items() if name is None or n == name):
            load()  # importing the module registers its items (e.g. `@register_player`)
        self._deferred = {n: m for n, m in self._deferred.items() if n not in self._items}

    def add(self, name: str, item: T) -> T:
        if name in self._items:
            raise ValueError(f"{self.kind} '{name}' registered twice")
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        def deco(item: T) -> T:
            return self.add(name, item)

        return deco

    def get(self, name: str) -> T:
        if name not in self._items:
            self._load(name if name in self else None)
        try:
            return self._items[name]
        except KeyError:
            raise one_of(self.kind, name, list(self._items)) from None

    def names(self) -> list[str]:
        """Every name, in registration order; a registry whose items are declared as entry points (loaded
        in whatever order their names are first asked for) lists them in name order."""
        self._load()
        return sorted(self._items) if self.group is not None else list(self._items)

    def __contains__(self, name: object) -> bool:
        if name in self._items or name in self._deferred:
            return True
        return self.group is not None and isinstance(name, str) and name in declared(self.group)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
