"""Connect Four as SVG: the blue frame, red (X) and yellow (O) stones, column numbers 1..width
under the board, the last stone ringed and a winning four marked."""

from __future__ import annotations

from typing import Any

from plies.games import drawing

CELL = 60
LABELS = 22
STATUS = 24
COLORS = {0: "#f5f5f5", 1: "#d21e1e", 2: "#f0c814"}


def svg(state: Any, last: int | None = None, **_: Any) -> str:
    """``last``: the column of the last move to mark (default: the state's own last action)."""
    if last is None and state.history:
        last = state.history[-1]
    grid = state.grid()
    height, width = grid.shape
    board_w, board_h = width * CELL, height * CELL
    body = [f'<rect x="0" y="0" width="{board_w}" height="{board_h}" fill="#1438aa" rx="8"/>']
    last_row = None
    if last is not None and 0 <= last < width:
        filled = [r for r in range(height) if grid[r, last]]
        last_row = filled[0] if filled else None
    four = _winning_four(grid)
    for r in range(height):
        for c in range(width):
            cx, cy = (c + 0.5) * CELL, (r + 0.5) * CELL
            body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.4}" fill="{COLORS[int(grid[r, c])]}"/>')
            if (r, c) in four:
                body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.15}" fill="#222"/>')
            elif r == last_row and c == last:
                body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.3}" fill="none" stroke="#fff" '
                            'stroke-width="3"/>')
    for c in range(width):
        body.append(drawing.text((c + 0.5) * CELL, board_h + LABELS / 2, c + 1, 14, weight="bold"))
        # one transparent target per column, over the board and its number
        body.append(f'<rect x="{c * CELL}" y="0" width="{CELL}" height="{board_h + LABELS}" fill="#000" '
                    f'fill-opacity="0" class="col" data-col="{c}"/>')
    status = state.render_text().splitlines()[-1].strip("()")
    body.append(drawing.text(board_w / 2, board_h + LABELS + STATUS / 2, status, 13))
    return drawing.document(board_w, board_h + LABELS + STATUS, body, title="Connect Four")


def _winning_four(grid: Any) -> set[tuple[int, int]]:
    height, width = grid.shape
    cells: set[tuple[int, int]] = set()
    for r in range(height):
        for c in range(width):
            v = grid[r, c]
            if not v:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                line = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < height and 0 <= cc < width and grid[rr, cc] == v for rr, cc in line):
                    cells.update(line)
    return cells


def click(state: Any, selected: int | None, value: int) -> drawing.Click:
    """A click on a column (``data-col``, numbered from 0) drops a stone there."""
    if value not in {int(a) for a in state.legal_actions()}:
        raise drawing.ClickError(f"column {value + 1} cannot be played")
    return drawing.Click(value)
