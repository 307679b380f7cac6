"""Tic-Tac-Toe as SVG: a 3 x 3 grid, X in red and O in blue, empty cells show their action number."""

from __future__ import annotations

from typing import Any

from plies.games import drawing

CELL = 60
STATUS = 26


def svg(state: Any, last: int | None = None, **_: Any) -> str:
    """``last``: the cell to mark as the last move (default: the state's own last action)."""
    if last is None and state.history:
        last = state.history[-1]
    size = 3 * CELL
    body = []
    cells = state.cells
    for i in range(9):
        row, col = divmod(i, 3)
        x, y = col * CELL, row * CELL
        fill = "#fff6c8" if i == last else "#ffffff"
        body.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" '
                    f'class="cell" data-cell="{i}"/>')
        cx, cy, r = x + CELL / 2, y + CELL / 2, CELL * 0.3
        if cells[i] == 1:
            body.append(f'<path d="M{cx - r},{cy - r}L{cx + r},{cy + r}M{cx - r},{cy + r}L{cx + r},{cy - r}" '
                        'stroke="#c81e1e" stroke-width="6" stroke-linecap="round" pointer-events="none"/>')
        elif cells[i] == 2:
            body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.3}" fill="none" stroke="#1e1ec8" '
                        'stroke-width="6" pointer-events="none"/>')
        else:
            body.append(drawing.text(x + 9, y + 10, i, 10, "#999", extra=' pointer-events="none"'))
    for k in (1, 2):
        body.append(f'<path d="M{k * CELL},0V{size}M0,{k * CELL}H{size}" stroke="#000" stroke-width="3"/>')
    body.append(drawing.text(size / 2, size + STATUS / 2, _status(state), 13))
    return drawing.document(size, size + STATUS, body, title="Tic-Tac-Toe")


def _status(state: Any) -> str:
    return state.render_text().splitlines()[-1].strip("()")


def click(state: Any, selected: int | None, value: int) -> drawing.Click:
    """A click on a cell plays it."""
    if value not in {int(a) for a in state.legal_actions()}:
        raise drawing.ClickError(f"cell {value} cannot be played")
    return drawing.Click(value)
