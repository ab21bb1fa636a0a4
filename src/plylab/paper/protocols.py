"""Every reproducible table and figure of the two seed papers, as data: what it plays and how it reads.

`PLYBENCH` is seed 003 (PlyBench / REAPER), `CLUE` is seed 000 (the Clue study); each protocol
cites the seed lines it follows (`003 l.N`). A protocol is pure data: the planner (plan.py) turns
it into harness plans, learning experiments or Clue study runs, and the report (report.py) reads
its `columns` out of the store, so neither depends on how the run driver is built.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from ..errors import UserError
from ..jsontypes import JSONObject

PLYBENCH = "003_6109c99137ed90e9.txt"
CLUE = "000_f050b36d5294af19.txt"

# The paper's opponents (003 l.49): Random; MCTS at n=1000 (tic-tac-toe, Nim) / n=5000 (Connect Four),
# other hyperparameters OpenSpiel's defaults (MCTS-Solver, solve=true); Optimal = minimax, ties uniform.
OPPONENT_ROLES = ("random", "mcts", "optimal")


def opponent_spec(role: str, game: str) -> str:
    """The paper's opponent `role` on `game` as a plylab player spec (explicit, so defaults cannot drift)."""
    if role == "mcts":
        from ..players.mcts import PAPER_SIMS  # the budgets are written once, beside the player (l.49)

        return f"mcts:sims={PAPER_SIMS[game]},solve=true"
    return role


WDLF: tuple[Literal["W", "D", "L", "F"], ...] = ("W", "D", "L", "F")
Metric = Literal["optimality", "win_rate", "draw_rate", "moves", "recognition", "tokens", "W", "D", "L", "F"]


@dataclass(frozen=True)
class Column:
    """One column of a paper table: a metric of the model player in one setting."""

    key: str
    label: str
    metric: Metric
    game: str
    formulation: str = "standard"
    opponent: str = "optimal"  # a role in OPPONENT_ROLES
    effort: str | None = None  # None: the protocol's effort
    # The printed layout: `group` spans its columns' `sub` labels (the opponent over W D L F in
    # Tables 3, 6, 7); a column with a `row` goes into that row of its model (Table 14: Optimality
    # and Tokens per move rows, Low / Medium / High columns).
    group: str = ""
    sub: str = ""
    row: str = ""


@dataclass(frozen=True)
class Agent:
    """A learning configuration of a figure: `spec` is a template over {model} and {effort}."""

    label: str
    spec: str
    # The figure whose experiment this agent is (same spec, same runs): played once, read by both.
    same_as: str | None = None


@dataclass(frozen=True)
class Protocol:
    name: str
    study: Literal["plybench", "clue"]
    kind: Literal["play", "learn", "clue"]
    title: str
    cite: tuple[str, ...]
    games: tuple[str, ...] = ()
    opponents: tuple[str, ...] = ()
    formulations: tuple[str, ...] = ("standard",)
    efforts: tuple[str, ...] = ("high",)
    games_per_matchup: int = 100
    switch_sides: bool = True
    columns: tuple[Column, ...] = ()
    plays: str | None = None  # the protocol whose runs hold this table's data (table5 reads table4's games)
    # learning figures (003 l.168): runs x (eval, then epochs x (learn + eval))
    runs: int | None = None
    epochs: int | None = None
    learn_games: int | None = None
    eval_games: int | None = None
    agents: tuple[Agent, ...] = ()
    reference: str | None = None  # the single-call reference of the figure (dashed line)
    # The table whose run holds the figure's reference where the seed names it (Fig. 5: "the
    # single-call GPT-5 nano player from Section 3", 003 l.176/l.186: Table 2's, high effort, 100 games).
    reference_from: str | None = None
    # Clue (000 §3.4): conditions, games per condition, seats per model
    conditions: tuple[str, ...] = ()
    models: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def source(self) -> str:
        return self.plays or self.name

    def matchups(self) -> list[tuple[str, str, str, str]]:
        """(game, formulation, opponent role, effort) the model plays, in column order, deduplicated."""
        out: list[tuple[str, str, str, str]] = []
        for c in self.columns:
            m = (c.game, c.formulation, c.opponent, c.effort or self.efforts[0])
            if m not in out:
                out.append(m)
        return out

    def describe(self) -> JSONObject:
        d: JSONObject = asdict(self)
        d["columns"] = [c.key for c in self.columns]
        d["agents"] = {
            a.label: a.spec + (f" (= {a.same_as}'s runs)" if a.same_as else "") for a in self.agents
        }
        return {k: v for k, v in d.items() if v not in (None, (), [], {})}


