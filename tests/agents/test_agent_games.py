"""Agents declare the games they play and the values their parameters accept."""

import math

import pytest

import plies
from plies.agents import BaseAgent, Range, make
from plies.agents.specs import agent_class, available_agents
from plies.games.registry import game_ids


@pytest.mark.parametrize(
    "spec, game",
    [
        ("dw_random", "connect_four"),  # used to crash the interpreter
        ("strength_diff", "tictactoe"),  # used to return 0 silently
        ("single_turn", "tictactoe"),
        ("pubeval", "connect_four"),
        ("gnubg", "connect_four"),
        ("dw_expectiminimax", "tictactoe"),
        ("solver", "tictactoe"),
        ("perfect", "connect_four"),
        ("alphabeta", "backgammon"),
        ("lookahead", "dice_wars"),
    ],
)
def test_an_agent_refuses_a_game_it_cannot_play_naming_its_games(spec, game):
    cls = agent_class(spec)
    supported = ", ".join(cls.supported_games())
    assert game not in cls.supported_games()
    with pytest.raises(ValueError, match=f"cannot play {game}.*games it supports: {supported}"):
        make(spec, game=game)
    agent = make(spec)
    with pytest.raises(ValueError, match=f"cannot play {game}"):
        agent.act(plies.new_state(game, seed=0))


def test_every_agent_declares_a_description_and_plays_some_game():
    for name in available_agents():
        cls = agent_class(name)
        assert cls.description, name
        assert cls.supported_games(), name
        assert set(cls.supported_games()) <= set(game_ids())


def test_agents_play_the_games_they_declare():
    for game, spec in [("tictactoe", "alphabeta:depth=2"), ("dice_wars", "dw_random"),
                       ("connect_four", "lookahead:depth=1"), ("tictactoe", "mcts:simulations=20")]:
        state = plies.new_state(game, seed=0)
        assert make(spec, seed=0, game=game).act(state) in state.legal_actions()


@pytest.mark.parametrize(
    "spec, parameter",
    [
        ("alphabeta:depth=100000000000000000000", "depth"),
        ("alphabeta:depth=-1", "depth"),
        ("alphabeta:depth=0", "depth"),
        ("alphabeta:time_limit=-1", "time_limit"),
        ("alphabeta:time_limit=nan", "time_limit"),
        ("alphabeta:time_limit=inf", "time_limit"),
        ("mcts:exploration=nan", "exploration"),
        ("mcts:simulations=-5", "simulations"),
        ("expectiminimax:chance_limit=-1", "chance_limit"),
        ("dw_expectiminimax:depth=-1", "depth"),  # used to corrupt the heap
        ("dw_expectiminimax:depth=0", "depth"),
        ("solver:budget=0", "budget"),
        ("gnubg:depth=3", "depth"),
        ("single_turn:threshold=2", "threshold"),
    ],
)
def test_out_of_range_parameters_are_refused_naming_parameter_value_and_range(spec, parameter):
    value = spec.rpartition("=")[2]
    with pytest.raises(ValueError, match=rf"{parameter}={value}.* not allowed; {parameter} must be"):
        make(spec)


def test_ranges_are_checked_on_direct_construction_too():
    from plies.agents.mcts import MCTSAgent

    with pytest.raises(ValueError, match="exploration=nan"):
        MCTSAgent(exploration=math.nan)
    with pytest.raises(ValueError, match="simulations=True"):
        MCTSAgent(simulations=True)


def test_a_range_declared_on_a_new_agent_is_enforced():
    class Stepper(BaseAgent):
        spec_name = "stepper"
        limits = {"steps": Range(1, 10, integer=True), "rate": Range(0, 1, open_low=True)}

        def __init__(self, *, steps: int = 2, rate: float = 0.5, seed=None, name=None):
            super().__init__(seed, name)

    Stepper(steps=10, rate=1.0)
    with pytest.raises(ValueError, match=r"steps=11 is not allowed; steps must be an integer in 1..10"):
        Stepper(steps=11)
    with pytest.raises(ValueError, match=r"rate=0 is not allowed; rate must be a finite number > 0"):
        Stepper(rate=0)
    with pytest.raises(ValueError, match="steps=2.5"):
        Stepper(steps=2.5)


def test_duplicate_keys_and_missing_model_files_are_reported():
    with pytest.raises(ValueError, match="'depth' is given twice"):
        make("alphabeta:depth=2,depth=3")
    with pytest.raises(FileNotFoundError, match=r"no model file /x\.zip$"):
        make("sb3:path=/x.zip")


def test_policy_and_value_where_the_agent_has_them():
    state = plies.new_state("tictactoe")
    for spec in ("random", "alphabeta:depth=9", "mcts:simulations=200"):
        policy = make(spec, seed=0).policy(state)
        assert policy.shape == (len(state.legal_actions()),)
        assert policy.sum() == pytest.approx(1.0) and (policy >= 0).all()
    assert make("alphabeta:depth=9").value(state) == 0.0  # Tic-Tac-Toe is a draw
    for move in (0, 3, 1, 4):
        state.apply(move)
    assert make("alphabeta:depth=3").value(state) == pytest.approx(1.0, abs=0.05)  # X wins: 2
    assert make("expectiminimax:depth=2", seed=0).value(state) > 0.5
