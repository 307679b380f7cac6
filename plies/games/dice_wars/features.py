"""Dice Wars inputs for value networks, compiled and batched: per area (dice, neighbours, the
odds of its best attack and of holding it, whether it is in its owner's largest region, whose it
is relative to the side to move), per seat (areas, dice, largest region, reserve, the turn's
reinforcements and attacks) and the adjacency of own and enemy neighbours (docs/dice_wars.md).
``encode(states)`` gives the arrays of a batch; ``resolve_battles`` splits a pending battle
into its two outcomes so that a network scores both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plies.games.dice_wars import rules
from plies.games.dice_wars.probabilities import ATTACK_WIN
from plies.games.kernels import EVAL_SIG
from plies.games.value_kernels import MAX_WIDTH, affine

MAX_PLAYERS = 8
AREA_FEATURES = 12 + MAX_PLAYERS
PLAYER_FEATURES = 8 + MAX_PLAYERS


@njit(cache=True)
def encode_into(states, max_areas, area, player, alive, owner_1h, adj_own, adj_enemy):
    """Fills the feature arrays of a batch of Dice Wars states (rows zero padded at the end)."""
    base = rules.AREAS
    for b in range(states.shape[0]):
        s = states[b]
        n = s[rules.NUM_AREAS]
        players = s[rules.NUM_PLAYERS]
        width = s[rules.MAX_DEGREE]
        turn = s[rules.TURN]
        all_dice = 0
        for a in range(n):
            all_dice += s[base + n + a]
        # the largest region of every seat, and which areas belong to it
        in_best = np.zeros(n, np.int64)
        label = np.empty(n, np.int64)
        best_label = np.empty(MAX_PLAYERS, np.int64)
        best_size = np.empty(MAX_PLAYERS, np.int64)
        rules.label_regions(s, label, best_size, best_label)
        for a in range(n):
            if label[a] == best_label[s[base + a]]:
                in_best[a] = 1
        counts = np.zeros(MAX_PLAYERS, np.int64)
        dice_of = np.zeros(MAX_PLAYERS, np.int64)
        for a in range(n):
            p = s[base + a]
            d = s[base + n + a]
            counts[p] += 1
            dice_of[p] += d
            deg = s[base + 2 * n + a]
            enemies = 0
            friends = 0
            max_enemy = 0
            best_attack = 0.0
            for k in range(deg):
                y = s[base + 3 * n + a * width + k]
                dy = s[base + n + y]
                if s[base + y] == p:
                    friends += 1
                    adj_own[b, a, y] = 1.0
                else:
                    enemies += 1
                    adj_enemy[b, a, y] = 1.0
                    if dy > max_enemy:
                        max_enemy = dy
                    if d > 1 and ATTACK_WIN[d, dy] > best_attack:
                        best_attack = ATTACK_WIN[d, dy]
            if friends > 0:
                for y in range(n):
                    adj_own[b, a, y] /= friends
            if enemies > 0:
                for y in range(n):
                    adj_enemy[b, a, y] /= enemies
            f = area[b, a]
            f[0] = d / 8.0
            f[1] = 1.0 if d == 8 else 0.0
            f[2] = 1.0 if d == 1 else 0.0
            f[3] = deg / 6.0
            f[4] = enemies / 6.0
            f[5] = friends / 6.0
            f[6] = max_enemy / 8.0
            f[7] = best_attack
            f[8] = rules.hold_probability(s, a, p, d)
            f[9] = in_best[a]
            f[10] = 1.0 if enemies > 0 else 0.0
            f[11] = 1.0 if p == turn else 0.0
            f[12 + (p - turn) % players] = 1.0
            owner_1h[b, a, p] = 1.0
        to_place = s[rules.TO_PLACE] if s[rules.PHASE] == rules.PHASE_REINFORCE else 0
        for p in range(players):
            if counts[p] == 0:
                continue
            alive[b, p] = 1.0
            g = player[b, p]
            g[0] = counts[p] / n
            g[1] = dice_of[p] / (8.0 * n)
            g[2] = best_size[p] / n
            g[3] = np.log(best_size[p] + 1.0) / np.log(n + 1.0)
            g[4] = dice_of[p] / max(all_dice, 1)
            g[5] = min(s[rules.RESERVE + p], 64) / 16.0
            if p == turn:
                g[6] = to_place / 16.0
                g[7] = s[rules.ATTACKS] / 8.0
            g[8 + (p - turn) % players] = 1.0


def encode(states: np.ndarray) -> dict[str, np.ndarray]:
    """Feature arrays of a batch of Dice Wars states (rows of any int dtype, zero padded);
    a batch whose values the kernels would index out of bounds with is a ValueError."""
    states = np.ascontiguousarray(states, np.int64)
    if states.ndim != 2:
        raise ValueError(f"encode takes a 2-d batch of Dice Wars state rows, not shape {states.shape}")
    problem = rules.check_rows(states)
    if problem:
        raise ValueError(problem)
    b = states.shape[0]
    a = int(states[:, rules.NUM_AREAS].max()) if b else 1
    out = {
        "area": np.zeros((b, a, AREA_FEATURES), np.float32),
        "player": np.zeros((b, MAX_PLAYERS, PLAYER_FEATURES), np.float32),
        "alive": np.zeros((b, MAX_PLAYERS), np.float32),
        "owner": np.zeros((b, a, MAX_PLAYERS), np.float32),
        "adj_own": np.zeros((b, a, a), np.float32),
        "adj_enemy": np.zeros((b, a, a), np.float32),
    }
    encode_into(states, a, out["area"], out["player"], out["alive"], out["owner"],
               out["adj_own"], out["adj_enemy"])
    return out


@njit(cache=True)
def resolve_battles(states, out, weights, parent):
    """Rows of ``states`` with their pending battle resolved: two rows (won, lost) for a
    battle, weighted by its odds; one row of weight 1 otherwise. Returns the row count."""
    k = 0
    for i in range(states.shape[0]):
        s = states[i]
        if s[rules.PHASE] != rules.PHASE_BATTLE:
            out[k] = s
            weights[k] = 1.0
            parent[k] = i
            k += 1
            continue
        n = s[rules.NUM_AREAS]
        src = s[rules.SOURCE]
        tgt = s[rules.TARGET]
        sd = s[rules.AREAS + n + src]
        p = ATTACK_WIN[sd, s[rules.AREAS + n + tgt]]
        for won in range(2):
            row = out[k]
            row[:] = s
            row[0] = s[rules.TURN]
            row[rules.PHASE] = rules.PHASE_MOVE
            row[rules.AREAS + n + src] = 1
            if won == 1:
                row[rules.AREAS + tgt] = s[rules.TURN]
                row[rules.AREAS + n + tgt] = sd - 1
            weights[k] = p if won == 1 else 1.0 - p
            parent[k] = i
            k += 1
    return k


# ----- the message-passing network in compiled code (MCTS's eval=net) -----------------------
def gnn_param_count(hidden: int, layers: int) -> int:
    """Length of the flat parameters of a network of ``hidden`` units and ``layers`` rounds of
    messages: ``[hidden, layers]``, then each linear map's weights (one row per input) and
    biases (zeros where the map has none), in the order embed, per round (own, enemy, update),
    head (hidden layer, output): ``affine``'s layout."""
    def linear(n_in: int, n_out: int) -> int:
        return n_in * n_out + n_out
    return (2 + linear(AREA_FEATURES, hidden) + 3 * layers * linear(hidden, hidden)
            + linear(2 * hidden + PLAYER_FEATURES, hidden) + linear(hidden, 1))


