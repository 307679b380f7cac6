"""The lowest layer of every game: kernel signatures, constants, the kernel bundle and heuristics.

Every game stores its whole position in one contiguous ``int64`` array. Slot 0 always holds
the seat to move, ``CHANCE`` at a chance node or ``TERMINAL`` once the game is over, so generic
code reads the player without calling into the game.

A game's rules are numba kernels with the fixed signatures below. Because the signatures are
fixed, a generic search compiled with ``FunctionType`` arguments is compiled once, cached on
disk by numba, and serves every game (dispatcher-typed arguments would recompile per process).

This module imports nothing of plies: the ``Game`` declaration (``plies.games.game``) and the
``GameState`` base class (``plies.games.state``) build on it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental.function_type import _get_wrapper_address

# kernels passed as first-class functions are the design, not an experiment to be warned about
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

CHANCE = -1
TERMINAL = -4

# The one result convention: a game's ``result`` slot holds ONGOING while it runs, then the
# winning seat, or NO_WINNER for a draw or a game cancelled by its rules (all returns 0).
ONGOING = -1
NO_WINNER = -2

STATE_T = types.int64[::1]
ACTIONS_T = types.int64[::1]
PROBS_T = types.float64[::1]
PARAMS_T = types.float64[::1]

LEGAL_SIG = types.int64(STATE_T, ACTIONS_T)
"""legal_actions(state, out) -> count: writes the legal actions (or chance outcomes) into out."""
APPLY_SIG = types.void(STATE_T, types.int64, ACTIONS_T)
"""apply_action(state, action, undo_row): plays action in place, saving what undo needs."""
STEP_SIG = types.int64(STATE_T, types.int64, ACTIONS_T, ACTIONS_T)
"""apply_and_list(state, action, undo_row, out) -> (count << 4) | (state[0] + 4): apply_action
then legal_actions in one call, the new player packed in the low bits (saves a call per step)."""
UNDO_SIG = types.void(STATE_T, types.int64, ACTIONS_T)
"""undo_action(state, action, undo_row): restores the state before apply_action."""
RETURNS_SIG = types.void(STATE_T, PROBS_T)
"""returns(state, out): one float per seat, meaningful at terminal states."""
HASH_SIG = types.int64(STATE_T)
"""hash(state) -> int64 key of the position (for transposition tables)."""
CHANCE_SIG = types.int64(STATE_T, ACTIONS_T, PROBS_T)
"""chance_outcomes(state, outcomes, probs) -> count, at a CHANCE node."""
OBSERVE_SIG = types.void(STATE_T, types.int64, types.float32[::1])
"""observe(state, seat, out): the seat's observation, flattened, written into out (float32)."""
AFTERSTATES_SIG = types.int64(STATE_T, types.int64[:, ::1], types.int64[:, ::1])
"""afterstates(state, out, paths) -> count (-1 if out is too small): the distinct end-of-turn
positions of the roll or turn being played, with one action sequence (-1 padded) to each."""
EVAL_SIG = types.float64(STATE_T, types.int64, PARAMS_T)
"""evaluate(state, seat, params) -> heuristic value of a non-terminal state for seat."""

RESET_SIG = types.void(STATE_T, types.uint64[::1], types.int64, ACTIONS_T)
"""batch_reset(state, rng, game, scratch): the batched env's hook after a finished game's row
is copied back from its start row (games with random set-ups deal them anew here), drawing
from ``rng[game]`` with ``plies.games.batching.random_below``."""


class Kernels(NamedTuple):
    """The rules kernels every search takes, by name (numba types it as ``KERNELS_T``)."""

    legal_actions: Callable
    apply_action: Callable
    undo_action: Callable
    returns: Callable
    hash: Callable
    chance_outcomes: Callable


_KERNEL_SIGS = Kernels(LEGAL_SIG, APPLY_SIG, UNDO_SIG, RETURNS_SIG, HASH_SIG, CHANCE_SIG)
KERNELS_T = types.NamedTuple(tuple(types.FunctionType(sig) for sig in _KERNEL_SIGS), Kernels)
EVAL_T = types.FunctionType(EVAL_SIG)


@njit(cache=True)
def two_player_returns(result: int, out: np.ndarray) -> None:
    """Returns of a two-player game from its result slot: the winning seat (0 or 1) gets +1 and
    the other -1; ``NO_WINNER`` (a draw) or ``ONGOING`` gives 0 to both."""
    out[0] = 0.0
    out[1] = 0.0
    if result == 0 or result == 1:
        out[result] = 1.0
        out[1 - result] = -1.0


