"""Dice Wars maps: areas grown on a hexagonal grid, or given as an adjacency list.

The grid uses "odd-r" offset coordinates: odd rows are shifted half a cell to the right, so a
cell (r, c) touches two cells in its own row and two in each neighbouring row.

Two generators grow the areas (``MAP_GENERATORS``): ``"course"`` (the default) follows the
course framework's board generator rule for rule, and ``"plies"`` is plies's earlier, denser
generator. docs/dice_wars.md compares the maps they make.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from plies.games.kernels import action_index

DEFAULT_ROWS = 28
DEFAULT_COLS = 32
DEFAULT_AREAS = 29
MIN_AREA_SIZE = 12
GRID_SLACK = 1.5
"""A grid holds at least this many times the cells of its areas' smallest size: with less, the
growth leaves gaps no area can start in, and with many areas every try fails (measured: at 1.2
every try failed; at 1.33, 100 or 256 areas failed all their tries, 25 s of them for 256; from
1.6 on every seed of 6 to 256 areas succeeded; at 1.5 large maps take several tries; the
course's default has 2.5)."""
MAX_AREA_SIZE = 18
MAP_GENERATORS = ("course", "plies")
DEFAULT_MAP_GENERATOR = "course"

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
    generator: str = DEFAULT_MAP_GENERATOR,
    max_attempts: int = 200,
) -> DiceWarsMap:
    """A connected map of ``num_areas`` areas on a ``rows`` x ``cols`` hex grid, grown by
    ``generator``: ``"course"`` (the course framework's rules, ``course_cells``) or
    ``"plies"`` (``generate_plies_map``). A course board that is not connected (not seen in
    300 of the framework's own boards, but possible) is drawn again."""
    if generator not in MAP_GENERATORS:
        raise ValueError(f"map_generator={generator!r}: the generators are {', '.join(MAP_GENERATORS)}")
    if generator == "plies":
        return generate_plies_map(rng, num_areas, rows, cols, max_attempts=max_attempts)
    _check_course_grid(num_areas, rows, cols)
    for _ in range(max_attempts):
        try:
            grid = course_cells(rng, num_areas, rows, cols)
        except RuntimeError:  # the grid filled up before the last area found a start
            continue
        adjacency = adjacency_from_cells(grid)
        if len(adjacency) == num_areas and is_connected(adjacency):
            return DiceWarsMap(adjacency, grid)
    raise ValueError(f"could not grow {num_areas} connected areas on a {rows}x{cols} grid in {max_attempts} tries "
                     "(a larger grid or fewer areas)")


def generate_plies_map(
    rng: np.random.Generator,
    num_areas: int = DEFAULT_AREAS,
    rows: int = DEFAULT_ROWS,
    cols: int = DEFAULT_COLS,
    min_size: int = MIN_AREA_SIZE,
    max_size: int = MAX_AREA_SIZE,
    max_attempts: int = 200,
) -> DiceWarsMap:
    """plies's earlier generator (``map_generator="plies"``). Grow ``num_areas`` areas of ``min_size``..``max_size`` cells on a ``rows`` x ``cols``
    hex grid. Each area starts on a random free cell touching the areas already placed (the
    first anywhere) and grows to a random target size by adding random free cells touching it.
    An area that gets stuck below ``min_size`` is dropped and tried again elsewhere. Single
    free cells enclosed on all sides are then given to a touching area that has room."""
    if num_areas < 2:
        raise ValueError(f"num_areas={num_areas}: a map needs at least 2 areas")
    if not 1 <= min_size <= max_size:
        raise ValueError(f"area sizes {min_size}..{max_size} are not a valid range")
    if GRID_SLACK * num_areas * min_size > rows * cols:
        raise ValueError(
            f"{num_areas} areas of at least {min_size} cells do not fit on a {rows}x{cols} grid "
            f"(growing them needs {GRID_SLACK} times their cells: at least {math.ceil(GRID_SLACK * num_areas * min_size)})"
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
    raise ValueError(f"could not grow {num_areas} areas on a {rows}x{cols} grid in {max_attempts} tries "
                     "(a larger grid or fewer areas)")


# ----- the course framework's generator --------------------------------------------------
# The six neighbours in the order the framework's hex library lists them (east, then round
# through the next row down, west and the row up); the order decides which notch cells the
# filling takes. Cells off the grid are -1: the framework shuffles all six.
_COURSE_EVEN_ROW = ((0, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0))
_COURSE_ODD_ROW = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, 0), (-1, 1))
_FREE, _NEAR, _USED = 0, 1, 2  # free; free but touching a used cell; used


