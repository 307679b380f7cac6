"""The board's symmetry group and the symmetry-invariant hash."""

import itertools

import numpy as np

from plies.classroom.nine_mens_morris import findSymmetries
from plies.games.nine_mens_morris import NineMensMorrisState as S
from plies.games.nine_mens_morris import rules
from plies.games.nine_mens_morris.symmetry import SYMMETRIES, canonical_hash, transform_action

ADJACENT = {
    (0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8), (9, 10), (10, 11), (12, 13), (13, 14),
    (15, 16), (16, 17), (18, 19), (19, 20), (21, 22), (22, 23), (0, 9), (9, 21), (3, 10),
    (10, 18), (6, 11), (11, 15), (1, 4), (4, 7), (16, 19), (19, 22), (8, 12), (12, 17),
    (5, 13), (13, 20), (2, 14), (14, 23),
}
"""The 32 lines between neighbouring points, read off the board picture."""


def test_sixteen_distinct_maps_preserving_mills_and_adjacency():
    assert SYMMETRIES.shape == (16, 24)
    assert len({tuple(p) for p in SYMMETRIES}) == 16
    mills = {frozenset(m) for m in rules.MILLS.tolist()}
    edges = {frozenset(e) for e in ADJACENT}
    assert len(mills) == 16 and len(edges) == 32
    for perm in SYMMETRIES:
        assert sorted(perm) == list(range(24))
        assert {frozenset(perm[list(m)]) for m in mills} == mills
        assert {frozenset(perm[list(e)]) for e in edges} == edges


def test_the_maps_form_a_group():
    perms = {tuple(p) for p in SYMMETRIES}
    assert tuple(range(24)) in perms
    for a, b in itertools.product(SYMMETRIES, repeat=2):
        assert tuple(a[b]) in perms


def test_the_neighbour_table_matches_the_board():
    table = {frozenset((p, int(q))) for p in range(24) for q in rules.NEIGHBOURS[p] if q >= 0}
    assert table == {frozenset(e) for e in ADJACENT}


def _adjacency_automorphisms() -> set[tuple[int, ...]]:
    """Every permutation of the 24 points keeping neighbours neighbours (backtracking)."""
    near = {p: set() for p in range(24)}
    for a, b in ADJACENT:
        near[a].add(b)
        near[b].add(a)
    order = [0]
    for p in order:  # breadth-first, so each point after the first has a placed neighbour
        order += sorted(q for q in near[p] if q not in order)
    found: set[tuple[int, ...]] = set()

    def extend(image: dict[int, int]) -> None:
        if len(image) == 24:
            found.add(tuple(image[p] for p in range(24)))
            return
        p = order[len(image)]
        used = set(image.values())
        for q in range(24):
            if q in used or len(near[q]) != len(near[p]):
                continue
            if all((image[r] in near[q]) == (r in near[p]) for r in image):
                image[p] = q
                extend(image)
                del image[p]

    extend({})
    return found


def test_no_other_permutation_preserves_the_board():
    assert _adjacency_automorphisms() == {tuple(int(x) for x in p) for p in SYMMETRIES}


def test_symmetric_positions_share_the_canonical_hash():
    rng = np.random.default_rng(4)
    state = S()
    seen = set()
    for _ in range(60):
        if state.is_terminal():
            break
        images = findSymmetries(state)
        keys = {int(canonical_hash(image.array)) for image in images}
        assert keys == {state.canonical_hash()}
        assert len({image.hash() for image in images}) == len(images)
        seen.add(state.canonical_hash())
        # legal actions map onto legal actions
        for k in (1, 9):
            image = state.array.copy()
            image[rules.POINTS : rules.POINTS + 24][SYMMETRIES[k]] = state.points
            image[rules.BOARD_HASH] = rules.board_key(image)
            moved = sorted(transform_action(int(a), k) for a in state.legal_actions())
            assert moved == sorted(S(image).legal_actions())
        state.apply(int(rng.choice(state.legal_actions())))
    assert len(seen) > 50  # different positions, different keys


def test_symmetric_image_count():
    assert len(findSymmetries(S())) == 1
    one_stone = S.from_string("W" + "." * 23)
    assert len(findSymmetries(one_stone)) == 8  # the 8 outer and inner corners
