"""Players: the Agent protocol, the spec registry and the search agents."""

from plies.agents.base import Agent, BaseAgent
from plies.agents.specs import make

__all__ = ["Agent", "BaseAgent", "make"]
