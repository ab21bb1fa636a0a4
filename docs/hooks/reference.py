"""The manual's reference pages, written at build time from plylab's own registries and Typer's help,
so they cannot drift from the code: every player and its spec keys (`reference/players.md`), every
game and what grades it (`reference/games.md`), every command and its options (`reference/cli.md`).

MkDocs runs this module as a hook (`hooks:` in mkdocs.yml); `pages()` is what it adds, a plain
function so a test can read the same text. Nothing here is fetched: it imports plylab and reads it.
"""

from __future__ import annotations

import html
import inspect
import io
import re
import tokenize
import typing
from collections.abc import Iterator
from typing import Any

GENERATED = "<!-- Generated at build time by docs/hooks/reference.py: edit the code, not this page. -->\n\n"


def code(text: object) -> str:
    """Inline code that is safe in a Markdown table cell (a `|` would end the cell)."""
    return f"<code>{html.escape(str(text)).replace('|', '&#124;')}</code>"


def cell(text: object) -> str:
    """Text that is safe in a table cell: one line, escaped, its pipes kept as text, and its
    `code spans` as code (a pipe inside one would otherwise end the cell)."""
    parts = " ".join(str(text).split()).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: all text
        parts = ["`".join(parts)]
    return "".join(
        code(part) if i % 2 else html.escape(part).replace("|", "&#124;") for i, part in enumerate(parts)
    )


# --- players -------------------------------------------------------------------------------------


def field_comments(options: type) -> dict[str, str]:
    """The comments written beside each spec key in its `Options` class (and the classes it extends):
    the line above a field, or the end of its own line. Keys are documented once, in the code."""
    found: dict[str, str] = {}
    for klass in reversed(options.__mro__):
        if klass.__module__.startswith("pydantic") or klass is object:
            continue
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        pending: list[str] = []
        lines = source.splitlines()
        depth = len(lines[1]) - len(lines[1].lstrip()) if len(lines) > 1 else 4
        for tok_line in lines[1:]:
            stripped = tok_line.strip()
            indent = len(tok_line) - len(tok_line.lstrip())
            if stripped.startswith("#") and indent == depth:
                pending.append(stripped.lstrip("#").strip())
                continue
            m = re.match(r"(\w+)\s*:", stripped) if indent == depth else None
            if m:
                trailing = _trailing_comment(tok_line)
                text = " ".join([*pending, trailing]).strip()
                if text:
                    found[m.group(1)] = text
            pending = []
    return found


def _trailing_comment(line: str) -> str:
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline):
            if tok.type == tokenize.COMMENT:
                return tok.string.lstrip("#").strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return ""
    return ""


