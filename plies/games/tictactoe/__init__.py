"""Tic-Tac-Toe."""

from plies.games.tictactoe.state import TicTacToeState

__all__ = ["TicTacToeState"]
