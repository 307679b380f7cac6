"""The Agent protocol, a base class with seeded tie-breaking, declared games and checked parameters.

Every agent class declares what it can play and which values its numeric parameters accept:

- ``games``: the game ids it was written for (None: any game that meets ``requires``);
- ``requires``: facts a game must have (keys of ``REQUIREMENTS``, e.g. ``"no_chance"``);
- ``limits``: parameter name -> ``Range``, checked when the agent is built.

Building an agent with a value out of range, or asking it to act in a game it cannot play,
raises a ValueError naming the agent, the value (or game) and what is allowed.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from plies.games.game import Game
from plies.games.state import GameState


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action for the player to move.

    Optional, where the agent has them: ``policy(state)`` (a probability per legal action, in
    the order of ``state.legal_actions()``), ``value(state)`` (the value for the player to
    move, in the game's return units) and ``search(state)`` (the agent's search result)."""

    name: str

    def act(self, state: GameState) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


REQUIREMENTS: dict[str, tuple[Callable[[Game], bool], str]] = {
    "no_chance": (lambda info: not info.has_chance, "games without chance nodes"),
    "heuristic": (lambda info: bool(info.heuristics), "games with a heuristic evaluation"),
    "chance_or_heuristic": (
        lambda info: info.has_chance or bool(info.heuristics),
        "games with chance nodes or a heuristic evaluation",
    ),
}
"""Facts an agent may require of a game: name -> (test on the game's info, what it means)."""


@dataclass(frozen=True)
class Range:
    """The values a numeric parameter accepts: ``low``/``high`` bounds (None: unbounded),
    ``integer`` for whole numbers, ``open_low`` to exclude ``low``. NaN and infinities are
    always refused."""

    low: float | None = None
    high: float | None = None
    integer: bool = False
    open_low: bool = False

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a finite number"
        if self.low is not None and self.high is not None and not self.open_low:
            return f"{kind} in {self.low}..{self.high}"
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.open_low else '>='} {self.low}")
        if self.high is not None:
            parts.append(f"<= {self.high}")
        return f"{kind} {' and '.join(parts)}".strip()

    def check(self, agent: str, parameter: str, value: Any) -> None:
        ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
        if ok and self.integer:
            ok = isinstance(value, numbers.Integral)
        if ok:
            number = float(value) if not isinstance(value, numbers.Integral) else int(value)
            ok = math.isfinite(number)
            if ok and self.low is not None:
                ok = number > self.low if self.open_low else number >= self.low
            if ok and self.high is not None:
                ok = number <= self.high
        if not ok:
            raise ValueError(f"agent {agent!r}: {parameter}={value!r} is not allowed; {parameter} must be "
                             f"{self.describe()}")


def _all_limits(cls: type) -> dict[str, Range]:
    merged: dict[str, Range] = {}
    for klass in reversed(cls.__mro__):
        merged.update(getattr(klass, "__dict__", {}).get("limits", {}))
    return merged