def type_text(annotation: Any) -> str:
    """A spec key's accepted values as a user writes them: `low|medium|high`, `int`, `float`..."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return "|".join(str(v) for v in typing.get_args(annotation))
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if args and origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return " or ".join(type_text(a) for a in args)
    if isinstance(annotation, type):
        names = {"str": "text", "bool": "true|false (or on|off)", "Path": "path"}
        return names.get(annotation.__name__, annotation.__name__)
    return str(annotation).replace("typing.", "")


def bounds_text(metadata: list[Any]) -> str:
    said = []
    for m in metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(m, attr, None)
            if value is not None:
                said.append(f"{sign} {value}")
    return ", ".join(said)


def players_page() -> str:
    from plylab.players import PLAYERS, Player

    out = [
        "# Player specs\n\n",
        GENERATED,
        "Every registered player, read from the player registry, with each spec key's accepted values and "
        "default as its `Options` model declares them, and the comment written beside the key in the code. "
        "A spec is `name` or `name:key=value,key=value`; a key left out takes its default, which is the "
        "seed papers' protocol. [Players and their specs](../players.md) explains them in prose.\n\n",
        "| player | family | command | what it is |\n|---|---|---|---|\n",
    ]
    classes = [PLAYERS.get(n) for n in PLAYERS]
    for c in classes:
        out.append(
            f"| [{code(c.name)}](#{anchor(c.name)}) | {c.family} | {cell(c.command)} | {cell(c.summary)} |\n"
        )
    for c in classes:
        out.append(f"\n## {c.name} {{#{anchor(c.name)}}}\n\n{cell(c.summary)}.\n\n")
        games = (c.games or []) if issubclass(c, Player) else [c.family]
        facts = [f"family `{c.family}`, played by `{c.command}`"]
        if c.uses_model:
            facts.append("calls a language model")
        if games:
            facts.append("games: " + ", ".join(f"`{g}`" for g in games))
        out.append("; ".join(facts) + ".\n\n")
        fields = c.Options.model_fields
        if not fields:
            out.append("No spec keys.\n")
            continue
        comments = field_comments(c.Options)
        out.append("| key | values | default | notes |\n|---|---|---|---|\n")
        for key, info in fields.items():
            values = type_text(info.annotation)
            limits = bounds_text(info.metadata)
            default = "required" if info.is_required() else info.get_default(call_default_factory=True)
            if isinstance(default, bool):
                default = str(default).lower()  # as a spec writes it
            shown = "–" if default is None else code(default if default != "" else '""')
            note = " ".join(x for x in (f"({limits})" if limits else "", comments.get(key, "")) if x)
            out.append(f"| {code(key)} | {code(values)} | {shown} | {cell(note)} |\n")
    return "".join(out)


def anchor(name: str) -> str:
    return "player-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# --- games ---------------------------------------------------------------------------------------


def games_page() -> str:
    from plylab.cli.listing import bounds, bounds_text, game_rows
    from plylab.games.params import format_value

    rows = game_rows()
    out = [
        "---\nhide:\n  - toc\n---\n\n# Games\n\n",
        GENERATED,
        f"Every playable game ({len(rows)}), read from the game registry as `plylab games --format json` "
        "lists it: what grades its moves (an exact oracle, an equilibrium, an engine, or nothing), its "
        "formulations and its parameters at their defaults. [Ground truth](../ground-truth.md) says how each "
        "kind of grade is made and checked; [Games and formulations](../games.md) how a game is played.\n\n",
        "| game | graded by | formulations | parameters | notes |\n|---|---|---|---|---|\n",
    ]
    for r in rows:
        if r["oracle"]:
            graded = "equilibrium (CFR+)" if r.get("oracle_kind") == "equilibrium" else "exact oracle"
        elif r["engine"]:
            graded = f"engine: {r['engine']}"
        else:
            graded = "–"
        params = ", ".join(f"{k}={format_value(v)}" for k, v in r["parameters"].items())
        notes = []
        if r.get("chance"):
            notes.append("chance")
        if r.get("hidden"):
            notes.append("hidden information")
        if r.get("not_for_text"):
            notes.append(f"not for text players: {r['not_for_text']}")
        if r.get("engine_missing"):
            notes.append(r["engine_missing"])
        out.append(
            f"| {code(r['name'])} | {cell(graded)} | {cell(', '.join(r['formulations']))} | "
            f"{code(params) if params else '–'} | {cell('; '.join(notes))} |\n"
        )
    out.append(f"\n{bounds_text(bounds())}\n")
    return "".join(out)


# --- the command line ----------------------------------------------------------------------------


def commands(group: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    """Every command under a click group, depth first in name order, groups included."""
    yield path, group
    for name in sorted(getattr(group, "commands", {}) or {}):
        yield from commands(group.commands[name], [*path, name])


def cli_page() -> str:
    import typer

    from plylab.cli import app

    root = typer.main.get_command(app)
    out = [
        "# Command line\n\n",
        GENERATED,
        "Every `plylab` command with its options, read from the command line itself (Typer's help, as "
        "`plylab COMMAND --help` prints it).\n\n",
    ]
    found = list(commands(root, ["plylab"]))
    out.append("| command | what it does |\n|---|---|\n")
    for path, cmd in found[1:]:
        out.append(
            f"| [{code(' '.join(path))}](#{cli_anchor(path)}) | {cell(cmd.get_short_help_str(200))} |\n"
        )
    for path, cmd in found[1:]:
        context = type(root.make_context("plylab", [], resilient_parsing=True))(cmd, info_name=" ".join(path))
        usage = " ".join(cmd.collect_usage_pieces(context))
        title = " ".join(path)
        out.append(f"\n## {title} {{#{cli_anchor(path)}}}\n\n```\n{title} {usage}\n```\n\n")
        if cmd.help:
            out.append(html.escape(inspect.cleandoc(cmd.help)).replace("\n\n", "\n\n") + "\n\n")
        if hasattr(cmd, "commands"):
            subs = ", ".join(
                f"[`{' '.join([*path, n])}`](#{cli_anchor([*path, n])})" for n in sorted(cmd.commands)
            )
            out.append(f"Commands: {subs}.\n\n")
        records = [p.get_help_record(context) for p in cmd.get_params(context)]
        rows = [(code(r[0]), cell(r[1])) for r in records if r is not None and r[0] != "--help"]
        if rows:
            out.append("| argument or option | what it does |\n|---|---|\n")
            out.extend(f"| {a} | {b} |\n" for a, b in rows)
    return "".join(out)


def cli_anchor(path: list[str]) -> str:
    return "cmd-" + "-".join(path[1:]) if len(path) > 1 else "cmd"


# --- prompts -------------------------------------------------------------------------------------


def prompts_page() -> str:
    """The `llm` player's prompt for tic-tac-toe's first move in each answer form, built by the
    player's own prompt and schema functions (what a model is sent, word for word)."""
    import json

    from plylab.games import GAMES
    from plylab.players.base import Turn
    from plylab.players.llm import build_prompt, move_schema, retry_prompt
    from plylab.seeds import LLM_PROMPT

    game = GAMES.get("tic_tac_toe")
    out = [
        "# Prompts\n\n",
        GENERATED,
        "What an `llm` player sends for the first move of tic-tac-toe, word for word, built by the player's "
        "own functions. A move is one user message; a JSON answer is also constrained by the schema shown "
        "(where the provider takes one). The legal moves are listed sorted by name, as the paper's code "
        "lists them, so a disguise's order says nothing of the board it hides. [How the model is "
        "asked](../model.md) explains each form.\n",
    ]
    forms = [
        ("standard", "text", LLM_PROMPT, 0, "the default, the paper's code's: `llm:model=M`"),
        ("standard", "text", "action", 0, "`prompt=action`"),
        ("standard", "text", "reason", 0, "`prompt=reason`"),
        ("standard", "json", LLM_PROMPT, 300, "`output=json` (a hosted model: 300 characters of reasoning)"),
        ("standard", "enum", LLM_PROMPT, 0, "`output=enum` (the local model: no reasoning field)"),
        ("magic_square", "text", LLM_PROMPT, 0, "the same game disguised: `--formulation magic_square`"),
    ]
    for formulation, output, prompt, reasoning, title in forms:
        f = game.formulation(formulation)
        state = game.new_state()
        turn = Turn(game=game, formulation=f, state=state, seat=0, ply=0, job_key="example")
        labels = list(f.legal_labels(state))
        out.append(f"\n## {title}\n\n```text\n{build_prompt(turn, labels, output, reasoning, prompt)}\n```\n")
        if output in ("json", "enum"):
            schema = move_schema(labels if output == "enum" else None, reasoning)
            out.append(f"\nThe schema:\n\n```json\n{json.dumps(schema, indent=2)}\n```\n")
    from plylab.errors import ParseError

    standard, start = game.formulation("standard"), game.new_state()
    try:
        standard.parse_action(start, "Z9")
        error = ""
    except ParseError as exc:  # the error a reply naming no cell gets, as the player shows it
        error = str(exc)
    retry = retry_prompt(error, list(standard.legal_labels(start)), "text", LLM_PROMPT)
    out.append(
        "\n## After an unusable reply, under `on_failure=retry:N`\n\n"
        "The conversation goes on with one more user message (here after the reply `Z9`):\n\n"
        f"```text\n{retry}\n```\n"
    )
    return "".join(out)


