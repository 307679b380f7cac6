from fractions import Fraction
from functools import cache

import pytest

from plies.classroom.tictactoe import (
    CorrectedPlayer,
    CountingPlayer,
    board_to_state,
    loss_probability,
    outcome_counts,
    outcome_probabilities,
)
from tests.tictactoe import ttt_reference as ref

EMPTY = [0] * 9


def test_counts_from_the_empty_board():
    assert outcome_counts(EMPTY) == (131184, 77904, 46080)
    assert sum(outcome_counts(EMPTY)) == 255168


def test_counts_and_probabilities_match_the_reference_on_many_boards(rng):
    for _ in range(30):
        state = board_to_state(EMPTY)
        for _ in range(int(rng.integers(0, 7))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_actions())))
        board = [{0: 0, 1: 1, 2: 4}[c] for c in state.cells]
        text = state.to_string().replace("/", "")
        assert outcome_counts(board) == ref.counts(text)
        assert outcome_probabilities(board) == pytest.approx([float(p) for p in ref.random_outcomes(text)], abs=1e-12)


def test_board_coding_is_the_write_up_s():
    with pytest.raises(ValueError, match="0 \\(empty\\), 1 \\(X\\) or 4 \\(O\\)"):
        board_to_state([0, 2, 0, 0, 0, 0, 0, 0, 0])
    assert board_to_state([1, 4, 0, 0, 0, 0, 0, 0, 0]).current_player == 0  # sum 5: X to move


def reference_choice(board: str, corrected: bool) -> int:
    """The players' rules, computed from the independent reference."""
    me = ref.to_move(board)
    best, choice = None, None
    for move in ref.moves(board):
        child = ref.play(board, move)
        if corrected:
            px, po, _ = ref.random_outcomes(child)
            score = 1 - (po if me == "X" else px)
        else:
            x, o, d = ref.counts(child)
            score = Fraction((x - o) if me == "X" else (o - x), x + o + d)
        if best is None or score > best:
            best, choice = score, move
    return choice


def reference_loss(seat: str, corrected: bool) -> Fraction:
    @cache
    def lose(board: str) -> Fraction:
        if ref.finished(board):
            w = ref.winner(board)
            return Fraction(w is not None and w != seat)
        if ref.to_move(board) == seat:
            return lose(ref.play(board, reference_choice(board, corrected)))
        ms = ref.moves(board)
        return sum(lose(ref.play(board, m)) for m in ms) / len(ms)

    return lose("." * 9)


@pytest.mark.parametrize("player, corrected", [(CountingPlayer, False), (CorrectedPlayer, True)])
def test_players_lose_exactly_as_often_as_enumeration_says(player, corrected):
    for seat, mark in ((0, "X"), (1, "O")):
        exact = reference_loss(mark, corrected)
        assert loss_probability(player(), seat) == pytest.approx(float(exact), abs=1e-12)


def test_the_corrected_player_never_loses_as_x_but_still_can_as_o():
    assert reference_loss("X", corrected=True) == 0
    as_o = reference_loss("O", corrected=True)
    assert 0 < as_o < reference_loss("O", corrected=False)
    assert loss_probability(CorrectedPlayer(), 1) == pytest.approx(float(as_o), abs=1e-12)
