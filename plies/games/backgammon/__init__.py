"""Backgammon (no doubling cube): dice as chance nodes, one checker move per action."""

from plies.games.backgammon.state import BackgammonState

__all__ = ["BackgammonState"]
