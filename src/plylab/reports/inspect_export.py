"""`plylab export DIR --format inspect`: stored runs as inspect eval logs, for `inspect view`.

One log per run and matchup (an inspect log has one model), one sample per game; the task is named
by the run, the game and the player's canonical spec, so two runs of one matchup stay apart. A
sample's events are the game as it was played: each model call of the player (every attempt, its
reasoning included, failed ones marked) is a model event whose input is that call's prompt alone,
since every move is an independent call, and every other move is an info event; its messages are
the last call's. Its target is what the oracle says the player could achieve (`win`/`draw`/`loss`
from its first valued move; for an equilibrium or engine, that scale's best moves), its scores are
`outcome` (win/draw/loss/failure from the player's side), `optimality` (the share of its scored
moves that were optimal, every move's verdict in the score's metadata) and `ground_truth`, the
same figures and metrics `inspect eval plylab/game` scores with (`analysis.inspect_scores`: optimal rate and
loss on the one graded scale, failures, a chess game's ACPL and accuracy), and its metadata holds the
game's identity (game, formulation, canonical specs, seat, seed, job key); the log's metadata
holds the run's name, seed and plan. Logs are written with inspect's own `write_eval_log`, so
`inspect view` and `read_eval_log` open them.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..harness.rows import GameRow, MoveRow
from ..harness.store import Store, expand_attempts, reading
from ..jsontypes import JSONObject
from ..players.canonical import canonical_spec, printed_run_name
from ..printable import printable
from ..specs import parse_spec

if TYPE_CHECKING:  # inspect_ai loads only when logs are written
    from inspect_ai.event import Event
    from inspect_ai.log import EvalResults, EvalSample
    from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, Content, ModelUsage
    from inspect_ai.scorer import Score

    from ..analysis.inspect_scores import GameScore

OUTCOME_VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0, "failure": 0.0}
TASK = "plylab"
# a run's status -> an inspect log's
STATUS = {"finished": "success", "running": "started", "failed": "error"}


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).isoformat()


def _model(spec: str) -> str:
    """The inspect model name of a player: its `model=` key, or `plylab/<player>` for a classic bot."""
    try:
        parsed = parse_spec(spec)
    except UserError:
        return f"plylab/{spec}"
    model = parsed.options.get("model")
    if not model:
        return f"plylab/{parsed.name}"
    return model if "/" in model else f"plylab/{model}"


def _model_args(spec: str) -> dict[str, str]:
    """The spec's keys besides `model` (which is the log's model): `output=json`, `effort=high`."""
    try:
        options = parse_spec(spec).options
    except UserError:
        return {}
    return {k: v for k, v in options.items() if k != "model"}


def _slug(text: str) -> str:
    """A file name from a stored name; never `.` or `..` (no leading dots), so a run named `..` is
    written inside the output folder, not above it."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:120] or "run"


VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


def _tries(m: MoveRow) -> list[JSONObject]:
    """A move's model calls, in order (every attempt; one for an older store without attempts)."""
    attempts = expand_attempts(json.loads(m.attempts), m) if m.attempts else None
    return attempts or (
        [{"prompt": m.prompt, "reply": m.reply, "reasoning": m.reasoning}] if m.prompt else []
    )


def _text(a: JSONObject, key: str) -> str:
    """A text of a call ("" where it has none)."""
    found = a.get(key)
    return found if isinstance(found, str) else ""


def _call(m: MoveRow, k: int, a: JSONObject) -> tuple[ChatMessageUser, ChatMessageAssistant]:
    """One call as inspect messages: what it saw (the prompt) and what it returned."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ContentReasoning, ContentText

    meta: JSONObject = {"ply": m.ply, "attempt": k + 1, "move": m.action_label}
    if a.get("failure"):
        meta["failure"] = a["failure"]
    content: list[Content] = []
    if a.get("reasoning"):
        content.append(ContentReasoning(reasoning=_text(a, "reasoning")))
    text = _text(a, "reply")
    if a.get("failure"):
        error = f": {a['error']}" if a.get("error") else ""
        text = f"{text}\n\n[plylab: this attempt failed: {a['failure']}{error}]".strip()
    content.append(ContentText(text=text))
    user = ChatMessageUser(content=_text(a, "prompt"), metadata=meta)
    return user, ChatMessageAssistant(content=content, metadata=meta)


def _error(a: JSONObject) -> str | None:
    """A failed call's failure and error as inspect shows them (None for a call that did not fail)."""
    failure = a.get("failure")
    if not failure:
        return failure if isinstance(failure, str) else None
    error = a.get("error")
    return f"{failure}{': ' + str(error) if error else ''}"


