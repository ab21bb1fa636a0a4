"""`plylab models list|prepare`: what set-up runs and what a user reads."""

from __future__ import annotations

import json


def test_list_shows_the_local_model_and_providers_without_key_values(cli, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-list-secret")
    r = cli("models", "list")
    assert r.code == 0
    assert r.out.startswith("local") and "[ready]" in r.out.splitlines()[0]
    assert "openai-api/<service>/<model>" in r.out and "OPENAI_API_KEY set" in r.out
    assert "sk-list-secret" not in r.out + r.err


def test_list_as_json(cli):
    r = cli("models", "list", "--format", "json")
    rows = json.loads(r.out)["models"]
    assert rows[0]["name"] == "local" and rows[0]["ready"] is True
    assert {"openai/<model>", "anthropic/<model>", "google/<model>", "vllm/<model>", "ollama/<model>"} <= {
        row["name"] for row in rows
    }


def test_bad_format_is_one_line(cli):
    r = cli("models", "list", "--format", "xml")
    assert r.code == 2 and r.err.count("\n") == 1 and "'xml' is not one of 'table', 'json'" in r.err


def test_prepare_says_where_the_model_is(cli, local_model):
    r = cli("models", "prepare")
    assert r.code == 0
    assert "local model ready:" in r.out and "gemma-3-270m-q4_k_m.gguf" in r.out