def check_gnn_params(params: np.ndarray) -> None:
    """Raises a ValueError unless ``params`` is a layout the kernel can read without bounds
    checks."""
    if params.ndim != 1 or params.dtype != np.float64 or len(params) < 2:
        raise ValueError("dice_wars network: not a flat float64 parameter array")
    if not np.all(np.isfinite(params)):
        raise ValueError("dice_wars network: parameters that are not finite numbers")
    hidden, layers = params[0], params[1]
    if hidden != int(hidden) or not 1 <= hidden <= MAX_WIDTH or layers != int(layers) or not 0 <= layers <= 16:
        raise ValueError(f"dice_wars network: {hidden} hidden units and {layers} rounds; 1 to "
                         f"{MAX_WIDTH} units and 0 to 16 rounds are allowed")
    expected = gnn_param_count(int(hidden), int(layers))
    if len(params) != expected:
        raise ValueError(f"dice_wars network: {len(params)} parameters where its sizes need {expected}")


@njit(cache=True)
def _relu_into(v):
    for j in range(v.shape[0]):
        if v[j] < 0.0:
            v[j] = 0.0


@njit(cache=True)
def _win_probabilities(state, params, out):
    """out[p]: the network's P(seat p wins) for a state without a pending battle."""
    n = state[rules.NUM_AREAS]
    batch = state.reshape((1, state.shape[0]))
    area = np.zeros((1, n, AREA_FEATURES))
    player = np.zeros((1, MAX_PLAYERS, PLAYER_FEATURES))
    alive = np.zeros((1, MAX_PLAYERS))
    owner = np.zeros((1, n, MAX_PLAYERS))
    adj_own = np.zeros((1, n, n))
    adj_enemy = np.zeros((1, n, n))
    encode_into(batch, n, area, player, alive, owner, adj_own, adj_enemy)
    hidden = int(params[0])
    rounds = int(params[1])
    square = hidden * hidden + hidden
    at = 2
    h = np.empty((n, hidden))
    for a in range(n):
        h[a] = affine(area[0, a], params, at, AREA_FEATURES, hidden)
        _relu_into(h[a])
    at += AREA_FEATURES * hidden + hidden
    own_sum = np.empty(hidden)
    enemy_sum = np.empty(hidden)
    for _ in range(rounds):
        new_h = h.copy()
        for a in range(n):
            own_sum[:] = 0.0
            enemy_sum[:] = 0.0
            for y in range(n):
                if adj_own[0, a, y] != 0.0:
                    own_sum += adj_own[0, a, y] * h[y]
                if adj_enemy[0, a, y] != 0.0:
                    enemy_sum += adj_enemy[0, a, y] * h[y]
            step = (affine(own_sum, params, at, hidden, hidden)
                    + affine(enemy_sum, params, at + square, hidden, hidden)
                    + affine(h[a], params, at + 2 * square, hidden, hidden))
            _relu_into(step)
            new_h[a] += step
        h = new_h
        at += 3 * square
    head_in = 2 * hidden + PLAYER_FEATURES
    x = np.empty(head_in)
    best = -np.inf
    for p in range(MAX_PLAYERS):
        out[p] = -np.inf
        if alive[0, p] <= 0.0:
            continue
        count = 0.0
        x[:] = 0.0
        for a in range(n):
            w = owner[0, a, p]
            if w != 0.0:
                count += w
                x[:hidden] += w * h[a]
        x[hidden:2 * hidden] = x[:hidden] / max(count, 1.0)
        x[:hidden] /= n
        x[2 * hidden:] = player[0, p]
        hid = affine(x, params, at, head_in, hidden)
        _relu_into(hid)
        out[p] = affine(hid, params, at + head_in * hidden + hidden, hidden, 1)[0]
        best = max(best, out[p])
    total = 0.0
    for p in range(MAX_PLAYERS):
        out[p] = np.exp(out[p] - best) if out[p] > -np.inf else 0.0
        total += out[p]
    for p in range(MAX_PLAYERS):
        out[p] /= total


@njit(EVAL_SIG, cache=True)
def gnn_value(state, seat, params):
    """The network's value (2 P(win) - 1) of ``state`` for ``seat``: the same number as the
    torch network's ``seat_values`` (in float64), a pending battle scored as the expectation
    over its two outcomes, for searches that score leaves one by one."""
    rows = np.empty((2, state.shape[0]), np.int64)
    weights = np.empty(2)
    parent = np.empty(2, np.int64)
    k = resolve_battles(state.reshape((1, state.shape[0])), rows, weights, parent)
    p = np.empty(MAX_PLAYERS)
    win = 0.0
    for r in range(k):
        _win_probabilities(rows[r], params, p)
        win += weights[r] * p[seat]
    return min(max(2.0 * win - 1.0, -0.999999), 0.999999)
