"""Backgammon as SVG, seen from one seat: that seat's home board at the lower right, points
numbered 1-24 in its own numbering, the bar, borne-off checkers, the dice (used ones faded),
pip counts and the side to move."""

from __future__ import annotations

import re
from typing import Any

from plies.games import drawing
from plies.games.backgammon import rules

POINT_W = 40
POINT_H = 170
BAR_W = 44
TRAY_W = 50
EDGE = 26  # room for the point numbers above and below
INFO = 64
CHECKER = 17
COLORS = ("#f5f2e6", "#2b2b2b")  # X, O
TEXT_ON = ("#222", "#eee")
NAMES = "XO"


def svg(state: Any, viewer: int | None = None, selected: int | None = None,
        targets: tuple[int, ...] = (), **_: Any) -> str:
    """``viewer``: the seat whose numbering and side the board is drawn from (default X).
    ``selected``: a point (viewer's numbering, 25 = bar) whose checker is picked; ``targets``:
    the points it can go to (0 = off)."""
    viewer = 0 if viewer is None else int(viewer)
    other = 1 - viewer
    mine, theirs = state.checkers(viewer), state.checkers(other)
    half = 6 * POINT_W
    width = 2 * half + BAR_W + TRAY_W
    board_h = 2 * POINT_H + 60
    height = EDGE * 2 + board_h + INFO
    top = EDGE
    body = [f'<rect x="0" y="{top}" width="{2 * half + BAR_W}" height="{board_h}" fill="#d9b98a"/>',
            f'<rect x="{half}" y="{top}" width="{BAR_W}" height="{board_h}" fill="#7a5230"/>',
            f'<rect x="{2 * half + BAR_W}" y="{top}" width="{TRAY_W}" height="{board_h}" fill="#5d3d22"/>']
    for point in range(1, 25):
        x, upper = _point_x(point), point > 12
        tip = top + POINT_H if upper else top + board_h - POINT_H
        base = top if upper else top + board_h
        shade = "#a0442c" if point % 2 else "#e8dcc0"
        body.append(f'<path d="M{x},{base}L{x + POINT_W},{base}L{x + POINT_W / 2},{tip}Z" fill="{shade}" '
                    'stroke="#6b4a2a" stroke-width="0.7"/>')
        label_y = top - EDGE / 2 if upper else top + board_h + EDGE / 2
        colour = "#1e6ad2" if point in targets else "#333"
        body.append(drawing.text(x + POINT_W / 2, label_y, point, 13, colour, weight="bold"))
        seat, count = (viewer, mine[point]) if mine[point] else (other, theirs[25 - point])
        step = 2 * CHECKER if upper else -2 * CHECKER
        start = base + (CHECKER if upper else -CHECKER)
        body.extend(_stack(x + POINT_W / 2, start, step, int(count), seat, limit=5))
        if point == selected:
            body.append(f'<circle cx="{x + POINT_W / 2}" cy="{start}" r="{CHECKER + 3}" fill="none" '
                        'stroke="#1e90ff" stroke-width="4"/>')
        if point in targets:
            body.append(f'<path d="M{x + 3},{base}L{x + POINT_W - 3},{base}L{x + POINT_W / 2},{tip}Z" '
                        'fill="#1e90ff" fill-opacity="0.25" stroke="#1e90ff" stroke-width="2"/>')
        y0 = top if upper else top + board_h - POINT_H - 20
        body.append(f'<rect x="{x}" y="{y0}" width="{POINT_W}" height="{POINT_H + 20}" fill="#000" '
                    f'fill-opacity="0" class="point" data-point="{point}"/>')
    # the bar: the viewer's checkers wait on the upper half (they re-enter into the far quarter)
    bar_x = half + BAR_W / 2
    middle = top + board_h / 2
    body.extend(_stack(bar_x, middle - 40, -2 * CHECKER, int(mine[rules.BAR]), viewer, limit=3))
    body.extend(_stack(bar_x, middle + 40, 2 * CHECKER, int(theirs[rules.BAR]), other, limit=3))
    if selected == rules.BAR:
        body.append(f'<circle cx="{bar_x}" cy="{middle - 40}" r="{CHECKER + 3}" fill="none" stroke="#1e90ff" '
                    'stroke-width="4"/>')
    body.append(f'<rect x="{half}" y="{top}" width="{BAR_W}" height="{board_h / 2}" fill="#000" '
                f'fill-opacity="0" class="point" data-point="{rules.BAR}"/>')
    # borne off: the viewer's below (next to its home board), the opponent's above
    tray_x = 2 * half + BAR_W
    for seat, count, upper in ((viewer, int(mine[rules.OFF]), False), (other, int(theirs[rules.OFF]), True)):
        for k in range(count):
            y = top + 6 + k * 9 if upper else top + board_h - 14 - k * 9
            body.append(f'<rect x="{tray_x + 8}" y="{y}" width="{TRAY_W - 16}" height="7" rx="2" '
                        f'fill="{COLORS[seat]}" stroke="#111" stroke-width="0.8"/>')
        if count:
            y = top + board_h / 2 + (-24 if upper else 24)
            body.append(drawing.text(tray_x + TRAY_W / 2, y, f"{count} off", 11, "#fff"))
    off_fill = "#1e90ff" if 0 in targets else "#000"
    off_opacity = "0.3" if 0 in targets else "0"
    body.append(f'<rect x="{tray_x}" y="{top + board_h / 2}" width="{TRAY_W}" height="{board_h / 2}" '
                f'fill="{off_fill}" fill-opacity="{off_opacity}" class="point" data-point="0"/>')
    body.extend(_dice(state, half / 2 + (half + BAR_W if state.current_player == viewer else 0), middle))
    body.extend(_info(state, viewer, top + board_h + EDGE, width))
    return drawing.document(width, height, body, background="#f4efe6", title="Backgammon")


