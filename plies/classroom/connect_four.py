"""The Connect Four ``Board`` and ``Player`` of the course write-up ("Vier op een rij"), exactly.

Both are thin adapters: ``Board`` keeps a :class:`~plies.games.connect_four.ConnectFourState`
(bitboards, the same rules as the environment and the search players), and ``Player`` is the
generic lookahead agent (:mod:`plies.agents.lookahead`) under the write-up's names.

>>> b = Board(7, 6)
>>> b.set_board('1211244445')
>>> Player('X', 'LEFT', 3).scores_for(b)
[0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0]
"""

from __future__ import annotations

import numpy as np

from plies.agents import lookahead
from plies.games.connect_four import rules
from plies.games.connect_four.state import ConnectFourState

CHECKERS = ("X", "O")
TIEBREAKS = lookahead.TIEBREAKS


def _seat(ox: str) -> int:
    if ox not in CHECKERS:
        raise ValueError(f"a checker is 'X' or 'O', got {ox!r}")
    return CHECKERS.index(ox)


class Board:
    """A Connect Four board of ``width`` columns and ``height`` rows (``print`` draws it)."""

    def __init__(self, width: int = 7, height: int = 6) -> None:
        self.width = width
        self.height = height
        self.state = ConnectFourState(width=width, height=height)

    # ----- the bitboard view ----------------------------------------------------------------
    def _stones(self) -> tuple[int, int]:
        s = self.state.array
        return int(s[rules.STONES]), int(s[rules.STONES + 1])

    def _column(self, col: int) -> int:
        """The stones in column ``col`` as a bit run from the bottom (e.g. 0b111: three)."""
        x, o = self._stones()
        return ((x | o) >> (col * (self.height + 1))) & ((1 << self.height) - 1)

    def _cell(self, row: int, col: int) -> str:
        """' ', 'X' or 'O' at ``row`` (0 = top, as the write-up numbers rows) and ``col``."""
        bit = 1 << (col * (self.height + 1) + self.height - 1 - row)
        x, o = self._stones()
        return "X" if x & bit else "O" if o & bit else " "

    @property
    def data(self) -> list[list[str]]:
        """The write-up's ``data``: a list of rows (top row first) of ' ', 'X' and 'O' (a copy)."""
        return [[self._cell(r, c) for c in range(self.width)] for r in range(self.height)]

    def _settle(self) -> None:
        """After writing stones: set whose turn it is and whether the game is over."""
        rules.settle(self.state.array)
        self.state.refresh()  # the GameState caches its player and legal moves

    def game_state(self) -> ConnectFourState:
        """A copy of the position as a GameState (for agents, the solver or the environment)."""
        return self.state.clone()  # type: ignore[return-value]

    # ----- the write-up's methods -----------------------------------------------------------
    def __repr__(self) -> str:
        rows = ["|" + "|".join(self._cell(r, c) for c in range(self.width)) + "|" for r in range(self.height)]
        numbers = "".join(" " + str(c % 10) for c in range(self.width))
        return "\n".join(rows) + "\n" + "-" * (2 * self.width + 1) + "\n" + numbers

    def add_move(self, col: int, ox: str) -> None:
        """Drop checker ``ox`` into column ``col`` (nothing happens if the column is full)."""
        seat = _seat(ox)
        if not 0 <= col < self.width:
            raise ValueError(f"column {col} is not on the board (0 to {self.width - 1})")
        column = self._column(col)
        if column == (1 << self.height) - 1:
            return
        self.state.array[rules.STONES + seat] |= (column + 1) << (col * (self.height + 1))
        self._settle()

    def del_move(self, col: int) -> None:
        """Remove the top checker of column ``col`` (nothing happens if it is empty)."""
        if not 0 <= col < self.width:
            raise ValueError(f"column {col} is not on the board (0 to {self.width - 1})")
        top = ((self._column(col) + 1) >> 1) << (col * (self.height + 1))
        self.state.array[rules.STONES] &= ~top
        self.state.array[rules.STONES + 1] &= ~top
        self._settle()

    def clear(self) -> None:
        """Empty the board."""
        self.state.array[rules.STONES] = 0
        self.state.array[rules.STONES + 1] = 0
        self._settle()

    def set_board(self, move_string: str) -> None:
        """Play 0-based column digits, alternating X and O starting with X (``'1211244445'``).

        As in the write-up, a digit of a full column is skipped (the turn still passes)."""
        checker = "X"
        for ch in move_string:
            if not ch.isdigit():
                raise ValueError(f"set_board takes column digits 0-9, got {ch!r} in {move_string!r}")
            col = int(ch)
            if 0 <= col < self.width:
                self.add_move(col, checker)
            checker = "O" if checker == "X" else "X"

    def allows_move(self, col: int) -> bool:
        """True if ``col`` is on the board and not full."""
        return 0 <= col < self.width and self._column(col) != (1 << self.height) - 1

    def is_full(self) -> bool:
        return all(not self.allows_move(c) for c in range(self.width))

    def wins_for(self, ox: str) -> bool:
        """True if ``ox`` has four in a row (across, up or diagonally)."""
        stones = self._stones()[_seat(ox)]
        return bool(rules.has_four(np.int64(stones), self.height, self.width))

    def host_game(self) -> None:
        """Play X against O at the keyboard (columns 0-based, as printed)."""
        checker = "X"
        while True:
            print(self)
            col = -1
            while not self.allows_move(col):
                text = input(f"{checker}'s choice: ")
                col = int(text) if text.strip().isdigit() else -1
            self.add_move(col, checker)
            if self._announce(checker):
                return
            checker = "O" if checker == "X" else "X"

    def play_game(self, px: Player, po: Player, show: bool = True) -> str:
        """Let two players play from the current board; returns 'X', 'O' or 'D' (draw)."""
        players = {"X": px, "O": po}
        checker = "X" if self.state.current_player != 1 else "O"
        while True:
            if show:
                print(self)
            self.add_move(players[checker].next_move(self), checker)
            if self._announce(checker, show):
                return checker if self.wins_for(checker) else "D"
            checker = "O" if checker == "X" else "X"

    def _announce(self, checker: str, show: bool = True) -> bool:
        if self.wins_for(checker):
            if show:
                print(self)
                print(f"\n{checker} wins -- congratulations!\n")
            return True
        if self.is_full():
            if show:
                print(self)
                print("\nIt's a draw.\n")
            return True
        return False


