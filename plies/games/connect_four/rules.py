"""Connect Four rules as numba kernels over bitboards, for any width x height.

The state array's layout is ``SCHEMA`` below.

Bit ``c * (HEIGHT + 1) + r`` is column ``c``, row ``r`` (row 0 at the bottom). The bit above
each column is never set (a sentinel), so shifting by ``HEIGHT + 1`` moves along a row and
by ``HEIGHT`` / ``HEIGHT + 2`` along the diagonals without wrapping into the next column.
Hence ``width * (height + 1) <= 64``. Because bit 63 is either unused or a sentinel, stone
bitboards are never negative and right shifts of them are exact.

The cell weight of a cell is the number of fours that pass through it (the classic table,
3 4 5 7 5 4 3 on the bottom row of 7x6). Summing weights layer by layer turns the
evaluation into a few AND + popcount operations.
"""

from __future__ import annotations

import functools

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

MAX_LAYERS = 16  # a cell lies on at most 4 fours in each of the 4 directions
SCHEMA = SlotSchema(
    Slot("player", 1, "seat to move (0 = X, who starts; 1 = O), or `TERMINAL`"),
    Slot("width", 1, "number of columns"),
    Slot("height", 1, "number of rows"),
    Slot("stones", 2, "bitboards of X's stones, then O's"),
    Slot("moves", 1, "stones on the board"),
    Slot("result", 1, "-1 while the game runs, then the winning seat, or -2 (`NO_WINNER`) for a draw"),
    Slot("total_weight", 1, "sum of all cell weights (scales the heuristics into (-1, 1))"),
    Slot("num_layers", 1, "number of weight layers in use"),
    Slot("layers", MAX_LAYERS, "`layers + k`: bitboard of the cells whose weight is more than k"),
)
WIDTH, HEIGHT, STONES, MOVES, RESULT, TOTAL_WEIGHT, NUM_LAYERS, LAYERS = SCHEMA.offsets(
    "width", "height", "stones", "moves", "result", "total_weight", "num_layers", "layers")
STATE_SIZE = SCHEMA.size

ONGOING = kernels.ONGOING
DRAW = kernels.NO_WINNER  # the one result convention (plies.games.kernels)
DEFAULT_WIDTH = 7
DEFAULT_HEIGHT = 6


# ----- bit helpers --------------------------------------------------------------------------
@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an int64 (LLVM ctpop: one instruction on x86-64)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctpop(value)

    return types.int64(x), codegen


@njit(cache=True, inline="always")
def has_four(stones, height, width):
    """Whether the bitboard ``stones`` holds four in a line."""
    # vertical
    m = stones & (stones >> 1)
    if m & (m >> 2):
        return True
    if width < 4:  # no horizontal or diagonal four fits; also keeps every shift below 64
        return False
    for d in (height, height + 1, height + 2):
        m = stones & (stones >> d)
        if m & (m >> (2 * d)):
            return True
    return False


@njit(cache=True, inline="always")
def winning_cells(stones, mask, height, width, board_mask):
    """Empty cells (playable now or later) that would complete a four for ``stones``."""
    r = (stones << 1) & (stones << 2) & (stones << 3)
    if width >= 4:  # with width >= 4, height <= 15, so every shift below is < 64
        for d in (height + 1, height, height + 2):
            p = (stones << d) & (stones << (2 * d))
            r |= p & (stones << (3 * d))
            r |= p & (stones >> d)
            p = (stones >> d) & (stones >> (2 * d))
            r |= p & (stones << d)
            r |= p & (stones >> (3 * d))
    return r & (board_mask ^ mask)


@njit(cache=True, inline="always")
def bottom_mask(width, height):
    bottom = 0
    for c in range(width):
        bottom |= 1 << (c * (height + 1))
    return bottom


@njit(cache=True, inline="always")
def full_board_mask(width, height):
    return bottom_mask(width, height) * ((1 << height) - 1)


