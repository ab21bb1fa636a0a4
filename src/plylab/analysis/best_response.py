"""A best response to a stored player's habits: how much of a model's play can be exploited.

`best_response:to=<player spec>,run=<run>` reads from the store of the current run (or `store=`)
every decision the player `to` made in run `run` on this game, in both seats, as an empirical
strategy (its action frequencies per information set; uniform where it never decided), and plays
OpenSpiel's best response to it (`pyspiel.TabularBestResponse`), deterministically. A spec's commas
separate this player's options, so the commas of `to` are written as ';'
(`to=llm:model=local;output=enum`). Without `to`, the run's only player (not opponent) is meant.
`run` is a run's name or its id (`run=3`): a made name holds the player's commas, which no spec
value can. What it names is checked before the run playing it is written (`check_store`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..players.base import Decision, Player, RunContext, Turn, register_player
from ..players.equilibrium import equilibrium_of, refused
from ..specs import Params, Spec

if TYPE_CHECKING:
    from ..games import GameDef
    from ..harness.rows import RunRow
    from ..harness.store import Store


class BestResponseOptions(Params):
    run: str
    to: str = ""
    store: str = ""


def _run_list(s: Store, game: str) -> str:
    """The runs a best response on `game` may name, each by id and printed name (those that
    played `game`; every run where none did)."""
    from ..players.canonical import printed_run_name

    runs = s.runs()
    played = {c.run_id for c in s.frame([r.id for r in runs]).matchup_counts() if c.game == game}
    listed = [f"{r.id} '{printed_run_name(r.name)}'" for r in runs if r.id in played]
    if listed:
        return f"runs of '{game}' here (run=<id> or run=<name>): {', '.join(listed)}"
    others = ", ".join(f"{r.id} '{printed_run_name(r.name)}'" for r in runs) or "none"
    return f"no run here played '{game}'; runs here: {others}"


def _run_of(s: Store, run: str, game: str) -> RunRow:
    """The run `run` names: its name (as stored, or as the tables print it), else its id, so a run
    whose name holds a comma (which ends a spec's value) is named by its id."""
    name = s.stored_run_name(run)
    runs = s.runs()
    found = [r for r in runs if r.name == name]
    if not found and run.strip().isdigit():
        found = [r for r in runs if r.id == int(run)]
    if not found:
        raise UserError(f"best_response: no run '{run}' in '{s.path}'; {_run_list(s, game)}")
    return found[0]


@lru_cache(maxsize=32)
def _strategy(store_path: str, run: str, to: str, game: str) -> tuple[str, dict[str, dict[int, int]]]:
    """The player's canonical spec and its action counts per information set in that run."""
    from ..harness.store import Store
    from ..oracles.graded import Grade
    from ..players.canonical import canonical_spec, printed_run_name
    from .equilibrium import counts_of, merged

    s = Store(Path(store_path), create=False)
    try:
        row = _run_of(s, run, game)
        shown = f"run {row.id} '{printed_run_name(row.name)}'"
        games = [g for g in s.games([row.id]) if g.game == game]
        if not games:
            played = sorted({g.game for g in s.games([row.id])})
            raise UserError(
                f"best_response: {shown} has no games of '{game}' (it played: "
                f"{', '.join(played) or 'nothing yet'}); {_run_list(s, game)}"
            )
        players = sorted({canonical_spec(g.player) for g in games})
        target = canonical_spec(to.replace(";", ",")) if to else ""
        if not target:
            if len(players) != 1:
                raise UserError(
                    f"best_response: {shown} has {len(players)} players on '{game}' "
                    f"({', '.join(players)}); name one with to=<player spec> (';' for its commas)"
                )
            target = players[0]
        moves = s.moves_for_games([g.id for g in games])
        pairs = [
            (Grade.from_json(m.grade), m.action)
            for g in games
            for m in moves[g.id]
            if m.grade is not None and m.action is not None and canonical_spec(m.player) == target
        ]
    finally:
        s.close()
    if not pairs:
        raise UserError(
            f"best_response: player '{target}' made no graded decision on '{game}' in {shown}; "
            f"players there: {', '.join(players)}"
        )
    return target, merged([counts_of(pairs)])


@lru_cache(maxsize=64)
def _best_response(store_path: str, run: str, to: str, game: str, seat: int) -> dict[str, int]:
    """The best response's action at each information set of `seat` (computed once per process)."""
    import pyspiel

    from ..games import get_game
    from ..oracles.equilibrium import EquilibriumOracle
    from .equilibrium import empirical_policy

    _, counts = _strategy(store_path, run, to, game)
    definition = get_game(game)
    oracle = definition.oracle()
    assert isinstance(oracle, EquilibriumOracle)
    legal = {k: sorted(e.policy) for k, e in oracle.infosets.items()}
    table = empirical_policy(counts, legal)
    response = pyspiel.TabularBestResponse(definition.engine, seat, table)
    return {str(k): int(a) for k, a in response.get_best_response_actions().items()}


def _store_of(options: BestResponseOptions, run_store: Path | None) -> str:
    """The store the player is read from: `store=`, else the store the run plays into."""
    where = options.store or (str(run_store) if run_store else "")
    if not where:
        raise UserError("best_response: no store to read the player from; give store=<path>")
    return str(Path(where).resolve())


@register_player
class BestResponsePlayer(Player[BestResponseOptions]):
    needs_oracle = True
    Options = BestResponseOptions
    summary = (
        "best response to a stored player's empirical strategy: run=RUN (a name or an id), "
        "to=SPEC (';' for its commas)"
    )

    @classmethod
    def refusal(cls, game: GameDef) -> str | None:
        return refused(game) or super().refusal(game)

    def __init__(
        self,
        spec: Spec,
        options: BestResponseOptions,
        game: GameDef,
        seed: int,
        context: RunContext | None = None,
    ) -> None:
        super().__init__(spec, options, game, seed, context)
        equilibrium_of(self)  # one clear line for a game with no equilibrium
        self.where = _store_of(self.options, self.context.store_path)
        self.target, _ = _strategy(self.where, self.options.run, self.options.to, self.game.spec)

    @classmethod
    def check_store(cls, options: BestResponseOptions, game: GameDef, store_path: Path) -> None:
        """The run named, its games of this game and the player answered, read before the run
        that plays against them is written."""
        _strategy(_store_of(options, store_path), options.run, options.to, game.spec)

    async def act(self, turn: Turn) -> Decision:
        actions = _best_response(self.where, self.options.run, self.options.to, self.game.spec, turn.seat)
        key = str(turn.state.information_state_string(turn.seat))
        found = actions.get(key)
        if found is None or found not in turn.state.legal_actions():  # never reached by the response
            found = min(turn.state.legal_actions())
        return Decision(found)
