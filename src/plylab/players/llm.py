"""The single-call LLM player: the paper's LLM adapter over one model door.

Each move is one prompt -- the formulation's rules, the position and the legal moves -- and one
reply, parsed back to an engine action by the formulation. The default is the paper's: the model
writes its action freely (`output=text`) and an illegal or unparseable action is a failure (seed
003, Table 2's dagger, the F columns of Tables 6/7). A text answer is asked and read as the paper's
released code does it (PyPI `plybench` 3.0.5, `TextStrategy`): one line `Action: <move>`, the
action only and no explanation (the paper counts tokens "given the fixed action format", 003
l.324), and the reply's last non-empty line is the move, an `Action:` label and `<...>` dropped
(`prompt=line`). The older rules stay as named keys, and runs stored with them resume with them
(the run's `llm_prompt` rule, harness.store): `prompt=action` asks for the move alone,
`prompt=reason` asks the model to think it through and end with `ANSWER: <move>` (visible
reasoning, more output tokens); both read the last `ANSWER:` line, else a reply of one line of at
most 40 characters.
Deviations are opt-in keys: `output=json` asks for {"reasoning", "action"} with the action a free
string (structured output, still able to name an illegal move); `output=enum` constrains the
action to an enum of the legal moves (constrained decoding on the local model, strict structured
outputs where a provider has them), which removes the failure channel the paper measures.
Reasoning effort defaults to the paper's "high" (l.51) where the provider exposes it
(`effort=unset` sends none); reasoning summaries are asked for where offered (`summary=auto`),
since recognition is measured on reasoning traces (l.114).
A reply that yields no legal move is a failed attempt, kept with its kind; `on_failure` decides
what follows: forfeit (the paper's rule), retry:N (re-ask, showing the error), or random (play a
uniformly random legal move and record the failure).
The local model writes at most 256 tokens a reply unless `max_tokens` says more (models.model
`LOCAL_DEFAULTS`): a reply cut there (Gemma 270M sometimes echoes the prompt) has no last line to
read, and its failure says it was cut off.

How the model is asked beyond that is opt-in keys. `legal=hidden` leaves the legal-move
list out of the prompt (the paper lists it: its adapter renders "the state and legal actions",
003 l.425, and its obfuscations change "the state observations and available actions", l.96);
Game Arena's prompts without it are `legal=hidden`. `sample=majority:N` asks N independent times
and plays the most frequent legal move (self-consistency, 003 l.27); `sample=rethink:N` is Game
Arena's rethinking sampler: after an unparseable or illegal answer the same prompt is asked afresh
with the rejected move and why it was rejected appended (not a conversation, and no list of the
legal moves), where `on_failure=retry:N` continues the conversation and lists the legal moves.
`view=image` shows a multimodal model the position as the site draws it (games.boards, as PNG with
its coordinates, through inspect's image content) in place of the text board; `view=image+text`
sends both. The paper shows text only (003 l.425), so `view=text` is the default; a game without a
drawn board, and the local text-only model, refuse the key with one line.
"""

from __future__ import annotations

import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import Field, field_validator, model_validator

from ..errors import ParseError, ProviderFailure, UserError, provider_failure
from ..games.boards import DRAWINGS
from ..games.boards.picture import board_png, data_uri, has_drawing
from ..games.rules import MOVES, MOVES_UNLISTED
from ..games.surface import without_legal
from ..jsontypes import JSONObject, JSONValue
from ..models import GenerateConfig, Model, ReplyCache, ResponseCache, get_model
from ..models.call import call, move_call
from ..models.jsontext import BadJSON, parse_json
from ..seeds import call_seed
from ..specs import Params, Spec
from .base import Attempt, Decision, Player, RunContext, Turn, register_player

if TYPE_CHECKING:
    from ..games import GameDef

ANSWER_RE = re.compile(r"ANSWER\s*[:：]\s*(.+)", re.IGNORECASE)
# `prompt=line`'s label, dropped from the reply's last line exactly as plybench's `TextStrategy` does
# (case-sensitive, at the line's start).
ACTION_LABEL_RE = re.compile(r"^Action:\s*")
# Each text prompt: what it asks for, and how its reply is read (extract_answer).
PROMPTS: dict[str, str] = {
    "line": "one line 'Action: <move>', nothing else; the reply's last non-empty line is read, "
    "the label and <...> dropped (the paper's released code, plybench 3.0.5)",
    "action": "the move alone; read: the last 'ANSWER:' line, else a reply of one line of at most "
    "40 characters (runs stored before `line`)",
    "reason": "think it through, then a last line 'ANSWER: <move>'; read as `action` (runs stored "
    "before `action`)",
}
TRANSPORT_FAILURES = {"timeout", "provider_error", "connection", "bad_reply"}
JSON_OUTPUTS = ("json", "enum")


