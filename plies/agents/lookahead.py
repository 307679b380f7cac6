"""The N-ply lookahead of the Connect Four write-up, for any two-player game.

Scores are from the point of view of the seat the search plays for: 100 a forced win within
the horizon, 0 a forced loss, 50 unknown (or a draw), -1 an illegal action. The opponent's
best reply counts as ``100 - its score``. Unlike minimax with a heuristic, nothing is
evaluated at the horizon: the write-up's player only sees wins and losses.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from plies.agents.base import BaseAgent, Range
from plies.games.kernels import KERNELS_T, STATE_T, TERMINAL, compiled, kernel_refs
from plies.games.state import GameState

WIN, UNKNOWN, LOSS, ILLEGAL = 100.0, 50.0, 0.0, -1.0
TIEBREAKS = ("LEFT", "RIGHT", "RANDOM")

_BUFS_T = types.int64[:, ::1]


@njit(types.float64(STATE_T, types.int64, types.int64, KERNELS_T, _BUFS_T, _BUFS_T, types.float64[::1]), cache=True)
def _best_score(state, mover, depth, kernels, legal_bufs, undo_rows, ret):
    """The best score ``mover`` (to move in ``state``) can reach within ``depth`` plies."""
    legal, apply, undo, returns = kernels.legal_actions, kernels.apply_action, kernels.undo_action, kernels.returns
    n = legal(state, legal_bufs[depth])
    if n == 0:
        return ILLEGAL
    if depth == 0:
        return UNKNOWN
    best = ILLEGAL
    for i in range(n):
        action = legal_bufs[depth, i]
        apply(state, action, undo_rows[depth])
        nxt = state[0]
        if nxt == TERMINAL:
            returns(state, ret)
            value = WIN if ret[mover] > 0 else (LOSS if ret[mover] < 0 else UNKNOWN)
        elif nxt == mover:
            value = _best_score(state, mover, depth - 1, kernels, legal_bufs, undo_rows, ret)
        else:
            value = WIN - _best_score(state, nxt, depth - 1, kernels, legal_bufs, undo_rows, ret)
        undo(state, action, undo_rows[depth])
        if value > best:
            best = value
            if best == WIN:
                break
    return best


@njit(
    types.void(STATE_T, types.int64, types.int64, KERNELS_T, _BUFS_T, _BUFS_T, types.float64[::1], types.float64[::1]),
    cache=True,
)
def _scores_kernel(state, seat, depth, kernels, legal_bufs, undo_rows, ret, out):
    legal, apply, undo, returns = kernels.legal_actions, kernels.apply_action, kernels.undo_action, kernels.returns
    out[:] = ILLEGAL
    n = legal(state, legal_bufs[depth])
    for i in range(n):
        action = legal_bufs[depth, i]
        if depth == 0:
            out[action] = UNKNOWN
            continue
        apply(state, action, undo_rows[depth])
        nxt = state[0]
        if nxt == TERMINAL:
            returns(state, ret)
            value = WIN if ret[seat] > 0 else (LOSS if ret[seat] < 0 else UNKNOWN)
        elif nxt == seat:
            value = _best_score(state, seat, depth - 1, kernels, legal_bufs, undo_rows, ret)
        else:
            value = WIN - _best_score(state, nxt, depth - 1, kernels, legal_bufs, undo_rows, ret)
        undo(state, action, undo_rows[depth])
        out[action] = value


def scores_for(state: GameState, seat: int, depth: int) -> list[float]:
    """The write-up's ``scores_for``: one score per action for ``seat`` moving next.

    ``seat`` moves next even when the state says the other seat is to move, as the write-up's
    ``Player('O', ...).scores_for(board)`` does. At a finished game every action scores 100
    if ``seat`` won and 0 if it lost (the write-up's first two base cases).
    """
    if state.num_players != 2:
        raise ValueError("the lookahead player needs a two-player game")
    seat = state.seat_in_range(seat)
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    if state.game.has_chance:
        raise ValueError(f"the lookahead player cannot search {state.game.id}: it has chance nodes")
    if state.is_terminal():
        result = state.returns()[seat]
        return [WIN if result > 0 else LOSS if result < 0 else ILLEGAL] * state.num_actions
    array = state.array.copy()
    array[0] = seat
    size = state.max_legal_actions
    legal_bufs = np.zeros((depth + 1, size), np.int64)
    undo_rows = np.zeros((depth + 1, max(1, state.game.undo_size)), np.int64)
    out = np.zeros(state.num_actions, np.float64)
    ret = np.zeros(state.num_players, np.float64)
    compiled(_scores_kernel)(array, seat, depth, kernel_refs(state.game.kernels), legal_bufs, undo_rows, ret, out)
    return [float(v) for v in out]


def tiebreak_move(scores: list[float], tiebreak: str, rng: np.random.Generator) -> int:
    """The index of a highest score: leftmost, rightmost or a random one."""
    best = max(scores)
    candidates = [i for i, s in enumerate(scores) if s == best]
    if tiebreak == "LEFT":
        return candidates[0]
    if tiebreak == "RIGHT":
        return candidates[-1]
    if tiebreak == "RANDOM":
        return candidates[int(rng.integers(len(candidates)))]
    raise ValueError(f"unknown tiebreak {tiebreak!r}; choose one of {', '.join(TIEBREAKS)}")


class LookaheadAgent(BaseAgent):
    """The write-up's N-ply player: ``lookahead:depth=3,tiebreak=LEFT``."""

    spec_name = "lookahead"
    description = "the write-up's N-ply player: wins, blocks and forced lines within depth plies"
    requires = ("no_chance",)
    limits = {"depth": Range(0, 64, integer=True)}

    def __init__(
        self, *, depth: int = 3, tiebreak: str = "RANDOM", seed: int | None = None, name: str | None = None
    ) -> None:
        super().__init__(seed, name)
        tiebreak = tiebreak.upper()
        if tiebreak not in TIEBREAKS:
            raise ValueError(f"unknown tiebreak {tiebreak!r}; choose one of {', '.join(TIEBREAKS)}")
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        self.depth = depth
        self.tiebreak = tiebreak

    def act(self, state: GameState) -> int:
        scores = scores_for(state, state.current_player, self.depth)
        return tiebreak_move(scores, self.tiebreak, self.rng)
