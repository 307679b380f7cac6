"""Dice Wars rules as numba kernels.

The state array's layout is ``SCHEMA`` below, for A areas with at most D neighbours each.

Player actions: attack ``source * A + target``, end turn ``A * A``.
Chance outcomes: at a battle 0 = the defender holds, 1 = the attacker wins; at a
reinforcement die, the area that receives it (uniform over own areas with fewer than 8 dice).
"""

import numpy as np
from numba import njit

from plies.games import kernels
from plies.games.batching import random_below
from plies.games.dice_wars.probabilities import ATTACK_WIN
from plies.games.game import Slot, SlotSchema
from plies.games.kernels import (
    APPLY_SIG,
    CHANCE,
    CHANCE_SIG,
    EVAL_SIG,
    HASH_SIG,
    LEGAL_SIG,
    OBSERVE_SIG,
    RESET_SIG,
    RETURNS_SIG,
    TERMINAL,
    UNDO_SIG,
    Kernels,
)

SCHEMA = SlotSchema(
    Slot("player", 1, "seat to move, `CHANCE` at a battle or a reinforcement die, `TERMINAL` when over"),
    Slot("num_players", 1, "number of players"),
    Slot("num_areas", 1, "number of areas A"),
    Slot("max_degree", 1, "D, the width of an adjacency row"),
    Slot("turn", 1, "seat whose turn it is"),
    Slot("phase", 1, "0 move, 1 battle, 2 reinforce, 3 over"),
    Slot("source", 1, "attacking area of the battle being resolved"),
    Slot("target", 1, "attacked area of the battle being resolved"),
    Slot("to_place", 1, "reinforcement dice still to place"),
    Slot("battles", 1, "battles fought this game"),
    Slot("passes", 1, "end-of-turns since the last battle"),
    Slot("attacks", 1, "attacks made this turn"),
    Slot("result", 1, "-1 running, the winning seat, or -2 cancelled"),
    Slot("turns", 1, "turns ended this game"),
    Slot("spare", 2, "unused"),
    Slot("reserve", 8, "reserve dice of each seat"),
    Slot("owners", "A", "owner of each area"),
    Slot("dice", "A", "dice on each area"),
    Slot("degree", "A", "number of neighbours of each area"),
    Slot("neighbours", "A * D", "neighbours of each area, ascending, padded with -1"),
)
(TO_MOVE, NUM_PLAYERS, NUM_AREAS, MAX_DEGREE, TURN, PHASE, SOURCE, TARGET, TO_PLACE, BATTLES, PASSES,
 ATTACKS, RESULT, TURNS, RESERVE, AREAS) = SCHEMA.offsets(
    "player", "num_players", "num_areas", "max_degree", "turn", "phase", "source", "target",
    "to_place", "battles", "passes", "attacks", "result", "turns", "reserve", "owners")
HEADER = AREAS

MAX_PLAYERS = 8
MAX_DICE = 8
START_DICE = 3
MAX_RESERVE = 64
MAX_BATTLES = 10_000
MAX_PASS_ROUNDS = 8

PHASE_MOVE = 0
PHASE_BATTLE = 1
PHASE_REINFORCE = 2
PHASE_OVER = 3

ONGOING = kernels.ONGOING
CANCELLED = kernels.NO_WINNER  # the one result convention (plies.games.kernels)

LOST = 0
WON = 1

UNDO_SIZE = HEADER + 6


def state_size(num_areas: int, max_degree: int) -> int:
    return AREAS + 3 * num_areas + num_areas * max_degree


def build_array(
    adjacency, owners: np.ndarray, dice: np.ndarray, num_players: int, first: int = 0
) -> np.ndarray:
    """A fresh state array for a map, ownership and dice, with ``first`` to move."""
    n = len(adjacency)
    width = max(1, max(len(a) for a in adjacency))
    state = np.zeros(state_size(n, width), np.int64)
    state[TO_MOVE] = first
    state[NUM_PLAYERS] = num_players
    state[NUM_AREAS] = n
    state[MAX_DEGREE] = width
    state[TURN] = first
    state[PHASE] = PHASE_MOVE
    state[SOURCE] = -1
    state[TARGET] = -1
    state[RESULT] = ONGOING
    state[AREAS : AREAS + n] = owners
    state[AREAS + n : AREAS + 2 * n] = dice
    for a, neigh in enumerate(adjacency):
        state[AREAS + 2 * n + a] = len(neigh)
        row = AREAS + 3 * n + a * width
        state[row : row + width] = -1
        state[row : row + len(neigh)] = sorted(neigh)
    return state