class LLMOptions(Params):
    model: str = "local"
    # The paper's "high" (seed 003 l.51), sent where the provider exposes effort; unset: send none.
    effort: Literal["low", "medium", "high", "unset"] = "high"
    # text: the paper's free answer; json: structured, action a free string; enum: legal moves only.
    # text: the paper's free answer; json: structured, action a free string; enum: legal moves only;
    # distribution: a stated strategy, a probability for each legal move in one JSON object, the move
    # drawn from it by the seed and the distribution stored.
    output: Literal["text", "json", "enum", "distribution"] = "text"
    # text's prompt and how its reply is read (PROMPTS): line, the paper's code's (`Action: <move>`,
    # the last line read); action (the move alone); reason (think it through, then `ANSWER: <move>`).
    # Not given: the run's rule (`action` or `reason` for runs stored before `line`).
    prompt: Literal["line", "action", "reason"] = "line"
    # Reasoning summaries (the traces recognition is counted on): auto asks where the provider
    # offers them (inspect's per-provider detection); concise|detailed ask explicitly; none: never.
    summary: Literal["auto", "concise", "detailed", "none"] = "auto"
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    on_failure: str = "forfeit"
    # listed: the legal moves are in the prompt, the paper's (003 l.425, l.96); hidden: they are not
    # (Game Arena's prompts without them), and an illegal answer fails under on_failure as ever.
    legal: Literal["listed", "hidden"] = "listed"
    # one: one answer, the paper's; majority:N: N independent answers, the most frequent legal move
    # played (ties drawn by the seed); rethink:N: Game Arena's re-ask of the same prompt, afresh,
    # with the rejected move and why (`on_failure=retry:N` continues the conversation instead).
    sample: str = "one"
    # text: the position as the formulation writes it, the paper's (003 l.425); image: the site's
    # drawn board as PNG (with coordinates) in its place, for multimodal models; image+text: both.
    view: Literal["text", "image", "image+text"] = "text"
    # A provider's failure (time-out, rate limit, HTTP error, lost connection), retries spent, is
    # not the model's (003 l.202: F is what the model answered): the game is left unfinished and
    # played again on re-run. forfeit: the old policy, the move fails and the game is forfeited.
    on_provider_failure: Literal["unfinished", "forfeit"] = "unfinished"
    timeout: float | None = Field(None, gt=0.0)
    # json: characters allowed for a reasoning field before the move; 0: none. Default: 300 for
    # hosted models, 0 for `local` (Gemma 270M fills it with filler at ~0.1 s a token).
    reasoning: int | None = Field(None, ge=0, le=4000)
    base_url: str | None = None  # for openai-api/<service>/<model> and self-hosted servers
    max_connections: int | None = Field(None, ge=1)
    # on: ask through the provider's batch API (inspect's `batch`: about half the price at OpenAI,
    # Anthropic and Google, replies within hours); off: one request per call (the default)
    batch: Literal["on", "off"] = "off"
    # Inside an inspect task only: the model is the one inspect gives this model role (`plylab/game`
    # sets role=opponent for an `llm` opponent: `--model-role opponent=<model>`), `model` its name.
    role: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]+$")

    @field_validator("on_failure")
    @classmethod
    def _policy(cls, value: str) -> str:
        policy_of(value)
        return value

    @field_validator("sample")
    @classmethod
    def _sampler(cls, value: str) -> str:
        sampler_of(value)
        return value

    # Keys that contradict each other, refused before any game: one check per rule, one line each, in
    # this order (pydantic runs "after" validators as declared, the first refusal is the one shown).

    @model_validator(mode="after")
    def _hidden_enum(self) -> LLMOptions:
        if self.legal == "hidden" and self.output == "enum":
            raise ValueError(
                "legal=hidden cannot go with output=enum: the enum of legal moves is the list it hides "
                "(a provider shows the schema to the model); use output=text or output=json"
            )
        return self

    @model_validator(mode="after")
    def _distribution_listed(self) -> LLMOptions:
        if self.output == "distribution" and (
            sampler_of(self.sample)[0] == "majority" or self.legal == "hidden"
        ):
            raise ValueError(
                "output=distribution states a probability for each listed legal move: it goes with "
                "neither sample=majority:N nor legal=hidden"
            )
        return self

    @model_validator(mode="after")
    def _one_reask_rule(self) -> LLMOptions:
        if sampler_of(self.sample)[0] == "rethink" and policy_of(self.on_failure)[0] == "retry":
            raise ValueError("sample=rethink:N and on_failure=retry:N are two re-asking rules; choose one")
        return self

    @model_validator(mode="after")
    def _image_model(self) -> LLMOptions:
        if self.view != "text" and self.model == "local":
            raise ValueError(
                f"view={self.view} needs a multimodal model: the local model reads text only; "
                "use view=text or a hosted model that reads images"
            )
        return self

    @model_validator(mode="after")
    def _majority_samples(self) -> LLMOptions:
        if sampler_of(self.sample)[0] == "majority" and self.temperature == 0:
            raise ValueError(
                "sample=majority:N needs sampling: at temperature=0 the N answers are one answer; "
                "leave temperature unset (1.0 on the local model) or set it above 0"
            )
        return self


