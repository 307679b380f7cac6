"""Train a plies game in RLlib: the AEC env through RLlib's PettingZoo wrapper, one PPO policy
per seat with RLlib's action-masking RL module, a few training iterations.

RLlib's masking module reads observations as ``{"observations", "action_mask"}``; plies'
dict observations are ``{"observation", "action_mask"}``, so a small PettingZoo wrapper renames
the key and flattens the board. pip install "plies[rllib]"; python examples/rllib_env.py --iterations 3
"""

from __future__ import annotations

import argparse

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

import plies


class RLlibMaskedObservations(BaseWrapper):
    """plies' ``{"observation", "action_mask"}`` as ``{"observations", "action_mask"}``, the
    observation flattened (RLlib's default encoder takes vectors; boards would need a CNN
    configuration) and the mask as float32 (what ``ActionMaskingTorchRLModule`` takes)."""

    def observation_space(self, agent: str) -> spaces.Dict:
        space = self.env.observation_space(agent)
        n = space["action_mask"].shape[0]
        flat = spaces.flatten_space(space["observation"])
        return spaces.Dict({"observations": flat, "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {"observations": obs["observation"].ravel(), "action_mask": obs["action_mask"].astype(np.float32)}


def env_creator(config: dict):
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(RLlibMaskedObservations(plies.make(config.get("game", "connect_four"))))


def build(game: str = "tictactoe", seed: int = 0):
    """A PPO algorithm with one masked policy per seat of ``game``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(f"plies_{game}", env_creator)
    seats = plies.make(game).possible_agents
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [64]})
    config = (
        PPOConfig()
        .environment(f"plies_{game}", env_config={"game": game})
        .multi_agent(policies=set(seats), policy_mapping_fn=lambda agent_id, *args, **kwargs: agent_id)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={seat: module for seat in seats}))
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=2, lr=1e-3)
        .debugging(seed=seed)
    )
    return config.build_algo()


def train(game: str = "tictactoe", iterations: int = 3, seed: int = 0) -> list[dict]:
    """``iterations`` PPO iterations; returns RLlib's result dict of each."""
    import ray

    ray.init(num_cpus=1, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        algo = build(game, seed)
        results = [algo.train() for _ in range(iterations)]
        algo.stop()
        return results
    finally:
        ray.shutdown()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--iterations", type=int, default=3)
    args = parser.parse_args(argv)
    for i, result in enumerate(train(args.game, args.iterations)):
        runners = result["env_runners"]
        print(f"iteration {i + 1}: {runners['num_env_steps_sampled_lifetime']} env steps, "
              f"{runners.get('num_episodes_lifetime', '?')} games")


if __name__ == "__main__":
    main()
