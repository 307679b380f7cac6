"""Tic-Tac-Toe's network inputs (``Game.encode``) and its compiled network value
(``Game.net_value``, ``plies.games.value_kernels``).

18 inputs from the view of the side to move: for each of the 9 cells (row by row) 1 if it
holds the mover's mark, then 1 for each cell holding the opponent's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.kernels import EVAL_SIG
from plies.games.tictactoe import rules as _rules
from plies.games.tictactoe.rules import CELLS
from plies.games.value_kernels import FEATURES_SIG, encode_rows, mlp_value, value_for_seat

INPUTS = 18


@njit(FEATURES_SIG, cache=True)
def features_into(state, out):
    mover = state[0] if state[0] == 0 or state[0] == 1 else 0
    for c in range(9):
        mark = state[CELLS + c]
        out[c] = 1.0 if mark == mover + 1 else 0.0
        out[9 + c] = 1.0 if mark == 2 - mover else 0.0


def encode(states: np.ndarray) -> np.ndarray:
    """B x 18 float32 inputs of a batch of state arrays."""
    return encode_rows(states, INPUTS, features_into, _rules.STATE_SIZE)


@njit(EVAL_SIG, cache=True)
def net_value(state, seat, params):
    x = np.empty(INPUTS, np.float64)
    features_into(state, x)
    return value_for_seat(state[0], seat, mlp_value(x, params))
