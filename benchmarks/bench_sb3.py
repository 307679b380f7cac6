"""MaskablePPO end to end on Connect Four: plies' batched env against PettingZoo's
``connect_four_v3``, same network and hyperparameters, in one run.

The task is the same for both: the learner takes a random seat in each game against a uniformly
random opponent, and is trained with sb3-contrib's MaskablePPO (masks through
``action_masks()``). plies: ``plies.envs.vector.sb3.VecEnv`` over 256 games stepped by one compiled
call. PettingZoo: ``connect_four_v3.env()`` under the wrapper of SB3's PettingZoo tutorial
(the AEC env as a Gymnasium env, masks from the observation dict), with the random opponent
played inside it, ``ActionMasker`` and ``DummyVecEnv`` of ``--pz-envs`` copies. Both get one
torch thread. Printed: learner steps per second of ``learn()`` and the share of that time
spent inside the environment (reset, step and the action-mask calls, timed by a VecEnv
wrapper).

Run: ``python -m benchmarks.bench_sb3 [--plies-steps N] [--pz-steps N] [--pz-envs N]``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnvWrapper

from benchmarks.timing import machine
from plies.envs.vector.sb3 import VecEnv

warnings.filterwarnings("ignore")

ROLLOUT = 4096  # learner steps per PPO update, for both
HYPERPARAMETERS = dict(batch_size=1024, n_epochs=4, learning_rate=1e-3, gamma=0.99, ent_coef=0.01,
                       policy_kwargs={"net_arch": [64, 64]}, device="cpu", seed=0, verbose=0)


class TimedVecEnv(VecEnvWrapper):
    """Adds up the seconds spent inside the wrapped VecEnv."""

    def __init__(self, venv) -> None:
        super().__init__(venv)
        self.seconds = 0.0

    def reset(self):
        start = time.perf_counter()
        out = self.venv.reset()
        self.seconds += time.perf_counter() - start
        return out

    def step_async(self, actions) -> None:
        start = time.perf_counter()
        self.venv.step_async(actions)
        self.seconds += time.perf_counter() - start

    def step_wait(self):
        start = time.perf_counter()
        out = self.venv.step_wait()
        self.seconds += time.perf_counter() - start
        return out

    def env_method(self, method_name, *args, indices=None, **kwargs):
        start = time.perf_counter()
        out = self.venv.env_method(method_name, *args, indices=indices, **kwargs)
        self.seconds += time.perf_counter() - start
        return out


class PettingZooLearner(gymnasium.Env):
    """connect_four_v3 for one learner, as SB3's PettingZoo tutorial wraps it (observation =
    the dict's "observation", mask = its "action_mask"), with a random opponent instead of
    self-play and a random seat per game."""

    def __init__(self, seed: int) -> None:
        from pettingzoo.classic import connect_four_v3

        self.env = connect_four_v3.env()
        self.env.reset(seed=seed)
        first = self.env.possible_agents[0]
        self.observation_space = self.env.observation_space(first)["observation"]
        self.action_space = self.env.action_space(first)
        self.rng = np.random.default_rng(seed)
        self.learner = first

    def _play_opponent(self) -> None:
        env = self.env
        while env.agent_selection != self.learner and not env.terminations[self.learner] and not env.truncations[
                self.learner]:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(self.rng.choice(np.flatnonzero(mask))))

    def reset(self, *, seed=None, options=None):
        self.env.reset(seed=seed)
        self.learner = self.env.possible_agents[int(self.rng.integers(2))]
        self._play_opponent()
        return self.env.observe(self.learner)["observation"], {}

    def step(self, action):
        self.env.step(int(action))
        self._play_opponent()
        env, learner = self.env, self.learner
        return (env.observe(learner)["observation"], float(env._cumulative_rewards[learner]),
                env.terminations[learner], env.truncations[learner], {})

    def action_masks(self) -> np.ndarray:
        return self.env.observe(self.learner)["action_mask"].astype(bool)


def plies_env(num_envs: int) -> TimedVecEnv:
    return TimedVecEnv(VecEnv("connect_four", num_envs, seat=-1, opponent="random", seed=0))


def pettingzoo_env(num_envs: int) -> TimedVecEnv:
    def make(i: int):
        return lambda: ActionMasker(PettingZooLearner(i), lambda e: e.unwrapped.action_masks())

    return TimedVecEnv(DummyVecEnv([make(i) for i in range(num_envs)]))


def measure(env: TimedVecEnv, steps: int) -> tuple[float, float]:
    """(learner steps per second of learn(), share of its time inside the env)."""
    model = MaskablePPO("MlpPolicy", env, n_steps=ROLLOUT // env.num_envs, **HYPERPARAMETERS)
    model.learn(ROLLOUT)  # warm-up: compilation, first allocations
    env.seconds = 0.0
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=True)
    elapsed = time.perf_counter() - start
    return model.num_timesteps / elapsed, env.seconds / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies-envs", type=int, default=256)
    parser.add_argument("--plies-steps", type=int, default=262_144)
    parser.add_argument("--pz-envs", type=int, default=8)
    parser.add_argument("--pz-steps", type=int, default=32_768)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print(f"MaskablePPO, MlpPolicy {HYPERPARAMETERS['policy_kwargs']['net_arch']}, {ROLLOUT} steps per "
          f"update, batch {HYPERPARAMETERS['batch_size']}, {HYPERPARAMETERS['n_epochs']} epochs")
    plies_rate, plies_share = measure(plies_env(args.plies_envs), args.plies_steps)
    print(f"plies VecEnv, {args.plies_envs} games: {plies_rate:,.0f} steps/s, {plies_share:.0%} of the time in the env")
    pz_rate, pz_share = measure(pettingzoo_env(args.pz_envs), args.pz_steps)
    print(f"PettingZoo connect_four_v3, DummyVecEnv of {args.pz_envs}: {pz_rate:,.0f} steps/s, "
          f"{pz_share:.0%} of the time in the env")
    print(f"ratio: {plies_rate / pz_rate:.1f}x")


if __name__ == "__main__":
    main()
