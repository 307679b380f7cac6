"""What a click means in each game: the games' declared click hooks, dispatched by plies/web/clicks.py."""

import numpy as np
import pytest

from plies.games.backgammon.drawing import moves_from
from plies.games.backgammon.state import BackgammonState
from plies.games.dice_wars.state import DiceWarsState
from plies.games.nine_mens_morris.state import NineMensMorrisState
from plies.games.othello.state import OthelloState
from plies.games.tictactoe.state import TicTacToeState
from plies.web.clicks import ClickError, interpret, view_options


def test_a_cell_or_column_is_the_move():
    state = TicTacToeState.from_string("X../.../...")
    assert interpret(state, None, 4).action == 4
    with pytest.raises(ClickError, match="cell 0 cannot be played"):
        interpret(state, None, 0)


def test_morris_places_at_once_and_moves_in_two_clicks():
    placing = NineMensMorrisState()
    assert interpret(placing, None, 7).action == 7
    moving = NineMensMorrisState.from_string("WW.W.....B..B..BB......W\nW to move, in hand W 0 B 0")
    legal = [int(a) for a in moving.legal_actions()]
    action = next(a for a in legal if a >= 24)
    source, target = divmod(action - 24, 24)
    picked = interpret(moving, None, source)
    assert picked.action is None and picked.selected == source
    assert interpret(moving, source, target).action == action
    assert interpret(moving, source, source).selected is None  # dropped
    empty_unreachable = next(p for p in range(24) if moving.points[p] == 0 and 24 + source * 24 + p not in legal)
    with pytest.raises(ClickError, match="no move from or to"):
        interpret(moving, None, empty_unreachable)


def test_backgammon_checker_then_destination_and_bearing_off():
    state = BackgammonState.from_string("X 3:2 off:13; O 1:15; X to play 6-2")
    legal = [int(a) for a in state.legal_actions()]
    moves = moves_from(legal, 3)
    assert moves[1] == (3 - 1) * 6 + 2 - 1 and moves[0] == (3 - 1) * 6 + 6 - 1  # 3/1 with the 2, off with the 6
    picked = interpret(state, None, 3)
    assert picked.selected == 3 and picked.action is None
    assert interpret(state, 3, 0).action == moves[0]
    assert view_options(state, 3, 0, [])["targets"] == (1, 0)
    with pytest.raises(ClickError, match="no checker of yours can move from point 10"):
        interpret(state, None, 10)


def test_dice_wars_source_then_target():
    state = DiceWarsState.initial(np.random.default_rng(0))
    n = state.num_areas
    attack = next(int(a) for a in state.legal_actions() if a < n * n)
    source, target = divmod(attack, n)
    assert interpret(state, None, source).selected == source
    assert interpret(state, source, target).action == attack
    assert target in view_options(state, source, 0, [])["targets"]
    enemy = next(a for a in range(n) if state.owners[a] != 0)
    with pytest.raises(ClickError, match=f"area {enemy} cannot attack"):
        interpret(state, None, enemy)
    with pytest.raises(ClickError, match="areas are 0 to"):
        interpret(state, None, n)

    end_turn = state.end_turn_action
    assert view_options(state, None, 0, [attack, end_turn])["last_battle"] == (source, target)
    assert view_options(state, None, 0, [end_turn])["last_battle"] is None


def test_morris_click_off_the_board_is_refused():
    moving = NineMensMorrisState.from_string("WW.W.....B..B..BB......W\nW to move, in hand W 0 B 0")
    with pytest.raises(ClickError, match="points are 0 to 23"):
        interpret(moving, 0, 30)  # would alias the move 0 -> 6 without the range check


def test_othello_square_then_pass_bar():
    state = OthelloState()
    legal = [int(a) for a in state.legal_actions()]
    assert interpret(state, None, legal[0]).action == legal[0]
    with pytest.raises(ClickError, match="a1 cannot be played"):
        interpret(state, None, 0)
    must_pass = OthelloState.from_string("ooo.ooxx/oooooxxx/oxooxxxx/oxxxooxx/oooxxoxx/ooxoxxox/oxooooxx/xxxxxxxx o")
    assert list(must_pass.legal_actions()) == [64]
    assert 'data-cell="64"' in must_pass.svg() and 'data-cell="64"' not in state.svg()
    assert interpret(must_pass, None, 64).action == 64
    with pytest.raises(ClickError, match="pass"):
        interpret(must_pass, None, 3)
