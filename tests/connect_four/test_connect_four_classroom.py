"""The write-up's Board and Player: every assert of the write-up, and the rest of the API."""

import pytest

from plies.classroom import milestone
from plies.classroom.connect_four import Board, Player

PRINTED = """\
| | | | | | | |
| | | | | | | |
| | | | |X| | |
| |O| | |O| | |
| |X|X| |X| | |
| |X|O| |O|O| |
---------------
 0 1 2 3 4 5 6"""


@pytest.fixture
def board() -> Board:
    b = Board(7, 6)
    b.set_board("1211244445")
    return b


def test_print_format(board):
    assert str(board) == PRINTED
    assert repr(board) == PRINTED


def test_tiebreak_move():
    scores = [0, 0, 50, 0, 50, 50, 0]
    p = Player("X", "LEFT", 1)
    p2 = Player("X", "RIGHT", 1)
    assert p.tiebreak_move(scores) == 2
    assert p2.tiebreak_move(scores) == 5
    picks = {Player("X", "RANDOM", 1, seed=s).tiebreak_move(scores) for s in range(40)}
    assert picks == {2, 4, 5}


def test_scores_for_of_the_write_up(board):
    # 0-ply lookahead sees no threats
    assert Player("X", "LEFT", 0).scores_for(board) == [50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0]
    # 1-ply lookahead sees a way to win (if it were O's turn!)
    assert Player("O", "LEFT", 1).scores_for(board) == [50.0, 50.0, 50.0, 100.0, 50.0, 50.0, 50.0]
    # 2-ply lookahead sees ways to lose (X had better play column 3...)
    assert Player("X", "LEFT", 2).scores_for(board) == [0.0, 0.0, 0.0, 50.0, 0.0, 0.0, 0.0]
    # 3-ply lookahead sees indirect wins (X sees that column 3 wins!)
    assert Player("X", "LEFT", 3).scores_for(board) == [0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0]
    # at 3 ply O sees no danger yet in playing another column
    assert Player("O", "LEFT", 3).scores_for(board) == [50.0, 50.0, 50.0, 100.0, 50.0, 50.0, 50.0]
    # but at 4 ply O does see the danger
    assert Player("O", "LEFT", 4).scores_for(board) == [0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0]
    # scoring leaves the board as it was
    assert str(board) == PRINTED


def test_player_basics(board):
    p = Player("X", "LEFT", 2)
    assert repr(p) == "Player for X\n  with tiebreak type: LEFT\n  and ply == 2\n\n"
    assert p.opp_ch() == "O" and Player("O", "RIGHT", 0).opp_ch() == "X"
    assert p.score_board(board) == 50.0
    assert p.next_move(board) == 3
    with pytest.raises(ValueError):
        Player("Z", "LEFT", 1)
    with pytest.raises(ValueError):
        Player("X", "MIDDLE", 1)


def test_board_methods():
    b = Board(7, 6)
    assert b.allows_move(0) and not b.allows_move(7) and not b.allows_move(-1)
    for _ in range(6):
        b.add_move(0, "X")
    assert not b.allows_move(0) and not b.is_full()
    b.add_move(0, "O")  # a full column takes no checker
    assert b.data[0][0] == "X"
    assert b.wins_for("X") and not b.wins_for("O")
    assert Player("X", "LEFT", 1).score_board(b) == 100.0
    assert Player("O", "LEFT", 1).score_board(b) == 0.0
    b.del_move(0)
    b.del_move(0)
    assert b.wins_for("X")
    b.del_move(0)
    assert not b.wins_for("X") and b.data[2][0] == " " and b.data[3][0] == "X"
    b.clear()
    assert str(b) == str(Board(7, 6))
    b.del_move(2)  # an empty column stays empty
    assert str(b) == str(Board(7, 6))


@pytest.mark.parametrize("moves", ["0101010", "0011223", "01123223433", "65543443233"])
def test_wins_in_every_direction(moves):
    b = Board(7, 6)
    b.set_board(moves[:-1])
    assert not b.wins_for("X") and not b.wins_for("O")
    b.add_move(int(moves[-1]), "X")
    assert b.wins_for("X") and not b.wins_for("O")


def test_full_board_and_other_sizes():
    b = Board(2, 2)
    b.set_board("0101")
    assert b.is_full() and not b.wins_for("X") and not b.wins_for("O")
    assert Player("X", "LEFT", 2).scores_for(b) == [-1.0, -1.0]
    wide = Board(10, 4)
    assert str(wide).splitlines()[-1] == " 0 1 2 3 4 5 6 7 8 9"
    with pytest.raises(ValueError, match="64-bit"):
        Board(8, 8)


def test_won_board_scores_and_full_columns():
    b = Board(7, 6)
    b.set_board("0101010")  # X wins in column 0
    scores = Player("X", "LEFT", 2).scores_for(b)
    assert scores == [100.0] * 7
    assert Player("O", "LEFT", 2).scores_for(b) == [0.0] * 7
    b2 = Board(7, 6)
    b2.set_board("000000" + "1213")  # column 0 full, then X plays 1 1 (O 2, 3)... no win yet
    assert Player("X", "LEFT", 1).scores_for(b2)[0] == -1.0


def test_play_game_between_players():
    b = Board(7, 6)
    winner = b.play_game(Player("X", "LEFT", 3), Player("O", "LEFT", 0), show=False)
    assert winner == "X" and b.wins_for("X")


def test_milestone_names():
    assert milestone.Board is Board and milestone.Player is Player


def test_four_ply_is_fast(board):
    import time

    Player("O", "LEFT", 4).scores_for(board)  # compile / load
    start = time.perf_counter()
    for _ in range(20):
        Player("O", "LEFT", 4).scores_for(board)
    # not a timing assert on the result: this only reports (the write-up warns of seconds)
    print(f"4-ply scores_for: {(time.perf_counter() - start) / 20 * 1e3:.2f} ms")
