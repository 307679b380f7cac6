"""Every game's environments pass PettingZoo's and Gymnasium's checks and behave alike."""

import copy
import pickle

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import plies
from plies.games.registry import entries, game_ids

GYM_IDS = {entry.id: entry.gym_id for entry in entries()}

ALL_GAMES = game_ids()


def play_random(env, rng, plies_to_play):
    for _ in range(plies_to_play):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def play_until_something_is_illegal(env):
    # the lowest legal action each time: fills Connect Four's first column
    while (mask := env.observe(env.agent_selection)["action_mask"]).all():
        env.step(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("game", ALL_GAMES)
def test_pettingzoo_api_seed_and_render(game):
    api_test(plies.make(game), num_cycles=300)
    seed_test(lambda: plies.make(game), num_cycles=100)
    render_test(lambda render_mode=None: plies.make(game, render_mode=render_mode))


@pytest.mark.parametrize("game", ALL_GAMES)
def test_registered_with_pettingzoo_and_gymnasium(game):
    env = pettingzoo.make("aec", GYM_IDS[game])
    assert env.metadata["name"] == f"{game}_v0"
    single = gymnasium.make(GYM_IDS[game])
    assert single.unwrapped.game == game


@pytest.mark.parametrize("game", ALL_GAMES)
def test_single_agent_env_passes_gymnasium_checker(game):
    # the checker plays actions sampled from the whole space: illegal ones must not raise
    env = gymnasium.make(GYM_IDS[game], illegal_action="penalize").unwrapped
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    mask = env.action_masks()
    assert mask.dtype == bool and mask.any()
    assert mask.tolist() == env.game_state.action_mask().astype(bool).tolist()


@pytest.mark.parametrize("game", ALL_GAMES)
@pytest.mark.parametrize("duplicate", ["deepcopy", "pickle"])
def test_game_in_progress_survives_deepcopy_and_pickle(game, duplicate):
    env = plies.make(game)
    env.reset(seed=7)
    play_random(env, np.random.default_rng(0), 6)
    if duplicate == "deepcopy":
        clone = copy.deepcopy(env)
    else:
        clone = pickle.loads(pickle.dumps(env))
    assert clone.agent_selection == env.agent_selection
    assert np.array_equal(clone.game_state.encode(), env.game_state.encode())
    # both continue identically: same generator state (dice), same moves
    play_random(clone, np.random.default_rng(1), 20)
    play_random(env, np.random.default_rng(1), 20)
    assert np.array_equal(clone.game_state.encode(), env.game_state.encode())
    assert clone.rewards == env.rewards


@pytest.mark.parametrize("game", ALL_GAMES)
def test_illegal_action_raises_naming_the_legal_ones(game):
    env = plies.make(game)
    env.reset(seed=0)
    play_until_something_is_illegal(env)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="illegal.*legal actions"):
        env.step(illegal)


@pytest.mark.parametrize("game", ALL_GAMES)
def test_penalize_mode_ends_the_game_with_minus_one(game):
    env = plies.make(game, illegal_action="penalize")
    env.reset(seed=0)
    play_until_something_is_illegal(env)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert env.rewards[offender] == -1.0
    assert all(env.terminations.values())
    others = [a for a in env.agents if a != offender]
    assert all(env.rewards[a] == pytest.approx(1 / len(others)) for a in others)  # a forfeit: zero-sum


def test_unknown_game_and_agent_name_what_exists():
    with pytest.raises(ValueError, match="games: tictactoe, connect_four"):
        plies.make("chess")
    env = plies.make("tictactoe")
    with pytest.raises(ValueError, match="agents: player_0, player_1"):
        env.seat("player_9")


def test_rewards_come_at_the_end_from_the_returns():
    env = plies.make("tictactoe")
    env.reset(seed=0)
    for move in (0, 3, 1, 4):
        env.step(move)
        assert all(r == 0 for r in env.rewards.values())
    env.step(2)  # X completes the top row
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())


def test_single_agent_env_plays_the_opponent_and_pays_the_learner():
    env = gymnasium.make("plies/TicTacToe-v0", opponent="perfect", seat=1)
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1
    assert obs.sum() == 1  # the perfect opponent (X) has already moved
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        obs, reward, terminated, truncated, _ = env.step(action)
        total += reward
        done = terminated or truncated
    assert total in (-1.0, 0.0)  # nobody beats the perfect player


def test_single_agent_env_penalizes_illegal_actions_when_asked():
    env = gymnasium.make("plies/TicTacToe-v0", seat=0, illegal_action="penalize")
    env.reset(seed=0)
    env.step(4)
    occupied = 4
    _, reward, terminated, _, info = env.step(occupied)
    assert reward == -1.0 and terminated and info["illegal_action"] == occupied
    assert not info["action_mask"].any()
    with pytest.raises(ValueError, match="game is over"):
        env.step(0)


def test_dice_wars_single_agent_env_takes_one_opponent_per_other_seat():
    env = gymnasium.make("plies/DiceWars-v0", opponents=["strength_diff", "single_turn", "dw_random"], seat=2)
    obs, info = env.reset(seed=5)
    assert info["seat"] == 2 and env.unwrapped.game_state.current_player == 2
    assert [a.name for a in env.unwrapped.opponents] == ["strength_diff", "single_turn", "dw_random"]
    end_turn = env.unwrapped.game_state.end_turn_action
    for _ in range(5):
        obs, reward, terminated, truncated, _ = env.step(end_turn)
        if terminated or truncated:
            break
        assert env.unwrapped.game_state.current_player == 2  # the three bots played their turns
    with pytest.raises(ValueError, match="needs 3 opponent specs, got 1"):
        gymnasium.make("plies/DiceWars-v0", opponents=["random"])
