"""Expectiminimax over backgammon (turn mode) and over a game without chance (action mode)."""

from __future__ import annotations

import numpy as np
import pytest

from plies.agents.evaluator_specs import evaluator_for
from plies.agents.evaluators import FunctionEvaluator
from plies.agents.expectiminimax import ExpectiminimaxAgent, analyse
from plies.games.backgammon import BackgammonState
from plies.games.state import sample_chance


def midgame(seed: int) -> BackgammonState:
    rng = np.random.default_rng(seed)
    state = BackgammonState()
    for _ in range(40):
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
        else:
            actions = state.legal_actions()
            state.apply(int(actions[rng.integers(len(actions))]))
    while state.is_chance_node():
        state.apply(sample_chance(state, rng))
    return state


def test_one_ply_is_the_best_afterstate_by_value():
    state = midgame(1)
    evaluator = evaluator_for(state, "singleton")
    values, _, paths, turns = analyse(state, depth=1, evaluator=evaluator)
    assert turns
    rows, _ = state.afterstates()
    direct = evaluator.evaluate(rows, state.current_player)
    assert sorted(values[:, state.current_player]) == pytest.approx(sorted(direct))


def test_two_ply_is_the_expected_best_reply_computed_by_hand():
    state = midgame(2)
    seat = state.current_player
    evaluator = evaluator_for(state, "pips")
    values, _, paths, _ = analyse(state, depth=2, evaluator=evaluator, prune=False)
    for k in range(min(3, len(paths))):
        after = state.clone()
        for action in paths[k]:
            if action >= 0:
                after.apply(int(action))
        outcomes, probs = after.chance_outcomes()
        expected = 0.0
        for outcome, prob in zip(outcomes, probs):
            rolled = after.clone()
            rolled.apply(int(outcome))
            if rolled.is_chance_node():  # the opponent cannot move
                expected += prob * evaluator.evaluate(rolled.array[None], seat)[0]
                continue
            replies, _ = rolled.afterstates()
            expected += prob * evaluator.evaluate(replies, seat).min()
        assert values[k, seat] == pytest.approx(expected)


def test_pruning_keeps_the_best_moves_and_value():
    state = midgame(3)
    seat = state.current_player
    evaluator = evaluator_for(state, "singleton")
    full, _, full_paths, _ = analyse(state, depth=2, evaluator=evaluator, prune=False)
    cut, _, cut_paths, _ = analyse(state, depth=2, evaluator=evaluator, prune=True)
    assert cut[:, seat].max() == pytest.approx(full[:, seat].max())
    best = {tuple(full_paths[i]) for i in np.flatnonzero(full[:, seat] >= full[:, seat].max() - 1e-12)}
    best_cut = {tuple(cut_paths[i]) for i in np.flatnonzero(cut[:, seat] >= cut[:, seat].max() - 1e-12)}
    assert best == best_cut


def test_batched_evaluator_gives_the_compiled_values():
    state = midgame(4)
    compiled = evaluator_for(state, "points")
    calls = []

    def batch(states, seat):
        calls.append(len(states))
        return compiled.evaluate(states, seat)

    fast, *_ = analyse(state, depth=2, evaluator=compiled, prune=False)
    batched, *_ = analyse(state, depth=2, evaluator=FunctionEvaluator(batch), prune=False)
    assert np.allclose(fast, batched)
    assert len(calls) == 1 and calls[0] > 100  # all leaves in one call


def test_filter_searches_only_the_k_best_children():
    state = midgame(5)
    evaluator = evaluator_for(state, "singleton")
    values, *_ = analyse(state, depth=2, evaluator=evaluator, filter=3)
    assert len(values) == min(3, len(state.afterstates()[0]))


def test_agent_plays_whole_turns_and_legal_moves():
    rng = np.random.default_rng(6)
    agents = [ExpectiminimaxAgent(depth=2, eval="singleton", seed=0),
              ExpectiminimaxAgent(depth=1, eval="pips", seed=1)]
    state = BackgammonState()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
        else:
            state.apply(agents[state.current_player].act(state))  # apply() checks legality
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_action_mode_on_a_game_without_chance():
    tictactoe = pytest.importorskip("plies.games.tictactoe")
    state = tictactoe.TicTacToeState.from_string("XX./OO./...")
    agent = ExpectiminimaxAgent(depth=2, seed=0)
    assert agent.act(state) == 2  # X completes the top row
    values, actions, _, turns = analyse(state, depth=3, evaluator=evaluator_for(state), limit=1)
    assert not turns and len(actions) == 5
