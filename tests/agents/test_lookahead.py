from functools import cache

import numpy as np
import pytest

from plies.agents import make
from plies.agents.lookahead import scores_for, tiebreak_move
from plies.games.tictactoe import TicTacToeState
from tests.tictactoe import ttt_reference as ref


def reference_scores(board: str, mark: str, ply: int) -> list[float]:
    """The write-up's recursion, written out plainly for Tic-Tac-Toe."""
    other = "O" if mark == "X" else "X"

    @cache
    def scores(b: str, me: str, p: int) -> tuple[float, ...]:
        opp = "O" if me == "X" else "X"
        out = []
        for cell in range(9):
            if b[cell] != "." or ref.finished(b) and ref.winner(b) is None:
                out.append(-1.0)
            elif ref.winner(b) == me:
                out.append(100.0)
            elif ref.winner(b) == opp:
                out.append(0.0)
            elif p == 0:
                out.append(50.0)
            else:
                nb = b[:cell] + me + b[cell + 1 :]
                if ref.winner(nb) == me:
                    out.append(100.0)
                elif ref.finished(nb):
                    out.append(50.0)
                else:
                    out.append(100.0 - max(scores(nb, opp, p - 1)))
        return tuple(out)

    del other
    return list(scores(board, mark, ply))


def test_scores_match_the_write_up_recursion_for_both_seats(rng):
    for _ in range(40):
        s = TicTacToeState()
        for _ in range(int(rng.integers(0, 6))):
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
        if s.is_terminal():
            continue
        board = s.to_string().replace("/", "")
        for seat, mark in ((0, "X"), (1, "O")):
            for ply in range(0, 5):
                assert scores_for(s, seat, ply) == reference_scores(board, mark, ply)


def test_tiebreaks():
    scores = [0, 0, 50, 0, 50, 50, 0]
    rng = np.random.default_rng(0)
    assert tiebreak_move(scores, "LEFT", rng) == 2
    assert tiebreak_move(scores, "RIGHT", rng) == 5
    assert {tiebreak_move(scores, "RANDOM", rng) for _ in range(50)} == {2, 4, 5}
    with pytest.raises(ValueError, match="LEFT, RIGHT, RANDOM"):
        tiebreak_move(scores, "MIDDLE", rng)


def test_lookahead_agent_takes_a_win_and_blocks_a_loss():
    win = TicTacToeState.from_string("XX./OO./...")
    assert make("lookahead:depth=1,tiebreak=LEFT").act(win) == 2
    block = TicTacToeState.from_string("XX./O../...")  # O to move must block at 2
    assert make("lookahead:depth=2,tiebreak=LEFT").act(block) == 2
