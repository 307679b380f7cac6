"""Othello's network inputs (``Game.encode``) and its compiled network value
(``Game.net_value``, ``plies.games.value_kernels``).

130 inputs from the view of the side to move: one per square (a1..h8, the action numbering)
holding the mover's disc, one per square holding the opponent's, then each side's mobility
(its number of legal placements / 20), the one quantity every Othello evaluation weighs and a
board-only input leaves the network to rediscover.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.kernels import EVAL_SIG
from plies.games.othello import rules as _rules
from plies.games.othello.rules import DISCS, moves_of, popcount
from plies.games.value_kernels import FEATURES_SIG, encode_rows, mlp_value, value_for_seat

INPUTS = 130


@njit(FEATURES_SIG, cache=True)
def features_into(state, out):
    mover = state[0] if state[0] == 0 or state[0] == 1 else 0
    own, other = state[DISCS + mover], state[DISCS + 1 - mover]
    for square in range(64):
        out[square] = float((own >> square) & 1)
        out[64 + square] = float((other >> square) & 1)
    out[128] = popcount(moves_of(own, other)) / 20.0
    out[129] = popcount(moves_of(other, own)) / 20.0


def encode(states: np.ndarray) -> np.ndarray:
    """B x 130 float32 inputs of a batch of state arrays."""
    return encode_rows(states, INPUTS, features_into, _rules.STATE_SIZE)


@njit(EVAL_SIG, cache=True)
def net_value(state, seat, params):
    x = np.empty(INPUTS, np.float64)
    features_into(state, x)
    return value_for_seat(state[0], seat, mlp_value(x, params))
