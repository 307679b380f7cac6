"""A plies environment in TorchRL: the single-agent Gymnasium env through ``GymWrapper``, and
a random rollout with the action mask TorchRL reads from it.

pip install torchrl; python examples/torchrl_env.py
"""

from __future__ import annotations

import gymnasium
from torchrl.envs import GymWrapper

import plies  # noqa: F401  (registers the gymnasium ids)


def main() -> None:
    base = gymnasium.make("plies/ConnectFour-v0", opponent="random", illegal_action="raise")
    env = GymWrapper(base)
    td = env.reset()
    print("observation", tuple(td["observation"].shape))
    steps = 0
    while True:
        mask = base.unwrapped.action_masks()
        action = env.action_spec.zero()
        action[int(mask.nonzero()[0][0])] = 1  # one-hot: the leftmost legal column
        td["action"] = action
        td = env.step(td)["next"]
        steps += 1
        if td["done"].item():
            break
    print(f"game over after {steps} learner moves, reward {td['reward'].item()}")


if __name__ == "__main__":
    main()
