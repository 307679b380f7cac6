"""Backgammon inputs for value networks: the raw board beside features that describe it.

A position is described from the view of ``me``, the side that moves next (at an afterstate:
the opponent of the side that just moved), then from the view of the other side, with the same
units in the same order (``INPUT_NAMES`` lists them; docs/backgammon.md explains each):

- raw board, per side: points 1..24 in the side's own numbering as four units each
  (one checker, two, three, (n - 3) / 2 beyond three), the bar / 2 and borne off / 15;
- per side: pip count, blots, the opponent's rolls (of 36) that hit a blot with one die
  (direct) and in any way (direct or indirect), points made, home points made, anchors in the
  opponent's home, the longest prime and where it ends, the rear checker's escaping rolls,
  checkers behind an opponent point outside its home, checkers outside home and crossovers still to make.

then, since 2026-11-25, six contact inputs per side after both sides (``EXTRA_NAMES``): the
opponent's blockade, mobility, pips to reach the opponent's rear checker, the back anchor, the pips a hit costs on
average and the rolls that fail to enter from the bar, and since 2026-11-27 two more per side
after those (``LATE_NAMES``): the opponent's rolls that hit two blots, and the blockade measured
from every point a checker could stand on. Networks trained before read only a prefix
(``INPUT_WIDTHS``; their ``inputs`` setting).

The position's class picks the network: once every checker of one side has passed every
checker of the other, no checker can be hit again and a separate race network takes over; a
contact position where a side has crashed (at most six checkers still in play, ``_crashed``)
is its own class, ``CRASHED``, for networks that have a third one (networks of two classes read
it as contact: ``network_classes``). Everything is compiled and batched: ``encode(states,
mover)`` fills one row per state.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.backgammon import rules
from plies.games.kernels import EVAL_SIG
from plies.games.value_kernels import MAX_WIDTH, affine, value_for_seat

CONTACT = 0
RACE = 1
CRASHED = 2
CLASS_NAMES = ("contact", "race", "crashed")
NETWORK_CLASSES = (2, 3)
"""A contact/race network has two classes (contact, race) or three (and crashed)."""

RAW_PER_SIDE = 24 * 4 + 2
FEATURES_PER_SIDE = 14
FEATURE_NAMES = (
    "pips / 100",
    "blots / 5",
    "direct shots / 36 (opponent rolls hitting a blot with one die)",
    "shots / 36 (opponent rolls hitting a blot in any way)",
    "points made / 12",
    "home points made / 6",
    "anchors in the opponent's home / 3",
    "longest prime / 6",
    "lowest point of the longest prime / 24",
    "rolls carrying the rear checker past the nearest opponent point / 36",
    "checkers behind an opponent point outside own home / 15",
    "checkers outside home / 15",
    "crossovers to make / 45",
    "contact (1) or race (0)",
)
SIDE_SIZE = RAW_PER_SIDE + FEATURES_PER_SIDE
BASE_INPUTS = 2 * SIDE_SIZE
"""The inputs of networks trained before the contact inputs below (their default)."""
EXTRA_NAMES = (
    "blockade: 1 - rolls (of 36) escaping from the worst point 13..25 holding a checker past the opponent's points within 12 pips",
    "mobility: single-die moves open to the checkers / 90",
    "pips still to move to reach the opponent's rear checker / 100 (its checker on the bar: the pip count)",
    "back anchor: highest point 13..24 made / 24 (0: none)",
    "pip loss: pips a hit sets the side back, averaged over the opponent's 36 rolls / 24",
    "bar entry: the opponent's rolls (of 36) that fail to enter against the side's home board / 36",
)
EXTRAS_PER_SIDE = len(EXTRA_NAMES)
CONTACT_INPUTS = BASE_INPUTS + 2 * EXTRAS_PER_SIDE
"""The inputs of networks trained from 2026-11-25 to 2026-11-27 (``eval=cr2240k``)."""
LATE_NAMES = (
    "double shots: the opponent's rolls (of 36) that hit two of the side's blots / 36",
    "containment: 1 - rolls (of 36) escaping from the worst point 13..25 the opponent has not made, past its points within 12 pips",
)
LATE_PER_SIDE = len(LATE_NAMES)
INPUT_SIZE = CONTACT_INPUTS + 2 * LATE_PER_SIDE
INPUT_WIDTHS = (BASE_INPUTS, CONTACT_INPUTS, INPUT_SIZE)
"""The input counts a contact/race network may read: each a prefix of the next."""


def _input_names() -> tuple[str, ...]:
    names = []
    for side in ("me", "opponent"):
        for point in range(1, 25):
            for unit in ("1", "2", "3", "beyond 3 / 2"):
                names.append(f"{side}: point {point} checkers {unit}")
        names += [f"{side}: bar / 2", f"{side}: borne off / 15"]
        names += [f"{side}: {name}" for name in FEATURE_NAMES]
    for side in ("me", "opponent"):
        names += [f"{side}: {name}" for name in EXTRA_NAMES]
    for side in ("me", "opponent"):
        names += [f"{side}: {name}" for name in LATE_NAMES]
    return tuple(names)


INPUT_NAMES = _input_names()

# the 21 distinct rolls with their weight out of 36
_ROLL_HI = np.array([hi for hi in range(1, 7) for lo in range(1, hi + 1)], np.int64)
_ROLL_LO = np.array([lo for hi in range(1, 7) for lo in range(1, hi + 1)], np.int64)
_ROLL_WEIGHT = np.where(_ROLL_HI == _ROLL_LO, 1, 2).astype(np.int64)


@njit(cache=True)
def _side_counts(state, seat, out):
    """out[0..25]: seat's checkers, 0 borne off, 1..24 its points, 25 its bar."""
    base = rules.BOARD + rules.SIDE * seat
    for i in range(26):
        out[i] = state[base + i]


