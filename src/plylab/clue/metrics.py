"""The paper's four metrics (and wins), per condition and player spec, from the store.

- accusation_accuracy: right accusations / accusations made.
- identified: share of player-games whose final envelope belief (the accusation, else the last
  stated belief) is fully right, with the 3/2/1/0-cards-right breakdown.
- deductions: distinct (card, holder) claims per player-game outside the player's own hand,
  judged when first made: correct (true), incorrect (false), and unsupported (true but not yet
  entailed by the player's observations; a subset of correct; the paper counts only the first two).
  Two units, both reported and named: `*_per_game` is per player-game (one seat in one game), and
  `per_model_game` sums the row's seats in each game (a model's three baseline players, say) and
  averages over games: the seed's "per game" for each model (000 l.107, §4.2).
- knowledge_curve: per round, cards (out of the deck less the envelope: 18) whose holder the
  player has stated correctly so far, its own hand counting as stated; and the oracle's count of
  entailed holdings for the same seats. Averaged over the player-games still running that round.
- accusation_delay: global turns from the first turn after which the oracle entails the solution
  for the accuser to its accusation (and the accuser's own turns in between); turns from the first
  suggestion of the solution (which nobody can disprove) to the right accusation; and, for players
  that see a matrix, how many became ready and the gap from ready to accusation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from statistics import mean

from ..errors import UserError
from ..jsontypes import JSONObject
from .base import TRUNCATED, sees_matrix
from .cards import CLASSIC
from .records import ClueRecords
from .report_rows import KnowledgeRow


@dataclass
class PlayerGame:
    condition: str
    spec: str
    game_rounds: int
    won: bool
    game: int = -1  # the game's id in the store: seats of one game share it
    accused_turn: int | None = None
    accused_correct: bool | None = None
    cards_right: int = 0
    correct: int = 0
    incorrect: int = 0
    unsupported: int = 0
    stated_by_round: list[int] = field(default_factory=list)
    oracle_by_round: list[int] = field(default_factory=list)
    entailed_turn: int | None = None
    own_turns_after_entailed: int | None = None
    solution_suggested_turn: int | None = None
    sees_matrix: bool = False
    ready_turn: int | None = None
    model_turns: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    truncated: int = 0  # model replies cut off at max_tokens
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0


def player_games(store: ClueRecords) -> list[PlayerGame]:
    out: list[PlayerGame] = []
    matrix_cache: dict[str, bool] = {}
    for game in store.games():
        seats, envelope, hands = game.seats, game.envelope, game.hands
        turns = store.turns(game.id)
        round_of = {t.turn: t.round for t in turns}
        snaps: dict[int, list[KnowledgeRow]] = defaultdict(list)
        for k in store.knowledge(game.id):
            snaps[k.seat].append(k)
        for seat, spec in enumerate(seats):
            if spec not in matrix_cache:
                try:
                    matrix_cache[spec] = sees_matrix(spec)
                except UserError:  # a player this installation does not know
                    matrix_cache[spec] = False
            pg = PlayerGame(game.condition, spec, game.rounds, game.winner == seat, game.id)
            pg.sees_matrix = matrix_cache[spec]
            pg.solution_suggested_turn = game.solution_suggested_turn
            mine = [t for t in turns if t.seat == seat]
            belief: list[int | None] = [None, None, None]
            first_verdict: dict[tuple[int, int], str] = {}
            stated_round: dict[int, int] = {}
            for t in mine:
                if t.action == "accuse" and pg.accused_turn is None:
                    pg.accused_turn, pg.accused_correct = t.turn, bool(t.correct)
                    belief = list(t.cards or [])
                elif pg.accused_turn is None and t.envelope_belief is not None:
                    belief = t.envelope_belief
                for card, who, verdict in t.claims:
                    first_verdict.setdefault((card, who), verdict)
                    if verdict != "incorrect" and who != len(seats):
                        stated_round.setdefault(card, t.round)
                if t.prompt is not None or t.failure_kind is not None:
                    pg.model_turns += 1
                    pg.input_tokens += t.input_tokens
                    pg.output_tokens += t.output_tokens
                    pg.cost += t.cost or 0.0
                if t.failure_kind:
                    pg.failures[t.failure_kind] = pg.failures.get(t.failure_kind, 0) + 1
                pg.truncated += bool(t.error and TRUNCATED in t.error)
            pg.cards_right = sum(1 for b, e in zip(belief, envelope) if b == e)
            verdicts = list(first_verdict.values())
            pg.incorrect = verdicts.count("incorrect")
            pg.unsupported = verdicts.count("unsupported")
            pg.correct = len(verdicts) - pg.incorrect
            own = len(hands[seat])
            pg.stated_by_round = [
                own + sum(1 for r in stated_round.values() if r <= rnd) for rnd in range(1, game.rounds + 1)
            ]
            oracle_by_round, last = [], own
            by_round: dict[int, int] = {}
            for k in snaps[seat]:
                by_round[round_of.get(k.turn, 0)] = k.oracle_known
            for rnd in range(1, game.rounds + 1):
                last = by_round.get(rnd, last)
                oracle_by_round.append(last)
            pg.oracle_by_round = oracle_by_round
            pg.entailed_turn = next((k.turn for k in snaps[seat] if k.oracle_solved), None)
            pg.ready_turn = (
                next((k.turn for k in snaps[seat] if k.matrix_ready), None) if pg.sees_matrix else None
            )
            if (
                pg.accused_turn is not None
                and pg.entailed_turn is not None
                and pg.accused_turn > pg.entailed_turn
            ):
                pg.own_turns_after_entailed = sum(
                    1 for t in mine if pg.entailed_turn < t.turn < pg.accused_turn
                )
            out.append(pg)
    return out


def _mean(values: Sequence[float]) -> float | None:
    return round(mean(values), 3) if values else None


def _gap(later: int | None, earlier: int | None) -> int | None:
    """Turns from `earlier` to `later`, when both happened in that order."""
    return later - earlier if later is not None and earlier is not None and later > earlier else None


# -- the report's rows (each `to_json` is what `plylab clue report --format json` prints) -------------


@dataclass(frozen=True)
class Delays:
    """Delays in turns: how many, their mean, least and most."""

    n: int
    mean: float | None
    min: int | None
    max: int | None

    @classmethod
    def of(cls, values: list[int]) -> Delays:
        return cls(len(values), _mean(values), min(values, default=None), max(values, default=None))


@dataclass(frozen=True)
class EntailmentDelay(Delays):
    """From the oracle entailing the solution to the accusation, with the accuser's own turns between."""

    mean_own_turns: float | None = None
    accused_before_entailed: int = 0


