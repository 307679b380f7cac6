"""Train a plies game in TorchRL: the single-agent Gymnasium env through ``GymWrapper``, the
legal-action mask read from ``info["action_mask"]``, and a few PPO iterations with TorchRL's
own collector, advantage estimator and clipped loss.

pip install "plies[torchrl]"; python examples/torchrl_env.py --iterations 20
"""

from __future__ import annotations

import argparse

import gymnasium
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.data import Binary
from torchrl.envs import GymWrapper
from torchrl.envs.gym_like import default_info_dict_reader
from torchrl.modules import ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import plies  # noqa: F401  (registers the gymnasium ids)


class MaskedLogits(nn.Module):
    """Logits over the actions from a flattened observation, illegal actions at -inf."""

    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, num_actions))

    def forward(self, observation: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = self.net(observation.flatten(-observation.dim() + mask.dim() - 1).float())
        return logits.masked_fill(~mask.bool(), float("-inf"))


def make_env(game_id: str, seed: int) -> GymWrapper:
    base = gymnasium.make(game_id, opponent="random", seat=-1)
    env = GymWrapper(base, categorical_action_encoding=True)
    # info["action_mask"] (after reset and every step) into the tensordict, with its spec
    mask_spec = Binary(n=int(base.action_space.n), dtype=torch.int8)
    env.set_info_dict_reader(default_info_dict_reader(["action_mask"], spec={"action_mask": mask_spec}))
    env.set_seed(seed)
    return env


def train(game_id: str = "plies/TicTacToe-v0", iterations: int = 10, frames: int = 512, seed: int = 0):
    """PPO for ``iterations`` batches of ``frames`` learner steps; returns the mean reward per
    finished game of each batch."""
    torch.manual_seed(seed)
    env = make_env(game_id, seed)
    obs_shape = env.observation_spec["observation"].shape
    num_actions = int(env.action_spec.space.n)
    obs_size = int(torch.tensor(obs_shape).prod())
    logits = TensorDictModule(MaskedLogits(obs_size, num_actions), in_keys=["observation", "action_mask"],
                              out_keys=["logits"])
    actor = ProbabilisticActor(logits, in_keys=["logits"], out_keys=["action"], spec=env.action_spec,
                               distribution_class=torch.distributions.Categorical, return_log_prob=True)
    critic = ValueOperator(nn.Sequential(nn.Flatten(-len(obs_shape)), nn.Linear(obs_size, 64), nn.Tanh(),
                                         nn.Linear(64, 1)), in_keys=["observation"])
    loss = ClipPPOLoss(actor, critic, entropy_coeff=0.01)
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    optimiser = torch.optim.Adam(loss.parameters(), lr=3e-3)
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=frames * iterations,
                          auto_register_policy_transforms=False)
    rewards_per_game = []
    for batch in collector:
        with torch.no_grad():
            advantage(batch)
        for _ in range(4):
            for minibatch in batch.reshape(-1).split(128):
                losses = loss(minibatch)
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimiser.zero_grad()
                total.backward()
                optimiser.step()
        done = batch["next", "done"].squeeze(-1)
        rewards_per_game.append(float(batch["next", "reward"].squeeze(-1)[done].mean()) if done.any() else 0.0)
        collector.update_policy_weights_()
    collector.shutdown()
    return rewards_per_game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="plies/TicTacToe-v0")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--frames", type=int, default=512)
    args = parser.parse_args(argv)
    for i, reward in enumerate(train(args.game, args.iterations, args.frames)):
        print(f"iteration {i + 1}: mean reward per finished game {reward:+.2f}")


if __name__ == "__main__":
    main()