def _optimality(
    game: str, forms: tuple[tuple[str, str], ...], effort: str | None = None
) -> tuple[Column, ...]:
    return tuple(Column(f, label, "optimality", game, f, "optimal", effort) for f, label in forms)


def _recognition(game: str, forms: tuple[tuple[str, str], ...]) -> tuple[Column, ...]:
    return tuple(Column(f, label, "recognition", game, f, "optimal") for f, label in forms)


def _tokens(game: str, forms: tuple[tuple[str, str], ...]) -> tuple[Column, ...]:
    return tuple(Column(f, label, "tokens", game, f, "optimal") for f, label in forms)


def _role(opp: str) -> str:
    return "MCTS" if opp == "mcts" else opp.capitalize()


def _wdlf(game: str) -> tuple[Column, ...]:
    return tuple(
        Column(f"{opp}.{m}", f"{_role(opp)} {m}", m, game, "standard", opp, group=_role(opp), sub=m)
        for opp in OPPONENT_ROLES
        for m in WDLF
    )


TTT_FORMS = (
    ("standard", "TTT"),
    ("hidden", "Hid"),
    ("magic_square", "M.Sq"),
    ("magic_square_plus5", "M.Sq +5"),
    ("story", "Story"),
)
NIM_FORMS = (("standard", "Nim"), ("hidden", "Hid"), ("inverse", "Inv"), ("story", "Story"))
TTT_OBF, NIM_OBF = TTT_FORMS[1:], NIM_FORMS[1:]
EFFORTS = ("low", "medium", "high")

# Table 3's sub-columns under each opponent; Table 14's rows (key, metric, row label).
_C4_SUBS: tuple[tuple[Metric, str], ...] = (("win_rate", "Win rate"), ("moves", "Moves"))
_T14_ROWS: tuple[tuple[str, Metric, str], ...] = (
    ("optimality", "optimality", "Optimality"),
    ("tokens", "tokens", "Tokens per move"),
)
_SECTION3 = "003 l.51 (reasoning effort high unless stated otherwise)"
_SIDES = "003 l.60 (100 games per pair, sides switched after half; optimality excludes states where every move is optimal)"


def _table(name: str, title: str, cite: tuple[str, ...], *args: Any, **kw: Any) -> Protocol:
    """A PlyBench table: the model plays (games, opponents, formulations, ...) as given."""
    return Protocol(name, "plybench", "play", title, cite, *args, **kw)


