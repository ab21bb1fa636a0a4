"""Silent swallows are loud: a broken Clue player module stops the import, a moved private inspect
API warns (once), and PLYLAB_DEBUG=1 shows the chain behind a one-line user error."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from plylab.cli import main


@pytest.mark.slow
def test_a_broken_clue_player_module_fails_the_import() -> None:
    """`plylab.clue` registers clue-llm by importing it; a module that cannot be imported must say so
    (the old code swallowed any missing `plylab.*` module and the player silently vanished)."""
    code = (
        "import sys; sys.modules['plylab.clue.llm'] = None\n"  # as if the module were broken
        "import plylab.clue\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "ModuleNotFoundError: import of plylab.clue.llm" in r.stderr


def test_every_clue_player_is_registered() -> None:
    from plylab.clue import CluePlayer
    from plylab.players import family_names

    assert family_names(CluePlayer) == ["clue-llm", "clue-matrix", "clue-oracle", "clue-random"]  # name order


def test_inspects_transcript_hook_is_found_today() -> None:
    """With the pinned inspect the private hook exists, so model calls do not leak transcripts."""
    from plylab.models import model

    model._fresh_transcript.cache_clear()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert model._fresh_transcript() is not None
    finally:
        model._fresh_transcript.cache_clear()


def test_a_moved_transcript_hook_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from plylab.models import model

    monkeypatch.setitem(sys.modules, "inspect_ai.log._transcript", None)  # a later inspect moved it
    model._fresh_transcript.cache_clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert model._fresh_transcript() is None
            assert model._fresh_transcript() is None
        moved = [
            w for w in caught if issubclass(w.category, RuntimeWarning) and "transcript" in str(w.message)
        ]
        assert len(moved) == 1
    finally:
        model._fresh_transcript.cache_clear()


def test_a_user_error_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PLYLAB_DEBUG", raising=False)
    assert main(["solve", "--game", "no_such_game", "--moves", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("plylab: error: unknown game 'no_such_game'")


def test_plylab_debug_keeps_the_chain(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The registry raises `UserError(...) from None` over a KeyError; under PLYLAB_DEBUG=1 that
    KeyError is shown, and the last line is still the one-line error."""
    monkeypatch.setenv("PLYLAB_DEBUG", "1")
    assert main(["solve", "--game", "no_such_game", "--moves", "1"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'no_such_game'" in err
    assert err.strip().splitlines()[-1].startswith("plylab: error: unknown game 'no_such_game'")
