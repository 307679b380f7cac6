"""Dice Wars as SVG: the map's hexagonal cells ("odd-r" rows, see maps.py) filled with the
owner's colour, dark borders between areas, each area's number and dice count, a legend with
every seat's areas, largest region, dice and reserve, the seat to move, and the last battle
drawn as an arrow. Maps given only as adjacency are drawn as a ring of discs."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from plies.games import drawing

RADIUS = 9.0  # hexagon radius (centre to corner)
HEX_W = math.sqrt(3) * RADIUS
LEGEND_ROW = 20
GRAPH_SIZE = 420
COLORS = ("#d64541", "#4183d7", "#2ea043", "#f0b428", "#9650be", "#f0781e", "#3cb4b4", "#e664aa")
# neighbour of each hexagon edge k (between corners k and k+1; corner k at 60k - 30 degrees,
# y down): east, south-east, south-west, west, north-west, north-east
_EDGE_STEPS = {0: ((0, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0)),
               1: ((0, 1), (1, 1), (1, 0), (0, -1), (-1, 0), (-1, 1))}
_CORNERS = [(RADIUS * math.cos(math.radians(60 * k - 30)), RADIUS * math.sin(math.radians(60 * k - 30)))
            for k in range(6)]


def svg(state: Any, last_battle: tuple[int, int] | None = None, selected: int | None = None,
        targets: tuple[int, ...] = (), **_: Any) -> str:
    """``last_battle``: (source, target) of the last attack, drawn as an arrow (the state does
    not keep it once the battle is resolved); ``selected``: an area picked as the source of an
    attack; ``targets``: areas it may attack (outlined)."""
    cells = state.cells
    if cells is None:
        centres, body, width, height = _graph(state)
    else:
        centres, body, width, height = _hexes(state, cells)
    dice = state.dice
    for a in list(targets) + ([selected] if selected is not None else []):
        if a is None or a not in centres:
            continue
        x, y = centres[a]
        colour = "#ffffff" if a == selected else "#111111"
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="19" fill="none" stroke="{colour}" stroke-width="3" '
                    'stroke-dasharray="4 2" pointer-events="none"/>')
    if last_battle is not None and last_battle[0] in centres and last_battle[1] in centres:
        (x0, y0), (x1, y1) = centres[last_battle[0]], centres[last_battle[1]]
        body.append('<defs><marker id="head" markerWidth="6" markerHeight="6" refX="4" refY="3" orient="auto">'
                    '<path d="M0,0L6,3L0,6Z" fill="#111"/></marker></defs>')
        line = f'x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" pointer-events="none"'
        body.append(f'<line {line} stroke="#fff" stroke-width="7"/>')  # keeps the arrow visible on any colour
        body.append(f'<line {line} stroke="#111" stroke-width="3" marker-end="url(#head)" class="last-battle"/>')
    for a, (x, y) in centres.items():
        body.append(f'<rect x="{x - 11:.1f}" y="{y - 13:.1f}" width="22" height="26" rx="4" fill="#fff" '
                    f'stroke="#202020" stroke-width="1" pointer-events="none"/>')
        body.append(drawing.text(x, y - 6, a, 8, "#555", extra=' pointer-events="none"'))
        body.append(drawing.text(x, y + 5, int(dice[a]), 13, weight="bold",
                                 extra=f' pointer-events="none" class="dice" data-dice-of="{a}"'))
    legend, legend_h = _legend(state, height, width)
    body.extend(legend)
    return drawing.document(width, height + legend_h, body, background="#e1ebf5", title="Dice Wars")


def _hexes(state: Any, cells: np.ndarray) -> tuple[dict[int, tuple[float, float]], list[str], float, float]:
    outlines, borders, centres, width, height = _map_shapes(cells.tobytes(), cells.shape, cells.dtype.str, state.num_areas)
    owners = state.owners
    body = []
    for a, outline in enumerate(outlines):
        colour = COLORS[int(owners[a]) % len(COLORS)]
        body.append(f'<path d="{outline}" fill="{colour}" stroke="{colour}" stroke-width="0.6" '
                    f'class="area" data-area="{a}"/>')
    body.append(borders)
    return dict(centres), body, width, height


@functools.lru_cache(maxsize=64)
def _map_shapes(cells_bytes: bytes, shape: tuple[int, int], dtype: str, num_areas: int) -> tuple[
        tuple[str, ...], str, tuple[tuple[int, tuple[float, float]], ...], float, float]:
    """The drawing of a map that does not change during a game (the areas' outlines, the borders
    between areas, a centre per area), computed once per map: only the colours change."""
    cells = np.frombuffer(cells_bytes, dtype=dtype).reshape(shape)
    rows, cols = shape

    def centre(r: int, c: int) -> tuple[float, float]:
        return HEX_W * (c + 0.5 * (r % 2)) + HEX_W / 2 + 4, 1.5 * RADIUS * r + RADIUS + 4

    outlines = []
    borders = []
    sums: dict[int, list[tuple[float, float]]] = {}
    for a in range(num_areas):
        polygons = []
        for r, c in zip(*np.nonzero(cells == a)):
            x, y = centre(int(r), int(c))
            sums.setdefault(a, []).append((x, y))
            polygons.append("M" + "L".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in _CORNERS) + "Z")
            for k, (dr, dc) in enumerate(_EDGE_STEPS[int(r) % 2]):
                rr, cc = int(r) + dr, int(c) + dc
                inside = 0 <= rr < rows and 0 <= cc < cols
                if not inside or cells[rr, cc] != a:
                    (ax, ay), (bx, by) = _CORNERS[k], _CORNERS[(k + 1) % 6]
                    borders.append(f"M{x + ax:.1f},{y + ay:.1f}L{x + bx:.1f},{y + by:.1f}")
        outlines.append("".join(polygons))
    border_path = (f'<path d="{"".join(borders)}" stroke="#202020" stroke-width="2" fill="none" '
                   'stroke-linecap="round" pointer-events="none"/>')
    centres = []
    for a, points in sums.items():
        mx, my = np.mean(points, axis=0)
        centres.append((a, min(points, key=lambda p: (p[0] - mx) ** 2 + (p[1] - my) ** 2)))
    width = HEX_W * (cols + 0.5) + 8
    height = 1.5 * RADIUS * (rows - 1) + 2 * RADIUS + 8
    return tuple(outlines), border_path, tuple(centres), width, height


def _graph(state: Any) -> tuple[dict[int, tuple[float, float]], list[str], float, float]:
    n = state.num_areas
    size = GRAPH_SIZE
    centres = {}
    for a in range(n):
        t = 2 * math.pi * a / n
        centres[a] = (size / 2 + 0.4 * size * math.cos(t), size / 2 + 0.4 * size * math.sin(t))
    body = []
    for a, neighbours in enumerate(state.adjacency):
        for b in neighbours:
            if b > a:
                (x0, y0), (x1, y1) = centres[a], centres[b]
                body.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="#5a5a5a" '
                            'stroke-width="2"/>')
    disc = max(16.0, min(30.0, math.pi * 0.4 * size / max(n, 1) * 0.8))
    for a, (x, y) in centres.items():
        colour = COLORS[int(state.owners[a]) % len(COLORS)]
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{disc:.1f}" fill="{colour}" stroke="#202020" '
                    f'stroke-width="2" class="area" data-area="{a}"/>')
    return centres, body, float(size), float(size)


def _legend(state: Any, top: float, width: float) -> tuple[list[str], float]:
    out = []
    reserves = state.reserves
    mover = state.turn_player
    for seat in range(state.num_players):
        y = top + 6 + seat * LEGEND_ROW + LEGEND_ROW / 2
        alive = state.area_count(seat) > 0
        out.append(f'<rect x="10" y="{y - 7}" width="14" height="14" fill="{COLORS[seat % len(COLORS)]}" '
                   'stroke="#222"/>')
        line = (f"seat {seat}: {state.area_count(seat)} areas, largest region {state.largest_region(seat)}, "
                f"{state.total_dice(seat)} dice, reserve {int(reserves[seat])}")
        if not alive:
            line = f"seat {seat}: out"
        weight = "bold" if seat == mover and not state.is_terminal() else "normal"
        if weight == "bold":
            line = "\u25b6 " + line + " (to move)"
        out.append(drawing.text(30, y, line, 12, anchor="start", weight=weight))
    y = top + 6 + state.num_players * LEGEND_ROW + 12
    out.append(drawing.text(width / 2, y, _status(state), 13, weight="bold"))
    return out, state.num_players * LEGEND_ROW + 30


def _status(state: Any) -> str:
    if state.is_terminal():
        return "cancelled" if state.cancelled else f"seat {state.winner} wins"
    text = f"seat {state.turn_player}: {state.phase}"
    return text + f"; {state.attacks_this_turn} attacks this turn; {state.battles} battles"


# ----- a person's view: clicks, the picked area's targets, the last battle ----------------------
def click(state: Any, selected: int | None, value: int) -> drawing.Click:
    """Two clicks: one's own area, then the neighbour it attacks (a second click on the picked
    area drops it)."""
    n = state.num_areas
    if not 0 <= value < n:
        raise drawing.ClickError(f"areas are 0 to {n - 1}")
    legal = {int(a) for a in state.legal_actions()}
    sources = {a // n for a in legal if a < n * n}
    if selected is not None:
        if selected * n + value in legal:
            return drawing.Click(selected * n + value, None)
        if value == selected:
            return drawing.Click(None, None)
    if value in sources:
        return drawing.Click(None, value)
    if selected is not None:
        raise drawing.ClickError(f"area {selected} cannot attack area {value}")
    raise drawing.ClickError(f"area {value} cannot attack (it must be yours, with 2 or more dice, next to an enemy)")


def last_battle(state: Any, moves: Any) -> tuple[int, int] | None:
    """(source, target) of the last attack among the players' ``moves`` (ends of turn skipped)."""
    n = state.num_areas
    attack = next((int(a) for a in reversed(moves) if int(a) < n * n), None)
    return None if attack is None else divmod(attack, n)


def view_options(state: Any, selected: int | None, viewer: int, moves: Any) -> dict[str, Any]:
    """The picked area's targets outlined, the last battle's arrow."""
    n = state.num_areas
    legal = [int(a) for a in state.legal_actions()] if selected is not None and state.current_player >= 0 else []
    targets = tuple(a % n for a in legal if a < n * n and a // n == selected)
    return {"selected": selected, "targets": targets, "last_battle": last_battle(state, moves)}
