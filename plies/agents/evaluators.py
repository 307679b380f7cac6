"""Evaluators: values of a batch of positions for a seat, in one call.

A search collects its leaves and asks an ``Evaluator`` for all of them at once, so a neural
network costs one forward pass per batch. Heuristic kernels (``EVAL_SIG``) are wrapped by
``HeuristicEvaluator``; the compiled searches also call the kernel directly, leaf by leaf.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit, types

from plies.games.kernels import EVAL_SIG, EVAL_T


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
        out = np.zeros((len(states), num_players), np.float64)
        if zero_sum and num_players == 2:
            values = np.asarray(self.evaluate(states, root), np.float64)
            out[:, root] = values
            out[:, 1 - root] = -values
            return out
        for seat in range(num_players):
            out[:, seat] = self.evaluate(states, seat)
        return out


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
    """A compiled heuristic (``EVAL_SIG`` kernel with its weights) as an Evaluator."""

    def __init__(self, kernel, params: np.ndarray, name: str = "") -> None:
        self.kernel = kernel
        self.params = np.ascontiguousarray(params, np.float64)
        self.name = name

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        states = np.ascontiguousarray(states, np.int64)
        return evaluate_batch(states, int(seat), self.kernel, self.params)

    @staticmethod
    def zero_kernel():
        return zero_eval

    def __repr__(self) -> str:
        return f"HeuristicEvaluator({self.name!r})"


class FunctionEvaluator(BatchEvaluator):
    """Wraps a Python callable ``f(states, seat) -> values`` (e.g. a torch model) as an
    Evaluator; the search calls it once per batch of leaves."""

    def __init__(self, function, name: str = "function") -> None:
        self.function = function
        self.name = name

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        return np.asarray(self.function(states, seat), np.float64)
