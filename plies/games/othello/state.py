"""The Othello GameState."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numba import njit

from plies.games import batching
from plies.games.game import Game
from plies.games.kernels import TERMINAL, Heuristic, check_options
from plies.games.othello import drawing, features, rules
from plies.games.state import GameState

MARKS = "xo"
NAMES = ("black", "white")
FILES = "abcdefgh"

def square_name(square: int) -> str:
    """OpenSpiel's name of a square: file letter, then rank 1-8 counted from the top row."""
    return FILES[square % 8] + str(square // 8 + 1)


class OthelloState(GameState):
    """Othello on 8x8 as OpenSpiel plays it: black (``x``, seat 0) starts.

    Action ``8 * row + column`` places a disc there (row 0 at the top, named ``a1`` .. ``h8``
    as OpenSpiel does: ``d3`` is action 19); action 64 passes, and is the only legal action of
    a player who cannot place a disc.
    """

    __slots__ = ()

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("othello", options, ())
        super().__init__(rules.initial_array() if array is None else self.game.checked_state(array))

    num_players = 2  # type: ignore[assignment]
    num_actions = rules.NUM_ACTIONS  # type: ignore[assignment]
    max_game_length = rules.MAX_GAME_LENGTH  # type: ignore[assignment]

    @property
    def max_legal_actions(self) -> int:
        return rules.NUM_ACTIONS

    @property
    def winner(self) -> int | None:
        """The winning seat, or None (game on, or a draw)."""
        result = int(self._s[rules.RESULT])
        return result if result in (0, 1) else None

    def disc_counts(self) -> tuple[int, int]:
        """(black discs, white discs)."""
        return (_unsigned(self._s[rules.DISCS]).bit_count(), _unsigned(self._s[rules.DISCS + 1]).bit_count())

    def grid(self) -> np.ndarray:
        """(8, 8) int array, row 0 at the top: 0 empty, 1 black, 2 white."""
        black, white = _unsigned(self._s[rules.DISCS]), _unsigned(self._s[rules.DISCS + 1])
        return np.array([(black >> i & 1) + 2 * (white >> i & 1) for i in range(64)], np.int64).reshape(8, 8)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return rules.OBSERVATION_SHAPE

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)

    # ----- text ----------------------------------------------------------------------------
    def to_string(self) -> str:
        """The board, top row first, rows separated by ``/`` (``x`` black, ``o`` white, ``.``
        empty), a space, then the side to move: ``x``, ``o``, or ``-`` once the game is over.
        The start: ``......../......../......../...ox.../...xo.../......../......../........ x``."""
        rows = "/".join("".join(".xo"[v] for v in row) for row in self.grid())
        side = "-" if self.is_terminal() else MARKS[self.current_player]
        return f"{rows} {side}"

    @classmethod
    def from_string(cls, text: str, **options: Any) -> OthelloState:
        """Parse ``to_string()``'s format: 8 rows of 8 cells (``x`` or ``X`` black, ``o`` or
        ``O`` white, ``.`` or ``-`` empty; rows separated by ``/`` or newlines, spaces inside a
        row ignored), then the side to move: ``x``, ``o``, or ``-`` for a finished game.

        Raises ``ValueError`` for a malformed text, for a board no game reaches (the four
        centre squares are never emptied, and every disc touches the group that grew from
        them), for ``-`` while a player can still move, and for ``x``/``o`` once neither can.
        """
        check_options("othello", options, ())
        if not isinstance(text, str):
            raise TypeError(f"an Othello position is a str, got {type(text).__name__}")
        match = re.fullmatch(r"\s*(.*?)\s+([xXoO-])\s*", text, flags=re.DOTALL)
        if match is None:
            raise ValueError(
                f"malformed Othello position {text!r}: need 8 rows of 8 cells ('x', 'o', '.'), "
                "then a space and the side to move ('x', 'o', or '-' for a finished game)"
            )
        board, side = match.group(1), match.group(2).lower()
        rows = [re.sub(r"[ \t]", "", row) for row in re.split(r"\s*[/\n]\s*", board.strip())]
        if len(rows) != 8 or any(len(row) != 8 for row in rows):
            raise ValueError(
                f"malformed Othello position {text!r}: need 8 rows of 8 cells "
                f"(got {len(rows)} rows of lengths {[len(row) for row in rows]})"
            )
        bad = sorted({ch for row in rows for ch in row if ch not in "xXoO.-"})
        if bad:
            raise ValueError(
                f"malformed Othello position {text!r}: bad cell(s) {''.join(bad)!r}; cells are "
                "'x' (black), 'o' (white) and '.' (empty)"
            )
        cells = "".join(rows).lower().replace("-", ".")
        _check_reachable(cells, text)
        state = cls()
        s = state._s
        s[rules.DISCS] = rules._signed(sum(1 << i for i, ch in enumerate(cells) if ch == "x"))
        s[rules.DISCS + 1] = rules._signed(sum(1 << i for i, ch in enumerate(cells) if ch == "o"))
        s[0] = 1 if side == "o" else 0
        rules.settle(s)
        over = s[0] == TERMINAL
        if side == "-" and not over:
            raise ValueError(
                f"Othello position {text!r} is marked finished ('-'), but a player can still move; "
                "give the side to move, 'x' or 'o'"
            )
        if side != "-" and over:
            raise ValueError(
                f"Othello position {text!r} gives {side!r} to move, but neither player can move: "
                "the game is over; mark it with '-'"
            )
        return state

    def action_to_string(self, action: int) -> str:
        """OpenSpiel's names: ``a1`` .. ``h8`` (file, then rank from the top), and ``pass``."""
        action = self.action_in_range(action)
        if action == rules.PASS:
            return "pass"
        return square_name(action)

    def string_to_action(self, text: str) -> int:
        """A square name (``d3``, any case), ``pass``, or the action number."""
        return super().string_to_action(text.strip().lower())

    def render_text(self) -> str:
        lines = ["  " + " ".join(FILES)]
        for r, row in enumerate(self.grid()):
            lines.append(f"{r + 1} " + " ".join(".xo"[v] for v in row))
        black, white = self.disc_counts()
        if self.is_terminal():
            status = "draw" if self.winner is None else f"{NAMES[self.winner]} ({MARKS[self.winner]}) wins"
        else:
            player = self.current_player
            status = f"{NAMES[player]} ({MARKS[player]}) to move"
            if self.legal_actions() == (rules.PASS,):
                status += ", must pass"
        return "\n".join(lines) + f"\n({status}; x {black}, o {white})"


