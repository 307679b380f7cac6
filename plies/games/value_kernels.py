"""A small value network run inside compiled code: the ``eval=net`` of the searches for games
without chance.

A game that declares ``Game.net_value`` gives the searches an evaluation kernel
(``EVAL_SIG``) whose parameters are a network's weights: the game's ``features_into`` writes
the position's inputs from the view of the side to move, ``mlp_value`` runs a multilayer
perceptron over them (ReLU hidden layers, one tanh output: the value for the side to move), and
``value_for_seat`` turns that into the value for the seat the search asks about. Alpha-beta,
MCTS and expectiminimax call it leaf by leaf in machine code, as they call a heuristic; a
network of a few thousand weights costs a few microseconds a leaf, less than one call from
Python into torch.

Parameter layout (float64, flat; ``plies.agents.value_net.MLPValueNet.flat_params`` writes it):
``[L, n_0, n_1, ..., n_L, W_1, b_1, ..., W_L, b_L]``: ``L`` layers, ``n_0`` inputs, ``n_L = 1``
output, each ``W_k`` row-major ``n_(k-1) x n_k`` (one row per input: torch's weight transposed). The Python side checks the layout and the
input count against the game's encoder before any search runs (``check_flat_params``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit, types

from plies.games.kernels import STATE_T, KernelRef

FEATURES_SIG = types.void(STATE_T, types.float64[::1])
"""features_into(state, out): a game's network inputs for one position, written into out."""
FEATURES_T = types.FunctionType(FEATURES_SIG)

class NetKernel(NamedTuple):
    """The compiled form of one of a game's torch network architectures (``Game.net_kernels``):
    ``kernel`` (``EVAL_SIG``) scores a position with the network's flat parameters (the
    model's ``flat_params()``), which ``check`` validates first (it raises a ValueError): the
    kernel reads them without bounds checks."""

    kernel: Callable
    check: Callable[[np.ndarray], None]


MAX_WIDTH = 4096
"""The widest layer a compiled network may have (inputs included)."""


@njit(cache=True)
def affine(x, params, at, n_in, n_out):
    """``x @ W + b`` for the ``n_in x n_out`` weights ``W`` (one row per input) stored in
    ``params`` from ``at``, followed by the ``n_out`` biases ``b``.

    It adds the weight rows of the non-zero inputs to the biases: board inputs are mostly
    zeros, so this costs a fraction of a dense product, and the inner loop runs over
    contiguous weights (vectorised)."""
    bias_at = at + n_in * n_out
    out = params[bias_at:bias_at + n_out].copy()
    for i in range(n_in):
        xi = x[i]
        if xi != 0.0:
            # a slice per row, not params[row + j]: the loop then vectorises (2-4x faster)
            weights = params[at + i * n_out:at + (i + 1) * n_out]
            for j in range(n_out):
                out[j] += xi * weights[j]
    return out


@njit(cache=True)
def mlp_value(x, params):
    """The network's tanh output for the input vector ``x`` (parameters laid out as above)."""
    return np.tanh(mlp_forward(x, params)[0])


@njit(cache=True)
def mlp_forward(x, params):
    """The network's last layer (no activation) for the input vector ``x``: a value network's
    one pre-tanh output, a policy network's logits (``mlp_policy``, one per action)."""
    layers = int(params[0])
    cursor = 2 + layers
    current = x
    for k in range(layers):
        n_in = int(params[1 + k])
        n_out = int(params[2 + k])
        out = affine(current, params, cursor, n_in, n_out)
        if k < layers - 1:
            for j in range(n_out):
                if out[j] < 0.0:
                    out[j] = 0.0
        current = out
        cursor += n_in * n_out + n_out
    return current


