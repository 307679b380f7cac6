"""What a click on a drawing means: the front end sends the number of the clicked part
(``data-col``, ``data-cell``, ``data-point``, ``data-area``) and the game's declared ``click``
hook turns it into a move, or into a picked piece whose move needs a second click. The hooks
live with each game's drawing (``plies/games/<game>/drawing.py``); this module only dispatches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plies.games.drawing import Click, ClickError
from plies.games.state import GameState

__all__ = ["Click", "ClickError", "interpret", "view_options"]


def interpret(state: GameState, selected: int | None, value: int) -> Click:
    """The meaning of a click on part ``value`` with ``selected`` picked before."""
    return state.game.click(state, selected, value)


def view_options(state: GameState, selected: int | None, viewer: int, moves: Sequence[int]) -> dict[str, Any]:
    """The drawing's options for a person's view: the picked piece and where it can go, the
    side to draw from, the last move (``moves``: the players' actions so far)."""
    return state.game.view_options(state, selected, viewer, moves)
