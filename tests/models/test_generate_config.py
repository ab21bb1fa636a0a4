"""Generation settings: caller over model defaults; only sampling fields key the cache."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from plylab.models import GenerateConfig


def test_caller_settings_override_defaults_and_unset_ones_do_not():
    defaults = GenerateConfig(temperature=0.0, max_tokens=256, seed=0, timeout=600, max_retries=1)
    merged = defaults.merged(GenerateConfig(max_tokens=24, seed=9))
    assert merged == GenerateConfig(temperature=0.0, max_tokens=24, seed=9, timeout=600, max_retries=1)
    assert defaults.merged(None) is defaults


def test_sampling_fields_are_what_changes_a_reply():
    config = GenerateConfig(temperature=0.3, max_tokens=10, effort="low", seed=2, timeout=5, max_retries=3)
    assert config.sampling() == {"temperature": 0.3, "max_tokens": 10, "effort": "low", "seed": 2}


@pytest.mark.parametrize(
    "bad", [{"temperature": -0.1}, {"max_tokens": 0}, {"effort": "extreme"}, {"timeout": 0}, {"top_p": 0.9}]
)
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValidationError):
        GenerateConfig(**bad)
