"""The Tic-Tac-Toe GameState."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from plies.games import batching
from plies.games.game import Game
from plies.games.kernels import TERMINAL, Heuristic, check_options
from plies.games.state import GameState
from plies.games.tictactoe import drawing, features, rules

MARKS = ".XO"

class TicTacToeState(GameState):
    """Tic-Tac-Toe: X (seat 0) moves first; action = cell 0-8, row by row."""

    __slots__ = ()

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("tictactoe", options, ())
        super().__init__(rules.initial_array() if array is None else self.game.checked_state(array))

    num_players = 2  # type: ignore[assignment]
    num_actions = rules.NUM_ACTIONS  # type: ignore[assignment]
    max_game_length = 9  # type: ignore[assignment]

    @property
    def cells(self) -> np.ndarray:
        """The 9 cells: 0 empty, 1 X, 2 O."""
        return self._s[1:10].copy()

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (3, 3, 2)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)

    def to_string(self) -> str:
        rows = ("".join(MARKS[c] for c in self._s[1 + 3 * r : 4 + 3 * r]) for r in range(3))
        return "/".join(rows)

    @classmethod
    def from_string(cls, text: str, **options: Any) -> TicTacToeState:
        """Parse 9 cells of ``X``, ``O`` and ``.`` (row by row; ``/``, spaces, newlines and
        ``|`` are ignored), e.g. ``"XO./.X./..O"``. The side to move follows from the counts."""
        cells = [ch for ch in text.upper() if ch not in "/| \n\t\r"]
        bad = sorted({ch for ch in cells if ch not in "XO.-_0"})
        if len(cells) != 9 or bad:
            raise ValueError(
                f"malformed Tic-Tac-Toe board {text!r}: need 9 cells of 'X', 'O' or '.', "
                f"row by row (got {len(cells)} cells{', bad characters ' + ''.join(bad) if bad else ''})"
            )
        state = cls(**options)
        count_x = count_o = 0
        for i, ch in enumerate(cells):
            if ch == "X":
                state._s[1 + i] = 1
                count_x += 1
            elif ch == "O":
                state._s[1 + i] = 2
                count_o += 1
        if count_x - count_o not in (0, 1):
            raise ValueError(
                f"impossible Tic-Tac-Toe board {text!r}: X moves first, so X must have as many "
                f"marks as O or one more (X {count_x}, O {count_o})"
            )
        lines = [(a, b, c) for a, b, c in ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7),
                                            (2, 5, 8), (0, 4, 8), (2, 4, 6))
                 if cells[a] == cells[b] == cells[c] and cells[a] in "XO"]
        lined = {cells[line[0]] for line in lines}
        if lined == {"X", "O"}:
            raise ValueError(f"impossible Tic-Tac-Toe board {text!r}: both X and O have a line")
        if lined == {"X"} and count_x == count_o:
            raise ValueError(f"impossible Tic-Tac-Toe board {text!r}: X has a line, so X moved last "
                             "and must have one mark more than O")
        if lined == {"O"} and count_x != count_o:
            raise ValueError(f"impossible Tic-Tac-Toe board {text!r}: O has a line, so O moved last "
                             "and must have as many marks as X")
        state._s[rules.MOVES] = count_x + count_o
        state._s[0] = 0 if count_x == count_o else 1
        winner = rules._winner(state._s)
        if winner >= 0:
            state._s[rules.RESULT] = winner
            state._s[0] = TERMINAL
        elif count_x + count_o == 9:
            state._s[rules.RESULT] = rules.DRAW
            state._s[0] = TERMINAL
        return state

    def action_to_string(self, action: int) -> str:
        return str(self.action_in_range(action))

    def render_text(self) -> str:
        rows = [" ".join(MARKS[c] for c in self._s[1 + 3 * r : 4 + 3 * r]) for r in range(3)]
        if self.is_terminal():
            result = self._s[rules.RESULT]
            status = "draw" if result == rules.DRAW else f"{MARKS[result + 1]} wins"
        else:
            status = f"{MARKS[self.current_player + 1]} to move"
        return "\n".join(rows) + f"\n({status})"

@njit(cache=True)
def batch_run(mode, ints, f32, f64, flags):
    """The batched env's entry: the generic batch kernels bound to this game's rules (named
    through their modules: numba caches module attributes, not bare global functions)."""
    return batching.run_batch(rules.legal_actions, rules.apply_action, rules.returns,
                              rules.chance_outcomes, rules.observe, batching.no_reset_hook, mode, ints, f32, f64, flags)


GAME = Game(
    id="tictactoe",
    title="Tic-Tac-Toe",
    state_class=TicTacToeState,
    kernels=rules.KERNELS,
    observe=rules.observe,
    batch_run=batch_run,
    schema=rules.SCHEMA,
    num_players=2,
    num_actions=rules.NUM_ACTIONS,
    undo_size=1,
    check_rows=rules.check_rows,
    encode=features.encode,
    features_into=features.features_into,
    net_value=features.net_value,
    heuristics={
        "lines": Heuristic("lines", rules.evaluate_lines, description="open lines, squared"),
    },
    default_heuristic="lines",
    apply_and_list=rules.apply_and_list,
    draw=drawing.svg,
    docs="docs/tictactoe.md",
    seat_names=("X", "O"),
    default_opponent="perfect",
    hint_agent="perfect",
    click=drawing.click,
)
