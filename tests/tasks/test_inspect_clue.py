"""`inspect eval plylab/clue -T condition=...`: the Clue study's games as inspect samples, every seat
the model under evaluation, each seat's call a ModelEvent, the game's end as the score."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.tasks.test_inspect_game import model_events, played  # also registers the scripted model


def eval_clue(tmp: Path, model: str, **task_args: Any) -> Any:
    from inspect_ai import eval as inspect_eval_api

    import plylab.tasks  # noqa: F401 - what the entry point loads

    [log] = inspect_eval_api(
        "plylab/clue", task_args=task_args, model=model, log_dir=str(tmp), display="none"
    )
    return log


@pytest.mark.slow
def test_a_clue_game_per_sample_every_seat_the_model_each_call_an_event(tmp_path: Path) -> None:
    log = eval_clue(tmp_path, "scripted-nomove/m", condition="matrix", games=1, turn_limit=6)
    assert log.status == "success", log.error
    (sample,) = log.samples
    record = played(sample)
    assert record.extra is not None
    assert record.extra["seats"] == ["clue-llm:model=scripted-nomove/m,matrix=on"] * 3  # the condition
    calls = sum(len(json.loads(m.attempts or "[]")) for m in record.moves)
    assert calls == 6 and len(model_events(sample)) == calls  # a turn each, no call lost to the transcript
    score = sample.scores["clue_end"]
    assert score.answer == "turn_limit" and score.value["solved"] == 0.0 and score.value["turns"] == 6.0
    assert math.isnan(score.value["matrix_win"])  # no winner: unscored


def test_an_unknown_condition_is_one_clear_error() -> None:
    from plylab.errors import UserError
    from plylab.tasks.clue import clue

    with pytest.raises(UserError, match="unknown condition 'matrx'; accepted: baseline"):
        clue(condition="matrx")
