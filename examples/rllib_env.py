"""A plies environment in RLlib: register the AEC env through RLlib's PettingZoo wrapper and
build a multi-agent PPO config with one policy per seat.

pip install "ray[rllib]"; python examples/rllib_env.py
"""

from __future__ import annotations

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

import plies


def env_creator(config: dict):
    # RLlib reads observation spaces once; Box observations with the mask in infos are the
    # simplest fit (plies' default dict observations work with a masking model instead).
    return PettingZooEnv(plies.make(config.get("game", "connect_four"), action_mask="info"))


def main() -> None:
    register_env("plies_connect_four", env_creator)
    env = env_creator({})
    obs, infos = env.reset(seed=0)
    print("RLlib sees agents", list(obs), "with observation shape", next(iter(obs.values())).shape)
    config = (
        PPOConfig()
        .environment("plies_connect_four", env_config={"game": "connect_four"})
        .multi_agent(
            policies={"player_0", "player_1"},
            policy_mapping_fn=lambda agent_id, *args, **kwargs: agent_id,
        )
    )
    print("config built for", config.env, "with policies", sorted(config.policies))


if __name__ == "__main__":
    main()