# ----- helpers ---------------------------------------------------------------------------
@njit(cache=True)
def area_count(state, player):
    n = state[NUM_AREAS]
    count = 0
    for a in range(n):
        if state[AREAS + a] == player:
            count += 1
    return count


@njit(cache=True)
def total_dice(state, player):
    n = state[NUM_AREAS]
    total = 0
    for a in range(n):
        if state[AREAS + a] == player:
            total += state[AREAS + n + a]
    return total


@njit(cache=True)
def largest_region(state, player):
    """Size of the largest connected group of ``player``'s areas."""
    n = state[NUM_AREAS]
    width = state[MAX_DEGREE]
    deg = AREAS + 2 * n
    adj = AREAS + 3 * n
    seen = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    best = 0
    for start in range(n):
        if seen[start] or state[AREAS + start] != player:
            continue
        seen[start] = True
        stack[0] = start
        top = 1
        size = 0
        while top > 0:
            top -= 1
            x = stack[top]
            size += 1
            for k in range(state[deg + x]):
                y = state[adj + x * width + k]
                if not seen[y] and state[AREAS + y] == player:
                    seen[y] = True
                    stack[top] = y
                    top += 1
        if size > best:
            best = size
    return best


@njit(cache=True)
def label_regions(state, label, best_size, best_label):
    """Label every area with the first area of its connected region (same owner), and give
    each seat the size and label of its largest region (for features over the map)."""
    n = state[NUM_AREAS]
    width = state[MAX_DEGREE]
    deg = AREAS + 2 * n
    adj = AREAS + 3 * n
    label[:n] = -1
    best_size[:] = 0
    best_label[:] = -1
    stack = np.empty(n, np.int64)
    for start in range(n):
        if label[start] >= 0:
            continue
        p = state[AREAS + start]
        label[start] = start
        stack[0] = start
        top = 1
        size = 0
        while top > 0:
            top -= 1
            x = stack[top]
            size += 1
            for k in range(state[deg + x]):
                y = state[adj + x * width + k]
                if label[y] < 0 and state[AREAS + y] == p:
                    label[y] = start
                    stack[top] = y
                    top += 1
        if size > best_size[p]:
            best_size[p] = size
            best_label[p] = start


@njit(cache=True)
def alive_count(state):
    counts = np.zeros(MAX_PLAYERS, np.int64)
    n = state[NUM_AREAS]
    for a in range(n):
        counts[state[AREAS + a]] += 1
    alive = 0
    for p in range(state[NUM_PLAYERS]):
        if counts[p] > 0:
            alive += 1
    return alive


@njit(cache=True)
def next_alive(state, seat):
    """The next seat after ``seat`` that still owns an area."""
    players = state[NUM_PLAYERS]
    for k in range(1, players + 1):
        p = (seat + k) % players
        if area_count(state, p) > 0:
            return p
    return seat


@njit(cache=True)
def hold_probability(state, area, player, dice):
    """P(area with ``dice`` dice owned by ``player`` survives one attack from each adjacent
    enemy area holding more than one die)."""
    n = state[NUM_AREAS]
    width = state[MAX_DEGREE]
    adj = AREAS + 3 * n + area * width
    p = 1.0
    for k in range(state[AREAS + 2 * n + area]):
        b = state[adj + k]
        if state[AREAS + b] != player:
            enemy = state[AREAS + n + b]
            if enemy > 1:
                p *= 1.0 - ATTACK_WIN[enemy, dice]
    return p


@njit(cache=True)
def eligible_areas(state, player, out):
    """Own areas with room for another die, written to out; returns their number."""
    n = state[NUM_AREAS]
    count = 0
    for a in range(n):
        if state[AREAS + a] == player and state[AREAS + n + a] < MAX_DICE:
            out[count] = a
            count += 1
    return count