class Player:
    """The write-up's N-ply lookahead player: ``Player('X', 'LEFT', 3)``.

    ``tbt`` (tie-break type) is 'LEFT', 'RIGHT' or 'RANDOM'; ``ply`` the number of moves it
    looks ahead. The search is :func:`plies.agents.lookahead.scores_for`.
    """

    def __init__(self, ox: str, tbt: str, ply: int, seed: int | None = None) -> None:
        _seat(ox)
        if tbt not in TIEBREAKS:
            raise ValueError(f"tbt is one of {', '.join(TIEBREAKS)}, got {tbt!r}")
        self.ox = ox
        self.tbt = tbt
        self.ply = ply
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"Player for {self.ox}\n  with tiebreak type: {self.tbt}\n  and ply == {self.ply}\n\n"

    def opp_ch(self) -> str:
        """The opponent's checker."""
        return "O" if self.ox == "X" else "X"

    def score_board(self, b: Board) -> float:
        """100.0 if self has won on ``b``, 0.0 if the opponent has, 50.0 otherwise."""
        if b.wins_for(self.ox):
            return 100.0
        if b.wins_for(self.opp_ch()):
            return 0.0
        return 50.0

    def tiebreak_move(self, scores: list[float]) -> int:
        """The column of a highest score, chosen by the tie-break type."""
        return lookahead.tiebreak_move(list(scores), self.tbt, self.rng)

    def scores_for(self, b: Board) -> list[float]:
        """One score per column for self moving next on ``b``: 100 a win within ``ply`` moves,
        0 a loss, 50 unknown, -1.0 a full column."""
        state = b.game_state()
        if b.wins_for(self.ox) and b.wins_for(self.opp_ch()):
            state.array[rules.RESULT] = _seat(self.ox)  # the write-up checks self's win first
            state.refresh()
        scores = lookahead.scores_for(state, _seat(self.ox), self.ply)
        # the write-up scores a full column -1.0 before anything else, even on a won board
        return [score if b.allows_move(col) else -1.0 for col, score in enumerate(scores)]

    def next_move(self, b: Board) -> int:
        """The column self plays on ``b``."""
        return self.tiebreak_move(self.scores_for(b))
