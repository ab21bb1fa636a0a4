"""inspect logs of `plylab/game` read back into a plylab store, so a team that ran in inspect still
gets plylab's tables and site (`plylab report --from-inspect LOGDIR`).

Each sample's store holds its game's record as plylab's session wrote it (`tasks.game.play`):
every move, its state, its grade and the model's attempts, read back typed (`tasks.state.GamePlayed`). Each log becomes one run of the store
(named after the log's eval), each sample one game saved through `Store.save_game`, so every report
reads it as it reads a game played by `plylab run`. Importing a log twice saves nothing new.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..harness.store import Store
from .state import GamePlayed

__all__ = ["import_game_logs"]


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
            held = (s.store_as(GamePlayed).record for s in log.samples)
            records = [r for r in held if r is not None]
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
