"""The game registry: game id -> where its ``Game`` declaration lives, imported on first use.

Registering stores only a ``module:attribute`` path (or the Game itself), so ``import plies``
stays cheap and a worker process finds every game by importing the same path.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from plies.games.game import Game


@dataclass(frozen=True)
class GameEntry:
    id: str
    target: str  # "package.module:ATTRIBUTE" of the Game declaration
    gym_id: str  # the Gymnasium / PettingZoo id, e.g. "plies/ConnectFour-v0"


_ENTRIES: dict[str, GameEntry] = {}
_LOADED: dict[str, Game] = {}


def register_game(game_id: str, target: str, gym_id: str | None = None) -> GameEntry:
    """Make ``game_id`` known to plies (``target`` is ``"package.module:GAME"``). Registering
    the same id with the same target again is harmless; another target is refused."""
    if not game_id.isidentifier():
        raise ValueError(f"game id {game_id!r}: use letters, digits and underscores")
    module, colon, attribute = target.partition(":")
    if not colon or not module or not attribute.isidentifier():
        raise ValueError(f"game target {target!r}: write it as 'package.module:ATTRIBUTE'")
    if gym_id is None:
        gym_id = "plies/" + "".join(part.capitalize() for part in game_id.split("_")) + "-v0"
    entry = GameEntry(game_id, target, gym_id)
    known = _ENTRIES.get(game_id)
    if known is not None and known != entry:
        raise ValueError(f"game id {game_id!r} is already registered for {known.target}")
    _ENTRIES[game_id] = entry
    return entry


def game_ids() -> list[str]:
    """The registered game ids, in registration order."""
    return list(_ENTRIES)


def entries() -> list[GameEntry]:
    return list(_ENTRIES.values())


def gym_id(game_id: str) -> str:
    """The Gymnasium / PettingZoo id of a registered game."""
    if game_id not in _ENTRIES:
        raise ValueError(f"unknown game {game_id!r}; games: {', '.join(_ENTRIES)}")
    return _ENTRIES[game_id].gym_id


def get_game(game_id: str) -> Game:
    """The ``Game`` declaration of a registered id, or of a ``"package.module:ATTRIBUTE"`` path
    (a user's game that is not registered in this process, e.g. in a worker)."""
    game = _LOADED.get(game_id)
    if game is not None:
        return game
    if not isinstance(game_id, str):
        raise TypeError(f"a game is named by its id (a string), got {type(game_id).__name__}")
    if game_id in _ENTRIES:
        target = _ENTRIES[game_id].target
    elif ":" in game_id:
        target = game_id
    else:
        raise ValueError(f"unknown game {game_id!r}; games: {', '.join(_ENTRIES)}")
    module, _, attribute = target.partition(":")
    try:
        game = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"game {game_id!r}: cannot load {target} ({error})") from error
    if not all(hasattr(game, fact) for fact in ("state_class", "kernels", "batch_run")):
        raise TypeError(f"game {game_id!r}: {target} is a {type(game).__name__}, not a plies Game")
    _LOADED[game_id] = game
    return game


def state_class(game: str) -> type:
    """The GameState class of ``game``."""
    return get_game(game).state_class


def new_state(game: str, seed: int | None = None, **options: Any):
    """A starting position of ``game`` (random set-ups drawn from ``seed``)."""
    return get_game(game).new_state(seed, **options)


# the games that ship with plies: one line each
register_game("tictactoe", "plies.games.tictactoe.state:GAME", "plies/TicTacToe-v0")
register_game("connect_four", "plies.games.connect_four.state:GAME", "plies/ConnectFour-v0")
register_game("nine_mens_morris", "plies.games.nine_mens_morris.state:GAME", "plies/NineMensMorris-v0")
register_game("backgammon", "plies.games.backgammon.state:GAME", "plies/Backgammon-v0")
register_game("dice_wars", "plies.games.dice_wars.state:GAME", "plies/DiceWars-v0")
register_game("othello", "plies.games.othello.state:GAME", "plies/Othello-v0")

DEMO_GAME = "tictactoe"
"""The game ``plies tournament`` plays when it is given no game (small enough to finish at once)."""
