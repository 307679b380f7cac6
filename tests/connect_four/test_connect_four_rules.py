"""Rules, text in and out, observation and heuristics of the Connect Four GameState."""

import pickle

import numpy as np
import pytest

from plies.games.connect_four import ConnectFourState, rules
from plies.games.connect_four.state import state_from_moves


def play(moves: str, **options) -> ConnectFourState:
    return ConnectFourState.from_string(moves, **options)


def test_initial_position():
    s = ConnectFourState()
    assert (s.width, s.height) == (7, 6)
    assert s.current_player == 0
    assert list(s.legal_actions()) == list(range(7))
    assert s.num_actions == 7 and s.max_game_length == 42
    assert s.to_string() == "/".join(["......."] * 6)


def test_stones_fall_and_players_alternate():
    s = play("4453")
    assert s.to_string().split("/")[-2:] == ["...O...", "..OXX.."]
    assert s.current_player == 0 and s.num_moves == 4


@pytest.mark.parametrize(
    "moves, winner",
    [
        ("1212121", 0),  # vertical
        ("1122334", 0),  # horizontal
        ("12234334544", 0),  # rising diagonal
        ("76654554344", 0),  # falling diagonal
        ("71212121", 1),  # O vertical
    ],
)
def test_wins(moves, winner):
    s = play(moves)
    assert s.is_terminal() and s.winner == winner
    expected = np.array([1.0, -1.0]) if winner == 0 else np.array([-1.0, 1.0])
    assert np.array_equal(s.returns(), expected)
    assert len(s.legal_actions()) == 0
    # the move before was not yet a win
    s.undo()
    assert not s.is_terminal() and s.winner is None


def test_draw_on_a_full_board():
    # columns (bottom up) XOXOXO or OXOXOX in the order A A B A A B A: no four anywhere
    s = play("111111222222433333344444555555766666677777")
    assert s.is_terminal() and s.winner is None
    assert np.array_equal(s.returns(), [0.0, 0.0])
    assert s.num_moves == 42 and s.to_string().split("/")[-1] == "XXOXXOX"


def test_full_column_is_not_legal():
    s = play("444444")
    assert 3 not in s.legal_actions()
    assert s.action_mask().tolist() == [1, 1, 1, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="illegal"):
        s.apply(3)


def test_apply_undo_restores_everything():
    rng = np.random.default_rng(1)
    for _ in range(30):
        s = ConnectFourState()
        snapshots = []
        while not s.is_terminal():
            snapshots.append(s.array.copy())
            s.apply(int(rng.choice(s.legal_actions())))
        while snapshots:
            s.undo()
            assert np.array_equal(s.array, snapshots.pop())


def test_hash_identifies_positions():
    # transpositions: the same position by different move orders has the same hash
    assert play("4453").hash() == play("5344").hash()
    rng = np.random.default_rng(2)
    seen: dict[int, str] = {}
    for _ in range(300):
        s = ConnectFourState()
        for _ in range(int(rng.integers(0, 20))):
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
        board = s.to_string()
        assert seen.setdefault(s.hash(), board) == board


def test_text_round_trip_and_notations():
    s = play("4453")
    assert ConnectFourState.from_string(s.to_string()) == s
    assert ConnectFourState.from_string(s.to_string().replace("/", "\n")) == s
    # the classroom print format is accepted too
    drawn = "\n".join("|" + "|".join(" " if c == "." else c for c in row) + "|" for row in s.to_string().split("/"))
    drawn += "\n---------------\n 0 1 2 3 4 5 6"
    assert ConnectFourState.from_string(drawn) == s
    assert play("") == ConnectFourState()
    assert play("4 4 5 3") == s
    assert s.action_to_string(3) == "4" and s.string_to_action("4") == 3


@pytest.mark.parametrize(
    "text, message",
    [
        ("48", "columns are numbered 1 to 7"),
        ("4444444", "column 4 is full"),
        ("12121212", "already over"),
        ("......./......./......./......./......./...A...", "bad cell"),
        ("......./......./......./......./...X.../.......", "above an empty cell"),
        ("......./......./......./......./......./XX.....", "X has as many stones as O"),
        ("....../......./......./......./......./.......", "equal length"),
    ],
)
def test_malformed_text(text, message):
    with pytest.raises(ValueError, match=message):
        ConnectFourState.from_string(text)


