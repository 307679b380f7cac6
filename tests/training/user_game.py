"""A game declared outside plies, as a user would: Tic-Tac-Toe's rules under another id, with
its own network inputs (the marks as +1 / -1 from the mover's view: 9 inputs). The training
engine trains it without knowing it."""

import numpy as np
from numba import njit

from plies.games.game import Game
from plies.games.kernels import EVAL_SIG
from plies.games.registry import get_game
from plies.games.tictactoe.rules import CELLS
from plies.games.tictactoe.state import TicTacToeState
from plies.games.value_kernels import FEATURES_SIG, encode_rows, mlp_value, value_for_seat
from plies.training.engine import SelfPlayRecipe

INPUTS = 9


class SignedTicTacToe(TicTacToeState):
    __slots__ = ()


@njit(FEATURES_SIG, cache=True)
def features_into(state, out):
    mover = state[0] if state[0] == 0 or state[0] == 1 else 0
    for c in range(9):
        mark = state[CELLS + c]
        out[c] = 0.0 if mark == 0 else (1.0 if mark == mover + 1 else -1.0)


def encode(states):
    return encode_rows(states, INPUTS, features_into)


@njit(EVAL_SIG, cache=True)
def net_value(state, seat, params):
    x = np.empty(INPUTS, np.float64)
    features_into(state, x)
    return value_for_seat(state[0], seat, mlp_value(x, params))


_base = get_game("tictactoe")
_fields = {name: getattr(_base, name) for name in _base.__dataclass_fields__}
_fields.update(id="signed_tictactoe", title="Tic-Tac-Toe (a user's game)", state_class=SignedTicTacToe,
               encode=encode, net_value=net_value)
GAME = Game(**_fields)

class CountingRecipe(SelfPlayRecipe):
    """A user's configuration of the training engine, declared as ``Game.trainer``: the engine's
    own self-play, with one more metrics column (the rounds this recipe has played, kept in the
    run's progress, which every checkpoint saves)."""

    def fields(self, args):
        return [*super().fields(args), "user_rounds"]

    def play_round(self, run):
        row = super().play_round(run)
        run.progress["user_rounds"] = run.progress.get("user_rounds", 0) + 1
        return {**row, "user_rounds": run.progress["user_rounds"]}


OWN_RECIPE = CountingRecipe()


class OwnTrainerTicTacToe(TicTacToeState):
    __slots__ = ()


_fields.update(id="own_trainer_tictactoe", title="Tic-Tac-Toe (a user's game with its own trainer)",
               state_class=OwnTrainerTicTacToe, trainer="tests.training.user_game:OWN_RECIPE")
OWN_TRAINER_GAME = Game(**_fields)