def _course_neighbour_table(rows: int, cols: int) -> list[tuple[int, ...]]:
    table = []
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        steps = _COURSE_ODD_ROW if r % 2 else _COURSE_EVEN_ROW
        table.append(tuple(
            (r + dr) * cols + c + dc if 0 <= r + dr < rows and 0 <= c + dc < cols else -1
            for dr, dc in steps
        ))
    return table


class _CourseBoard:
    """One run of the framework's generator, drawing from ``rnd`` in the framework's order so
    that a ``random.Random`` seeded like the framework's server gives the framework's board.

    Rules: the first area starts on a uniformly random cell; every later one on a free cell
    off the outer ring that touches no used cell but has a neighbour that does (a one-cell
    gap), tried in a shuffled order of the inner cells. An area draws a size of 12-18 cells,
    first fills the ring round its start cell, then grows by a random free neighbour of a
    random cell of its own that still has one. An area that runs out of room is dropped
    (its cells stay used, as water) and started again elsewhere. When an area has its size,
    free cells touching it with at most 2 neighbours outside it (off-grid counts) are added,
    at most one per cell of the area, new cells included."""

    def __init__(self, rnd: random.Random, rows: int, cols: int) -> None:
        self.rnd = rnd
        self.rows, self.cols = rows, cols
        self.neighbours = _course_neighbour_table(rows, cols)
        self.state = [_FREE] * (rows * cols)
        # inner cells column by column, as the framework lists them; shuffled in place
        self.inner = [r * cols + c for c in range(1, cols - 1) for r in range(1, rows - 1)]
        self.areas: list[list[int]] = []
        self.current = -1  # the cell the area grows from (kept while it is the start cell)

    def _use(self, cell: int) -> None:
        self.state[cell] = _USED
        for n in self.neighbours[cell]:
            if n >= 0 and self.state[n] == _FREE:
                self.state[n] = _NEAR

    def _random_cell(self) -> int:
        row = self.rnd.randint(0, self.rows - 1)
        while True:  # the framework draws doubled x coordinates and keeps those of the row's parity
            k = self.rnd.randint(0, 2 * self.cols - 2)
            if k % 2 == 0:
                return row * self.cols + k // 2

    def _start(self) -> int | None:
        if not self.areas:
            return self._random_cell()
        self.rnd.shuffle(self.inner)
        for cell in self.inner:
            if self.state[cell] == _FREE and any(
                n >= 0 and self.state[n] == _NEAR for n in self.neighbours[cell]
            ):
                return cell
        return None

    def _grow(self, cells: list[int], growable: list[int]) -> bool:
        while True:
            if self.current != cells[0] or self.current not in growable:
                self.current = self.rnd.choice(growable)
            around = list(self.neighbours[self.current])
            self.rnd.shuffle(around)
            new = next((n for n in around if n >= 0 and self.state[n] != _USED), None)
            if new is not None:
                growable.append(new)
                self._use(new)
                cells.append(new)
                return True
            growable.remove(self.current)
            if not growable:
                return False

    def _fill_notches(self, cells: list[int]) -> None:
        own = set(cells)
        k = 0
        while k < len(cells):  # cells added here are visited too
            for n in self.neighbours[cells[k]]:
                if n < 0 or self.state[n] != _NEAR:
                    break  # the framework stops at the first neighbour that is not free
                outside = sum(1 for m in self.neighbours[n] if m < 0 or m not in own)
                if outside <= 2:
                    self._use(n)
                    cells.append(n)
                    own.add(n)
                    break
            k += 1

    def add_area(self) -> None:
        size = self.rnd.randint(MIN_AREA_SIZE, MAX_AREA_SIZE)
        cells: list[int] = []
        growable: list[int] = []
        count = 0
        while count < size:
            if not cells:
                start = self._start()
                if start is None:
                    raise RuntimeError(
                        f"no room to start area {len(self.areas)} on a {self.rows}x{self.cols} grid"
                    )
                self.current = start
                growable.append(start)
                self._use(start)
                cells.append(start)
                self.areas.append(cells)  # placed at once: the next start keeps a gap from it
                ok = True
            else:
                ok = self._grow(cells, growable)
            count += 1
            if not ok:  # out of room: dropped, its cells stay used
                self.areas.pop()
                cells, growable, count = [], [], 0
        self._fill_notches(cells)

    def grid(self) -> np.ndarray:
        out = np.full(self.rows * self.cols, -1, np.int64)
        for area, cells in enumerate(self.areas):
            out[cells] = area
        return out.reshape(self.rows, self.cols)


def _course_random(rng: np.random.Generator | random.Random) -> random.Random:
    if isinstance(rng, random.Random):
        return rng
    return random.Random(int(rng.integers(2**63)))