_PLAY: tuple[Protocol, ...] = (
    _table(
        "table2",
        "Per-move optimality vs Optimal, tic-tac-toe and Nim [Wilson]; † failures",
        ("003 l.66-74 (Table 2)", _SIDES, _SECTION3),
        ("tic_tac_toe", "nim"),
        ("optimal",),
        columns=(
            Column("tic_tac_toe", "tic-tac-toe", "optimality", "tic_tac_toe"),
            Column("nim", "Nim", "optimality", "nim"),
        ),
    ),
    _table(
        "table3",
        "Connect Four: win rate [Wilson] and LLM moves per game [Student-t] vs Random and MCTS",
        ("003 l.80-86 (Table 3: 10 games per opponent, sides switched)", "003 l.49 (MCTS n=5000)", _SECTION3),
        ("connect_four",),
        ("random", "mcts"),
        games_per_matchup=10,
        columns=tuple(
            Column(
                f"{opp}.{metric}",
                f"{_role(opp)} {sub.lower()}",
                metric,
                "connect_four",
                opponent=opp,
                group=_role(opp),
                sub=sub,
            )
            for opp in ("random", "mcts")
            for metric, sub in _C4_SUBS
        ),
    ),
    _table(
        "table4",
        "Optimality vs Optimal on tic-tac-toe and its obfuscations [Wilson]",
        ("003 l.100-110 (Table 4: 100 games per formulation)", _SIDES, _SECTION3),
        ("tic_tac_toe",),
        ("optimal",),
        tuple(f for f, _ in TTT_FORMS),
        columns=_optimality("tic_tac_toe", TTT_FORMS),
    ),
    _table(
        "table5",
        "Recognition: traces naming tic-tac-toe under each obfuscation [Wilson]",
        ("003 l.114-124 (Table 5: reasoning-trace summaries, same games as Table 4)",),
        ("tic_tac_toe",),
        ("optimal",),
        tuple(f for f, _ in TTT_FORMS),
        columns=_recognition("tic_tac_toe", TTT_OBF),
        plays="table4",
    ),
    _table(
        "table6",
        "W D L F out of 100 games on standard tic-tac-toe vs Random, MCTS, Optimal",
        ("003 l.202-216 (Table 6)", "003 l.49 (MCTS n=1000)", _SECTION3),
        ("tic_tac_toe",),
        OPPONENT_ROLES,
        columns=_wdlf("tic_tac_toe"),
    ),
    _table(
        "table7",
        "W D L F out of 100 games on standard Nim vs Random, MCTS, Optimal",
        ("003 l.220-232 (Table 7)", "003 l.49 (MCTS n=1000)", _SECTION3),
        ("nim",),
        OPPONENT_ROLES,
        columns=_wdlf("nim"),
    ),
    _table(
        "table8",
        "Optimality vs Optimal on tic-tac-toe obfuscations, all tiers [Wilson]",
        ("003 l.250-261 (Table 8)", _SIDES, _SECTION3),
        ("tic_tac_toe",),
        ("optimal",),
        tuple(f for f, _ in TTT_FORMS),
        columns=_optimality("tic_tac_toe", TTT_FORMS),
        plays="table4",
    ),
    _table(
        "table9",
        "Recognition of tic-tac-toe under each obfuscation, all tiers [Wilson]",
        ("003 l.265-276 (Table 9)",),
        ("tic_tac_toe",),
        ("optimal",),
        tuple(f for f, _ in TTT_FORMS),
        columns=_recognition("tic_tac_toe", TTT_OBF),
        plays="table4",
    ),
    _table(
        "table10",
        "Optimality vs Optimal on Nim and its obfuscations [Wilson]",
        ("003 l.292-303 (Table 10)", "003 l.284-286 (Nim obfuscations)", _SIDES, _SECTION3),
        ("nim",),
        ("optimal",),
        tuple(f for f, _ in NIM_FORMS),
        columns=_optimality("nim", NIM_FORMS),
    ),
    _table(
        "table11",
        "Recognition of Nim under each obfuscation [Wilson]",
        ("003 l.309-320 (Table 11)",),
        ("nim",),
        ("optimal",),
        tuple(f for f, _ in NIM_FORMS),
        columns=_recognition("nim", NIM_OBF),
        plays="table10",
    ),
    _table(
        "table12",
        "Output tokens per move, tic-tac-toe formulations [Student-t]",
        ("003 l.330-341 (Table 12)",),
        ("tic_tac_toe",),
        ("optimal",),
        tuple(f for f, _ in TTT_FORMS),
        columns=_tokens("tic_tac_toe", TTT_FORMS),
        plays="table4",
    ),
    _table(
        "table13",
        "Output tokens per move, Nim formulations [Student-t]",
        ("003 l.345-356 (Table 13)",),
        ("nim",),
        ("optimal",),
        tuple(f for f, _ in NIM_FORMS),
        columns=_tokens("nim", NIM_FORMS),
        plays="table10",
    ),
    _table(
        "table14",
        "Optimality [Wilson] and tokens per move [Student-t] by reasoning effort",
        ("003 l.362-371 (Table 14: standard tic-tac-toe vs Optimal, low / medium / high)", _SIDES),
        ("tic_tac_toe",),
        ("optimal",),
        efforts=EFFORTS,
        columns=tuple(
            Column(f"{key}.{e}", f"{row} {e}", metric, "tic_tac_toe", effort=e, sub=e.capitalize(), row=row)
            for key, metric, row in _T14_ROWS
            for e in EFFORTS
        ),
    ),
)

_LEARN = Protocol(
    "",
    "plybench",
    "learn",
    "",
    (),
    games=("tic_tac_toe",),
    opponents=("optimal",),
    efforts=("medium",),
    runs=10,
    epochs=5,
    learn_games=20,
    eval_games=50,
    games_per_matchup=50,
    reference="llm:model={model},effort={effort}",
)
_LEARN_CITE = (
    "003 l.162 (GPT-5 nano at medium effort, vs Optimal on tic-tac-toe)",
    "003 l.168 (50 eval games, then 5 x (20 learning + 50 eval), 10 runs)",
    "003 l.170 (draw rate primary; output tokens per move)",
)

