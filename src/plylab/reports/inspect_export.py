"""`plylab export DIR --format inspect`: stored runs as inspect eval logs, for `inspect view`.

One log per run and matchup (an inspect log has one model), one sample per game. A sample holds
the messages each model call of the matchup's player saw and returned (its reasoning included, and
failed attempts, marked as such), two scores (`outcome`: win/draw/loss/failure from the player's
side; `optimality`: the share of its scored moves that were optimal, with every move's verdict in
the score's metadata), the model usage, and the game's identity (game, formulation, specs, seat,
seed, job key) in its metadata; the log's metadata holds the run's name, seed and plan. Logs are
written with inspect's own `write_eval_log`, so `inspect view` and `read_eval_log` open them.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..harness.rows import GameRow, MoveRow
from ..harness.store import Store, expand_attempts, reading
from ..players.canonical import canonical_spec
from ..printable import printable
from ..specs import parse_spec

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


def _slug(text: str) -> str:
    """A file name from a stored name; never `.` or `..` (no leading dots), so a run named `..` is
    written inside the output folder, not above it."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:120] or "run"


def _messages(moves: list[MoveRow], seat: int) -> list[Any]:
    """What the seat's model calls saw and returned, in order: prompt, then reasoning and reply."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ContentReasoning, ContentText

    out: list[Any] = []
    for m in moves:
        if m.seat != seat:
            continue
        attempts = expand_attempts(json.loads(m.attempts), m) if m.attempts else None
        tries = attempts or (
            [{"prompt": m.prompt, "reply": m.reply, "reasoning": m.reasoning}] if m.prompt else []
        )
        for k, a in enumerate(tries):
            meta = {"ply": m.ply, "attempt": k + 1, "move": m.action_label}
            if a.get("failure"):
                meta["failure"] = a["failure"]
            if a.get("prompt"):
                out.append(ChatMessageUser(content=a["prompt"], metadata=meta))
            content: list[Any] = []
            if a.get("reasoning"):
                content.append(ContentReasoning(reasoning=a["reasoning"]))
            text = a.get("reply") or ""
            if a.get("failure"):
                text = f"{text}\n\n[plylab: this attempt failed: {a['failure']}{': ' + a['error'] if a.get('error') else ''}]".strip()
            content.append(ContentText(text=text))
            out.append(ChatMessageAssistant(content=content, metadata=meta))
    return out


def _sample(g: GameRow, moves: list[MoveRow], model: str) -> Any:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

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
    messages = _messages(moves, seat)
    usage = ModelUsage(
        input_tokens=sum(m.input_tokens for m in mine),
        output_tokens=sum(m.output_tokens for m in mine),
        total_tokens=sum(m.input_tokens + m.output_tokens for m in mine),
        reasoning_tokens=sum(m.reasoning_tokens for m in mine) or None,
        total_cost=sum(m.cost for m in mine if m.cost is not None) or None,
    )
    last_reply = next((m.reply for m in reversed(mine) if m.reply), "") or ""
    first_prompt = next((m.prompt for m in mine if m.prompt), None)
    return EvalSample(
        id=f"game-{g.id}",
        epoch=1,
        input=first_prompt or f"{g.game} ({g.formulation}): {g.player} vs {g.opponent}",
        target=g.outcome,
        messages=messages,
        output=ModelOutput.from_content(model=model, content=last_reply),
        scores={
            "outcome": Score(
                value=g.outcome,
                answer=g.outcome,
                explanation=f"from the player's side; failure kind: {g.failure_kind}"
                if g.failure_kind
                else None,
                metadata={"returns": json.loads(g.returns), "forfeit_by": g.forfeit_by},
            ),
            "optimality": Score(
                value=optimal / len(scored) if scored else 0.0,
                answer=f"{optimal}/{len(scored)}",
                explanation="optimal moves / scored moves (a move counts where not every legal move has the same exact value)"
                + ("; no scored move in this game" if not scored else ""),
                metadata={"optimal": optimal, "scored": len(scored), "moves": verdicts},
            ),
        },
        metadata={
            "game": g.game,
            "formulation": g.formulation,
            "player": g.player,
            "opponent": g.opponent,
            "player_seat": seat,
            "seed": g.seed,
            "idx": g.idx,
            "job_key": g.job_key,
            "moves": [m.action_label for m in moves],
        },
        model_usage={model: usage} if any(m.calls + m.cache_hits for m in mine) else {},
        total_time=max(0.0, g.finished - g.started),
    )


def _results(samples: list[Any]) -> Any:
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    n = len(samples)
    outcomes = [s.scores["outcome"].value for s in samples]
    opt = sum(s.scores["optimality"].metadata["optimal"] for s in samples)
    scored = sum(s.scores["optimality"].metadata["scored"] for s in samples)
    rate = {o: outcomes.count(o) / n if n else 0.0 for o in OUTCOME_VALUE}
    return EvalResults(
        total_samples=n,
        completed_samples=n,
        scores=[
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


def _usage(samples: list[Any]) -> dict[str, Any]:
    """The log's model usage: its samples' summed."""
    total: dict[str, Any] = {}
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
            player = canonical_spec(mu.player)
            model = _model(player)
            samples = []
            for g in store.matchup_games(r.id, key):
                samples.append(_sample(g, store.moves(g.id), model))
            spec = EvalSpec(
                created=_iso(r.created),
                task=f"{TASK}/{mu.game}",
                task_args={"formulation": mu.formulation, "opponent": canonical_spec(mu.opponent)},
                dataset=EvalDataset(name=r.name, samples=len(samples)),
                model=model,
                config=EvalConfig(epochs=1),
                metadata={
                    "plylab_run": r.name,
                    "run_kind": r.kind,
                    "run_status": r.status,
                    "seed": r.seed,
                    "plan": json.loads(r.plan),
                    "player": player,
                    "opponent": canonical_spec(mu.opponent),
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
