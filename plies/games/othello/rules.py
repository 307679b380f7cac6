"""Othello (8x8) rules as numba kernels over bitboards, following OpenSpiel's ``othello``.

The state array's layout is ``SCHEMA`` below.

Bit ``8 * row + column`` is the square of action ``8 * row + column``: row 0 is the top row
(rank 1 in OpenSpiel's names such as ``d3``), column 0 the left (file ``a``). Bitboards are
unsigned 64-bit masks stored in int64 slots, so bit 63 (h8) is the sign bit: every right shift
below is masked afterwards, which clears the copies of the sign bit an arithmetic shift brings in.

Rules: black starts from d5/e4 black and d4/e5 white (OpenSpiel's set-up). A move places a disc
that brackets at least one line of opponent discs, and flips them. A player without such a move
must pass (action ``PASS`` = 64, then the only legal action). The game ends when neither
player can move; the player with more discs wins, equal counts draw.

The undo row holds the player who moved and the bitboard of the discs that move flipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

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

SIZE = 8
NUM_SQUARES = 64
PASS = 64
NUM_ACTIONS = 65
SCHEMA = SlotSchema(
    Slot("player", 1, "seat to move (0 = black `x`, who starts; 1 = white `o`), or `TERMINAL`"),
    Slot("discs", 2, "bitboards of black's discs, then white's"),
    Slot("result", 1, "-1 while the game runs, then the winning seat, or -2 (`NO_WINNER`) for a draw"),
)
DISCS, RESULT = SCHEMA.offsets("discs", "result")
STATE_SIZE = SCHEMA.size
UNDO_SIZE = 2
ONGOING = kernels.ONGOING
DRAW = kernels.NO_WINNER  # the one result convention (plies.games.kernels)
MAX_GAME_LENGTH = 128
"""At most 60 placements from the start, with at most one pass between two of them (two passes
in a row end the game): 119 plies. A position read from text with one disc would allow 63
placements and 62 passes, so 128 bounds every game."""
OBSERVATION_SHAPE = (SIZE, SIZE, 3)
OBSERVATION_SIZE = SIZE * SIZE * 3


def _signed(value: int) -> int:
    """An unsigned 64-bit mask as the int64 with the same bits (numba constants are int64)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


NOT_A_FILE = _signed(~0x0101010101010101)  # every square except column 0
NOT_H_FILE = _signed(~0x8080808080808080)  # every square except column 7
CORNERS = _signed((1 << 0) | (1 << 7) | (1 << 56) | (1 << 63))
BLACK_START = (1 << (3 * 8 + 4)) | (1 << (4 * 8 + 3))  # e4 and d5
WHITE_START = (1 << (3 * 8 + 3)) | (1 << (4 * 8 + 4))  # d4 and e5

# the eight directions as (shift, mask): a positive shift moves towards higher bits (<<), a
# negative one towards lower bits (>>); the mask drops squares that wrapped around a side of
# the board and, for right shifts, the copies of the sign bit
_LOW = [_signed((1 << (64 - k)) - 1) if k else -1 for k in range(10)]
SHIFTS = np.array([1, -1, 8, -8, 9, -9, 7, -7], np.int64)
MASKS = np.array(
    [
        NOT_A_FILE,  # east
        NOT_H_FILE & _LOW[1],  # west
        -1,  # south (down a row)
        _LOW[8],  # north
        NOT_A_FILE,  # south-east
        NOT_H_FILE & _LOW[9],  # north-west
        NOT_H_FILE,  # south-west
        NOT_A_FILE & _LOW[7],  # north-east
    ],
    np.int64,
)


# ----- bit helpers --------------------------------------------------------------------------
@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64 (LLVM ctpop)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctpop(value)

    return types.int64(x), codegen


