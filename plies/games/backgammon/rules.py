"""Backgammon rules as numba kernels.

The state array's layout is ``SCHEMA`` below; a seat's checkers are counted in its own
numbering: index 0 borne off, 1..24 its points (it moves from 24 towards 1), 25 its bar.

Seat ``s``'s point ``i`` is the opponent's point ``25 - i``.

Actions at a player node: ``source * 6 + die - 1`` with ``source`` 0..23 for points 1..24 and 24
for the bar: one checker moved by one die. The mask admits a single move only when the whole
turn can still be completed by the rules (as many dice as possible; the larger die when just one
of two can be played), so every legal play is a sequence of legal actions and nothing else is.
The player keeps moving (``state[0]`` unchanged) until the roll is used up or blocked.

Chance outcomes: a normal roll is ``(hi - 1) * 6 + lo - 1`` (hi >= lo; 21 outcomes, 1/36 or
2/36); the opening roll is ``36 + (d0 - 1) * 6 + d1 - 1`` with seat 0's die d0 and seat 1's die
d1, d0 != d1 (30 outcomes of 1/30): the higher die starts and plays both.
"""

import numpy as np
from numba import njit, types

from plies.games import kernels
from plies.games.game import Slot, SlotSchema
from plies.games.kernels import (
    AFTERSTATES_SIG,
    APPLY_SIG,
    CHANCE,
    CHANCE_SIG,
    EVAL_SIG,
    HASH_SIG,
    LEGAL_SIG,
    RETURNS_SIG,
    STATE_T,
    TERMINAL,
    UNDO_SIG,
    Kernels,
)

SIDE = 26
SCHEMA = SlotSchema(
    Slot("player", 1, "seat to move, `CHANCE` before a roll, `TERMINAL` when over"),
    Slot("scoring", 1, "0: every win scores 1; 1: gammons 2 and backgammons 3"),
    Slot("roller", 1, "the seat that rolls at the next chance node"),
    Slot("die_hi", 1, "the larger die of the roll being played (0 before the first roll)"),
    Slot("die_lo", 1, "the smaller die"),
    Slot("rem_hi", 1, "uses of `die_hi` left (up to 4 for doubles, when `rem_lo` stays 0)"),
    Slot("rem_lo", 1, "uses of `die_lo` left"),
    Slot("rolls", 1, "0 until the opening roll is made, then 1"),
    Slot("result", 1, "-1 while the game runs, else the winning seat (backgammon has no draws)"),
    Slot("points", 1, "1, 2 or 3 once over (gammon / backgammon only with `scoring` 1)"),
    Slot("spare", 6, "unused (keeps the checkers at offset 16)"),
    Slot("board", 2 * SIDE, "`board + 26 * seat + i`: checkers of seat, i = 0 borne off, 1..24 its points, 25 its bar"),
)
PLAYER, SCORING, ROLLER, DIE_HI, DIE_LO, REM_HI, REM_LO, ROLLS, WINNER, POINTS, BOARD = SCHEMA.offsets(
    "player", "scoring", "roller", "die_hi", "die_lo", "rem_hi", "rem_lo", "rolls", "result", "points",
    "board")
BAR = 25
OFF = 0
STATE_SIZE = SCHEMA.size
NUM_ACTIONS = 150
MAX_AFTERSTATES = 4096
"""Room for the distinct plays of one roll (the most known for a position is about 4,000)."""

OPENING_BASE = 36

AFTER_SIG = AFTERSTATES_SIG
"""afterstates(state, out, paths) -> count: the distinct end-of-turn positions of the roll being
played (rows of ``out``) and one action sequence reaching each (rows of ``paths``, -1 padded)."""

START = np.zeros(26, np.int64)
START[24] = 2
START[13] = 5
START[8] = 3
START[6] = 5

_rng = np.random.default_rng(20240531)
ZOBRIST = _rng.integers(1, 2**62, size=(2 * SIDE, 16), dtype=np.int64)
ZOBRIST_HEAD = _rng.integers(1, 2**62, size=(8, 8), dtype=np.int64)


