"""Train sb3-contrib's MaskablePPO on Connect Four against the random agent, then evaluate it
with plies' tournament engine.

python examples/maskable_ppo_connect_four.py --steps 60000 --out ppo_c4.zip
plies tournament --game connect_four --agents sb3:path=ppo_c4.zip random --games 100
"""

from __future__ import annotations

import argparse

import gymnasium
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

import plies  # noqa: F401  (registers the gymnasium ids)
from plies.evaluation import run_tournament


def make_env(seed: int) -> gymnasium.Env:
    # seat=-1: the learner plays either seat, drawn at every reset
    env = gymnasium.make("plies/ConnectFour-v0", opponent="random", seat=-1)
    env.reset(seed=seed)
    return ActionMasker(env, lambda e: e.unwrapped.action_masks())


def train(steps: int, out: str, seed: int = 0) -> MaskablePPO:
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda i=i: make_env(seed + i) for i in range(8)])
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=256, batch_size=512, n_epochs=4, learning_rate=1e-3,
        gamma=0.99, ent_coef=0.01, seed=seed, verbose=0, device="cpu",
        policy_kwargs={"net_arch": [128, 128]},
    )
    model.learn(total_timesteps=steps)
    model.save(out)
    return model


def evaluate(model_path: str, games: int = 100, seed: int = 1):
    """Both seats, against random, through the tournament API."""
    spec = f"sb3:path={model_path}"
    return run_tournament("connect_four", [spec, "random"], games, seed=seed, workers=1, progress=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=60000)
    parser.add_argument("--out", default="ppo_connect_four.zip")
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    train(args.steps, args.out)
    print(evaluate(args.out, args.games).table().format())


if __name__ == "__main__":
    main()
