"""inspect logs of `plylab/game` read back into a plylab store, so a team that ran in inspect still
gets plylab's tables and site (`plylab report --from-inspect LOGDIR`).

Each sample's metadata holds its game's record as plylab's session wrote it (`tasks.game.play`):
every move, its state, its grade and the model's attempts. Each log becomes one run of the store
(named after the log's eval), each sample one game saved through `Store.save_game`, so every report
reads it as it reads a game played by `plylab run`. Importing a log twice saves nothing new.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UserError
from ..harness.records import GameRecord
from ..harness.rows import MoveRow, json_text
from ..harness.store import Store

__all__ = ["import_game_logs", "record_of"]


# A move's JSON columns, which a log written before a move had one shape (`MoveRow`) held as JSON
# values, `values_json` and `scores_json` under the names `values` and `scores`.
_JSON_FIELDS = {"values": "values_json", "scores": "scores_json", "legal": "legal", "grade": "grade"}
_JSON_FIELDS |= {"attempts": "attempts", "note": "note", "annotation": "annotation"}


def _move(saved: dict[str, Any]) -> MoveRow:
    """A move as a sample's metadata holds it (`MoveRow`'s fields), or as an older log held it."""
    if "values_json" in saved:
        return MoveRow(**saved)
    return MoveRow(
        **{_JSON_FIELDS.get(k, k): json_text(v) if k in _JSON_FIELDS else v for k, v in saved.items()}
    )


def record_of(saved: dict[str, Any]) -> GameRecord:
    """A game's record as a sample's metadata holds it (JSON), read back."""
    return GameRecord(**{**saved, "moves": [_move(m) for m in saved["moves"]]})


def import_game_logs(log_dir: Path, store_path: Path) -> tuple[int, int]:
    """Every `plylab/game` log under `log_dir` saved into the store at `store_path`: (runs, games
    newly saved); UserError where the folder holds no such log."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    if not log_dir.is_dir():
        raise UserError(f"no folder '{log_dir}' of inspect logs")
    runs = saved = 0
    store = Store(store_path)
    try:
        for info in sorted(list_eval_logs(str(log_dir), recursive=True), key=lambda i: i.name):
            log = read_eval_log(info)
            if log.eval.task != "plylab/game" or not log.samples:
                continue
            records = [record_of(s.metadata["plylab"]) for s in log.samples if "plylab" in s.metadata]
            if not records:
                continue
            first = records[0]
            name = f"inspect-{first.game}-{log.eval.eval_id}"
            plan = {
                "inspect": {"task": log.eval.task, "task_args": log.eval.task_args, "model": log.eval.model}
            }
            run_id = store.open_run(name, int((log.eval.task_args or {}).get("seed", 0)), plan)
            runs += 1
            saved += sum(store.save_game(run_id, r) for r in records)
            store.finish_run(run_id, "finished", None)
    finally:
        store.close()
    if not runs:
        raise UserError(
            f"no logs of inspect eval plylab/game in {log_dir}; run one with inspect eval plylab/game"
        )
    return runs, saved