@njit(cache=True)
def _rear(counts):
    """The highest point (25 = bar) holding a checker, 0 when all are borne off."""
    for i in range(25, 0, -1):
        if counts[i] > 0:
            return i
    return 0


@njit(cache=True)
def is_contact(state) -> bool:
    """Whether a checker of one side can still meet one of the other."""
    a = np.empty(26, np.int64)
    b = np.empty(26, np.int64)
    _side_counts(state, 0, a)
    _side_counts(state, 1, b)
    # seat 0's point i is seat 1's point 25 - i: they have passed when rear0 + rear1 < 25
    return _rear(a) + _rear(b) > 25


@njit(cache=True)
def _hits(hitter, target, blot_at, blocked):
    """(direct, any, pip loss): rolls (of 36) with which ``hitter`` hits at least one blot of
    ``target`` by one die, and in any way; and the sum over the 36 rolls of the pips the
    farthest-travelled blot hit by that roll loses (0 for a roll that hits nothing).

    Both arrays are in their own side's numbering (0 off, 25 bar); hitter's point j is target's
    point 25 - j. A hit lands on a target blot by one die (direct), or by both dice or a double's
    steps with every intermediate landing point open (indirect). Checkers on the bar must enter
    first: with two or more there, only the entering checkers hit, each with a single die.
    ``blot_at`` and ``blocked`` are scratch rows of 26 (no allocation per position)."""
    any_blot = False
    for i in range(26):
        blot_at[i] = False
        blocked[i] = False
    for i in range(1, 25):
        if target[i] == 1:
            blot_at[25 - i] = True  # in the hitter's numbering
            any_blot = True
        elif target[i] >= 2:
            blocked[25 - i] = True  # target points made, in the hitter's numbering
    if not any_blot:
        return 0, 0, 0
    # a hit on blot a by a die d can only come from point a + d: the search runs over the blots
    blots = _blot_points(blot_at)
    count = len(blots)
    on_bar = hitter[25]
    direct_total = 0
    any_total = 0
    loss_total = 0
    for r in range(21):
        hi = _ROLL_HI[r]
        lo = _ROLL_LO[r]
        direct = False
        hit = False
        loss = 0  # a blot on the hitter's point p has travelled p pips: a hit sends it back that far
        for m in range(count):
            a = blots[m]
            if hi == lo:  # a double's steps from the nearest checker, over open points with no blot
                steps = 1 if on_bar >= 2 else 4
                for k in range(1, steps + 1):
                    j = a + k * hi
                    if j > 25:
                        break
                    if _hits_from(hitter, on_bar, j):
                        hit = True
                        loss = max(loss, a)
                        if k == 1:
                            direct = True
                        break
                    if blocked[j] or blot_at[j]:
                        break
            else:
                for die in (hi, lo):
                    if a + die <= 25 and _hits_from(hitter, on_bar, a + die):
                        direct = True
                        hit = True
                        loss = max(loss, a)
                j = a + hi + lo
                if (on_bar < 2 and j <= 25 and _hits_from(hitter, on_bar, j)
                        and (not blocked[a + lo] or not blocked[a + hi])):
                    hit = True
                    loss = max(loss, a)
        if direct:
            direct_total += _ROLL_WEIGHT[r]
        if hit:
            any_total += _ROLL_WEIGHT[r]
            loss_total += _ROLL_WEIGHT[r] * loss
    return direct_total, any_total, loss_total