@intrinsic
def lowest_bit_index(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (LLVM cttz)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.cttz(value, context.get_constant(types.boolean, True))

    return types.int64(x), codegen


@njit(cache=True, inline="always")
def _shift(bits, k):
    shift = SHIFTS[k]
    if shift > 0:
        return (bits << shift) & MASKS[k]
    return (bits >> -shift) & MASKS[k]


@njit(cache=True)
def moves_of(own, other):
    """Bitboard of the empty squares where the side owning ``own`` can place a disc."""
    empty = ~(own | other)
    moves = 0
    for k in range(8):
        x = _shift(own, k) & other
        for _ in range(5):  # a bracketed line holds at most six opponent discs
            x |= _shift(x, k) & other
        moves |= _shift(x, k) & empty
    return moves


@njit(cache=True)
def flips_of(own, other, square):
    """Bitboard of the opponent discs that a disc placed on ``square`` flips."""
    flips = 0
    origin = np.int64(1) << square
    for k in range(8):
        line = 0
        x = _shift(origin, k)
        while x & other:
            line |= x
            x = _shift(x, k)
        if x & own:
            flips |= line
    return flips


@njit(cache=True, inline="always")
def _list_moves(moves, out):
    n = 0
    while moves:
        out[n] = lowest_bit_index(moves)
        moves &= moves - 1
        n += 1
    return n


@njit(cache=True)
def settle(state):
    """Set the result slot, and ``TERMINAL`` in slot 0 once neither side can move; return the
    moves of the player in slot 0 (0 at the end). For positions written directly (text input),
    after the player slot is set: a player without moves then gets only the pass."""
    player = state[0]
    own, other = state[DISCS + player], state[DISCS + 1 - player]
    moves = moves_of(own, other)
    if moves == 0 and moves_of(other, own) == 0:
        black, white = popcount(state[DISCS]), popcount(state[DISCS + 1])
        state[RESULT] = 0 if black > white else (1 if white > black else DRAW)
        state[0] = TERMINAL
    else:
        state[RESULT] = ONGOING
    return moves


def check_rows(states: np.ndarray) -> str | None:
    """``Game.check_rows`` for Othello: whose turn it is, discs on distinct squares, the result."""
    player, result = states[:, 0], states[:, RESULT]
    over = player == TERMINAL
    return kernels.first_row_problem("Othello", (
        (~over & (player != 0) & (player != 1), "the player to move is not 0 (black), 1 (white) or TERMINAL (-4)"),
        ((states[:, DISCS] & states[:, DISCS + 1]) != 0, "a square holds a black and a white disc"),
        *kernels.two_player_result_checks(player, result),
    ))


def initial_array() -> np.ndarray:
    """The starting position, black to move (a fresh array)."""
    state = np.zeros(STATE_SIZE, np.int64)
    state[DISCS] = BLACK_START
    state[DISCS + 1] = WHITE_START
    state[RESULT] = ONGOING
    return state


# ----- the kernels of kernels.py ------------------------------------------------------------
@njit(LEGAL_SIG, cache=True)
def legal_actions(state, out):
    """Squares where the player can place a disc, ascending; only ``PASS`` if there are none."""
    player = state[0]
    if player == TERMINAL:
        return 0
    n = _list_moves(moves_of(state[DISCS + player], state[DISCS + 1 - player]), out)
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@njit(cache=True, inline="always")
def _apply(state, action, undo_row):
    """Play ``action``; return the moves of the player to move next (0 if it must pass or the
    game is over)."""
    player = state[0]
    undo_row[0] = player
    opponent = 1 - player
    own, other = state[DISCS + player], state[DISCS + opponent]
    if action == PASS:
        undo_row[1] = 0
        state[0] = opponent
        return moves_of(other, own)
    flips = flips_of(own, other, action)
    undo_row[1] = flips
    own |= flips | (np.int64(1) << action)
    other ^= flips
    state[DISCS + player] = own
    state[DISCS + opponent] = other
    state[0] = opponent
    next_moves = moves_of(other, own)
    if next_moves == 0 and moves_of(own, other) == 0:
        black, white = popcount(state[DISCS]), popcount(state[DISCS + 1])
        state[RESULT] = 0 if black > white else (1 if white > black else DRAW)
        state[0] = TERMINAL
    return next_moves


@njit(APPLY_SIG, cache=True)
def apply_action(state, action, undo_row):
    """Place a disc of the player in slot 0 on square ``action`` and flip, or pass."""
    _apply(state, action, undo_row)


@njit(UNDO_SIG, cache=True)
def undo_action(state, action, undo_row):
    """Lift the disc placed by ``action`` and flip back what it flipped."""
    player = undo_row[0]
    state[0] = player
    state[RESULT] = ONGOING
    if action == PASS:
        return
    flips = undo_row[1]
    state[DISCS + player] &= ~(flips | (np.int64(1) << action))
    state[DISCS + 1 - player] |= flips


@njit(STEP_SIG, cache=True)
def apply_and_list(state, action, undo_row, out):
    """apply_action, then legal_actions, in one call (new player packed in the low 4 bits)."""
    moves = _apply(state, action, undo_row)
    player = state[0]
    if player == TERMINAL:
        return player + 4
    n = _list_moves(moves, out)
    if n == 0:
        out[0] = PASS
        n = 1
    return (n << 4) | (player + 4)


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    two_player_returns(state[RESULT], out)


@njit(cache=True, inline="always")
def _mix(key):
    """A bijective 64-bit mixer (splitmix64's finaliser; logical shifts by masking)."""
    key = (key ^ ((key >> 31) & 0x1FFFFFFFF)) * -7046029254386353131  # 0x9E3779B97F4A7C15
    key = (key ^ ((key >> 29) & 0x7FFFFFFFF)) * -4658895280553007687  # 0xBF58476D1CE4E5B9
    return key ^ ((key >> 32) & 0xFFFFFFFF)


@njit(HASH_SIG, cache=True)
def hash_state(state):
    """A key of both bitboards and the side to move (equal positions, equal keys)."""
    key = _mix(state[DISCS]) * 31 + _mix(state[DISCS + 1] ^ 0x5DEECE66D)
    return _mix(key + state[0])


@njit(CHANCE_SIG, cache=True)
def chance_outcomes(state, outcomes, probs):
    return 0


KERNELS = Kernels(legal_actions, apply_action, undo_action, returns, hash_state, chance_outcomes)


@njit(OBSERVE_SIG, cache=True)
def observe(state, seat, out):
    """(8, 8, 3) flattened, row 0 at the top: per square, seat's disc, the opponent's disc, and
    whether seat could place a disc there (its moves, whoever is to move; none at the end)."""
    own, other = state[DISCS + seat], state[DISCS + 1 - seat]
    moves = moves_of(own, other) if state[0] != TERMINAL else 0
    for square in range(NUM_SQUARES):
        out[3 * square] = (own >> square) & 1
        out[3 * square + 1] = (other >> square) & 1
        out[3 * square + 2] = (moves >> square) & 1


# ----- heuristics ---------------------------------------------------------------------------
@njit(EVAL_SIG, cache=True)
def evaluate_discs(state, seat, params):
    """Seat's discs minus the opponent's, over 65 (in (-1, 1))."""
    return (popcount(state[DISCS + seat]) - popcount(state[DISCS + 1 - seat])) / 65.0


@njit(EVAL_SIG, cache=True)
def evaluate_mobility(state, seat, params):
    """``params`` = (corners, mobility, discs) weights of three balances in [-1, 1], seat's
    minus the opponent's: corners held (over 4), moves available (over the moves of both,
    plus one), and discs (over the discs of both); the weighted sum is scaled into (-1, 1)."""
    own, other = state[DISCS + seat], state[DISCS + 1 - seat]
    corners = (popcount(own & CORNERS) - popcount(other & CORNERS)) / 4.0
    own_moves, other_moves = popcount(moves_of(own, other)), popcount(moves_of(other, own))
    mobility = (own_moves - other_moves) / (own_moves + other_moves + 1.0)
    own_discs, other_discs = popcount(own), popcount(other)
    discs = (own_discs - other_discs) / (own_discs + other_discs + 1.0)
    scale = abs(params[0]) + abs(params[1]) + abs(params[2]) + 1.0
    return (params[0] * corners + params[1] * mobility + params[2] * discs) / scale
