"""A tiny named registry: the extension point for games, formulations and players."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import import_module
from typing import Generic, TypeVar

from .errors import one_of

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._deferred: dict[str, str] = {}  # name -> the module that registers it when imported

    def defer(self, modules: dict[str, str]) -> None:
        """Names whose module is imported on first use (so a command loads only the players it names)."""
        self._deferred.update(modules)

    def _load(self, name: str | None = None) -> None:
        for module in dict.fromkeys(m for n, m in self._deferred.items() if name is None or n == name):
            import_module(module)
            self._deferred = {n: m for n, m in self._deferred.items() if m != module}

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
        if name not in self._items and self._deferred:
            self._load(name if name in self._deferred else None)
        try:
            return self._items[name]
        except KeyError:
            raise one_of(self.kind, name, list(self._items)) from None

    def names(self) -> list[str]:
        self._load()
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items or name in self._deferred

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