@dataclass(frozen=True)
class Readiness:
    """Players that see a matrix: how many became ready, and the gap from ready to accusation."""

    players: int
    became_ready: int
    gap: Delays


@dataclass(frozen=True)
class AccusationDelay:
    from_entailment: EntailmentDelay
    from_solution_suggested: Delays
    ready: Readiness | None


@dataclass(frozen=True)
class Identified:
    """The share of player-games whose final envelope belief is right, and by cards right ("3".."0")."""

    rate: float | None
    cards_right: dict[str, float | None]


@dataclass(frozen=True)
class ModelGameDeductions:
    """Deductions with a row's seats of a game summed, averaged over its games (the seed's unit)."""

    games: int
    correct_per_game: float | None
    incorrect_per_game: float | None
    unsupported_per_game: float | None

    def per_game(self, kind: str) -> float | None:
        return {
            "correct": self.correct_per_game,
            "incorrect": self.incorrect_per_game,
            "unsupported": self.unsupported_per_game,
        }[kind]


@dataclass(frozen=True)
class Deductions:
    unit: str  # the *_per_game below: one seat in one game
    correct_per_game: float | None
    incorrect_per_game: float | None
    unsupported_per_game: float | None
    correct: int
    incorrect: int
    unsupported: int
    per_model_game: ModelGameDeductions  # the row's seats of a game summed (the seed's)


@dataclass(frozen=True)
class CurvePoint:
    """One round of a knowledge curve: mean cards stated and entailed, over the player-games alive."""

    round: int
    stated: float
    oracle: float
    n: int


@dataclass(frozen=True)
class KnowledgeCurve:
    ceiling: int
    rounds: list[CurvePoint]


@dataclass(frozen=True)
class ModelUsage:
    """Model turns of a row's seats, failed and cut off, with their tokens and cost."""

    turns: int
    failed_turns: int
    failures: dict[str, int]
    truncated: int  # replies cut off at max_tokens
    input_tokens: int
    output_tokens: int
    cost: float


