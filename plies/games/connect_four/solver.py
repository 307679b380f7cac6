"""An exact Connect Four solver: negamax with alpha-beta on bitboards, compiled by numba.

The techniques are those of the strong solvers (John Tromp's and Pascal Pons's): the position
is two bitboards (the stones of the side to move and all stones), and

* the search never plays a move that lets the opponent win at once: it plays the single
  forced block when there is one, knows it has lost when there are two threats to block, and
  never plays directly below an opponent's winning cell;
* bounds: a side that cannot win next move scores at most ``(cells - 1 - moves) // 2``, and the
  opponent at most ``(cells - 2 - moves) // 2``; both clamp the window before any search;
* a transposition table keyed by ``stones_to_move + all_stones`` (unique per position) keeps
  an upper or a lower bound per position; an entry is one int64 (a generation number, the
  key's quotient by the prime table size, and the bound), so the index plus the quotient
  identify the key exactly, and bumping the generation empties the table at no cost;
* moves are tried by the number of winning cells they create (threats), centre columns first
  among equals;
* the root uses null-window searches, bisecting the score range (biased towards 0 first, as
  most positions are close to even) until the exact score is known.

Scores: 0 a draw; a win by the side to move scores ``(cells + 1 - moves) // 2`` when it wins
with its next stone, one less per extra own stone it needs; on 7x6 that is 22 minus the
winner's stone count. A loss is the negative of the opponent's win score.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, types

from plies.games.connect_four import rules
from plies.games.connect_four.rules import popcount, winning_cells

TABLE_LOG_SIZE = 23

# geometry vector, one per board size: what the recursion needs without recomputing it
G_WIDTH, G_HEIGHT, G_CELLS, G_BOTTOM, G_BOARD, G_MIN, G_MAX = range(7)
G_COLUMNS = 7  # G_COLUMNS + c: mask of column c
# statistics vector
S_NODES, S_LIMIT, S_ABORTED, S_GENERATION = range(4)
QUOTIENT_BITS = 41  # keys are < 2**64 and the table has more than 2**23 slots
GENERATION_SHIFT = 8 + QUOTIENT_BITS
MAX_GENERATION = (1 << (63 - GENERATION_SHIFT)) - 1

I64 = types.int64
GEO_T = types.int64[::1]
TABLE_T = types.int64[::1]
BUF_T = types.int64[:, ::1]
STATS_T = types.int64[::1]


def _next_prime(n: int) -> int:
    def is_prime(k: int) -> bool:
        if k < 2 or k % 2 == 0:
            return k == 2
        f = 3
        while f * f <= k:
            if k % f == 0:
                return False
            f += 2
        return True

    while not is_prime(n):
        n += 1
    return n


def geometry(width: int, height: int) -> np.ndarray:
    rules.check_size(width, height)
    cells = width * height
    geo = np.zeros(G_COLUMNS + width, np.int64)
    bottom = sum(1 << (c * (height + 1)) for c in range(width))
    geo[G_WIDTH], geo[G_HEIGHT], geo[G_CELLS] = width, height, cells
    geo[G_BOTTOM] = bottom
    geo[G_BOARD] = bottom * ((1 << height) - 1)
    geo[G_MIN] = -(cells // 2) + 3  # no one can win before their 4th stone
    geo[G_MAX] = (cells + 1) // 2 - 3
    for c in range(width):
        geo[G_COLUMNS + c] = ((1 << height) - 1) << (c * (height + 1))
    return geo


def column_order(width: int) -> np.ndarray:
    """Columns from the centre outwards (left of centre first among equals)."""
    return np.array(
        [width // 2 + (1 - 2 * (i % 2)) * (i + 1) // 2 for i in range(width)], np.int64
    )


# ----- the transposition table: one int64 per entry -----------------------------------------
@njit(cache=True, inline="always")
def _tt_split(key, size):
    ukey = np.uint64(key)
    usize = np.uint64(size)
    return np.int64(ukey % usize), np.int64(ukey // usize)


@njit(cache=True, inline="always")
def _tt_get(table, key, generation):
    index, quotient = _tt_split(key, table.shape[0])
    entry = table[index]
    if entry != 0 and (entry >> 8) == ((generation << QUOTIENT_BITS) | quotient):
        return entry & 255
    return 0


@njit(cache=True, inline="always")
def _tt_put(table, key, value, generation):
    index, quotient = _tt_split(key, table.shape[0])
    table[index] = (generation << GENERATION_SHIFT) | (quotient << 8) | value


# ----- the search -----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _can_win_next(current, mask, geo):
    possible = (mask + geo[G_BOTTOM]) & geo[G_BOARD]
    return (winning_cells(current, mask, geo[G_HEIGHT], geo[G_WIDTH], geo[G_BOARD]) & possible) != 0


@njit(I64(I64, I64, I64, I64, I64, GEO_T, GEO_T, TABLE_T, BUF_T, BUF_T, STATS_T), cache=True)
def negamax(current, mask, moves, alpha, beta, geo, order, table, move_buf, score_buf, stats):
    """Score of the position for the side to move, within the window (alpha, beta).

    ``current``: the stones of the side to move; ``mask``: all stones. Requires that the side
    to move cannot win with its next stone. Fails soft like alpha-beta: a result <= alpha is an
    upper bound, >= beta a lower bound. Aborts (``stats[S_ABORTED] = 1``) past the node limit.
    """
    stats[S_NODES] += 1
    if stats[S_NODES] > stats[S_LIMIT]:
        stats[S_ABORTED] = 1
        return 0
    width, height, cells = geo[G_WIDTH], geo[G_HEIGHT], geo[G_CELLS]
    board = geo[G_BOARD]
    possible = (mask + geo[G_BOTTOM]) & board
    opponent_wins = winning_cells(current ^ mask, mask, height, width, board)
    forced = possible & opponent_wins
    if forced != 0:
        if forced & (forced - 1):  # two threats to block: lost at the opponent's next stone
            return -((cells - moves) // 2)
        possible = forced
    possible &= ~(opponent_wins >> 1)  # playing below an opponent's winning cell loses
    if possible == 0:
        return -((cells - moves) // 2)
    if moves >= cells - 2:  # neither side can still make a four
        return 0

    low = -((cells - 2 - moves) // 2)  # the opponent cannot win at its next stone
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (cells - 1 - moves) // 2  # we cannot win at our next stone
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta

    min_score, max_score = geo[G_MIN], geo[G_MAX]
    key = current + mask
    stored = _tt_get(table, key, stats[S_GENERATION])
    if stored != 0:
        if stored > max_score - min_score + 1:  # a lower bound
            low = stored + 2 * min_score - max_score - 2
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
        else:  # an upper bound
            high = stored + min_score - 1
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta

    # moves sorted by the threats they create (insertion sort; centre first among equals)
    n = 0
    for i in range(width - 1, -1, -1):
        move = possible & geo[G_COLUMNS + order[i]]
        if move != 0:
            score = popcount(winning_cells(current | move, mask, height, width, board))
            j = n
            while j > 0 and score_buf[moves, j - 1] > score:
                move_buf[moves, j] = move_buf[moves, j - 1]
                score_buf[moves, j] = score_buf[moves, j - 1]
                j -= 1
            move_buf[moves, j] = move
            score_buf[moves, j] = score
            n += 1

    while n > 0:
        n -= 1
        move = move_buf[moves, n]
        # the opponent's stones are current ^ mask: they become the side to move
        score = -negamax(
            current ^ mask, mask | move, moves + 1, -beta, -alpha,
            geo, order, table, move_buf, score_buf, stats,
        )
        if stats[S_ABORTED]:
            return 0
        if score >= beta:
            _tt_put(table, key, score + max_score - 2 * min_score + 2, stats[S_GENERATION])
            return score
        if score > alpha:
            alpha = score
    _tt_put(table, key, alpha - min_score + 1, stats[S_GENERATION])
    return alpha


@njit(cache=True, inline="always")
def _trunc_half(x):
    """x / 2 rounded towards zero (the C division the bisection below is tuned for)."""
    return x // 2 if x >= 0 else -((-x) // 2)


@njit(I64(I64, I64, I64, types.boolean, GEO_T, GEO_T, TABLE_T, BUF_T, BUF_T, STATS_T), cache=True)
def solve_position(current, mask, moves, weak, geo, order, table, move_buf, score_buf, stats):
    """Exact score (or -1/0/1 if ``weak``) of a position that is not over."""
    cells = geo[G_CELLS]
    if _can_win_next(current, mask, geo):
        score = (cells + 1 - moves) // 2
        return 1 if weak else score
    low = -((cells - moves) // 2)
    high = (cells + 1 - moves) // 2
    if weak:
        low, high = -1, 1
    while low < high:
        med = low + (high - low) // 2
        if med <= 0 and _trunc_half(low) < med:
            med = _trunc_half(low)
        elif med >= 0 and _trunc_half(high) > med:
            med = _trunc_half(high)
        r = negamax(current, mask, moves, med, med + 1, geo, order, table, move_buf, score_buf, stats)
        if stats[S_ABORTED]:
            return 0
        if r <= med:
            high = r
        else:
            low = r
    if weak:  # fail-soft bounds can overshoot the window [-1, 1]: only the sign is the answer
        return 1 if low > 0 else (-1 if low < 0 else 0)
    return low


@njit(
    types.void(I64, I64, I64, types.boolean, GEO_T, GEO_T, TABLE_T, BUF_T, BUF_T, STATS_T, types.int64[::1]),
    cache=True,
)
def analyze_position(current, mask, moves, weak, geo, order, table, move_buf, score_buf, stats, out):
    """out[c] = exact score of playing column c (for the side to move now); a full column keeps
    the sentinel ``-1000``."""
    width, cells = geo[G_WIDTH], geo[G_CELLS]
    possible = (mask + geo[G_BOTTOM]) & geo[G_BOARD]
    wins = winning_cells(current, mask, geo[G_HEIGHT], width, geo[G_BOARD])
    for c in range(width):
        out[c] = -1000
        move = possible & geo[G_COLUMNS + c]
        if move == 0:
            continue
        if move & wins:
            out[c] = 1 if weak else (cells + 1 - moves) // 2
        elif moves + 1 == cells:
            out[c] = 0
        else:
            out[c] = -solve_position(
                current ^ mask, mask | move, moves + 1, weak, geo, order, table, move_buf, score_buf, stats
            )
        if stats[S_ABORTED]:
            return


# ----- the Python API ---------------------------------------------------------------------------
@dataclass
class SolveResult:
    score: int
    best_moves: list[int]  # 1-based columns
    column_scores: list[int | None]  # per column (None: full), for the side to move
    nodes: int
    seconds: float


class Solver:
    """Keeps the transposition table (valid across positions of one board size) and buffers."""

    def __init__(self, width: int = rules.DEFAULT_WIDTH, height: int = rules.DEFAULT_HEIGHT,
                 table_log_size: int = TABLE_LOG_SIZE) -> None:
        self.width, self.height = width, height
        self.geo = geometry(width, height)
        self.order = column_order(width)
        self.table = np.zeros(_next_prime(1 << table_log_size), np.int64)
        self.table.fill(0)  # touch every page now, not during the first timed solves
        self.move_buf = np.zeros((width * height + 1, width), np.int64)
        self.score_buf = np.zeros((width * height + 1, width), np.int64)
        self.stats = np.zeros(4, np.int64)
        self.generation = 1

    def reset(self) -> None:
        """Forget the transposition table (for node counts independent of earlier solves).

        Entries carry a generation number, so this costs nothing until the 14-bit generation
        wraps around (then the table is cleared). Clearing 67 MB each time would also evict
        the caches and cost more than an easy solve (~100 us)."""
        self.generation += 1
        if 2 * self.generation + 1 > MAX_GENERATION:
            self.table[:] = 0
            self.generation = 1

    def _begin(self, node_limit: int | None, weak: bool = False) -> None:
        self.stats[:] = 0
        # weak and strong searches keep their bounds apart (odd and even generations): a table
        # entry of one mode never answers the other, so results do not depend on earlier calls
        self.stats[S_GENERATION] = 2 * self.generation + int(bool(weak))
        self.stats[S_LIMIT] = node_limit if node_limit is not None else np.iinfo(np.int64).max

    @property
    def nodes(self) -> int:
        """Nodes visited by the last call."""
        return int(self.stats[S_NODES])

    @property
    def aborted(self) -> bool:
        return bool(self.stats[S_ABORTED])

    def bitboards(self, position) -> tuple[int, int, int]:
        """(stones of the side to move, all stones, stone count) of a ConnectFourState."""
        s = position.array
        if position.is_terminal():
            raise ValueError("the game is over: nothing to solve")
        if (int(s[rules.WIDTH]), int(s[rules.HEIGHT])) != (self.width, self.height):
            raise ValueError(
                f"this solver is for {self.width}x{self.height}, the position is "
                f"{int(s[rules.WIDTH])}x{int(s[rules.HEIGHT])}"
            )
        mask = int(s[rules.STONES] | s[rules.STONES + 1])
        return int(s[rules.STONES + position.current_player]), mask, int(s[rules.MOVES])

    def score(self, position, weak: bool = False, node_limit: int | None = None) -> int | None:
        """The exact score of a ConnectFourState (None if the node limit was reached)."""
        current, mask, moves = self.bitboards(position)
        self._begin(node_limit, weak)
        value = solve_position(current, mask, moves, weak, self.geo, self.order, self.table,
                               self.move_buf, self.score_buf, self.stats)
        return None if self.aborted else int(value)

    def column_scores(self, position, weak: bool = False,
                      node_limit: int | None = None) -> list[int | None] | None:
        """The exact score of each column for the side to move (None for a full column), or
        None if the node limit was reached."""
        current, mask, moves = self.bitboards(position)
        self._begin(node_limit, weak)
        out = np.zeros(self.width, np.int64)
        analyze_position(current, mask, moves, weak, self.geo, self.order, self.table,
                         self.move_buf, self.score_buf, self.stats, out)
        if self.aborted:
            return None
        return [None if v == -1000 else int(v) for v in out]

    def solve(self, position, weak: bool = False) -> SolveResult:
        start = time.perf_counter()
        scores = self.column_scores(position, weak)
        assert scores is not None
        nodes = self.nodes
        best = max(v for v in scores if v is not None)
        best_moves = [c + 1 for c, v in enumerate(scores) if v == best]
        return SolveResult(best, best_moves, scores, nodes, time.perf_counter() - start)


_SOLVERS: dict[tuple[int, int], Solver] = {}


def get_solver(width: int = rules.DEFAULT_WIDTH, height: int = rules.DEFAULT_HEIGHT) -> Solver:
    """A shared solver per board size (its table keeps what earlier solves learned)."""
    key = (width, height)
    if key not in _SOLVERS:
        _SOLVERS[key] = Solver(width, height)
    return _SOLVERS[key]


def solve(moves: str, weak: bool = False, width: int = rules.DEFAULT_WIDTH,
          height: int = rules.DEFAULT_HEIGHT) -> tuple[int, list[int]]:
    """Exact score and best moves of the position after ``moves``.

    ``moves``: 1-based column digits from the empty board, first player first (``"4453"``),
    as in the standard benchmark sets. Returns ``(score, best_moves)``: the score for the side
    to move (0 draw; a win scores 22 minus the winner's stone count on 7x6, in general
    ``(width * height) // 2 + 1`` minus it when width * height is even; a loss the negative)
    and the 1-based columns that achieve it. ``weak=True`` gives only the sign (1, 0, -1).
    Raises ``ValueError`` for a malformed sequence or a finished game.
    """
    from plies.games.connect_four.state import state_from_moves

    position = state_from_moves(moves, width=width, height=height)
    result = get_solver(width, height).solve(position, weak)
    return result.score, result.best_moves
