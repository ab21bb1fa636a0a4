"""`inspect eval plylab/game`: plylab's games as an inspect task, found through the package's
`inspect_ai` entry point, the model under evaluation as the player, its calls in the sample's
transcript and the game's ground truth as the score.

The shared environment's plylab is installed from another checkout, so the entry point is declared
to inspect here by a distribution made from this checkout's pyproject (`entry_point_path`): the
command line finds `plylab/game` exactly as it will after `pip install plylab`.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi

from plylab.harness.records import GameRecord
from plylab.harness.rows import MoveRow

ROOT = Path(__file__).resolve().parents[2]


def entry_points_declared() -> dict[str, str]:
    """pyproject's `[project.entry-points.inspect_ai]`."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(data["project"]["entry-points"]["inspect_ai"])


def entry_point_path(tmp: Path) -> Path:
    """A folder holding a distribution whose only content is pyproject's inspect_ai entry points."""
    info = tmp / "plylab_entry_point-0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plylab-entry-point\nVersion: 0.0\n")
    lines = [f"{k} = {v}" for k, v in entry_points_declared().items()]
    (info / "entry_points.txt").write_text("[inspect_ai]\n" + "\n".join(lines) + "\n")
    return tmp


def inspect_eval(tmp: Path, *args: str, timeout: int = 600) -> Any:
    """`inspect eval ARGS` in a child process, plylab found through the entry point alone; its log."""
    from inspect_ai.log import read_eval_log

    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect, "inspect_ai's `inspect` command is installed with plylab"
    logs = tmp / "logs"
    # The installed package's own entry point where `pip install -e .` wrote it (make setup), the
    # environment as it is; else one made from pyproject, on the path. Never two: a second distribution
    # declaring it (ours, or src/'s egg-info put on the path) makes inspect find no task at all.
    installed = any(e.value.startswith("plylab") for e in metadata.entry_points(group="inspect_ai"))
    env = dict(os.environ)
    if not installed:
        env["PYTHONPATH"] = f"{entry_point_path(tmp / 'ep')}:{ROOT / 'src'}"
    done = subprocess.run(
        [inspect, "eval", *args, "--log-dir", str(logs), "--display", "none", "--no-log-realtime"],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = sorted(logs.glob("*.eval"))
    assert len(found) == 1, found
    return read_eval_log(str(found[0]))


class ScriptedAPI(ModelAPI):
    """A scripted model whose every reply is no move (inspect's own `mockllm` counts tokens with
    tiktoken, which downloads its tables: not offline)."""

    async def generate(
        self, input: list[ChatMessage], tools: list[Any], tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        return ModelOutput.from_content(self.model_name, "I would rather not move.")


@modelapi(name="scripted-nomove")
def _scripted() -> type[ModelAPI]:
    return ScriptedAPI


def eval_in_process(
    tmp: Path,
    model: str,
    generate: dict[str, Any] | None = None,
    roles: dict[str, str] | None = None,
    **task_args: Any,
) -> Any:
    """`inspect_ai.eval("plylab/game", ...)` in this process: the task's parameters, inspect's
    generate options (`generate`: `batch`, `temperature`, ...) and model roles (`roles`) as
    `inspect eval` flags give them."""
    from inspect_ai import eval as inspect_eval_api

    import plylab.tasks  # noqa: F401 - what the entry point loads

    [log] = inspect_eval_api(
        "plylab/game",
        task_args=task_args,
        model=model,
        model_roles=roles,
        log_dir=str(tmp),
        display="none",
        **(generate or {}),
    )
    return log


def model_events(sample: Any) -> list[Any]:
    from inspect_ai.event import ModelEvent

    return [e for e in sample.events if isinstance(e, ModelEvent)]


def played(sample: Any) -> GameRecord:
    """The sample's game, read back typed from its store (`tasks.state.GamePlayed`)."""
    from plylab.tasks.state import GamePlayed

    record = sample.store_as(GamePlayed).record
    assert record is not None
    return record


def player_moves(sample: Any) -> list[MoveRow]:
    record = played(sample)
    return [m for m in record.moves if m.seat == record.player_seat]


def opponent_moves(sample: Any) -> list[MoveRow]:
    record = played(sample)
    return [m for m in record.moves if m.seat != record.player_seat]


def events_by_role(sample: Any) -> dict[str | None, list[Any]]:
    """The sample's ModelEvents by inspect model role (None: the model under evaluation)."""
    out: dict[str | None, list[Any]] = {}
    for e in model_events(sample):
        out.setdefault(e.role, []).append(e)
    return out


def test_the_entry_point_names_the_tasks_module() -> None:
    """What `pip install plylab` declares: inspect loads `plylab.tasks` for any `plylab/...` name,
    and that module registers the task and the `plylab` model provider."""
    from inspect_ai._util.registry import registry_find, registry_lookup, registry_unqualified_name

    assert entry_points_declared() == {"plylab": "plylab.tasks"}
    import plylab.tasks  # noqa: F401

    assert registry_lookup("task", "plylab/game") is not None
    assert registry_find(lambda i: i.type == "modelapi" and registry_unqualified_name(i) == "plylab")


@pytest.mark.slow
def test_a_game_per_sample_sides_switched_each_call_an_event_each_sample_scored(tmp_path: Path) -> None:
    """A scripted model that never names a move, `on_failure=random` playing a random move in its
    place (recorded as the model's failure): a sample per game, sides switched, one ModelEvent per
    model move, each sample scored by the exact oracle, the metrics with their intervals."""
    log = eval_in_process(
        tmp_path,
        "scripted-nomove/m",
        game="tic_tac_toe",
        opponent="optimal",
        games=2,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    assert [played(s).player_seat for s in log.samples] == [0, 1]  # sides switched
    for sample in log.samples:
        moves = player_moves(sample)
        assert moves and all(m.failure_kind == "unparseable" for m in moves)
        assert len(model_events(sample)) == len(moves)
        score = sample.scores["ground_truth"]
        assert score.metadata["scale"] == "exact" and score.metadata["decisions"] == len(moves)
        assert set(score.value) == {"optimal", "loss", "outcome", "failure"}
    names = {s.name: s for s in log.results.scores}
    assert "plylab/wilson_low" in names["optimal"].metrics and "stderr" in names["loss"].metrics
    best = sum(s.scores["ground_truth"].metadata["best"] for s in log.samples)
    n = sum(s.scores["ground_truth"].metadata["informative"] for s in log.samples)
    from plylab.analysis.stats import wilson

    assert names["optimal"].metrics["plylab/wilson_high"].value == pytest.approx(wilson(best, n).high)


@pytest.mark.slow
def test_a_model_that_cannot_move_forfeits_and_scores_a_failure(tmp_path: Path) -> None:
    log = eval_in_process(tmp_path, "scripted-nomove/m", game="tic_tac_toe", opponent="random", games=2)
    assert log.status == "success", log.error
    for sample in log.samples:
        assert len(model_events(sample)) == 1  # the one call, whose reply was no move
        value = sample.scores["ground_truth"].value
        assert value["failure"] == 1.0 and value["outcome"] == 0.0
        assert sample.scores["ground_truth"].answer == "failure"
        assert math.isnan(value["optimal"])  # no move played: unscored, not a zero


@pytest.mark.slow
def test_inspect_batch_reaches_the_generate_config_of_every_move(tmp_path: Path) -> None:
    """`inspect eval --batch`: the eval's generate config reaches each move's call (its ModelEvent
    records the config the provider was asked with), beside plylab's own per-call seed. Whether a
    provider then batches is inspect's (OpenAI, Anthropic, Google): no local server offers it."""
    log = eval_in_process(
        tmp_path,
        "scripted-nomove/m",
        generate={"batch": 50},
        game="tic_tac_toe",
        opponent="optimal",
        games=2,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    assert log.eval.config is not None
    events = [e for sample in log.samples for e in model_events(sample)]
    assert events and all(e.config.batch == 50 for e in events)
    assert all(e.config.seed is not None for e in events)  # plylab's seed per call (models.call)


@pytest.mark.slow
def test_the_llm_players_batch_key_reaches_inspects_generate_config(tmp_path: Path) -> None:
    """`llm:...,batch=on` (plylab's own runs and `-T player=batch=on`): the same door, inspect's `batch`."""
    from plylab.models import GenerateConfig as PlylabConfig
    from plylab.models import get_model

    log = eval_in_process(
        tmp_path,
        "scripted-nomove/m",
        game="tic_tac_toe",
        opponent="optimal",
        games=2,
        player="on_failure=random,batch=on",
    )
    assert log.status == "success", log.error
    events = [e for sample in log.samples for e in model_events(sample)]
    assert events and all(e.config.batch is True for e in events)
    local = get_model("local")  # plylab's own door (weights not loaded until a call)
    assert local._inspect_config(PlylabConfig(batch=True), None).batch is True
    assert local._inspect_config(PlylabConfig(), None).batch is None


@modelapi(name="scripted-other")
def _scripted_other() -> type[ModelAPI]:
    return ScriptedAPI


@pytest.mark.slow
def test_an_llm_opponent_calls_inspects_opponent_role_each_call_in_the_transcript(tmp_path: Path) -> None:
    """`-T opponent=llm:... --model-role opponent=M`: the opponent's moves are calls of inspect's role
    model, each a ModelEvent of the sample with the role `opponent`, one per opponent move, asked
    with the spec's own keys (`batch=on`); the player's stay the model under evaluation's (no role),
    one per player move."""
    log = eval_in_process(
        tmp_path,
        "scripted-nomove/m",
        roles={"opponent": "scripted-other/o"},
        game="tic_tac_toe",
        opponent="llm:on_failure=random,batch=on",
        games=2,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    assert [played(s).player_seat for s in log.samples] == [0, 1]
    for sample in log.samples:
        by_role = events_by_role(sample)
        assert set(by_role) == {None, "opponent"}
        assert len(by_role[None]) == len(player_moves(sample)) > 0
        assert len(by_role["opponent"]) == len(opponent_moves(sample)) > 0
        assert {e.model for e in by_role["opponent"]} == {"scripted-other/o"}
        assert {e.model for e in by_role[None]} == {"scripted-nomove/m"}
        # the opponent's own keys are its own: its batch=on reaches its calls, not the player's
        assert all(e.config.batch is True for e in by_role["opponent"])
        assert all(e.config.batch is None for e in by_role[None])
        # the opponent's moves are the role model's failures, played at random (its own on_failure)
        assert all(m.failure_kind == "unparseable" for m in opponent_moves(sample))
        assert (
            played(sample).opponent == "llm:model=scripted-other/o,batch=on,on_failure=random,role=opponent"
        )


@pytest.mark.slow
def test_an_llm_opponents_spec_model_is_the_roles_default_and_the_model_role_wins(tmp_path: Path) -> None:
    """`-T opponent=llm:model=M`: M is the `opponent` role's default (the task declares it), and
    `--model-role opponent=N` replaces it, as inspect lets an eval's roles replace a task's."""
    spec = "llm:model=scripted-other/from-spec,on_failure=random"
    log = eval_in_process(
        tmp_path / "default",
        "scripted-nomove/m",
        game="tic_tac_toe",
        opponent=spec,
        games=1,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    assert {e.model for e in events_by_role(sample)["opponent"]} == {"scripted-other/from-spec"}
    log = eval_in_process(
        tmp_path / "role",
        "scripted-nomove/m",
        roles={"opponent": "scripted-other/from-role"},
        game="tic_tac_toe",
        opponent=spec,
        games=1,
        player="on_failure=random",
    )
    assert log.status == "success", log.error
    [sample] = log.samples
    assert {e.model for e in events_by_role(sample)["opponent"]} == {"scripted-other/from-role"}


@pytest.mark.slow
def test_an_opponent_role_for_an_opponent_without_a_model_is_one_clear_error(tmp_path: Path) -> None:
    log = eval_in_process(
        tmp_path, "scripted-nomove/m", roles={"opponent": "scripted-other/o"}, game="tic_tac_toe", games=1
    )
    assert log.status == "error"
    assert "--model-role opponent= gives a model to an llm opponent" in log.error.message
    assert "'random'" in log.error.message


def test_role_outside_an_inspect_task_is_one_clear_error(cli) -> None:  # noqa: ANN001
    res = cli(
        "run",
        "--game",
        "tic_tac_toe",
        "--player",
        "llm:role=opponent",
        "--opponent",
        "random",
        "--games",
        "1",
    )
    assert res.code == 2
    assert "role=opponent names an inspect model role" in res.err
    assert "Traceback" not in res.err


def test_bad_task_parameters_are_one_clear_error() -> None:
    import plylab.tasks  # noqa: F401
    from plylab.errors import UserError
    from plylab.tasks.game import game

    with pytest.raises(UserError, match="unknown output 'enums'"):
        game(game="tic_tac_toe", games=2, output="enums")
    with pytest.raises(UserError, match="inspect's --model"):
        game(game="tic_tac_toe", games=2, player="model=openai/gpt-5")
    with pytest.raises(UserError, match="-T opponent= takes no role"):
        game(game="tic_tac_toe", games=2, opponent="llm:role=opponent")


@pytest.mark.model
def test_inspect_eval_with_the_local_model(tmp_path: Path) -> None:
    """`inspect eval plylab/game ... --model plylab/local`, offline: the embedded model through the
    `plylab` provider, its moves constrained to the legal ones (`-T output=enum`); one ModelEvent
    per model move, a score per sample."""
    log = inspect_eval(
        tmp_path,
        "plylab/game",
        "-T",
        "game=tic_tac_toe",
        "-T",
        "opponent=optimal",
        "-T",
        "games=2",
        "-T",
        "output=enum",
        "--model",
        "plylab/local",
    )
    assert log.status == "success", log.error
    assert str(log.eval.model) == "plylab/local"
    for sample in log.samples:
        moves = player_moves(sample)
        assert moves and all(m.failure_kind is None for m in moves)  # enum: every move legal
        events = model_events(sample)
        assert len(events) == len(moves)
        assert [e.output.completion for e in events] == [m.reply for m in moves]
        assert sample.scores["ground_truth"].metadata["decisions"] == len(moves)


@pytest.mark.model
def test_kuhn_poker_scores_are_the_equilibriums(tmp_path: Path) -> None:
    """Each model decision of a Kuhn poker game graded again here by the game's equilibrium, from the
    stored state: the sample's loss and optimal rate are those grades'."""
    from plylab.games import get_game
    from plylab.oracles.graded import Grade

    log = eval_in_process(
        tmp_path, "plylab/local", game="kuhn_poker", opponent="random", games=2, output="enum"
    )
    assert log.status == "success", log.error
    game = get_game("kuhn_poker")
    assert game.ground_truth is not None and game.ground_truth.kind == "equilibrium"
    grader = game.ground_truth.grader(game)
    assert grader is not None
    for sample in log.samples:
        grades: list[tuple[Grade, int]] = []
        for m in player_moves(sample):
            state = game.engine.deserialize_state(m.state)
            judged = grader.judge(state, m.action)
            assert judged.grade is not None and judged.grade.unit == "payoff"
            grades.append((judged.grade, m.action))
        informative = [(g, a) for g, a in grades if g.informative]
        score = sample.scores["ground_truth"]
        assert score.metadata["scale"] == "equilibrium"
        assert score.metadata["informative"] == len(informative)
        if informative:
            loss = sum(g.loss(a) for g, a in informative) / len(informative)
            best = sum(g.is_best(a) for g, a in informative) / len(informative)
            assert score.value["loss"] == pytest.approx(loss)
            assert score.value["optimal"] == pytest.approx(best)
        else:
            assert math.isnan(score.value["loss"])
        assert len(model_events(sample)) == len(grades)


@pytest.mark.model
def test_inspect_eval_with_an_llm_opponent_through_the_model_role(tmp_path: Path) -> None:
    """`inspect eval plylab/game -T opponent=llm:output=enum --model plylab/local --model-role
    opponent=plylab/local`, offline: both seats the embedded model, each seat's calls its own
    ModelEvents (the opponent's with the role `opponent`), one per move of that seat, each event's
    reply the move's."""
    log = inspect_eval(
        tmp_path,
        "plylab/game",
        "-T",
        "game=tic_tac_toe",
        "-T",
        "games=2",
        "-T",
        "opponent=llm:output=enum",
        "-T",
        "output=enum",
        "--model",
        "plylab/local",
        "--model-role",
        "opponent=plylab/local",
    )
    assert log.status == "success", log.error
    assert log.eval.model_roles is not None and log.eval.model_roles["opponent"].model == "plylab/local"
    assert log.stats.role_usage["opponent"].output_tokens > 0  # inspect counts the role's usage apart
    for sample in log.samples:
        by_role = events_by_role(sample)
        for role, moves in ((None, player_moves(sample)), ("opponent", opponent_moves(sample))):
            assert moves and all(m.failure_kind is None for m in moves)  # enum: every move legal
            assert [e.output.completion for e in by_role[role]] == [m.reply for m in moves]
        assert played(sample).opponent == "llm:model=plylab/local,output=enum,role=opponent"
