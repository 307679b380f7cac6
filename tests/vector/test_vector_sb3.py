"""Stable-Baselines3 on the batched env (plies.envs.vector.sb3) and the Gymnasium view it wraps."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import plies  # noqa: F401  (registers the gymnasium ids)
import plies.envs.vector as pv

pytest.importorskip("stable_baselines3")
from plies.envs.vector.sb3 import VecEnv  # noqa: E402

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def has_line(plane: np.ndarray) -> bool:
    cells = plane.reshape(9)
    return any(cells[list(line)].all() for line in LINES)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def test_sb3_vecenv_contract_and_terminal_observations():
    from stable_baselines3.common.vec_env import VecEnv as SB3VecEnv

    env = VecEnv("tictactoe", 32, seat=-1, seed=0)
    assert isinstance(env, SB3VecEnv)
    obs = env.reset()
    assert obs.shape == (32, 3, 3, 2) and obs.dtype == np.float32
    assert env.observation_space.contains(obs[0]) and env.action_space.n == 9
    assert {info["seat"] for info in env.reset_infos} == {0, 1}
    rng = np.random.default_rng(0)
    wins = losses = 0
    for _ in range(40):
        masks = np.stack(env.env_method("action_masks"))  # what MaskablePPO calls
        np.testing.assert_array_equal(masks, env.action_masks())
        np.testing.assert_array_equal(masks, env.env.batch.action_mask)
        assert (env.env.batch.current_player == env.env.seats).all()  # the learner is to move
        obs, rewards, dones, infos = env.step(random_legal(masks, rng))
        assert rewards.shape == (32,) and dones.shape == (32,) and dones.dtype == bool
        assert len(infos) == 32
        assert not rewards[~dones].any()
        for game in range(32):
            assert ("terminal_observation" in infos[game]) == dones[game]
            if not dones[game]:
                continue
            final = infos[game]["terminal_observation"]
            assert infos[game]["TimeLimit.truncated"] is False
            assert not np.array_equal(final, obs[game])  # the next game's start is in obs
            # the learner's view of the last position: plane 0 its marks, plane 1 the other's
            if rewards[game] == 1.0:
                wins += 1
                assert has_line(final[..., 0]) and not has_line(final[..., 1])
            elif rewards[game] == -1.0:
                losses += 1
                assert has_line(final[..., 1]) and not has_line(final[..., 0])
            else:
                assert final.sum() == 9  # a full board
    assert wins > 10 and losses > 10


def test_truncated_games_are_flagged_for_bootstrapping():
    env = VecEnv("connect_four", 8, seat=0, seed=1, max_game_length=4)
    env.reset()
    rng = np.random.default_rng(1)
    _, _, dones, _ = env.step(random_legal(env.action_masks(), rng))
    assert not dones.any()
    obs, rewards, dones, infos = env.step(random_legal(env.action_masks(), rng))
    assert dones.all() and not rewards.any()
    for game in range(8):
        assert infos[game]["TimeLimit.truncated"] is True
        assert infos[game]["terminal_observation"].sum() == 4  # four discs on the board
    assert obs.sum() == 0  # new games, the learner (seat 0) to move on an empty board


def test_seeded_runs_repeat():
    def run(seed):
        env = VecEnv("backgammon", 4, seat=-1, seed=seed)
        env.seed(seed)
        out = [env.reset()]
        for _ in range(10):
            out.append(env.step(env.action_masks().argmax(axis=1))[0])
        return np.stack(out)

    np.testing.assert_array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_an_agent_spec_opponent_plays_every_other_seat():
    env = VecEnv("tictactoe", 6, seat=-1, opponent="perfect", seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    results = []
    for _ in range(30):
        _, rewards, dones, _ = env.step(random_legal(env.action_masks(), rng))
        results.extend(rewards[dones].tolist())
    assert len(results) > 10 and max(results) <= 0.0  # nobody beats the perfect player


def test_dice_wars_takes_one_opponent_per_other_seat():
    env = pv.GymVectorEnv("dice_wars", 4, seat=-1, opponents=["random", "strength_diff", "random"], seed=0)
    env.reset(seed=0)
    for _ in range(20):
        env.step(env.action_masks().argmax(axis=1))
        assert (env.batch.current_player == env.seats).all()
    with pytest.raises(ValueError, match="needs 3 opponents, got 1"):
        pv.GymVectorEnv("dice_wars", 4, opponents=["random"])


def test_vector_actions_follow_the_one_policy():
    env = pv.GymVectorEnv("tictactoe", 3, seat=0, seed=0)
    env.reset()
    with pytest.raises(TypeError, match="integers"):
        env.step(np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="out of range: actions are 0..8"):
        env.step([0, 9, 1])
    env.step([4, 4, 4])
    taken = env.batch.observations[:, 1, 1, 0] + env.batch.observations[:, 1, 1, 1]
    assert taken.all()
    with pytest.raises(ValueError, match="illegal in game 0"):
        env.step([4, 0, 0])
    penalized = pv.GymVectorEnv("tictactoe", 3, seat=0, seed=0, illegal_action="penalize",
                                final_observation=True)
    penalized.reset()
    penalized.step([4, 4, 4])
    before = penalized.batch.observations.copy()
    actions = penalized.action_masks().argmax(axis=1)
    actions[0] = 4
    obs, rewards, terminations, truncations, infos = penalized.step(actions)
    assert rewards[0] == -1.0 and terminations[0] and not truncations.any()
    assert not terminations[1:].any()  # two or three marks each: nothing can have ended
    assert obs[0].sum() == 0 and penalized.batch.episode_lengths[0] == 0  # restarted
    np.testing.assert_array_equal(infos["final_obs"][0], before[0])  # where it forfeited
    assert infos["_final_obs"].tolist() == [True, False, False]
    assert rewards[1:].tolist() == [0.0, 0.0]


def test_make_vec_accepts_a_random_seat():
    env = gymnasium.make_vec("plies/ConnectFour-v0", num_envs=16, seat=-1)
    assert isinstance(env, pv.GymVectorEnv)
    _, infos = env.reset(seed=0)
    assert set(infos["seat"].tolist()) == {0, 1}
    assert (env.batch.current_player == env.seats).all()


def test_maskable_ppo_trains_and_only_plays_legal_moves():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    torch.set_num_threads(1)

    class Checked(VecEnv):
        played = 0

        def step_async(self, actions):
            assert self.action_masks()[np.arange(self.num_envs), actions].all()
            Checked.played += len(actions)
            super().step_async(actions)

    env = Checked("connect_four", 64, seat=-1, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=256, n_epochs=2, seed=0,
                                    device="cpu", policy_kwargs={"net_arch": [32]})
    model.learn(64 * 8 * 3)
    assert Checked.played >= 64 * 8 * 3
    action, _ = model.predict(env.reset(), action_masks=env.action_masks())
    assert env.action_masks()[np.arange(64), action].all()


