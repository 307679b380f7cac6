"""plies environments inside the PettingZoo ecosystem: SuperSuit wrappers and conversions."""

import numpy as np
import pytest
import supersuit as ss
from pettingzoo.test import api_test
from pettingzoo.utils.conversions import aec_to_parallel

import plies
from plies.games.registry import game_ids

WRAPPERS = {
    "flatten": lambda env: ss.flatten_v0(env),
    "dtype": lambda env: ss.dtype_v0(env, np.float16),
    "frame_stack": lambda env: ss.frame_stack_v1(env, 2),
    "agent_indicator": lambda env: ss.agent_indicator_v0(env),
    "delay_observations": lambda env: ss.delay_observations_v0(env, 1),
}


@pytest.mark.parametrize("game", game_ids())
def test_mask_in_info_mode_passes_the_api_test(game):
    api_test(plies.make(game, action_mask="info"), num_cycles=100)


@pytest.mark.parametrize("game", game_ids())
@pytest.mark.parametrize("wrapper", list(WRAPPERS))
def test_supersuit_observation_wrappers(game, wrapper):
    env = WRAPPERS[wrapper](plies.make(game, action_mask="info"))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        assert env.observation_space(agent).contains(obs.astype(env.observation_space(agent).dtype))
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                break
            continue
        mask = info["action_mask"]
        assert mask.any()
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_normalize_obs_where_observations_are_bounded():
    env = ss.normalize_obs_v0(plies.make("tictactoe", action_mask="info"))
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs.min() >= 0 and obs.max() <= 1


def test_turn_based_games_are_not_offered_as_parallel_envs():
    # every player acts on the position after the previous one's move, so the parallel
    # conversion (all act at once on one observation) would not be the same game
    env = plies.make("tictactoe")
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env)


def test_unknown_mask_mode_is_refused():
    with pytest.raises(ValueError, match="observation, info"):
        plies.make("tictactoe", action_mask="both")