# --- the floors ----------------------------------------------------------------------------------

FLOORS_MARK = "<!-- floors:"


def floors() -> dict[int, list[tuple[str, str]]]:
    """The floors test's `FLOORS` (package -> floor, and the comment beside it), read from its source
    so the manual shows exactly the rule the test enforces."""
    import ast
    from pathlib import Path

    path = Path(__file__).parents[2] / "tests" / "core" / "test_floors.py"
    source = path.read_text()
    tree = ast.parse(source)
    names = {
        t.id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    table = next(
        n.value
        for n in tree.body
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "FLOORS" for t in n.targets)
        and isinstance(n.value, ast.Dict)
    )
    lines = source.splitlines()
    out: dict[int, list[tuple[str, str]]] = {}
    for key, value in zip(table.keys, table.values):
        name = names[key.id] if isinstance(key, ast.Name) else ast.literal_eval(key)  # type: ignore[arg-type]
        comment = _trailing_comment(lines[key.lineno - 1]) if key is not None else ""
        out.setdefault(ast.literal_eval(value), []).append((name, comment))
    return out


def first_sentence(text: str | None) -> str:
    flat = " ".join((text or "").split())
    m = re.search(r"(?<!e\.g)(?<!i\.e)\.(\s|$)", flat)
    return flat[: m.start() + 1] if m else flat


