"""plies: board and dice games as PettingZoo environments, with fast search players.

``plies.make(game)`` returns the PettingZoo AEC environment and ``plies.get_game(game)`` the
game's declaration; importing plies registers the single-agent Gymnasium environments
(``gymnasium.make("plies/ConnectFour-v0")``, or ``gymnasium.make("plies:plies/ConnectFour-v0")``
without importing plies first) and the PettingZoo ids (``pettingzoo.make("aec",
"plies/ConnectFour-v0")``).
"""

from plies.registration import game_ids, get_game, make, new_state, register, register_envs, state_class

__version__ = "0.1.0"

register_envs()

__all__ = ["game_ids", "get_game", "make", "new_state", "register", "state_class", "__version__"]