def _unsigned(bits: np.int64) -> int:
    """A bitboard slot as the non-negative int with the same 64 bits."""
    return int(bits) & ((1 << 64) - 1)


def _check_reachable(cells: str, text: str) -> None:
    """Reject boards no game reaches: discs are never removed, so the four centre squares stay
    filled, and each disc is placed next to another, so the discs form one group (neighbours
    along rows, columns and diagonals)."""
    empty_centre = [square_name(sq) for sq in (27, 28, 35, 36) if cells[sq] == "."]
    if empty_centre:
        raise ValueError(
            f"impossible Othello position {text!r}: the centre squares d4, e4, d5, e5 start "
            f"filled and stay filled, but {', '.join(empty_centre)} is empty"
        )
    seen, frontier = {27}, [27]
    while frontier:
        square = frontier.pop()
        row, col = divmod(square, 8)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = row + dr, col + dc
                if 0 <= r < 8 and 0 <= c < 8 and cells[8 * r + c] != "." and 8 * r + c not in seen:
                    seen.add(8 * r + c)
                    frontier.append(8 * r + c)
    stray = [square_name(i) for i, ch in enumerate(cells) if ch != "." and i not in seen]
    if stray:
        raise ValueError(
            f"impossible Othello position {text!r}: every disc is placed next to another, but "
            f"{', '.join(stray)} is cut off from the centre"
        )




@njit(cache=True)
def batch_run(mode, ints, f32, f64, flags):
    """The batched env's entry: the generic batch kernels bound to Othello's rules."""
    return batching.run_batch(rules.legal_actions, rules.apply_action, rules.returns,
                              rules.chance_outcomes, rules.observe, batching.no_reset_hook, mode,
                              ints, f32, f64, flags)


GAME = Game(
    id="othello",
    title="Othello",
    state_class=OthelloState,
    kernels=rules.KERNELS,
    observe=rules.observe,
    batch_run=batch_run,
    schema=rules.SCHEMA,
    num_players=2,
    num_actions=rules.NUM_ACTIONS,
    undo_size=rules.UNDO_SIZE,
    check_rows=rules.check_rows,
    encode=features.encode,
    features_into=features.features_into,
    net_value=features.net_value,
    heuristics={
        "discs": Heuristic("discs", rules.evaluate_discs, description="own discs minus the opponent's"),
        "mobility": Heuristic(
            "mobility",
            rules.evaluate_mobility,
            default_params=(4.0, 2.0, 1.0),
            param_names=("corners", "mobility", "discs"),
            description="corners held, moves available and discs, own minus the opponent's",
        ),
    },
    default_heuristic="mobility",
    apply_and_list=rules.apply_and_list,
    draw=drawing.svg,
    docs="docs/othello.md",
    seat_names=NAMES,
    click=drawing.click,
)

__all__ = ["GAME", "OthelloState", "square_name"]
