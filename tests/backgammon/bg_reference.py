"""Helpers shared by the backgammon tests: positions set up by hand; drive OpenSpiel's backgammon
with the same dice."""

from __future__ import annotations

import numpy as np

from plies.games.backgammon import BackgammonState, rules
from plies.games.kernels import CHANCE

Board = tuple[int, ...]


def position(me: dict[int, int], them: dict[int, int], mover: int = 0) -> np.ndarray:
    """A state (after the opening) with seat ``mover`` to roll; ``me``/``them``: point -> checkers
    in each side's own numbering (25 = bar); the checkers not placed are borne off."""
    s = rules.initial_array(0)
    s[rules.BOARD:rules.BOARD + 2 * rules.SIDE] = 0
    for seat, points in ((mover, me), (1 - mover, them)):
        base = rules.BOARD + rules.SIDE * seat
        for point, n in points.items():
            s[base + point] = n
        s[base + rules.OFF] = 15 - sum(points.values())
    s[rules.PLAYER] = CHANCE
    s[rules.ROLLER] = mover
    s[rules.ROLLS] = 1
    return s


def board_key(array: np.ndarray) -> Board:
    """X's then O's 26 counts (off, points 1..24, bar), each in its own numbering."""
    return tuple(int(v) for v in array[rules.BOARD : rules.BOARD + 2 * rules.SIDE])


def spiel_board_key(spiel_state) -> Board:
    text = str(spiel_state)
    bar_line = text.split("Bar:")[1].split("\n")[0]
    scores = text.split("Scores, X:")[1].split("\n")[0]
    x_off, o_off = int(scores.split(",")[0]), int(scores.split("O:")[1])
    x = [x_off] + [spiel_state.board(0, 24 - p) for p in range(1, 25)] + [bar_line.count("x")]
    o = [o_off] + [spiel_state.board(1, p - 1) for p in range(1, 25)] + [bar_line.count("o")]
    return tuple(x + o)


def spiel_outcome(plies_outcome: int) -> int:
    """OpenSpiel's chance outcome for one of ours (its opening: 15 pairs x starter; later 36
    ordered rolls, doubles 30..35)."""
    if plies_outcome >= rules.OPENING_BASE:
        k = plies_outcome - rules.OPENING_BASE
        d0, d1 = k // 6 + 1, k % 6 + 1
        lo, hi = min(d0, d1), max(d0, d1)
        starter = 0 if d0 > d1 else 1
        return 2 * _PAIRS.index((lo, hi)) + starter
    hi, lo = plies_outcome // 6 + 1, plies_outcome % 6 + 1
    if hi == lo:
        return 30 + hi - 1
    return 2 * _PAIRS.index((lo, hi))


_PAIRS = [(a, b) for a in range(1, 7) for b in range(a + 1, 7)]


def spiel_afterstates(spiel_state) -> dict[Board, list[int]]:
    """Distinct end-of-turn boards of OpenSpiel's player to move, with an action path each."""
    found: dict[Board, list[int]] = {}
    player = spiel_state.current_player()

    def walk(state, path):
        if state.is_terminal() or state.is_chance_node() or state.current_player() != player:
            found.setdefault(spiel_board_key(state), list(path))
            return
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            walk(child, path + [action])

    walk(spiel_state, [])
    return found


def plies_afterstates(state: BackgammonState) -> dict[Board, list[int]]:
    if state.is_chance_node():
        return {board_key(state.array): []}
    rows, paths = state.afterstates()
    return {board_key(r): [int(a) for a in p if a >= 0] for r, p in zip(rows, paths)}
