"""What a click means in each game (plies/web/clicks.py)."""

import numpy as np
import pytest

from plies.envs.backgammon.state import BackgammonState
from plies.envs.dice_wars.state import DiceWarsState
from plies.envs.nine_mens_morris.state import NineMensMorrisState
from plies.envs.tictactoe.state import TicTacToeState
from plies.web.clicks import ClickError, backgammon_moves, drawing_options, interpret


def test_a_cell_or_column_is_the_move():
    state = TicTacToeState.from_string("X../.../...")
    assert interpret("tictactoe", state, None, 4).action == 4
    with pytest.raises(ClickError, match="cell 0 cannot be played"):
        interpret("tictactoe", state, None, 0)


def test_morris_places_at_once_and_moves_in_two_clicks():
    placing = NineMensMorrisState()
    assert interpret("nine_mens_morris", placing, None, 7).action == 7
    moving = NineMensMorrisState.from_string("WW.W.....B..B..BB......W\nW to move, in hand W 0 B 0")
    legal = [int(a) for a in moving.legal_actions()]
    action = next(a for a in legal if a >= 24)
    source, target = divmod(action - 24, 24)
    picked = interpret("nine_mens_morris", moving, None, source)
    assert picked.action is None and picked.selected == source
    assert interpret("nine_mens_morris", moving, source, target).action == action
    assert interpret("nine_mens_morris", moving, source, source).selected is None  # dropped
    empty_unreachable = next(p for p in range(24) if moving.points[p] == 0 and 24 + source * 24 + p not in legal)
    with pytest.raises(ClickError, match="no move from or to"):
        interpret("nine_mens_morris", moving, None, empty_unreachable)


def test_backgammon_checker_then_destination_and_bearing_off():
    state = BackgammonState.from_string("X 3:2 off:13; O 1:15; X to play 6-2")
    legal = [int(a) for a in state.legal_actions()]
    moves = backgammon_moves(legal, 3)
    assert moves[1] == (3 - 1) * 6 + 2 - 1 and moves[0] == (3 - 1) * 6 + 6 - 1  # 3/1 with the 2, off with the 6
    picked = interpret("backgammon", state, None, 3)
    assert picked.selected == 3 and picked.action is None
    assert interpret("backgammon", state, 3, 0).action == moves[0]
    assert drawing_options("backgammon", state, 3, 0, None)["targets"] == (1, 0)
    with pytest.raises(ClickError, match="no checker of yours can move from point 10"):
        interpret("backgammon", state, None, 10)


def test_dice_wars_source_then_target():
    state = DiceWarsState.initial(np.random.default_rng(0))
    n = state.num_areas
    attack = next(int(a) for a in state.legal_actions() if a < n * n)
    source, target = divmod(attack, n)
    assert interpret("dice_wars", state, None, source).selected == source
    assert interpret("dice_wars", state, source, target).action == attack
    assert target in drawing_options("dice_wars", state, source, 0, None)["targets"]
    enemy = next(a for a in range(n) if state.owners[a] != 0)
    with pytest.raises(ClickError, match=f"area {enemy} cannot attack"):
        interpret("dice_wars", state, None, enemy)
    with pytest.raises(ClickError, match="areas are 0 to"):
        interpret("dice_wars", state, None, n)