def check_rows(states: np.ndarray) -> str | None:
    """``Game.check_rows`` for backgammon: whose turn, the dice and their uses, the result, and
    15 checkers a side with no point held by both (the kernels index with the checker counts
    and the dice)."""
    player, result = states[:, PLAYER], states[:, WINNER]
    hi, lo, rem_hi, rem_lo = states[:, DIE_HI], states[:, DIE_LO], states[:, REM_HI], states[:, REM_LO]
    board = states[:, BOARD : BOARD + 2 * SIDE]
    over, moving = player == TERMINAL, (player == 0) | (player == 1)
    return kernels.first_row_problem("Backgammon", (
        (~over & ~moving & (player != CHANCE), "the player slot is not 0, 1, CHANCE (-1) or TERMINAL (-4)"),
        ((states[:, SCORING] != 0) & (states[:, SCORING] != 1), "its scoring is not 0 (single) or 1 (gammons)"),
        ((states[:, ROLLER] != 0) & (states[:, ROLLER] != 1), "the seat to roll is not 0 or 1"),
        ((lo < 0) | (lo > hi) | (hi > 6), "its dice are not 0 <= smaller <= larger <= 6"),
        ((rem_hi < 0) | (rem_hi > 4) | (rem_lo < 0) | (rem_lo > 1), "the dice's uses left are not 0-4 and 0-1"),
        (moving & ((lo < 1) | (rem_hi + rem_lo < 1)), "a player is to move without a roll to play"),
        ((states[:, ROLLS] != 0) & (states[:, ROLLS] != 1), "its opening-roll flag is not 0 or 1"),
        *kernels.two_player_result_checks(player, result, draws=False),
        ((states[:, POINTS] < 0) | (states[:, POINTS] > 3), "the points won are not 0 to 3"),
        (((board < 0) | (board > 15)).any(axis=1), "a point holds fewer than 0 or more than 15 checkers"),
        ((board[:, :SIDE].sum(axis=1) != 15) | (board[:, SIDE:].sum(axis=1) != 15), "a side has not 15 checkers"),
        (((board[:, 1:25] > 0) & (board[:, SIDE + 24 : SIDE : -1] > 0)).any(axis=1), "both sides hold a point"),
    ))


def initial_array(scoring: int = 0) -> np.ndarray:
    state = np.zeros(STATE_SIZE, np.int64)
    state[PLAYER] = CHANCE
    state[SCORING] = scoring
    state[WINNER] = -1
    state[BOARD : BOARD + SIDE] = START
    state[BOARD + SIDE : BOARD + 2 * SIDE] = START
    return state


# ----- single checker moves on the boards ------------------------------------------------------
@njit(cache=True, inline="always")
def _base(seat):
    return BOARD + SIDE * seat


@njit(cache=True)
def _can_move(state, seat, src, die):
    """Whether seat may move one checker from its point src (25 = bar) by die."""
    own = _base(seat)
    opp = _base(1 - seat)
    if state[own + src] == 0:
        return False
    if src != BAR and state[own + BAR] > 0:
        return False
    dst = src - die
    if dst >= 1:
        return state[opp + 25 - dst] <= 1
    # bearing off: every checker in the home board
    for i in range(7, 26):
        if state[own + i] > 0:
            return False
    if dst == 0:
        return True
    for i in range(src + 1, 7):
        if state[own + i] > 0:
            return False
    return True


@njit(cache=True)
def _move(state, seat, src, die):
    """Moves the checker (assumed legal); returns 1 if it hit a blot."""
    own = _base(seat)
    opp = _base(1 - seat)
    dst = src - die
    state[own + src] -= 1
    if dst <= 0:
        state[own + OFF] += 1
        return 0
    state[own + dst] += 1
    if state[opp + 25 - dst] == 1:
        state[opp + 25 - dst] = 0
        state[opp + BAR] += 1
        return 1
    return 0


@njit(cache=True)
def _unmove(state, seat, src, die, hit):
    own = _base(seat)
    opp = _base(1 - seat)
    dst = src - die
    state[own + src] += 1
    if dst <= 0:
        state[own + OFF] -= 1
        return
    state[own + dst] -= 1
    if hit:
        state[opp + 25 - dst] = 1
        state[opp + BAR] -= 1