@njit(cache=True)
def _has_room(state, player):
    n = state[NUM_AREAS]
    for a in range(n):
        if state[AREAS + a] == player and state[AREAS + n + a] < MAX_DICE:
            return True
    return False


@njit(cache=True)
def _start_next_turn(state):
    nxt = next_alive(state, state[TURN])
    state[TURN] = nxt
    state[PHASE] = PHASE_MOVE
    state[TO_PLACE] = 0
    state[TO_MOVE] = nxt


@njit(cache=True)
def _finish_reinforcement(state):
    player = state[TURN]
    left = state[TO_PLACE]
    state[RESERVE + player] = min(left, MAX_RESERVE)
    _start_next_turn(state)


@njit(cache=True)
def _end_turn(state):
    player = state[TURN]
    state[TURNS] += 1
    state[ATTACKS] = 0
    state[PASSES] += 1
    if state[PASSES] // alive_count(state) >= MAX_PASS_ROUNDS:
        state[RESULT] = CANCELLED
        state[PHASE] = PHASE_OVER
        state[TO_MOVE] = TERMINAL
        return
    dice = min(state[RESERVE + player] + largest_region(state, player), MAX_RESERVE)
    state[RESERVE + player] = 0
    state[TO_PLACE] = dice
    if dice > 0 and _has_room(state, player):
        state[PHASE] = PHASE_REINFORCE
        state[TO_MOVE] = CHANCE
    else:
        _finish_reinforcement(state)


# ----- kernels -----------------------------------------------------------------------------
@njit(LEGAL_SIG, cache=True)
def legal_actions(state, out):
    phase = state[PHASE]
    if phase == PHASE_MOVE:
        n = state[NUM_AREAS]
        width = state[MAX_DEGREE]
        player = state[TURN]
        count = 0
        for src in range(n):
            if state[AREAS + src] != player or state[AREAS + n + src] < 2:
                continue
            row = AREAS + 3 * n + src * width
            for k in range(state[AREAS + 2 * n + src]):
                tgt = state[row + k]
                if state[AREAS + tgt] != player:
                    out[count] = src * n + tgt
                    count += 1
        out[count] = n * n
        return count + 1
    if phase == PHASE_BATTLE:
        p = ATTACK_WIN[state[AREAS + state[NUM_AREAS] + state[SOURCE]],
                       state[AREAS + state[NUM_AREAS] + state[TARGET]]]
        count = 0
        if p < 1.0:
            out[count] = LOST
            count += 1
        if p > 0.0:
            out[count] = WON
            count += 1
        return count
    if phase == PHASE_REINFORCE:
        return eligible_areas(state, state[TURN], out)
    return 0


@njit(CHANCE_SIG, cache=True)
def chance_outcomes(state, outcomes, probs):
    phase = state[PHASE]
    if phase == PHASE_BATTLE:
        n = state[NUM_AREAS]
        p = ATTACK_WIN[state[AREAS + n + state[SOURCE]], state[AREAS + n + state[TARGET]]]
        count = 0
        if p < 1.0:
            outcomes[count] = LOST
            probs[count] = 1.0 - p
            count += 1
        if p > 0.0:
            outcomes[count] = WON
            probs[count] = p
            count += 1
        return count
    if phase == PHASE_REINFORCE:
        count = eligible_areas(state, state[TURN], outcomes)
        for i in range(count):
            probs[i] = 1.0 / count
        return count
    return 0


