"""Connect Four's network inputs (``Game.encode``) and its compiled network value
(``Game.net_value``, ``plies.games.value_kernels``).

``2 * width * height + 1`` inputs (85 on the standard 7 x 6 board) from the view of the side
to move: one per cell (column by column, bottom row first) that holds the mover's stone, the
same for the opponent's stones, and 1 if the mover is the first player (X), since who fills
the odd rows decides many endgames. A network file records its input count: one trained on
7 x 6 refuses another board size.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.connect_four import rules
from plies.games.connect_four.rules import HEIGHT, STONES, WIDTH
from plies.games.kernels import EVAL_SIG
from plies.games.value_kernels import FEATURES_SIG, encode_rows, mlp_value, value_for_seat

INPUTS = 2 * 7 * 6 + 1
"""Inputs on the standard board (``input_count`` for any other)."""


@njit(cache=True)
def input_count(width, height):
    return 2 * width * height + 1


@njit(FEATURES_SIG, cache=True)
def features_into(state, out):
    mover = state[0] if state[0] == 0 or state[0] == 1 else 0
    width, height = state[WIDTH], state[HEIGHT]
    own, other = state[STONES + mover], state[STONES + 1 - mover]
    cells = width * height
    k = 0
    for c in range(width):
        for r in range(height):
            bit = np.int64(1) << (c * (height + 1) + r)
            out[k] = 1.0 if own & bit else 0.0
            out[cells + k] = 1.0 if other & bit else 0.0
            k += 1
    out[2 * cells] = 1.0 if mover == 0 else 0.0


def encode(states: np.ndarray) -> np.ndarray:
    """B x inputs float32 inputs of a batch of state arrays (all of one board size)."""
    states = np.ascontiguousarray(states, np.int64)
    if states.ndim != 2 or states.shape[1] != rules.STATE_SIZE:
        raise ValueError(f"Connect Four states are rows of {rules.STATE_SIZE} entries, not shape {states.shape}")
    problem = rules.check_sizes(states)  # what the encoder indexes with; not the whole position
    if problem:
        raise ValueError(problem)
    if len(states) and ((states[:, WIDTH] != states[0, WIDTH]).any() or (states[:, HEIGHT] != states[0, HEIGHT]).any()):
        raise ValueError("a batch to encode holds one board size (its rows are one network's inputs)")
    inputs = input_count(states[0, WIDTH], states[0, HEIGHT]) if len(states) else INPUTS
    return encode_rows(states, inputs, features_into, rules.STATE_SIZE)


@njit(EVAL_SIG, cache=True)
def net_value(state, seat, params):
    x = np.empty(input_count(state[WIDTH], state[HEIGHT]), np.float64)
    features_into(state, x)
    return value_for_seat(state[0], seat, mlp_value(x, params))
