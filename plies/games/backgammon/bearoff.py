"""A one-sided bear-off database: exact race play once both sides are home.

A side whose checkers are all on its home board (points 1-6, nothing on the bar) can be
described alone: how many rolls it needs to bear everything off does not depend on the other
side. For each of the 54,264 ways to put at most 15 checkers on six points the table holds the
distribution of that number of rolls, when every roll is played to take the fewest rolls on
average, and a second distribution, of the rolls it needs to bear off its first checker (for
gammons), when every roll is played to get that first checker off soonest. Both are computed
backwards from the empty board with the game's own ``afterstates`` kernel, so the rules live in
one place.

Two such sides give the race's outcome: the side on roll, needing ``n`` rolls with probability
``a[n]``, wins when the other side needs at least ``n`` of its own. gnubg plays bear-offs from
such tables; plies measures its networks' bear-off play against them (play keeps the network's
values: docs/backgammon.md has the measurement).
"""

from __future__ import annotations

import hashlib
import math
import sys
from pathlib import Path

import numpy as np
from numba import njit

from plies._numba_cache import cache_home
from plies.files import atomic_write
from plies.games.backgammon import rules
from plies.games.kernels import TERMINAL

HOME = 6
CHECKERS = 15
MAX_ROLLS = 40
"""Bins of the distributions: 15 checkers on the six point need at most 30 rolls of 2-1."""


BINOMIAL = np.array([[math.comb(n, k) for k in range(HOME + 1)] for n in range(HOME + CHECKERS + 1)], np.int64)
POSITIONS = int(BINOMIAL[HOME + CHECKERS, HOME])
"""54,264: the ways to have at most 15 checkers on six points."""


@njit(cache=True)
def _rank(counts, binomial):
    """Rank of ``counts[1..6]`` (checkers on points 1-6, at most 15 in all) in [0, POSITIONS):
    the six bars of a stars-and-bars picture of the checkers, ranked as a combination.
    Unchecked: ``position_index`` checks the counts first."""
    index = 0
    cumulative = 0
    for i in range(1, HOME + 1):
        cumulative += counts[i]
        index += binomial[cumulative + i - 1, i]
    return index


def position_index(points) -> int:
    """The table row of a home board: ``points`` the checkers on points 1-6 (six counts, each
    0-15, at most 15 in all)."""
    counts = np.asarray(points)
    if counts.shape != (HOME,) or not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"a home board is six checker counts (points 1-6), not {points!r}")
    # each count bounded first: a sum of huge counts can wrap around to a small one
    if (counts < 0).any() or (counts > CHECKERS).any() or counts.sum() > CHECKERS:
        raise ValueError(f"a home board holds 0 to {CHECKERS} checkers, none negative, not {counts.tolist()}")
    return int(_rank(np.concatenate(([0], counts)).astype(np.int64), BINOMIAL))


def all_positions() -> np.ndarray:
    """Every home board of at most 15 checkers (POSITIONS x 7, column 0 unused), in rank order."""
    out = np.zeros((POSITIONS, HOME + 1), np.int64)
    counts = np.zeros(HOME + 1, np.int64)

    def fill(point: int, left: int) -> None:
        if point > HOME:
            out[_rank(counts, BINOMIAL)] = counts
            return
        for c in range(left + 1):
            counts[point] = c
            fill(point + 1, left - c)
        counts[point] = 0

    fill(1, CHECKERS)
    return out


