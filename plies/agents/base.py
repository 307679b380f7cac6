"""The Agent protocol and a base class with seeded tie-breaking."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from plies.envs.core import GameState


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action for the player to move."""

    name: str

    def act(self, state: GameState) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


class BaseAgent:
    """Holds the agent's name and seeded generator; subclasses implement ``act``."""

    spec_name = "agent"

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        self.name = name or self.spec_name
        self.rng = np.random.default_rng(seed)

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