class KernelRef(WrapperAddressProtocol):
    """A compiled kernel as a first-class function value: its address and signature.

    Handing numba these instead of dispatchers skips re-typing the dispatchers on every call
    from Python (about 0.5 ms per call with six kernels, against about 20 us this way).
    """

    __slots__ = ("kernel", "_address", "_signature")

    def __init__(self, kernel: Callable, signature: Any) -> None:
        self.kernel = kernel
        self._address = _get_wrapper_address(kernel, signature)
        self._signature = signature

    def __wrapper_address__(self) -> int:
        return self._address

    def signature(self) -> Any:
        return self._signature

    def __call__(self, *args: Any) -> Any:
        return self.kernel(*args)


@cache
def kernel_refs(kernels: Kernels) -> Kernels:
    """The kernels of a game as the named tuple generic searches take (``KERNELS_T``)."""
    return Kernels(*(KernelRef(k, sig) for k, sig in zip(kernels, _KERNEL_SIGS)))


@cache
def eval_ref(kernel: Callable) -> KernelRef:
    """An evaluation kernel as the value generic searches take (``EVAL_T``)."""
    return KernelRef(kernel, EVAL_SIG)


@cache
def hash_ref(kernel: Callable) -> KernelRef:
    return KernelRef(kernel, HASH_SIG)


@cache
def afterstates_ref(kernel: Callable) -> KernelRef:
    return KernelRef(kernel, AFTERSTATES_SIG)


def compiled(function: Callable) -> Callable:
    """The compiled entry point of a search with one explicit signature, called without
    numba's per-call type dispatch (which re-types the kernel tuple at every call).

    The entry point itself checks nothing, so every call is checked here against the
    signature with plain isinstance tests (well under a microsecond per argument): a wrong
    buffer fails with a TypeError instead of reaching machine code."""
    return _CheckedEntry.of(function)


def _argument_check(expected: Any) -> Callable[[Any], bool]:
    if isinstance(expected, types.Array):
        dtype = np.dtype(str(expected.dtype))
        ndim = expected.ndim
        contiguous = expected.layout == "C"

        def check_array(arg: Any) -> bool:
            return (type(arg) is np.ndarray and arg.dtype == dtype and arg.ndim == ndim
                    and (not contiguous or arg.flags.c_contiguous))

        return check_array
    if isinstance(expected, types.UniTuple) and isinstance(expected.dtype, types.Array):
        inner = _argument_check(expected.dtype)
        count = expected.count
        return lambda arg: type(arg) is tuple and len(arg) == count and all(inner(a) for a in arg)
    if isinstance(expected, types.Boolean):
        return lambda arg: isinstance(arg, (bool, np.bool_))
    if isinstance(expected, types.Integer):
        return lambda arg: isinstance(arg, (int, np.integer)) and not isinstance(arg, (bool, np.bool_))
    if isinstance(expected, types.Float):
        return lambda arg: isinstance(arg, (int, float, np.integer, np.floating)) and not isinstance(arg, bool)
    if isinstance(expected, types.FunctionType):
        signature = expected.signature
        return lambda arg: isinstance(arg, KernelRef) and arg.signature() == signature
    if isinstance(expected, types.BaseTuple):  # a kernel bundle
        parts = [_argument_check(t) for t in expected.types]
        return lambda arg: isinstance(arg, tuple) and len(arg) == len(parts) and all(
            check(a) for check, a in zip(parts, arg))
    raise TypeError(f"compiled(): no argument check for {expected}")


class _CheckedEntry:
    _instances: dict[Any, _CheckedEntry] = {}

    def __init__(self, function: Callable) -> None:
        self.signature = function.signatures[0]
        self.entry = function.overloads[self.signature].entry_point
        self.name = function.__name__
        self.checks = tuple(_argument_check(t) for t in self.signature)

    @classmethod
    def of(cls, function: Callable) -> _CheckedEntry:
        if function not in cls._instances:
            cls._instances[function] = cls(function)
        return cls._instances[function]

    def __call__(self, *args: Any) -> Any:
        checks = self.checks
        if len(args) != len(checks):
            raise TypeError(f"{self.name} takes {len(checks)} arguments, got {len(args)}")
        for i, (check, arg) in enumerate(zip(checks, args)):
            if not check(arg):
                raise TypeError(f"{self.name}: argument {i} should be {self.signature[i]}, got "
                                f"{type(arg).__name__}" + (f" of {arg.dtype}, {arg.ndim}-d"
                                                           if isinstance(arg, np.ndarray) else ""))
        return self.entry(*args)


