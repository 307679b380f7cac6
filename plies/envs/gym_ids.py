"""``plies.make`` and the Gymnasium / PettingZoo ids of every registered game.

Not to be confused with the game registry (``plies.games.registry``: game id -> ``Game``):
this module hands each registered game to Gymnasium and PettingZoo under its ``plies/...`` id.
"""

from __future__ import annotations

from typing import Any

from plies.games.registry import entries, game_ids, get_game, new_state, register_game, state_class


def make(game: str, render_mode: str | None = None, illegal_action: str = "raise", **options: Any):
    """The PettingZoo AEC environment of ``game`` (``plies.make("connect_four")``).

    Environment options: ``render_mode`` ("ansi", "rgb_array", "human"), ``illegal_action``
    ("raise" or "penalize"), ``action_mask`` ("observation": dict observations, or "info"),
    ``max_game_length``; every other keyword is an option of the game itself."""
    from plies.envs.aec import TurnBasedEnv  # here: numba loads on the first env, not on import plies

    return TurnBasedEnv(state_class(game), render_mode=render_mode, illegal_action=illegal_action, **options)


def register(game_id: str, target: str, gym_id: str | None = None) -> None:
    """Register a game of your own (``target``: ``"package.module:GAME"``, a ``Game``
    declaration) with plies, Gymnasium and PettingZoo."""
    register_game(game_id, target, gym_id)
    register_envs()


def register_envs() -> None:
    """Register every game with Gymnasium (single-agent) and PettingZoo (AEC). Idempotent."""
    import gymnasium
    import pettingzoo

    for entry in entries():
        if entry.gym_id not in gymnasium.registry:
            gymnasium.register(
                id=entry.gym_id,
                entry_point="plies.envs.single_agent:SingleAgentEnv",
                # gymnasium.make_vec(id, num_envs) gets the compiled batch, not N Python envs
                vector_entry_point="plies.envs.vector.gym:GymVectorEnv",
                kwargs={"game": entry.id},
                disable_env_checker=True,
            )
        if entry.gym_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", entry.gym_id, entry_point="plies.envs.gym_ids:make",
                                kwargs={"game": entry.id})


__all__ = ["game_ids", "get_game", "make", "new_state", "register", "register_envs", "state_class"]