@njit(cache=True)
def _blot_points(blot_at):
    """The points 1..24 that ``blot_at`` marks, highest first."""
    blots = np.empty(24, np.int64)
    count = 0
    for a in range(24, 0, -1):
        if blot_at[a]:
            blots[count] = a
            count += 1
    return blots[:count]


@njit(cache=True)
def _hits_from(hitter, on_bar, j):
    """Whether a checker of ``hitter`` on point j may hit this roll: with checkers on the bar
    only those do (the entering checker goes on with the other die)."""
    if on_bar > 0:
        return j == 25
    return j <= 24 and hitter[j] > 0


@njit(cache=True)
def _two_hits_two_dice(hitter, blot_at, blots, count, hi, lo):
    """Whether ``hitter`` can hit two blots with the roll hi-lo (hi != lo): each die hits, by
    two checkers or by one that hits with one die and goes on to hit with the other. With two or
    more checkers on the bar both dice enter; with one, the entering die must hit. ``blots[:count]``
    are the blots' points (the hitter's numbering): a direct hit on blot a by die d can only come
    from point a + d, so the search runs over pairs of blots, not over the board."""
    on_bar = hitter[25]
    if on_bar >= 2:
        return blot_at[25 - hi] and blot_at[25 - lo]
    for order in range(2):
        first = hi if order == 0 else lo
        second = lo if order == 0 else hi
        for m in range(count):
            a = blots[m]
            j = a + first  # the checker that hits a with the first die
            if j > 25 or hitter[j] == 0 or (on_bar == 1 and j != 25):
                continue
            if a - second >= 1 and blot_at[a - second]:
                return True  # the same checker goes on
            for n in range(count):
                i = blots[n] + second  # another checker hits blots[n] with the second die
                if n != m and i <= 24 and hitter[i] > (1 if i == j else 0):
                    return True
    return False


@njit(cache=True)
def _two_hits_double(hitter, blot_at, blocked, die, cost):
    """Whether ``hitter`` can hit two blots with a double of ``die``: four steps over open points,
    the bar's checkers entering first; ``cost`` is a scratch row of 26 (the fewest steps to each
    blot)."""
    on_bar = hitter[25]
    entry = 25 - die
    budget = 4
    entry_hit = False
    if on_bar > 0:
        if blocked[entry]:
            return False
        budget = 4 - min(on_bar, 4)
        entry_hit = blot_at[entry]
    for i in range(26):
        cost[i] = 99
    for s in range(24, 0, -1):
        if not (hitter[s] > 0 or (on_bar > 0 and s == entry)):
            continue
        landed = 0
        for m in range(1, budget + 1):
            p = s - m * die
            if p < 1 or blocked[p]:
                break
            if blot_at[p]:
                landed += 1
                cost[p] = min(cost[p], m)
                if landed >= 2 or entry_hit:
                    return True  # one checker's steps hit two
    fewest = 99
    next_fewest = 99
    for p in range(1, 25):  # no walk lands on the entry point: its blot has no cost here
        if cost[p] < fewest:
            next_fewest = fewest
            fewest = cost[p]
        elif cost[p] < next_fewest:
            next_fewest = cost[p]
    return fewest + next_fewest <= budget