def _point_x(point: int) -> float:
    """Left edge of a point in the viewer's numbering: 1-6 lower right ... 19-24 upper right."""
    if point <= 12:
        k = 12 - point  # 0 at the lower left (point 12)
    else:
        k = point - 13  # 0 at the upper left (point 13)
    return k * POINT_W + (BAR_W if k >= 6 else 0)


def _stack(x: float, start: float, step: float, count: int, seat: int, limit: int) -> list[str]:
    out = []
    for k in range(min(count, limit)):
        out.append(f'<circle cx="{x}" cy="{start + k * step}" r="{CHECKER}" fill="{COLORS[seat]}" '
                   'stroke="#111" stroke-width="1.2"/>')
    if count > limit:
        out.append(drawing.text(x, start + (limit - 1) * step, count, 13, TEXT_ON[seat], weight="bold"))
    return out


_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _dice(state: Any, cx: float, cy: float) -> list[str]:
    if state.current_player < 0:
        return []
    hi, lo = state.dice
    left = state.dice_left
    faces = [hi] * 4 if hi == lo else [hi, lo]
    out = []
    size = 30
    x0 = cx - (len(faces) * (size + 8) - 8) / 2
    for k, face in enumerate(faces):
        used = left.count(face) < faces[: k + 1].count(face) if hi != lo else k >= len(left)
        x = x0 + k * (size + 8)
        opacity = "0.35" if used else "1"
        out.append(f'<g opacity="{opacity}" class="die"><rect x="{x}" y="{cy - size / 2}" width="{size}" '
                   f'height="{size}" rx="5" fill="#fffdf5" stroke="#222" stroke-width="1.5"/>')
        for dx, dy in _PIPS[face]:
            out.append(f'<circle cx="{x + size / 2 + dx * 8}" cy="{cy + dy * 8}" r="3" fill="#222"/>')
        out.append("</g>")
    return out


def pip_count(state: Any, seat: int) -> int:
    counts = state.checkers(seat)
    return int(sum(p * int(counts[p]) for p in range(1, 25)) + 25 * int(counts[rules.BAR]))


