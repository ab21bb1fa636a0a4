"""`inspect eval plylab/game -T games=1000000000 --limit 1`: a task that takes a count makes its samples
as inspect asks for them (`tasks.stream.Numbered`), so building it costs the same memory whatever the
count, and `--limit` plays only what it allows. Measured with tracemalloc, never with a clock."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from plylab.tasks.stream import WINDOW, Numbered
from tests.tasks.test_inspect_game import eval_in_process

BILLION = 10**9


def peak_bytes(build: Callable[[], Any]) -> int:
    """The most memory Python allocated while `build` ran (what it kept and what it let go)."""
    build()  # imports and caches first: only the build itself is measured
    tracemalloc.start()
    try:
        build()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", ["game", "clue"])
def test_building_a_task_costs_the_same_memory_whatever_its_count(name: str) -> None:
    """A billion games cost what one window of them costs (a list of a billion samples would hold
    gigabytes), and only the first window is made."""
    from plylab.tasks.clue import clue
    from plylab.tasks.game import game

    make = game if name == "game" else clue
    small = peak_bytes(lambda: make(games=WINDOW))
    # twenty windows first: a task that made its samples up front fails here, at once
    assert peak_bytes(lambda: make(games=20 * WINDOW)) < 1.5 * small + 2**20
    assert peak_bytes(lambda: make(games=BILLION)) < 1.5 * small + 2**20
    task = make(games=BILLION)
    assert isinstance(task.sample_source, Numbered)
    assert task.sample_source.drawn == WINDOW and len(task.dataset) == WINDOW


def test_the_samples_are_drawn_in_order_until_the_count() -> None:
    """A window, one more per finished sample, the next window when none wait; ids 1..count, each
    made once."""
    import asyncio

    from inspect_ai.dataset import Sample

    count = WINDOW + 3
    source = Numbered(count, lambda idx: Sample(id=idx + 1, input=str(idx)))
    drawn = [s.id for s in source.initial_samples()]
    drawn += [s.id for s in asyncio.run(source.sample_complete(None)) or []]  # type: ignore[arg-type]
    drawn += [s.id for s in asyncio.run(source.next_samples()) or []]
    assert drawn == list(range(1, count + 1))
    assert asyncio.run(source.next_samples()) is None
    assert asyncio.run(source.sample_complete(None)) is None  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_billion_games_limited_to_one_play_one(tmp_path: Path) -> None:
    """`-T games=1000000000 --limit 1` (here through `inspect_ai.eval`): one game played and scored."""
    log = eval_in_process(
        tmp_path,
        "scripted-nomove/m",
        generate={"limit": 1},
        game="tic_tac_toe",
        opponent="random",
        games=BILLION,
    )
    assert log.status == "success", log.error
    assert [s.id for s in log.samples] == [1]
    assert log.samples[0].scores["ground_truth"].value["failure"] == 1.0
