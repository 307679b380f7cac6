"""Map generation: sizes, symmetry, connectivity, agreement with the cells, determinism."""

import numpy as np
import pytest

from plies.envs.dice_wars.maps import generate_map, is_connected, map_from_adjacency


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


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_default_map_properties(seed):
    m = generate_map(np.random.default_rng(seed))
    assert m.cells.shape == (28, 32)
    assert m.num_areas == 29
    sizes = m.area_sizes()
    assert sizes.min() >= 12 and sizes.max() <= 18
    for a, neigh in enumerate(m.adjacency):
        assert a not in neigh
        for b in neigh:
            assert a in m.adjacency[b]
    assert is_connected(m.adjacency)


def test_adjacency_matches_touching_cells():
    m = generate_map(np.random.default_rng(7))
    expected = [set() for _ in range(m.num_areas)]
    for (r, c), (rr, cc) in _touching_cells(28, 32):
        a, b = m.cells[r, c], m.cells[rr, cc]
        if a >= 0 and b >= 0 and a != b:
            expected[a].add(int(b))
    assert [set(n) for n in m.adjacency] == expected


def test_areas_are_contiguous_and_single_holes_filled_where_possible():
    m = generate_map(np.random.default_rng(11))
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


def test_seeded_determinism_and_variety():
    a = generate_map(np.random.default_rng(5))
    b = generate_map(np.random.default_rng(5))
    c = generate_map(np.random.default_rng(6))
    assert np.array_equal(a.cells, b.cells) and a.adjacency == b.adjacency
    assert not np.array_equal(a.cells, c.cells)


def test_options_for_areas_and_grid():
    m = generate_map(np.random.default_rng(0), num_areas=8, rows=12, cols=14)
    assert m.cells.shape == (12, 14) and m.num_areas == 8
    assert is_connected(m.adjacency)
    with pytest.raises(ValueError, match="do not fit"):
        generate_map(np.random.default_rng(0), num_areas=40, rows=10, cols=10)


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