def _check_course_grid(num_areas: int, rows: int, cols: int) -> None:
    """A ValueError unless the course generator can grow ``num_areas`` areas on the grid (it
    would otherwise look for room that is not there, for ever)."""
    if num_areas < 2:
        raise ValueError(f"num_areas={num_areas}: a map needs at least 2 areas")
    if rows < 4 or cols < 4:
        raise ValueError(f"a {rows}x{cols} grid is too small: the course generator needs at least 4x4")
    if GRID_SLACK * num_areas * MIN_AREA_SIZE > rows * cols:
        raise ValueError(
            f"{num_areas} areas of at least {MIN_AREA_SIZE} cells do not fit on a {rows}x{cols} grid "
            f"(growing them needs {GRID_SLACK} times their cells: at least {math.ceil(GRID_SLACK * num_areas * MIN_AREA_SIZE)})"
        )


def course_cells(
    rng: np.random.Generator | random.Random,
    num_areas: int = DEFAULT_AREAS,
    rows: int = DEFAULT_ROWS,
    cols: int = DEFAULT_COLS,
) -> np.ndarray:
    """The framework generator's grid of area ids (-1 water). With ``random.Random(seed)``
    it is the board the framework's server makes for board seed ``seed`` (same draws)."""
    _check_course_grid(num_areas, rows, cols)
    rnd = _course_random(rng)
    board = _CourseBoard(rnd, rows, cols)
    rnd.randint(0, 0)  # the framework draws a number of extra areas, always 0 in the course
    for _ in range(num_areas):
        board.add_area()
    return board.grid()


def course_map(seed: int) -> DiceWarsMap:
    """The framework's board for board seed ``seed`` (its server's ``-b seed``), areas
    numbered from 0 instead of 1."""
    grid = course_cells(random.Random(seed))
    return DiceWarsMap(adjacency_from_cells(grid), grid)


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

    Accepts a list of neighbour lists or a dict {area: neighbours} (keys may be digit strings,
    as JSON writes them). The relation is made symmetric (listing a border once is enough);
    self-loops and unknown areas are errors, and the map must be connected. Every problem is a
    ValueError (the value came from a user: an option, a request, a file)."""
    def area_number(value: object, what: str) -> int:
        if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 4:
            return int(value)
        try:
            return action_index(value, what)
        except TypeError as err:
            raise ValueError(str(err)) from None

    if isinstance(adjacency, dict):
        keys = [area_number(k, "an adjacency dict key (an area)") for k in adjacency]
        if sorted(keys) != list(range(len(keys))):
            raise ValueError(f"adjacency dict keys must be the areas 0..n-1, got {sorted(keys)}")
        adjacency = [neighbours for _, neighbours in sorted(zip(keys, adjacency.values()), key=lambda kv: kv[0])]
    if isinstance(adjacency, (str, bytes)) or not isinstance(adjacency, (Sequence, np.ndarray)):
        raise ValueError(f"adjacency must be a list of neighbour lists or a dict, got {type(adjacency).__name__}")
    n = len(adjacency)
    if n < 2:
        raise ValueError(f"a map needs at least 2 areas, got {n}")
    touching: list[set[int]] = [set() for _ in range(n)]
    for a, neigh in enumerate(adjacency):
        # a string would be read character by character ('12' as areas 1 and 2)
        if isinstance(neigh, (str, bytes)) or not isinstance(neigh, (Sequence, np.ndarray, set, frozenset)):
            raise ValueError(f"area {a}'s neighbours must be a list of area numbers, got {neigh!r}")
        for b in neigh:
            if isinstance(b, str):  # only keys may be digit strings; a neighbour "1" is a mistake
                raise ValueError(f"a neighbour of area {a} must be an integer in 0..{n - 1}, got {b!r} (str)")
            b = area_number(b, f"a neighbour of area {a}")
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


def map_statistics(game_map: DiceWarsMap) -> dict[str, float]:
    """Shape of a map's area graph: mean degree, borders (touching pairs), diameter (most
    borders on a shortest path between two areas), dead ends (areas with one neighbour), and
    the smallest, mean and largest area in cells (when the map has cells)."""
    adjacency = game_map.adjacency
    degrees = [len(n) for n in adjacency]
    diameter = 0
    for start in range(len(adjacency)):
        dist = {start: 0}
        queue = [start]
        for area in queue:
            for b in adjacency[area]:
                if b not in dist:
                    dist[b] = dist[area] + 1
                    queue.append(b)
        diameter = max(diameter, max(dist.values()))
    sizes = game_map.area_sizes()
    return {
        "areas": float(len(adjacency)),
        "mean_degree": float(np.mean(degrees)),
        "max_degree": float(max(degrees)),
        "borders": sum(degrees) / 2,
        "diameter": float(diameter),
        "dead_ends": float(sum(1 for d in degrees if d == 1)),
        "min_size": float(sizes.min()),
        "mean_size": float(sizes.mean()),
        "max_size": float(sizes.max()),
    }
