"""Batched stepping: one compiled call plays one action in each of many games.

The functions here are generic over the games: they take a game's kernels (legal actions,
apply, returns, chance outcomes, observe) as arguments, and each game binds them in a small
module-level function of ``plies.vector.entries`` (``run(mode, buffers)``), which numba compiles
once per game and serves from its disk cache to later processes. Passing the kernels as
first-class function values (``KERNELS_T``) instead costs about 25 us per call from Python
(numba checks each function reference), more than a whole step of a small batch; bound this
way, LLVM also inlines the kernels into the loop.

Every game has its own random generator: one ``uint64`` word per game, advanced by SplitMix64
(a counter plus a mixing function: fast, and streams of different games do not overlap). Chance
nodes, automatic resets (and Dice Wars's dealing) and ``sample_actions`` all draw from it, so a
batch run is a function of its seed and the actions given.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from plies.envs.core import CHANCE, OBSERVE_SIG, TERMINAL

"""observe(state, seat, out): a game's observation for seat, flattened into out."""
OBSERVE_T = types.FunctionType(OBSERVE_SIG)

# how a finished game is replaced: a copy of the slot's start row, or that plus a new dealing
RESET_COPY = 0
RESET_DEAL_DICE_WARS = 1

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
def _next(rng, i):
    """SplitMix64: advance game i's counter and return 64 mixed bits."""
    z = rng[i] + _GOLDEN
    rng[i] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def _below(rng, i, n):
    """A uniform integer in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift)."""
    return np.int64(((_next(rng, i) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def _uniform(rng, i):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(_next(rng, i) >> _S11) * _UNIT


# ----- one game ------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _record(trace, trace_len, i, value):
    """Append to game i's trace (if tracing); a full trace marks itself with length -1."""
    if trace.shape[1] == 0:
        return
    n = trace_len[i]
    if n < 0:
        return
    if n >= trace.shape[1]:
        trace_len[i] = -1
        return
    trace[i, n] = value
    trace_len[i] = n + 1


@njit(cache=True)
def _resolve_chance(apply_fn, chance_fn, s, i, legal, probs, undo, rng, trace, trace_len):
    """Draw chance outcomes from game i's generator until a player is to move (or the end)."""
    while s[0] == CHANCE:
        n = chance_fn(s, legal[i], probs[i])
        total = 0.0
        for k in range(n):
            total += probs[i, k]
        u = _uniform(rng, i) * total
        pick = n - 1
        acc = 0.0
        for k in range(n):
            acc += probs[i, k]
            if u < acc:
                pick = k
                break
        outcome = legal[i, pick]
        apply_fn(s, outcome, undo[i])
        _record(trace, trace_len, i, outcome)


@njit(cache=True, inline="always")
def _deal_dice_wars(s, i, rng, scratch):
    """Deal the map's areas anew: seats take a random free area in turn, seat 0 first (as
    ``DiceWarsState.from_map``); dice and the header come from the copied start row."""
    players = s[1]
    n = s[2]
    owners = 24
    for a in range(n):
        scratch[a] = a
    left = n
    seat = 0
    while left > 0:
        k = _below(rng, i, left)
        area = scratch[k]
        scratch[k] = scratch[left - 1]
        left -= 1
        s[owners + area] = seat
        seat = (seat + 1) % players


@njit(cache=True)
def _reset_game(apply_fn, chance_fn, s, i, legal, probs, undo, rng, initial, trace, trace_len,
                starts, lengths, reset_kind):
    row = initial[i % initial.shape[0]]
    for k in range(s.shape[0]):
        s[k] = row[k]
    if reset_kind == RESET_DEAL_DICE_WARS:
        _deal_dice_wars(s, i, rng, legal[i])
    lengths[i] = 0
    if trace.shape[1] > 0:
        for k in range(s.shape[0]):
            starts[i, k] = s[k]
        _record(trace, trace_len, i, TRACE_RESET)
    _resolve_chance(apply_fn, chance_fn, s, i, legal, probs, undo, rng, trace, trace_len)


@njit(cache=True, inline="always")
def _publish(legal_fn, observe_fn, s, i, legal, counts, mask, players, obs):
    """Legal actions, mask, player and observation of game i for the caller."""
    n = legal_fn(s, legal[i])
    counts[i] = n
    for a in range(mask.shape[1]):
        mask[i, a] = False
    for k in range(n):
        mask[i, legal[i, k]] = True
    player = s[0]
    players[i] = player
    if player >= 0:
        observe_fn(s, player, obs[i])


@njit(cache=True)
def _check_actions(actions, mask):
    """Index of the first game whose action is neither -1 (sit out) nor legal, else -1."""
    width = mask.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a == -1:
            continue
        if a < 0 or a >= width or not mask[i, a]:
            return i
    return -1


# ----- the buffers ---------------------------------------------------------------------------
# A batch keeps its data in four flat arenas (int64, float32, float64, bool), so a call from
# Python unboxes four arrays instead of twenty (about 0.3 us against 1.4 us: most of a step at
# batch size 1). The int64 arena starts with a header of sizes and offsets; the views below
# and VectorGame's numpy views are cut from the same offsets.
H_N, H_S, H_W, H_U, H_K, H_T, H_O, H_P, H_A, H_RESET, H_MAX_LEN = range(11)
(O_RNG, O_ACTIONS, O_PLAYERS, O_COUNTS, O_LENGTHS, O_TRACE_LEN, O_STATES, O_LEGAL, O_UNDO,
 O_INITIAL, O_TRACE, O_STARTS, O_OBS, O_REWARDS, O_PROBS, O_TERMS, O_TRUNCS, O_MASK) = range(
    16, 34)
HEADER_SIZE = 34


@njit(cache=True, inline="always")
def _cut(arena, offset_slot, ints, rows, cols):
    start = ints[offset_slot]
    return arena[start : start + rows * cols].reshape((rows, cols))


@njit(cache=True)
def _views(ints, f32, f64, flags):
    n, size, width = ints[H_N], ints[H_S], ints[H_W]
    start = ints[O_RNG]
    rng = ints[start : start + n].view(np.uint64)
    actions = ints[ints[O_ACTIONS] : ints[O_ACTIONS] + n]
    players = ints[ints[O_PLAYERS] : ints[O_PLAYERS] + n]
    counts = ints[ints[O_COUNTS] : ints[O_COUNTS] + n]
    lengths = ints[ints[O_LENGTHS] : ints[O_LENGTHS] + n]
    trace_len = ints[ints[O_TRACE_LEN] : ints[O_TRACE_LEN] + n]
    states = _cut(ints, O_STATES, ints, n, size)
    legal = _cut(ints, O_LEGAL, ints, n, width)
    undo = _cut(ints, O_UNDO, ints, n, ints[H_U])
    initial = _cut(ints, O_INITIAL, ints, ints[H_K], size)
    trace = _cut(ints, O_TRACE, ints, n, ints[H_T])
    starts = _cut(ints, O_STARTS, ints, n if ints[H_T] > 0 else 0, size)
    obs = _cut(f32, O_OBS, ints, n, ints[H_O])
    rewards = _cut(f32, O_REWARDS, ints, n, ints[H_P])
    probs = _cut(f64, O_PROBS, ints, n, width)
    terms = flags[ints[O_TERMS] : ints[O_TERMS] + n]
    truncs = flags[ints[O_TRUNCS] : ints[O_TRUNCS] + n]
    mask = _cut(flags, O_MASK, ints, n, ints[H_A])
    return (states, actions, obs, rewards, terms, truncs, players, mask, legal, counts, lengths,
            undo, probs, rng, initial, trace, trace_len, starts)


@njit(cache=True)
def _step_range(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas, start, stop):
    """Step games start..stop-1. The loop body is written out here, not called per game:
    a call passing twenty arrays costs more than a Tic-Tac-Toe move."""
    ints, f32, f64, flags = arenas
    (states, actions, obs, rewards, terms, truncs, players, mask, legal, counts, lengths, undo,
     probs, rng, initial, trace, trace_len, starts) = _views(ints, f32, f64, flags)
    reset_kind, max_len = ints[H_RESET], ints[H_MAX_LEN]
    tracing = trace.shape[1] > 0
    num_rewards = rewards.shape[1]
    width = mask.shape[1]
    for i in range(start, stop):
        for p in range(num_rewards):
            rewards[i, p] = 0.0
        terms[i] = False
        truncs[i] = False
        action = actions[i]
        if action < 0:  # this game sits the step out
            continue
        s = states[i]
        apply_fn(s, action, undo[i])
        lengths[i] += 1
        if tracing:
            _record(trace, trace_len, i, action)
        if s[0] == CHANCE:
            _resolve_chance(apply_fn, chance_fn, s, i, legal, probs, undo, rng, trace, trace_len)
        ended = False
        if s[0] == TERMINAL:
            returns_fn(s, probs[i])
            for p in range(num_rewards):
                rewards[i, p] = probs[i, p]
            terms[i] = True
            ended = True
        elif lengths[i] >= max_len:
            truncs[i] = True
            ended = True
        if ended:
            _reset_game(apply_fn, chance_fn, s, i, legal, probs, undo, rng, initial, trace,
                        trace_len, starts, lengths, reset_kind)
        # publish: legal actions, mask, player, observation
        n = legal_fn(s, legal[i])
        counts[i] = n
        for a in range(width):
            mask[i, a] = False
        for k in range(n):
            mask[i, legal[i, k]] = True
        player = s[0]
        players[i] = player
        if player >= 0:
            observe_fn(s, player, obs[i])


MODE_STEP = 0
MODE_STEP_PARALLEL = 1
MODE_RESET = 2


@njit(cache=True)
def _step_serial(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas):
    _step_range(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas, 0,
                arenas[0][H_N])


CHUNK = 64
"""Games per parallel work item: one call per chunk keeps the per-game cost of the loop."""


@njit(cache=True, parallel=True)
def _step_parallel(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas):
    n = arenas[0][H_N]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _step_range(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas, c * CHUNK,
                    min(n, (c + 1) * CHUNK))


@njit(cache=True)
def _reset_all(legal_fn, apply_fn, chance_fn, observe_fn, arenas):
    ints, f32, f64, flags = arenas
    (states, actions, obs, rewards, terms, truncs, players, mask, legal, counts, lengths, undo,
     probs, rng, initial, trace, trace_len, starts) = _views(ints, f32, f64, flags)
    for i in range(states.shape[0]):
        s = states[i]
        _reset_game(apply_fn, chance_fn, s, i, legal, probs, undo, rng, initial, trace,
                    trace_len, starts, lengths, ints[H_RESET])
        _publish(legal_fn, observe_fn, s, i, legal, counts, mask, players, obs)


@njit(cache=True, inline="always")
def run_batch(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, mode, ints, f32, f64,
              flags):
    """The batch operations for one game's kernels (bound by ``plies.vector.entries``):

    ``MODE_STEP`` / ``MODE_STEP_PARALLEL``: play ``actions[i]`` in game i for every i (-1:
    game i sits out), resolve chance, score and reset finished games, then list the legal
    actions and observe; serially or over all cores. Returns -1, or the index of the first
    game given an illegal action (nothing is changed then).
    ``MODE_RESET``: start a new game in every slot."""
    arenas = (ints, f32, f64, flags)
    if mode == MODE_RESET:
        _reset_all(legal_fn, apply_fn, chance_fn, observe_fn, arenas)
        return -1
    n = ints[H_N]
    actions = ints[ints[O_ACTIONS] : ints[O_ACTIONS] + n]
    bad = _check_actions(actions, _cut(flags, O_MASK, ints, n, ints[H_A]))
    if bad >= 0:
        return bad
    if mode == MODE_STEP_PARALLEL:
        _step_parallel(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas)
    else:
        _step_serial(legal_fn, apply_fn, returns_fn, chance_fn, observe_fn, arenas)
    return -1


@njit(types.void(_I64_1D), cache=True)
def sample_actions(ints):
    """A uniformly random legal action per game (-1 where a game has none) into the actions
    buffer of the int64 arena."""
    n = ints[H_N]
    start = ints[O_RNG]
    rng = ints[start : start + n].view(np.uint64)
    out = ints[ints[O_ACTIONS] : ints[O_ACTIONS] + n]
    counts = ints[ints[O_COUNTS] : ints[O_COUNTS] + n]
    legal = _cut(ints, O_LEGAL, ints, n, ints[H_W])
    for i in range(n):
        count = counts[i]
        out[i] = legal[i, _below(rng, i, count)] if count > 0 else -1


@njit(types.void(OBSERVE_T, _I64_2D, _I64_1D, _F32_2D), cache=True)
def observe_all(observe, states, seats, out):
    """Game i's observation for ``seats[i]`` into ``out[i]``."""
    for i in range(states.shape[0]):
        observe(states[i], seats[i], out[i])