# ----- set-up -------------------------------------------------------------------------------
def check_size(width: int, height: int) -> None:
    """Raise ``ValueError`` unless the board fits the 64-bit bitboard layout."""
    if not (isinstance(width, (int, np.integer)) and isinstance(height, (int, np.integer))):
        raise ValueError(f"width and height must be integers, got {width!r} x {height!r}")
    if width < 1 or height < 1:
        raise ValueError(f"a Connect Four board needs width >= 1 and height >= 1, got {width}x{height}")
    if width * (height + 1) > 64:
        raise ValueError(
            f"a {width}x{height} Connect Four board does not fit in a 64-bit bitboard: "
            f"width * (height + 1) must be <= 64 (got {width * (height + 1)}); e.g. 7x6, 8x7, 9x5"
        )


def check_sizes(states: np.ndarray) -> str | None:
    """What the encoder and the heuristics index with: every row's board must fit the bitboards
    (the kernels shift by its width and height) and its weight layers the table. Cheap enough
    for every batch a search or self-play encodes."""
    width, height, layers = states[:, WIDTH], states[:, HEIGHT], states[:, NUM_LAYERS]
    bad = (width < 1) | (height < 1) | (width > 64) | (height > 63) | (width * (height + 1) > 64)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        return (f"Connect Four state row {row}: a {width[row]}x{height[row]} board does not fit the "
                "64-bit bitboards (width, height >= 1, width * (height + 1) <= 64)")
    bad = (layers < 0) | (layers > MAX_LAYERS)
    if bad.any():
        return f"Connect Four state row {int(np.flatnonzero(bad)[0])}: its weight layers are not 0 to {MAX_LAYERS}"
    return None


def check_rows(states: np.ndarray) -> str | None:
    """``Game.check_rows`` for Connect Four: the sizes (``check_sizes``), then a position the
    kernels can play from: stones on the board's cells, stacked, counted, and whose turn."""
    problem = check_sizes(states)
    if problem:
        return problem
    width, height = states[:, WIDTH], states[:, HEIGHT]
    # the board's cells, one mask per board size in the batch (usually one)
    board = np.zeros(len(states), np.int64)
    for w, h in set(zip(width.tolist(), height.tolist())):
        cells = sum(1 << (c * (h + 1) + r) for c in range(w) for r in range(h))
        board[(width == w) & (height == h)] = np.array(cells, np.uint64).astype(np.int64)
    x, o = states[:, STONES], states[:, STONES + 1]
    nx, no = kernels.popcounts(x), kernels.popcounts(o)
    player, result = states[:, 0], states[:, RESULT]
    over = player == TERMINAL
    gap = (x | o) & ~board
    # a stone above an empty cell of its column: the cell below it is empty
    floating = ((x | o) >> 1) & ~(x | o) & board
    return kernels.first_row_problem("Connect Four", (
        ((gap != 0) | ((x & o) != 0), "a stone lies off the board, or X and O share a cell"),
        (floating != 0, "a stone floats above an empty cell"),
        ((nx - no < 0) | (nx - no > 1), "X moves first, so X has as many stones as O or one more"),
        (states[:, MOVES] != nx + no, "its move count is not the number of stones"),
        (~over & (player != nx - no), "the player to move is not the one whose turn the stones say (or TERMINAL, -4)"),
        *kernels.two_player_result_checks(player, result),
    ))


def cell_weights(width: int, height: int) -> np.ndarray:
    """Number of possible fours through each cell, as a (height, width) array, row 0 bottom."""
    weights = np.zeros((height, width), np.int64)
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for c in range(width):
            for r in range(height):
                end_c, end_r = c + 3 * dc, r + 3 * dr
                if 0 <= end_c < width and 0 <= end_r < height:
                    for k in range(4):
                        weights[r + k * dr, c + k * dc] += 1
    return weights


