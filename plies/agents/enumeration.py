"""Exhaustive game-tree statistics for small games, compiled once for every game.

``count_outcomes`` counts the finished games below a position by who won (every move
sequence counted once, as the Tic-Tac-Toe write-up's recursion does); ``random_play_outcomes``
gives the probability of each result when every player picks uniformly among legal moves.
Results are indexed by seat, with the last entry for draws (no single best return).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from plies.games.kernels import KERNELS_T, STATE_T, TERMINAL, compiled, kernel_refs
from plies.games.state import GameState

_I2 = types.int64[:, ::1]
_F1 = types.float64[::1]


@njit(cache=True)
def _record(ret, weight, out):
    n = ret.shape[0]
    best = ret[0]
    winner = 0
    ties = 1
    for seat in range(1, n):
        if ret[seat] > best:
            best = ret[seat]
            winner = seat
            ties = 1
        elif ret[seat] == best:
            ties += 1
    out[winner if ties == 1 else n] += weight


@njit(types.void(STATE_T, KERNELS_T, _I2, _I2, _F1, types.int64, types.float64, types.boolean, _F1), cache=True)
def _walk(state, kernels, legal_bufs, undo_rows, ret, ply, weight, uniform, out):
    legal, apply, undo, returns = kernels.legal_actions, kernels.apply_action, kernels.undo_action, kernels.returns
    if state[0] == TERMINAL:
        returns(state, ret)
        _record(ret, weight, out)
        return
    if ply >= legal_bufs.shape[0]:  # deeper than the game's length bound: out[-1] says so
        out[out.shape[0] - 1] = 1.0
        return
    n = legal(state, legal_bufs[ply])
    child_weight = weight / n if uniform else weight
    for i in range(n):
        action = legal_bufs[ply, i]
        apply(state, action, undo_rows[ply])
        _walk(state, kernels, legal_bufs, undo_rows, ret, ply + 1, child_weight, uniform, out)
        undo(state, action, undo_rows[ply])
        if out[out.shape[0] - 1] != 0.0:  # too deep somewhere below: no count can be right
            return


def _run(state: GameState, uniform: bool) -> np.ndarray:
    if state.game.has_chance:
        raise ValueError(f"{state.game.id} has chance nodes; exhaustive enumeration needs a game without")
    depth = state.max_game_length + 1
    legal_bufs = np.zeros((depth, state.max_legal_actions), np.int64)
    undo_rows = np.zeros((depth, max(1, state.game.undo_size)), np.int64)
    out = np.zeros(state.num_players + 2, np.float64)  # the seats' wins, draws, a flag: too deep
    ret = np.zeros(state.num_players, np.float64)
    compiled(_walk)(state.array.copy(), kernel_refs(state.game.kernels), legal_bufs, undo_rows, ret, 0, 1.0, uniform, out)
    if out[-1]:
        raise ValueError(f"{state.game.id} here has games longer than its bound of {depth - 1} plies "
                         "(no length limit set?): they cannot all be enumerated")
    return out[:-1]


def count_outcomes(state: GameState) -> np.ndarray:
    """Number of finished games below ``state`` won by each seat, then the number of draws."""
    return _run(state, uniform=False).astype(np.int64)


def random_play_outcomes(state: GameState) -> np.ndarray:
    """Probability that each seat wins, then of a draw, when all players move uniformly at random."""
    return _run(state, uniform=True)
