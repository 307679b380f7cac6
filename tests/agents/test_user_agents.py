"""Users' agents through the front door: module specs, register, wrappers, name=."""

import numpy as np
import pytest

import plies
from plies.agents import from_policy, from_torch, make, register, unregister
from plies.agents.specs import parse_spec
from plies.evaluation import run_tournament
from tests.agents.sample_agents import FirstLegal, last_legal_policy


@pytest.fixture
def clean_registry():
    yield
    for name in ("mine", "firsts", "lasts", "byname", "broken", "local"):
        unregister(name)


def test_module_specs_import_a_class_or_factory_with_parameters():
    assert parse_spec("tests.agents.sample_agents:FirstLegal:offset=2") == (
        "tests.agents.sample_agents:FirstLegal", {"offset": "2"})
    assert parse_spec("alphabeta:depth=3") == ("alphabeta", {"depth": "3"})
    agent = make("tests.agents.sample_agents:FirstLegal:offset=2,name=mine")
    assert isinstance(agent, FirstLegal) and agent.offset == 2 and agent.name == "mine"
    state = plies.new_state("tictactoe")
    assert agent.act(state) == 2
    assert make("tests.agents.sample_agents:make_first:offset=1").act(state) == 1


@pytest.mark.parametrize(
    "spec, message",
    [
        ("tests.agents.nosuch:Agent", "cannot import module 'tests.agents.nosuch'"),
        ("tests.agents.sample_agents:Nobody", "has no attribute 'Nobody'"),
        ("tests.agents.sample_agents:broken_factory", "building it failed: RuntimeError: no weights found"),
        ("tests.agents.sample_agents:FirstLegal:speed=3", "no parameter 'speed'"),
        ("tests.agents.sample_agents:FirstLegal:offset=x", "offset='x' is not a valid int"),
    ],
)
def test_bad_user_specs_name_the_agent_and_the_problem(spec, message):
    with pytest.raises(ValueError, match=message):
        make(spec)


def test_name_lets_an_agent_meet_copies_of_itself():
    result = run_tournament("tictactoe", ["random:name=a", "random:name=b"], games=4, workers=1, progress=False)
    assert [r.seats for r in result.records][:2] == [["random:name=a", "random:name=b"],
                                                     ["random:name=b", "random:name=a"]]
    assert make("random:name=a").name == "a"


def test_from_policy_and_register_reach_worker_processes(clean_registry):
    register("lasts", from_policy(last_legal_policy))
    register("firsts", "tests.agents.sample_agents:FirstLegal")
    state = plies.new_state("connect_four")
    assert make("lasts").act(state) == 6
    one = run_tournament("connect_four", ["lasts", "firsts", "random"], games=2, workers=1, progress=False)
    two = run_tournament("connect_four", ["lasts", "firsts", "random"], games=2, workers=2, progress=False)
    assert [r.actions for r in one.records] == [r.actions for r in two.records]
    assert all(not any(r.errors) for r in two.records)


def test_a_registered_agent_that_cannot_be_pickled_is_refused_for_workers(clean_registry):
    register("local", from_policy(lambda observation, mask: int(np.flatnonzero(mask)[0])))
    assert run_tournament("tictactoe", ["local", "random"], games=2, workers=1, progress=False).records
    with pytest.raises(ValueError, match="agent 'local' cannot be sent to worker processes"):
        run_tournament("tictactoe", ["local", "random"], games=2, workers=2, progress=False)


def test_register_refuses_shipped_names_and_bad_factories(clean_registry):
    with pytest.raises(ValueError, match="shipped agent"):
        register("random", FirstLegal)
    with pytest.raises(TypeError, match="must be a class, a function"):
        register("mine", 42)
    with pytest.raises(ValueError, match="cannot import module"):
        register("mine", "tests.agents.nosuch:X")


def test_registered_agents_are_single_agent_env_opponents(clean_registry):
    from plies.envs.single_agent import SingleAgentEnv

    register("firsts", FirstLegal)
    env = SingleAgentEnv("tictactoe", opponent="firsts", seat=1)
    env.reset(seed=0)
    assert env.game_state.history == [0]


def test_from_torch_masks_illegal_actions_greedy_and_seeded_sampling():
    torch = pytest.importorskip("torch")

    class Prefers8(torch.nn.Module):
        def forward(self, x):
            return torch.arange(9, dtype=torch.float32).expand(x.shape[0], 9)

    state = plies.new_state("tictactoe")
    state.apply(8)
    greedy = from_torch(Prefers8())
    assert greedy.act(state) == 7  # 8 is taken
    policy = greedy.policy(state)
    assert policy.shape == (8,) and policy.sum() == pytest.approx(1.0) and policy.argmax() == 7
    draws = [from_torch(Prefers8(), greedy=False, seed=s).act(state) for s in range(40)]
    again = [from_torch(Prefers8(), greedy=False, seed=s).act(state) for s in range(40)]
    assert draws == again and 8 not in draws and len(set(draws)) > 1
