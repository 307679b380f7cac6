"""Nine Men's Morris rules as numba kernels.

Points are numbered as in OpenSpiel, row by row::

    0-----------1-----------2
    |   3-------4-------5   |
    |   |   6---7---8   |   |
    9--10--11       12--13--14
    |   |  15--16--17   |   |
    |  18------19------20   |
    21---------22----------23

Actions (as OpenSpiel's ``nine_mens_morris``): ``0-23`` places a stone on a point, or removes
the opponent's stone there after a mill; ``24 + from * 24 + to`` moves (slides or flies) a
stone. Closing a mill leaves the same player to move, with only removals legal.

The state array's layout is ``SCHEMA`` below: a header, the 24 points, then a stack of
position keys, one per completed turn, for the repetition rule. The header slots before
``opt_flying`` change during play and are saved in the undo row; the options follow them.
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
    Slot("player", 1, "seat to move, or `TERMINAL`"),
    Slot("turn_owner", 1, "seat whose turn it is (kept when the game is over)"),
    Slot("removing", 1, "1 when the turn owner has closed a mill and must remove a stone"),
    Slot("hand", 2, "stones still to place, per seat"),
    Slot("on_board", 2, "stones on the board, per seat"),
    Slot("turns", 1, "completed turns (a move plus its removal is one turn, as OpenSpiel counts)"),
    Slot("quiet", 1, "completed turns since the last removal"),
    Slot("result", 1, "-1 while the game runs, then the winning seat, or -2 (`NO_WINNER`) for a draw"),
    Slot("board_hash", 1, "Zobrist key of the stones (kept incrementally)"),
    Slot("hist_len", 1, "entries in the key stack"),
    Slot("seg_start", 1, "first stack entry since the last irreversible turn"),
    Slot("threats", 1, "XOR of the keys whose next occurrence is a draw by repetition (0 once the game is over)"),
    Slot("opt_flying", 1, "option: 1 if a player with 3 stones (none in hand) may fly"),
    Slot("opt_repetition", 1, "option: draw when a position occurs the n-th time (0 = off)"),
    Slot("opt_no_mill", 1, "option: draw after n turns without a removal (0 = off)"),
    Slot("opt_turn_cap", 1, "option: draw after n turns (0 = off)"),
    Slot("hist_cap", 1, "capacity of the key stack"),
    Slot("points", 24, "0 empty, 1 White (seat 0), 2 Black (seat 1), OpenSpiel's numbering"),
    Slot("history", "hist_cap", "position keys, one per completed turn"),
)
(TO_MOVE, PLAYER, REMOVING, HAND, ON_BOARD, TURNS, QUIET, RESULT, BOARD_HASH, HIST_LEN, SEG_START,
 THREATS, OPT_FLYING, OPT_REPETITION, OPT_NO_MILL, OPT_TURN_CAP, HIST_CAP, POINTS, HISTORY) = (
    SCHEMA.offsets(*(slot.name for slot in SCHEMA.slots)))
MUTABLE = OPT_FLYING  # header slots that change during play (saved in the undo row)
HEADER = POINTS

NUM_POINTS = 24
NUM_STONES = 9
NUM_ACTIONS = NUM_POINTS + NUM_POINTS * NUM_POINTS
MAX_LEGAL_ACTIONS = 3 * 21  # flying with 3 stones onto 21 empty points is the most
UNDO_SIZE = MUTABLE
ONGOING = kernels.ONGOING
DRAW = kernels.NO_WINNER  # the one result convention (plies.games.kernels)
MAX_CAPTURES = 13  # the game ends when a player is down to 2 of 9 stones
MAX_OPTION = 1_000_000  # the largest repetition, no_mill and turn_cap option
UNBOUNDED_HISTORY = 4096  # key stack when neither the no-mill rule nor a turn cap bounds a game

# ----- board geometry -----------------------------------------------------------------------
COORDS = np.array(
    [
        [0, 0], [0, 3], [0, 6], [1, 1], [1, 3], [1, 5], [2, 2], [2, 3], [2, 4],
        [3, 0], [3, 1], [3, 2], [3, 4], [3, 5], [3, 6], [4, 2], [4, 3], [4, 4],
        [5, 1], [5, 3], [5, 5], [6, 0], [6, 3], [6, 6],
    ],
    np.int64,
)
"""(row, column) of each point on a 7 x 7 grid."""

MILLS = np.array(
    [
        [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [15, 16, 17],
        [18, 19, 20], [21, 22, 23], [0, 9, 21], [3, 10, 18], [6, 11, 15], [1, 4, 7],
        [16, 19, 22], [8, 12, 17], [5, 13, 20], [2, 14, 23],
    ],
    np.int64,
)
"""The 16 lines of three points."""


def _neighbours() -> np.ndarray:
    """Adjacent points (ascending, padded with -1): consecutive points of a mill."""
    adjacent: list[set[int]] = [set() for _ in range(NUM_POINTS)]
    for a, b, c in MILLS:
        adjacent[a].add(b)
        adjacent[b].update((a, c))
        adjacent[c].add(b)
    table = np.full((NUM_POINTS, 4), -1, np.int64)
    for p, near in enumerate(adjacent):
        table[p, : len(near)] = sorted(near)
    return table


def _point_mills() -> np.ndarray:
    """For each point, the two mills through it, as (other point, other point) pairs."""
    table = np.zeros((NUM_POINTS, 2, 2), np.int64)
    count = np.zeros(NUM_POINTS, np.int64)
    for line in MILLS:
        for p in line:
            table[p, count[p]] = [q for q in line if q != p]
            count[p] += 1
    assert np.all(count == 2)
    return table


NEIGHBOURS = _neighbours()
POINT_MILLS = _point_mills()

_rng = np.random.default_rng(0x9E3779B97F4A7C15)
ZOBRIST = _rng.integers(1, 2**62, size=(NUM_POINTS, 3), dtype=np.int64)
ZOBRIST[:, 0] = 0  # empty points add nothing
Z_SIDE = _rng.integers(1, 2**62, size=2, dtype=np.int64)
Z_REMOVING = np.int64(_rng.integers(1, 2**62, dtype=np.int64))
Z_HAND = _rng.integers(1, 2**62, size=(2, NUM_STONES + 1), dtype=np.int64)
Z_RESULT = _rng.integers(1, 2**62, size=3, dtype=np.int64)
COUNTDOWN = 32  # turns before a draw limit from which the key includes the turns left
Z_LEFT = _rng.integers(1, 2**62, size=(2, COUNTDOWN + 1), dtype=np.int64)


# ----- options and set-up --------------------------------------------------------------------
def history_capacity(repetition: int, no_mill: int, turn_cap: int) -> int:
    """Key-stack size: one key per turn of the longest game the options allow."""
    if repetition <= 0:
        return 0
    bounds = []
    if no_mill > 0:
        bounds.append((MAX_CAPTURES + 1) * no_mill + 2)
    if turn_cap > 0:
        bounds.append(turn_cap + 2)
    return min(bounds) if bounds else UNBOUNDED_HISTORY


def empty_array(flying: bool, repetition: int, no_mill: int, turn_cap: int) -> np.ndarray:
    """A board with no stones and nothing in hand (callers fill in the position)."""
    cap = history_capacity(repetition, no_mill, turn_cap)
    state = np.zeros(HISTORY + cap, np.int64)
    state[RESULT] = ONGOING
    state[OPT_FLYING] = 1 if flying else 0
    state[OPT_REPETITION] = max(0, repetition)
    state[OPT_NO_MILL] = max(0, no_mill)
    state[OPT_TURN_CAP] = max(0, turn_cap)
    state[HIST_CAP] = cap
    return state


def check_rows(states: np.ndarray) -> str | None:
    """``Game.check_rows`` for Nine Men's Morris: stones, counts, whose turn, the options and
    the key stack of a position the kernels can play from (they index with the stones, the
    counts in hand and the stack's length)."""
    title = "Nine Men's Morris"
    to_move, owner, result = states[:, TO_MOVE], states[:, PLAYER], states[:, RESULT]
    points, hand, on_board = states[:, POINTS:HISTORY], states[:, HAND : HAND + 2], states[:, ON_BOARD : ON_BOARD + 2]
    over = to_move == TERMINAL
    problem = kernels.first_row_problem(title, (
        (((points < 0) | (points > 2)).any(axis=1), "a point is not 0 (empty), 1 (White) or 2 (Black)"),
        (((hand < 0) | (hand > NUM_STONES)).any(axis=1), f"stones in hand are not 0 to {NUM_STONES}"),
        ((owner != 0) & (owner != 1), "the turn's owner is not 0 or 1"),
        (~over & (to_move != owner), "the player to move is not the turn's owner (or TERMINAL, -4)"),
        ((states[:, REMOVING] != 0) & (states[:, REMOVING] != 1), "the removal flag is not 0 or 1"),
        ((states[:, TURNS] < 0) | (states[:, QUIET] < 0), "its turn counts are negative"),
        *kernels.two_player_result_checks(to_move, result),
        ((states[:, OPT_FLYING] != 0) & (states[:, OPT_FLYING] != 1), "the flying option is not 0 or 1"),
        ((states[:, OPT_REPETITION : OPT_TURN_CAP + 1] < 0).any(axis=1)
         | (states[:, OPT_REPETITION : OPT_TURN_CAP + 1] > MAX_OPTION).any(axis=1)
         | (states[:, OPT_REPETITION] == 1), f"a draw rule option is not 0 to {MAX_OPTION} (repetition: not 1)"),
    ))
    if problem:
        return problem
    counts = np.stack([(points == 1).sum(axis=1), (points == 2).sum(axis=1)], axis=1)
    cap, length, start = states[:, HIST_CAP], states[:, HIST_LEN], states[:, SEG_START]
    options, which = np.unique(states[:, OPT_REPETITION : OPT_TURN_CAP + 1], axis=0, return_inverse=True)
    capacity = np.array([history_capacity(*map(int, row)) for row in options], np.int64)[which.reshape(-1)]
    keys = np.bitwise_xor.reduce(ZOBRIST[np.arange(NUM_POINTS), points], axis=1)
    return kernels.first_row_problem(title, (
        ((on_board != counts).any(axis=1), "its stones-on-board counts are not the stones on the points"),
        ((hand + on_board > NUM_STONES).any(axis=1), f"a player has more than {NUM_STONES} stones"),
        (states[:, BOARD_HASH] != keys, "its board hash is not the key of its stones"),
        ((cap != capacity) | (cap != states.shape[1] - HISTORY),
         "its key stack's capacity does not match its draw options or the row's length"),
        ((start < 0) | (start > length) | (length > cap) | ((cap > 0) & (length < 1))
         | (~over & (cap > 0) & (length >= cap)), "its key stack's length or segment start is out of range"),
    ))


def initial_array(flying: bool, repetition: int, no_mill: int, turn_cap: int) -> np.ndarray:
    state = empty_array(flying, repetition, no_mill, turn_cap)
    state[HAND] = state[HAND + 1] = NUM_STONES
    start_segment(state)
    settle(state)  # as after any turn: with repetition=2 the start is already one occurrence from a draw
    return state


# ----- helpers --------------------------------------------------------------------------------
@njit(cache=True)
def in_mill(state, p):
    """Whether the stone on point p is part of a closed mill."""
    colour = state[POINTS + p]
    if colour == 0:
        return False
    for k in range(2):
        if (
            state[POINTS + POINT_MILLS[p, k, 0]] == colour
            and state[POINTS + POINT_MILLS[p, k, 1]] == colour
        ):
            return True
    return False


@njit(cache=True)
def position_key(state):
    """Zobrist key of the position: stones, side to move, removal pending, stones in hand."""
    player = state[PLAYER]
    key = state[BOARD_HASH] ^ Z_SIDE[player]
    key ^= Z_HAND[0, state[HAND]] ^ Z_HAND[1, state[HAND + 1]]
    if state[REMOVING] != 0:
        key ^= Z_REMOVING
    return key


@njit(cache=True)
def board_key(state):
    key = 0
    for p in range(NUM_POINTS):
        key ^= ZOBRIST[p, state[POINTS + p]]
    return key


@njit(cache=True)
def can_fly(state, seat):
    return state[OPT_FLYING] != 0 and state[HAND + seat] == 0 and state[ON_BOARD + seat] == 3


@njit(cache=True)
def has_move(state, seat):
    """Whether seat, at the start of its turn, has a legal action."""
    if state[HAND + seat] > 0 or can_fly(state, seat):
        return state[ON_BOARD] + state[ON_BOARD + 1] < NUM_POINTS
    colour = seat + 1
    for p in range(NUM_POINTS):
        if state[POINTS + p] == colour:
            for k in range(4):
                q = NEIGHBOURS[p, k]
                if q >= 0 and state[POINTS + q] == 0:
                    return True
    return False


@njit(cache=True)
def _set_point(state, p, colour):
    state[BOARD_HASH] ^= ZOBRIST[p, state[POINTS + p]] ^ ZOBRIST[p, colour]
    state[POINTS + p] = colour


@njit(cache=True)
def start_segment(state):
    """Begin a new repetition segment at the current position (after set-up or an
    irreversible turn) and record its key."""
    state[SEG_START] = state[HIST_LEN]
    state[THREATS] = 0
    if state[HIST_CAP] > 0:
        state[HISTORY + state[HIST_LEN]] = position_key(state)
        state[HIST_LEN] += 1


@njit(cache=True)
def settle(state):
    """Decide whether the game is over at the start of PLAYER's turn; the draw rules are
    checked only after the two ways to lose."""
    seat = state[PLAYER]
    other = 1 - seat
    if state[HAND + seat] + state[ON_BOARD + seat] < 3 or not has_move(state, seat):
        state[RESULT] = other
        state[TO_MOVE] = TERMINAL
        state[THREATS] = 0  # a finished game has no draw pending (its text carries none)
        return
    draw = False
    repetition = state[OPT_REPETITION]
    if repetition > 0:
        top = state[HIST_LEN] - 1
        key = state[HISTORY + top]
        seen = 1
        # turns alternate, so the same side was to move at every second entry
        i = top - 2
        while i >= state[SEG_START]:
            if state[HISTORY + i] == key:
                seen += 1
            i -= 2
        if seen >= repetition or state[HIST_LEN] >= state[HIST_CAP]:
            draw = True
        elif seen == repetition - 1:
            state[THREATS] ^= key
    if state[OPT_NO_MILL] > 0 and state[QUIET] >= state[OPT_NO_MILL]:
        draw = True
    if state[OPT_TURN_CAP] > 0 and state[TURNS] >= state[OPT_TURN_CAP]:
        draw = True
    if draw:
        state[RESULT] = DRAW
        state[TO_MOVE] = TERMINAL
        state[THREATS] = 0


@njit(cache=True)
def _end_turn(state, irreversible, removed):
    state[TURNS] += 1
    state[QUIET] = 0 if removed else state[QUIET] + 1
    nxt = 1 - state[PLAYER]
    state[PLAYER] = nxt
    state[TO_MOVE] = nxt
    if state[HIST_CAP] > 0:
        if irreversible:
            state[SEG_START] = state[HIST_LEN]
            state[THREATS] = 0
        state[HISTORY + state[HIST_LEN]] = position_key(state)
        state[HIST_LEN] += 1
    settle(state)


# ----- kernels --------------------------------------------------------------------------------
@njit(LEGAL_SIG, cache=True)
def legal_actions(state, out):
    if state[TO_MOVE] == TERMINAL:
        return 0
    seat = state[PLAYER]
    n = 0
    if state[REMOVING] != 0:
        colour = 2 - seat
        everything_in_mills = True
        for p in range(NUM_POINTS):
            if state[POINTS + p] == colour and not in_mill(state, p):
                everything_in_mills = False
                break
        for p in range(NUM_POINTS):
            if state[POINTS + p] == colour and (everything_in_mills or not in_mill(state, p)):
                out[n] = p
                n += 1
        return n
    if state[HAND + seat] > 0:
        for p in range(NUM_POINTS):
            if state[POINTS + p] == 0:
                out[n] = p
                n += 1
        return n
    colour = seat + 1
    flying = can_fly(state, seat)
    for p in range(NUM_POINTS):
        if state[POINTS + p] != colour:
            continue
        base = NUM_POINTS + p * NUM_POINTS
        if flying:
            for q in range(NUM_POINTS):
                if state[POINTS + q] == 0:
                    out[n] = base + q
                    n += 1
        else:
            for k in range(4):
                q = NEIGHBOURS[p, k]
                if q >= 0 and state[POINTS + q] == 0:
                    out[n] = base + q
                    n += 1
    return n


@njit(APPLY_SIG, cache=True)
def apply_action(state, action, undo_row):
    for i in range(MUTABLE):
        undo_row[i] = state[i]
    seat = state[PLAYER]
    if action >= NUM_POINTS:
        source = (action - NUM_POINTS) // NUM_POINTS
        target = (action - NUM_POINTS) % NUM_POINTS
        _set_point(state, source, 0)
        _set_point(state, target, seat + 1)
        if in_mill(state, target):
            state[REMOVING] = 1
        else:
            _end_turn(state, False, False)
    elif state[REMOVING] != 0:
        _set_point(state, action, 0)
        state[ON_BOARD + 1 - seat] -= 1
        state[REMOVING] = 0
        _end_turn(state, True, True)
    else:
        _set_point(state, action, seat + 1)
        state[HAND + seat] -= 1
        state[ON_BOARD + seat] += 1
        if in_mill(state, action):
            state[REMOVING] = 1
        else:
            _end_turn(state, True, False)


@njit(UNDO_SIG, cache=True)
def undo_action(state, action, undo_row):
    seat = undo_row[PLAYER]
    top = state[HIST_LEN]
    if action >= NUM_POINTS:
        source = (action - NUM_POINTS) // NUM_POINTS
        target = (action - NUM_POINTS) % NUM_POINTS
        state[POINTS + target] = 0
        state[POINTS + source] = seat + 1
    elif undo_row[REMOVING] != 0:
        state[POINTS + action] = 2 - seat
        state[ON_BOARD + 1 - seat] += 1
    else:
        state[POINTS + action] = 0
        state[HAND + seat] += 1
        state[ON_BOARD + seat] -= 1
    for i in range(MUTABLE):
        state[i] = undo_row[i]
    # clear the key the undone turn pushed, so the array is exactly the one before it
    for i in range(state[HIST_LEN], top):
        state[HISTORY + i] = 0


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    two_player_returns(state[RESULT], out)


@njit(cache=True)
def history_key(state):
    """What of the game's history can still change the value of the position: the positions
    whose next occurrence is a draw by repetition, and the turns left before the no-mill or
    turn-cap draw once fewer than ``COUNTDOWN`` remain. Usually 0, so transpositions and
    positions of earlier games share keys; without it a table kept across moves would keep
    values that a repetition draw has since made wrong."""
    key = state[THREATS]
    limit = state[OPT_NO_MILL]
    if limit > 0 and limit - state[QUIET] <= COUNTDOWN:
        key ^= Z_LEFT[0, max(0, limit - state[QUIET])]
    limit = state[OPT_TURN_CAP]
    if limit > 0 and limit - state[TURNS] <= COUNTDOWN:
        key ^= Z_LEFT[1, max(0, limit - state[TURNS])]
    return key


@njit(HASH_SIG, cache=True)
def hash_state(state):
    """The position key mixed with ``history_key``; a finished game also mixes in its result
    (a position drawn by repetition is not the same node as that position in play)."""
    key = position_key(state) ^ history_key(state)
    if state[TO_MOVE] == TERMINAL:
        key ^= Z_RESULT[state[RESULT]]
    return key


@njit(CHANCE_SIG, cache=True)
def chance_outcomes(state, outcomes, probs):
    return 0


# ----- heuristic ------------------------------------------------------------------------------
FEATURES = ("stones", "mills", "blocked", "open_mills", "double_mills", "mobility")
DEFAULT_WEIGHTS = (10.0, 3.0, 1.0, 2.0, 4.0, 0.5)
HEURISTIC_SCALE = 60.0


@njit(cache=True)
def features(state, seat, out):
    """Feature differences (seat minus opponent) into out, in the order of ``FEATURES``:

    stones        stones on the board and in hand;
    mills         closed mills;
    blocked       the opponent's stones without an empty neighbour, minus one's own;
    open_mills    lines with two own stones and an empty third point;
    double_mills  stones that can swing between two mills: a stone of a closed mill next to
                  an empty point that closes another mill (a "Zwickmuehle");
    mobility      sliding moves (flying players count as unblocked and get 0 here).
    """
    for i in range(6):
        out[i] = 0.0
    for s in range(2):
        sign = 1.0 if s == seat else -1.0
        colour = s + 1
        out[0] += sign * (state[HAND + s] + state[ON_BOARD + s])
        blocked = 0
        moves = 0
        for p in range(NUM_POINTS):
            if state[POINTS + p] != colour:
                continue
            free = 0
            for k in range(4):
                q = NEIGHBOURS[p, k]
                if q >= 0 and state[POINTS + q] == 0:
                    free += 1
                    # a swing: p in a closed mill, q closes another mill without p
                    if in_mill(state, p):
                        for m in range(2):
                            a = POINT_MILLS[q, m, 0]
                            b = POINT_MILLS[q, m, 1]
                            if a != p and b != p and state[POINTS + a] == colour and (
                                state[POINTS + b] == colour
                            ):
                                out[4] += sign
            if free == 0:
                blocked += 1
            moves += free
        if not can_fly(state, s):
            out[2] -= sign * blocked
            out[5] += sign * moves
    for m in range(16):
        own = 0
        other = 0
        empty = 0
        for j in range(3):
            c = state[POINTS + MILLS[m, j]]
            if c == 0:
                empty += 1
            elif c == seat + 1:
                own += 1
            else:
                other += 1
        if own == 3:
            out[1] += 1.0
        elif other == 3:
            out[1] -= 1.0
        elif own == 2 and empty == 1:
            out[3] += 1.0
        elif other == 2 and empty == 1:
            out[3] -= 1.0


@njit(EVAL_SIG, cache=True)
def evaluate_weighted(state, seat, params):
    """The weighted sum of ``features`` squashed into (-1, 1) by x / (1 + |x|)."""
    f = np.empty(6, np.float64)
    features(state, seat, f)
    total = 0.0
    for i in range(min(6, params.shape[0])):
        total += params[i] * f[i]
    x = total / HEURISTIC_SCALE
    return x / (1.0 + abs(x))


@njit(EVAL_SIG, cache=True)
def evaluate_stones(state, seat, params):
    """Stone difference only (stones on the board and in hand), scaled into (-1, 1)."""
    mine = state[HAND + seat] + state[ON_BOARD + seat]
    theirs = state[HAND + 1 - seat] + state[ON_BOARD + 1 - seat]
    return (mine - theirs) / 10.0


@njit(STEP_SIG, cache=True)
def apply_and_list(state, action, undo_row, out):
    """apply_action, then legal_actions, in one call (the GameState's step; the new player in
    the low 4 bits)."""
    apply_action(state, action, undo_row)
    return (legal_actions(state, out) << 4) | (state[0] + 4)


KERNELS = Kernels(legal_actions, apply_action, undo_action, returns, hash_state, chance_outcomes)

"""observe(state, seat, out): the observation for seat, flattened, into out (float32)."""
OBSERVATION_SIZE = 55


@njit(OBSERVE_SIG, cache=True)
def observe(state, seat, out):
    """Own stones (24), opponent's stones (24), then own and opponent's stones in hand and
    on the board (/9), a pending removal, own turn, and the no-mill counter (/limit)."""
    for p in range(NUM_POINTS):
        colour = state[POINTS + p]
        out[p] = 1.0 if colour == seat + 1 else 0.0
        out[NUM_POINTS + p] = 1.0 if colour == 2 - seat else 0.0
    out[48] = state[HAND + seat] / 9
    out[49] = state[HAND + 1 - seat] / 9
    out[50] = state[ON_BOARD + seat] / 9
    out[51] = state[ON_BOARD + 1 - seat] / 9
    own_turn = state[PLAYER] == seat
    out[52] = 1.0 if state[REMOVING] != 0 and own_turn else 0.0
    out[53] = 1.0 if own_turn else 0.0
    limit = state[OPT_NO_MILL]
    if limit == 0:
        limit = state[OPT_TURN_CAP]
    if limit == 0:
        limit = 200
    out[54] = min(1.0, state[QUIET] / limit)
