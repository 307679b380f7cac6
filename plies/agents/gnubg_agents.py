"""Reference backgammon players over ``gnubg-nn`` (the ``gnubg`` extra): pubeval and gnubg.

- ``pubeval``: Tesauro's public linear evaluation function as built into gnubg-nn, the usual
  benchmark opponent of backgammon programs: the play ``pub_best_move`` picks.
- ``gnubg:depth=0``: GNU Backgammon's neural network, the play its ``best_move`` picks at
  ``depth`` plies (0 = the network on each result of the roll). With single scoring (every win
  1 point) gnubg is told the score is double match point, where gammons do not count.

gnubg-nn's board is two lists of 25 counts, ``[opponent, player on roll]``, each in that side's
own numbering (index i = point i + 1, index 24 = the bar; borne-off checkers are not listed).
A play is a list of steps ``(from, to)`` in the mover's numbering, 25 = bar, 0 = off
(``pub_best_move`` gives them flat and 0-based: ``pubeval_steps`` converts). The chosen play
is matched to one of our afterstates and played one checker move per ``act`` call.
When a turn is already half played (another agent moved first), gnubg's move choosers, which
need both dice, cannot be used: the remaining plays are then scored with gnubg's evaluation
(``probabilities`` or ``pub_eval_score``) of each resulting position.
"""

from __future__ import annotations

import numpy as np

from plies.agents.base import BaseAgent, PlayPlan, Range
from plies.games.backgammon import rules
from plies.games.kernels import TERMINAL
from plies.games.state import GameState

Board = list[list[int]]


def _gnubg():
    try:
        import gnubg_nn
    except ImportError as err:
        raise ImportError('the pubeval and gnubg players need gnubg-nn: pip install "plies[gnubg]"') from err
    return gnubg_nn


def _side(array: np.ndarray, seat: int) -> list[int]:
    base = rules.BOARD + rules.SIDE * seat
    return [int(x) for x in array[base + 1 : base + 25]] + [int(array[base + rules.BAR])]


def to_gnubg(array: np.ndarray, seat: int) -> Board:
    """gnubg-nn's board with ``seat`` on roll: [opponent, seat], each in its own numbering."""
    if seat not in (0, 1) or np.shape(array) != (rules.STATE_SIZE,):
        raise ValueError(f"to_gnubg takes one backgammon state row ({rules.STATE_SIZE} entries) and a seat "
                         f"0 or 1, not shape {np.shape(array)} and {seat!r}")
    return [_side(array, 1 - seat), _side(array, seat)]


def from_gnubg(board: Board, seat: int, template: np.ndarray) -> np.ndarray:
    """A copy of ``template`` with the checkers of ``board`` (``seat`` on roll, i.e. second);
    borne-off counts are what is missing from 15. ValueError for an impossible board."""
    out = np.array(template, np.int64, copy=True)
    for side, owner in ((board[1], seat), (board[0], 1 - seat)):
        counts = [int(c) for c in side]
        if len(counts) != 25 or min(counts) < 0 or sum(counts) > 15:
            raise ValueError(f"not a gnubg board side (25 counts, at most 15 checkers): {side}")
        base = rules.BOARD + rules.SIDE * owner
        out[base + 1 : base + 25] = counts[:24]
        out[base + rules.BAR] = counts[24]
        out[base + rules.OFF] = 15 - sum(counts)
    return out


def pubeval_steps(flat: list[int]) -> list[tuple[int, int]]:
    """``pub_best_move``'s flat 0-based [from, to, ...] (-1 = off) as 1-based steps."""
    return [(int(flat[k]) + 1, int(flat[k + 1]) + 1 if flat[k + 1] >= 0 else 0)
            for k in range(0, len(flat) - 1, 2)]


def play_steps(board: Board, steps) -> Board:
    """The board after the player on roll makes ``steps`` ((from, to), 25 = bar, 0 = off),
    hitting single opposing checkers."""
    me = list(board[1])
    opp = list(board[0])
    for start, end in steps:
        start, end = int(start), int(end)
        if not 1 <= start <= 25 or me[start - 1] <= 0:
            raise ValueError(f"no checker of the player on roll on {start}")
        me[start - 1] -= 1
        if end > 0:
            me[end - 1] += 1
            if opp[24 - end] == 1:  # our point end is the opponent's point 25 - end
                opp[24 - end] = 0
                opp[24] += 1
    return [opp, me]