@njit(cache=True)
def _any_move(state, seat, die):
    for src in range(25, 0, -1):
        if _can_move(state, seat, src, die):
            return True
    return False


@njit(cache=True)
def _board_hash(state):
    key = 0
    for i in range(2 * SIDE):
        key ^= ZOBRIST[i, state[BOARD + i]]
    return key


@njit(cache=True)
def _move_keyed(state, seat, src, die, key):
    """_move that also updates the board hash ``key`` (only the cells that change); returns
    (hit, new key)."""
    own = SIDE * seat
    opp = SIDE * (1 - seat)
    dst = src - die
    a = own + src
    b = own + (dst if dst > 0 else OFF)
    key ^= ZOBRIST[a, state[BOARD + a]] ^ ZOBRIST[b, state[BOARD + b]]
    if dst > 0:
        c = opp + 25 - dst
        d = opp + BAR
        key ^= ZOBRIST[c, state[BOARD + c]] ^ ZOBRIST[d, state[BOARD + d]]
    hit = _move(state, seat, src, die)
    key ^= ZOBRIST[a, state[BOARD + a]] ^ ZOBRIST[b, state[BOARD + b]]
    if dst > 0:
        key ^= ZOBRIST[c, state[BOARD + c]] ^ ZOBRIST[d, state[BOARD + d]]
    return hit, key


@njit(cache=True)
def _walk(state, seat, hi, rem_hi, lo, rem_lo, need, collect, out, paths):
    """Depth-first over the single moves of the remaining dice, without recursion.

    collect False: returns the most dice that can be played, stopping once ``need`` is reached.
    collect True: records each distinct position reached after ``need`` moves in out/paths
    (de-duplicated by board hashes) and returns how many (out.shape[0] + 1 if more did not
    fit). Doubles move checkers in non-increasing source
    order: any play can be so ordered, so nothing is lost and repeats are fewer.
    """
    # one allocation for the small per-depth arrays (this runs at every node of a search)
    scratch = np.zeros((9, 5), np.int64)
    path = scratch[0]
    keys = np.empty(64, np.int64)  # keys of the first afterstates (a hash set takes over at 48)
    table = scratch[8, :1]
    if need <= 0 or rem_hi + rem_lo == 0:
        if collect:
            return _record(state, _board_hash(state), 0, path, paths, out, keys, table, 0)
        return 0
    doubles = hi == lo
    own = _base(seat)
    which = scratch[1]
    nxt = scratch[2]
    msrc = scratch[3]
    mdie = scratch[4]
    mhit = scratch[5]
    mwhich = scratch[6]
    mkey = scratch[7]  # board hash before the move at each depth (collect mode)
    key = _board_hash(state) if collect else 0
    rh = rem_hi
    rl = rem_lo
    best = 0
    count = 0
    depth = 0
    nxt[0] = 25
    while depth >= 0:
        found = False
        src = 0
        die = 0
        while which[depth] < 2:
            w = which[depth]
            if (w == 0 and rh == 0) or (w == 1 and (rl == 0 or doubles)):
                which[depth] += 1
                nxt[depth] = msrc[depth - 1] if (doubles and depth > 0) else 25
                continue
            die = hi if w == 0 else lo
            while nxt[depth] >= 1:
                src = nxt[depth]
                nxt[depth] -= 1
                if state[own + src] == 0:  # the common case, without a call
                    continue
                if src != BAR and state[own + BAR] > 0:
                    nxt[depth] = 0  # checkers on the bar: nothing else may move
                    break
                if _can_move(state, seat, src, die):
                    found = True
                    break
            if found:
                break
            which[depth] += 1
            nxt[depth] = msrc[depth - 1] if (doubles and depth > 0) else 25
        if not found:
            depth -= 1
            if depth >= 0:
                _unmove(state, seat, msrc[depth], mdie[depth], mhit[depth])
                key = mkey[depth]
                if mwhich[depth] == 0:
                    rh += 1
                else:
                    rl += 1
            continue
        mkey[depth] = key
        if collect:
            mhit[depth], key = _move_keyed(state, seat, src, die, key)
        else:
            mhit[depth] = _move(state, seat, src, die)
        msrc[depth] = src
        mdie[depth] = die
        mwhich[depth] = which[depth]
        path[depth] = (src - 1) * 6 + die - 1
        if which[depth] == 0:
            rh -= 1
        else:
            rl -= 1
        depth += 1
        if depth > best:
            best = depth
        if not collect and best >= need:
            for k in range(depth - 1, -1, -1):
                _unmove(state, seat, msrc[k], mdie[k], mhit[k])
            return best
        if depth == need or rh + rl == 0:
            if collect and depth == need:
                count = _record(state, key, depth, path, paths, out, keys, table, count)
                if count == 48 and table.shape[0] == 1:
                    table = _hash_set(keys, count, out.shape[0])
            # take the move back and try the next one at this depth
            depth -= 1
            _unmove(state, seat, msrc[depth], mdie[depth], mhit[depth])
            key = mkey[depth]
            if mwhich[depth] == 0:
                rh += 1
            else:
                rl += 1
            continue
        which[depth] = 0
        nxt[depth] = src if doubles else 25
    return count if collect else best


