"""An independent, plain-Python Tic-Tac-Toe used as a reference by the tests."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board: str) -> str | None:
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def to_move(board: str) -> str:
    return "X" if board.count("X") == board.count("O") else "O"


def finished(board: str) -> bool:
    return winner(board) is not None or "." not in board


def moves(board: str) -> list[int]:
    return [] if finished(board) else [i for i, c in enumerate(board) if c == "."]


def play(board: str, move: int) -> str:
    return board[:move] + to_move(board) + board[move + 1 :]


@cache
def minimax(board: str) -> int:
    """+1 if the side to move wins with best play, 0 draw, -1 loss."""
    if finished(board):
        w = winner(board)
        return 0 if w is None else -1  # the side that just moved made the line
    return max(-minimax(play(board, m)) for m in moves(board))


@cache
def random_outcomes(board: str) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P X wins, P O wins, P draw) under uniformly random play."""
    if finished(board):
        w = winner(board)
        return (Fraction(w == "X"), Fraction(w == "O"), Fraction(w is None))
    ms = moves(board)
    parts = [random_outcomes(play(board, m)) for m in ms]
    return tuple(sum(p[i] for p in parts) / len(ms) for i in range(3))  # type: ignore[return-value]


@cache
def counts(board: str) -> tuple[int, int, int]:
    if finished(board):
        w = winner(board)
        return (int(w == "X"), int(w == "O"), int(w is None))
    parts = [counts(play(board, m)) for m in moves(board)]
    return tuple(sum(p[i] for p in parts) for i in range(3))  # type: ignore[return-value]


@cache
def distance_minimax(board: str, ply: int = 0) -> int:
    """Like minimax, scored 100 - (plies to the end) for a win: quicker wins, slower losses."""
    if finished(board):
        return 0 if winner(board) is None else -(100 - ply)
    return max(-distance_minimax(play(board, m), ply + 1) for m in moves(board))
