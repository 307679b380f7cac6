"""The Connect Four GameState."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numba import njit

from plies.games import batching
from plies.games.connect_four import drawing, features, rules
from plies.games.game import Game
from plies.games.kernels import TERMINAL, Heuristic, check_options
from plies.games.options import option_int
from plies.games.state import GameState

MARKS = "XO"
OPTIONS = ("width", "height")

class ConnectFourState(GameState):
    """Connect Four on a ``width`` x ``height`` board (default 7x6): X (seat 0) starts.

    Action ``c`` drops a stone into column ``c`` (0-based, left to right). In text (move
    sequences, ``action_to_string``) columns are 1-based, as in the standard notation.
    """

    __slots__ = ()

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("connect_four", options, OPTIONS)
        if array is None:
            array = rules.initial_array(
                option_int("connect_four", "width", options.get("width", rules.DEFAULT_WIDTH), 1, 63),
                option_int("connect_four", "height", options.get("height", rules.DEFAULT_HEIGHT), 1, 63),
            )
        else:
            array = self.game.checked_state(array)
        super().__init__(array)

    # ----- facts -------------------------------------------------------------------------
    num_players = 2  # type: ignore[assignment]

    @property
    def width(self) -> int:
        return int(self._s[rules.WIDTH])

    @property
    def height(self) -> int:
        return int(self._s[rules.HEIGHT])

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return self.width

    @property
    def max_game_length(self) -> int:  # type: ignore[override]
        return self.width * self.height

    @property
    def num_moves(self) -> int:
        """Stones on the board."""
        return int(self._s[rules.MOVES])

    @property
    def winner(self) -> int | None:
        """The winning seat, or None (game on, or a draw)."""
        result = int(self._s[rules.RESULT])
        return result if result in (0, 1) else None

    def grid(self) -> np.ndarray:
        """(height, width) int array, row 0 at the TOP: 0 empty, 1 X, 2 O."""
        width, height = self.width, self.height
        grid = np.zeros((height, width), np.int64)
        x, o = int(self._s[rules.STONES]), int(self._s[rules.STONES + 1])
        for c in range(width):
            for r in range(height):
                bit = 1 << (c * (height + 1) + r)
                if x & bit:
                    grid[height - 1 - r, c] = 1
                elif o & bit:
                    grid[height - 1 - r, c] = 2
        return grid

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.height, self.width, 2)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)

    # ----- text ----------------------------------------------------------------------------
    def to_string(self) -> str:
        """The board, top row first, rows separated by ``/``: ``X``, ``O``, ``.`` (empty)."""
        return "/".join("".join(".XO"[v] for v in row) for row in self.grid())

    @classmethod
    def from_string(cls, text: str, **options: Any) -> ConnectFourState:
        """Parse a position in either notation:

        * a move sequence: 1-based column digits from the empty board, X first (the standard
          benchmark notation, e.g. ``"4453"``; ``""`` is the empty board). For boards wider
          than 9 columns, separate the numbers by spaces or commas (``"10 1 4"``).
        * a board diagram, top row first: rows separated by ``/`` or newlines, cells ``X``,
          ``O`` and ``.`` (e.g. ``to_string()``'s output), or rows drawn ``| |X|O|`` as the
          classroom ``Board`` prints them (its ``---`` and column-number lines are skipped).
          Width and height follow from the diagram; the side to move from the stone counts.
        """
        check_options("connect_four", options, OPTIONS)
        stripped = text.strip()
        if re.fullmatch(r"[0-9 ,]*", stripped):
            return cls._from_moves(stripped, **options)
        return cls._from_diagram(text, **options)

    @classmethod
    def _from_moves(cls, text: str, **options: Any) -> ConnectFourState:
        state = cls(**options)
        tokens = re.split(r"[ ,]+", text) if re.search(r"[ ,]", text) else list(text)
        width = state.width
        for i, token in enumerate(t for t in tokens if t):
            where = f"move {i + 1} ({token!r}) of {text!r}"
            if not (token.isascii() and token.isdigit()):
                raise ValueError(f"{where}: moves are 1-based column numbers, e.g. '4453'")
            column = int(token)
            if not 1 <= column <= width:
                raise ValueError(f"{where}: columns are numbered 1 to {width}")
            if state.is_terminal():
                raise ValueError(f"{where}: the game was already over")
            if not state.is_legal(column - 1):
                raise ValueError(f"{where}: column {column} is full")
            state.apply_unchecked(column - 1)
        return state

    @classmethod
    def _from_diagram(cls, text: str, **options: Any) -> ConnectFourState:
        rows: list[list[int]] = []
        for raw in re.split(r"[/\n]", text):
            line = raw.rstrip("\r")
            if not line.strip() or re.fullmatch(r"[\s\-0-9]+", line):
                continue  # blank lines, the '-----' rule and the column numbers
            if "|" in line:
                body = line.strip()
                if not (body.startswith("|") and body.endswith("|")):
                    raise ValueError(f"malformed board row {line!r}: rows drawn with '|' start and end with '|'")
                cells = [cell.strip() or "." for cell in body[1:-1].split("|")]
            else:
                cells = [ch for ch in line if not ch.isspace()]
            row = []
            for cell in cells:
                if cell.upper() not in ("X", "O", "."):
                    raise ValueError(
                        f"malformed Connect Four board {text!r}: bad cell {cell!r}; cells are 'X', 'O' "
                        "or '.' (or a blank between '|'), or give 1-based column digits like '4453'"
                    )
                row.append(".XO".index(cell.upper()))
            rows.append(row)
        if not rows or any(len(r) != len(rows[0]) for r in rows):
            raise ValueError(
                f"malformed Connect Four board {text!r}: need rows of equal length "
                f"(got lengths {[len(r) for r in rows]})"
            )
        height, width = len(rows), len(rows[0])
        for key, value in (("width", width), ("height", height)):
            if key in options and option_int("connect_four", key, options[key]) != value:
                raise ValueError(f"the diagram has {key} {value}, but {key}={options[key]} was given")
        state = cls(width=width, height=height)
        s = state._s
        for c in range(width):
            filled = True
            for r in range(height):  # r = 0 is the bottom row
                value = rows[height - 1 - r][c]
                if value and not filled:
                    raise ValueError(
                        f"impossible Connect Four board {text!r}: column {c + 1} has a stone above an empty cell"
                    )
                filled = value != 0
                if value:
                    s[rules.STONES + value - 1] |= 1 << (c * (height + 1) + r)
        count_x = bin(int(s[rules.STONES])).count("1")
        count_o = bin(int(s[rules.STONES + 1])).count("1")
        if count_x - count_o not in (0, 1):
            raise ValueError(
                f"impossible Connect Four board {text!r}: X moves first, so X has as many stones as O "
                f"or one more (X {count_x}, O {count_o})"
            )
        x_four = rules.has_four(s[rules.STONES], height, width)
        o_four = rules.has_four(s[rules.STONES + 1], height, width)
        if (x_four and (o_four or count_x == count_o)) or (o_four and count_x != count_o):
            raise ValueError(
                f"impossible Connect Four board {text!r}: only the player who moved last can have "
                "four in a row"
            )
        rules.settle(s)
        state.refresh()
        return state

    def action_to_string(self, action: int) -> str:
        """1-based column number, as in move sequences."""
        return str(self.action_in_range(action) + 1)

    def render_text(self) -> str:
        grid = self.grid()
        lines = [" ".join(".XO"[v] for v in row) for row in grid]
        lines.append(" ".join(str((c + 1) % 10) for c in range(self.width)))
        if self.is_terminal():
            status = "draw" if self.winner is None else f"{MARKS[self.winner]} wins"
        else:
            status = f"{MARKS[self.current_player]} to move"
        return "\n".join(lines) + f"\n({status})"

def state_from_moves(moves: str, **options: Any) -> ConnectFourState:
    """The position after a 1-based move sequence such as ``"4453"``."""
    return ConnectFourState._from_moves(moves.strip(), **options)


__all__ = ["GAME", "ConnectFourState", "TERMINAL", "state_from_moves"]


@njit(cache=True)
def batch_run(mode, ints, f32, f64, flags):
    """The batched env's entry: the generic batch kernels bound to this game's rules (named
    through their modules: numba caches module attributes, not bare global functions)."""
    return batching.run_batch(rules.legal_actions, rules.apply_action, rules.returns,
                              rules.chance_outcomes, rules.observe, batching.no_reset_hook, mode, ints, f32, f64, flags)


GAME = Game(
    id="connect_four",
    title="Connect Four",
    state_class=ConnectFourState,
    kernels=rules.KERNELS,
    observe=rules.observe,
    batch_run=batch_run,
    schema=rules.SCHEMA,
    check_rows=rules.check_rows,
    num_players=2,
    num_actions=rules.DEFAULT_WIDTH,
    undo_size=1,
    encode=features.encode,
    features_into=features.features_into,
    net_value=features.net_value,
    options=OPTIONS,
    heuristics={
        "cells": Heuristic(
            "cells",
            rules.evaluate_cells,
            description="cell weights (number of fours through each cell), own minus opponent's",
        ),
        "threats": Heuristic(
            "threats",
            rules.evaluate_threats,
            default_params=(1.0, 4.0),
            param_names=("cells", "threats"),
            description="cell weights plus empty cells that would complete a four",
        ),
    },
    default_heuristic="cells",
    canonical_hash=rules.canonical_hash,
    apply_and_list=rules.apply_and_list,
    draw=drawing.svg,
    docs="docs/connect_four.md",
    seat_names=("X", "O"),
    default_opponent="alphabeta:depth=4",
    hint_agent="alphabeta:depth=8",
    click=drawing.click,
)
