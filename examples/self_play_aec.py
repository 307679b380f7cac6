"""Self-play on a plies AEC environment against a pool of past checkpoints (REINFORCE, torch).

The learner takes a random seat each game; the other seat is a policy drawn from the pool of
its own earlier checkpoints (saved to --pool-dir), so it keeps meeting old versions of itself.

python examples/self_play_aec.py --game tictactoe --iterations 200 --pool-dir runs/pool
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

import plies


class Policy(nn.Module):
    def __init__(self, obs_size: int, num_actions: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_size, 128), nn.ReLU(), nn.Linear(128, num_actions))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.net(obs.flatten(1)).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits)


def save_atomically(policy: Policy, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    torch.save(policy.state_dict(), tmp)
    os.replace(tmp, path)


def play(env, learner: Policy, opponent: Policy, learner_seat: int, rng: np.random.Generator):
    """One game; returns the learner's log-probabilities and its final reward."""
    env.reset(seed=int(rng.integers(2**31)))
    log_probs, reward = [], 0.0
    for agent in env.agent_iter():
        obs, rew, terminated, truncated, _ = env.last()
        seat = env.seat(agent)
        if terminated or truncated:
            if seat == learner_seat:
                reward = rew
            env.step(None)
            continue
        x = torch.as_tensor(obs["observation"]).unsqueeze(0)
        mask = torch.as_tensor(obs["action_mask"], dtype=torch.bool).unsqueeze(0)
        policy = learner if seat == learner_seat else opponent
        with torch.set_grad_enabled(seat == learner_seat):
            dist = policy(x, mask)
            action = dist.sample()
        if seat == learner_seat:
            log_probs.append(dist.log_prob(action))
        env.step(int(action))
    return log_probs, reward


def win_rate_vs_random(env, policy: Policy, games: int, rng: np.random.Generator) -> float:
    uniform = Policy(policy.net[0].in_features, policy.net[-1].out_features)
    nn.init.zeros_(uniform.net[-1].weight)
    nn.init.zeros_(uniform.net[-1].bias)  # equal logits: uniformly random legal moves
    wins = 0
    for g in range(games):
        _, reward = play(env, policy, uniform, g % 2, rng)
        wins += reward > 0
    return wins / games


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--games-per-iteration", type=int, default=16)
    parser.add_argument("--snapshot-every", type=int, default=20)
    parser.add_argument("--pool-dir", default="runs/self_play_pool")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    env = plies.make(args.game)
    env.reset(seed=args.seed)
    obs_size = int(np.prod(env.observation_space("player_0")["observation"].shape))
    num_actions = env.action_space("player_0").n
    learner = Policy(obs_size, num_actions)
    optimiser = torch.optim.Adam(learner.parameters(), lr=3e-3)
    pool_dir = Path(args.pool_dir)
    pool_dir.mkdir(parents=True, exist_ok=True)
    pool = sorted(pool_dir.glob("checkpoint_*.pt"))
    if not pool:
        save_atomically(learner, pool_dir / "checkpoint_0000.pt")
        pool = [pool_dir / "checkpoint_0000.pt"]
    opponent = Policy(obs_size, num_actions)
    for iteration in range(1, args.iterations + 1):
        opponent.load_state_dict(torch.load(pool[int(rng.integers(len(pool)))]))
        losses = []
        for g in range(args.games_per_iteration):
            log_probs, reward = play(env, learner, opponent, g % 2, rng)
            if log_probs:
                losses.append(-reward * torch.stack(log_probs).sum())
        optimiser.zero_grad()
        torch.stack(losses).mean().backward()
        optimiser.step()
        if iteration % args.snapshot_every == 0:
            path = pool_dir / f"checkpoint_{iteration:04d}.pt"
            save_atomically(learner, path)
            pool.append(path)
            rate = win_rate_vs_random(env, learner, 50, rng)
            print(f"iteration {iteration}: pool of {len(pool)}, wins vs random {rate:.0%}")
    return win_rate_vs_random(env, learner, 100, rng)


if __name__ == "__main__":
    main()