@njit(cache=True)
def _record(state, key, depth, path, paths, out, keys, table, count):
    """Stores state (whose board hash is key) as a new afterstate unless its board was seen;
    returns the new count (out.shape[0] + 1 once more than fit). Few afterstates are
    de-duplicated by a linear scan of their keys; ``table`` (a hash set, used when it is larger
    than one slot) takes over for the many of some doubles."""
    if table.shape[0] > 1:
        mask = table.shape[0] - 1
        slot = key & mask
        while table[slot] != 0:
            if table[slot] == key:
                return count
            slot = (slot + 1) & mask
        table[slot] = key
    else:
        for k in range(min(count, keys.shape[0])):
            if keys[k] == key:
                return count
    if count >= out.shape[0]:
        return out.shape[0] + 1
    if count < keys.shape[0]:
        keys[count] = key
    for i in range(STATE_SIZE):
        out[count, i] = state[i]
    out[count, REM_HI] = 0
    out[count, REM_LO] = 0
    for i in range(paths.shape[1]):
        paths[count, i] = path[i] if i < depth else -1
    return count + 1


@njit(cache=True)
def _hash_set(keys, count, capacity):
    size = 64
    while size < 2 * capacity:
        size *= 2
    table = np.zeros(size, np.int64)
    mask = size - 1
    for k in range(count):
        slot = keys[k] & mask
        while table[slot] != 0:
            slot = (slot + 1) & mask
        table[slot] = keys[k]
    return table


@njit(cache=True)
def _max_usage(state, seat, hi, rem_hi, lo, rem_lo, cap):
    """The most dice of the remaining ones that can be played (stops early at cap)."""
    dummy = np.zeros((1, 1), np.int64)
    return _walk(state, seat, hi, rem_hi, lo, rem_lo, cap, False, dummy, dummy)


@njit(cache=True)
def _finish_turn_if_done(state):
    """After a move: ends the game, or passes the dice when the roll is used or blocked."""
    seat = state[PLAYER]
    own = _base(seat)
    if state[own + OFF] == 15:
        opp = _base(1 - seat)
        state[WINNER] = seat
        points = 1
        if state[SCORING] == 1 and state[opp + OFF] == 0:
            points = 2
            # a backgammon: the loser still has checkers on the bar or in the winner's home
            for i in range(19, 26):
                if state[opp + i] > 0:
                    points = 3
        state[POINTS] = points
        state[PLAYER] = TERMINAL
        return
    blocked = True
    if state[REM_HI] > 0 and _any_move(state, seat, state[DIE_HI]):
        blocked = False
    elif state[REM_LO] > 0 and _any_move(state, seat, state[DIE_LO]):
        blocked = False
    if blocked:
        state[REM_HI] = 0
        state[REM_LO] = 0
        state[PLAYER] = CHANCE
        state[ROLLER] = 1 - seat


