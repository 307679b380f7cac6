"""What a click on a drawing means in each game: the front end sends the number of the clicked
part (``data-col``, ``data-cell``, ``data-point``, ``data-area``) and the server turns it into a
move, or into a picked piece whose move needs a second click."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from plies.envs.core import GameState


class ClickError(ValueError):
    """A click that is no move here (the game is left as it was)."""


@dataclass
class ClickResult:
    action: int | None  # the move to play, or None (a piece was picked or dropped)
    selected: int | None  # the piece now picked


def interpret(game: str, state: GameState, selected: int | None, value: int) -> ClickResult:
    """The meaning of a click on part ``value`` with ``selected`` picked before."""
    legal = [int(a) for a in state.legal_actions()]
    if game in ("tictactoe", "connect_four"):
        if value not in legal:
            where = "cell" if game == "tictactoe" else "column"
            shown = value if game == "tictactoe" else value + 1
            raise ClickError(f"{where} {shown} cannot be played")
        return ClickResult(value, None)
    if game == "nine_mens_morris":
        return _morris(state, legal, selected, value)
    if game == "backgammon":
        return _backgammon(legal, selected, value)
    if game == "dice_wars":
        return _dice_wars(state, legal, selected, value)
    raise ClickError(f"{game} cannot be played by clicks; pick a move from the list")


def _morris(state: Any, legal: list[int], selected: int | None, value: int) -> ClickResult:
    points = 24
    if value in legal and value < points:  # placing or removing
        return ClickResult(value, None)
    sources = {(a - points) // points for a in legal if a >= points}
    if selected is not None:
        action = points + selected * points + value
        if action in legal:
            return ClickResult(action, None)
        if value == selected:
            return ClickResult(None, None)
    if value in sources:
        return ClickResult(None, value)
    name = state.action_to_string(value).lstrip("x")
    raise ClickError(f"no move from or to {name} here")


def backgammon_moves(legal: list[int], source: int) -> dict[int, int]:
    """Destination (0 = off) -> action, for the checker on ``source`` (25 = bar), in the mover's
    numbering; the exact die first when several bear the checker off."""
    out: dict[int, int] = {}
    for action in sorted(legal, key=lambda a: a % 6):
        start, die = action // 6 + 1, action % 6 + 1
        if start == source:
            out.setdefault(max(0, start - die), action)
    return out


def _backgammon(legal: list[int], selected: int | None, value: int) -> ClickResult:
    sources = {a // 6 + 1 for a in legal}
    if selected is not None:
        moves = backgammon_moves(legal, selected)
        if value in moves:
            return ClickResult(moves[value], None)
        if value == selected:
            return ClickResult(None, None)
    if value in sources:
        return ClickResult(None, value)
    if selected is not None:
        raise ClickError(f"the checker on {_point(selected)} cannot move to {_point(value)}")
    raise ClickError(f"no checker of yours can move from {_point(value)}"
                     + (f"; you can move from {', '.join(_point(s) for s in sorted(sources, reverse=True))}"
                        if sources else ""))


def _point(value: int) -> str:
    return "the bar" if value == 25 else ("off" if value == 0 else f"point {value}")


def _dice_wars(state: Any, legal: list[int], selected: int | None, value: int) -> ClickResult:
    n = state.num_areas
    if not 0 <= value < n:
        raise ClickError(f"areas are 0 to {n - 1}")
    sources = {a // n for a in legal if a < n * n}
    if selected is not None:
        if selected * n + value in legal:
            return ClickResult(selected * n + value, None)
        if value == selected:
            return ClickResult(None, None)
    if value in sources:
        return ClickResult(None, value)
    if selected is not None:
        raise ClickError(f"area {selected} cannot attack area {value}")
    raise ClickError(f"area {value} cannot attack (it must be yours, with 2 or more dice, next to an enemy)")


def drawing_options(game: str, state: Any, selected: int | None, viewer: int,
                    last_battle: tuple[int, int] | None) -> dict[str, Any]:
    """The drawing's options: the picked piece and where it can go, the side to draw from."""
    legal = [int(a) for a in state.legal_actions()] if state.current_player >= 0 else []
    if game == "backgammon":
        targets = tuple(backgammon_moves(legal, selected)) if selected is not None else ()
        return {"viewer": viewer, "selected": selected, "targets": targets}
    if game == "dice_wars":
        n = state.num_areas
        targets = tuple(a % n for a in legal if selected is not None and a < n * n and a // n == selected)
        return {"selected": selected, "targets": targets, "last_battle": last_battle}
    if game == "nine_mens_morris":
        return {"selected": selected}
    return {}
