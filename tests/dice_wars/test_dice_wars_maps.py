"""Map generation: sizes, symmetry, connectivity, agreement with the cells, determinism, and
the course generator against the framework's own boards and its map statistics."""

import json
import random
from pathlib import Path

import numpy as np
import pytest

from plies.games.dice_wars.maps import (
    _CourseBoard,
    course_map,
    generate_map,
    generate_plies_map,
    is_connected,
    map_from_adjacency,
    map_statistics,
)
from plies.games.dice_wars.state import DiceWarsState

BOARDS = Path(__file__).parent.parent / "data" / "dice_wars" / "course_boards.json"


def _touching_cells(rows, cols):
    """Hex neighbours computed independently, through cube coordinates of odd-r offsets."""
    def cube(r, c):
        x = c - (r - (r & 1)) // 2
        return x, r, -x - r

    pairs = []
    for r in range(rows):
        for c in range(cols):
            for rr in range(max(0, r - 1), min(rows, r + 2)):
                for cc in range(max(0, c - 2), min(cols, c + 3)):
                    a, b = cube(r, c), cube(rr, cc)
                    if max(abs(a[i] - b[i]) for i in range(3)) == 1:
                        pairs.append(((r, c), (rr, cc)))
    return pairs


@pytest.mark.parametrize("generator", ["course", "plies"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_default_map_properties(seed, generator):
    m = generate_map(np.random.default_rng(seed), generator=generator)
    assert m.cells.shape == (28, 32)
    assert m.num_areas == 29
    sizes = m.area_sizes()
    # the course's areas grow to 12-18 cells, then notch filling adds a few
    assert sizes.min() >= 12 and sizes.max() <= (18 if generator == "plies" else 30)
    for a, neigh in enumerate(m.adjacency):
        assert a not in neigh
        for b in neigh:
            assert a in m.adjacency[b]
    assert is_connected(m.adjacency)


@pytest.mark.parametrize("generator", ["course", "plies"])
def test_adjacency_matches_touching_cells(generator):
    m = generate_map(np.random.default_rng(7), generator=generator)
    expected = [set() for _ in range(m.num_areas)]
    for (r, c), (rr, cc) in _touching_cells(28, 32):
        a, b = m.cells[r, c], m.cells[rr, cc]
        if a >= 0 and b >= 0 and a != b:
            expected[a].add(int(b))
    assert [set(n) for n in m.adjacency] == expected


def test_plies_areas_are_contiguous_and_single_holes_filled_where_possible():
    m = generate_plies_map(np.random.default_rng(11))
    pairs = _touching_cells(28, 32)
    graph = {}
    for (p, q) in pairs:
        graph.setdefault(p, []).append(q)
    sizes = m.area_sizes()
    for a in range(m.num_areas):
        cells = {tuple(x) for x in np.argwhere(m.cells == a)}
        start = next(iter(cells))
        seen, stack = {start}, [start]
        while stack:
            for q in graph[stack.pop()]:
                if q in cells and q not in seen:
                    seen.add(q)
                    stack.append(q)
        assert seen == cells, f"area {a} is not one piece"
    for (r, c) in np.argwhere(m.cells == -1):
        around = [m.cells[q] for q in graph[(r, c)]]
        if all(x >= 0 for x in around):  # an enclosed single hole left as water
            assert all(sizes[x] >= 18 for x in around)


@pytest.mark.parametrize("generator", ["course", "plies"])
def test_seeded_determinism_and_variety(generator):
    a = generate_map(np.random.default_rng(5), generator=generator)
    b = generate_map(np.random.default_rng(5), generator=generator)
    c = generate_map(np.random.default_rng(6), generator=generator)
    assert np.array_equal(a.cells, b.cells) and a.adjacency == b.adjacency
    assert not np.array_equal(a.cells, c.cells)


@pytest.mark.parametrize("generator", ["course", "plies"])
def test_options_for_areas_and_grid(generator):
    m = generate_map(np.random.default_rng(0), num_areas=8, rows=14, cols=16, generator=generator)
    assert m.cells.shape == (14, 16) and m.num_areas == 8
    assert is_connected(m.adjacency)
    with pytest.raises(ValueError, match="do not fit"):
        generate_map(np.random.default_rng(0), num_areas=40, rows=10, cols=10, generator=generator)
    # room for the cells but not for growing them: refused before any try (each try of 256
    # areas takes a tenth of a second, and every one failed)
    with pytest.raises(ValueError, match="growing them needs 1.5 times their cells"):
        generate_map(np.random.default_rng(0), num_areas=256, rows=64, cols=64, generator=generator)


def test_custom_map_from_adjacency():
    m = map_from_adjacency([[1], [2], []])  # listing a border once is enough
    assert m.adjacency == ((1,), (0, 2), (1,))
    assert map_from_adjacency({0: [1], 1: [0]}).adjacency == ((1,), (0,))
    with pytest.raises(ValueError, match="not connected"):
        map_from_adjacency([[1], [0], [3], [2]])
    with pytest.raises(ValueError, match="itself"):
        map_from_adjacency([[0, 1], [0]])
    with pytest.raises(ValueError, match="areas are 0 to 1"):
        map_from_adjacency([[5], [0]])


@pytest.mark.parametrize("seed", range(8))
def test_course_map_is_the_frameworks_board(seed):
    rows = json.loads(BOARDS.read_text())["seeds"][str(seed)]
    expected = np.array([[-1 if ch == "." else int(ch, 36) for ch in row] for row in rows])
    m = course_map(seed)
    assert np.array_equal(m.cells, expected)


@pytest.mark.parametrize("seed", [0, 1])
def test_course_start_rule(seed):
    """Every area after the first starts off the outer ring, on a cell that touched no used
    cell but had a neighbour that did (a one-cell gap to the areas placed before it)."""
    board = _CourseBoard(random.Random(seed), 28, 32)
    board.add_area()
    for _ in range(28):
        used_before = {i for i, st in enumerate(board.state) if st == 2}
        board.add_area()
        new = board.areas[-1]
        if len({i for i, st in enumerate(board.state) if st == 2} - used_before) != len(new):
            continue  # the area was dropped and restarted once: its first try leaked cells
        start = new[0]
        r, c = divmod(start, 32)
        assert 0 < r < 27 and 0 < c < 31
        around = [n for n in board.neighbours[start] if n >= 0]
        assert not any(n in used_before for n in around)
        assert any(m in used_before for n in around for m in board.neighbours[n] if m >= 0)


def _means(generator, count=300):
    rows = [map_statistics(generate_map(np.random.default_rng(s), generator=generator)) for s in range(count)]
    return {k: (np.mean([r[k] for r in rows]), np.std([r[k] for r in rows], ddof=1) / np.sqrt(count))
            for k in rows[0]}


# the framework's own generator over its board seeds 0-299 (docs/dice_wars.md)
FRAMEWORK = {"mean_degree": 3.236, "borders": 46.93, "diameter": 9.04, "dead_ends": 2.537,
             "max_size": 19.11}


def test_course_maps_have_the_frameworks_shape():
    """300 seeded maps: each mean within 4 standard errors of the difference of two samples of
    300 (the framework's figure is a sample of 300 boards too) of the framework's figure, and
    plies's old generator far outside on degree and borders."""
    course = _means("course")
    for key, target in FRAMEWORK.items():
        mean, se = course[key]
        assert abs(mean - target) < 4 * np.sqrt(2) * se, (key, mean, target, se)
    plies = _means("plies", 100)
    assert plies["mean_degree"][0] - FRAMEWORK["mean_degree"] > 0.5
    assert plies["borders"][0] - FRAMEWORK["borders"] > 8


def test_map_generator_option_is_validated():
    s = DiceWarsState.initial(np.random.default_rng(1), map_generator="plies")
    assert np.array_equal(s.cells, generate_map(np.random.default_rng(1), generator="plies").cells)
    s = DiceWarsState.initial(np.random.default_rng(1))
    assert np.array_equal(s.cells, generate_map(np.random.default_rng(1), generator="course").cells)
    with pytest.raises(ValueError, match="generators are course, plies"):
        DiceWarsState.initial(np.random.default_rng(1), map_generator="hex")
    with pytest.raises(ValueError, match="generators are"):
        DiceWarsState.initial(np.random.default_rng(1), map_generator=3)
    with pytest.raises(ValueError, match="not both"):
        DiceWarsState.initial(np.random.default_rng(1), adjacency=[[1], [0]], map_generator="plies")


@pytest.mark.parametrize("generator", ["course", "plies"])
def test_games_and_batches_run_on_both_generators(generator):
    """Dealing, battles and the batched env on each generator's maps: one area count per
    batch, the adjacency padded to the widest map's degree."""
    import plies.envs.vector as pv
    from plies.games.state import sample_chance

    rng = np.random.default_rng(2)
    state = DiceWarsState.initial(rng, num_players=4, map_generator=generator)
    assert state.num_areas == 29 and sorted(np.bincount(state.owners)) == [7, 7, 7, 8]
    widest = max(len(n) for n in state.adjacency)
    assert state.max_legal_actions >= 29 * widest + 1 > 0
    for _ in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    batch = pv.make("dice_wars", 6, seed=0, maps=6, map_generator=generator)
    for _ in range(30):
        batch.step(batch.sample_actions())
    assert batch.states.shape[0] == 6