# ----- kernels -----------------------------------------------------------------------------------
@njit(cache=True)
def _legal_moves(state, out):
    seat = state[PLAYER]
    hi = state[DIE_HI]
    lo = state[DIE_LO]
    rem_hi = state[REM_HI]
    rem_lo = state[REM_LO]
    total = rem_hi + rem_lo
    most = _max_usage(state, seat, hi, rem_hi, lo, rem_lo, total)
    if most == 0:
        return 0
    n = 0
    n_hi = 0
    for which in range(2):
        if which == 0:
            if rem_hi == 0:
                continue
            die = hi
        else:
            if rem_lo == 0 or lo == hi:
                continue
            die = lo
        for src in range(25, 0, -1):
            if not _can_move(state, seat, src, die):
                continue
            if most > 1:
                hit = _move(state, seat, src, die)
                if which == 0:
                    used = _max_usage(state, seat, hi, rem_hi - 1, lo, rem_lo, most - 1)
                else:
                    used = _max_usage(state, seat, hi, rem_hi, lo, rem_lo - 1, most - 1)
                _unmove(state, seat, src, die, hit)
                if used < most - 1:
                    continue
            out[n] = (src - 1) * 6 + die - 1
            n += 1
            if which == 0:
                n_hi += 1
    # only one of two different dice can be played: the larger one if it can
    if most == 1 and rem_hi > 0 and rem_lo > 0 and hi != lo and n_hi > 0:
        n = n_hi
    return n


@njit(CHANCE_SIG, cache=True)
def chance_outcomes(state, outcomes, probs):
    if state[PLAYER] != CHANCE:
        return 0
    n = 0
    if state[ROLLS] == 0:
        for d0 in range(1, 7):
            for d1 in range(1, 7):
                if d0 != d1:
                    outcomes[n] = OPENING_BASE + (d0 - 1) * 6 + d1 - 1
                    probs[n] = 1.0 / 30.0
                    n += 1
        return n
    for hi in range(1, 7):
        for lo in range(1, hi + 1):
            outcomes[n] = (hi - 1) * 6 + lo - 1
            probs[n] = 1.0 / 36.0 if hi == lo else 2.0 / 36.0
            n += 1
    return n


@njit(LEGAL_SIG, cache=True)
def legal_actions(state, out):
    if state[PLAYER] == TERMINAL:
        return 0
    if state[PLAYER] == CHANCE:
        probs = np.empty(30, np.float64)
        return chance_outcomes(state, out, probs)
    return _legal_moves(state, out)


@njit(cache=True)
def _roll(state, outcome):
    if outcome >= OPENING_BASE:
        k = outcome - OPENING_BASE
        d0 = k // 6 + 1
        d1 = k % 6 + 1
        seat = 0 if d0 > d1 else 1
        hi = max(d0, d1)
        lo = min(d0, d1)
    else:
        seat = state[ROLLER]
        hi = outcome // 6 + 1
        lo = outcome % 6 + 1
    state[ROLLS] = 1
    state[PLAYER] = seat
    state[DIE_HI] = hi
    state[DIE_LO] = lo
    if hi == lo:
        state[REM_HI] = 4
        state[REM_LO] = 0
    else:
        state[REM_HI] = 1
        state[REM_LO] = 1
    _finish_turn_if_done(state)


@njit(APPLY_SIG, cache=True)
def apply_action(state, action, undo_row):
    for i in range(STATE_SIZE):
        undo_row[i] = state[i]
    if state[PLAYER] == CHANCE:
        _roll(state, action)
        return
    seat = state[PLAYER]
    src = action // 6 + 1
    die = action % 6 + 1
    _move(state, seat, src, die)
    if die == state[DIE_HI] and state[REM_HI] > 0:
        state[REM_HI] -= 1
    else:
        state[REM_LO] -= 1
    _finish_turn_if_done(state)


@njit(UNDO_SIG, cache=True)
def undo_action(state, action, undo_row):
    for i in range(STATE_SIZE):
        state[i] = undo_row[i]


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    out[0] = 0.0
    out[1] = 0.0
    winner = state[WINNER]
    if winner >= 0:
        out[winner] = float(state[POINTS])
        out[1 - winner] = -float(state[POINTS])


