"""Tic-Tac-Toe rules as numba kernels.

The state array's layout is ``SCHEMA`` below; cells are numbered row by row (0 1 2 / 3 4 5 /
6 7 8).
"""

import numpy as np
from numba import njit

from plies.games import kernels
from plies.games.game import Slot, SlotSchema
from plies.games.kernels import (
    APPLY_SIG,
    CHANCE_SIG,
    EVAL_SIG,
    HASH_SIG,
    LEGAL_SIG,
    OBSERVE_SIG,
    RETURNS_SIG,
    STEP_SIG,
    TERMINAL,
    UNDO_SIG,
    Kernels,
    two_player_returns,
)

SCHEMA = SlotSchema(
    Slot("player", 1, "seat to move (0 = X, who starts; 1 = O), or `TERMINAL`"),
    Slot("cells", 9, "0 empty, 1 X, 2 O, row by row"),
    Slot("moves", 1, "marks on the board"),
    Slot("result", 1, "-1 while the game runs, then the winning seat, or -2 (`NO_WINNER`) for a draw"),
)
CELLS, MOVES, RESULT = SCHEMA.offsets("cells", "moves", "result")
STATE_SIZE = SCHEMA.size
NUM_ACTIONS = 9
ONGOING = kernels.ONGOING
DRAW = kernels.NO_WINNER  # the one result convention (plies.games.kernels)

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    np.int64,
)

# the other two cells of each line through a cell, padded with (-1, -1) to four lines: index
# -1 reads the player slot, which never equals a mark (player + 1), so no branch is needed
def _lines_through() -> np.ndarray:
    table = np.full((9, 4, 2), -1, np.int64)
    for cell in range(9):
        others = [[c for c in line if c != cell] for line in LINES.tolist() if cell in line]
        table[cell, : len(others)] = others
    return table


LINES_THROUGH = _lines_through()


def initial_array() -> np.ndarray:
    state = np.zeros(STATE_SIZE, np.int64)
    state[RESULT] = ONGOING
    return state


def check_rows(states: np.ndarray) -> str | None:
    """``Game.check_rows`` for Tic-Tac-Toe: marks, counts, the side to move and the result of
    a position the kernels can play from."""
    player, result, moves = states[:, 0], states[:, RESULT], states[:, MOVES]
    cells = states[:, CELLS : CELLS + 9]
    x, o = (cells == 1).sum(axis=1), (cells == 2).sum(axis=1)
    over = player == TERMINAL
    return kernels.first_row_problem("Tic-Tac-Toe", (
        (((cells < 0) | (cells > 2)).any(axis=1), "a cell is not 0 (empty), 1 (X) or 2 (O)"),
        ((x - o < 0) | (x - o > 1), "X moves first, so X has as many marks as O or one more"),
        (moves != x + o, "its move count is not the number of marks"),
        (~over & (player != x - o), "the player to move is not the one whose turn the marks say (or TERMINAL, -4)"),
        *kernels.two_player_result_checks(player, result),
    ))


@njit(cache=True)
def _winner(state):
    for k in range(8):
        a = state[1 + LINES[k, 0]]
        if a != 0 and a == state[1 + LINES[k, 1]] and a == state[1 + LINES[k, 2]]:
            return a - 1
    return -1


@njit(cache=True, inline="always")
def _completes_line(state, cell, mark):
    """Whether ``mark`` on ``cell`` completes a line (branch-free: random play mispredicts)."""
    won = False
    for k in range(4):
        won |= (state[1 + LINES_THROUGH[cell, k, 0]] == mark) & (
            state[1 + LINES_THROUGH[cell, k, 1]] == mark)
    return won


@njit(LEGAL_SIG, cache=True)
def legal_actions(state, out):
    if state[0] == TERMINAL:
        return 0
    n = 0
    for cell in range(9):  # branch-free: out has room for all nine cells
        out[n] = cell
        n += state[1 + cell] == 0
    return n


@njit(APPLY_SIG, cache=True)
def apply_action(state, action, undo_row):
    player = state[0]
    undo_row[0] = player
    state[1 + action] = player + 1
    state[MOVES] += 1
    if _completes_line(state, action, player + 1):
        state[RESULT] = player
        state[0] = TERMINAL
    elif state[MOVES] == 9:
        state[RESULT] = DRAW
        state[0] = TERMINAL
    else:
        state[0] = 1 - player


@njit(UNDO_SIG, cache=True)
def undo_action(state, action, undo_row):
    state[1 + action] = 0
    state[MOVES] -= 1
    state[RESULT] = ONGOING
    state[0] = undo_row[0]


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    two_player_returns(state[RESULT], out)


@njit(HASH_SIG, cache=True)
def hash_state(state):
    key = state[0] + 4
    for cell in range(9):
        key = key * 3 + state[1 + cell]
    return key


@njit(CHANCE_SIG, cache=True)
def chance_outcomes(state, outcomes, probs):
    return 0


@njit(EVAL_SIG, cache=True)
def evaluate_lines(state, seat, params):
    """Open lines: +1 per line holding only seat's marks (x2 for two), minus the same for the
    opponent; scaled into (-1, 1)."""
    mine = seat + 1
    total = 0.0
    for k in range(8):
        own = 0
        other = 0
        for j in range(3):
            c = state[1 + LINES[k, j]]
            if c == mine:
                own += 1
            elif c != 0:
                other += 1
        if other == 0 and own > 0:
            total += own * own
        elif own == 0 and other > 0:
            total -= other * other
    return total / 40.0


@njit(STEP_SIG, cache=True)
def apply_and_list(state, action, undo_row, out):
    apply_action(state, action, undo_row)
    return (legal_actions(state, out) << 4) | (state[0] + 4)


OBSERVATION_SIZE = 18


@njit(OBSERVE_SIG, cache=True)
def observe(state, seat, out):
    """(3, 3, 2) flattened: per cell, seat's mark, then the opponent's (as PettingZoo's)."""
    own = seat + 1
    for cell in range(9):
        mark = state[1 + cell]
        out[2 * cell] = np.float32(mark == own)
        out[2 * cell + 1] = np.float32((mark != 0) & (mark != own))


KERNELS = Kernels(legal_actions, apply_action, undo_action, returns, hash_state, chance_outcomes)

