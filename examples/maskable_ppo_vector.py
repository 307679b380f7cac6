"""Train sb3-contrib's MaskablePPO on Connect Four from 256 games stepped together by plies'
compiled batch, the learner taking a random seat in each game against the random agent; then
play it against random through the tournament API.

python examples/maskable_ppo_vector.py                        # a short run (about a minute)
python examples/maskable_ppo_vector.py --steps 2000000 --out ppo_c4.zip
plies tournament --game connect_four --agents sb3:path=ppo_c4.zip random --games 100
"""

from __future__ import annotations

import argparse
import time

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

from plies.envs.vector.sb3 import VecEnv
from plies.evaluation import run_tournament


def train(steps: int, out: str, num_envs: int = 256, seed: int = 0) -> MaskablePPO:
    # one torch thread: the env is not the bottleneck, and more threads than free cores stall
    torch.set_num_threads(1)
    env = VecMonitor(VecEnv("connect_four", num_envs, seat=-1, opponent="random", seed=seed))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=1024, n_epochs=4, learning_rate=1e-3,
        gamma=0.99, ent_coef=0.01, seed=seed, verbose=0, device="cpu",
        policy_kwargs={"net_arch": [128, 128]},
    )
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    elapsed = time.perf_counter() - start
    print(f"{model.num_timesteps} steps in {elapsed:.1f} s ({model.num_timesteps / elapsed:,.0f} steps/s)")
    model.save(out)
    return model


def evaluate(model_path: str, games: int = 100, seed: int = 1):
    """Both seats, against random, through the tournament API."""
    spec = f"sb3:path={model_path}"
    return run_tournament("connect_four", [spec, "random"], games, seed=seed, workers=1, progress=False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--out", default="ppo_connect_four_vector.zip")
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args(argv)
    train(args.steps, args.out, args.envs)
    print(evaluate(args.out, args.games).table().format())


if __name__ == "__main__":
    main()
