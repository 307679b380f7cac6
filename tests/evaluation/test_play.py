import io

import pytest
from PIL import Image

from plies.agents.human import HumanAgent
from plies.cli import main
from plies.games.tictactoe import TicTacToeState


def test_human_agent_retries_until_the_move_is_legal():
    answers = iter(["9", "four", "4"])
    shown = io.StringIO()
    agent = HumanAgent(read=lambda prompt: next(answers), out=shown)
    assert agent.act(TicTacToeState()) == 4
    text = shown.getvalue()
    assert "legal moves: 0 1 2 3 4 5 6 7 8" in text
    assert text.count("try again") == 2


def test_play_command_with_a_human_and_a_replay(tmp_path, monkeypatch, capsys):
    moves = iter(["4", "x", "0", "8", "2", "6", "1", "3", "5", "7"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(moves))
    gif = tmp_path / "game.gif"
    assert main(["play", "tictactoe", "--players", "human", "perfect", "--record", str(gif)]) == 0
    out = capsys.readouterr().out
    assert "'x' is not a move here" in out
    assert "result: O (perfect) won" in out
    with Image.open(gif) as image:
        assert image.n_frames >= 6  # the start and one frame per move


def test_play_rejects_a_replay_name_that_is_not_gif(tmp_path, capsys):
    assert main(["play", "tictactoe", "--players", "random", "random", "--record", str(tmp_path / "a.mp4")]) == 2
    assert "GIF" in capsys.readouterr().err


@pytest.mark.parametrize("fps", ["0", "-1", "1e-9", "nan", "inf"])
def test_play_refuses_a_replay_speed_before_the_game_not_after(tmp_path, capsys, fps):
    code = main(["play", "tictactoe", "--players", "random", "random", "--record", str(tmp_path / "a.gif"), "--fps", fps])
    captured = capsys.readouterr()
    assert code == 2 and "--fps must be a number from 0.01 to 100" in captured.err
    assert "result:" not in captured.out  # no game was played to be lost
    assert main(["play", "tictactoe", "--players", "random", "random", "--record", str(tmp_path / "no" / "a.gif")]) == 2
    assert "there is no folder" in capsys.readouterr().err


def test_play_names_seats_and_refuses_a_wrong_game(capsys):
    assert main(["play", "tictactoe", "--players", "random:name=a", "random:name=b"]) == 0
    out = capsys.readouterr().out
    assert "X (random:name=a) vs O (random:name=b)" in out and "result: " in out
    assert main(["play", "tictactoe", "--players", "dw_random", "random"]) == 2
    assert "agent 'dw_random' cannot play tictactoe" in capsys.readouterr().err
