"""Nine Men's Morris as SVG: the three squares and their joining lines, files a-g and ranks 1-7
on the edges (as moves are written), stones in hand beside the board, the last move marked."""

from __future__ import annotations

from typing import Any

from plies.games import drawing
from plies.games.nine_mens_morris import rules

STEP = 50
MARGIN = 40
HAND = 46
STATUS = 26
FILL = {1: "#f7f7f2", 2: "#222222"}


def svg(state: Any, selected: int | None = None, marked: tuple[int, ...] = (), **_: Any) -> str:
    """``selected``: a point picked as the source of a move; ``marked``: points to outline
    (e.g. the last move's)."""
    size = 2 * MARGIN + 6 * STEP
    width = size + 2 * HAND

    def xy(p: int) -> tuple[float, float]:
        row, col = rules.COORDS[p]
        return HAND + MARGIN + col * STEP, MARGIN + row * STEP

    body = [f'<rect x="{HAND}" y="0" width="{size}" height="{size}" fill="#deb887"/>']
    for line in rules.MILLS:
        (x0, y0), (x1, y1) = xy(int(line[0])), xy(int(line[2]))
        body.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#3c2814" stroke-width="3"/>')
    for k, name in enumerate("abcdefg"):
        x = HAND + MARGIN + k * STEP
        body.append(drawing.text(x, size - 14, name, 13, "#3c2814", weight="bold"))
        body.append(drawing.text(HAND + 14, MARGIN + k * STEP, 7 - k, 13, "#3c2814", weight="bold"))
    points = state.points
    for p in range(rules.NUM_POINTS):
        x, y = xy(p)
        colour = int(points[p])
        if colour:
            body.append(f'<circle cx="{x}" cy="{y}" r="15" fill="{FILL[colour]}" stroke="#111" stroke-width="2"/>')
        else:
            body.append(f'<circle cx="{x}" cy="{y}" r="5" fill="#3c2814"/>')
        if p == selected:
            body.append(f'<circle cx="{x}" cy="{y}" r="19" fill="none" stroke="#1e90ff" stroke-width="4"/>')
        elif p in marked:
            body.append(f'<circle cx="{x}" cy="{y}" r="19" fill="none" stroke="#e03c28" stroke-width="3"/>')
        body.append(f'<circle cx="{x}" cy="{y}" r="20" fill="#000" fill-opacity="0" class="point" '
                    f'data-point="{p}" data-name="{state.action_to_string(p).lstrip("x")}"/>')
    for seat, x in ((0, HAND / 2), (1, width - HAND / 2)):
        body.append(drawing.text(x, 12, "WB"[seat], 13, weight="bold"))
        for k in range(state.in_hand(seat)):
            body.append(f'<circle cx="{x}" cy="{34 + k * 28}" r="11" fill="{FILL[seat + 1]}" stroke="#111" '
                        'stroke-width="1.5"/>')
    body.append(drawing.text(width / 2, size + STATUS / 2, _status(state), 13))
    return drawing.document(width, size + STATUS, body, title="Nine Men's Morris")


def _status(state: Any) -> str:
    if state.is_terminal():
        result = state.result
        return "draw" if result == rules.DRAW else f"{'WB'[result]} wins"
    who = "WB"[state.player]
    return f"{who} to {'remove a stone' if state.removing else 'move'} (turn {state.turn})"


def click(state: Any, selected: int | None, value: int) -> drawing.Click:
    """A click on a point places or removes a stone there; moving takes two clicks, the stone
    and then where it goes (a second click on the picked stone drops it)."""
    points = rules.NUM_POINTS
    if not 0 <= value < points:
        raise drawing.ClickError(f"points are 0 to {points - 1}")
    legal = [int(a) for a in state.legal_actions()]
    if value in legal and value < points:  # placing or removing
        return drawing.Click(value, None)
    sources = {(a - points) // points for a in legal if a >= points}
    if selected is not None:
        action = points + selected * points + value
        if action in legal:
            return drawing.Click(action, None)
        if value == selected:
            return drawing.Click(None, None)
    if value in sources:
        return drawing.Click(None, value)
    name = state.action_to_string(value).lstrip("x")
    raise drawing.ClickError(f"no move from or to {name} here")


def view_options(state: Any, selected: int | None, viewer: int, moves: Any) -> dict[str, Any]:
    return {"selected": selected}


def board_text(state: Any, viewer: int) -> str:
    """The board with its a-g / 1-7 labels, as moves are written."""
    rows = state.diagram().splitlines()
    lines = [f"{7 - r} {row}" for r, row in enumerate(rows)]
    lines.append("  " + " ".join("abcdefg"))
    lines.append(state.status())
    return "\n".join(lines)