def policy_of(text: str) -> tuple[str, int]:
    """'forfeit' | 'random' | 'retry:N' -> (policy, retries)."""
    text = text.strip()
    if text in ("forfeit", "random"):
        return text, 0
    m = re.fullmatch(r"retry:(\d+)", text)
    if m and 1 <= int(m.group(1)) <= 20:
        return "retry", int(m.group(1))
    raise ValueError("expected forfeit, random or retry:N with N from 1 to 20")


def sampler_of(text: str) -> tuple[str, int]:
    """'one' | 'majority:N' (N from 2 to 50) | 'rethink:N' (N from 1 to 20) -> (sampler, N)."""
    text = text.strip()
    if text == "one":
        return "one", 1
    m = re.fullmatch(r"(majority|rethink):(\d+)", text)
    if m and m.group(1) == "majority" and 2 <= int(m.group(2)) <= 50:
        return "majority", int(m.group(2))
    if m and m.group(1) == "rethink" and 1 <= int(m.group(2)) <= 20:
        return "rethink", int(m.group(2))
    raise ValueError("expected one, majority:N with N from 2 to 50, or rethink:N with N from 1 to 20")


# Game Arena's rethink texts (its harness/rethink.py, RETHINK_WITH_ENV with the rule's reason).
RETHINK_UNPARSABLE = (
    "Your previously suggested move was not parsable.\n"
    "Please think carefully and generate a new and legal move. Your previous response was:\n{reply}"
)
RETHINK_ILLEGAL = (
    "Your previously suggested move was: {answer}, which is an illegal move.\n"
    "Potential reason: {error}\nPlease think carefully and generate a new and legal move."
)


DISTRIBUTION_ANSWER = (
    "Reply with one JSON object giving, for each legal move written exactly as listed, the probability "
    'that you play it: {"<move>": <probability>, ...}, the probabilities summing to 1. '
    "Your move is drawn from it."
)


# -- the adapter: prompt and parsing ----------------------------------------------------------


def move_schema(labels: list[str] | None, reasoning_chars: int) -> JSONObject:
    """JSON schema of a reply: an optional short reasoning first, then the move.

    With `labels` the move is an enum of them (`output=enum`); without, a free string (`output=json`).
    """
    props: JSONObject = {}
    if reasoning_chars:
        props["reasoning"] = {"type": "string", "maxLength": reasoning_chars}
    enum: list[JSONValue] = [] if labels is None else list(labels)
    props["action"] = {"type": "string"} if labels is None else {"type": "string", "enum": enum}
    required: list[JSONValue] = list(props)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def build_prompt(
    turn: Turn,
    labels: list[str],
    output: str,
    reasoning_chars: int,
    prompt: str = "action",
    legal: str = "listed",
    view: str = "text",
) -> str:
    """The move's one prompt. `prompt` words a text answer (PROMPTS): one line `Action: <move>` (the
    paper's code's format), the move alone, or reasoning then an `ANSWER:` line; json and enum outputs
    ignore it. `legal=hidden` leaves out every list of the legal moves (the prompt's and the position's
    own). `view=image` puts a pointer to the attached picture where the position's text stood."""
    f = turn.formulation
    moves = "\n".join(f"- {label}" for label in labels)
    if output in JSON_OUTPUTS:
        fields = '"reasoning": "<at most a few sentences>", ' if reasoning_chars else ""
        answer = (
            f'Reply with one JSON object: {{{fields}"action": "<your move>"}}, where the action is one '
            "of the legal moves, written exactly as listed."
        )
    elif prompt == "line":
        answer = (
            "Choose one of the legal moves. Reply on one line, in this format:\n"
            "Action: <your move>\n"
            "with the move written exactly as listed: the action only, no explanation."
        )
    elif prompt == "action":
        answer = "Reply with your move alone, written exactly as listed, and nothing else."
    else:
        answer = (
            "Think it through, then end your reply with one last line of the form\n"
            "ANSWER: <your move>\nwith the move written exactly as listed."
        )
    if output == "distribution":  # output=distribution acts here alone: a stated strategy
        answer = DISTRIBUTION_ANSWER
    if legal == "hidden":  # legal=hidden acts here alone: the position's list and the prompt's go
        if getattr(f, "per_position", False):
            raise UserError(
                f"legal=hidden cannot go with formulation '{f.name}' of '{turn.game.name}': its code words "
                "are given only in each position's list of legal moves; use legal=listed"
            )
        position = without_legal(_position(turn, view))
        answer = answer.replace("exactly as listed", "as the rules write moves")
        rules = f.rules().replace(MOVES, MOVES_UNLISTED)
        return (
            f"{rules}\n\nThe current position:\n{position}\n\nYou play {f.seat_name(turn.seat)}.\n\n{answer}"
        )
    return (
        f"{f.rules()}\n\n"
        f"The current position:\n{_position(turn, view)}\n\n"
        f"You play {f.seat_name(turn.seat)}. Legal moves:\n{moves}\n\n"
        f"{answer}"
    )


