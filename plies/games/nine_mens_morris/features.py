"""Nine Men's Morris's network inputs (``Game.encode``) and its compiled network value
(``Game.net_value``, ``plies.games.value_kernels``).

60 inputs from the view of the side to move: one per point (OpenSpiel's numbering) holding
the mover's stone, one per point holding the opponent's, then stones in hand (mover,
opponent) / 9, stones on the board (mover, opponent) / 9, 1 while the mover is removing a
stone after closing a mill, the six differences the `weighted` heuristic weighs (stones,
mills, blocked stones, open mills, double mills, mobility; mover minus opponent, / 10), and
the turns since the last removal over the draw limit (the no-mill or turn cap rule, else 200).
A network over the raw points alone stayed below the heuristic at equal depth; these inputs
let it start from what the heuristic knows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.kernels import EVAL_SIG
from plies.games.nine_mens_morris import rules as _rules
from plies.games.nine_mens_morris.rules import (
    HAND,
    NUM_POINTS,
    ON_BOARD,
    OPT_NO_MILL,
    OPT_TURN_CAP,
    POINTS,
    QUIET,
    REMOVING,
    features,
)
from plies.games.value_kernels import FEATURES_SIG, encode_rows, mlp_value, value_for_seat

INPUTS = 2 * NUM_POINTS + 12


@njit(FEATURES_SIG, cache=True)
def features_into(state, out):
    mover = state[0] if state[0] == 0 or state[0] == 1 else 0
    for p in range(NUM_POINTS):
        stone = state[POINTS + p]
        out[p] = 1.0 if stone == mover + 1 else 0.0
        out[NUM_POINTS + p] = 1.0 if stone == 2 - mover else 0.0
    k = 2 * NUM_POINTS
    out[k] = state[HAND + mover] / 9.0
    out[k + 1] = state[HAND + 1 - mover] / 9.0
    out[k + 2] = state[ON_BOARD + mover] / 9.0
    out[k + 3] = state[ON_BOARD + 1 - mover] / 9.0
    out[k + 4] = 1.0 if state[REMOVING] else 0.0
    differences = np.empty(6, np.float64)
    features(state, mover, differences)
    for i in range(6):
        out[k + 5 + i] = differences[i] / 10.0
    limit = state[OPT_NO_MILL] if state[OPT_NO_MILL] else state[OPT_TURN_CAP]
    out[k + 11] = min(1.0, state[QUIET] / (limit if limit else 200))


def encode(states: np.ndarray) -> np.ndarray:
    """B x 60 float32 inputs of a batch of state arrays."""
    return encode_rows(states, INPUTS, features_into, _rules.SCHEMA.offset("history"))


@njit(EVAL_SIG, cache=True)
def net_value(state, seat, params):
    x = np.empty(INPUTS, np.float64)
    features_into(state, x)
    return value_for_seat(state[0], seat, mlp_value(x, params))
