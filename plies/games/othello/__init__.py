"""Othello (8x8): bitboard rules with OpenSpiel's conventions (forced pass as action 64)."""

from __future__ import annotations

from plies.games.othello.state import OthelloState

__all__ = ["OthelloState"]