@njit(cache=True)
def _double_shots(hitter, blot_at, blocked, cost):
    """Rolls (of 36) with which ``hitter`` hits two blots, with ``blot_at`` and ``blocked`` as
    ``_hits`` left them (in the hitter's numbering); ``cost`` is a scratch row of 26."""
    blots = _blot_points(blot_at)
    count = len(blots)
    if count < 2:
        return 0
    total = 0
    for r in range(21):
        hi = _ROLL_HI[r]
        lo = _ROLL_LO[r]
        if hi == lo:
            two = _two_hits_double(hitter, blot_at, blocked, hi, cost)
        else:
            two = _two_hits_two_dice(hitter, blot_at, blots, count, hi, lo)
        if two:
            total += _ROLL_WEIGHT[r]
    return total


@njit(cache=True)
def _rolls_landing_below(start, target, blocked):
    """Rolls (of 36) that carry one checker from ``start`` to an open point below ``target``
    (and above 0), by one die, by both with an open point between, or by a double's steps over
    open points."""
    total = 0
    for r in range(21):
        hi = _ROLL_HI[r]
        lo = _ROLL_LO[r]
        ok = False
        if hi == lo:
            p = start
            for _ in range(4):
                p -= hi
                if p < 1 or blocked[p]:
                    break
                if p < target:
                    ok = True
                    break
        else:
            for die in (hi, lo):
                p = start - die
                if 1 <= p < target and not blocked[p]:
                    ok = True
            p = start - hi - lo
            if not ok and 1 <= p < target and not blocked[p] and (
                    not blocked[start - hi] or not blocked[start - lo]):
                ok = True
        if ok:
            total += _ROLL_WEIGHT[r]
    return total


@njit(cache=True)
def _escapes(own, opp, blocked):
    """Rolls (of 36) that carry own's rear checker past the nearest opponent point within 12
    pips in front of it, landing on open points (0 when no opponent point is that close);
    ``blocked`` is a scratch row of 26."""
    rear = _rear(own)
    if rear == 0:
        return 0
    for i in range(26):
        blocked[i] = False  # opponent points made, in own's numbering
    last_block = 0
    for j in range(1, 25):
        if opp[j] >= 2:
            p = 25 - j
            blocked[p] = True
            if p < rear and rear - p <= 12 and p > last_block:
                last_block = p
    if last_block == 0:
        return 0
    return _rolls_landing_below(rear, last_block, blocked)


@njit(cache=True)
def _escape_rolls(start, blocked):
    """Rolls (of 36) that carry a checker on ``start`` past every blocked point outside the
    side's home board within 12 pips in front of it, landing on open points (36 when none is
    blocked there)."""
    lowest = 0
    for p in range(max(7, start - 12), start):
        if blocked[p]:
            lowest = p
            break
    if lowest == 0:
        return 36
    return _rolls_landing_below(start, lowest, blocked)