@njit(cache=True)
def _build(positions, order, binomial, dist, first):
    state = np.zeros(rules.STATE_SIZE, np.int64)
    out = np.zeros((rules.MAX_AFTERSTATES, rules.STATE_SIZE), np.int64)
    paths = np.zeros((rules.MAX_AFTERSTATES, 8), np.int64)
    weights = np.arange(MAX_ROLLS).astype(np.float64)
    mean = np.zeros(len(positions))
    mean_first = np.zeros(len(positions))
    other = rules.BOARD + rules.SIDE
    for k in range(len(order)):
        p = order[k]
        on_board = 0
        for i in range(1, HOME + 1):
            on_board += positions[p, i]
        if on_board == 0:
            dist[p, 0] = 1.0
            first[p, 0] = 1.0
            continue
        if on_board < CHECKERS:
            first[p, 0] = 1.0  # a checker is already off
        for hi in range(1, 7):
            for lo in range(1, hi + 1):
                prob = 1.0 / 36.0 if hi == lo else 2.0 / 36.0
                state[:] = 0
                state[rules.PLAYER] = 0
                state[rules.WINNER] = -1
                state[rules.ROLLS] = 1
                state[rules.DIE_HI] = hi
                state[rules.DIE_LO] = lo
                state[rules.REM_HI] = 4 if hi == lo else 1
                state[rules.REM_LO] = 0 if hi == lo else 1
                for i in range(1, HOME + 1):
                    state[rules.BOARD + i] = positions[p, i]
                state[rules.BOARD] = CHECKERS - on_board
                state[other + 1] = CHECKERS  # the other side, far away and home: no contact
                count = rules.afterstates(state, out, paths)
                best = -1
                best_first = -1
                for j in range(count):
                    succ = _rank(out[j, rules.BOARD:rules.BOARD + HOME + 1], binomial)
                    if best < 0 or mean[succ] < mean[best]:
                        best = succ
                    if best_first < 0 or mean_first[succ] < mean_first[best_first]:
                        best_first = succ
                for n in range(MAX_ROLLS):
                    later = min(n + 1, MAX_ROLLS - 1)  # one roll more; the last bin holds the tail
                    dist[p, later] += prob * dist[best, n]
                    if on_board == CHECKERS:
                        first[p, later] += prob * first[best_first, n]
        mean[p] = (dist[p] * weights).sum()
        mean_first[p] = (first[p] * weights).sum()


def build() -> tuple[np.ndarray, np.ndarray]:
    """The two tables (POSITIONS x MAX_ROLLS): rolls to bear off every checker, and rolls to
    bear off the first one (a point mass at 0 where one is already off)."""
    positions = all_positions()
    pips = positions @ np.arange(HOME + 1)
    order = np.argsort(pips, kind="stable")  # every play lowers the pip count
    dist = np.zeros((POSITIONS, MAX_ROLLS))
    first = np.zeros((POSITIONS, MAX_ROLLS))
    _build(positions, order, BINOMIAL, dist, first)
    return dist, first


_TABLES: tuple[np.ndarray, np.ndarray] | None = None


def cache_path(home: Path | None = None) -> Path:
    """Where the tables are kept between processes: named after a hash of the code that builds
    them (this module and the rules), so a change of either builds them again."""
    digest = hashlib.sha256()
    for module in (rules, sys.modules[__name__]):
        digest.update(Path(module.__file__).read_bytes())
    return (home or cache_home()) / "backgammon" / f"bearoff-{digest.hexdigest()[:16]}.npz"


def _checksum(dist: np.ndarray, first: np.ndarray) -> str:
    return hashlib.sha256(dist.tobytes() + first.tobytes()).hexdigest()


def _valid(dist: np.ndarray, first: np.ndarray) -> bool:
    shape = (POSITIONS, MAX_ROLLS)
    return (dist.shape == shape and first.shape == shape and dist.dtype == np.float64
            and first.dtype == np.float64 and bool(np.all(dist >= 0)) and bool(np.all(first >= 0))
            and bool(np.allclose(dist.sum(1), 1.0)) and bool(np.allclose(first.sum(1), 1.0)))


