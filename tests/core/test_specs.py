import pytest
from pydantic import Field

from plylab.errors import UserError
from plylab.specs import Params, bind, parse_spec


def test_name_only():
    spec = parse_spec("random")
    assert spec.name == "random" and spec.options == {}


def test_first_colon_ends_name_and_values_keep_colons_and_slashes():
    spec = parse_spec("llm:model=openai-api/together/meta:llama-3,on_failure=retry:3,base_url=http://x:8/v1")
    assert spec.name == "llm"
    assert spec.options == {
        "model": "openai-api/together/meta:llama-3",
        "on_failure": "retry:3",
        "base_url": "http://x:8/v1",
    }


@pytest.mark.parametrize("text", ["", ":x=1", "mcts:sims", "mcts:=3", "mcts:sims=1,sims=2", "bad name:x=1"])
def test_malformed_specs_are_user_errors(text):
    with pytest.raises(UserError):
        parse_spec(text)


class Opts(Params):
    sims: int = Field(10, ge=1)


def test_bind_coerces_and_reports_accepted_keys():
    assert bind(parse_spec("mcts:sims=42"), Opts).sims == 42
    with pytest.raises(UserError, match="sims.*got 'abc'.*accepted options: sims"):
        bind(parse_spec("mcts:sims=abc"), Opts)
    with pytest.raises(UserError, match="unknown option 'depth'"):
        bind(parse_spec("mcts:depth=3"), Opts)
    with pytest.raises(UserError, match="greater than or equal to 1"):
        bind(parse_spec("mcts:sims=0"), Opts)