@njit(cache=True)
def _extra_features(own, opp, loss, out, k, blocked):
    """EXTRAS_PER_SIDE contact units of side ``own`` (against ``opp``) into out[k:]; ``loss``:
    the pip loss sum of ``_hits(opp, own)``; ``blocked``: a scratch row of 26. Returns the
    escaping rolls from the worst point 13..25 the opponent has not made (containment's count)."""
    for i in range(26):
        blocked[i] = False  # opponent points made, in own's numbering
    for j in range(1, 25):
        if opp[j] >= 2:
            blocked[25 - j] = True
    fewest = 36  # from the most hemmed-in point holding a checker, bar included
    contained = 36  # the same from any point a checker could stand on
    for start in range(13, 26):
        if not blocked[start]:
            rolls = _escape_rolls(start, blocked)
            contained = min(contained, rolls)
            if own[start] > 0:
                fewest = min(fewest, rolls)
    moves = 0
    for die in range(1, 7):
        if own[25] > 0:
            if not blocked[25 - die]:
                moves += own[25]
            continue
        for i in range(die + 1, 25):
            if own[i] > 0 and not blocked[i - die]:
                moves += own[i]
    opp_rear = 25 - _rear(opp)  # the opponent's rear checker, in own's numbering
    to_pass = 0
    for i in range(opp_rear + 1, 26):
        to_pass += (i - opp_rear) * own[i]
    back_anchor = 0
    for i in range(24, 12, -1):
        if own[i] >= 2:
            back_anchor = i
            break
    closed = 0
    for i in range(1, 7):
        if own[i] >= 2:
            closed += 1
    out[k] = 1.0 - fewest / 36.0
    out[k + 1] = min(moves, 90) / 90.0
    out[k + 2] = to_pass / 100.0
    out[k + 3] = back_anchor / 24.0
    out[k + 4] = loss / 36.0 / 24.0
    out[k + 5] = closed * closed / 36.0
    return contained


@njit(cache=True)
def _late_features(double, contained, out, k):
    """LATE_PER_SIDE contact units of a side into out[k:]: ``double`` its double shots
    (``_double_shots``), ``contained`` the rolls ``_extra_features`` returned."""
    out[k] = double / 36.0
    out[k + 1] = 1.0 - contained / 36.0