@njit(APPLY_SIG, cache=True)
def apply_action(state, action, undo_row):
    for i in range(HEADER):
        undo_row[i] = state[i]
    undo_row[HEADER] = -1
    undo_row[HEADER + 3] = -1
    n = state[NUM_AREAS]
    phase = state[PHASE]
    if phase == PHASE_MOVE:
        if action == n * n:
            _end_turn(state)
        else:
            state[SOURCE] = action // n
            state[TARGET] = action % n
            state[PHASE] = PHASE_BATTLE
            state[TO_MOVE] = CHANCE
    elif phase == PHASE_BATTLE:
        src = state[SOURCE]
        tgt = state[TARGET]
        player = state[TURN]
        undo_row[HEADER] = src
        undo_row[HEADER + 1] = state[AREAS + src]
        undo_row[HEADER + 2] = state[AREAS + n + src]
        undo_row[HEADER + 3] = tgt
        undo_row[HEADER + 4] = state[AREAS + tgt]
        undo_row[HEADER + 5] = state[AREAS + n + tgt]
        attacker_dice = state[AREAS + n + src]
        state[AREAS + n + src] = 1
        state[BATTLES] += 1
        state[PASSES] = 0
        state[ATTACKS] += 1
        state[SOURCE] = -1
        state[TARGET] = -1
        state[PHASE] = PHASE_MOVE
        state[TO_MOVE] = player
        if action == WON:
            state[AREAS + tgt] = player
            state[AREAS + n + tgt] = attacker_dice - 1
            if area_count(state, player) == n:
                state[RESULT] = player
                state[PHASE] = PHASE_OVER
                state[TO_MOVE] = TERMINAL
                return
        if state[BATTLES] >= MAX_BATTLES:
            state[RESULT] = CANCELLED
            state[PHASE] = PHASE_OVER
            state[TO_MOVE] = TERMINAL
    elif phase == PHASE_REINFORCE:
        undo_row[HEADER] = action
        undo_row[HEADER + 1] = state[AREAS + action]
        undo_row[HEADER + 2] = state[AREAS + n + action]
        state[AREAS + n + action] += 1
        state[TO_PLACE] -= 1
        if state[TO_PLACE] == 0 or not _has_room(state, state[TURN]):
            _finish_reinforcement(state)


@njit(UNDO_SIG, cache=True)
def undo_action(state, action, undo_row):
    n = state[NUM_AREAS]
    for i in range(HEADER):
        state[i] = undo_row[i]
    for j in (0, 3):
        a = undo_row[HEADER + j]
        if a >= 0:
            state[AREAS + a] = undo_row[HEADER + j + 1]
            state[AREAS + n + a] = undo_row[HEADER + j + 2]


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    players = state[NUM_PLAYERS]
    for p in range(players):
        out[p] = 0.0
    winner = state[RESULT]
    if winner >= 0:
        for p in range(players):
            out[p] = -1.0 / (players - 1)
        out[winner] = 1.0


@njit(HASH_SIG, cache=True)
def hash_state(state):
    # The map is fixed during a game, so the header, reserves, owners and dice identify it.
    end = AREAS + 2 * state[NUM_AREAS]
    h = np.uint64(1469598103934665603)
    for i in range(end):
        h ^= np.uint64(state[i] & 0xFFFFFFFF)
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return np.int64(h >> np.uint64(1))


# ----- heuristics --------------------------------------------------------------------------
# At a pending battle (the state right after an attack action) every heuristic returns the
# expectation over the two outcomes, so that searches and move filters that stop there see
# what the attack is worth.
H_SCORE = 0
H_REGION_DIFF = 1
H_DICE_SHARE = 2
H_WIN_PROB = 3


@njit(cache=True)
def _score(state, seat, params):
    n = state[NUM_AREAS]
    region = largest_region(state, seat)
    weight = abs(params[0]) + abs(params[1]) + abs(params[2])
    if weight == 0.0:
        return 0.0
    value = params[0] * region
    if params[1] != 0.0 or params[2] != 0.0:
        value += params[1] * area_count(state, seat) + params[2] * total_dice(state, seat) / 8.0
    return value / (weight * (n + 1.0))


@njit(cache=True)
def _region_diff(state, seat):
    best = 0
    for p in range(state[NUM_PLAYERS]):
        if p != seat:
            r = largest_region(state, p)
            if r > best:
                best = r
    return (largest_region(state, seat) - best) / (state[NUM_AREAS] + 1.0)


@njit(cache=True)
def _dice_share(state, seat):
    n = state[NUM_AREAS]
    all_dice = 0
    own_dice = 0
    own_areas = 0
    for a in range(n):
        d = state[AREAS + n + a]
        all_dice += d
        if state[AREAS + a] == seat:
            own_dice += d
            own_areas += 1
    value = 0.5 * own_dice / (all_dice + 1.0) + 0.5 * own_areas / (n + 1.0)
    return 2.0 * value - 1.0