def test_board_sizes():
    s = ConnectFourState(width=9, height=5)
    assert s.num_actions == 9 and s.max_game_length == 45
    assert ConnectFourState(width=8, height=7).max_game_length == 56  # exactly 64 bits
    with pytest.raises(ValueError, match="64-bit"):
        ConnectFourState(width=8, height=8)
    with pytest.raises(ValueError, match="unknown option"):
        ConnectFourState(rows=6)
    # a four near the top-right corner of the 64-bit board
    big = ConnectFourState(width=8, height=7)
    for col in [8, 7, 7, 6, 6, 5, 6, 5, 5, 1, 5]:
        big.apply(col - 1)
    assert big.is_terminal() and big.winner == 0


def has_four_in_grid(grid: np.ndarray, mark: int) -> bool:
    """A plain scan of the grid, to cross-check the bitboard test."""
    height, width = grid.shape
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < height and 0 <= cc < width and grid[rr, cc] == mark for rr, cc in cells):
                    return True
    return False


def test_random_games_on_other_sizes_end_properly():
    rng = np.random.default_rng(3)
    for width, height in [(4, 4), (5, 4), (8, 7), (3, 10), (10, 5)]:
        for _ in range(20):
            s = ConnectFourState(width=width, height=height)
            while not s.is_terminal():
                s.apply(int(rng.choice(s.legal_actions())))
            grid = s.grid()
            if s.winner is None:
                assert not has_four_in_grid(grid, 1) and not has_four_in_grid(grid, 2)
                assert s.num_moves == width * height
            else:
                assert has_four_in_grid(grid, s.winner + 1) and not has_four_in_grid(grid, 2 - s.winner)


def test_observation_planes():
    s = play("4453")
    obs = s.observation(0)
    assert obs.shape == (6, 7, 2) and obs.dtype == np.float32
    assert obs[5, 3, 0] == 1 and obs[5, 2, 1] == 1 and obs[4, 3, 1] == 1
    assert np.array_equal(s.observation(1)[..., 0], obs[..., 1])


def test_cell_weight_table():
    weights = rules.cell_weights(7, 6)
    assert weights[0].tolist() == [3, 4, 5, 7, 5, 4, 3]
    assert weights[2].tolist() == [5, 8, 11, 13, 11, 8, 5]
    assert weights.sum() == 4 * 69  # 69 fours on 7x6, four cells each


def test_cells_heuristic():
    params = np.zeros(1)
    s = play("4")
    value = rules.evaluate_cells(s.array, 0, params)
    assert value == pytest.approx(7 / 277)
    assert rules.evaluate_cells(s.array, 1, params) == pytest.approx(-value)
    s2 = play("4453")
    assert rules.evaluate_cells(s2.array, 0, params) == pytest.approx((7 + 5 - 5 - 10) / 277)
    info = ConnectFourState.game
    assert info.default_heuristic == "cells" and "cells" in info.heuristics
    threats = info.heuristics["threats"]
    # X (4, 5, 6 on the bottom row) can complete a four in column 3 or 7; O has no threat
    s3 = play("44556")
    only_threats = threats.params({"cells": 0.0, "threats": 1.0})
    assert threats.kernel(s3.array, 0, only_threats) == pytest.approx(2 / 43)
    assert threats.kernel(s3.array, 1, only_threats) == pytest.approx(-2 / 43)
    mixed = threats.kernel(s3.array, 0, threats.params())
    assert -1 < mixed < 1


def test_render_and_pickle():
    s = play("4453")
    assert "X to move" in s.render_text()
    image = s.render_rgb()
    assert image.shape[:2] == (406, 420) and image.dtype == np.uint8  # board, column numbers, status
    clone = pickle.loads(pickle.dumps(s))
    assert clone == s
    clone.apply(0)
    assert clone != s
    assert state_from_moves("4453") == s
