"""``milestone.py`` of the Connect Four write-up: its ``Board`` and ``Player``."""

from plies.classroom.connect_four import Board, Player

__all__ = ["Board", "Player"]