@njit(cache=True)
def win_prob_shares(state, params, out):
    """Logistic model per player on log(largest region + 1) and log(total dice + 1)
    (params = bias, region weight, dice weight), normalised over the players alive."""
    total = 0.0
    for p in range(state[NUM_PLAYERS]):
        dice = total_dice(state, p)
        if dice == 0:
            out[p] = 0.0
            continue
        z = (params[0] + params[1] * np.log(largest_region(state, p) + 1.0)
             + params[2] * np.log(dice + 1.0))
        out[p] = 1.0 / (1.0 + np.exp(-z))
        total += out[p]
    if total > 0.0:
        for p in range(state[NUM_PLAYERS]):
            out[p] /= total


@njit(cache=True)
def _win_prob(state, seat, params):
    shares = np.zeros(MAX_PLAYERS, np.float64)
    win_prob_shares(state, params, shares)
    return min(0.999, max(-0.999, 2.0 * shares[seat] - 1.0))


@njit(cache=True)
def _static(state, seat, params, kind):
    if kind == H_SCORE:
        return _score(state, seat, params)
    if kind == H_REGION_DIFF:
        return _region_diff(state, seat)
    if kind == H_DICE_SHARE:
        return _dice_share(state, seat)
    return _win_prob(state, seat, params)


@njit(cache=True)
def heuristic_value(state, seat, params, kind):
    """Heuristic ``kind`` for seat; the expectation over the outcomes at a pending battle."""
    if state[PHASE] != PHASE_BATTLE:
        return _static(state, seat, params, kind)
    n = state[NUM_AREAS]
    src = state[SOURCE]
    tgt = state[TARGET]
    sd = state[AREAS + n + src]
    to = state[AREAS + tgt]
    td = state[AREAS + n + tgt]
    p = ATTACK_WIN[sd, td]
    state[AREAS + n + src] = 1
    lost = _static(state, seat, params, kind)
    state[AREAS + tgt] = state[TURN]
    state[AREAS + n + tgt] = sd - 1
    won = _static(state, seat, params, kind)
    state[AREAS + n + src] = sd
    state[AREAS + tgt] = to
    state[AREAS + n + tgt] = td
    return p * won + (1.0 - p) * lost


@njit(EVAL_SIG, cache=True)
def evaluate_score(state, seat, params):
    """The course framework's score, the seat's largest connected region, with optional
    tie-break weights (params: region, areas, dice/8), / (total weight x (areas + 1))."""
    return heuristic_value(state, seat, params, H_SCORE)


@njit(EVAL_SIG, cache=True)
def evaluate_region_difference(state, seat, params):
    """Own largest region minus the best opponent's, / (areas + 1)."""
    return heuristic_value(state, seat, params, H_REGION_DIFF)


@njit(EVAL_SIG, cache=True)
def evaluate_dice_share(state, seat, params):
    """Half the seat's share of all dice plus half its share of the areas, into (-1, 1)."""
    return heuristic_value(state, seat, params, H_DICE_SHARE)


@njit(EVAL_SIG, cache=True)
def evaluate_win_prob(state, seat, params):
    """2 x (the logistic model's normalised win probability for seat) - 1, in (-1, 1)."""
    return heuristic_value(state, seat, params, H_WIN_PROB)


KERNELS = Kernels(legal_actions, apply_action, undo_action, returns, hash_state, chance_outcomes)


@njit(RESET_SIG, cache=True)
def deal_areas(state, rng, game, scratch):
    """The batch reset hook: deal the map's areas anew, seats taking a random free area in
    turn, seat 0 first (as ``DiceWarsState.from_map``); the dice and the header come from the
    copied start row."""
    players = state[NUM_PLAYERS]
    n = state[NUM_AREAS]
    for a in range(n):
        scratch[a] = a
    left = n
    seat = 0
    while left > 0:
        k = random_below(rng, game, left)
        area = scratch[k]
        scratch[k] = scratch[left - 1]
        left -= 1
        state[AREAS + area] = seat
        seat = (seat + 1) % players



