"""Every registered game passes the shipped conformance suite, and the suite catches breakage."""

from __future__ import annotations

import numpy as np
import pytest

import plies
from plies.games.game import Game
from plies.games.tictactoe import TicTacToeState
from plies.testing import ContractViolation, check_game

GAMES = {"tictactoe": 40, "connect_four": 30, "nine_mens_morris": 15, "backgammon": 10, "dice_wars": 6,
         "othello": 15}
QUICK_GAMES = 3
"""Games a game in the quick suite (``-m "not slow"``); the full suite plays ``GAMES``."""


def _honours_the_contract(game: str, games: int, seed: int) -> None:
    counts = check_game(game, games=games, seed=seed, max_plies=250, batch_steps=40)
    assert counts["games"] == games
    assert counts["positions"] > counts["games"]


@pytest.mark.parametrize("game", plies.game_ids())
def test_every_registered_game_honours_the_contract_in_a_few_games(game):
    _honours_the_contract(game, QUICK_GAMES, seed=2)


@pytest.mark.slow
@pytest.mark.parametrize("game", plies.game_ids())
def test_every_registered_game_honours_the_contract(game):
    _honours_the_contract(game, GAMES.get(game, 10), seed=1)


class BrokenTicTacToe(TicTacToeState):
    __slots__ = ()


def test_a_broken_undo_is_reported():
    """A game whose undo forgets to restore the move counter fails the suite, by name."""
    real = TicTacToeState.game
    fields = {name: getattr(real, name) for name in real.__dataclass_fields__}
    fields.update(id="broken_tictactoe", state_class=BrokenTicTacToe,
                  kernels=real.kernels._replace(undo_action=_forgetful_undo()))
    broken = Game(**fields)
    with pytest.raises(ContractViolation, match=r"\[undo\]"):
        check_game(broken, games=2, batch_steps=0)


def _forgetful_undo():
    from numba import njit

    from plies.games.kernels import UNDO_SIG
    from plies.games.tictactoe import rules

    @njit(UNDO_SIG)
    def undo(state, action, undo_row):
        state[1 + action] = 0
        state[rules.RESULT] = rules.ONGOING
        state[0] = undo_row[0]  # the move counter is not taken back

    return undo


def test_game_objects_pickle_as_their_registered_declaration():
    import pickle

    game = plies.get_game("connect_four")
    assert pickle.loads(pickle.dumps(game)) is game
    state = game.new_state()
    assert type(state).game is game and state.game.id == "connect_four"
    assert np.array_equal(pickle.loads(pickle.dumps(state)).encode(), state.encode())


class LooseNamesTicTacToe(TicTacToeState):
    __slots__ = ()

    def action_to_string(self, action: int) -> str:
        return f"cell {int(action)}"  # names any number, as the games once did


def test_a_game_that_names_actions_it_does_not_have_is_reported():
    real = TicTacToeState.game
    fields = {name: getattr(real, name) for name in real.__dataclass_fields__}
    fields.update(id="loose_tictactoe", state_class=LooseNamesTicTacToe)
    loose = Game(**fields)
    with pytest.raises(ContractViolation, match=r"\[static\] action_to_string\(-1\) names an action outside range\(9\)"):
        check_game(loose, games=1, batch_steps=0)


@pytest.mark.parametrize("game", plies.game_ids())
def test_every_game_refuses_to_name_a_number_outside_its_actions(game):
    state = plies.new_state(game, seed=0)
    for outside in (-1, state.num_actions, 10**12):
        with pytest.raises(ValueError, match=rf"actions are 0\.\.{state.num_actions - 1}, got {outside}"):
            state.action_to_string(outside)
    with pytest.raises(TypeError, match="must be an integer"):
        state.action_to_string(1.5)


@pytest.mark.parametrize("game, method", [("nine_mens_morris", "in_hand"), ("nine_mens_morris", "on_board"),
                                          ("nine_mens_morris", "features"), ("backgammon", "checkers"),
                                          ("dice_wars", "area_count"), ("dice_wars", "total_dice"),
                                          ("dice_wars", "largest_region")])
def test_the_games_own_accessors_refuse_a_seat_they_do_not_have(game, method):
    state = plies.new_state(game, seed=0)
    accessor = getattr(state, method)
    accessor(state.num_players - 1)  # the last seat is fine
    for seat in (-1, state.num_players, 10**12):
        with pytest.raises(ValueError, match=rf"{seat} is not a seat of this {state.num_players}-player game"):
            accessor(seat)
    with pytest.raises(TypeError, match="must be an integer"):
        accessor(0.0)


def test_an_attack_between_areas_the_map_does_not_have_is_refused():
    state = plies.new_state("dice_wars", seed=0)
    n = state.num_areas
    assert state.attack_action(n - 1, 0) == (n - 1) * n
    for source, target in ((0, n), (-1, 0), (0, 10**9)):
        with pytest.raises(ValueError, match=rf"areas are 0\.\.{n - 1}"):
            state.attack_action(source, target)