class BaseAgent:
    """Holds the agent's name and seeded generator; subclasses implement ``act``.

    Subclasses declare ``games``, ``requires``, ``limits`` and a one-line ``description``;
    the checks run by themselves (``__init__`` and ``act`` are wrapped once per class)."""

    spec_name = "agent"
    description: ClassVar[str] = ""
    games: ClassVar[tuple[str, ...] | None] = None
    requires: ClassVar[tuple[str, ...]] = ()
    limits: ClassVar[dict[str, Range]] = {}
    _checked_game: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for req in cls.requires:
            if req not in REQUIREMENTS:
                raise TypeError(f"{cls.__name__}: unknown requirement {req!r}; known: {', '.join(REQUIREMENTS)}")
        if "__init__" in cls.__dict__:
            cls.__init__ = _checked_init(cls.__dict__["__init__"], cls)  # type: ignore[method-assign]
        if "act" in cls.__dict__:
            cls.act = _checked_act(cls.__dict__["act"])  # type: ignore[method-assign]

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        self.name = name or self.spec_name
        self.rng = np.random.default_rng(seed)

    @classmethod
    def game_problem(cls, info: Game) -> str | None:
        """Why this agent cannot play the game of ``info`` (None: it can)."""
        if cls.games is not None and info.id not in cls.games:
            return f"it plays {', '.join(cls.games)} only"
        for req in cls.requires:
            test, meaning = REQUIREMENTS[req]
            if not test(info):
                return f"it plays {meaning}"
        return None

    @classmethod
    def supported_games(cls) -> list[str]:
        """The game ids of this installation the agent can play."""
        from plies.games.registry import game_ids, get_game

        return [g for g in game_ids() if cls.game_problem(get_game(g)) is None]

    @classmethod
    def check_game(cls, game: str | Game, agent: str | None = None) -> None:
        """Raises a ValueError naming the games the agent supports if it cannot play ``game``."""
        from plies.games.registry import get_game

        info = get_game(game) if isinstance(game, str) else game
        problem = cls.game_problem(info)
        if problem is not None:
            raise ValueError(f"agent {agent or cls.spec_name!r} cannot play {info.id}: {problem} "
                             f"(games it supports: {', '.join(cls.supported_games()) or 'none'})")

    def reset(self, seed: int | None = None) -> None:
        """Reseed the tie-breaking generator (called before each game by tournaments)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, state: GameState) -> int:
        raise NotImplementedError

    def choose(self, candidates: Sequence[int] | np.ndarray) -> int:
        """A seeded uniform choice among equally good actions."""
        if len(candidates) == 0:
            raise ValueError(f"{self.name}: no action to choose from")
        return int(candidates[int(self.rng.integers(len(candidates)))])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _checked_init(init: Callable, cls: type) -> Callable:
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        limits = _all_limits(cls)
        if limits:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            agent = bound.arguments.get("name") or getattr(cls, "spec_name", cls.__name__)
            for key, value in bound.arguments.items():
                if key in limits:
                    limits[key].check(agent, key, value)
        init(self, *args, **kwargs)

    return __init__


def _checked_act(act: Callable) -> Callable:
    @functools.wraps(act)
    def checked(self, state: GameState) -> int:
        game = state.game.id
        if game != self._checked_game:
            type(self).check_game(state.game, self.name)
            self._checked_game = game
        if state.current_player < 0:  # an agent picks a player's move; chance is the game's
            raise ValueError(f"agent {self.name!r} needs a position where a player is to move: "
                             f"{'the game is over' if state.is_terminal() else 'the dice (chance) are to be drawn'}")
        return act(self, state)

    return checked


def uniform_policy(state: GameState, best: Sequence[int] | np.ndarray) -> np.ndarray:
    """Probability per legal action (``state.legal_actions()`` order): uniform over ``best``."""
    legal = state.legal_actions()
    out = np.isin(legal, np.asarray(best)).astype(np.float64)
    return out / out.sum()


class PlayPlan:
    """The rest of a play chosen as a whole (a backgammon roll: several checker moves), handed
    out one action per call, each keyed by the position it was chosen for: if the position
    differs (another agent moved, or a new game), the plan is dropped."""

    def __init__(self) -> None:
        self.steps: list[tuple[int, int]] = []  # (state hash before the action, action)

    def clear(self) -> None:
        self.steps = []

    def next_for(self, state: GameState) -> int | None:
        """The planned action for ``state``, or None when there is no plan for it."""
        if self.steps and self.steps[0][0] == state.hash():
            return self.steps.pop(0)[1]
        self.steps = []
        return None

    def start(self, state: GameState, path: Sequence[int]) -> int:
        """Plan ``path`` from ``state``; returns its first action."""
        probe = state.clone()
        steps = []
        for action in path:
            steps.append((probe.hash(), int(action)))
            probe.apply_unchecked(int(action))
        self.steps = steps[1:]
        return int(path[0])