IMAGE_POSITION = "(shown in the attached image, with the board's coordinates)"


def listed_moves(turn: Turn, rule: str) -> dict[str, int]:
    """The legal moves (name -> action) in the order a model is shown them under the run's `llm_listing`
    rule: the formulation's (sorted by name), or the engine's for a run stored before (`engine`), so it
    asks again what its cached replies answered."""
    legal = turn.formulation.legal_labels(turn.state)
    if rule != "engine":
        return legal
    engine = {a: i for i, a in enumerate(turn.state.legal_actions())}
    return dict(sorted(legal.items(), key=lambda item: engine[item[1]]))


def _position(turn: Turn, view: str) -> str:
    """The position's text in the prompt: the formulation's, or a pointer to the image (view=image)."""
    text = turn.formulation.render_state(turn.state)
    if view == "image":
        return IMAGE_POSITION
    if view == "image+text":
        return f"{IMAGE_POSITION}\n{text}"
    return text


RETRY_FORMS = {
    "line": "one line 'Action: <move>'",
    "action": "your move alone",
    "reason": "a last line 'ANSWER: <move>'",
}


def retry_prompt(
    error: str, labels: list[str], output: str, prompt: str = "reason", legal: str = "listed"
) -> str:
    form = 'a JSON object with the field "action"' if output in JSON_OUTPUTS else RETRY_FORMS[prompt]
    listed = f"The legal moves are: {' | '.join(labels)}.\n" if legal == "listed" else ""
    return f"Your answer was not accepted: {error}\n{listed}Answer again, with {form} naming one legal move."


def distribution_schema(labels: list[str]) -> JSONObject:
    """JSON schema of a stated strategy: a number for every legal move, nothing else."""
    props: JSONObject = {label: {"type": "number"} for label in labels}
    required: list[JSONValue] = list(labels)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


@dataclass(frozen=True)
class Strategy:
    """A stated strategy as read: a probability for every legal move (finite, summing to 1), and the
    sum the reply gave its numbers (1 unless they were rescaled; infinite where it overflowed)."""

    probs: dict[int, float]
    stated_sum: float

    @property
    def rescaled(self) -> bool:
        """The reply's numbers did not sum to 1: the probabilities are them divided by their sum."""
        return not math.isclose(self.stated_sum, 1.0, rel_tol=0.0, abs_tol=1e-6)

    @property
    def said(self) -> float | str:
        """The sum as JSON keeps it (strict JSON has no infinity): a number, or where it overflowed
        a float, the words that say so."""
        return self.stated_sum if math.isfinite(self.stated_sum) else OVERFLOWED


OVERFLOWED = f"more than {sys.float_info.max:.4g}"


def read_distribution(text: str, turn: Turn) -> Strategy:
    """A reply's stated strategy over the legal moves (legal moves it leaves out get 0), rescaled to sum
    to 1 without overflow (`{"Pass": 1e308, "Bet": 1e308}` is half and half). ParseError where it is
    no JSON object of finite non-negative numbers over legal moves, or its numbers are all 0: the
    model's failure, never a crash when the move is drawn from it."""
    body = text.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
    body = fenced.group(1) if fenced else body
    start, end = body.find("{"), body.rfind("}")
    try:
        obj = parse_json(body[start : end + 1], strict=False) if start >= 0 and end > start else None
    except BadJSON:
        obj = None
    if not isinstance(obj, dict) or not obj:
        raise ParseError("the reply is not a JSON object of moves and probabilities")
    named: list[tuple[int, float]] = []
    for key, value in obj.items():
        action = turn.formulation.parse_action(turn.state, key)  # an illegal move is the model's failure
        number = _finite(value)
        if number is None or number < 0:
            raise ParseError(f"the probability of '{key}' is not a finite non-negative number")
        named.append((action, number))
    top = max(number for _, number in named)
    if top == 0:
        raise ParseError("the probabilities sum to 0")
    scaled: dict[int, float] = {}
    for action, number in named:  # each divided by the largest first: no sum can overflow
        scaled[action] = scaled.get(action, 0.0) + number / top
    total = math.fsum(scaled.values())
    probs = {a: scaled.get(a, 0.0) / total for a in turn.state.legal_actions()}
    return Strategy(probs, top * total)


