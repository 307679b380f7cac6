"""plies: board and dice games as PettingZoo environments, with fast search players.

``plies.make(game)`` returns the PettingZoo AEC environment and ``plies.get_game(game)`` the
game's declaration; importing plies registers the single-agent Gymnasium environments
(``gymnasium.make("plies/ConnectFour-v0")``, or ``gymnasium.make("plies:plies/ConnectFour-v0")``
without importing plies first) and the PettingZoo ids (``pettingzoo.make("aec",
"plies/ConnectFour-v0")``).
"""

__version__ = "0.1.0"

from plies import _numba_cache  # noqa: E402 - before numba is imported: the cache follows the sources

_numba_cache.configure(__version__)

from plies import _moved  # noqa: E402

_moved.install()  # the pre-house-move module paths, as deprecated aliases

from plies.envs.gym_ids import make, register, register_envs  # noqa: E402
from plies.games.registry import game_ids, get_game, new_state, state_class  # noqa: E402

register_envs()

__all__ = ["game_ids", "get_game", "make", "new_state", "register", "state_class", "__version__"]
