"""A reply to a JSON schema, written where the schema leaves no choice (issue 29.3).

A REAPER planner's reply, `{"kind": "plan", "subtask_1": "...", ...}`, is mostly text its schema
fixes: braces, keys, quotes, separators. Sampled under a grammar, each of those tokens costs a
pass through Gemma 3's 262k-row output layer; written, they are evaluated in one batch that
wants only the last token's logits. `compile_schema` turns a schema into parts:

- fixed text, as `json.dumps` writes it (`{"key": `, `, `, `}`);
- a choice: a string enum, a boolean, or the tag of a tagged union (an `anyOf` of objects whose
  first property is a string enum, each value in one branch only), made by `choice.py`;
- a free value (a string with its length bounds, an integer, a number), sampled token by token
  under a grammar for that value alone, with llama-cpp-python's sampler chain (`TokenSampler`).

Any other schema (optional or extra properties, arrays, patterns, bounds on numbers, an `anyOf`
that is not a tagged union) is decoded under its whole grammar (`decoding.py`).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from ..jsontypes import JSONObject, JSONValue
from .choice import continuations, pick, score
from .decoding import Decoder

if TYPE_CHECKING:
    from llama_cpp import LlamaGrammar

# llama.cpp's JSON string character (its json-schema-to-grammar `char` rule)
CHAR = r'char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})'
INTEGER = '"-"? ("0" | [1-9] [0-9]{0,15})'
NUMBER_CHARS = set("-+.eE0123456789")
NUMBER = INTEGER + ' ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,16})?'
OPEN, CLOSE, SEP, COLON = "{ ", " }", ", ", ": "  # as the model writes an object when free
IGNORED = {"description", "title"}  # words for the model, not constraints


@dataclass(frozen=True)
class Fixed:
    text: str


@dataclass(frozen=True)
class Option:
    text: str  # as written after the text before it, up to the choice's `closing`
    then: Plan = ()  # what a tagged union's branch writes after its tag


@dataclass(frozen=True)
class Choice:
    options: tuple[Option, ...]
    closing: str  # written after every option: a string's quote, or nothing


@dataclass(frozen=True)
class Free:
    """A value the model writes; its grammar runs on into the text after it (`grammar`), so a
    token may close the value and begin that text (`",` is one token), as under the whole
    grammar. Sampling stops at the token that ends the value; the rest of the text is written."""

    body: str  # GBNF for the value after the text written before it (a string: after its quote)
    kind: Literal["string", "number"]

    def grammar(self, then: str) -> str:
        return f"root ::= {self.body} {json.dumps(then)}\n{CHAR}" if then else f"root ::= {self.body}\n{CHAR}"

    def end(self, raw: bytes) -> int | None:
        """Where in the sampled bytes the value ends (the text after it begins), or None."""
        if self.kind == "number":
            for i, byte in enumerate(raw):
                if chr(byte) not in NUMBER_CHARS:
                    return i
            return None
        escaped = False
        for i, byte in enumerate(raw):
            if escaped:
                escaped = False
            elif byte == 0x5C:  # a backslash escapes the next character
                escaped = True
            elif byte == 0x22:  # the closing quote
                return i + 1
        return None


Part = Fixed | Choice | Free
Plan = tuple[Part, ...]


def compile_schema(schema: JSONObject | None) -> Plan | None:
    """The parts a reply to `schema` is written in, or None when it must be decoded under a grammar."""
    if not isinstance(schema, dict):
        return None
    parts = _value(schema)
    if parts is None or not parts or not isinstance(parts[0], Fixed):
        return None  # a reply begins with written text (`{`): a choice or a value needs a context
    return _merged(parts)


def _merged(parts: list[Part] | Plan) -> Plan:
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Fixed) and out and isinstance(out[-1], Fixed):
            out[-1] = Fixed(out[-1].text + part.text)
        elif not (isinstance(part, Fixed) and not part.text):
            out.append(part)
    return tuple(out)


def _value(schema: JSONValue) -> list[Part] | None:
    """The parts of one value."""
    if not isinstance(schema, dict):
        return None
    keys = set(schema) - IGNORED
    if "anyOf" in schema:
        return _union(schema["anyOf"]) if keys == {"anyOf"} else None
    if "enum" in schema:
        values = schema["enum"]
        if (
            keys - {"type", "enum"}
            or schema.get("type", "string") != "string"
            or not isinstance(values, list)
        ):
            return None
        labels = list(dict.fromkeys(v for v in values if isinstance(v, str)))
        if not labels or len(labels) != len(set(map(str, values))):
            return None
        if len(labels) == 1:
            return [Fixed(json.dumps(labels[0], ensure_ascii=False))]
        return [Fixed('"'), Choice(tuple(Option(_escaped(v)) for v in labels), '"')]
    kind = schema.get("type")
    if kind == "object":
        return _object(schema)
    if kind == "string" and keys <= {"type", "minLength", "maxLength"}:
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if not isinstance(low, int) or not (high is None or isinstance(high, int)):
            return None
        reps = "*" if not low and high is None else f"{{{low},{'' if high is None else high}}}"
        return [Fixed('"'), Free(f'char{reps} "\\""', "string")]
    if kind in ("integer", "number") and keys == {"type"}:
        return [Free(f"({INTEGER if kind == 'integer' else NUMBER})", "number")]
    if kind == "boolean" and keys == {"type"}:
        return [Choice((Option("true"), Option("false")), "")]
    if kind == "null" and keys == {"type"}:
        return [Fixed("null")]
    return None


def _object(schema: JSONObject) -> list[Part] | None:
    props, required = schema.get("properties", {}), schema.get("required", [])
    if set(schema) - IGNORED - {"type", "properties", "required", "additionalProperties"}:
        return None
    if schema.get("additionalProperties") is not False or not isinstance(props, dict):
        return None
    if not isinstance(required, list) or required != list(props):
        return None  # an optional property may be left out: the grammar decides
    parts: list[Part] = [Fixed(OPEN)]
    for i, (key, sub) in enumerate(props.items()):
        value = _value(sub)
        if value is None:
            return None
        parts += [Fixed(("" if i == 0 else SEP) + json.dumps(key, ensure_ascii=False) + COLON), *value]
    parts.append(Fixed(CLOSE))
    return list(_merged(parts))


def _union(branches: JSONValue) -> list[Part] | None:
    """A tagged union: every branch an object whose first property, the same in all, is a string
    enum; the tag chosen, its branch written on."""
    if not isinstance(branches, list) or not branches:
        return None
    options: list[Option] = []
    tag: str | None = None
    for branch in branches:
        if not isinstance(branch, dict) or not isinstance(branch.get("properties"), dict):
            return None
        props = branch["properties"]
        assert isinstance(props, dict)
        first = next(iter(props), None)
        spec = props.get(first) if first is not None else None
        if first is None or (tag is not None and first != tag) or not isinstance(spec, dict):
            return None
        tag = first
        values = spec.get("enum")
        if not isinstance(values, list) or set(spec) - IGNORED - {"type", "enum"}:
            return None
        for v in values:
            if not isinstance(v, str) or any(o.text == _escaped(v) for o in options):
                return None
            one: JSONObject = {**spec, "enum": [v]}
            plan = _object({**branch, "properties": {**props, first: one}})
            if plan is None:
                return None
            head = OPEN + json.dumps(first, ensure_ascii=False) + COLON + json.dumps(v, ensure_ascii=False)
            merged = _merged(plan)
            lead = merged[0]
            assert isinstance(lead, Fixed) and lead.text.startswith(head)
            options.append(Option(_escaped(v), _merged([Fixed(lead.text[len(head) :]), *merged[1:]])))
    assert tag is not None
    return [Fixed(OPEN + json.dumps(tag, ensure_ascii=False) + COLON + '"'), Choice(tuple(options), '"')]


def _escaped(label: str) -> str:
    return json.dumps(label, ensure_ascii=False)[1:-1]


@lru_cache(maxsize=512)
def _grammar(gbnf: str) -> LlamaGrammar:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(gbnf, verbose=False)


class Writer:
    """Writes one reply after `prompt` (already evaluated by `Decoder.evaluate`), part by part.

    Written text waits in `pending` (with the tokens of a finished free value) until a choice or a
    free value needs the model's next-token logits: then it is evaluated in one batch, with the
    choice's options when there is one. Choices draw from one `random.Random(seed)`; each free
    value's sampler is seeded from it in turn, so a call's reply depends on its seed alone."""

    def __init__(
        self,
        decoder: Decoder,
        prompt: list[int],
        *,
        temperature: float,
        seed: int,
        max_tokens: int,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> None:
        self.d = decoder
        self.prompt = prompt
        self.pos = len(prompt)
        self.temperature = temperature
        self.rng = random.Random(seed)
        self.max_tokens = max_tokens
        self.cancelled = cancelled
        self.pending = (
            b""  # written text the model has not seen yet, as bytes (a token may end mid-character)
        )
        self.pending_tokens: list[int] = []
        self.out: list[bytes] = []
        self.used = 0  # the reply's tokens so far, as written and sampled
        self.finish = "stop"

    def write(self, plan: Plan) -> tuple[str, int, str]:
        """(the reply's text, its token count, the finish reason: stop, or length at `max_tokens`)."""
        start = time.perf_counter()
        try:
            self._parts(plan)
        finally:
            self.d.remove(-1, len(self.prompt))  # the reply goes; the prompt stays for the next call
            self.d.timings.reply += time.perf_counter() - start
        raw = b"".join(self.out)
        text = raw.decode("utf-8", errors="ignore")
        llama = self.d.llama
        if self.finish != "stop":
            return text, self.max_tokens, self.finish
        tokens = llama.tokenize(raw, add_bos=False, special=False)
        if len(tokens) > self.max_tokens:  # as a decoded reply would be: cut at max_tokens
            cut = llama.detokenize(tokens[: self.max_tokens]).decode("utf-8", errors="ignore")
            return cut, self.max_tokens, "length"
        return text, len(tokens), "stop"

    def _parts(self, plan: Plan) -> bool:
        """Write `plan`; False once the reply has stopped (cancelled, or out of tokens)."""
        skip = 0  # bytes of the next written text that a free value's last token wrote
        for i, part in enumerate(plan):
            if isinstance(part, Fixed):
                self._text(part.text.encode("utf-8")[skip:])
                skip = 0
            elif isinstance(part, Choice):
                option = self._choose(part)
                self._text((option.text + part.closing).encode("utf-8"))
                if not self._parts(option.then):
                    return False
            else:
                after = plan[i + 1] if i + 1 < len(plan) else None
                wrote = self._free(part, after.text if isinstance(after, Fixed) else "")
                if wrote is None:
                    return False
                skip = wrote
        return True

    def _text(self, raw: bytes) -> None:
        self.pending += raw
        self.out.append(raw)

    def _context(self) -> list[int]:
        """The tokens written since the model last saw the reply, taken out of `pending`."""
        tokens = self.pending_tokens + list(self.d.llama.tokenize(self.pending, add_bos=False, special=False))
        self.pending, self.pending_tokens = b"", []
        self.used += len(tokens)
        return tokens

    def _choose(self, choice: Choice) -> Option:
        if len(choice.options) == 1:
            return choice.options[0]
        conts = continuations(self.d.llama, [o.text for o in choice.options], choice.closing)
        fixed = self._context()
        assert fixed, "a choice follows written text"
        scores = score(self.d, conts, fixed, self.pos)
        self.pos += len(fixed)
        return choice.options[pick(scores, self.temperature, self.rng)]

    def _free(self, free: Free, then: str) -> int | None:
        """Sample one free value under its grammar, which runs on into `then` (the text after it),
        until a token ends the value; returns how many bytes of `then` that token wrote (None: the
        reply stopped). The token joins the context with the next written text."""
        context = self._context()
        assert context, "a free value follows written text"
        d, llama = self.d, self.d.llama
        d.decode([(t, self.pos + j, (0,), j == len(context) - 1) for j, t in enumerate(context)])
        self.pos += len(context)
        sampler = d.sampler(_grammar(free.grammar(then)), self.temperature, self.rng.getrandbits(32))
        tokens: list[int] = []
        try:
            while True:
                out_of_tokens = self.used + len(tokens) >= self.max_tokens
                if out_of_tokens or self.cancelled():
                    self.out.append(llama.detokenize(tokens))
                    if out_of_tokens:
                        self.finish = "length"
                    return None
                tokens.append(sampler.sample(d.logits(-1)))
                raw = llama.detokenize(tokens)
                end = free.end(raw)
                if end is not None:
                    break
                d.decode([(tokens[-1], self.pos, (0,), True)])
                self.pos += 1
        finally:
            sampler.close()
        self.out.append(raw)
        self.pending_tokens = [tokens[-1]]  # in the context with the next written text
        self.used += len(tokens) - 1
        return len(raw) - end