@njit(OBSERVE_SIG, cache=True)
def observe(state, seat, out):
    """(areas, players + 1 + areas) flattened: per area, the owner one-hot relative to seat
    (column k = the k-th seat after seat, 0 = own), dice / 8, then the area's row of the
    adjacency matrix."""
    n = state[NUM_AREAS]
    players = state[NUM_PLAYERS]
    width = state[MAX_DEGREE]
    row_size = players + 1 + n
    for i in range(n * row_size):
        out[i] = 0.0
    for a in range(n):
        row = a * row_size
        out[row + (state[AREAS + a] - seat) % players] = 1.0
        out[row + players] = state[AREAS + n + a] / MAX_DICE
        adj = AREAS + 3 * n + a * width
        for k in range(state[AREAS + 2 * n + a]):
            out[row + players + 1 + state[adj + k]] = 1.0


# ----- raw state arrays from outside (a user, a file) ------------------------------------------
ROW_PROBLEMS = (
    "",
    f"its number of players is not 2 to {MAX_PLAYERS}",
    "its areas and their neighbour table do not fit the row (or it has none)",
    "the seat whose turn it is is not a player",
    "its phase is not one of 0 (move), 1 (battle), 2 (reinforce), 3 (over)",
    "an area's owner is not a player",
    f"an area holds fewer than 0 or more than {MAX_DICE} dice",
    "an area has more neighbours than the table's width (or fewer than none)",
    "a neighbour is not an area of the map",
    "the pending battle's areas are not areas of the map",
    "the player slot is not the seat whose turn it is (move), CHANCE (battle, reinforce) or TERMINAL (over)",
    "the result is not a player or -2 (cancelled) once the game is over, or -1 (running) before",
)


@njit(cache=True)
def row_problem_code(states):
    """(code into ``ROW_PROBLEMS``, row) of the first row whose values the kernels would index
    out of bounds with; (0, -1) when every row is fine. Reads each value before using it."""
    width = states.shape[1]
    for b in range(states.shape[0]):
        s = states[b]
        if width <= AREAS:
            return 2, b
        players, n, degree = s[NUM_PLAYERS], s[NUM_AREAS], s[MAX_DEGREE]
        if players < 2 or players > MAX_PLAYERS:
            return 1, b
        if n < 1 or degree < 0 or n > width or AREAS + 3 * n + n * degree > width:
            return 2, b
        if s[TURN] < 0 or s[TURN] >= players:
            return 3, b
        if s[PHASE] < PHASE_MOVE or s[PHASE] > PHASE_OVER:
            return 4, b
        for a in range(n):
            if s[AREAS + a] < 0 or s[AREAS + a] >= players:
                return 5, b
            if s[AREAS + n + a] < 0 or s[AREAS + n + a] > MAX_DICE:
                return 6, b
            deg = s[AREAS + 2 * n + a]
            if deg < 0 or deg > degree:
                return 7, b
            for k in range(deg):
                y = s[AREAS + 3 * n + a * degree + k]
                if y < 0 or y >= n:
                    return 8, b
        if s[PHASE] == PHASE_BATTLE and not (0 <= s[SOURCE] < n and 0 <= s[TARGET] < n):
            return 9, b
        expected = s[TURN] if s[PHASE] == PHASE_MOVE else (TERMINAL if s[PHASE] == PHASE_OVER else CHANCE)
        if s[0] != expected:
            return 10, b
        result = s[RESULT]
        if (s[PHASE] == PHASE_OVER) != (result == CANCELLED or 0 <= result < players) or \
                (s[PHASE] != PHASE_OVER and result != ONGOING):
            return 11, b
    return 0, -1


def check_rows(states: np.ndarray) -> str | None:
    """``Game.check_rows`` for Dice Wars: why a batch of raw rows is not one of positions the
    kernels may read, or None."""
    code, row = row_problem_code(np.ascontiguousarray(states, np.int64))
    return f"Dice Wars state row {row}: {ROW_PROBLEMS[code]}" if code else None