def initial_array(width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT) -> np.ndarray:
    """The empty board of the given size, X to move (a fresh copy)."""
    return _initial_array(width, height).copy()


@functools.cache
def _initial_array(width: int, height: int) -> np.ndarray:
    check_size(width, height)
    state = np.zeros(STATE_SIZE, np.int64)
    state[WIDTH] = width
    state[HEIGHT] = height
    state[RESULT] = ONGOING
    weights = cell_weights(width, height)
    state[TOTAL_WEIGHT] = int(weights.sum())
    layers = int(weights.max()) if weights.size else 0
    state[NUM_LAYERS] = layers
    for k in range(layers):
        bits = 0
        for c in range(width):
            for r in range(height):
                if weights[r, c] > k:
                    bits |= 1 << (c * (height + 1) + r)
        state[LAYERS + k] = bits
    return state


@njit(cache=True)
def settle(state):
    """Set the player and result slots from the stones (X moves first; a four ends the game).

    Used after writing stones directly (text input, the classroom Board). When both sides
    hold a four, the result names X; callers that care check both sides themselves.
    """
    width, height = state[WIDTH], state[HEIGHT]
    x, o = state[STONES], state[STONES + 1]
    nx, no = popcount(x), popcount(o)
    state[MOVES] = nx + no
    if has_four(x, height, width):
        state[RESULT] = 0
        state[0] = TERMINAL
    elif has_four(o, height, width):
        state[RESULT] = 1
        state[0] = TERMINAL
    elif nx + no == width * height:
        state[RESULT] = DRAW
        state[0] = TERMINAL
    else:
        state[RESULT] = ONGOING
        state[0] = 0 if nx <= no else 1


# ----- the kernels of kernels.py ------------------------------------------------------------
@njit(LEGAL_SIG, cache=True)
def legal_actions(state, out):
    """Columns that are not full, in ascending order."""
    if state[0] == TERMINAL:
        return 0
    width, height = state[WIDTH], state[HEIGHT]
    mask = state[STONES] | state[STONES + 1]
    n = 0
    for c in range(width):  # branch-free: out has room for every column
        out[n] = c
        n += (mask >> (c * (height + 1) + height - 1)) & 1 ^ 1
    return n


@njit(APPLY_SIG, cache=True)
def apply_action(state, action, undo_row):
    """Drop a stone of the player in slot 0 into column ``action``."""
    player = state[0]
    undo_row[0] = player
    width, height = state[WIDTH], state[HEIGHT]
    shift = action * (height + 1)
    mask = state[STONES] | state[STONES + 1]
    column = (mask >> shift) & ((1 << height) - 1)
    stones = state[STONES + player] | ((column + 1) << shift)
    state[STONES + player] = stones
    state[MOVES] += 1
    if has_four(stones, height, width):
        state[RESULT] = player
        state[0] = TERMINAL
    elif state[MOVES] == width * height:
        state[RESULT] = DRAW
        state[0] = TERMINAL
    else:
        state[0] = 1 - player


@njit(UNDO_SIG, cache=True)
def undo_action(state, action, undo_row):
    """Lift the top stone of column ``action``."""
    height = state[HEIGHT]
    shift = action * (height + 1)
    mask = state[STONES] | state[STONES + 1]
    column = (mask >> shift) & ((1 << height) - 1)
    top = ((column + 1) >> 1) << shift
    state[STONES] &= ~top
    state[STONES + 1] &= ~top
    state[MOVES] -= 1
    state[RESULT] = ONGOING
    state[0] = undo_row[0]


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    two_player_returns(state[RESULT], out)


