"""The Tic-Tac-Toe write-up's model, over plies' generic code.

The write-up codes a board as 9 cells, row by row: 0 empty, 1 X, 4 O, so a line summing to 3
is X's and one summing to 12 is O's; a full board sums to 21, and X is to move when the sum
is a multiple of 5. Its recursion counts the games X wins, O wins and the draws below a
board; its corrected version gives the probability of each result under uniformly random
play. Its first player ranks moves by those counts; the corrected player maximises
1 - P(lose). Both are plies agents, and ``loss_probability`` computes exactly how often a
player loses against the uniformly random player by enumerating the random player's moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from plies.agents.base import BaseAgent
from plies.agents.enumeration import count_outcomes, random_play_outcomes
from plies.games.state import GameState
from plies.games.tictactoe import TicTacToeState

EMPTY, X, O = 0, 1, 4
_CELL_TO_MARK = {EMPTY: ".", X: "X", O: "O"}


def board_to_state(board: Sequence[int]) -> TicTacToeState:
    """The TicTacToeState of a write-up board (9 cells of 0, 1 or 4)."""
    cells = list(board)
    if len(cells) != 9 or any(c not in _CELL_TO_MARK for c in cells):
        raise ValueError(f"a board is 9 cells of 0 (empty), 1 (X) or 4 (O); got {board!r}")
    return TicTacToeState.from_string("".join(_CELL_TO_MARK[c] for c in cells))


def state_to_board(state: TicTacToeState) -> list[int]:
    return [(EMPTY, X, O)[c] for c in state.cells]


def outcome_counts(board: Sequence[int]) -> tuple[int, int, int]:
    """(games X wins, games O wins, draws) over every move sequence from ``board``."""
    x_wins, o_wins, draws = count_outcomes(board_to_state(board))
    return int(x_wins), int(o_wins), int(draws)


def outcome_probabilities(board: Sequence[int]) -> tuple[float, float, float]:
    """(P(X wins), P(O wins), P(draw)) when both sides play uniformly at random from ``board``."""
    x_wins, o_wins, draws = random_play_outcomes(board_to_state(board))
    return float(x_wins), float(o_wins), float(draws)


class CountingPlayer(BaseAgent):
    """The write-up's first player: the move whose subtree has the best balance of counted
    games, (own wins - opponent wins) / all games; the lowest cell wins ties. It ignores how
    deep a result lies, which is why it can still lose."""

    spec_name = "ttt_counting"
    games = ("tictactoe",)  # it counts every game below a move: a small game only

    def act(self, state: GameState) -> int:
        me = state.current_player
        best_score, best_move = -2.0, -1
        for move in state.legal_actions():
            child = state.clone()
            child.apply_unchecked(int(move))
            counts = count_outcomes(child)
            score = (counts[me] - counts[1 - me]) / max(1, counts.sum())
            if score > best_score:
                best_score, best_move = score, int(move)
        return best_move


class CorrectedPlayer(BaseAgent):
    """The write-up's corrected player: maximise 1 - P(lose) under random play; lowest cell on ties."""

    spec_name = "ttt_not_losing"
    games = ("tictactoe",)  # it counts every game below a move: a small game only

    def act(self, state: GameState) -> int:
        me = state.current_player
        best_score, best_move = -1.0, -1
        for move in state.legal_actions():
            child = state.clone()
            child.apply_unchecked(int(move))
            if child.is_terminal():
                score = 1.0 - (child.returns()[me] < 0)
            else:
                score = 1.0 - random_play_outcomes(child)[1 - me]
            if score > best_score + 1e-12:
                best_score, best_move = score, int(move)
        return best_move


def loss_probability(player: BaseAgent, seat: int) -> float:
    """Exact probability that ``player`` (deterministic) loses from the empty board, playing
    ``seat`` against the uniformly random player: the random moves are enumerated."""

    if seat not in (0, 1):
        raise ValueError(f"seat is 0 (X) or 1 (O), not {seat!r}")

    @cache
    def lose(text: str) -> float:
        state = TicTacToeState.from_string(text)
        if state.is_terminal():
            return float(state.returns()[seat] < 0)
        if state.current_player == seat:
            child = state.clone()
            child.apply(player.act(state))
            return lose(child.to_string())
        moves = state.legal_actions()
        total = 0.0
        for move in moves:
            child = state.clone()
            child.apply_unchecked(int(move))
            total += lose(child.to_string())
        return total / len(moves)

    return lose(TicTacToeState().to_string())