def _finite(value: object) -> float | None:
    """A JSON number as a finite float; None for anything else (a bool, NaN, an infinity, 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def extract_answer(text: str, output: str, prompt: str = "line") -> tuple[str, str | None]:
    """(the move text, the reply's own reasoning if it gave one); ParseError when there is none. A text
    reply is read by its prompt's rule (PROMPTS)."""
    if output in JSON_OUTPUTS:
        body = text.strip()
        fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
        if fenced:
            body = fenced.group(1)
        start, end = body.find("{"), body.rfind("}")
        try:
            obj = parse_json(body[start : end + 1], strict=False) if start >= 0 and end > start else None
        except BadJSON:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("action"), (str, int)):
            raise ParseError('the reply is not a JSON object with a string field "action"')
        why = obj.get("reasoning")
        return str(obj["action"]), why if isinstance(why, str) and why.strip() else None
    if prompt == "line":
        return last_line_answer(text), None
    found = ANSWER_RE.findall(text)
    if found:
        return found[-1].strip().strip("*_` ").strip(), None
    # action and reason read alike, as before `line` (a stored run replays its cached replies the same)
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) == 1 and len(lines[0]) <= 40:  # a bare move is still a clear answer
        return lines[0], None
    if prompt == "action":
        raise ParseError("the reply is not the move alone, on one line, nor has an 'ANSWER: <move>' line")
    raise ParseError("no line of the form 'ANSWER: <move>'")


def last_line_answer(text: str) -> str:
    """The move in the reply's last non-empty line, an `Action:` label and `<...>` dropped: plybench
    3.0.5's `TextStrategy.extract`, rule for rule (tests/players/test_plybench_parse.py compares them on
    a corpus of replies)."""
    text = text.strip()
    line = text.splitlines()[-1].strip() if text else ""
    move = ACTION_LABEL_RE.sub("", line).strip().strip("<>").strip()
    if not move:
        raise ParseError("the reply's last line names no move (asked: one line 'Action: <move>')")
    return move


# -- one move's asking: its context, how a rejected answer is asked again, the ways of sampling ------

Message = dict[str, str]


@dataclass(frozen=True)
class Move:
    """One move's asking, made afresh at each turn and dropped after it (nothing of a move stays on
    the player): what every call of the move shares."""

    turn: Turn
    prompt: str
    schema: JSONObject | None
    labels: list[str]  # the legal moves as listed, in order (a retry lists them again)
    image: str | None  # view=image: the position's PNG as a data URI, attached to every user message
    deadline: float | None  # timeout=: the monotonic time by which the whole move must be decided

    def user(self, text: str) -> Message:
        """A user message, the position's picture attached under `view=image` (models.model sends it
        as inspect's ContentImage before the text)."""
        if self.image is None:
            return {"role": "user", "content": text}
        return {"role": "user", "content": text, "image": self.image}

    def time_left(self) -> float | None:
        """A call's time-out: what is left of the move's deadline (every attempt, and the door's
        retries, share it); None without one."""
        return None if self.deadline is None else max(0.001, self.deadline - time.monotonic())

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline


@dataclass(frozen=True)
class Answer:
    """What asking decided: the move (None: no legal move came), every attempt in order, the strategy
    the move was drawn from (`output=distribution`), and the note the move's record keeps."""

    action: int | None
    attempts: list[Attempt]
    stated: Strategy | None = None
    note: dict[str, object] = field(default_factory=dict)


class Reask(Protocol):
    """How a rejected answer is asked again (an answer the model did not give at all -- a time-out, a
    provider's error -- is asked the same again under either rule)."""

    @property
    def retries(self) -> int:
        """The re-asks after the first try."""
        ...

    def again(self, move: Move, messages: list[Message], attempt: Attempt) -> list[Message]:
        """The messages of the next try, after `messages` were answered by the rejected `attempt`."""
        ...


@dataclass(frozen=True)
class Converse:
    """`on_failure=retry:N` (no re-ask under forfeit or random): the conversation goes on, the model
    shown its reply and what was wrong with it, the legal moves listed again (under legal=listed)."""

    retries: int
    output: str
    prompt: str
    legal: str

    def again(self, move: Move, messages: list[Message], attempt: Attempt) -> list[Message]:
        if attempt.reply:
            messages = messages + [{"role": "assistant", "content": attempt.reply}]
        text = retry_prompt(attempt.error or "", move.labels, self.output, self.prompt, self.legal)
        return messages + [{"role": "user", "content": text}]


