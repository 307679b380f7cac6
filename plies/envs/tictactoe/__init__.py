"""Tic-Tac-Toe."""

from plies.envs.tictactoe.state import TicTacToeState

__all__ = ["TicTacToeState"]