def load(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The tables from ``path``, or None when it is missing or damaged (wrong shapes, sums or
    checksum); never unpickles anything."""
    try:
        with np.load(path, allow_pickle=False) as data:
            dist, first, checksum = data["dist"], data["first"], str(data["checksum"])
    except Exception:  # damaged bytes raise many kinds (zip, zlib, header parsing): build again
        return None
    if not _valid(dist, first) or checksum != _checksum(dist, first):
        return None
    return dist, first


def save(path: Path, dist: np.ndarray, first: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda handle: np.savez_compressed(
        handle, dist=dist, first=first, checksum=np.array(_checksum(dist, first))))


def tables(home: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The tables: from memory, else from the cache file, else built (about 15 seconds) and
    cached. A damaged cache file is built again and replaced; an unwritable cache is skipped."""
    global _TABLES
    if _TABLES is None:
        path = cache_path(home)
        found = load(path)
        if found is None:
            found = build()
            try:
                save(path, *found)
            except OSError:
                pass  # a read-only home: build again next time
        _TABLES = found
    return _TABLES


@njit(cache=True)
def _is_bearoff(state):
    if state[rules.PLAYER] == TERMINAL:
        return False
    for seat in range(2):
        base = rules.BOARD + rules.SIDE * seat
        for i in range(HOME + 1, rules.SIDE):
            if state[base + i] > 0:
                return False
    return True


@njit(cache=True)
def _outcomes(states, movers, dist, first, binomial, found, out):
    for r in range(states.shape[0]):
        s = states[r]
        if not _is_bearoff(s):
            continue
        found[r] = True
        a = movers[r]
        base_a = rules.BOARD + rules.SIDE * a
        base_b = rules.BOARD + rules.SIDE * (1 - a)
        ia = _rank(s[base_a:base_a + HOME + 1], binomial)
        ib = _rank(s[base_b:base_b + HOME + 1], binomial)
        win = 0.0
        win_gammon = 0.0
        lose_gammon = 0.0
        b_left = 1.0  # P(the other side needs at least n rolls)
        b_first_left = 1.0
        a_first_left = 1.0 - first[ia, 0]
        for n in range(MAX_ROLLS):
            win += dist[ia, n] * b_left
            win_gammon += dist[ia, n] * b_first_left
            b_left -= dist[ib, n]
            b_first_left -= first[ib, n]
            # the other side finishes on its n-th roll while this one, after n rolls, has none off
            lose_gammon += dist[ib, n] * max(a_first_left, 0.0)
            if n + 1 < MAX_ROLLS:
                a_first_left -= first[ia, n + 1]
        out[r, 0] = min(max(win, 0.0), 1.0)
        out[r, 1] = min(max(win_gammon, 0.0), out[r, 0]) if s[base_b] == 0 else 0.0
        out[r, 2] = 0.0
        out[r, 3] = min(max(lose_gammon, 0.0), 1.0 - out[r, 0]) if s[base_a] == 0 else 0.0
        out[r, 4] = 0.0


def outcomes(states: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the rows of ``states`` where both sides are home (bear-off positions): the five
    outcome probabilities of the network's outputs [win, win gammon, win backgammon, lose
    gammon, lose backgammon] for the side ``movers[r]`` that rolls next. Returns (found, p):
    ``found[r]`` says whether row r is a bear-off position; other rows of ``p`` are zero."""
    states = np.ascontiguousarray(states, np.int64)
    movers = np.ascontiguousarray(movers, np.int64)
    if states.ndim != 2 or states.shape[1] != rules.STATE_SIZE:
        raise ValueError(f"states must be rows of {rules.STATE_SIZE} backgammon state values, not shape {states.shape}")
    if movers.shape != (len(states),) or ((movers != 0) & (movers != 1)).any():
        raise ValueError("movers must hold one seat (0 or 1) for each state")
    boards = states[:, rules.BOARD:rules.BOARD + 2 * rules.SIDE].reshape(len(states), 2, rules.SIDE)
    if (boards < 0).any() or (boards > CHECKERS).any() or (boards.sum(2) != CHECKERS).any():
        raise ValueError(f"every side of every state must have {CHECKERS} checkers (borne off, on the "
                         "points and on the bar), none negative")
    dist, first = tables()
    found = np.zeros(len(states), np.bool_)
    out = np.zeros((len(states), 5))
    _outcomes(states, movers, dist, first, BINOMIAL, found, out)
    return found, out


__all__ = ["POSITIONS", "MAX_ROLLS", "all_positions", "build", "outcomes", "position_index", "tables"]
