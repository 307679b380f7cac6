"""The one game loop that every environment (and the tournament) plays games with.

It owns what all of them must do alike: checking an action (integers only, in range, legal),
the illegal-action policy, resolving chance nodes from a seeded generator, truncating at
``max_game_length`` decisions, and the returns a game ends with.

Illegal-action policy (the ``illegal_action=`` option of every plies environment):

``"raise"`` (the default everywhere)
    an illegal action raises ``ValueError`` naming the legal actions; nothing is played.
``"penalize"``
    the offender forfeits: the game ends (terminated) with -1 for the offender and
    ``1 / (num_players - 1)`` for every other seat, so the returns stay zero-sum, as a
    forfeit on time does in tournaments. PettingZoo's classic environments give the others 0;
    plies counts a forfeit as the loss it is, for the winner too.

Whatever the policy, an action that is not an integer raises ``TypeError`` (bool, float and
str included: ``"2"`` or ``2.0`` is a bug in the caller, not a move), one outside
``range(num_actions)`` raises ``ValueError`` with the range, and playing after the game has
ended raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from plies.games.kernels import action_index
from plies.games.state import GameState, sample_chance

ILLEGAL_ACTION_POLICIES = ("raise", "penalize")
DEFAULT_ILLEGAL_ACTION = "raise"

Observer = Callable[[GameState, "int | None"], None]
"""``observer(state, action)``: called with the start position (action None) and after every
action, chance outcomes included."""


def check_illegal_action(policy: str) -> str:
    """``policy`` if it is one of ``ILLEGAL_ACTION_POLICIES``, else a ValueError."""
    if policy not in ILLEGAL_ACTION_POLICIES:
        raise ValueError(
            f"unknown illegal_action {policy!r}; choose one of {', '.join(map(repr, ILLEGAL_ACTION_POLICIES))}"
        )
    return policy


def check_action(action: Any, num_actions: int) -> int:
    """``action`` as a Python int if it is an integer in ``range(num_actions)``.

    Python and numpy integers are accepted, and integer arrays holding one value (what some RL
    libraries pass); bool, float, str and None raise TypeError, out-of-range values ValueError."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        action = action.reshape(()).item()
    value = action_index(action, "an action", f" in range({num_actions})")
    if not 0 <= value < num_actions:
        raise ValueError(f"action {value} is out of range: actions are 0..{num_actions - 1}")
    return value


def forfeit_returns(num_players: int, offender: int) -> np.ndarray:
    """Returns of a game lost by forfeit: -1 for ``offender``, the rest shared by the others."""
    returns = np.full(num_players, 1.0 / max(1, num_players - 1))
    returns[offender] = -1.0
    return returns


class GameLoop:
    """One game played from ``state`` (which it plays on in place) to its end.

    ``start()`` resolves chance at the root; ``play(action)`` checks and plays one decision,
    then resolves the chance nodes after it. ``finished`` is true once the game is over
    (``terminated``: the rules ended it or a player forfeited) or cut at ``max_game_length``
    decisions (``truncated``, zero returns). ``returns()`` is every seat's result.
    """

    __slots__ = ("state", "rng", "max_game_length", "illegal_action", "observer", "decisions",
                 "forfeited_by", "truncated", "_num_actions")

    def __init__(
        self,
        state: GameState,
        rng: np.random.Generator,
        max_game_length: int | None = None,
        illegal_action: str = DEFAULT_ILLEGAL_ACTION,
        observer: Observer | None = None,
    ) -> None:
        self.state = state
        self.rng = rng
        self.max_game_length = int(max_game_length or state.max_game_length)
        if self.max_game_length < 1:
            raise ValueError(f"max_game_length must be at least 1, got {max_game_length}")
        self.illegal_action = check_illegal_action(illegal_action)
        self.observer = observer
        self.decisions = 0
        self.forfeited_by: int | None = None
        self.truncated = False
        self._num_actions = state.num_actions

    # ----- where the game stands -----------------------------------------------------------
    @property
    def terminated(self) -> bool:
        return self.forfeited_by is not None or self.state.is_terminal()

    @property
    def finished(self) -> bool:
        return self.truncated or self.terminated

    def returns(self) -> np.ndarray:
        """Every seat's result: the rules' returns, the forfeit's, or zeros (truncated or
        not over)."""
        if self.forfeited_by is not None:
            return forfeit_returns(self.state.num_players, self.forfeited_by)
        return self.state.returns()

    # ----- playing -------------------------------------------------------------------------
    def start(self) -> None:
        """Show the start position to the observer and resolve chance at the root."""
        if self.observer:
            self.observer(self.state, None)
        self.resolve_chance()

    def resolve_chance(self) -> None:
        """Draw chance outcomes (by their probabilities) until a player is to move or the end."""
        state, observer = self.state, self.observer
        while state.is_chance_node():
            outcome = sample_chance(state, self.rng)
            state.apply_unchecked(outcome)
            if observer:
                observer(state, outcome)

    def check(self, action: Any) -> int:
        """``action`` as an int, after the checks every policy makes (type, range, game over)."""
        if self.finished:
            raise ValueError("the game is over: no more actions can be played (call reset())")
        return check_action(action, self._num_actions)

    def play(self, action: Any) -> bool:
        """Play the player to move's ``action`` and the chance nodes after it.

        Returns False if the action was illegal and the player forfeited (policy
        ``"penalize"``); with ``"raise"`` an illegal action raises ValueError instead."""
        value = self.check(action)
        state = self.state
        if not state.is_legal(value):
            if self.illegal_action == "raise":
                raise ValueError(state._illegal_message(value))
            self.forfeited_by = state.current_player
            return False
        state.apply_unchecked(value)
        self.decisions += 1
        if self.observer:
            self.observer(state, value)
        self.resolve_chance()
        if not state.is_terminal() and self.decisions >= self.max_game_length:
            self.truncated = True
        return True

    def forfeit(self, seat: int) -> None:
        """End the game as lost by ``seat`` (e.g. out of time)."""
        if self.finished:
            raise ValueError("the game is over: nobody can forfeit it")
        self.forfeited_by = int(seat)
