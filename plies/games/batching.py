"""Batched stepping: one compiled call plays one action in each of many games.

The functions here are generic over the games: they take a game's kernels (legal actions,
apply, returns, chance outcomes, observe, and the batch reset hook) as arguments, and each game
binds them in its rules module as ``batch_run(mode, ints, f32, f64, flags)``, a module-level
function that numba compiles once per game and serves from its disk cache to later processes;
the game's ``Game`` declaration names it. Passing the kernels as first-class function values
(``KERNELS_T``) instead costs about 25 us per call from Python (numba checks each function
reference), more than a whole step of a small batch; bound this way, LLVM also inlines the
kernels into the loop.

Every game has its own random generator: one ``uint64`` word per game, advanced by SplitMix64
(a counter plus a mixing function: fast, and streams of different games do not overlap). Chance
nodes, automatic resets (and Dice Wars's dealing) and ``sample_actions`` all draw from it, so a
batch run is a function of its seed and the actions given.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from plies.games.kernels import CHANCE, OBSERVE_SIG, RESET_SIG, TERMINAL, draw_outcome

OBSERVE_T = types.FunctionType(OBSERVE_SIG)

TRACE_RESET = -1
"""Trace entry: a new game started from the slot's start row (see ``starts``)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53

_I64_2D = types.int64[:, ::1]
_I64_1D = types.int64[::1]
_F32_2D = types.float32[:, ::1]


