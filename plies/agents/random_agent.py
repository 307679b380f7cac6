"""The uniformly random player."""

from __future__ import annotations

import numpy as np

from plies.agents.base import BaseAgent
from plies.games.state import GameState


class RandomAgent(BaseAgent):
    """Plays a uniformly random legal action."""

    spec_name = "random"
    description = "a uniformly random legal action"

    def policy(self, state: GameState) -> np.ndarray:
        """Uniform over the legal actions."""
        n = len(state.legal_actions())
        return np.full(n, 1.0 / n)

    def act(self, state: GameState) -> int:
        return self.choose(state.legal_actions())
