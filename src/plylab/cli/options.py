"""The flags several commands share, defined once so each idea has one spelling and one help text.

A flag two commands share is an `Annotated` alias here (`store: o.Store = DEFAULT_STORE`). Flags that go
together are a group: a frozen dataclass of such aliases (`Playing`: where and how a study plays; `Limits`:
a model budget) that a command takes as one keyword-only parameter (`*, playing: o.Playing`) under
`@o.grouped`, which lists the group's flags among the command's own, after them, in the group's order.
The four run-playing commands (`run`, `paper run`, `learn`, `suite run`) declare these flags nowhere else.

Old spellings stay as hidden aliases for one release (`--parallel` for `--concurrency`, `--name` for `--run`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import typer

from ..db import DEFAULT_STORE
from . import _study

if TYPE_CHECKING:
    from ..harness.backends import ExecOptions
    from ..harness.budget import Budget
    from ..harness.study import Job, Result, StoreT, Study
    from ..learning import Experiment, Learner

Store = Annotated[Path, typer.Option("--store", help="SQLite results store")]
Seed = Annotated[int, typer.Option("--seed", help="run seed; each game's seed is derived from it")]
Concurrency = Annotated[int, typer.Option("--concurrency", min=1, help="games in flight at once")]
Parallel = Annotated[int | None, typer.Option("--parallel", min=1, hidden=True)]  # old --concurrency
OldName = Annotated[str | None, typer.Option("--name", hidden=True)]  # old --run
Backend = Annotated[str, typer.Option("--backend", help="executor backend: local or ray")]
Address = Annotated[
    str | None,
    typer.Option(
        "--address", help="Ray cluster to join, e.g. 10.0.0.5:6379 or auto (default: start one here)"
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")]
MaxCalls = Annotated[
    int | None, typer.Option("--max-calls", help="stop starting games after N new model calls")
]
MaxTokens = Annotated[
    int | None, typer.Option("--max-tokens", help="... after N new tokens (input + output)")
]
MaxCost = Annotated[float | None, typer.Option("--max-cost", help="... after USD dollars of new calls")]
DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="print the games, expected model calls and (hosted models) tokens and cost, then stop; no store is created",
    ),
]


@dataclasses.dataclass(frozen=True)
class Playing:
    """Where and how a run-playing command plays its study: the store, the executor, the bar, a dry run."""

    group: ClassVar[bool] = True  # what `grouped` looks for

    store: Store = DEFAULT_STORE
    concurrency: Concurrency = 1
    backend: Backend = "local"
    address: Address = None
    quiet: Quiet = False
    dry_run: DryRun = False

    def exec_options(self, *, workers: int = 0) -> ExecOptions:
        from ..harness.driver import exec_options

        return exec_options(self.store, concurrency=self.concurrency, workers=workers, address=self.address)

    def learner(self, experiment: Experiment) -> Learner:
        """The learning protocol's study for `experiment`, playing as these flags say."""
        from ..learning import Learner

        return Learner(
            experiment,
            self.store,
            concurrency=self.concurrency,
            progress=not self.quiet,
            backend=self.backend,
            address=self.address,
        )

    def play(
        self, study: Study[StoreT, Job, Result], options: ExecOptions | None = None, *, stderr: bool = False
    ) -> None:
        """The forecast line, then the study played (`cli._study.play`); `options`: the executor's,
        by default these flags' own."""
        _study.play(
            study,
            self.store,
            options=options or self.exec_options(),
            backend=self.backend,
            quiet=self.quiet,
            dry_run=self.dry_run,
            stderr=stderr,
        )


@dataclasses.dataclass(frozen=True)
class Limits:
    """A run's model budget: no new game starts once the next one would exceed it."""

    group: ClassVar[bool] = True

    max_calls: MaxCalls = None
    max_tokens: MaxTokens = None
    max_cost: MaxCost = None

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.max_calls, self.max_tokens, self.max_cost))

    def budget(self) -> Budget | None:
        """A fresh budget (each run spends its own), None when no limit is given."""
        from ..harness.budget import Budget

        budget = Budget(max_calls=self.max_calls, max_tokens=self.max_tokens, max_cost=self.max_cost)
        return budget if budget.limited else None


def grouped(command: Callable[..., None]) -> Callable[..., None]:
    """`command` as Typer reads it: each parameter typed by a group (`playing: Playing`) replaced by the
    group's fields, each one option; called, the fields are gathered back into the group. Every
    parameter becomes keyword-only (Typer passes them by name), so a group may follow options with
    defaults."""
    signature = inspect.signature(command, eval_str=True)
    params: list[inspect.Parameter] = []
    groups: dict[str, tuple[type[Any], list[str]]] = {}
    for param in signature.parameters.values():
        kind = param.annotation
        if not getattr(kind, "group", False):
            params.append(param.replace(kind=inspect.Parameter.KEYWORD_ONLY))
            continue
        hints = typing.get_type_hints(kind, include_extras=True)
        fields = dataclasses.fields(kind)
        groups[param.name] = (kind, [f.name for f in fields])
        params += [
            inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name]
            )
            for f in fields
        ]
    names = [p.name for p in params]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        raise TypeError(f"{command.__name__}: a group's field has the name of another option: {clash}")

    @functools.wraps(command)
    def read(**given: Any) -> None:
        for name, (kind, fields) in groups.items():
            given[name] = kind(**{f: given.pop(f) for f in fields})
        command(**given)

    read.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    read.__annotations__ = {p.name: p.annotation for p in params}
    return read
