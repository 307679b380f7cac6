import numpy as np
import pyspiel
import pytest

from plies.games.tictactoe import TicTacToeState
from tests.tictactoe import ttt_reference as ref


def board_of(state: TicTacToeState) -> str:
    return state.to_string().replace("/", "")


def test_initial_state():
    s = TicTacToeState()
    assert s.current_player == 0
    assert list(s.legal_actions()) == list(range(9))
    assert not s.is_terminal()
    assert s.returns().tolist() == [0.0, 0.0]


def test_rules_match_plain_python_reference_on_random_games(rng):
    for _ in range(200):
        s = TicTacToeState()
        board = "." * 9
        while not s.is_terminal():
            assert sorted(list(s.legal_actions())) == ref.moves(board)
            assert s.current_player == "XO".index(ref.to_move(board))
            move = int(rng.choice(s.legal_actions()))
            s.apply(move)
            board = ref.play(board, move)
            assert board_of(s) == board
        assert ref.finished(board)
        w = ref.winner(board)
        expected = [0.0, 0.0] if w is None else ([1.0, -1.0] if w == "X" else [-1.0, 1.0])
        assert s.returns().tolist() == expected


def test_differential_against_openspiel(rng):
    game = pyspiel.load_game("tic_tac_toe")
    for _ in range(300):
        theirs = game.new_initial_state()
        ours = TicTacToeState()
        while not theirs.is_terminal():
            assert not ours.is_terminal()
            assert ours.current_player == theirs.current_player()
            assert list(ours.legal_actions()) == list(theirs.legal_actions())
            action = int(rng.choice(theirs.legal_actions()))
            theirs.apply_action(action)
            ours.apply(action)
        assert ours.is_terminal()
        assert ours.returns().tolist() == list(theirs.returns())


def test_undo_restores_every_position(rng):
    s = TicTacToeState()
    snapshots = [s.array.copy()]
    while not s.is_terminal():
        s.apply(int(rng.choice(s.legal_actions())))
        snapshots.append(s.array.copy())
    while snapshots:
        assert np.array_equal(s.array, snapshots.pop())
        if snapshots:
            s.undo()
    with pytest.raises(ValueError, match="no actions"):
        s.undo()


def test_from_string_round_trip_and_side_to_move():
    s = TicTacToeState.from_string("XO./.X./...")
    assert s.current_player == 1
    assert s.to_string() == "XO./.X./..."
    assert TicTacToeState.from_string(s.to_string()) == s
    won = TicTacToeState.from_string("XXX/OO./...")
    assert won.is_terminal() and won.returns().tolist() == [1.0, -1.0]
    full = TicTacToeState.from_string("XOX/XOO/OXX")
    assert full.is_terminal() and full.returns().tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "text, message",
    [("XO", "need 9 cells"), ("XXO/..Z/...", "bad characters Z"), ("XXX/.../...", "X must have")],
)
def test_malformed_boards_are_rejected_with_a_reason(text, message):
    with pytest.raises(ValueError, match=message):
        TicTacToeState.from_string(text)


def test_illegal_move_names_the_legal_ones():
    s = TicTacToeState.from_string("XO./.../...")
    with pytest.raises(ValueError, match=r"action 0 is illegal.*legal actions: 2 \(2\)"):
        s.apply(0)


def test_observation_is_from_the_seat_s_point_of_view():
    s = TicTacToeState.from_string("X../.O./...")
    mine, theirs = s.observation(0), s.observation(1)
    assert mine.dtype == np.float32 and mine.shape == s.observation_shape
    assert mine[0, 0, 0] == 1 and mine[1, 1, 1] == 1
    assert np.array_equal(mine[..., 0], theirs[..., 1])


def test_rgb_render_shows_marks():
    empty = TicTacToeState().render_rgb()
    played = TicTacToeState.from_string("X../.O./...").render_rgb()
    assert empty.dtype == np.uint8 and empty.shape[2] == 3
    top_left = (slice(0, 60), slice(0, 60))
    assert (played[top_left] != empty[top_left]).any()
    assert (played[150:180, 150:180] == empty[150:180, 150:180]).all()