@njit(HASH_SIG, cache=True)
def hash_state(state):
    key = _board_hash(state)
    key ^= ZOBRIST_HEAD[0, state[PLAYER] + 4]
    key ^= ZOBRIST_HEAD[1, state[ROLLER]]
    key ^= ZOBRIST_HEAD[2, state[DIE_HI]]
    key ^= ZOBRIST_HEAD[3, state[DIE_LO]]
    key ^= ZOBRIST_HEAD[4, state[REM_HI]]
    key ^= ZOBRIST_HEAD[5, state[REM_LO]]
    key ^= ZOBRIST_HEAD[6, state[ROLLS]]
    return key


# ----- afterstates: the distinct end-of-turn positions of a roll ------------------------------------
@njit(AFTER_SIG, cache=True)
def afterstates(state, out, paths):
    """The distinct positions the roll being played can end in (see ``AFTER_SIG``).

    At a player node: every legal way to finish the turn, de-duplicated; each row is the state
    after the turn (a chance node for the opponent's roll, or terminal). Returns -1 when
    ``out`` is too small (its rows then hold the first ones found).
    """
    seat = state[PLAYER]
    if seat < 0:
        return 0
    hi = state[DIE_HI]
    lo = state[DIE_LO]
    rem_hi = state[REM_HI]
    rem_lo = state[REM_LO]
    most = _max_usage(state, seat, hi, rem_hi, lo, rem_lo, rem_hi + rem_lo)
    if most == 1 and rem_hi > 0 and rem_lo > 0 and hi != lo and _any_move(state, seat, hi):
        rem_lo = 0  # only one die can be played: the larger one
    work = state.copy()
    count = _walk(work, seat, hi, rem_hi, lo, rem_lo, most, True, out, paths)
    overflow = count > out.shape[0]
    if overflow:
        count = out.shape[0]
    # finish each turn exactly as apply_action would
    own = _base(seat)
    for k in range(count):
        row = out[k]
        if row[own + OFF] == 15:
            _finish_turn_if_done(row)
        else:
            row[PLAYER] = CHANCE
            row[ROLLER] = 1 - seat
    return -1 if overflow else count


# ----- heuristics ------------------------------------------------------------------------------------
@njit(cache=True)
def _pips(state, seat):
    own = _base(seat)
    total = 0
    for i in range(1, 26):
        total += i * state[own + i]
    return total


@njit(cache=True)
def _blots(state, seat):
    own = _base(seat)
    n = 0
    for i in range(1, 25):
        if state[own + i] == 1:
            n += 1
    return n


@njit(cache=True)
def _made_points(state, seat, home_only):
    own = _base(seat)
    n = 0
    top = 6 if home_only else 24
    for i in range(1, top + 1):
        if state[own + i] >= 2:
            n += 1
    return n


@njit(cache=True)
def _longest_prime(state, seat):
    own = _base(seat)
    best = 0
    run = 0
    for i in range(1, 25):
        if state[own + i] >= 2:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@njit(cache=True)
def _squash(x):
    return np.tanh(x)


@njit(EVAL_SIG, cache=True)
def evaluate_singleton(state, seat, params):
    """The write-up's ``singleton``: checkers borne off are good, blots (single checkers) bad.

    Value = tanh(w_off * (off - opponent off) - w_blot * blots + w_opp_blot * opponent blots
    - w_bar * own on bar + w_bar * opponent on bar) / scale; params: off, blot, bar, scale."""
    own = _base(seat)
    opp = _base(1 - seat)
    x = params[0] * (state[own + OFF] - state[opp + OFF])
    x -= params[1] * _blots(state, seat)
    x += params[1] * 0.5 * _blots(state, 1 - seat)
    x -= params[2] * (state[own + BAR] - state[opp + BAR])
    return 0.999 * _squash(x / params[3])


@njit(EVAL_SIG, cache=True)
def evaluate_pips(state, seat, params):
    """Race: the pip count lead (opponent's pips minus own) scaled by params[0] into (-1, 1)."""
    lead = _pips(state, 1 - seat) - _pips(state, seat)
    return 0.999 * _squash(lead / params[0])