@njit(HASH_SIG, cache=True)
def hash_state(state):
    """A bijective mix of X's stones + all stones (unique per position): no collisions."""
    mask = state[STONES] | state[STONES + 1]
    key = state[STONES] + mask  # each column's sum is unique, and the sentinel bits absorb carries
    key = (key ^ ((key >> 31) & 0x1FFFFFFFF)) * -7046029254386353131  # 0x9E3779B97F4A7C15
    key = (key ^ ((key >> 29) & 0x7FFFFFFFF)) * -4658895280553007687  # 0xBF58476D1CE4E5B9
    return key ^ ((key >> 32) & 0xFFFFFFFF)


@njit(CHANCE_SIG, cache=True)
def chance_outcomes(state, outcomes, probs):
    return 0


# ----- heuristics ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _weight(stones, state):
    total = 0
    for k in range(state[NUM_LAYERS]):
        total += popcount(stones & state[LAYERS + k])
    return total


@njit(EVAL_SIG, cache=True)
def evaluate_cells(state, seat, params):
    """Sum of the cell weights under seat's stones minus the opponent's, over the total."""
    own = _weight(state[STONES + seat], state)
    other = _weight(state[STONES + 1 - seat], state)
    return (own - other) / (state[TOTAL_WEIGHT] + 1.0)


@njit(EVAL_SIG, cache=True)
def evaluate_threats(state, seat, params):
    """``params[0]`` x the cell weights plus ``params[1]`` x the empty cells that would complete
    a four (threats), seat's minus the opponent's, scaled into (-1, 1)."""
    width, height = state[WIDTH], state[HEIGHT]
    board = full_board_mask(width, height)
    own_stones, other_stones = state[STONES + seat], state[STONES + 1 - seat]
    mask = own_stones | other_stones
    cells = _weight(own_stones, state) - _weight(other_stones, state)
    threats = popcount(winning_cells(own_stones, mask, height, width, board)) - popcount(
        winning_cells(other_stones, mask, height, width, board)
    )
    scale = abs(params[0]) * state[TOTAL_WEIGHT] + abs(params[1]) * width * height + 1.0
    return (params[0] * cells + params[1] * threats) / scale


@njit(STEP_SIG, cache=True)
def apply_and_list(state, action, undo_row, out):
    """apply_action, then legal_actions, in one call (new player packed in the low 4 bits)."""
    apply_action(state, action, undo_row)
    return (legal_actions(state, out) << 4) | (state[0] + 4)


KERNELS = Kernels(legal_actions, apply_action, undo_action, returns, hash_state, chance_outcomes)

@njit(OBSERVE_SIG, cache=True)
def observe(state, seat, out):
    """(height, width, 2) flattened, row 0 at the top: per cell, seat's stone, then the
    opponent's (the layout of PettingZoo's connect_four_v3)."""
    width, height = state[WIDTH], state[HEIGHT]
    h1 = height + 1
    inverse = (65536 + h1 - 1) // h1  # bit // h1 as multiply and shift (exact for bit < 64)
    for k in range(out.shape[0]):  # mostly empty: clear all, then mark the stones
        out[k] = 0.0
    for plane in range(2):
        stones = state[STONES + seat] if plane == 0 else state[STONES + 1 - seat]
        while stones:
            low = stones & -stones
            bit = popcount(low - 1)
            c = (bit * inverse) >> 16
            r = bit - c * h1
            out[2 * ((height - 1 - r) * width + c) + plane] = 1.0
            stones ^= low


@njit(HASH_SIG, cache=True)
def canonical_hash(state):
    """The smaller hash of the position and its mirror image (left-right)."""
    width, height = state[WIDTH], state[HEIGHT]
    h1 = height + 1
    column_bits = (1 << h1) - 1
    mirrored = state.copy()
    mirrored[STONES] = 0
    mirrored[STONES + 1] = 0
    for c in range(width):
        shift, target = c * h1, (width - 1 - c) * h1
        mirrored[STONES] |= ((state[STONES] >> shift) & column_bits) << target
        mirrored[STONES + 1] |= ((state[STONES + 1] >> shift) & column_bits) << target
    return min(hash_state(state), hash_state(mirrored))