@njit(cache=True)
def _side_features(own, opp, contact, out, k, extra_k, late_k, blot_at, blocked, cost):
    """FEATURES_PER_SIDE units of side ``own`` (against ``opp``) into out[k:], its
    EXTRAS_PER_SIDE contact units into out[extra_k:] and its LATE_PER_SIDE into out[late_k:]
    (``blot_at``, ``blocked`` and ``cost``: scratch rows of 26)."""
    pips = 0
    blots = 0
    made = 0
    home_made = 0
    anchors = 0
    outside = 0
    crossovers = 0
    for i in range(1, 26):
        c = own[i]
        pips += i * c
        if i <= 24:
            if c == 1:
                blots += 1
            if c >= 2:
                made += 1
                if i <= 6:
                    home_made += 1
                if i >= 19:
                    anchors += 1
        if i > 6:
            outside += c
            crossovers += c * ((i - 1) // 6)
    best = 0
    best_low = 0
    run = 0
    for i in range(1, 25):
        if own[i] >= 2:
            run += 1
            if run > best:
                best = run
                best_low = i - run + 1
        else:
            run = 0
    # own checkers still behind an opponent point outside own home board (to be escaped)
    lowest_block = 26
    for j in range(1, 19):
        if opp[j] >= 2 and 25 - j < lowest_block:
            lowest_block = 25 - j
    behind = 0
    for i in range(lowest_block + 1, 26):
        behind += own[i]
    out[k] = pips / 100.0
    out[k + 1] = blots / 5.0
    if contact:
        direct, anyway, loss = _hits(opp, own, blot_at, blocked)
        double = _double_shots(opp, blot_at, blocked, cost)
        out[k + 2] = direct / 36.0
        out[k + 3] = anyway / 36.0
        out[k + 9] = _escapes(own, opp, blocked) / 36.0
        contained = _extra_features(own, opp, loss, out, extra_k, blocked)
        _late_features(double, contained, out, late_k)
    else:
        out[k + 2] = 0.0
        out[k + 3] = 0.0
        out[k + 9] = 0.0
        for i in range(EXTRAS_PER_SIDE):
            out[extra_k + i] = 0.0
        for i in range(LATE_PER_SIDE):
            out[late_k + i] = 0.0
    out[k + 4] = made / 12.0
    out[k + 5] = home_made / 6.0
    out[k + 6] = anchors / 3.0
    out[k + 7] = best / 6.0
    out[k + 8] = best_low / 24.0
    out[k + 10] = behind / 15.0
    out[k + 11] = outside / 15.0
    out[k + 12] = crossovers / 45.0
    out[k + 13] = 1.0 if contact else 0.0


@njit(cache=True)
def _raw_side(counts, out, k):
    for i in range(1, 25):
        c = counts[i]
        out[k] = 1.0 if c >= 1 else 0.0
        out[k + 1] = 1.0 if c >= 2 else 0.0
        out[k + 2] = 1.0 if c >= 3 else 0.0
        out[k + 3] = (c - 3) / 2.0 if c > 3 else 0.0
        k += 4
    out[k] = counts[25] / 2.0
    out[k + 1] = counts[0] / 15.0


@njit(cache=True)
def encode_into(states, mover, out, classes):
    """Row b of ``out``: the inputs of ``states[b]`` from the view of ``mover[b]``;
    ``classes[b]``: CONTACT, RACE or CRASHED."""
    me = np.empty(26, np.int64)
    them = np.empty(26, np.int64)
    blot_at = np.empty(26, np.bool_)
    blocked = np.empty(26, np.bool_)
    cost = np.empty(26, np.int64)
    for b in range(states.shape[0]):
        classes[b] = _encode_one(states[b], mover[b], out[b], me, them, blot_at, blocked, cost)


@njit(cache=True)
def _encode_one(s, seat, row, me, them, blot_at, blocked, cost):
    """``row``: the inputs of state ``s`` from the view of ``seat`` (the other arguments are
    scratch); returns its class."""
    _side_counts(s, seat, me)
    _side_counts(s, 1 - seat, them)
    contact = _rear(me) + _rear(them) > 25
    position_class = RACE if not contact else CRASHED if _crashed(me) or _crashed(them) else CONTACT
    _raw_side(me, row, 0)
    _side_features(me, them, contact, row, RAW_PER_SIDE, BASE_INPUTS, CONTACT_INPUTS, blot_at, blocked, cost)
    _raw_side(them, row, SIDE_SIZE)
    _side_features(them, me, contact, row, SIDE_SIZE + RAW_PER_SIDE, BASE_INPUTS + EXTRAS_PER_SIDE,
                   CONTACT_INPUTS + LATE_PER_SIDE, blot_at, blocked, cost)
    return position_class


@njit(cache=True)
def _crashed(counts):
    """Whether a side (``_side_counts``) has at most six checkers still in play: those borne
    off, a stack of two or more on its 1-point and all but one of a stack on its 2-point are out
    of play. This agrees with gnubg's crashed class on every contact position tried
    (tests/backgammon/test_backgammon_features.py)."""
    in_play = 15 - counts[0]
    if counts[1] >= 2:
        in_play -= counts[1]
    if counts[2] >= 2:
        in_play -= counts[2] - 1
    return in_play <= 6


def network_classes(classes: np.ndarray, count: int) -> np.ndarray:
    """The class of network each position goes to in a network of ``count`` classes: without a
    crashed network, crashed positions go to the contact network."""
    return classes if count > CRASHED else np.where(classes == CRASHED, CONTACT, classes)


def next_mover(states: np.ndarray) -> np.ndarray:
    """The side that moves next in each state (the roller at a chance node)."""
    player = states[:, rules.PLAYER]
    return np.where(player >= 0, player, states[:, rules.ROLLER]).astype(np.int64)


def _checked(states: np.ndarray, mover: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The batch and its movers as the encoders' kernels read them, or a ValueError: rows of the
    state's size, one seat (0 or 1) a row; the mover read from a row (its player, or its roller
    at a chance node) must be a seat too."""
    states = np.ascontiguousarray(states, np.int64)
    if states.ndim != 2 or states.shape[1] != rules.STATE_SIZE:
        raise ValueError(f"expected backgammon states of shape (n, {rules.STATE_SIZE}), got {states.shape}")
    mover = next_mover(states) if mover is None else np.ascontiguousarray(mover, np.int64)
    if mover.shape != (len(states),) or (len(mover) and (mover.min() < 0 or mover.max() > 1)):
        raise ValueError("mover must hold one seat (0 or 1) per state (the states' own, by default)")
    return states, mover


def encode(states: np.ndarray, mover: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, classes) of a batch of backgammon states: float32 rows of ``INPUT_SIZE`` from
    the view of ``mover`` (default: the side that moves next) and each row's position class
    (``CLASS_NAMES``; ``network_classes`` maps it to a network's)."""
    states, mover = _checked(states, mover)
    out = np.zeros((len(states), INPUT_SIZE), np.float32)
    classes = np.zeros(len(states), np.int64)
    encode_into(states, mover, out, classes)
    return out, classes


# ----- TD-Gammon's inputs (the earlier network, eval=td80) ----------------------------------
TD_GAMMON_INPUTS = 198


@njit(cache=True)
def td_gammon_into(states, out, mover):
    """TD-Gammon's 198 inputs, from the view of ``mover[b]``, the side that moves next: for
    each side (mover first) and point 1..24 four units (1, 2, 3 checkers, (n - 3) / 2), bar / 2,
    borne off / 15; then two units for the side on roll (always the first side here)."""
    for b in range(states.shape[0]):
        s = states[b]
        me = mover[b]
        k = 0
        for side in range(2):
            seat = me if side == 0 else 1 - me
            base = rules.BOARD + rules.SIDE * seat
            for i in range(1, 25):
                c = s[base + i]
                out[b, k] = 1.0 if c >= 1 else 0.0
                out[b, k + 1] = 1.0 if c >= 2 else 0.0
                out[b, k + 2] = 1.0 if c >= 3 else 0.0
                out[b, k + 3] = (c - 3) / 2.0 if c > 3 else 0.0
                k += 4
            out[b, k] = s[base + rules.BAR] / 2.0
            out[b, k + 1] = s[base + rules.OFF] / 15.0
            k += 2
        out[b, k] = 1.0
        out[b, k + 1] = 0.0


def td_gammon_encode(states: np.ndarray, mover: np.ndarray | None = None) -> np.ndarray:
    """TD-Gammon's 198 inputs of a batch (the ``eval=td80`` network's), from ``mover``'s view."""
    states, mover = _checked(states, mover)
    out = np.zeros((states.shape[0], TD_GAMMON_INPUTS), np.float32)
    td_gammon_into(states, out, mover)
    return out


# ----- the contact/race network in compiled code (MCTS's eval=net) --------------------------
OUTPUTS = 5


@njit(cache=True)
def _class_param_count(hidden: int, inputs: int, hidden2: int) -> int:
    second = hidden * hidden2 + hidden2 + hidden2 * OUTPUTS + OUTPUTS if hidden2 else 0
    return inputs * hidden + hidden + hidden * OUTPUTS + OUTPUTS + second


HEADER = 4
"""Flat parameters start with ``[hidden, inputs, hidden2, classes]``."""


def contact_race_param_count(hidden: int, inputs: int, hidden2: int = 0, classes: int = 2) -> int:
    """Length of the flat parameters of a contact/race network of ``hidden`` units a class
    reading the first ``inputs`` inputs, with a second layer of ``hidden2`` units (0: none) and
    ``classes`` classes (``NETWORK_CLASSES``): ``[hidden, inputs, hidden2, classes]`` then, for
    each class in ``CLASS_NAMES``'s order, ``W1 b1 W2 b2`` and with a second layer ``W3 b3 W4
    b4`` (``affine``'s layout; ``b4`` is zeros)."""
    return HEADER + classes * _class_param_count(hidden, inputs, hidden2)


def check_contact_race_params(params: np.ndarray) -> None:
    """Raises a ValueError unless ``params`` is a contact/race layout the kernel can read
    without bounds checks."""
    if params.ndim != 1 or params.dtype != np.float64 or len(params) < HEADER:
        raise ValueError("contact/race network: not a flat float64 parameter array")
    if not np.all(np.isfinite(params)):
        raise ValueError("contact/race network: parameters that are not finite numbers")
    hidden, inputs, hidden2, classes = params[:HEADER]
    if hidden != int(hidden) or not 1 <= hidden <= MAX_WIDTH:
        raise ValueError(f"contact/race network: {hidden} hidden units; 1 to {MAX_WIDTH} are allowed")
    if inputs != int(inputs) or not 1 <= inputs <= INPUT_SIZE:
        raise ValueError(f"contact/race network: {inputs} inputs; 1 to {INPUT_SIZE} are allowed")
    if hidden2 != int(hidden2) or not 0 <= hidden2 <= MAX_WIDTH:
        raise ValueError(f"contact/race network: {hidden2} second-layer units; 0 to {MAX_WIDTH} are allowed")
    if classes not in NETWORK_CLASSES:
        raise ValueError(f"contact/race network: {classes} classes; {' or '.join(map(str, NETWORK_CLASSES))} "
                         "are allowed")
    expected = contact_race_param_count(int(hidden), int(inputs), int(hidden2), int(classes))
    if len(params) != expected:
        raise ValueError(f"contact/race network: {len(params)} parameters where {int(classes)} classes of "
                         f"{int(hidden)} hidden units over {int(inputs)} inputs and {int(hidden2)} "
                         f"second-layer units need {expected}")


@njit(cache=True)
def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


@njit(EVAL_SIG, cache=True)
def contact_race_value(state, seat, params):
    """The contact/race network's value of ``state`` for ``seat``: the same number as the torch
    network's ``seat_values`` (in float64), for searches that score leaves one by one."""
    mover = state[rules.PLAYER] if state[rules.PLAYER] >= 0 else state[rules.ROLLER]
    x = np.zeros(INPUT_SIZE, np.float64)
    me = np.empty(26, np.int64)
    them = np.empty(26, np.int64)
    blot_at = np.empty(26, np.bool_)
    blocked = np.empty(26, np.bool_)
    cost = np.empty(26, np.int64)
    position_class = _encode_one(state, mover, x, me, them, blot_at, blocked, cost)
    hidden = int(params[0])
    inputs = int(params[1])
    hidden2 = int(params[2])
    if position_class >= int(params[3]):  # no crashed network: the contact network's
        position_class = CONTACT
    at = HEADER + position_class * _class_param_count(hidden, inputs, hidden2)
    h = affine(x, params, at, inputs, hidden)
    for j in range(hidden):
        h[j] = _sigmoid(h[j])
    at += inputs * hidden + hidden
    p = affine(h, params, at, hidden, OUTPUTS)
    if hidden2 > 0:
        at += hidden * OUTPUTS + OUTPUTS
        g = affine(h, params, at, hidden, hidden2)
        for j in range(hidden2):
            g[j] = max(g[j], 0.0)
        p += affine(g, params, at + hidden * hidden2 + hidden2, hidden2, OUTPUTS)
    # as contact_race_equity: made consistent (a backgammon is a gammon is a win) first
    win = min(max(_sigmoid(p[0]), 0.0), 1.0)
    wg = min(_sigmoid(p[1]), win)
    wbg = min(_sigmoid(p[2]), wg)
    lg = min(_sigmoid(p[3]), 1.0 - win)
    lbg = min(_sigmoid(p[4]), lg)
    equity = 2.0 * win - 1.0
    if state[rules.SCORING] > 0:
        equity = (equity + wg - lg + wbg - lbg) / 3.0
    equity = min(max(equity, -0.999999), 0.999999)
    return value_for_seat(mover, seat, equity)