@njit(EVAL_SIG, cache=True)
def evaluate_points(state, seat, params):
    """Made points (2+ checkers), home-board points count params[1] extra, blots cost params[2]."""
    x = params[0] * (_made_points(state, seat, False) - _made_points(state, 1 - seat, False))
    x += params[1] * (_made_points(state, seat, True) - _made_points(state, 1 - seat, True))
    x -= params[2] * (_blots(state, seat) - _blots(state, 1 - seat))
    return 0.999 * _squash(x / params[3])


@njit(EVAL_SIG, cache=True)
def evaluate_primes(state, seat, params):
    """The longest run of made points (a prime) against the opponent's, plus a pip term."""
    x = params[0] * (_longest_prime(state, seat) - _longest_prime(state, 1 - seat))
    x += params[1] * (_pips(state, 1 - seat) - _pips(state, seat)) / 10.0
    return 0.999 * _squash(x / params[2])


@njit(EVAL_SIG, cache=True)
def evaluate_combined(state, seat, params):
    """A weighted mix of the above: pip lead, blots (weighted by exposure to the opponent's
    checkers behind them), made points, home points, the longest prime, bar and borne-off."""
    own = _base(seat)
    opp = _base(1 - seat)
    x = params[0] * (_pips(state, 1 - seat) - _pips(state, seat)) / 10.0
    # a blot only matters when an opponent checker is behind it (could hit it)
    exposed = 0.0
    for i in range(1, 25):
        if state[own + i] == 1:
            for j in range(25 - i + 1, 26):
                if state[opp + j] > 0:
                    exposed += 1.0 + (0.5 if i <= 6 else 0.0)
                    break
    exposed_opp = 0.0
    for i in range(1, 25):
        if state[opp + i] == 1:
            for j in range(25 - i + 1, 26):
                if state[own + j] > 0:
                    exposed_opp += 1.0 + (0.5 if i <= 6 else 0.0)
                    break
    x -= params[1] * (exposed - 0.5 * exposed_opp)
    x += params[2] * (_made_points(state, seat, False) - _made_points(state, 1 - seat, False))
    x += params[3] * (_made_points(state, seat, True) - _made_points(state, 1 - seat, True))
    x += params[4] * (_longest_prime(state, seat) - _longest_prime(state, 1 - seat))
    x -= params[5] * (state[own + BAR] - state[opp + BAR])
    x += params[6] * (state[own + OFF] - state[opp + OFF])
    return 0.999 * _squash(x / params[7])


KERNELS = Kernels(legal_actions, apply_action, undo_action, returns, hash_state, chance_outcomes)

OBSERVE_SIG = types.void(STATE_T, types.int64, types.float32[::1])
"""observe(state, seat, out): the observation for seat, flattened, into out (float32)."""
OBSERVATION_SIZE = 204


@njit(OBSERVE_SIG, cache=True)
def observe(state, seat, out):
    """198 TD-Gammon-style inputs from seat's view plus the 6 dice left (204 floats): for
    each of seat's points 1..24, own then opponent checkers as 4 units each, bars, borne-off
    fractions, whose turn, and the remaining dice counts / 4."""
    own = BOARD + SIDE * seat
    opp = BOARD + SIDE * (1 - seat)
    for side in range(2):
        for i in range(1, 25):
            n = state[own + i] if side == 0 else state[opp + 25 - i]
            k = 96 * side + 4 * (i - 1)
            out[k] = 1.0 if n >= 1 else 0.0
            out[k + 1] = 1.0 if n >= 2 else 0.0
            out[k + 2] = 1.0 if n >= 3 else 0.0
            out[k + 3] = max(0, n - 3) / 2.0
        base = own if side == 0 else opp
        out[192 + side] = state[base + BAR] / 2.0
        out[194 + side] = state[base + OFF] / 15.0
    out[196] = 1.0 if state[PLAYER] == seat else 0.0
    out[197] = 1.0 if state[PLAYER] == 1 - seat else 0.0
    for die in range(1, 7):
        out[197 + die] = 0.0
    if state[REM_HI] > 0:
        out[197 + state[DIE_HI]] += 0.25 * state[REM_HI]
    if state[REM_LO] > 0:
        out[197 + state[DIE_LO]] += 0.25 * state[REM_LO]