_FIG4_REFL = "reaper:model={model},effort={effort},reflection=on,rules=off"
_FIG4_RULES = "reaper:model={model},effort={effort},reflection=on,rules=on"

_FIGS: tuple[Protocol, ...] = (
    replace(
        _LEARN,
        name="fig4",
        title="Ablation: REAPER reflection alone vs reflection + rules (draw rate, mean of runs [Student-t])",
        cite=("003 l.164 (Figure 4)", "003 l.180-182 (0.826 vs 0.868, Welch p=0.039)", *_LEARN_CITE),
        agents=(Agent("Refl.", _FIG4_REFL), Agent("Refl. + Rules", _FIG4_RULES)),
    ),
    replace(
        _LEARN,
        name="fig5",
        title="Original vs Baseline vs REAPER: draw rate and output tokens per move [Student-t]",
        cite=(
            "003 l.172-176 (Figure 5)",
            "003 l.186-192 (Baseline 0.818, REAPER 0.868, Welch p=0.018)",
            "003 l.176, l.186 (the dashed reference: the single-call player from Section 3)",
            *_LEARN_CITE,
        ),
        reference_from="table2",
        agents=(
            Agent("Original", "memento:model={model},effort={effort}"),
            Agent("Baseline", "cbr:model={model},effort={effort}"),
            Agent("REAPER", "reaper:model={model},effort={effort},reflection=on,rules=on"),
        ),
    ),
    replace(
        _LEARN,
        name="fig6",
        title="State descriptor: state-mode vs description-mode retrieval (draw rate [Student-t])",
        cite=("003 l.405 (Figure 6)", "003 l.409-413 (D.4.1)", *_LEARN_CITE),
        # The state-mode variants are Figure 4's agents (l.409: "comparing against the corresponding
        # variants with state embeddings", the same setting): Fig. 4's runs, not played again.
        agents=(
            Agent("Refl.", _FIG4_REFL, same_as="fig4"),
            Agent("Refl. + Rules", _FIG4_RULES, same_as="fig4"),
            Agent("Refl. + Desc.", "reaper:model={model},effort={effort},rules=off,descriptor=on"),
            Agent("Refl. + Desc. + Rules", "reaper:model={model},effort={effort},rules=on,descriptor=on"),
        ),
    ),
)

_CLUE = Protocol(
    "",
    "clue",
    "clue",
    "",
    (),
    conditions=("baseline", "matrix", "mixed"),
    games_per_matchup=6,
    models=2,
    efforts=(),
)
_CLUE_CITE = (
    "000 l.82 (six players, 21 cards, three dealt each)",
    "000 l.95 (six games each: baseline, matrix, "
    "mixed; mixed = one tool user + two baseline per model family, order shuffled)",
    "000 l.57 (GPT-4o-mini and Gemini-2.5-Flash, three seats each)",
)
_CLUES: tuple[Protocol, ...] = (
    replace(
        _CLUE,
        name="clue-accuracy",
        title="Accusation accuracy: share of players identifying the envelope (3/2/1/0 cards)",
        cite=("000 l.103 (§4.1)", *_CLUE_CITE),
    ),
    replace(
        _CLUE,
        name="clue-deduction",
        title="Deduction quality: correct / incorrect deductions per game",
        cite=("000 l.107 (§4.2)", *_CLUE_CITE),
    ),
    replace(
        _CLUE,
        name="clue-knowledge",
        title="Knowledge accumulation: cards known per round (ceiling 18)",
        cite=("000 l.111 (§4.3)", "000 l.123 (Figure 5)", *_CLUE_CITE),
    ),
    replace(
        _CLUE,
        name="clue-delay",
        title="Solution suggested / accusation-ready to final accusation (turns)",
        cite=("000 l.115 (§4.4)", "000 l.127 (Figure 6)", *_CLUE_CITE),
    ),
)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (*_PLAY, *_FIGS, *_CLUES)}


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise UserError(f"unknown table or figure '{name}'; accepted: {', '.join(PROTOCOLS)}") from None


def deviations_line(deviations: list[str]) -> str:
    """The line every paper table's head carries (PlyBench's and Clue's): what its runs changed."""
    return "deviations from the paper's protocol: " + ("; ".join(deviations) or "none")