def _board_key(array: np.ndarray) -> bytes:
    return np.asarray(array[rules.BOARD : rules.BOARD + 2 * rules.SIDE], np.int64).tobytes()


class _GnubgPlayer(BaseAgent):
    games = ("backgammon",)

    def __init__(self, *, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)
        self._g = _gnubg()
        self._plan = PlayPlan()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan.clear()

    def chosen_steps(self, board: Board, hi: int, lo: int, gammons: bool):
        raise NotImplementedError

    def scores(self, rows: np.ndarray, mover: int) -> np.ndarray:
        """Value for the mover of each afterstate (for half-played turns)."""
        raise NotImplementedError

    def act(self, state: GameState) -> int:
        planned = self._plan.next_for(state)
        if planned is not None:
            return planned
        seat = state.current_player
        rows, paths = state.afterstates()
        s = state.array
        hi, lo = state.dice
        whole_roll = (s[rules.REM_HI] == 4) if hi == lo else (s[rules.REM_HI] == 1 and s[rules.REM_LO] == 1)
        k = -1
        if len(rows) == 1:
            k = 0
        elif whole_roll:
            board = to_gnubg(s, seat)
            steps = self.chosen_steps(board, hi, lo, bool(s[rules.SCORING]))
            key = _board_key(from_gnubg(play_steps(board, steps), seat, s))
            matches = [i for i, r in enumerate(rows) if _board_key(r) == key]
            if not matches:
                raise RuntimeError(f"{self.name}: gnubg-nn chose {steps}, which is not a legal "
                                   f"play here:\n{state.to_string()}")
            k = matches[0]
        if k < 0:
            done = np.flatnonzero(rows[:, 0] == TERMINAL)
            if len(done):
                k = int(done[0])
            else:
                values = self.scores(rows, seat)
                k = int(self.choose(np.flatnonzero(values >= values.max() - 1e-12)))
        return self._plan.start(state, [int(a) for a in paths[k] if a >= 0])


class PubevalAgent(_GnubgPlayer):
    """Tesauro's pubeval: the play gnubg-nn's ``pub_best_move`` chooses."""

    spec_name = "pubeval"
    description = "Tesauro's pubeval linear evaluation (via gnubg-nn)"

    def chosen_steps(self, board: Board, hi: int, lo: int, gammons: bool):
        return pubeval_steps(self._g.pub_best_move(board, hi, lo))

    def scores(self, rows: np.ndarray, mover: int) -> np.ndarray:
        # pub_eval_score rates a position just played (the opponent on roll) for the side that
        # played it (checked against pub_best_move on 450 positions: argmax agrees on 446)
        return np.array([self._g.pub_eval_score(to_gnubg(r, 1 - mover)) for r in rows])


class GnubgAgent(_GnubgPlayer):
    """GNU Backgammon's network at ``depth`` plies (0 to 2; 0 = the network on each result)."""

    spec_name = "gnubg"
    description = "GNU Backgammon's neural network at 0-2 plies (via gnubg-nn)"
    limits = {"depth": Range(0, 2, integer=True)}

    def __init__(self, *, depth: int = 0, seed: int | None = None, name: str | None = None) -> None:
        if not 0 <= depth <= 2:
            raise ValueError(f"gnubg depth must be 0, 1 or 2, not {depth}")
        super().__init__(seed=seed, name=name)
        self.depth = depth

    def chosen_steps(self, board: Board, hi: int, lo: int, gammons: bool):
        # a process-wide setting of gnubg-nn, so set before every call: double match point
        # (only winning counts) for single scoring, money play (score 0-0) with gammons
        self._g.set.score(0, 0) if gammons else self._g.set.score(1, 1)
        return self._g.best_move(board, hi, lo, n=self.depth)

    def scores(self, rows: np.ndarray, mover: int) -> np.ndarray:
        out = np.empty(len(rows))
        gammons = int(rows[0, rules.SCORING]) == 1
        for i, r in enumerate(rows):
            # the opponent is on roll: its win, win gammon, win backgammon, lose gammon, lose bg
            w, wg, wbg, lg, lbg = self._g.probabilities(to_gnubg(r, 1 - mover), self.depth)
            equity = 2.0 * w - 1.0 + ((wg + wbg - lg - lbg) if gammons else 0.0)
            out[i] = -equity
        return out