def _info(state: Any, viewer: int, y: float, width: float) -> list[str]:
    out = []
    for k, seat in enumerate((viewer, 1 - viewer)):
        x = 14 + k * 200
        out.append(f'<circle cx="{x}" cy="{y + 12}" r="9" fill="{COLORS[seat]}" stroke="#111"/>')
        mark = " (bottom)" if seat == viewer else ""
        out.append(drawing.text(x + 16, y + 12, f"{NAMES[seat]}{mark}: {pip_count(state, seat)} pips", 12,
                                anchor="start"))
    status = state._status_text()
    if state.current_player >= 0:
        status = status.replace(" left", "; left")
    out.append(drawing.text(width / 2, y + 40, status, 14, weight="bold"))
    return out


# ----- a person's view: clicks, the picked checker's targets, moves and the board in the viewer's numbering
def moves_from(legal: list[int], source: int) -> dict[int, int]:
    """Destination (0 = off) -> action, for the checker on ``source`` (25 = bar), in the mover's
    numbering; the exact die first when several bear the checker off."""
    out: dict[int, int] = {}
    for action in sorted(legal, key=lambda a: a % 6):
        start, die = action // 6 + 1, action % 6 + 1
        if start == source:
            out.setdefault(max(0, start - die), action)
    return out


def click(state: Any, selected: int | None, value: int) -> drawing.Click:
    """Two clicks, in the mover's numbering: the checker's point (25 = bar), then where it goes
    (0 = off); a second click on the picked point drops it."""
    legal = [int(a) for a in state.legal_actions()]
    sources = {a // 6 + 1 for a in legal}
    if selected is not None:
        moves = moves_from(legal, selected)
        if value in moves:
            return drawing.Click(moves[value], None)
        if value == selected:
            return drawing.Click(None, None)
    if value in sources:
        return drawing.Click(None, value)
    if selected is not None:
        raise drawing.ClickError(f"the checker on {_point(selected)} cannot move to {_point(value)}")
    raise drawing.ClickError(
        f"no checker of yours can move from {_point(value)}"
        + (f"; you can move from {', '.join(_point(s) for s in sorted(sources, reverse=True))}" if sources else ""))


def _point(value: int) -> str:
    return "the bar" if value == 25 else ("off" if value == 0 else f"point {value}")


def view_options(state: Any, selected: int | None, viewer: int, moves: Any) -> dict[str, Any]:
    """Drawn from ``viewer``'s side, with the picked checker's destinations."""
    legal = [int(a) for a in state.legal_actions()] if state.current_player >= 0 else []
    targets = tuple(moves_from(legal, selected)) if selected is not None else ()
    return {"viewer": viewer, "selected": selected, "targets": targets}


def move_text(state: Any, action: int, viewer: int | None) -> str:
    """The move in ``viewer``'s numbering: the mover's point n is the other side's 25-n, so a
    person reads every move in one numbering."""
    text = state.action_to_string(int(action))
    mover = state.current_player
    if viewer is not None and 0 <= mover != viewer:
        text = re.sub(r"\d+", lambda m: str(25 - int(m.group())), text)
    return text


def board_text(state: Any, viewer: int) -> str:
    """The board as text numbered from ``viewer``'s side."""
    mine, theirs = state.checkers(viewer), state.checkers(1 - viewer)

    def cell(point: int) -> str:
        if mine[point]:
            return f"{NAMES[viewer]}{mine[point]}"
        if theirs[25 - point]:
            return f"{NAMES[1 - viewer]}{theirs[25 - point]}"
        return " ."

    top = " ".join(f"{p:>3}" for p in range(13, 25))
    bottom = " ".join(f"{p:>3}" for p in range(12, 0, -1))
    pips = [sum(p * int(c[p]) for p in range(1, 25)) + 25 * int(c[25]) for c in (mine, theirs)]
    me, you = NAMES[viewer], NAMES[1 - viewer]
    return "\n".join([
        top,
        " ".join(f"{cell(p):>3}" for p in range(13, 25)),
        f"bar {me} {mine[25]} {you} {theirs[25]}   off {me} {mine[0]} {you} {theirs[0]}   "
        f"pips {me} {pips[0]} {you} {pips[1]}",
        " ".join(f"{cell(p):>3}" for p in range(12, 0, -1)),
        bottom,
        f"({state._status_text()}; points numbered from {me}'s side)",
    ])