@dataclass(frozen=True)
class Rethink:
    """`sample=rethink:N`, Game Arena's rethinking sampler: N re-asks of the same prompt afresh, the
    rejected move and why appended -- not a conversation, and no list of the legal moves."""

    retries: int

    def again(self, move: Move, messages: list[Message], attempt: Attempt) -> list[Message]:
        return [move.user(f"{move.prompt}\n\n{rethink_text(attempt)}")]


# One answer with its re-asks (the player's), its calls numbered from the int: the samples of a move
# never share a cache key or a seed.
Ask = Callable[[Move, int], Awaitable[Answer]]


class Way(Protocol):
    """A way of sampling a move: how many answers it asks for and what it plays from them."""

    async def decide(self, move: Move, ask: Ask) -> Answer:
        """The move's answer; its action None where no legal move came (the player's policy then)."""
        ...


class One:
    """`sample=one` (and `rethink:N`, whose re-asks are its `Reask`): one answer, the paper's."""

    async def decide(self, move: Move, ask: Ask) -> Answer:
        return await ask(move, 0)


class Distribution:
    """`output=distribution`: one answer that states a strategy, the move drawn from it by the seed; the
    note keeps the strategy by name and by engine action (the report prices it against the move's
    grade), and the sum the reply gave where it was not 1."""

    async def decide(self, move: Move, ask: Ask) -> Answer:
        answer = await ask(move, 0)
        if answer.action is None or answer.stated is None:
            return answer
        name, state = move.turn.formulation.action_label, move.turn.state
        probs = answer.stated.probs
        note: dict[str, object] = {
            "distribution": {name(state, a): p for a, p in probs.items()},
            "by_action": {str(a): p for a, p in probs.items()},
        }
        if answer.stated.rescaled:
            note["stated_sum"] = answer.stated.said
        return replace(answer, note=note)


@dataclass(frozen=True)
class Majority:
    """`sample=majority:N`: N independent answers (each with its own re-asks), the most frequent legal
    move played, a tie drawn by the seed; every sample's attempts are the move's."""

    samples: int
    spacing: int  # the calls one sample may make (its try and re-asks): where the next one's numbers start
    sample: str  # the key as written, kept in the note
    seed: int
    unfinished: bool  # on_provider_failure=unfinished: a sample the provider lost leaves the game unfinished

    async def decide(self, move: Move, ask: Ask) -> Answer:
        attempts: list[Attempt] = []
        answers: list[int | None] = []
        for s in range(self.samples):
            answer = await ask(move, s * self.spacing)
            attempts += answer.attempts
            answers.append(answer.action)
            last = answer.attempts[-1]
            if answer.action is None and provider_failure(last.failure) and self.unfinished:
                # a sample the provider lost would change the vote: the game is played again instead
                raise ProviderFailure(last.cause or str(last.failure), last.error or "")
        votes = Counter(a for a in answers if a is not None)
        if not votes:
            return Answer(None, attempts)
        top = max(votes.values())
        tied = sorted(a for a, c in votes.items() if c == top)
        chosen = random.Random(call_seed(self.seed, move.turn.ply, "majority")).choice(tied)
        name, state = move.turn.formulation.action_label, move.turn.state
        note: dict[str, object] = {
            "sample": self.sample,
            "answers": [None if a is None else name(state, a) for a in answers],
            "votes": {name(state, a): c for a, c in votes.most_common()},
        }
        return Answer(chosen, attempts, note=note)


def sampling(options: LLMOptions, prompt: str, seed: int) -> tuple[Way, Reask]:
    """The way a player's moves are sampled and how its rejected answers are asked again, chosen once
    from its keys."""
    _, retries = policy_of(options.on_failure)
    kind, n = sampler_of(options.sample)
    if kind == "rethink":  # N rethinks after the first answer, as Game Arena counts them
        reask: Reask = Rethink(n)
    else:
        reask = Converse(retries, options.output, prompt, options.legal)
    if kind == "majority":
        unfinished = options.on_provider_failure == "unfinished"
        return Majority(n, reask.retries + 1, options.sample, seed, unfinished), reask
    return (Distribution() if options.output == "distribution" else One()), reask


# -- the player --------------------------------------------------------------------------------


