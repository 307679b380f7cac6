"""plies: board and dice games as PettingZoo environments, with fast search players.

``plies.make(game)`` returns the PettingZoo AEC environment; importing plies registers the
single-agent Gymnasium environments (``gymnasium.make("plies/ConnectFour-v0")``, or
``gymnasium.make("plies:plies/ConnectFour-v0")`` without importing plies first) and the
PettingZoo ids (``pettingzoo.make("aec", "plies/ConnectFour-v0")``).
"""

__version__ = "0.1.0"

from plies import _numba_cache  # noqa: E402 - before numba is imported: the cache follows the sources

_numba_cache.configure(__version__)

from plies.registration import GAMES, game_ids, make, new_state, register_envs, state_class  # noqa: E402

register_envs()

__all__ = ["GAMES", "game_ids", "make", "new_state", "state_class", "__version__"]
