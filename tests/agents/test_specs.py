import pytest

from plies.agents import make
from plies.agents.specs import available_agents, parse_spec


def test_parse_and_convert_parameters():
    assert parse_spec("alphabeta:depth=6, eval=lines") == ("alphabeta", {"depth": "6", "eval": "lines"})
    agent = make("alphabeta:depth=6,symmetry=false,time_limit=0.5", seed=1)
    assert agent.depth == 6 and agent.time_limit == 0.5 and agent.searcher.symmetry is False
    assert agent.name == "alphabeta:depth=6,symmetry=false,time_limit=0.5"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuch", "unknown agent 'nosuch'; agents: .*alphabeta.*random"),
        ("alphabeta:depht=3", "no parameter 'depht'; parameters: depth=4"),
        ("alphabeta:depth=three", "depth='three' is not a valid int"),
        ("alphabeta:depth", "parameters are key=value"),
        ("lookahead:tiebreak=MIDDLE", "LEFT, RIGHT, RANDOM"),
        ("random:depth=3", "parameters: none"),
    ],
)
def test_bad_specs_say_what_is_allowed(spec, message):
    with pytest.raises(ValueError, match=message):
        make(spec)


def test_listed_agents_can_be_built():
    for name in available_agents():
        if name not in ("human", "sb3"):
            assert make(name, seed=0).name == name


def test_agents_that_need_a_file_say_so(tmp_path):
    with pytest.raises(ValueError, match="sb3:path=FILE.zip"):
        make("sb3")
    bogus = tmp_path / "model.zip"
    bogus.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a MaskablePPO model"):
        make(f"sb3:path={bogus}")