def _events(g: GameRow, moves: list[MoveRow], model: str) -> tuple[list[Event], list[ChatMessage]]:
    """The game as inspect events, one per call: each of the player's model calls is a model event
    with its own input (that call's prompt, alone: every move is an independent call) and output;
    every other move (the opponent's, or a bot player's) is an info event. Returns (events, the
    last call's messages), the latter being the sample's `messages`."""
    from inspect_ai.event import InfoEvent, ModelEvent
    from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage

    events: list[Event] = []
    last: list[ChatMessage] = []
    clock = 0.0  # seconds into the game: the store keeps each move's duration, not its start
    for m in moves:
        when = datetime.fromtimestamp(g.started + clock, tz=UTC)
        tries = _tries(m) if m.seat == g.player_seat else []
        for k, a in enumerate(tries):
            user, reply = _call(m, k, a)
            final = k == len(tries) - 1
            output = ModelOutput.from_message(reply, stop_reason="stop")
            output.model = model
            if final:
                output.usage = ModelUsage(
                    input_tokens=m.input_tokens,
                    output_tokens=m.output_tokens,
                    total_tokens=m.input_tokens + m.output_tokens,
                    reasoning_tokens=m.reasoning_tokens or None,
                    total_cost=m.cost,
                )
            events.append(
                ModelEvent(
                    model=model,
                    input=[user],
                    tools=[],
                    tool_choice="none",
                    config=GenerateConfig(),
                    output=output,
                    error=_error(a),
                    cache="read" if final and m.cache_hits and not m.calls else None,
                    timestamp=when,
                    working_start=clock,
                    completed=datetime.fromtimestamp(g.started + clock + m.elapsed, tz=UTC)
                    if final
                    else None,
                    working_time=m.elapsed if final else None,
                    metadata={"ply": m.ply, "attempt": k + 1, "move": m.action_label, "seat": m.seat},
                )
            )
            last = [user, reply]
        if not tries:
            who = "player" if m.seat == g.player_seat else "opponent"
            events.append(
                InfoEvent(
                    source=f"plylab/{who}",
                    data={
                        "ply": m.ply,
                        "seat": m.seat,
                        "who": m.player or (g.player if who == "player" else g.opponent),
                        "move": m.action_label,
                        **({"failure": m.failure_kind} if m.failure_kind else {}),
                    },
                    timestamp=when,
                    working_start=clock,
                )
            )
        clock += max(0.0, m.elapsed)
    return events, last


def _target(g: GameRow, moves: list[MoveRow], graded: GameScore) -> tuple[str, JSONObject]:
    """What the oracle says the player could achieve: the best exact value among its legal moves at
    its first move the oracle valued (perfect play from there on, by both sides); for a game graded
    by an equilibrium or an engine, its best moves on that scale; `unknown` only where nothing
    grades the player's moves."""
    for m in moves:
        if m.seat != g.player_seat or not m.values_json:
            continue
        values = [v for v in json.loads(m.values_json).values() if v in VALUE_NAMES]
        if values:
            return VALUE_NAMES[max(values)], {"target_ply": m.ply, "target_from": "oracle value"}
    if graded.scale is not None:
        return f"the {graded.scale}'s best moves", {"target_from": f"{graded.scale} grades ({graded.source})"}
    return "unknown", {"target_from": "no move of the player graded in this game"}


def _graded(g: GameRow, moves: list[MoveRow]) -> GameScore:
    """The game's ground-truth figures, as `inspect eval plylab/game` scores them (`analysis.inspect_scores`)."""
    from ..analysis.inspect_scores import game_score, graded
    from ..games import get_game

    truth = get_game(g.game).ground_truth
    return game_score(
        [graded(m.ply, m.seat, m.action, m.grade, m.failure_kind) for m in moves],
        g.player_seat,
        g.outcome,
        g.forfeit_by,
        chess=truth is not None and truth.chess,
    )