@dataclass(frozen=True)
class PlayerMetrics:
    """The paper's metrics of one (condition, player spec): its player-games pooled."""

    condition: str
    spec: str
    player_games: int
    wins: int
    accusations: int
    correct_accusations: int
    accusation_accuracy: float | None
    identified: Identified
    deductions: Deductions
    knowledge_curve: KnowledgeCurve
    accusation_delay: AccusationDelay
    model: ModelUsage | None

    def to_json(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class GameDelay:
    """Fig. 6: one game's first undisproved suggestion of the solution and its right accusation."""

    game: int
    confirmed: int
    accused: int | None
    gap: int | None


@dataclass(frozen=True)
class ConditionMetrics:
    """One condition's games: how they ended and when the solution was first suggested."""

    games: int
    end_reasons: dict[str, int]
    solution_suggested: int
    first_suggester_won: int
    confirmed_turns: list[int]  # the first undisproved suggestion of the solution, per game
    per_game: list[GameDelay]  # Fig. 6: confirmation -> right accusation, per game
    mean_turns: float | None

    def to_json(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class ClueReport:
    """Everything `plylab clue report` prints: per condition, and per (condition, player spec)."""

    store: str
    conditions: dict[str, ConditionMetrics]
    groups: list[PlayerMetrics]

    def to_json(self) -> JSONObject:
        return asdict(self)


def per_model_game(pgs: list[PlayerGame]) -> ModelGameDeductions:
    """Deductions summed over the seats `pgs` hold in each game, averaged over those games (the
    seed's "per game" per model, 000 l.107)."""
    games: dict[int, list[PlayerGame]] = defaultdict(list)
    for p in pgs:
        games[p.game].append(p)
    sums = list(games.values())

    def per_game(kind: str) -> float | None:
        return _mean([sum(getattr(p, kind) for p in seats) for seats in sums])

    return ModelGameDeductions(len(sums), per_game("correct"), per_game("incorrect"), per_game("unsupported"))


def summarize(pgs: list[PlayerGame], ceiling: int, condition: str, spec: str) -> PlayerMetrics:
    n = len(pgs)
    accused = [p for p in pgs if p.accused_turn is not None]
    right = [p for p in accused if p.accused_correct]
    max_round = max((p.game_rounds for p in pgs), default=0)
    curve = []
    for rnd in range(1, max_round + 1):
        alive = [p for p in pgs if p.game_rounds >= rnd]  # never none: some game lasts to max_round
        curve.append(
            CurvePoint(
                rnd,
                round(mean([p.stated_by_round[rnd - 1] for p in alive]), 3),
                round(mean([p.oracle_by_round[rnd - 1] for p in alive]), 3),
                len(alive),
            )
        )
    entail = [p for p in accused if _gap(p.accused_turn, p.entailed_turn) is not None]
    suggested = [g for p in right if (g := _gap(p.accused_turn, p.solution_suggested_turn)) is not None]
    ready = None
    matrix_players = [p for p in pgs if p.sees_matrix]
    if matrix_players:
        gaps = [g for p in matrix_players if (g := _gap(p.accused_turn, p.ready_turn)) is not None]
        ready = Readiness(
            len(matrix_players), sum(p.ready_turn is not None for p in matrix_players), Delays.of(gaps)
        )
    failures: dict[str, int] = defaultdict(int)
    for p in pgs:
        for kind, count in p.failures.items():
            failures[kind] += count
    model_turns = sum(p.model_turns for p in pgs)
    entailed = Delays.of([g for p in entail if (g := _gap(p.accused_turn, p.entailed_turn)) is not None])
    return PlayerMetrics(
        condition,
        spec,
        player_games=n,
        wins=sum(p.won for p in pgs),
        accusations=len(accused),
        correct_accusations=len(right),
        accusation_accuracy=round(len(right) / len(accused), 4) if accused else None,
        identified=Identified(
            round(sum(p.cards_right == 3 for p in pgs) / n, 4) if n else None,
            {str(k): round(sum(p.cards_right == k for p in pgs) / n, 4) if n else None for k in (3, 2, 1, 0)},
        ),
        deductions=Deductions(
            "player-game",
            _mean([p.correct for p in pgs]),
            _mean([p.incorrect for p in pgs]),
            _mean([p.unsupported for p in pgs]),
            sum(p.correct for p in pgs),
            sum(p.incorrect for p in pgs),
            sum(p.unsupported for p in pgs),
            per_model_game(pgs),
        ),
        knowledge_curve=KnowledgeCurve(ceiling, curve),
        accusation_delay=AccusationDelay(
            EntailmentDelay(
                entailed.n,
                entailed.mean,
                entailed.min,
                entailed.max,
                _mean([p.own_turns_after_entailed for p in entail if p.own_turns_after_entailed is not None]),
                len(accused) - len(entail),
            ),
            Delays.of(suggested),
            ready,
        ),
        model=None
        if not model_turns
        else ModelUsage(
            model_turns,
            sum(failures.values()),
            dict(failures),
            sum(p.truncated for p in pgs),
            sum(p.input_tokens for p in pgs),
            sum(p.output_tokens for p in pgs),
            round(sum(p.cost for p in pgs), 6),
        ),
    )


@dataclass
class _Condition:
    """A condition's games as they are read (ConditionMetrics once all are)."""

    games: int = 0
    turns: list[int] = field(default_factory=list)
    end_reasons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    solution_suggested: int = 0
    first_suggester_won: int = 0
    confirmed_turns: list[int] = field(default_factory=list)
    per_game: list[GameDelay] = field(default_factory=list)


def report(store: ClueRecords) -> ClueReport:
    """Everything `plylab clue report` prints (`to_json()` is its JSON)."""
    ceiling = CLASSIC.size - 3
    pgs = player_games(store)
    groups: dict[tuple[str, str], list[PlayerGame]] = defaultdict(list)
    for p in pgs:
        groups[(p.condition, p.spec)].append(p)
    conditions: dict[str, _Condition] = {}
    for game in store.games():
        c = conditions.setdefault(game.condition, _Condition())
        c.games += 1
        c.turns.append(game.turns)
        c.end_reasons[game.end_reason] += 1
        confirmed = game.solution_suggested_turn
        if confirmed is not None:
            c.solution_suggested += 1
            turns = store.turns(game.id)
            row = next((t for t in turns if t.turn == confirmed), None)
            c.first_suggester_won += int(row is not None and row.seat == game.winner)
            c.confirmed_turns.append(confirmed)
            right = next((t for t in turns if t.action == "accuse" and t.correct), None)
            c.per_game.append(
                GameDelay(
                    game.idx,
                    confirmed,
                    None if right is None else right.turn,
                    None if right is None else right.turn - confirmed,
                )
            )
    return ClueReport(
        str(store.path),
        {
            k: ConditionMetrics(
                c.games,
                dict(c.end_reasons),
                c.solution_suggested,
                c.first_suggester_won,
                c.confirmed_turns,
                c.per_game,
                _mean(c.turns),
            )  # fmt: skip
            for k, c in conditions.items()
        },
        [summarize(items, ceiling, cond, spec) for (cond, spec), items in sorted(groups.items())],
    )


def _fmt(value: float | str | None, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def to_markdown(data: ClueReport) -> str:
    lines = [f"# Clue report: {data.store}", ""]
    lines += [
        "| condition | games | mean turns | solved | turn limit | all out | solution suggested | first suggester won |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cond, c in sorted(data.conditions.items()):
        ends = c.end_reasons
        lines.append(
            f"| {cond} | {c.games} | {_fmt(c.mean_turns, 1)} | {ends.get('solved', 0)} | "
            f"{ends.get('turn_limit', 0)} | {ends.get('all_out', 0)} | {c.solution_suggested} | {c.first_suggester_won} |"
        )
    lines += [
        "",
        "| condition | player | player-games | wins | accusation accuracy | identified | 3 / 2 / 1 / 0 right "
        "| correct / incorrect / unsupported per player-game | the same per game, the row's seats summed | delay from entailment (own turns) | delay from solution suggested "
        "| ready (gap) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in data.groups:
        ident, ded, delay = g.identified, g.deductions, g.accusation_delay
        right = " / ".join(_fmt(ident.cards_right[k]) for k in ("3", "2", "1", "0"))
        ready = delay.ready
        ready_text = (
            "–" if ready is None else f"{ready.became_ready}/{ready.players} ({_fmt(ready.gap.mean, 1)})"
        )
        ent = delay.from_entailment
        lines.append(
            f"| {g.condition} | `{g.spec}` | {g.player_games} | {g.wins} | {_fmt(g.accusation_accuracy)} "
            f"({g.correct_accusations}/{g.accusations}) | {_fmt(ident.rate)} | {right} | "
            f"{_fmt(ded.correct_per_game)} / {_fmt(ded.incorrect_per_game)} / {_fmt(ded.unsupported_per_game)} | "
            f"{' / '.join(_fmt(ded.per_model_game.per_game(k)) for k in ('correct', 'incorrect', 'unsupported'))} | "
            f"{_fmt(ent.mean, 1)} ({_fmt(ent.mean_own_turns, 1)}) | {_fmt(delay.from_solution_suggested.mean, 1)} | {ready_text} |"
        )
    lines += [
        "",
        "Knowledge curves (cards whose holder is stated correctly / entailed by the oracle, "
        f"of {data.groups[0].knowledge_curve.ceiling if data.groups else 18}):",
        "",
    ]
    for g in data.groups:
        pts = ", ".join(
            f"r{p.round} {_fmt(p.stated, 1)}/{_fmt(p.oracle, 1)}" for p in g.knowledge_curve.rounds
        )
        lines.append(f"- {g.condition} `{g.spec}`: {pts}")
    models = [g for g in data.groups if g.model]
    if models:
        lines += [
            "",
            "| condition | player | model turns | failed | truncated | failures | input tokens | output tokens | cost |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for g in models:
            m = g.model
            assert m is not None
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(m.failures.items())) or "–"
            lines.append(
                f"| {g.condition} | `{g.spec}` | {m.turns} | {m.failed_turns} | {m.truncated} | {kinds} | "
                f"{m.input_tokens} | {m.output_tokens} | {_fmt(m.cost, 4)} |"
            )
    return "\n".join(lines) + "\n"
