"""Othello through every front end: the AEC and Gymnasium envs, the batch, agents, the CLI."""

import gymnasium
import numpy as np
import pytest

import plies
from plies.agents import make as make_agent
from plies.games.othello import OthelloState, rules
from plies.testing import replay_batch


def test_aec_env_plays_a_game_with_passes_and_masks():
    env = plies.make("othello")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, final = 0, {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        assert obs["observation"].shape == (8, 8, 3) and obs["action_mask"].shape == (65,)
        legal = np.flatnonzero(obs["action_mask"])
        assert (legal == rules.PASS).any() == (legal.tolist() == [rules.PASS])  # pass only when forced
        env.step(int(rng.choice(legal)))
        steps += 1
    assert 9 <= steps <= rules.MAX_GAME_LENGTH
    assert sorted(final.values()) in ([-1, 1], [0, 0])


def test_gymnasium_env():
    env = gymnasium.make("plies/Othello-v0")
    obs, info = env.reset(seed=1)
    assert obs.shape == (8, 8, 3) and env.action_space.n == 65


def test_batch_matches_gamestate_replay():
    stats = replay_batch("othello", 8, 200, seed=3, parallel=False)
    assert stats["batch_ended"] > 0


def test_batch_of_64_steps_and_reports_results():
    batch = plies.envs.vector.make("othello", 64, seed=0)
    ended = 0
    for _ in range(100):
        batch.step(batch.sample_actions())
        ended += int(batch.terminations.sum())
        assert (batch.rewards[batch.terminations].sum(axis=1) == 0).all()
    assert ended >= 64 and batch.observations.shape == (64, 8, 8, 3)


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "mcts:simulations=200"])
def test_search_agents_beat_random(spec):
    searcher, rnd = make_agent(spec, seed=1), make_agent("random", seed=2)
    wins = 0
    for first in (0, 1, 0, 1):
        state = OthelloState()
        players = [searcher, rnd] if first == 0 else [rnd, searcher]
        while not state.is_terminal():
            state.apply(players[state.current_player].act(state))
        wins += state.winner == first
    assert wins >= 3


def test_alphabeta_takes_a_corner():
    # black to move can take a1 (flipping b2); the mobility heuristic weighs corners most
    state = OthelloState.from_string("......../.o....../..x...../...ox.../...xo.../......../......../........ x")
    assert 0 in state.legal_actions()
    assert make_agent("alphabeta:depth=1", seed=0).act(state) == 0


def test_cli_tournament(capsys):
    from plies.cli import main

    main(["tournament", "--game", "othello", "--agents", "random", "alphabeta:depth=1", "--games", "4", "--workers", "1"])
    out = capsys.readouterr().out
    assert "alphabeta:depth=1" in out and "random" in out


def test_parallel_and_serial_batches_are_identical():
    runs = []
    for parallel in (False, True):
        batch = plies.envs.vector.make("othello", 40, seed=5, parallel=parallel)
        for _ in range(70):
            batch.step(batch.sample_actions())
        runs.append(batch.states.copy())
    np.testing.assert_array_equal(runs[0], runs[1])
