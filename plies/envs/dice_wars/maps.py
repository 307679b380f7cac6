"""Dice Wars maps: areas grown on a hexagonal grid, or given as an adjacency list.

The grid uses "odd-r" offset coordinates: odd rows are shifted half a cell to the right, so a
cell (r, c) touches two cells in its own row and two in each neighbouring row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_ROWS = 28
DEFAULT_COLS = 32
DEFAULT_AREAS = 29
MIN_AREA_SIZE = 12
MAX_AREA_SIZE = 18

_EVEN_ROW = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, -1), (1, 0))
_ODD_ROW = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, 0), (1, 1))


def hex_neighbours(row: int, col: int, rows: int, cols: int) -> list[tuple[int, int]]:
    """The in-grid cells touching (row, col)."""
    steps = _ODD_ROW if row % 2 else _EVEN_ROW
    out = []
    for dr, dc in steps:
        r, c = row + dr, col + dc
        if 0 <= r < rows and 0 <= c < cols:
            out.append((r, c))
    return out


@dataclass(frozen=True)
class DiceWarsMap:
    """Areas and who touches whom. ``cells`` is None for maps given only as adjacency."""

    adjacency: tuple[tuple[int, ...], ...]
    cells: np.ndarray | None = None  # rows x cols, area id or -1 for water

    @property
    def num_areas(self) -> int:
        return len(self.adjacency)

    def area_sizes(self) -> np.ndarray:
        if self.cells is None:
            return np.ones(self.num_areas, np.int64)
        return np.bincount(self.cells[self.cells >= 0].ravel(), minlength=self.num_areas)


def _neighbour_table(rows: int, cols: int) -> list[list[int]]:
    return [
        [r * cols + c for r, c in hex_neighbours(i // cols, i % cols, rows, cols)]
        for i in range(rows * cols)
    ]


def generate_map(
    rng: np.random.Generator,
    num_areas: int = DEFAULT_AREAS,
    rows: int = DEFAULT_ROWS,
    cols: int = DEFAULT_COLS,
    min_size: int = MIN_AREA_SIZE,
    max_size: int = MAX_AREA_SIZE,
    max_attempts: int = 200,
) -> DiceWarsMap:
    """Grow ``num_areas`` areas of ``min_size``..``max_size`` cells on a ``rows`` x ``cols``
    hex grid. Each area starts on a random free cell touching the areas already placed (the
    first anywhere) and grows to a random target size by adding random free cells touching it.
    An area that gets stuck below ``min_size`` is dropped and tried again elsewhere. Single
    free cells enclosed on all sides are then given to a touching area that has room."""
    if num_areas < 2:
        raise ValueError(f"num_areas={num_areas}: a map needs at least 2 areas")
    if not 1 <= min_size <= max_size:
        raise ValueError(f"area sizes {min_size}..{max_size} are not a valid range")
    if num_areas * min_size > rows * cols:
        raise ValueError(
            f"{num_areas} areas of at least {min_size} cells do not fit on a {rows}x{cols} grid"
        )
    neighbours = _neighbour_table(rows, cols)
    for _ in range(max_attempts):
        cells = _grow_areas(rng, neighbours, rows * cols, num_areas, min_size, max_size)
        if cells is None:
            continue
        _fill_single_holes(cells, neighbours, num_areas, max_size)
        grid = cells.reshape(rows, cols)
        adjacency = adjacency_from_cells(grid)
        if is_connected(adjacency):
            return DiceWarsMap(adjacency, grid)
    raise RuntimeError(f"could not grow {num_areas} areas on a {rows}x{cols} grid")


def _grow_areas(
    rng: np.random.Generator,
    neighbours: list[list[int]],
    num_cells: int,
    num_areas: int,
    min_size: int,
    max_size: int,
) -> np.ndarray | None:
    cells = np.full(num_cells, -1, np.int64)
    border: dict[int, None] = {}  # free cells touching placed areas (ordered for determinism)
    for area in range(num_areas):
        for _ in range(50):
            if area == 0:
                start = int(rng.integers(num_cells))
            else:
                if not border:
                    return None
                keys = list(border)
                start = keys[int(rng.integers(len(keys)))]
            target = int(rng.integers(min_size, max_size + 1))
            grown = [start]
            cells[start] = area
            frontier: dict[int, None] = {n: None for n in neighbours[start] if cells[n] == -1}
            while len(grown) < target and frontier:
                keys = list(frontier)
                cell = keys[int(rng.integers(len(keys)))]
                del frontier[cell]
                cells[cell] = area
                grown.append(cell)
                for n in neighbours[cell]:
                    if cells[n] == -1:
                        frontier[n] = None
            if len(grown) >= min_size:
                for cell in grown:
                    border.pop(cell, None)
                    for n in neighbours[cell]:
                        if cells[n] == -1:
                            border[n] = None
                break
            cells[grown] = -1  # too small here: try another start
        else:
            return None
    return cells


def _fill_single_holes(
    cells: np.ndarray, neighbours: list[list[int]], num_areas: int, max_size: int
) -> None:
    sizes = np.bincount(cells[cells >= 0], minlength=num_areas)
    for cell in range(len(cells)):
        if cells[cell] != -1:
            continue
        around = [int(cells[n]) for n in neighbours[cell]]
        if any(a == -1 for a in around):
            continue
        roomy = sorted({a for a in around if sizes[a] < max_size}, key=lambda a: (sizes[a], a))
        if roomy:
            cells[cell] = roomy[0]
            sizes[roomy[0]] += 1


def adjacency_from_cells(grid: np.ndarray) -> tuple[tuple[int, ...], ...]:
    rows, cols = grid.shape
    num_areas = int(grid.max()) + 1
    touching: list[set[int]] = [set() for _ in range(num_areas)]
    for r in range(rows):
        for c in range(cols):
            a = grid[r, c]
            if a < 0:
                continue
            for rr, cc in hex_neighbours(r, c, rows, cols):
                b = grid[rr, cc]
                if b >= 0 and b != a:
                    touching[a].add(int(b))
    return tuple(tuple(sorted(s)) for s in touching)


def is_connected(adjacency: Sequence[Sequence[int]]) -> bool:
    if not adjacency:
        return False
    seen = {0}
    stack = [0]
    while stack:
        for b in adjacency[stack.pop()]:
            if b not in seen:
                seen.add(b)
                stack.append(b)
    return len(seen) == len(adjacency)


def map_from_adjacency(adjacency: Sequence[Sequence[int]] | dict[int, Sequence[int]]) -> DiceWarsMap:
    """Check and normalise a custom map: areas 0..n-1, each with the areas it touches.

    Accepts a list of neighbour lists or a dict {area: neighbours}. The relation is made
    symmetric (listing a border once is enough); self-loops and unknown areas are errors, and
    the map must be connected."""
    if isinstance(adjacency, dict):
        keys = sorted(adjacency)
        if keys != list(range(len(keys))):
            raise ValueError(f"adjacency dict keys must be the areas 0..n-1, got {keys}")
        adjacency = [adjacency[k] for k in keys]
    n = len(adjacency)
    if n < 2:
        raise ValueError(f"a map needs at least 2 areas, got {n}")
    touching: list[set[int]] = [set() for _ in range(n)]
    for a, neigh in enumerate(adjacency):
        for b in neigh:
            b = int(b)
            if not 0 <= b < n:
                raise ValueError(f"area {a} lists neighbour {b}; areas are 0 to {n - 1}")
            if b == a:
                raise ValueError(f"area {a} lists itself as a neighbour")
            touching[a].add(b)
            touching[b].add(a)
    result = tuple(tuple(sorted(s)) for s in touching)
    if not is_connected(result):
        raise ValueError("the map is not connected: every area must be reachable from every other")
    return DiceWarsMap(result, None)