@dataclass(frozen=True)
class Heuristic:
    """A named evaluation kernel with its default parameters (weights)."""

    name: str
    kernel: Callable
    default_params: tuple[float, ...] = ()
    param_names: tuple[str, ...] = ()
    description: str = ""

    def params(self, overrides: dict[str, float] | None = None) -> np.ndarray:
        values = dict(zip(self.param_names, self.default_params))
        for key, value in (overrides or {}).items():
            if key not in values:
                raise ValueError(
                    f"heuristic {self.name!r} has no weight {key!r}; "
                    f"weights: {', '.join(self.param_names) or 'none'}"
                )
            values[key] = float(value)
            if not np.isfinite(values[key]):  # nan or inf would leave every move "best"
                raise ValueError(f"heuristic {self.name!r}: weight {key} must be a finite number, not {value!r}")
            if key == "scale" and values[key] <= 0:  # the value is divided by it
                raise ValueError(f"heuristic {self.name!r}: scale must be positive, not {value!r}")
        if not self.param_names:
            return np.zeros(max(1, len(self.default_params)), np.float64)
        return np.array([values[n] for n in self.param_names], np.float64)


@njit(cache=True, inline="always")
def draw_outcome(outcomes, probs, count, u):
    """The one chance sampler: the first of ``count`` outcomes whose cumulative probability
    exceeds ``u`` (uniform in [0, 1)) times their total. Compiled code (the batched envs, the
    Dice Wars bots' fast games, training) and ``sample_chance`` all draw through it."""
    total = 0.0
    for k in range(count):
        total += probs[k]
    target = u * total
    acc = 0.0
    for k in range(count - 1):
        acc += probs[k]
        if target < acc:
            return outcomes[k]
    return outcomes[count - 1]


_NUMPY_INTEGERS = frozenset((np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8))


def first_row_problem(title: str, checks: Sequence[tuple[np.ndarray, str]]) -> str | None:
    """For a game's ``check_rows``: the first failed check of a batch of rows, as
    ``"<title> state row <row>: <what>"``, or None. Each check is a mask of the bad rows."""
    for bad, what in checks:
        if bad.any():
            return f"{title} state row {int(np.flatnonzero(bad)[0])}: {what}"
    return None


def two_player_result_checks(to_move: np.ndarray, result: np.ndarray,
                              draws: bool = True) -> list[tuple[np.ndarray, str]]:
    """``first_row_problem`` checks of a two-player game's result slot: ONGOING, a seat or (with
    ``draws``) NO_WINNER, and ONGOING exactly while the player slot is not TERMINAL."""
    allowed = (ONGOING, 0, 1, NO_WINNER) if draws else (ONGOING, 0, 1)
    names = "-1 (running), 0, 1 or -2 (a draw)" if draws else "-1 (running), 0 or 1"
    return [(~np.isin(result, allowed), f"the result is not {names}"),
            ((to_move == TERMINAL) == (result == ONGOING),
             "the player slot and the result disagree on whether the game is over")]


def popcounts(bitboards: np.ndarray) -> np.ndarray:
    """Set bits of each int64 (numpy before 2.0 has no ``bitwise_count``)."""
    flat = np.ascontiguousarray(bitboards, np.int64).reshape(-1)
    return np.unpackbits(flat.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1).reshape(np.shape(bitboards))


def action_index(value: Any, what: str = "action", allowed: str = "") -> int:
    """``value`` as a Python int, if it is a Python or numpy integer (not a bool): floats,
    strings and bools are refused rather than truncated or parsed. ``allowed`` ends the
    message (e.g. " in range(9)")."""
    kind = type(value)
    if kind is int:
        return value
    if kind in _NUMPY_INTEGERS:  # the usual case after the int check: no ABC lookups
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer{allowed}, got {value!r} ({type(value).__name__})")
    return int(value)


def check_options(game: str, given: dict[str, Any], allowed: Sequence[str]) -> None:
    if not given:
        return
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for {game}; "
            f"options: {', '.join(allowed) or 'none'}"
        )
