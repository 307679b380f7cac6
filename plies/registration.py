"""Game ids, ``plies.make`` and the Gymnasium / PettingZoo registrations."""

from __future__ import annotations

import importlib
from typing import Any

GAMES: dict[str, str] = {
    "tictactoe": "plies.envs.tictactoe.state:TicTacToeState",
    "connect_four": "plies.envs.connect_four.state:ConnectFourState",
    "nine_mens_morris": "plies.envs.nine_mens_morris.state:NineMensMorrisState",
    "backgammon": "plies.envs.backgammon.state:BackgammonState",
    "dice_wars": "plies.envs.dice_wars.state:DiceWarsState",
    "othello": "plies.envs.othello.state:OthelloState",
}
"""Game id -> ``module:class`` of its GameState (imported only when used)."""

GYM_IDS: dict[str, str] = {
    "tictactoe": "plies/TicTacToe-v0",
    "connect_four": "plies/ConnectFour-v0",
    "nine_mens_morris": "plies/NineMensMorris-v0",
    "backgammon": "plies/Backgammon-v0",
    "dice_wars": "plies/DiceWars-v0",
    "othello": "plies/Othello-v0",
}


def game_ids() -> list[str]:
    return list(GAMES)


def state_class(game: str) -> type:
    """The GameState class of ``game``."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    module, name = GAMES[game].split(":")
    return getattr(importlib.import_module(module), name)


def new_state(game: str, seed: int | None = None, **options: Any):
    """A starting position of ``game`` (random set-ups drawn from ``seed``)."""
    import numpy as np

    return state_class(game).initial(np.random.default_rng(seed), **options)


def make(game: str, render_mode: str | None = None, illegal_action: str = "raise", **options: Any):
    """The PettingZoo AEC environment of ``game`` (``plies.make("connect_four")``).

    Environment options: ``render_mode`` ("ansi", "rgb_array", "human"), ``illegal_action``
    ("raise" or "penalize"), ``action_mask`` ("observation": dict observations, or "info"),
    ``max_game_length``; every other keyword is an option of the game itself."""
    from plies.envs.aec import TurnBasedEnv

    return TurnBasedEnv(state_class(game), render_mode=render_mode, illegal_action=illegal_action, **options)


def _game_for_gym_id(gym_id: str) -> str:
    for game, registered in GYM_IDS.items():
        if registered == gym_id:
            return game
    raise ValueError(f"unknown environment id {gym_id!r}; ids: {', '.join(GYM_IDS.values())}")


def register_envs() -> None:
    """Register every game with Gymnasium (single-agent) and PettingZoo (AEC). Idempotent."""
    import gymnasium
    import pettingzoo

    for game, gym_id in GYM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="plies.single_agent:SingleAgentEnv",
                # gymnasium.make_vec(id, num_envs) gets the compiled batch, not N Python envs
                vector_entry_point="plies.vector.gym:GymVectorEnv",
                kwargs={"game": game},
                disable_env_checker=True,
            )
        if gym_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", gym_id, entry_point="plies.registration:make", kwargs={"game": game})
