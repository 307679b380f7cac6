"""One game loop and one illegal-action policy for every environment (plies.envs.loop)."""

import inspect

import gymnasium
import numpy as np
import pytest

import plies
from plies.envs.aec import TurnBasedEnv
from plies.envs.loop import DEFAULT_ILLEGAL_ACTION, GameLoop, check_action, forfeit_returns
from plies.envs.single_agent import SingleAgentEnv
from plies.envs.vector.gym import GymVectorEnv

ALL_GAMES = plies.game_ids()


def test_every_env_has_the_same_illegal_action_option_and_default():
    for env_class in (TurnBasedEnv, SingleAgentEnv, GymVectorEnv):
        parameter = inspect.signature(env_class).parameters["illegal_action"]
        assert parameter.default == DEFAULT_ILLEGAL_ACTION == "raise"
    assert inspect.signature(plies.make).parameters["illegal_action"].default == "raise"
    for build in (lambda: plies.make("tictactoe", illegal_action="forfeit"),
                  lambda: gymnasium.make("plies/TicTacToe-v0", illegal_action="forfeit")):
        with pytest.raises(ValueError, match="'raise', 'penalize'"):
            build()


@pytest.mark.parametrize("bad", ["2", 2.0, True, np.bool_(True), None, [2], np.array([1.0])])
def test_only_integers_are_actions(bad):
    with pytest.raises(TypeError, match=r"integer in range\(9\)"):
        check_action(bad, 9)


def test_numpy_integers_and_one_element_integer_arrays_are_actions():
    assert check_action(np.int64(3), 9) == 3
    assert check_action(np.uint8(3), 9) == 3
    assert check_action(np.array([4]), 9) == 4
    with pytest.raises(ValueError, match="out of range: actions are 0..8"):
        check_action(9, 9)
    with pytest.raises(ValueError, match="out of range"):
        check_action(-1, 9)


def test_forfeit_returns_are_zero_sum():
    assert forfeit_returns(2, 1).tolist() == [1.0, -1.0]
    returns = forfeit_returns(4, 2)
    assert returns[2] == -1.0 and returns.sum() == pytest.approx(0.0)


def test_loop_truncates_with_zero_returns_and_refuses_to_go_on():
    state = plies.new_state("connect_four")
    loop = GameLoop(state, np.random.default_rng(0), max_game_length=3)
    loop.start()
    for column in (0, 1, 0):
        assert not loop.finished
        loop.play(column)
    assert loop.truncated and not loop.terminated and loop.finished
    assert loop.returns().tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="game is over"):
        loop.play(2)


def test_loop_resolves_chance_and_reports_it_to_the_observer():
    seen = []
    state = plies.new_state("backgammon")
    loop = GameLoop(state, np.random.default_rng(5), observer=lambda s, a: seen.append(a))
    loop.start()
    assert seen[0] is None and len(seen) >= 2  # the start, then the opening roll
    assert not state.is_chance_node()
    loop.play(int(state.legal_actions()[0]))
    assert not state.is_chance_node() and seen[-1] is not None


def test_penalize_forfeits_the_player_to_move():
    state = plies.new_state("tictactoe")
    loop = GameLoop(state, np.random.default_rng(0), illegal_action="penalize")
    loop.start()
    loop.play(4)
    assert loop.play(4) is False  # occupied: player 1 forfeits
    assert loop.terminated and loop.returns().tolist() == [1.0, -1.0]
    raising = GameLoop(plies.new_state("tictactoe"), np.random.default_rng(0))
    raising.play(4)
    with pytest.raises(ValueError, match="illegal.*legal actions"):
        raising.play(4)
    assert raising.decisions == 1  # nothing was played


@pytest.mark.parametrize("bad", ["2", 2.0, True, None])
def test_aec_env_refuses_non_integer_actions(bad):
    env = plies.make("tictactoe", illegal_action="penalize")  # whatever the policy
    env.reset(seed=0)
    with pytest.raises(TypeError, match="integer"):
        env.step(bad)
    with pytest.raises(ValueError, match="out of range: actions are 0..8"):
        env.step(9)
    env.step(np.int64(4))
    assert env.game_state.history == [4]


@pytest.mark.parametrize("bad", ["2", 2.0, True])
def test_single_agent_env_refuses_non_integer_actions(bad):
    env = gymnasium.make("plies/TicTacToe-v0", illegal_action="penalize")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="integer"):
        env.step(bad)
    with pytest.raises(ValueError, match="out of range"):
        env.step(42)


def test_stepping_a_finished_aec_env_raises():
    env = plies.make("tictactoe")
    env.reset(seed=0)
    for move in (0, 3, 1, 4, 2):
        env.step(move)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(5)  # PettingZoo's own check for finished agents
    env.step(None)
    env.step(None)
    assert not env.agents
    with pytest.raises(ValueError, match="call reset"):
        env.step(None)


def test_stepping_a_finished_single_agent_env_raises():
    env = gymnasium.make("plies/TicTacToe-v0", opponent="random", seat=0).unwrapped
    env.reset(seed=1)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert not info["action_mask"].any()
    with pytest.raises(ValueError, match="game is over"):
        env.step(0)


@pytest.mark.parametrize("game", ALL_GAMES)
def test_single_agent_env_gives_the_mask_in_every_info_and_bounded_observations(game):
    env = gymnasium.make(plies.games.registry.gym_id(game), seat=-1).unwrapped
    space = env.observation_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=2)
    for _ in range(60):
        assert space.contains(obs)
        assert info["action_mask"].dtype == np.int8
        assert info["action_mask"].astype(bool).tolist() == env.action_masks().tolist()
        if not info["action_mask"].any():
            obs, info = env.reset()
            continue
        obs, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


@pytest.mark.parametrize("game", ALL_GAMES)
def test_aec_state_is_the_global_view_not_the_game_state(game):
    env = plies.make(game)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        global_view = env.state()
        assert env.state_space.contains(global_view)
        seat = env.game_state.current_player
        assert global_view[-env.game_state.num_players + seat] == 1.0
        mask = env.action_mask()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if not env.agents or any(env.terminations.values()):
            break


@pytest.mark.parametrize("game", ALL_GAMES)
def test_single_agent_env_in_progress_survives_pickle(game):
    import pickle

    env = gymnasium.make(plies.games.registry.gym_id(game), seat=-1).unwrapped
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(3):
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            obs, info = env.reset()
    clone = pickle.loads(pickle.dumps(env))
    assert clone.seat == env.seat and np.array_equal(clone.game_state.encode(), env.game_state.encode())
    for _ in range(10):  # both go on alike: same dice, same opponent moves
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        obs2, reward2, terminated2, truncated2, _ = clone.step(action)
        assert np.array_equal(obs, obs2) and reward == reward2 and terminated == terminated2
        if terminated or truncated:
            break