def floors_table() -> str:
    import importlib

    rows = ["| floor | package | what it holds |", "|---|---|---|"]
    for floor, packages in sorted(floors().items(), reverse=True):
        for name, comment in packages:
            if name == "plylab":
                shown, held = "the ground floor: plylab's own modules", comment or "imports no package"
            else:
                shown = name.removeprefix("plylab.")
                held = first_sentence(importlib.import_module(name).__doc__) or comment
            rows.append(f"| {floor} | {code(shown)} | {cell(held)} |")
    return "\n".join(rows) + "\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs' hook: a page that holds a generated table's mark gets the table there."""
    if FLOORS_MARK in markdown:
        start = markdown.index(FLOORS_MARK)
        end = markdown.index("-->", start) + 3
        markdown = markdown[:start] + floors_table() + markdown[end:]
    if CITED_MARK.search(markdown):
        markdown = cited_in(markdown)
    return markdown


def pages() -> dict[str, str]:
    """Each generated page's path under docs/ and its Markdown."""
    return {
        "reference/players.md": players_page(),
        "reference/games.md": games_page(),
        "reference/cli.md": cli_page(),
        "reference/prompts.md": prompts_page(),
    }


def on_config(config: Any) -> Any:
    """MkDocs' hook: snippets (`--8<-- "src/..."`) are read from the repository, wherever the build
    runs. pymdownx.snippets takes a relative `base_path` from the working directory, so
    `mkdocs build -f /repo/mkdocs.yml` from elsewhere failed on every snippet; each relative base is
    made relative to mkdocs.yml's folder, as MkDocs already reads `docs_dir` and `hooks`."""
    from pathlib import Path

    root = Path(config.config_file_path).resolve().parent
    snippets = config.mdx_configs.get("pymdownx.snippets")
    if snippets is not None:
        bases = snippets.get("base_path", ["."])
        bases = [bases] if isinstance(bases, str) else bases
        snippets["base_path"] = [str(root / b) for b in bases]
    return config


def on_files(files: Any, config: Any) -> Any:
    """MkDocs' hook: add the generated pages to the build (they exist only in the built manual)."""
    from mkdocs.structure.files import File

    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    return files


# --- the seed papers' lines ----------------------------------------------------------------------

PAPERS = {
    "003": "Towards Improving Sequential Decision-Making in LLM Agents via Experience Memory (PlyBench, REAPER)",
    "000": "Clueing up LLMs with Tool-Augmented Deductive Reasoning (arXiv:2609.18736)",
}
_LINE = r"l\.\s?(\d+)(?:\s?[-–]\s?(\d+))?"
CITED_WITH_PAPER = re.compile(rf"\b(000|003) {_LINE}((?:,\s*{_LINE})*)")
CITED_BARE = re.compile(rf"(?<![\w.]){_LINE}")
CITED_MARK = re.compile(r"<!-- cited (000|003) (\d+)(?:-(\d+))? -->")

Citation = tuple[str, int, int]  # paper, first line, last line