# ----- the per-game generator ----------------------------------------------------------------
@njit(cache=True, inline="always")
def random_bits(rng, i):
    """SplitMix64: advance game i's counter and return 64 mixed bits."""
    z = rng[i] + _GOLDEN
    rng[i] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def random_below(rng, i, n):
    """A uniform integer in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift)."""
    return np.int64(((random_bits(rng, i) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def random_uniform(rng, i):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(random_bits(rng, i) >> _S11) * _UNIT


@njit(RESET_SIG, cache=True)
def no_reset_hook(state, rng, game, scratch):
    """The batch reset hook of games whose start row needs nothing more."""


# ----- the buffers ---------------------------------------------------------------------------
# A batch keeps its data in four flat arenas (int64, float32, float64, bool), so a call from
# Python unboxes four arrays instead of twenty (about 0.3 us against 1.4 us: most of a step at
# batch size 1). The int64 arena starts with a header of sizes and offsets; VectorGame's numpy
# views are cut from the same offsets. Compiled code indexes the arenas directly: building
# 2-D views (reshape) costs about 0.4 us a call, more than a whole batch-1 step.
H_N, H_S, H_W, H_U, H_K, H_T, H_O, H_P, H_A, H_MAX_LEN = range(10)
(O_RNG, O_ACTIONS, O_PLAYERS, O_COUNTS, O_LENGTHS, O_TRACE_LEN, O_STATES, O_LEGAL, O_UNDO,
 O_INITIAL, O_TRACE, O_STARTS, O_OBS, O_REWARDS, O_PROBS, O_TERMS, O_TRUNCS, O_MASK) = range(
    16, 34)
HEADER_SIZE = 34


@njit(cache=True, inline="always")
def _row(arena, ints, slot, i, width):
    """Row i of the (rows, width) array at offset ``ints[slot]`` of ``arena``."""
    start = ints[slot] + i * width
    return arena[start : start + width]


@njit(cache=True, inline="always")
def _rng(ints):
    start = ints[O_RNG]
    return ints[start : start + ints[H_N]].view(np.uint64)


# ----- one game ------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _record(ints, i, value):
    """Append to game i's trace (if tracing); a full trace marks itself with length -1."""
    capacity = ints[H_T]
    if capacity == 0:
        return
    slot = ints[O_TRACE_LEN] + i
    n = ints[slot]
    if n < 0:
        return
    if n >= capacity:
        ints[slot] = -1
        return
    ints[ints[O_TRACE] + i * capacity + n] = value
    ints[slot] = n + 1


@njit(cache=True)
def _resolve_chance(apply_fn, chance_fn, s, i, ints, f64, rng):
    """Draw chance outcomes from game i's generator until a player is to move (or the end)."""
    width = ints[H_W]
    legal = _row(ints, ints, O_LEGAL, i, width)
    probs = _row(f64, ints, O_PROBS, i, width)
    undo = _row(ints, ints, O_UNDO, i, ints[H_U])
    while s[0] == CHANCE:
        n = chance_fn(s, legal, probs)
        outcome = draw_outcome(legal, probs, n, random_uniform(rng, i))
        apply_fn(s, outcome, undo)
        _record(ints, i, outcome)


@njit(cache=True)
def _reset_game(apply_fn, chance_fn, reset_fn, s, i, ints, f64, rng):
    size = ints[H_S]
    row = _row(ints, ints, O_INITIAL, i % ints[H_K], size)
    for k in range(size):
        s[k] = row[k]
    reset_fn(s, rng, i, _row(ints, ints, O_LEGAL, i, ints[H_W]))
    ints[ints[O_LENGTHS] + i] = 0
    if ints[H_T] > 0:
        start = _row(ints, ints, O_STARTS, i, size)
        for k in range(size):
            start[k] = s[k]
        _record(ints, i, TRACE_RESET)
    _resolve_chance(apply_fn, chance_fn, s, i, ints, f64, rng)


@njit(cache=True, inline="always")
def _publish(legal_fn, observe_fn, s, i, ints, f32, flags):
    """Legal actions, mask, player and observation of game i for the caller."""
    legal = _row(ints, ints, O_LEGAL, i, ints[H_W])
    n = legal_fn(s, legal)
    ints[ints[O_COUNTS] + i] = n
    mask = _row(flags, ints, O_MASK, i, ints[H_A])
    for a in range(mask.shape[0]):
        mask[a] = False
    for k in range(n):
        mask[legal[k]] = True
    player = s[0]
    ints[ints[O_PLAYERS] + i] = player
    if player >= 0:
        observe_fn(s, player, _row(f32, ints, O_OBS, i, ints[H_O]))


@njit(cache=True)
def _check_actions(ints, flags):
    """Index of the first game whose action is neither -1 (sit out) nor legal, else -1."""
    width = ints[H_A]
    actions = ints[O_ACTIONS]
    mask = ints[O_MASK]
    for i in range(ints[H_N]):
        a = ints[actions + i]
        if a == -1:
            continue
        if a < 0 or a >= width or not flags[mask + i * width + a]:
            return i
    return -1


@njit(cache=True)
def _step_range(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas, start, stop):
    """Step games start..stop-1. The loop body is written out here, not called per game:
    a call passing many arrays costs more than a Tic-Tac-Toe move."""
    ints, f32, f64, flags = arenas
    rng = _rng(ints)
    size, max_len, num_rewards = ints[H_S], ints[H_MAX_LEN], ints[H_P]
    o_actions, o_lengths, o_rewards = ints[O_ACTIONS], ints[O_LENGTHS], ints[O_REWARDS]
    o_terms, o_truncs = ints[O_TERMS], ints[O_TRUNCS]
    tracing = ints[H_T] > 0
    for i in range(start, stop):
        for p in range(num_rewards):
            f32[o_rewards + i * num_rewards + p] = 0.0
        flags[o_terms + i] = False
        flags[o_truncs + i] = False
        action = ints[o_actions + i]
        if action < 0:  # this game sits the step out
            continue
        s = _row(ints, ints, O_STATES, i, size)
        apply_fn(s, action, _row(ints, ints, O_UNDO, i, ints[H_U]))
        length = ints[o_lengths + i] + 1
        ints[o_lengths + i] = length
        if tracing:
            _record(ints, i, action)
        if s[0] == CHANCE:
            _resolve_chance(apply_fn, chance_fn, s, i, ints, f64, rng)
        ended = False
        if s[0] == TERMINAL:
            probs = _row(f64, ints, O_PROBS, i, ints[H_W])
            returns_fn(s, probs)
            for p in range(num_rewards):
                f32[o_rewards + i * num_rewards + p] = probs[p]
            flags[o_terms + i] = True
            ended = True
        elif length >= max_len:
            flags[o_truncs + i] = True
            ended = True
        if ended:
            _reset_game(apply_fn, chance_fn, reset_fn, s, i, ints, f64, rng)
        _publish(legal_fn, observe_fn, s, i, ints, f32, flags)


MODE_STEP = 0
MODE_STEP_PARALLEL = 1
MODE_RESET = 2


@njit(cache=True)
def _step_serial(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas):
    _step_range(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas, 0,
                arenas[0][H_N])


CHUNK = 64
"""Games per parallel work item: one call per chunk keeps the per-game cost of the loop."""


@njit(cache=True, parallel=True)
def _step_parallel(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas):
    n = arenas[0][H_N]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _step_range(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas, c * CHUNK,
                    min(n, (c + 1) * CHUNK))


@njit(cache=True)
def _reset_all(legal_fn, apply_fn, chance_fn, observe_fn, reset_fn, arenas):
    ints, f32, f64, flags = arenas
    rng = _rng(ints)
    for i in range(ints[H_N]):
        s = _row(ints, ints, O_STATES, i, ints[H_S])
        _reset_game(apply_fn, chance_fn, reset_fn, s, i, ints, f64, rng)
        _publish(legal_fn, observe_fn, s, i, ints, f32, flags)


@njit(cache=True, inline="always")
def run_batch(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, mode, ints, f32, f64,
              flags):
    """The batch operations for one game's kernels (bound by ``plies.envs.vector.entries``):

    ``MODE_STEP`` / ``MODE_STEP_PARALLEL``: play ``actions[i]`` in game i for every i (-1:
    game i sits out), resolve chance, score and reset finished games, then list the legal
    actions and observe; serially or over all cores. Returns -1, or the index of the first
    game given an illegal action (nothing is changed then).
    ``MODE_RESET``: start a new game in every slot."""
    arenas = (ints, f32, f64, flags)
    if mode == MODE_RESET:
        _reset_all(legal_fn, apply_fn, chance_fn, observe_fn, reset_fn, arenas)
        return -1
    bad = _check_actions(ints, flags)
    if bad >= 0:
        return bad
    if mode == MODE_STEP_PARALLEL:
        _step_parallel(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas)
    else:
        _step_serial(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, reset_fn, arenas)
    return -1


@njit(types.void(_I64_1D), cache=True)
def sample_actions(ints):
    """A uniformly random legal action per game (-1 where a game has none) into the actions
    buffer of the int64 arena."""
    rng = _rng(ints)
    width = ints[H_W]
    o_actions, o_counts, o_legal = ints[O_ACTIONS], ints[O_COUNTS], ints[O_LEGAL]
    for i in range(ints[H_N]):
        count = ints[o_counts + i]
        ints[o_actions + i] = ints[o_legal + i * width + random_below(rng, i, count)] if count > 0 else -1


@njit(types.void(OBSERVE_T, _I64_2D, _I64_1D, _F32_2D), cache=True)
def observe_all(observe, states, seats, out):
    """Game i's observation for ``seats[i]`` into ``out[i]``."""
    for i in range(states.shape[0]):
        observe(states[i], seats[i], out[i])