def _sample(g: GameRow, moves: list[MoveRow], model: str) -> EvalSample:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    from ..analysis.inspect_scores import inspect_score

    seat = g.player_seat
    mine = [m for m in moves if m.seat == seat]
    verdicts = [
        {
            "ply": m.ply,
            "move": m.action_label,
            "optimal": None if m.optimal is None else bool(m.optimal),
            "informative": None if m.informative is None else bool(m.informative),
            "failure": m.failure_kind,
        }
        for m in mine
    ]
    scored = [v for v in verdicts if v["move"] is not None and v["informative"]]
    optimal = sum(bool(v["optimal"]) for v in scored)
    events, messages = _events(g, moves, model)
    graded = _graded(g, moves)
    target, target_meta = _target(g, moves, graded)
    usage = ModelUsage(
        input_tokens=sum(m.input_tokens for m in mine),
        output_tokens=sum(m.output_tokens for m in mine),
        total_tokens=sum(m.input_tokens + m.output_tokens for m in mine),
        reasoning_tokens=sum(m.reasoning_tokens for m in mine) or None,
        total_cost=sum(m.cost for m in mine if m.cost is not None) or None,
    )
    last_reply = next((m.reply for m in reversed(mine) if m.reply), "") or ""
    player, opponent = canonical_spec(g.player), canonical_spec(g.opponent)
    return EvalSample(
        id=f"game-{g.id}",
        epoch=1,
        input=f"{g.game} ({g.formulation}), seat {seat}: {player} vs {opponent}, seed {g.seed}",
        target=target,
        messages=messages,
        events=events,
        output=ModelOutput.from_content(model=model, content=last_reply),
        scores={
            "outcome": Score(
                value=g.outcome,
                answer=g.outcome,
                explanation=f"from the player's side; failure kind: {g.failure_kind}"
                if g.failure_kind
                else None,
                metadata={"returns": json.loads(g.returns), "forfeit_by": g.forfeit_by, "achievable": target},
            ),
            "optimality": Score(
                value=optimal / len(scored) if scored else 0.0,
                answer=f"{optimal}/{len(scored)}",
                explanation="optimal moves / scored moves (a move counts where not every legal move has the same exact value)"
                + ("; no scored move in this game" if not scored else ""),
                metadata={"optimal": optimal, "scored": len(scored), "moves": verdicts},
            ),
            "ground_truth": inspect_score(graded),
        },
        metadata={
            "game": g.game,
            "formulation": g.formulation,
            "player": player,
            "opponent": opponent,
            "player_seat": seat,
            "seed": g.seed,
            "idx": g.idx,
            "job_key": g.job_key,
            "moves": [m.action_label for m in moves],
            **target_meta,
        },
        model_usage={model: usage} if any(m.calls + m.cache_hits for m in mine) else {},
        total_time=max(0.0, g.finished - g.started),
    )


def _score(s: EvalSample, name: str) -> Score:
    assert s.scores is not None  # every sample written here has its two scores
    return s.scores[name]


def _meta(s: EvalSample, name: str) -> dict[str, int]:
    found = _score(s, name).metadata
    assert found is not None
    return {k: v for k, v in found.items() if isinstance(v, int)}


def _results(samples: list[EvalSample]) -> EvalResults:
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    n = len(samples)
    outcomes = [_score(s, "outcome").value for s in samples]
    opt = sum(_meta(s, "optimality")["optimal"] for s in samples)
    scored = sum(_meta(s, "optimality")["scored"] for s in samples)
    rate = {o: outcomes.count(o) / n if n else 0.0 for o in OUTCOME_VALUE}
    from ..analysis.inspect_scores import metric_results

    return EvalResults(
        total_samples=n,
        completed_samples=n,
        scores=[
            *metric_results([_score(s, "ground_truth") for s in samples]),
            EvalScore(
                name="optimality",
                scorer="optimality",
                metrics={
                    "optimality": EvalMetric(name="optimality", value=opt / scored if scored else 0.0),
                    "scored_moves": EvalMetric(name="scored_moves", value=float(scored)),
                },
            ),
            EvalScore(
                name="outcome",
                scorer="outcome",
                metrics={f"{o}_rate": EvalMetric(name=f"{o}_rate", value=v) for o, v in rate.items()},
            ),
        ],
    )