def citations(root: Any = None) -> dict[Citation, set[str]]:
    """Every seed line the code cites (`003 l.62`, `003 l.174, l.324`, `000 l.103`, and a bare
    `l.60` in a file, read as the paper of its package: Clue's `000`, else `003`) -> the files citing it."""
    from pathlib import Path

    base = Path(root) if root is not None else Path(__file__).parents[2]
    src = base / "src" / "plylab"
    found: dict[Citation, set[str]] = {}
    docs = [p for p in sorted((base / "docs").glob("**/*.md")) if p.name != "seeds.md"]
    for path in [*sorted(src.rglob("*")), *docs]:
        if path.suffix not in (".py", ".md", ".json", ".html", ".js") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        name = path.relative_to(base).as_posix()
        default = "000" if "clue" in name.removeprefix("src/plylab/") else "003"
        taken: list[tuple[int, int]] = []
        for m in CITED_WITH_PAPER.finditer(text):
            paper = m.group(1)
            spans = [(m.group(2), m.group(3))] + re.findall(_LINE, m.group(4) or "")
            for first, last in spans:
                found.setdefault((paper, int(first), int(last or first)), set()).add(name)
            taken.append(m.span())
        for m in CITED_BARE.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            found.setdefault((default, first, last), set()).add(name)
    return found


def seed_anchor(c: Citation) -> str:
    return f"seed-{c[0]}-l{c[1]}" + (f"-{c[2]}" if c[2] != c[1] else "")


def quote_page(seeds: Any) -> str:
    """The page quoting every cited line, from the seed papers' text (a folder of `000_*.txt`,
    `003_*.txt`): run `python docs/hooks/reference.py SEEDS_FOLDER > docs/seeds.md` after citing a
    new line. Written once, not at build time: the papers are not part of the repository."""
    from pathlib import Path

    text = {p: next(Path(seeds).glob(f"{p}_*.txt")).read_text().splitlines() for p in PAPERS}
    out = [
        "# The seed papers' lines\n\n",
        "The code and this manual cite the two seed papers by line: `003 l.60` is line 60 of the first "
        "paper's text, `000 l.103` line 103 of the second's (a bare `l.60` in Clue's code is `000`, elsewhere "
        "`003`). Each line cited is quoted here, so the project stands alone; under each quote, the files "
        "that cite it (found at build time). Rewritten by `python docs/hooks/reference.py SEEDS_FOLDER`.\n",
    ]
    cited = sorted(citations())
    for paper, title in sorted(PAPERS.items(), reverse=True):
        out.append(f"\n## {paper}: {title}\n")
        lines = text[paper]
        for c in (c for c in cited if c[0] == paper):
            shown = f"l.{c[1]}" + (f"–{c[2]}" if c[2] != c[1] else "")
            body = [lines[i - 1].strip() for i in range(c[1], c[2] + 1) if 0 < i <= len(lines)]
            quoted = "<br>\n".join(html.escape(b) for b in body if b) or "(an empty line)"
            out.append(
                f"\n### {paper} {shown} {{#{seed_anchor(c)}}}\n\n<blockquote>\n{quoted}\n</blockquote>\n\n"
            )
            out.append(f"<!-- cited {paper} {c[1]}" + (f"-{c[2]}" if c[2] != c[1] else "") + " -->\n")
    return "".join(out)


def cited_in(markdown: str) -> str:
    """Each quote's `<!-- cited ... -->` mark becomes the list of files citing it; a line the code
    cites that the page does not quote is an error, so the project keeps standing alone."""
    import logging

    found = citations()
    quoted = set()

    def files(m: re.Match[str]) -> str:
        c = (m.group(1), int(m.group(2)), int(m.group(3) or m.group(2)))
        quoted.add(c)
        where = sorted(found.get(c, ()))
        return "Cited in " + ", ".join(f"`{w}`" for w in where) + "." if where else "Cited in this manual."

    markdown = CITED_MARK.sub(files, markdown)
    for c in sorted(set(found) - quoted):
        logging.getLogger("mkdocs.plugins.plylab").warning(
            "seed line %s l.%s%s is cited in %s but not quoted in seeds.md: run "
            "`python docs/hooks/reference.py SEEDS_FOLDER > docs/seeds.md`",
            c[0],
            c[1],
            f"-{c[2]}" if c[2] != c[1] else "",
            ", ".join(sorted(found[c])),
        )
    return markdown


if __name__ == "__main__":
    import sys

    sys.stdout.write(quote_page(sys.argv[1]))
