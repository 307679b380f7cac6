"""The uniformly random player."""

from __future__ import annotations

from plies.agents.base import BaseAgent
from plies.envs.core import GameState


class RandomAgent(BaseAgent):
    """Plays a uniformly random legal action."""

    spec_name = "random"

    def act(self, state: GameState) -> int:
        return self.choose(state.legal_actions())
