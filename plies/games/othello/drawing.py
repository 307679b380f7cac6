"""Othello as SVG: the green board with a-h / 1-8 labels (OpenSpiel's names: rank 1 at the
top), black and white discs, the squares the player to move may take dotted, the last move
marked, and a "pass" bar (``data-cell="64"``, the pass action) when passing is the only move."""

from __future__ import annotations

from typing import Any

from plies.games import drawing
from plies.games.othello import rules

CELL = 50
MARGIN = 22
STATUS = 26
FILES = "abcdefgh"


def svg(state: Any, last: int | None = None, **_: Any) -> str:
    """``last``: the square of the last move to mark (default: the state's own last action)."""
    if last is None and state.history:
        last = state.history[-1]
    grid = state.grid()
    legal = set() if state.is_terminal() else {int(a) for a in state.legal_actions() if a < 64}
    board = 8 * CELL
    body = [f'<rect x="{MARGIN}" y="{MARGIN}" width="{board}" height="{board}" fill="#1f7a3c"/>']
    for k in range(9):
        offset = MARGIN + k * CELL
        body.append(f'<path d="M{offset},{MARGIN}V{MARGIN + board}M{MARGIN},{offset}H{MARGIN + board}" '
                    'stroke="#0c3d1c" stroke-width="2"/>')
    for k in range(8):
        body.append(drawing.text(MARGIN + (k + 0.5) * CELL, MARGIN / 2, FILES[k], 12, weight="bold"))
        body.append(drawing.text(MARGIN / 2, MARGIN + (k + 0.5) * CELL, k + 1, 12, weight="bold"))
    for square in range(64):
        row, col = divmod(square, 8)
        cx, cy = MARGIN + (col + 0.5) * CELL, MARGIN + (row + 0.5) * CELL
        value = int(grid[row, col])
        if value:
            fill, edge = ("#111", "#000") if value == 1 else ("#f4f4f4", "#999")
            body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.4}" fill="{fill}" stroke="{edge}"/>')
            if square == last:
                mark = "#f4f4f4" if value == 1 else "#111"
                body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.1}" fill="{mark}"/>')
        elif square in legal:
            body.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.08}" fill="#0c3d1c"/>')
        body.append(f'<rect x="{cx - CELL / 2}" y="{cy - CELL / 2}" width="{CELL}" height="{CELL}" '
                    f'fill="#000" fill-opacity="0" class="cell" data-cell="{square}"/>')
    status = state.render_text().splitlines()[-1].strip("()")
    size = board + 2 * MARGIN
    must_pass = not state.is_terminal() and state.legal_actions() == (rules.PASS,)
    if must_pass:
        body.append(f'<rect x="{MARGIN}" y="{size}" width="{board}" height="{STATUS - 2}" rx="4" fill="#f0c814" '
                    f'class="cell" data-cell="{rules.PASS}"/>')
        status += ": click here"
    body.append(drawing.text(size / 2, size + STATUS / 2, status, 13,
                             extra=' pointer-events="none"' if must_pass else ""))
    return drawing.document(size, size + STATUS, body, title="Othello")


def click(state: Any, selected: int | None, value: int) -> drawing.Click:
    """A click on a square plays there; on the pass bar (drawn only then) passes."""
    legal = [int(a) for a in state.legal_actions()]
    if value in legal:
        return drawing.Click(value)
    if legal == [rules.PASS]:
        raise drawing.ClickError("no square can be taken: pass (click the bar under the board)")
    name = f"{FILES[value % 8]}{value // 8 + 1}" if 0 <= value < 64 else str(value)
    raise drawing.ClickError(f"{name} cannot be played here (a disc must outflank the opponent's)")