def _usage(samples: list[EvalSample]) -> dict[str, ModelUsage]:
    """The log's model usage: its samples' summed."""
    total: dict[str, ModelUsage] = {}
    for s in samples:
        for model, u in s.model_usage.items():
            total[model] = total[model] + u if model in total else u
    return total


def write_inspect(store: Store, out: Path, run: str | None = None) -> list[Path]:
    """One `.eval` log per run and matchup under `out`; returns the paths written."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSpec, EvalStats, write_eval_log

    written = []
    for r in store.runs(run):
        for mu in store.matchup_spans(r.id):
            key = (mu.game, mu.formulation, mu.player, mu.opponent)
            player, opponent = canonical_spec(mu.player), canonical_spec(mu.opponent)
            shown_run = printed_run_name(r.name)  # as printed; the store keeps the name as made
            model = _model(player)
            samples = []
            for g in store.matchup_games(r.id, key):
                samples.append(_sample(g, store.moves(g.id), model))
            spec = EvalSpec(
                created=_iso(r.created),
                # the run and the player's canonical spec name the task: two runs of one matchup,
                # or two option sets of one model, are two tasks in `inspect view`
                task=f"{TASK}/{shown_run}/{mu.game}.{mu.formulation}/{player} vs {opponent}",
                task_args={"formulation": mu.formulation, "player": player, "opponent": opponent},
                model_args=_model_args(player),
                dataset=EvalDataset(name=r.name, samples=len(samples)),
                model=model,
                config=EvalConfig(epochs=1),
                metadata={
                    "plylab_run": r.name,
                    "plylab_run_shown": shown_run,
                    "run_kind": r.kind,
                    "run_status": r.status,
                    "seed": r.seed,
                    "plan": json.loads(r.plan),
                    "player": player,
                    "opponent": opponent,
                },
            )
            log = EvalLog(
                status=STATUS.get(r.status, "cancelled"),
                eval=spec,
                plan=EvalPlan(name="plylab"),
                results=_results(samples),
                stats=EvalStats(
                    started_at=_iso(mu.started),
                    completed_at=_iso(mu.finished),
                    model_usage=_usage(samples),
                ),
                samples=samples,
            )
            path = (
                out
                / _slug(r.name)
                / f"{_slug(f'{mu.game}.{mu.formulation}.{player}-vs-{canonical_spec(mu.opponent)}')}.eval"
            )
            while path in written:  # an older store may spell one player two ways
                path = path.with_name(path.stem + "-2.eval")
            path.parent.mkdir(parents=True, exist_ok=True)
            write_eval_log(log, str(path))
            written.append(path)
    return written


def export_inspect(store_path: Path, out: Path, run: str | None) -> None:
    """The CLI's door: checks, then one line saying what was written."""
    if out.exists() and not out.is_dir():
        raise UserError(
            f"cannot write inspect logs to '{out}': it is a file; give a directory (created if missing)"
        )
    if not out.parent.is_dir():
        raise UserError(f"cannot write '{out}': directory '{out.parent}' does not exist; create it first")
    s = Store(store_path, create=False)
    try:
        with reading(store_path):
            if run is not None:
                run = s.stored_run_name(run)  # the name as printed finds its run too
                s.runs(run)  # one clear line for an unknown run
            try:
                paths = write_inspect(s, out, run)
            except OSError as exc:
                raise UserError(
                    f"cannot write '{out}': {exc.strerror or exc}; the store was only read, nothing in it changed"
                ) from None
    finally:
        s.close()
    shown = printable(str(out))
    print(
        f"wrote {len(paths)} inspect log{'s' if len(paths) != 1 else ''} to {shown} (open them with `inspect view --log-dir {shown}`)"
    )
