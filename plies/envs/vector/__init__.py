"""Batched environments: thousands of games stepped by one compiled call.

``plies.envs.vector.make("connect_four", num_envs=4096, seed=0)`` gives a ``VectorGame``;
``GymVectorEnv`` is a ``gymnasium.vector.VectorEnv`` where one seat learns against a batched
opponent policy. See docs/vector.md.
"""

from __future__ import annotations

from typing import Any

from plies.envs.vector.batch import VectorGame
from plies.games.batching import TRACE_RESET

__all__ = ["VectorGame", "make", "TRACE_RESET", "GymVectorEnv", "random_policy", "torch_policy"]


def make(game: str, num_envs: int, seed: int | None = 0, **options: Any) -> VectorGame:
    """``num_envs`` games of ``game`` in one batch; keywords: ``max_game_length``,
    ``parallel`` (None: by batch size), ``trace`` (capacity of per-game action traces),
    and the game's own options (Dice Wars also takes ``maps``, distinct maps per batch)."""
    return VectorGame(game, num_envs, seed, **options)


def __getattr__(name: str) -> Any:
    if name in ("GymVectorEnv", "random_policy", "torch_policy"):  # gymnasium.vector on demand
        from plies.envs.vector import gym

        return getattr(gym, name)
    raise AttributeError(name)
