"""The lanes are honest: under CI a missing Chromium, Ray or Playwright fails instead of skipping,
and a test that loads the local model is in the `model` lane even if its author forgot the mark."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = (Path(__file__).resolve().parents[1] / "conftest.py").read_text()
SKIPPING = """
import pytest

def test_needs_ray():
    pytest.skip("the ray extra is not installed")

def test_needs_chromium():
    pytest.skip("no system Chromium at /usr/bin/chromium")

def test_not_applicable():
    pytest.skip("only on connect_four")

def test_runs():
    assert 1 + 1 == 2
"""


@pytest.fixture
def inner(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nmarkers =\n    model: m\n    ray: r\n    browser: b\n    slow: s\n")
    return pytester


def test_missing_setup_is_a_skip_on_a_workstation(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    inner.makepyfile(test_inner=SKIPPING)
    inner.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1, skipped=3)


def test_missing_setup_fails_under_ci(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    inner.makepyfile(test_inner=SKIPPING)
    result = inner.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1, failed=2)
    result.stdout.fnmatch_lines(["*missing set-up is a failure*"])


@pytest.mark.slow
def test_a_module_level_importorskip_fails_under_ci(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    inner.makepyfile(
        test_inner='import pytest\nray = pytest.importorskip("ray_that_is_not_there", reason="ray is not installed")\n'
    )
    result = inner.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*missing set-up is a failure*"])


def test_the_local_model_fixture_puts_a_test_in_the_model_lane(inner: pytest.Pytester) -> None:
    inner.makepyfile(
        test_inner="""
import pytest

@pytest.fixture
def local_model():
    return object()

def test_uses_the_model(local_model):
    pass

def test_does_not():
    pass
"""
    )
    result = inner.runpytest_inprocess("-p", "no:cacheprovider", "-m", "not model")
    result.assert_outcomes(passed=1, deselected=1)
