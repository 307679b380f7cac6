"""Players: the Agent protocol, the spec registry, wrappers for users' agents and the search agents."""

from plies.agents.base import Agent, BaseAgent, Range
from plies.agents.specs import make, register, unregister
from plies.agents.wrappers import from_policy, from_torch

__all__ = ["Agent", "BaseAgent", "Range", "from_policy", "from_torch", "make", "register", "unregister"]
