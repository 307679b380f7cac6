"""``plies train backgammon``: the contact and race (and crashed) networks, trained by self-play.

The training engine's recipe for backgammon (``RECIPE``, named by the game's declaration): the
engine (``plies.training.engine``) runs the rounds, checkpoints, resume, metrics, evaluations
and card; this module says what a round plays and how it learns.

The network (``ContactRaceNet``: the features of ``plies.games.backgammon.features``, a contact
and a race network of ``--hidden`` sigmoid units, five outputs each, with ``--hidden2`` ReLU
units of a second layer over them if set, and with ``--classes 3`` a third network for crashed
positions) plays both sides of many
games at once. At every roll each game lists its distinct end-of-turn positions (the rules'
afterstate kernel); the afterstates of all games are encoded in one compiled call and scored in
one forward pass per network, and each game takes the one that is worst for the opponent in
money equity (gammons count; greedy 1-ply, as TD-Gammon), or with ``--play-scoring single`` in
single-game equity (only winning counts, as the double-match-point games the network is
measured in).

Training runs in rounds. In round r, ``--workers`` processes each play ``--round-games`` games
with the weights of round r and send back every position taken with its TD(lambda) target (the
forward view: G_t = (1 - lambda) V(t + 1) + lambda G(t + 1), turned to the view of the side
that moves next, the last target being the game's result). The main process then takes
minibatch steps of Adam over those positions (cross-entropy against the targets, each position
through its class's network). With ``--targets search`` a position's target is instead the
network's own 1-ply search of it (each of the 21 rolls of the side to move, the reply the network
picks, averaged: ``search_targets``) for a ``--label-share`` of the positions: labels of far less
variance than a game's return, at about 15 times the CPU of a TD game per labelled game. With
``--targets rollout`` the label is a truncated rollout (gnubg's way of labelling its training
positions): each of the 21 first rolls played out ``--trials`` times by the network for
``--horizon`` moves, then scored by the network (``rollout_targets``). With ``--targets
variance-reduced`` every position is searched 1 ply deep and its TD(lambda) return has the
dice's luck taken out (``luck_free_returns``). ``--epochs`` passes of Adam
go over each round's positions. Each worker's dice come from a seed of (seed, round, worker), so
a run gives the same network for a seed whatever the timing, and ``--resume`` continues exactly.

Every ``--eval-every`` games a snapshot plays ``--eval-games`` games at 1-ply against each
``--opponent`` (default pubeval and gnubg at 0 ply) through the tournament engine; the rates, their
95% intervals and the loss go to ``RUN/metrics.csv`` and ``RUN/learning_curve.png``; a checkpoint
(network, optimiser, config, counters) is written to ``RUN/checkpoint.pt`` after every
``--checkpoint-every`` games.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from plies.agents.value_net import ContactRaceNet, load_value_net, require_torch
from plies.games.backgammon import features, rules
from plies.games.kernels import CHANCE, TERMINAL, draw_outcome
from plies.training.common import plot_curve, save_weights, staged_commands
from plies.training.engine import (
    Recipe,
    Run,
    check_kept,
    opponent_column,
    rate_columns,
    rate_fields,
    score_against,
)

GAME = "backgammon"
ARCH = "backgammon_contact_race"
DEFAULT_OPPONENTS = "pubeval,gnubg:depth=0"
OUTPUTS = 5


# ----- compiled self-play steps -------------------------------------------------------------------
@njit(cache=True)
def roll(states, uniforms, undo):
    """Rolls the dice in every game that waits for them."""
    outcomes = np.empty(64, np.int64)
    probs = np.empty(64, np.float64)
    for g in range(states.shape[0]):
        s = states[g]
        if s[0] == CHANCE:
            n = rules.chance_outcomes(s, outcomes, probs)
            rules.apply_action(s, draw_outcome(outcomes, probs, n, uniforms[g]), undo)


@njit(cache=True)
def expand(states, buffer, owner, tmp_out, tmp_paths):
    """Lists every rolled game's end-of-turn positions into ``buffer`` (``owner[k]``: the game of
    row k). A game still at a chance node after its roll could not move: its one position is
    itself, passed to the opponent. Returns the row count, or -1 when ``buffer`` is too small."""
    k = 0
    for g in range(states.shape[0]):
        s = states[g]
        if s[0] == TERMINAL:
            continue
        if s[0] == CHANCE:
            if k >= buffer.shape[0]:
                return -1
            buffer[k] = s
            owner[k] = g
            k += 1
            continue
        n = rules.afterstates(s, tmp_out, tmp_paths)
        if n < 0:
            n = tmp_out.shape[0]
        if k + n > buffer.shape[0]:
            return -1
        for j in range(n):
            buffer[k] = tmp_out[j]
            owner[k] = g
            k += 1
    return k


@njit(cache=True)
def choose(owner, count, equity, terminal_points, games, best):
    """best[g]: the row of game g that a mover takes: a won game (most points) when it can,
    else the lowest equity for the opponent."""
    for g in range(games):
        best[g] = -1
    for k in range(count):
        g = owner[k]
        b = best[g]
        if b < 0:
            best[g] = k
            continue
        if terminal_points[k] > 0 or terminal_points[b] > 0:
            if terminal_points[k] > terminal_points[b]:
                best[g] = k
        elif equity[k] < equity[b]:
            best[g] = k


@njit(cache=True)
def roll_every_way(afterstates, rolled, probs, undo):
    """Each of the afterstates (positions waiting for the next mover's dice) once per roll:
    ``rolled[i * per + r]`` is afterstate i after roll r (``per`` rows each), ``probs`` the roll's
    chance (rows past the position's roll count have probability 0)."""
    outcomes = np.empty(64, np.int64)
    chance = np.empty(64, np.float64)
    per = rolled.shape[0] // afterstates.shape[0]
    for i in range(afterstates.shape[0]):
        n = rules.chance_outcomes(afterstates[i], outcomes, chance)
        for r in range(per):
            k = i * per + r
            rolled[k] = afterstates[i]
            probs[k] = 0.0
            if r < n:
                rules.apply_action(rolled[k], outcomes[r], undo)
                probs[k] = chance[r]


def search_targets(weights: list[tuple[np.ndarray, ...]], afterstates: np.ndarray,
                   scoring: str = "money") -> np.ndarray:
    """1-ply search labels of positions waiting for a roll: for each of the next mover's rolls,
    the move the network picks for it (a won game first, else the lowest equity for the other
    side), its value averaged over the rolls' chances, from the next mover's view (the same view
    as the network's output at the position): a rollout of one move (``rollout_targets``). The
    opening position is refused: its roll decides who moves, so it has no one side to label."""
    return rollout_targets(weights, afterstates, 1, 1, np.random.default_rng(0), scoring)  # one move draws no dice


def flip(v: np.ndarray) -> np.ndarray:
    """Five outputs turned to the other side's view."""
    return np.stack([1.0 - v[..., 0], v[..., 3], v[..., 4], v[..., 1], v[..., 2]], -1)


def outcome_vector(state: np.ndarray, view: int) -> np.ndarray:
    """The five outputs' true values at a finished game, from seat ``view``'s side."""
    winner = int(state[rules.WINNER])
    points = int(state[rules.POINTS])
    won = np.array([1.0, float(points >= 2), float(points >= 3), 0.0, 0.0])
    return won if winner == view else flip(won)


def lambda_returns(values: np.ndarray, sides: np.ndarray, final: np.ndarray, lam: float) -> np.ndarray:
    """TD(lambda) targets of one game's positions (rows of ``values`` in the view of
    ``sides[t]``); ``final`` is the result in the view of ``sides[-1]``."""
    targets = np.empty_like(values)
    g = final
    targets[-1] = final
    for t in range(len(values) - 2, -1, -1):
        v_next, g_next = values[t + 1], g
        if sides[t + 1] != sides[t]:
            v_next, g_next = flip(v_next), flip(g_next)
        g = (1.0 - lam) * v_next + lam * g_next
        targets[t] = g
    return targets


def luck_free_returns(values: np.ndarray, searched: np.ndarray, sides: np.ndarray, lam: float) -> np.ndarray:
    """Lambda-returns of one game's positions with the dice's luck taken out (gnubg's variance
    reduction, here over a whole self-play game): ``values[t]`` is the network's value of
    position t (the one taken), ``searched[t]`` its 1-ply search (``search_targets``: the value
    of the next move averaged over every roll), both in the view of ``sides[t]``. The luck of a
    roll is what the move it gave is worth beyond that average; the target is G(t) = S(t) +
    lambda (G(t + 1) - V(t + 1)), and the last position's is its search (the luck of the roll that
    ended the game is taken out too: the rolls that would not have ended it are scored by the
    network). Every luck term has mean zero under the network's own play, so with lambda 1
    this is a Monte Carlo return of that play without the variance of its dice, and with lambda 0
    the search label. Clipped to [0, 1], as the network's outputs are."""
    targets = np.empty_like(searched)
    targets[-1] = searched[-1]
    for t in range(len(values) - 2, -1, -1):
        g_next, v_next = targets[t + 1], values[t + 1]
        if sides[t + 1] != sides[t]:
            g_next, v_next = flip(g_next), flip(v_next)
        targets[t] = searched[t] + lam * (g_next - v_next)
    return np.clip(targets, 0.0, 1.0)


PLAY_SCORINGS = ("money", "single")


def mover_equity(p: np.ndarray, scoring: str = "money") -> np.ndarray:
    """What self-play's mover weighs the afterstates by (``p``: five outputs a row): money
    equity (gammons and backgammons count) or, with ``scoring`` "single", single-game equity
    (only winning counts, as at double match point)."""
    if scoring == "single":
        return 2.0 * p[:, 0] - 1.0
    return 2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def _forward(weights: list[tuple[np.ndarray, ...]], x: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The network's outputs for the rows of ``x`` (numpy in and out, no autograd). Most of
    self-play's time is spent here; torch's matrix products and fused sigmoid make a worker's
    self-play about 1.7 times as fast as numpy's did (``benchmarks/bench_backgammon_selfplay.py``)."""
    torch = require_torch()
    x_t = torch.from_numpy(np.ascontiguousarray(x, np.float32))
    classes = features.network_classes(classes, len(weights))
    out = torch.empty((len(x), OUTPUTS), dtype=torch.float32)
    with torch.no_grad():
        for k, layers in enumerate(weights):
            rows = torch.from_numpy(np.flatnonzero(classes == k))
            if not len(rows):
                continue
            w1, b1, w2, b2 = (torch.from_numpy(a) for a in layers[:4])
            h = torch.sigmoid(torch.addmm(b1, x_t.index_select(0, rows)[:, :w1.shape[1]], w1.T))
            logits = torch.addmm(b2, h, w2.T)
            if len(layers) > 4:  # the second layer's term (ContactRaceNet's hidden2)
                w3, b3, w4 = (torch.from_numpy(a) for a in layers[4:])
                logits += torch.relu(torch.addmm(b3, h, w3.T)) @ w4.T
            out[rows] = torch.sigmoid(logits)
    return out.numpy()


def numpy_weights(model) -> list[tuple[np.ndarray, ...]]:
    """Each class's weights as numpy arrays: ``(w1, b1, w2, b2)``, then ``(w3, b3, w4)`` with a
    second layer."""
    weights = []
    for k, net in enumerate(model.nets):
        params = [net[0].weight, net[0].bias, net[2].weight, net[2].bias]
        if model.hidden2:
            params += [model.second[k][0].weight, model.second[k][0].bias, model.second[k][2].weight]
        weights.append(tuple(p.detach().cpu().numpy().copy() for p in params))
    return weights


class _Mover:
    """The greedy 1-ply player of many games at once, with its scratch buffers: each call moves
    every rolled game (``expand``), scores the afterstates in one forward pass and takes the
    mover's pick (``choose``)."""

    def __init__(self, weights: list[tuple[np.ndarray, ...]], capacity: int = 4096 * 4,
                 scoring: str = "money") -> None:
        if scoring not in PLAY_SCORINGS:
            raise ValueError(f"scoring must be one of {PLAY_SCORINGS}, not {scoring!r}")
        self.weights = weights
        self.scoring = scoring
        self.buffer = np.zeros((capacity, rules.STATE_SIZE), np.int64)
        self.owner = np.zeros(capacity, np.int64)
        self.tmp_out = np.zeros((rules.MAX_AFTERSTATES, rules.STATE_SIZE), np.int64)
        self.tmp_paths = np.zeros((rules.MAX_AFTERSTATES, 4), np.int64)
        self.undo = np.zeros(max(rules.STATE_SIZE, 64), np.int64)

    def move(self, states: np.ndarray) -> dict[str, np.ndarray]:
        """Moves every game of ``states`` that waits for its mover (in place; finished games stay);
        returns the afterstate rows, the row each game took (``best``, -1: none), the rows' inputs,
        classes, outputs (from the view of the side to move next), that side, the points of rows
        that end the game, each row's game (``owner``) and the equity the mover weighed it by."""
        count = expand(states, self.buffer, self.owner, self.tmp_out, self.tmp_paths)
        while count < 0:
            self.buffer = np.zeros((2 * len(self.buffer), rules.STATE_SIZE), np.int64)
            self.owner = np.zeros(len(self.buffer), np.int64)
            count = expand(states, self.buffer, self.owner, self.tmp_out, self.tmp_paths)
        rows = self.buffer[:count]
        terminal = np.where(rows[:, 0] == TERMINAL, rows[:, rules.POINTS], 0)
        mover = features.next_mover(rows)
        x, classes = features.encode(rows, mover)
        p = _forward(self.weights, x, classes)
        best = np.zeros(len(states), np.int64)
        equity = mover_equity(p.astype(np.float64), self.scoring)
        choose(self.owner[:count], count, equity, terminal, len(states), best)
        taken = np.flatnonzero(best >= 0)
        states[taken] = rows[best[taken]]
        return {"rows": rows, "best": best, "x": x, "classes": classes, "p": p, "mover": mover,
                "terminal": terminal, "owner": self.owner[:count], "equity": equity}


EXPLORE_TOP = 3
"""An exploring move is drawn from this many of the mover's next-best plays."""


def explore(step: dict[str, np.ndarray], rng: np.random.Generator, share: float) -> np.ndarray:
    """The row each game of a ``_Mover.move`` step takes when a ``share`` of the moves explore:
    with that chance a game whose best play does not end it takes instead one of its
    ``EXPLORE_TOP`` next-best plays that do not end it either (drawn evenly; the best where it has
    none), else its best (-1 where a game did not move). The step's ``best`` stays the greedy
    play, whose value the previous position's TD(0) target keeps."""
    best, owner, equity, terminal = step["best"], step["owner"], step["equity"], step["terminal"]
    taken = best.copy()
    draws = rng.random(len(best))
    for g in np.flatnonzero((best >= 0) & (draws < share)):
        if terminal[best[g]] > 0:
            continue
        rows = np.flatnonzero((owner == g) & (terminal == 0))
        rows = rows[rows != best[g]]
        if len(rows):
            nearest = rows[np.argsort(equity[rows], kind="stable")[:EXPLORE_TOP]]
            taken[g] = nearest[rng.integers(len(nearest))]
    return taken


def rollout_targets(weights: list[tuple[np.ndarray, ...]], afterstates: np.ndarray, horizon: int, trials: int,
                    rng: np.random.Generator, scoring: str = "money", luck_free: bool = False) -> np.ndarray:
    """Truncated-rollout labels of positions waiting for a roll, from the next mover's view (as
    ``search_targets``): each of the 21 rolls of the next mover is played out ``trials`` times by
    the greedy 1-ply network for ``horizon`` moves (the later rolls drawn from ``rng``), and each
    trial ends in the game's result or, where the game goes on, the network's outputs there; the
    trials are averaged with the first roll's chance (the first roll stratified, so its luck adds
    no variance).

    With ``luck_free`` the luck of every later roll is taken out as well (gnubg's variance
    reduction in rollouts): before each drawn roll the position is searched 1 ply deep (its
    value averaged over every roll), and what the drawn roll's move is worth beyond that is
    subtracted from the trial. Each such term has mean zero under the network's own play, so the
    label's expectation is unchanged (up to the clipping to [0, 1] at the end); what is left of a trial is the 1-ply search of its first
    position plus the network's own search-minus-value differences along the way (so a horizon
    of 2 gives the 2-ply value, the same for any dice). It costs a 1-ply search a move: about
    thirty times a plain rollout's CPU (docs/backgammon_experiments.md)."""
    afterstates = np.ascontiguousarray(afterstates, np.int64)
    if len(afterstates) == 0:
        return np.zeros((0, OUTPUTS), np.float64)
    if (afterstates[:, rules.PLAYER] != CHANCE).any() or (afterstates[:, rules.ROLLS] == 0).any():
        raise ValueError("rollout_targets labels positions waiting for a roll after the opening")
    if horizon < 1 or trials < 1:
        raise ValueError(f"a rollout needs a horizon and trials of at least 1, not {horizon} and {trials}")
    per = 21
    rolled = np.zeros((len(afterstates) * per, rules.STATE_SIZE), np.int64)
    probs = np.zeros(len(rolled), np.float64)
    mover = _Mover(weights, scoring=scoring)
    roll_every_way(afterstates, rolled, probs, mover.undo)
    live = np.flatnonzero(probs > 0)
    states = np.repeat(rolled[live], trials, axis=0)
    weight = np.repeat(probs[live], trials) / trials
    source = np.repeat(live // per, trials)
    roller = features.next_mover(afterstates)[source]
    luck = np.zeros((len(states), OUTPUTS), np.float64)  # the drawn rolls' luck, in ``roller``'s view
    for step in range(horizon):
        going = np.flatnonzero(states[:, 0] != TERMINAL) if step and luck_free else np.zeros(0, np.int64)
        if len(going):  # the 1-ply search before the roll: the value of the turn averaged over every roll
            on_roll = features.next_mover(states[going])
            searched = search_targets(weights, states[going], scoring)
        if step:  # the first roll is the stratified one
            roll(states, rng.random(len(states)), mover.undo)
        mover.move(states)
        if len(going):  # what the drawn roll's move is worth beyond that average
            after = _values_of(weights, states[going], on_roll)
            luck[going] += _turned(after, on_roll, roller[going]) - _turned(searched, on_roll, roller[going])
    values = _values_of(weights, states, roller)
    if luck_free:
        values = np.clip(values - luck, 0.0, 1.0)
    targets = np.zeros((len(afterstates), OUTPUTS), np.float64)
    np.add.at(targets, source, values * weight[:, None])
    return targets


def _turned(v: np.ndarray, view: np.ndarray, to: np.ndarray) -> np.ndarray:
    """Rows of five outputs in seat ``view[i]``'s view, turned to seat ``to[i]``'s."""
    return np.where((view == to)[:, None], v, flip(v))


def _values_of(weights: list[tuple[np.ndarray, ...]], states: np.ndarray, view: np.ndarray) -> np.ndarray:
    """Seat ``view[i]``'s five outputs of each position: the result where the game is over, else the
    network's value (given from the view of the side to move next)."""
    values = np.zeros((len(states), OUTPUTS), np.float64)
    over = states[:, 0] == TERMINAL
    going = np.flatnonzero(~over)
    if len(going):
        side = features.next_mover(states[going])
        x, classes = features.encode(states[going], side)
        values[going] = _turned(_forward(weights, x, classes).astype(np.float64), side, view[going])
    for k in np.flatnonzero(over):
        values[k] = outcome_vector(states[k], int(view[k]))
    return values


def play_games(weights: list[tuple[np.ndarray, ...]], games: int, seed: Any, lam: float,
               parallel: int = 64, targets: str = "td", label_share: float = 1.0, horizon: int = 10,
               trials: int = 1, scoring: str = "money", explore_share: float = 0.0) -> dict[str, np.ndarray]:
    """``games`` self-play games, ``parallel`` at a time: every position taken, its class and its
    target (``targets``: "td", the TD(lambda) return; "search", the network's 1-ply search of the
    position, ``search_targets``; "rollout", ``rollout_targets`` of ``horizon`` moves and
    ``trials`` trials per roll; these two for a random ``label_share`` of the positions, the
    others being left out; "variance-reduced", ``luck_free_returns`` of every position), plus the games' lengths and points. Both sides move by ``scoring``'s
    equity (``mover_equity``); the targets keep all five outcomes whatever it is. With an
    ``explore_share`` (TD(0) only) that share of the moves takes one of the next-best plays
    (``explore``): the position taken is learned from, and the position before it keeps the
    greedy play's value as its target, so the targets stay those of greedy play."""
    if explore_share and (targets != "td" or lam != 0.0):
        raise ValueError("exploring self-play learns by TD(0) only (targets 'td', lambda 0): a longer "
                         "return would carry the exploring moves' luck into the targets")
    rng = np.random.default_rng(seed)
    parallel = min(parallel, games)
    states = np.stack([rules.initial_array(1) for _ in range(parallel)])
    mover = _Mover(weights, scoring=scoring)
    traj_x: list[list[np.ndarray]] = [[] for _ in range(parallel)]
    traj_c: list[list[int]] = [[] for _ in range(parallel)]
    traj_v: list[list[np.ndarray]] = [[] for _ in range(parallel)]
    traj_side: list[list[int]] = [[] for _ in range(parallel)]
    traj_s: list[list[np.ndarray]] = [[] for _ in range(parallel)]
    out_x, out_c, out_t, lengths, points = [], [], [], [], []
    started = parallel
    finished = 0
    while finished < games:
        roll(states, rng.random(parallel), mover.undo)
        step = mover.move(states)
        rows, best, x, classes, p, terminal = (step[k] for k in ("rows", "best", "x", "classes", "p", "terminal"))
        taken = best
        if explore_share:  # no draws otherwise: runs without exploring keep their games
            taken = explore(step, rng, explore_share)
            moved = np.flatnonzero(taken != best)
            states[moved] = rows[taken[moved]]
        for g in range(parallel):
            k = taken[g]
            if k < 0:
                continue
            if terminal[k] > 0:  # the game is over: its positions get their targets
                if traj_x[g]:
                    sides = np.array(traj_side[g])
                    final = outcome_vector(rows[k], int(sides[-1]))
                    if targets in ("td", "variance-reduced"):
                        values = np.stack(traj_v[g]).astype(np.float64)
                        returns = (lambda_returns(values, sides, final, lam) if targets == "td" else
                                   luck_free_returns(values, search_targets(weights, np.stack(traj_s[g]), scoring),
                                                     sides, lam))
                        out_x.append(np.stack(traj_x[g]))
                        out_c.append(np.array(traj_c[g], np.int8))
                        out_t.append(returns.astype(np.float32))
                    else:
                        keep = np.flatnonzero(rng.random(len(traj_s[g])) < label_share)
                        chosen = np.stack(traj_s[g])[keep]
                        labels = (search_targets(weights, chosen, scoring) if targets == "search"
                                  else rollout_targets(weights, chosen, horizon, trials, rng, scoring))
                        out_x.append(np.stack(traj_x[g])[keep])
                        out_c.append(np.array(traj_c[g], np.int8)[keep])
                        out_t.append(labels.astype(np.float32))
                lengths.append(len(traj_x[g]))
                points.append(int(rows[k, rules.POINTS]))
                finished += 1
                traj_x[g], traj_c[g], traj_v[g], traj_side[g], traj_s[g] = [], [], [], [], []
                if started < games:
                    states[g] = rules.initial_array(1)
                    started += 1
                continue
            traj_x[g].append(x[k])
            traj_c[g].append(int(classes[k]))
            traj_v[g].append(p[best[g]])  # the greedy play's value: the previous position's target
            traj_side[g].append(int(step["mover"][k]))  # the same side as the greedy row's: neither ends the game
            if targets != "td":
                traj_s[g].append(rows[k].copy())
    return {"x": np.concatenate(out_x), "classes": np.concatenate(out_c), "targets": np.concatenate(out_t),
            "lengths": np.array(lengths), "points": np.array(points)}


# ----- worker processes ------------------------------------------------------------------------
def _worker_round(job: tuple) -> dict[str, np.ndarray]:
    from threadpoolctl import threadpool_limits

    require_torch().set_num_threads(1)  # one thread a worker: the workers fill the cores
    weights, games, seed, lam, targets, label_share, horizon, trials, scoring, explore_share = job
    # numpy's BLAS on one thread too: its sums then do not depend on how many threads a backend
    # gives a worker (Ray gives one, a forked process as many as the cores), so a seed trains
    # the same network on both
    with threadpool_limits(limits=1, user_api="blas"):
        return play_games(weights, games, seed, lam, targets=targets, label_share=label_share, horizon=horizon,
                          trials=trials, scoring=scoring, explore_share=explore_share)


# ----- the recipe --------------------------------------------------------------------------------
TARGET_LABELS = {"td": "TD(lambda)", "search": "search labels", "rollout": "rollout labels",
                 "variance-reduced": "luck-free returns"}
TARGETS = tuple(TARGET_LABELS)
FIELDS = ["games", "round", "positions", "loss", "race_share", "moves_per_game", "gammon_rate",
          "seconds", "games_per_second"]
_FIXED = ("lam", "seed", "workers", "round_games", "batch", "horizon", "trials", "epochs", "play_scoring",
          "explore", "new_unit_step")
# what runs made before these settings existed used
_FIXED_DEFAULTS = {"horizon": 10, "trials": 1, "epochs": 1, "play_scoring": "money", "explore": 0.0,
                   "new_unit_step": 1.0}
MAX_UNIT_STEP = 1000.0
_HELP = __doc__


def evaluate(weights: Path, opponent: str, games: int, seed: int, workers: int) -> tuple[float, int]:
    """Share of games the 1-ply network wins against ``opponent`` (single-game scoring, seats
    swapped in pairs)."""
    return score_against(GAME, f"expectiminimax:depth=1,eval={weights}", [opponent], games, seed, workers,
                         win=lambda points: points > 0)


def _fit(model, optimizer, torch, data: dict[str, np.ndarray], batch: int, rng: np.random.Generator,
         epochs: int = 1, unit_steps: ScaledUnitSteps | None = None) -> float:
    x = torch.from_numpy(data["x"])
    classes = torch.from_numpy(data["classes"].astype(np.int64))
    targets = torch.from_numpy(data["targets"])
    order = np.concatenate([rng.permutation(len(x)) for _ in range(epochs)])
    total, steps = 0.0, 0
    for start in range(0, len(order), batch):
        rows = torch.from_numpy(order[start:start + batch])
        logits = model.logits(x[rows], classes[rows])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, targets[rows])
        optimizer.zero_grad()
        loss.backward()
        if unit_steps is None:
            optimizer.step()
        else:
            unit_steps.step(optimizer)
        total += loss.item()
        steps += 1
    return total / max(steps, 1)


WIDEN_KINDS = ("zero", "split", "random")


class ScaledUnitSteps:
    """Makes the optimiser's steps on the hidden units from ``first`` on ``scale`` times as large
    as on the others: their input weights and biases, and their weights into the outputs and the
    second layer. Adam has one step size per tensor, and these units are rows and columns of the
    same tensors as the old ones, so each step's change to them is multiplied afterwards; Adam
    normalises each gradient by its own size, so this is a per-weight step size."""

    def __init__(self, model, first: int, scale: float) -> None:
        self.scale = float(scale)
        rows, columns = (slice(first, None),), (slice(None), slice(first, None))
        self.parts = []  # (parameter, the index of the new units' part of it)
        for k, net in enumerate(model.nets):
            self.parts += [(net[0].weight, rows), (net[0].bias, rows), (net[2].weight, columns)]
            if model.hidden2:
                self.parts.append((model.second[k][0].weight, columns))

    def step(self, optimizer) -> None:
        torch = require_torch()
        with torch.no_grad():
            before = [param[index].clone() for param, index in self.parts]
        optimizer.step()
        with torch.no_grad():
            for (param, index), old in zip(self.parts, before):
                param[index] = old + self.scale * (param[index] - old)


def widen_into(model, source, widen: str = "zero", seed: int = 0, noise: float = 0.01) -> None:
    """Copy ``source``'s networks into ``model``'s first hidden units and first inputs (a
    two-class ``source``'s contact network into a three-class ``model``'s crashed network too,
    which then starts where the contact network stands); the other units keep their random input weights and get zero outgoing
    weights, and the other inputs get zero weights into the copied units, so ``model`` computes
    what ``source`` computes (and the new units and inputs learn from the first step on). A
    second layer (``hidden2``) is copied when ``source`` has one of the same size, with zero
    weights from any new hidden units; one that ``source`` lacks keeps its random weights and its
    zero output weights.

    ``widen="split"`` fills the new hidden units by splitting the copied ones instead (Net2Net's
    widening): new unit ``j`` copies unit ``j mod H`` of the source's ``H``, with Gaussian noise of
    ``noise`` times that unit's weight spread on its input weights so the copies can part, and
    each copied unit's outgoing weights are shared out equally among its copies. The new units get
    gradients from the first step (zero outgoing weights leave them untrained: their input
    weights' gradients are proportional to those weights); the outputs move only by the noise.
    At a small Adam step the copies move with their originals and part only slowly.

    ``widen="random"`` keeps the new units' outgoing weights at zero, as ``"zero"`` does, but draws
    their input weights at the copied units' spread (each input's own) and their biases from the
    copied units' biases, so that they respond to the position from the start rather than sit
    near the middle of their sigmoid."""
    torch = require_torch()
    if widen not in WIDEN_KINDS:
        raise ValueError(f"--widen is one of {', '.join(WIDEN_KINDS)}, not {widen!r}")
    if getattr(source, "arch", None) != model.arch:
        raise ValueError(f"--init-from needs a {model.arch!r} network, not {getattr(source, 'arch', None)!r}")
    small, big = source.config["hidden"], model.config["hidden"]
    if small > big:
        raise ValueError(f"--init-from has {small} hidden units, more than --hidden {big}")
    if source.inputs > model.inputs:
        raise ValueError(f"--init-from reads {source.inputs} inputs, more than --inputs {model.inputs}")
    if len(source.nets) > len(model.nets):
        raise ValueError(f"--init-from has {len(source.nets)} classes, more than --classes {len(model.nets)}")
    if widen == "split" and big == small:
        raise ValueError(f"--widen split needs more --hidden than the {small} units of --init-from's network")
    if source.hidden2 and source.hidden2 != model.hidden2:
        raise ValueError(f"--init-from has a second layer of {source.hidden2} units: the new network "
                         f"needs the same (--hidden2 {source.hidden2})")
    # each of the model's classes from the source's network of that class, or its contact one
    sources = [k if k < len(source.nets) else features.CONTACT for k in range(len(model.nets))]
    with torch.no_grad():
        for k, new in zip(sources, model.nets):
            old = source.nets[k]
            new[0].weight[:small] = 0.0
            new[0].weight[:small, :source.inputs] = old[0].weight
            new[0].bias[:small] = old[0].bias
            new[2].weight.zero_()
            new[2].weight[:, :small] = old[2].weight
            new[2].bias.copy_(old[2].bias)
        if source.hidden2:  # else a new second layer keeps the zero output weights it was built with
            for k, new in zip(sources, model.second):
                old = source.second[k]
                new[0].weight.zero_()  # the new hidden units feed the second layer nothing at first
                new[0].weight[:, :small] = old[0].weight
                new[0].bias.copy_(old[0].bias)
                new[2].weight.copy_(old[2].weight)
        if widen == "split":
            _split_new_units(model, small, torch.Generator().manual_seed(seed), noise)
        elif widen == "random" and big > small:
            _draw_new_units(model, small, torch.Generator().manual_seed(seed))


def _draw_new_units(model, small: int, generator) -> None:
    """``widen_into``'s random: the input weights of units ``small`` on drawn from a normal
    distribution with each input's spread over the copied units, their biases from the copied
    units' biases."""
    torch = require_torch()
    big = model.config["hidden"]
    with torch.no_grad():
        for net in model.nets:
            copied = net[0].weight[:small]
            spread = copied.std(dim=0, keepdim=True) if small > 1 else copied.abs()
            net[0].weight[small:] = spread * torch.randn((big - small, copied.shape[1]), generator=generator)
            pick = torch.randint(0, small, (big - small,), generator=generator)
            net[0].bias[small:] = net[0].bias[pick]


def _split_new_units(model, small: int, generator, noise: float) -> None:
    """``widen_into``'s split: unit ``j >= small`` becomes a noisy copy of unit ``j % small``, and
    the weights out of each original unit (to the outputs and the second layer) are divided among
    its copies, so the sum they feed forward is unchanged."""
    torch = require_torch()
    big = model.config["hidden"]
    origin = torch.arange(big) % small
    copies = torch.bincount(origin, minlength=small).to(torch.float32)
    new_units = torch.arange(small, big)
    with torch.no_grad():
        for k, net in enumerate(model.nets):
            rows = net[0].weight[origin[new_units]]
            spread = rows.std(dim=1, keepdim=True)
            net[0].weight[new_units] = rows + noise * spread * torch.randn(rows.shape, generator=generator)
            net[0].bias[new_units] = net[0].bias[origin[new_units]]
            outgoing = [net[2].weight] + ([model.second[k][0].weight] if model.hidden2 else [])
            for weight in outgoing:
                weight.copy_(weight[:, origin] / copies[origin])


def _opponents(args: argparse.Namespace) -> list[str]:
    return [o.strip() for o in args.opponent.split(",") if o.strip()]


class BackgammonRecipe(Recipe):
    """The training engine's configuration for backgammon (module docstring)."""

    arch = ARCH
    step_field = "games"
    worker = staticmethod(_worker_round)
    help = _HELP

    def add_arguments(self, p: argparse.ArgumentParser, game: Any) -> None:
        p.add_argument("--games", type=int, default=1_000_000,
                       help="self-play games in total (rounded up to whole rounds: workers x round games)")
        p.add_argument("--hidden", type=int, default=128, help="hidden units of each network")
        p.add_argument("--hidden2", type=int, default=0,
                       help="ReLU units of a second layer over the hidden units (0: none), adding its term to "
                            "the outputs; with --init-from a one-layer network it starts with zero output "
                            "weights, so the network plays as the one it grew from at first")
        p.add_argument("--classes", type=int, default=2, choices=features.NETWORK_CLASSES,
                       help="networks chosen by the position: 2 (contact, race) or 3 (and crashed: a side "
                            "with at most six checkers in play); with --init-from a two-class network the "
                            "crashed network starts as a copy of its contact network")
        p.add_argument("--inputs", type=int, default=features.INPUT_SIZE,
                       choices=features.INPUT_WIDTHS,
                       help=f"inputs the networks read: all {features.INPUT_SIZE}, or the first "
                            f"{features.CONTACT_INPUTS} (before the double shots and containment, as "
                            f"eval=cr2240k) or {features.BASE_INPUTS} (before the contact inputs); "
                            "to resume older runs")
        p.add_argument("--lr", type=float, default=1e-3, help="Adam's step size")
        p.add_argument("--lam", type=float, default=0.7, help="TD(lambda)'s lambda")
        p.add_argument("--targets", choices=TARGETS, default="td",
                       help="td: TD(lambda) returns; search: each position's 1-ply search by the current "
                            "network (labels of far less variance, about 15x the CPU a labelled game); "
                            "rollout: truncated rollouts of the current network (--horizon, --trials); "
                            "variance-reduced: TD(lambda) returns with the dice's luck taken out by a 1-ply "
                            "search at every position (lambda 1: Monte Carlo returns of the network's play "
                            "without the variance of the dice; about 15x the CPU a game)")
        p.add_argument("--label-share", type=float, default=1.0,
                       help="with --targets search or rollout: the share of positions labelled and learned from")
        p.add_argument("--horizon", type=int, default=_FIXED_DEFAULTS["horizon"],
                       help="with --targets rollout: moves a rollout plays before the network scores it")
        p.add_argument("--trials", type=int, default=_FIXED_DEFAULTS["trials"],
                       help="with --targets rollout: rollouts for each of the 21 first rolls")
        p.add_argument("--epochs", type=int, default=_FIXED_DEFAULTS["epochs"],
                       help="passes of Adam over each round's positions")
        p.add_argument("--play-scoring", choices=PLAY_SCORINGS, default=_FIXED_DEFAULTS["play_scoring"],
                       help="the equity self-play moves by: money (gammons count, as TD-Gammon) or single "
                            "(only winning counts, as at double match point); the networks learn all five "
                            "outcomes either way")
        p.add_argument("--explore", type=float, default=_FIXED_DEFAULTS["explore"],
                       help=f"share of self-play moves that take one of the {EXPLORE_TOP} next-best plays "
                            "instead of the best (TD(0) only: --lam 0): the network then also learns the "
                            "positions it would not choose, each position before such a move keeping the "
                            "greedy play's value as its target")
        p.add_argument("--batch", type=int, default=256, help="positions per gradient step")
        p.add_argument("--round-games", type=int, default=50, help="games each worker plays per round")
        p.add_argument("--checkpoint-every", type=int, default=2000, help="games between checkpoints")
        p.add_argument("--eval-every", type=int, default=50_000, help="games between evaluations (0: none)")
        p.add_argument("--eval-games", type=int, default=400, help="games against each opponent")
        p.add_argument("--opponent", default=DEFAULT_OPPONENTS,
                       help="comma-separated agent specs to evaluate against")
        p.add_argument("--init-from", type=Path,
                       help="a new run starts from this network (weights or checkpoint, as many or fewer "
                            "hidden units and inputs; one with a second layer needs the same --hidden2): its "
                            "units are copied, extra units start with zero outgoing weights, "
                            "extra inputs with zero weights and a new second layer with zero output weights, "
                            "so the new network plays exactly as the old one at first")
        p.add_argument("--widen", choices=WIDEN_KINDS, default="zero",
                       help="with --init-from a network of fewer hidden units: 'zero' (new units start "
                            "with zero outgoing weights) or 'split' (each new unit a noisy copy of an old "
                            "one, which shares its outgoing weights with it: the new units get gradients at "
                            "once, though at a small step the copies stay close to their originals) or "
                            "'random' (zero outgoing weights, input weights drawn at the old units' spread)")
        p.add_argument("--new-unit-step", type=float, default=_FIXED_DEFAULTS["new_unit_step"],
                       help="with --init-from a network of fewer hidden units: the new units' weights (in and "
                            "out) step this many times --lr, so that they learn at a larger step than the "
                            "trained units they join")

    def check_args(self, game: Any, args: argparse.Namespace) -> None:
        for name in ("games", "hidden", "batch", "round_games", "checkpoint_every", "eval_games", "horizon", "trials",
                     "epochs"):
            if getattr(args, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, not {getattr(args, name)}")
        if args.eval_every < 0:
            raise ValueError("--eval-every must be 0 (no evaluation) or more")
        if not 0 <= args.hidden2 <= features.MAX_WIDTH:
            raise ValueError(f"--hidden2 must lie in [0, {features.MAX_WIDTH}], not {args.hidden2}")
        if not 0.0 < args.label_share <= 1.0:
            raise ValueError(f"--label-share must lie in (0, 1], not {args.label_share}")
        if args.targets in ("td", "variance-reduced") and args.label_share != 1.0:
            raise ValueError("--label-share applies to --targets search and rollout only")
        if args.targets != "rollout" and (args.horizon, args.trials) != (_FIXED_DEFAULTS["horizon"],
                                                                         _FIXED_DEFAULTS["trials"]):
            raise ValueError("--horizon and --trials apply to --targets rollout only")
        if not 0.0 <= args.lam <= 1.0:
            raise ValueError(f"--lam must lie in [0, 1], not {args.lam}")
        if not 0.0 < args.lr < 1.0:
            raise ValueError(f"--lr must lie in (0, 1), not {args.lr}")
        if not 0.0 <= args.explore < 1.0:
            raise ValueError(f"--explore must lie in [0, 1), not {args.explore}")
        if args.explore and (args.targets != "td" or args.lam != 0.0):
            raise ValueError("--explore needs --targets td and --lam 0 (TD(0)): a longer return would carry "
                             "the exploring moves' luck into the targets")
        if args.widen != "zero" and args.init_from is None:
            raise ValueError("--widen applies to a run that starts --init-from a network")
        if not 0.0 < args.new_unit_step <= MAX_UNIT_STEP:
            raise ValueError(f"--new-unit-step must lie in (0, {MAX_UNIT_STEP:g}], not {args.new_unit_step}")

    def arch_config(self, game: Any, args: argparse.Namespace) -> dict[str, Any]:
        return ContactRaceNet(hidden=args.hidden, inputs=args.inputs, hidden2=args.hidden2, classes=args.classes).config

    def new_model(self, game: Any, arch_config: dict[str, Any]):
        return ContactRaceNet(**arch_config)

    def config(self, args: argparse.Namespace) -> dict[str, Any]:
        return {k: getattr(args, k) for k in ("games", "hidden", "inputs", "hidden2", "classes", "lr", "lam", "batch", "seed", "workers",
                                              "round_games", "eval_every", "eval_games", "opponent", "targets",
                                              "label_share", "horizon", "trials", "epochs", "play_scoring",
                                              "explore", "new_unit_step")}

    def new_progress(self) -> dict[str, Any]:
        return {"games": 0, "round": 0, "positions": 0, "seconds": 0.0}

    def resumed_config(self, run: Run, stored: dict[str, Any]) -> dict[str, Any]:
        args, config = run.args, run.config
        for key, value in _FIXED_DEFAULTS.items():
            stored.setdefault(key, value)
        check_kept(run, stored, _FIXED)
        stored.setdefault("targets", "td")
        stored.setdefault("label_share", 1.0)
        new_targets = (args.targets, args.label_share) != (stored["targets"], stored["label_share"])
        if args.lr != stored["lr"] or new_targets:
            # a new step size or kind of target from here on, recorded in the config
            run.set_lr(args.lr)
            games = run.progress["games"]
            stored.setdefault("first_lr", stored["lr"])
            stored["lr_changes"] = [*stored.get("lr_changes", []), [games, args.lr]]
            if new_targets:
                stored.setdefault("first_targets", [stored["targets"], stored["label_share"]])
                stored["targets_changes"] = [*stored.get("targets_changes", []),
                                             [games, args.targets, args.label_share]]
        return {**stored, **{k: config[k] for k in ("games", "lr", "eval_every", "eval_games", "opponent",
                                                     "targets", "label_share")}}

    def start_fresh(self, run: Run) -> None:
        if run.args.new_unit_step != 1.0 and run.args.init_from is None:
            raise ValueError("--new-unit-step applies to a run that starts --init-from a network")
        if run.args.init_from is not None:
            source = load_value_net(run.args.init_from, GAME)
            if run.args.new_unit_step != 1.0 and source.config["hidden"] >= run.args.hidden:
                raise ValueError(f"--new-unit-step needs more --hidden than the {source.config['hidden']} units "
                                 "of --init-from's network: it sets the step of the new units")
            widen_into(run.model, source, run.args.widen, run.args.seed)
            run.optimizer = self.new_optimizer(run.model, run.args)
            run.config["init_from"] = str(run.args.init_from)
            if run.args.widen != "zero":
                run.config["widen"] = run.args.widen
            if run.args.new_unit_step != 1.0:
                run.config["new_units_from"] = source.config["hidden"]

    def total(self, args: argparse.Namespace) -> int:
        return args.games

    def fields(self, args: argparse.Namespace) -> list[str]:
        return FIELDS + rate_fields(_opponents(args))

    def bar_label(self, game: Any, args: argparse.Namespace) -> str:
        return f"backgammon {TARGET_LABELS[args.targets]}"

    def open(self, run: Run) -> None:
        run.state["window"] = self._new_window(run.progress["games"])
        step = run.config.get("new_unit_step", 1.0)
        run.state["unit_steps"] = (ScaledUnitSteps(run.model, run.config["new_units_from"], step)
                                   if step != 1.0 else None)

    @staticmethod
    def _new_window(games: int) -> dict[str, Any]:
        """What the next metrics row averages over (the rounds since the last row)."""
        return {"loss": 0.0, "rounds": 0, "positions": 0, "race": 0, "moves": 0, "games": 0, "gammons": 0,
                "t0": time.perf_counter(), "g0": games}

    def play_round(self, run: Run) -> dict[str, Any] | None:
        args, progress, window = run.args, run.progress, run.state["window"]
        per_round = args.workers * args.round_games
        weights = numpy_weights(run.model)
        jobs = [(weights, args.round_games, (args.seed, progress["round"], w), args.lam, args.targets,
                 args.label_share, args.horizon, args.trials, args.play_scoring, args.explore)
                for w in range(args.workers)]
        results = run.rounds(jobs)
        data = {k: np.concatenate([r[k] for r in results]) for k in results[0]}
        loss = _fit(run.model, run.optimizer, run.torch, data, args.batch, run.rng, args.epochs,
                    run.state["unit_steps"])
        progress["round"] += 1
        progress["games"] += per_round
        progress["positions"] += len(data["x"])
        window["loss"] += loss
        window["rounds"] += 1
        window["positions"] += len(data["x"])
        window["race"] += int((data["classes"] == features.RACE).sum())
        window["moves"] += int(data["lengths"].sum())
        window["games"] += per_round
        window["gammons"] += int((data["points"] >= 2).sum())
        games = progress["games"]
        if not (games % args.checkpoint_every < per_round or self._evaluating(args, games) or games >= args.games):
            return None
        progress["seconds"] = run.elapsed()
        elapsed = time.perf_counter() - window["t0"]
        row = {"games": games, "round": progress["round"], "positions": progress["positions"],
               "loss": round(window["loss"] / max(window["rounds"], 1), 5),
               "race_share": round(window["race"] / max(window["positions"], 1), 4),
               "moves_per_game": round(window["moves"] / max(window["games"], 1), 2),
               "gammon_rate": round(window["gammons"] / max(window["games"], 1), 4),
               "seconds": round(progress["seconds"], 1),
               "games_per_second": round((games - window["g0"]) / max(elapsed, 1e-9), 1)}
        run.state["window"] = self._new_window(games)
        return row

    @staticmethod
    def _evaluating(args: argparse.Namespace, games: int) -> bool:
        return bool(args.eval_every) and games % args.eval_every < args.workers * args.round_games

    def evaluation_due(self, run: Run, row: dict[str, Any]) -> bool:
        return self._evaluating(run.args, row["games"])

    def evaluate(self, run: Run, row: dict[str, Any]) -> dict[str, Any]:
        args, games = run.args, row["games"]
        snap = run.folder / "snapshots" / f"net_{games:08d}.pt"
        save_weights(run.model, snap, {"games": games, "seconds": row["seconds"]})
        columns: dict[str, Any] = {}
        for opponent in _opponents(args):
            try:
                rate, n = evaluate(snap, opponent, args.eval_games, args.seed + games, args.workers)
            except (ImportError, ValueError) as err:  # e.g. no gnubg-nn in this install
                print(f"evaluation against {opponent} skipped: {err}")
                continue
            columns.update(rate_columns(opponent_column(opponent), rate, n))
            run.bar.set_postfix({opponent: f"{rate:.3f}"})
        run.state["window"]["t0"] = time.perf_counter()  # games per second leave the evaluation out
        return columns

    def plot(self, run: Run) -> None:
        opponents = _opponents(run.args)
        first = opponent_column(opponents[0]) if opponents else ""
        plot_curve(run.folder / "metrics.csv", run.folder / "learning_curve.png", "games",
                   {opponent_column(o): f"1-ply net vs {o}" for o in opponents},
                   "Backgammon contact/race networks: win rate at 1 ply",
                   interval=(f"{first}_low", f"{first}_high") if opponents else None, ylabel="win rate")

    def card(self, run: Run) -> dict[str, Any]:
        rows = run.log.rows()
        return {"game": GAME, "arch": ARCH, "arch_config": run.arch_config,
                "command": _command(run.config),
                "self_play_games": run.progress["games"], "positions": run.progress["positions"],
                "training_seconds": round(run.progress["seconds"], 1), "workers": run.config["workers"],
                "final": rows[-1] if rows else {}}


RECIPE = BackgammonRecipe()


def _command(config: dict) -> str:
    """The command(s) that reproduce the run (one more ``--resume`` per change of step size)."""
    changes = config.get("targets_changes", [])
    share = config.get("label_share", 1.0)

    def targets_until(games: int) -> str:  # the targets of the stage that ends at ``games``
        first = config.get("first_targets", config.get("targets", "td")) if changes else config.get("targets", "td")
        kind, fraction = (first, share) if isinstance(first, str) else first
        for start, *changed_to in changes:
            if start < games:  # entries of [games, kind] come from runs whose share never changed
                kind, fraction = changed_to if len(changed_to) == 2 else (changed_to[0], share)
        if kind == "td":
            return ""
        if kind == "variance-reduced":
            return " --targets variance-reduced"
        rollout = f" --horizon {config['horizon']} --trials {config['trials']}" if kind == "rollout" else ""
        return f" --targets {kind} --label-share {fraction}{rollout}"

    epochs = f" --epochs {config['epochs']}" if config.get("epochs", 1) != 1 else ""
    scoring = config.get("play_scoring", "money")
    scoring = f" --play-scoring {scoring}" if scoring != "money" else ""
    extra_flags = f" --explore {config['explore']}" if config.get("explore", 0.0) else ""
    extra_flags += f" --new-unit-step {config['new_unit_step']:g}" if config.get("new_unit_step", 1.0) != 1.0 else ""
    shape = f" --hidden2 {config['hidden2']}" if config.get("hidden2") else ""
    shape += f" --classes {config['classes']}" if config.get("classes", 2) != 2 else ""
    command = staged_commands(config, lambda games, lr: (
        f"plies train backgammon --games {games} --hidden {config['hidden']} "
        f"--inputs {config.get('inputs', features.BASE_INPUTS)}{shape} --lr {lr} "
        f"--lam {config['lam']} --batch {config['batch']} --seed {config['seed']} "
        f"--workers {config['workers']} --round-games {config['round_games']}{epochs}{scoring}{extra_flags}{targets_until(games)}"))
    if config.get("init_from"):  # the first stage starts from that network
        first, sep, rest = command.partition(" && ")
        widen = f" --widen {config['widen']}" if config.get("widen", "zero") != "zero" else ""
        command = f"{first} --init-from {config['init_from']}{widen}{sep}{rest}"
    return command

