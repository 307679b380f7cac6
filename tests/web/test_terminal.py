"""``plies play`` at the terminal, driven by scripted input."""

import subprocess
import sys
from pathlib import Path

import pytest

from plies.cli import main
from plies.games.backgammon.state import BackgammonState
from plies.play.match import Match, move_text
from plies.play.terminal import board_text

ROOT = Path(__file__).resolve().parents[2]


def scripted(monkeypatch, answers):
    answers = iter(answers)

    def read(prompt=""):
        answer = next(answers)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    monkeypatch.setattr("builtins.input", read)


def test_player_count_is_checked(capsys):
    assert main(["play", "connect_four", "--players", "human"]) == 2
    err = capsys.readouterr().err
    assert "connect_four takes 2 players" in err and "got 1: human" in err


def test_dice_wars_points_to_the_browser(capsys):
    assert main(["play", "dice_wars", "--players", "human", "random"]) == 2
    assert "plies serve" in capsys.readouterr().err


def test_lines_by_seat_range_check_hint_undo_and_quit(monkeypatch, capsys):
    scripted(monkeypatch, ["0", "8", "hint", "4", "undo", "3", "quit"])
    assert main(["play", "connect_four", "--players", "human", "alphabeta:depth=4"]) == 0
    out = capsys.readouterr().out
    assert "'0' is out of range: moves are 1 to 7" in out and "'8' is out of range" in out
    assert "hint: 4" in out
    assert "X (you) played 4" in out and "O (alphabeta:depth=4) played " in out
    assert "taken back" in out and "X (you) played 3" in out
    assert "you quit: game abandoned" in out


def test_a_whole_game_ends_with_its_result(monkeypatch, capsys):
    scripted(monkeypatch, ["4", "0", "8", "2", "6", "1", "3", "5", "7"])
    assert main(["play", "tictactoe", "--players", "human", "perfect"]) == 0
    out = capsys.readouterr().out
    assert "result: " in out and ("O (perfect) won" in out or "draw" in out)


def test_ctrl_c_ends_cleanly(monkeypatch, capsys):
    scripted(monkeypatch, [KeyboardInterrupt()])
    assert main(["play", "tictactoe", "--players", "human", "random"]) == 130
    captured = capsys.readouterr()
    assert "interrupted: game abandoned" in captured.out and "Traceback" not in captured.err


def test_backgammon_moves_in_the_person_numbering():
    state = BackgammonState.from_string("X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; X to play 4-2")
    action = (6 - 1) * 6 + 4 - 1  # X moves 6/2 in its own numbering
    assert move_text(state, action, viewer=0) == "6/2"
    assert move_text(state, action, viewer=1) == "19/23"
    text = board_text(state, viewer=1)
    assert "points numbered from O's side" in text
    assert text.splitlines()[3].split()[-1] == "X2"  # from O's side, X's 24-point is O's 1


def test_nine_mens_morris_board_has_labels():
    match = Match("nine_mens_morris", ["human", "random"], seed=0)
    lines = board_text(match.state, 0).splitlines()
    assert lines[0].startswith("7 ") and lines[6].startswith("1 ") and lines[7] == "  a b c d e f g"


def test_undo_goes_back_to_the_person_decision():
    match = Match("connect_four", ["human", "random"], seed=0)
    match.play(3)
    match.advance_to_human()
    assert match.plies == 2
    match.undo_to_human()
    assert match.plies == 0 and match.human_to_move()
    with pytest.raises(ValueError, match="no move of yours"):
        match.undo_to_human()


def test_real_stdin_in_a_subprocess():
    run = subprocess.run([sys.executable, "-m", "plies.cli", "play", "tictactoe", "--players", "human", "perfect"],
                         input="4\n0\nquit\n", capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "X (you) played 4" in run.stdout and "O (perfect) played" in run.stdout
    assert "you quit" in run.stdout


def test_two_people_cannot_undo_each_other_inside_a_turn():
    match = Match("connect_four", ["human", "human"], seed=0)
    match.play(3)
    assert match.human_to_move() and not match.can_undo_turn()


def test_othello_at_the_terminal(monkeypatch, capsys):
    scripted(monkeypatch, ["a1", "d3", "quit"])
    assert main(["play", "othello", "--players", "human", "alphabeta:depth=2"]) == 0
    out = capsys.readouterr().out
    assert "black (you) to move; moves: d3 c4 f5 e6" in out and "'a1' is not a move here" in out
    assert "black (you) played d3" in out and "white (alphabeta:depth=2) played " in out


def test_declared_defaults_for_people():
    from plies.games.registry import get_game

    othello, dice_wars = get_game("othello"), get_game("dice_wars")
    assert othello.hint_agent == othello.default_opponent == "alphabeta:depth=4"  # the generic default
    assert othello.player_range == (2, 2) and othello.seat_options(2, {}) == {}
    assert dice_wars.seat_name(5) == "seat 5" and dice_wars.seat_options(3, {}) == {"num_players": 3}
    assert dice_wars.seat_options(3, {"num_players": 4}) == {"num_players": 4}
    match = Match("dice_wars", ["random"] * 5, seed=0)
    assert match.state.num_players == 5


def test_a_match_refuses_an_agent_for_another_game_before_any_move():
    import pytest

    from plies.play.match import Match

    with pytest.raises(ValueError, match="connect_four"):
        Match("tictactoe", ["human", "solver"])


def test_a_persons_move_is_an_integer_not_something_that_rounds_to_one():
    match = Match("connect_four", ["human", "human"], seed=0)
    for move in (4.9, "4", True):
        with pytest.raises(TypeError, match="must be an integer"):
            match.play(move)
    assert match.plies == 0
    match.play(4)
    assert match.plies == 1