def mlp_forward_rows(x: np.ndarray, params: np.ndarray) -> np.ndarray:
    """``mlp_forward`` for a batch of input rows at once, in numpy (float32 matrix products): a
    value network's tanh values, one per row, for callers that score many positions together
    (the training engine's self-play). The layout must have been checked."""
    layers = int(params[0])
    sizes = [int(n) for n in params[1:layers + 2]]
    cursor = layers + 2
    current = np.asarray(x, np.float32)
    for k in range(layers):
        n_in, n_out = sizes[k], sizes[k + 1]
        weights = params[cursor:cursor + n_in * n_out].reshape(n_in, n_out).astype(np.float32)
        bias = params[cursor + n_in * n_out:cursor + n_in * n_out + n_out].astype(np.float32)
        current = current @ weights + bias
        if k < layers - 1:
            np.maximum(current, 0.0, out=current)
        cursor += n_in * n_out + n_out
    return np.tanh(current[:, 0].astype(np.float64))


@njit(types.float32[:, ::1](types.int64[:, ::1], types.int64, FEATURES_T), cache=True)
def _encode_rows(states, inputs, features_into):
    out = np.empty((states.shape[0], inputs), np.float32)
    row = np.empty(inputs, np.float64)
    for b in range(states.shape[0]):
        features_into(states[b], row)
        out[b, :] = row
    return out


@cache
def features_ref(features_into) -> KernelRef:
    """A game's compiled ``features_into`` as a function value a compiled caller takes (``FEATURES_T``)."""
    return KernelRef(features_into, FEATURES_SIG)


def encode_rows(states: np.ndarray, inputs: int, features_into, row_size: int | None = None) -> np.ndarray:
    """A batch of state arrays as B x ``inputs`` float32 network inputs, through a game's
    ``features_into`` (compiled with ``FEATURES_SIG``): what each game's ``Game.encode`` calls.
    One compiled loop serves every game (the kernel travels as a function value). ``row_size``:
    the entries ``features_into`` reads, which every row must have (a shorter one would be read
    past its end)."""
    states = np.ascontiguousarray(states, np.int64)
    if states.ndim != 2:
        raise ValueError(f"encode takes a 2-d batch of state arrays, not shape {states.shape}")
    if row_size is not None and states.shape[1] < row_size:
        raise ValueError(f"encode takes state rows of at least {row_size} entries, not {states.shape[1]}")
    return _encode_rows(states, int(inputs), features_ref(features_into))


@njit(cache=True, inline="always")
def value_for_seat(mover, seat, value):
    """A two-player zero-sum value for ``seat`` from the value for the side to move."""
    return value if seat == mover else -value


def check_flat_params(params: np.ndarray, inputs: int, where: str = "the network", outputs: int = 1) -> None:
    """Raises a ValueError unless ``params`` is a well-formed layout for ``inputs`` inputs and
    ``outputs`` outputs (one: a value network; a policy network has one per action): the compiled
    code reads it without bounds checks."""
    if params.ndim != 1 or params.dtype != np.float64 or len(params) < 4:
        raise ValueError(f"{where}: not a flat float64 parameter array")
    layers = params[0]
    if layers != int(layers) or not 1 <= layers <= 16 or len(params) < int(layers) + 2:
        raise ValueError(f"{where}: bad layer count {layers}")
    layers = int(layers)
    sizes = params[1:layers + 2]
    if np.any(sizes != np.floor(sizes)) or np.any(sizes < 1) or np.any(sizes > MAX_WIDTH):
        raise ValueError(f"{where}: layer sizes must be whole numbers from 1 to {MAX_WIDTH}")
    sizes = sizes.astype(np.int64)
    if sizes[0] != inputs:
        raise ValueError(f"{where} takes {sizes[0]} inputs; this game's encoder gives {inputs}")
    if sizes[-1] != outputs:
        raise ValueError(f"{where} has {sizes[-1]} outputs; " + (
            "a value network has one" if outputs == 1 else f"this game has {outputs} actions"))
    expected = layers + 2 + int(sum(int(a) * int(b) + int(b) for a, b in zip(sizes[:-1], sizes[1:])))
    if len(params) != expected:
        raise ValueError(f"{where}: {len(params)} parameters where its layer sizes need {expected}")
    if not np.all(np.isfinite(params)):
        raise ValueError(f"{where}: parameters that are not finite numbers")
