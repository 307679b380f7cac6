"""The 16 symmetries of the Nine Men's Morris board and a symmetry-invariant hash.

The board is three concentric squares joined at their side midpoints. Its symmetry group is
the 8 symmetries of the square (rotations and reflections) times the swap of the inner and
outer square (the middle square stays, the cross lines are reversed): 16 permutations of the
24 points that keep every mill a mill and every pair of neighbours neighbours.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.kernels import HASH_SIG, TERMINAL
from plies.games.nine_mens_morris.rules import (
    BOARD_HASH,
    COORDS,
    NUM_POINTS,
    POINTS,
    RESULT,
    TO_MOVE,
    Z_RESULT,
    ZOBRIST,
    history_key,
    position_key,
)

NUM_SYMMETRIES = 16


def _square_maps() -> list:
    """The 8 symmetries of the square as maps of offsets (dy, dx) from the centre."""
    return [
        lambda y, x: (y, x),
        lambda y, x: (x, -y),
        lambda y, x: (-y, -x),
        lambda y, x: (-x, y),
        lambda y, x: (y, -x),
        lambda y, x: (-y, x),
        lambda y, x: (x, y),
        lambda y, x: (-x, -y),
    ]


def _ring_swap(y: int, x: int) -> tuple[int, int]:
    """Swap the outer square (distance 3 from the centre) with the inner one (distance 1)."""
    ring = max(abs(y), abs(x))
    if ring == 2:
        return y, x
    factor = 3 if ring == 1 else 1
    divisor = 3 if ring == 3 else 1
    return y * factor // divisor, x * factor // divisor


def _build() -> np.ndarray:
    where = {(int(r) - 3, int(c) - 3): p for p, (r, c) in enumerate(COORDS)}
    perms = np.zeros((NUM_SYMMETRIES, NUM_POINTS), np.int64)
    k = 0
    for swap in (False, True):
        for square in _square_maps():
            for p, (r, c) in enumerate(COORDS):
                y, x = int(r) - 3, int(c) - 3
                if swap:
                    y, x = _ring_swap(y, x)
                perms[k, p] = where[square(y, x)]
            k += 1
    return perms


SYMMETRIES = _build()
"""SYMMETRIES[k, p]: the point that point p goes to under symmetry k (k = 0 is identity)."""

INVERSES = np.argsort(SYMMETRIES, axis=1)
"""INVERSES[k]: the inverse permutation of SYMMETRIES[k]."""

# SYM_ZOBRIST[k, p, c]: the key a stone of colour c on p adds to image k of the board
SYM_ZOBRIST = np.ascontiguousarray(ZOBRIST[SYMMETRIES])


def transform_points(points: np.ndarray, k: int) -> np.ndarray:
    """Image of a 24-point board (values per point) under symmetry k."""
    image = np.empty_like(points)
    image[SYMMETRIES[k]] = points
    return image


def transform_action(action: int, k: int) -> int:
    """Image of an action (placement/removal or move) under symmetry k."""
    actions, images = NUM_POINTS + NUM_POINTS * NUM_POINTS, len(SYMMETRIES)
    if not (0 <= action < actions and 0 <= k < images):  # numpy would wrap a negative index
        raise ValueError(f"actions are 0..{actions - 1} and symmetries 0..{images - 1}, got {action} and {k}")
    if action < NUM_POINTS:
        return int(SYMMETRIES[k, action])
    source, target = divmod(action - NUM_POINTS, NUM_POINTS)
    return NUM_POINTS + int(SYMMETRIES[k, source]) * NUM_POINTS + int(SYMMETRIES[k, target])


@njit(HASH_SIG, cache=True)
def canonical_hash(state):
    """The smallest position key over the 16 images of the board: equal for symmetric
    positions (the side to move, stones in hand, a pending removal and ``history_key`` are
    kept as they are; symmetric positions with a repetition threat may so get two keys,
    which costs sharing but never mixes different positions)."""
    images = np.zeros(NUM_SYMMETRIES, np.int64)
    for p in range(NUM_POINTS):
        colour = state[POINTS + p]
        if colour != 0:
            for k in range(NUM_SYMMETRIES):
                images[k] ^= SYM_ZOBRIST[k, p, colour]
    # position_key = board key ^ the rest; swap the identity board key for each image's
    rest = position_key(state) ^ state[BOARD_HASH] ^ history_key(state)
    if state[TO_MOVE] == TERMINAL:
        rest ^= Z_RESULT[state[RESULT]]
    best = images[0] ^ rest
    for k in range(1, NUM_SYMMETRIES):
        key = images[k] ^ rest
        if key < best:
            best = key
    return best
