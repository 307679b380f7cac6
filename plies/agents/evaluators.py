"""Evaluators: values of a batch of positions for a seat, in one call.

A search collects its leaves and asks an ``Evaluator`` for all of them at once, so a neural
network costs one forward pass per batch. Heuristic kernels (``EVAL_SIG``) are wrapped by
``HeuristicEvaluator``; the compiled searches also call the kernel directly, leaf by leaf.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit, types

from plies.games.kernels import EVAL_SIG, EVAL_T, action_index


@runtime_checkable
class Evaluator(Protocol):
    """Maps a batch of state arrays (B x state size) to B values for ``seat`` in (-1, 1)."""

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray: ...

    def evaluate_all(
        self, states: np.ndarray, root: int, num_players: int, zero_sum: bool
    ) -> np.ndarray: ...


class BatchEvaluator:
    """Base class: ``evaluate_all`` (values for every seat) from ``evaluate``."""

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        raise NotImplementedError

    def evaluate_all(
        self, states: np.ndarray, root: int, num_players: int, zero_sum: bool
    ) -> np.ndarray:
        """B x num_players values; two-player zero-sum games are evaluated once (for root)."""
        num_players, root = check_seat_count(num_players, root)
        out = np.zeros((len(states), num_players), np.float64)
        if zero_sum and num_players == 2:
            values = np.asarray(self.evaluate(states, root), np.float64)
            out[:, root] = values
            out[:, 1 - root] = -values
            return out
        for seat in range(num_players):
            out[:, seat] = self.evaluate(states, seat)
        return out


MAX_SEATS = 8  # the most seats any game has (Dice Wars): heuristic kernels index per-seat tables


def check_seat_count(num_players: int, root: int) -> tuple[int, int]:
    """``num_players`` (1 to ``MAX_SEATS``) and ``root`` (one of them) as ints, or a ValueError."""
    num_players, root = action_index(num_players, "num_players"), action_index(root, "root")
    if not 1 <= num_players <= MAX_SEATS or not 0 <= root < num_players:
        raise ValueError(f"root must be a seat of the {num_players} players (1 to {MAX_SEATS}), not {root}")
    return num_players, root


@njit(types.float64[::1](types.int64[:, ::1], types.int64, EVAL_T, types.float64[::1]), cache=True)
def evaluate_batch(states, seat, kernel, params):
    """Runs an EVAL_SIG kernel over the rows of states."""
    out = np.empty(states.shape[0], np.float64)
    for i in range(states.shape[0]):
        out[i] = kernel(states[i], seat, params)
    return out


@njit(EVAL_SIG, cache=True)
def zero_eval(state, seat, params):
    return 0.0


class HeuristicEvaluator(BatchEvaluator):
    """A compiled heuristic (``EVAL_SIG`` kernel with its weights) as an Evaluator.

    With its ``game`` (as ``evaluator_for`` builds it) ``evaluate`` checks the rows
    (``Game.checked_rows``) and the seat before the kernel reads them, and with ``inputs`` (a
    network's input count) that the game encodes the rows to that many; without, the caller
    vouches for them (the searches, whose rows the game's own kernels made)."""

    def __init__(self, kernel, params: np.ndarray, name: str = "", game=None, inputs: int | None = None) -> None:
        self.kernel = kernel
        self.params = np.ascontiguousarray(params, np.float64)
        self.name = name
        self.game = game
        self.inputs = inputs

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        seat = action_index(seat, "seat")
        game = self.game
        if game is None:
            states = np.ascontiguousarray(states, np.int64)
            if not 0 <= seat < MAX_SEATS:
                raise ValueError(f"seat {seat} is not a seat of any game (0 to {MAX_SEATS - 1})")
        else:
            states = game.checked_rows(states)
            if not 0 <= seat < game.player_range[1]:
                raise ValueError(f"seat {seat} is not a seat of {game.title} (seats 0 to {game.player_range[1] - 1})")
            if self.inputs is not None and len(states) and game.encode(states).shape[1] != self.inputs:
                raise ValueError(f"the network {self.name!r} takes {self.inputs} inputs; these states "
                                 f"give {game.encode(states).shape[1]} (another board size?)")
        return evaluate_batch(states, seat, self.kernel, self.params)

    @staticmethod
    def zero_kernel():
        return zero_eval

    def __repr__(self) -> str:
        return f"HeuristicEvaluator({self.name!r})"


def check_evaluator_fits(evaluator, state) -> None:
    """A ValueError unless ``evaluator`` is one for ``state``'s game (and, for a network, this
    board's input count): a compiled search runs a heuristic kernel over the state as it is."""
    game = getattr(evaluator, "game", None)
    model = getattr(evaluator, "model", None)
    own = getattr(game, "id", None) or getattr(model, "game", None)
    if own is not None and own != state.game.id:
        raise ValueError(f"the evaluator {getattr(evaluator, 'name', evaluator)!r} is {own}'s, not {state.game.id}'s")
    inputs = getattr(evaluator, "inputs", None)
    if inputs is not None and state.game.encode is not None:
        given = int(state.game.encode(state.array[None]).shape[1])
        if given != inputs:
            raise ValueError(f"the network {evaluator.name!r} takes {inputs} inputs; this position gives {given} "
                             "(another board size?)")


class FunctionEvaluator(BatchEvaluator):
    """Wraps a Python callable ``f(states, seat) -> values`` (e.g. a torch model) as an
    Evaluator; the search calls it once per batch of leaves."""

    def __init__(self, function, name: str = "function") -> None:
        self.function = function
        self.name = name

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        values = np.asarray(self.function(states, seat), np.float64)
        # the searches read NaN as "no child yet" and would spread one number over every leaf
        if values.shape != (len(states),) or not np.isfinite(values).all():
            raise ValueError(f"the function {self.name!r} must return {len(states)} finite values, one a state; "
                             f"it returned shape {values.shape}" + ("" if values.shape != (len(states),) else
                                                                   " with values that are not finite"))
        return values