@register_player
class LLMPlayer(Player[LLMOptions]):
    Options = LLMOptions
    summary = (
        "a language model, one call per move; model=local|<provider>/<model>, "
        "output=text (the paper's free answer)|json|enum (constrained to legal moves)|distribution "
        "(a stated strategy), "
        "prompt=line (text: one line 'Action: <move>', the last line read: the paper's code)|action (the "
        "move alone)|reason (think it through, then ANSWER:), "
        "on_failure=forfeit|retry:N|random, on_provider_failure=unfinished|forfeit, effort (default high), "
        "legal=listed (the paper's)|hidden, sample=one|majority:N|rethink:N, "
        "view=text (the paper's)|image|image+text (the drawn board as PNG, for multimodal models), "
        "summary, temperature, max_tokens (local: 256 unless given), timeout, batch=on|off (provider batch APIs), "
        "role (inside an inspect task: the model of an inspect model role)"
    )
    uses_model = True

    @classmethod
    def prepare(cls, options: Params) -> None:
        """An unknown provider, a missing key or an unreachable server: one line before any game."""
        if not isinstance(options, LLMOptions):  # bound from this class's spec (`resolve`)
            raise TypeError(f"{cls.__name__} is prepared with its own options, not {type(options).__name__}")
        get_model(
            options.model,
            base_url=options.base_url,
            max_connections=options.max_connections,
            role=options.role,
        )

    def __init__(
        self, spec: Spec, options: LLMOptions, game: GameDef, seed: int, context: RunContext | None = None
    ) -> None:
        super().__init__(spec, options, game, seed, context)
        o = self.options
        self.policy, _ = policy_of(o.on_failure)
        self.model: Model = get_model(
            o.model, base_url=o.base_url, max_connections=o.max_connections, role=o.role
        )
        self.reasoning_chars = o.reasoning if o.reasoning is not None else (0 if self.model.is_local else 300)
        # The local model has neither effort nor traces: leave both out (and out of its cache keys).
        self.effort = None if self.model.is_local or o.effort == "unset" else o.effort
        self.trace_summary = None if self.model.is_local or o.summary == "auto" else o.summary
        self._own_cache: ResponseCache | None = None
        # Given: as given; not given: the run's rule, so a stored run resumes with its own prompt.
        given = "prompt" in o.model_fields_set
        self.prompt = o.prompt if given else self.context.llm_prompt
        self.way, self.reask = sampling(o, self.prompt, seed)
        # majority:N needs N different answers: the local model's default is greedy (temperature 0),
        # so it samples at 1.0 unless told; a hosted model keeps its provider's default (sampling).
        unset = o.temperature is None and isinstance(self.way, Majority) and self.model.is_local
        self.temperature = 1.0 if unset else o.temperature
        if o.view != "text" and not has_drawing(game.openspiel_name):
            raise UserError(
                f"view={o.view}: '{game.name}' has no drawn board ({', '.join(sorted(DRAWINGS.names()))} "
                "have one); use view=text"
            )

    @property
    def cache(self) -> ReplyCache | None:
        if self.context.cache is not None:
            return self.context.cache
        if self._own_cache is None and self.context.store_path is not None:
            self._own_cache = ResponseCache.open(self.context.store_path)
        return self._own_cache

    def close(self) -> None:
        if self._own_cache is not None:
            self._own_cache.close()
            self._own_cache = None

    async def act(self, turn: Turn) -> Decision:
        decision, _ = await self._decide(turn)
        return decision

    async def stated(self, turn: Turn) -> Strategy | None:
        """The strategy stated at `turn` (`output=distribution`), asked once (with the re-asks the
        keys allow); None where no usable one came. For the stated strategy's exploitability."""
        decision, answer = await self._decide(turn)
        return answer.stated if decision.action is not None and decision.failure is None else None

    async def _decide(self, turn: Turn) -> tuple[Decision, Answer]:
        """The move, asked from a context of its own: the sampling way answers, and where no legal
        move came the policy decides (`_failed`)."""
        move = self._move(turn)
        answer = await self.way.decide(move, self._answer)
        if answer.action is None:
            decision = self._failed(turn, answer.attempts)
        else:
            decision = Decision(answer.action, answer.attempts, note=answer.note)
        if move.image is not None:  # the replay shows the drawn board the model saw
            decision.note = {**decision.note, "view": self.options.view}
        return decision, answer

    def _move(self, turn: Turn) -> Move:
        """The turn's asking: the listed moves, the reply's schema, the prompt, the picture, the deadline."""
        o = self.options
        labels = list(listed_moves(turn, self.context.llm_listing))
        schema = None
        if o.output in JSON_OUTPUTS:
            schema = move_schema(labels if o.output == "enum" else None, self.reasoning_chars)
        elif o.output == "distribution":
            schema = distribution_schema(labels)
        prompt = build_prompt(turn, labels, o.output, self.reasoning_chars, self.prompt, o.legal, o.view)
        image = self._picture(turn)
        # timeout= bounds the whole move: every attempt (and the door's retries) shares one deadline
        deadline = time.monotonic() + o.timeout if o.timeout else None
        return Move(turn, prompt, schema, labels, image, deadline)

    async def _answer(self, move: Move, first: int) -> Answer:
        """One answer: the first try and the re-asks its `Reask` allows. `first` numbers the calls
        (cache key and seed) so the samples of a move never share one."""
        messages = [move.user(move.prompt)]
        attempts: list[Attempt] = []
        for n in range(self.reask.retries + 1):
            attempt, read = await self._attempt(move, messages, first + n)
            attempts.append(attempt)
            if read is not None:
                return Answer(read[0], attempts, stated=read[1])
            if n == self.reask.retries or move.out_of_time():
                break
            if attempt.failure in TRANSPORT_FAILURES:  # the model did not answer: ask the same again
                continue
            messages = self.reask.again(move, messages, attempt)
        return Answer(None, attempts)

    def _picture(self, turn: Turn) -> str | None:
        """`view=image`: the position as the site draws it, a PNG data URI; None under view=text."""
        if self.options.view == "text":
            return None
        if turn.formulation.name != "standard":  # the drawing is the real board: it would undo the disguise
            raise UserError(
                f"view={self.options.view}: the picture shows the real board of '{turn.game.name}', which "
                f"undoes formulation '{turn.formulation.name}'; use view=text with it"
            )
        png = board_png(turn.game.openspiel_name, turn.state)
        if png is None:
            raise UserError(f"view={self.options.view}: this position of '{turn.game.name}' cannot be drawn")
        return data_uri(png)

    def _failed(self, turn: Turn, attempts: list[Attempt]) -> Decision:
        """No legal move came: the provider's loss leaves the game unfinished; else the policy."""
        failure = attempts[-1].failure
        if provider_failure(failure) and self.options.on_provider_failure == "unfinished":
            raise ProviderFailure(attempts[-1].cause or str(failure), attempts[-1].error or "")
        if self.policy == "random":
            return Decision(
                self.rng.choice(turn.state.legal_actions()),
                attempts,
                failure=failure,
                note={"fallback": "random"},
            )
        return Decision(None, attempts, failure=failure)

    def _token_cap(self) -> str:
        """The cap a cut reply hit, as a user would set it: `max_tokens=N` (the local model's 256 unless
        given), or the provider's own where neither says."""
        cap = self.options.max_tokens or getattr(getattr(self.model, "defaults", None), "max_tokens", None)
        return f"max_tokens={cap}" if cap else "max_tokens"

    async def _attempt(
        self, move: Move, messages: list[Message], n: int
    ) -> tuple[Attempt, tuple[int, Strategy | None] | None]:
        """One call, numbered `n`, and what its reply was read as (None: a failed attempt, the failure
        and why written on it)."""
        o = self.options
        config = GenerateConfig(
            temperature=self.temperature,
            max_tokens=o.max_tokens,
            effort=self.effort,
            reasoning_summary=self.trace_summary,
            timeout=move.time_left(),
            batch=True if o.batch == "on" else None,
        )
        at = move_call(self.seed, move.turn.job_key, move.turn.ply, n)
        attempt = await call(
            self.model,
            messages,
            schema=move.schema,
            config=config,
            cache=self.cache,
            key=at.key,
            seed=at.seed,
        )
        if attempt.failure is not None:
            return attempt, None
        try:
            return attempt, self._read(attempt.reply or "", move.turn)
        except ParseError as err:
            attempt.failure = "illegal" if getattr(err, "kind", None) == "illegal" else "unparseable"
            cut = f" (the reply was cut off at {self._token_cap()})" if attempt.truncated else ""
            attempt.error = f"{err}{cut}"
            return attempt, None

    def _read(self, reply: str, turn: Turn) -> tuple[int, Strategy | None]:
        """The move a reply names (ParseError where none), with the strategy it states under
        `output=distribution`, the move drawn from it by the seed."""
        if self.options.output == "distribution":
            strategy = read_distribution(reply, turn)
            weights = random.Random(call_seed(self.seed, turn.ply, "distribution"))
            return weights.choices(list(strategy.probs), list(strategy.probs.values()))[0], strategy
        answer, _ = extract_answer(
            reply, self.options.output, self.prompt
        )  # a JSON "reasoning" stays in the reply
        return turn.formulation.parse_action(turn.state, answer), None


def rethink_text(attempt: Attempt) -> str:
    """Game Arena's rethink paragraph for a rejected answer: the move and why, or the reply itself."""
    if attempt.failure == "illegal":
        answer = re.match(r"'(.*)' is not a legal move", attempt.error or "")
        said = answer.group(1) if answer else (attempt.reply or "").strip()
        return RETHINK_ILLEGAL.format(answer=said, error=attempt.error)
    return RETHINK_UNPARSABLE.format(reply=attempt.reply or "")
