"""The Dice Wars bots of the course framework, written from their described behaviour.

Each bot decides one action at a time from the state; a turn of several attacks is several
decisions by the same seat. What a bot needs to remember within a turn (how many attacks it
made) is read from the state (``attacks this turn`` in the header), so the bots keep no memory.

The decisions are numba kernels (``bot_action``), so the bots are cheap enough for
thousand-game tournaments, and ``play_bot_game`` plays a whole game of bots in compiled code
(for benchmarks and for fitting the ``win_prob`` model on its own self-play games)::

    python -m plies.agents.dice_wars_bots --games 2000 --iterations 3 --seed 0 \
        --out dice_wars_win_prob.json

(``--out`` defaults to ``dice_wars_win_prob.json`` in the current folder; the shipped
coefficients are replaced only when ``--out`` names them.)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from numba import njit

from plies.agents.base import BaseAgent, Range
from plies.agents.evaluators import BatchEvaluator
from plies.files import atomic_write
from plies.games.dice_wars import rules
from plies.games.dice_wars.probabilities import ATTACK_WIN
from plies.games.dice_wars.state import WIN_PROB_FILE, load_win_prob_coefficients
from plies.games.kernels import CHANCE, TERMINAL, draw_outcome
from plies.games.state import GameState

DW_RANDOM = 0
DW_ALL_RANDOM = 1
STRENGTH_DIFF = 2
SINGLE_TURN = 3
WIN_PROB = 4
WPM_C = 5

# The course's dt.wpm_c model, hard-coded per number of players in the game (2-8): weights of
# (log(score + 1), log(dice + 1)) for every seat in turn order, the bot's own seat first, no
# bias. Row p holds the 2p weights of a p-player game, zero-padded.
_WPM_C_TABLE = {
    2: (1.30214778, 2.25563871, -1.30214778, -2.25563871),
    3: (1.03427841, 0.50262886, -0.78619448, -0.31264667, -0.74070513, -0.3344083),
    4: (1.04279419, 0.25416893, -0.64830571, -0.15321224, -0.64217824, -0.11354054,
        -0.59113493, -0.19902261),
    5: (0.88792394, 0.23898045, -0.50630318, -0.10684734, -0.48406202, -0.12877724,
        -0.48004353, -0.17429738, -0.51195613, -0.12572176),
    6: (0.84452717, 0.20915755, -0.4275969, -0.12319906, -0.438397, -0.11476484,
        -0.44610219, -0.10640943, -0.42926595, -0.15994294, -0.40215393, -0.12508173),
    7: (0.77043331, 0.22744643, -0.34448306, -0.16104125, -0.34304867, -0.16545059,
        -0.36316993, -0.14238659, -0.37359036, -0.13535348, -0.34917492, -0.13725688,
        -0.36908313, -0.11803061),
    8: (0.71518557, 0.2580538, -0.3303392, -0.13374949, -0.3288953, -0.16076534,
        -0.31261043, -0.14316612, -0.31785557, -0.16003507, -0.31410674, -0.16487769,
        -0.33290964, -0.12624279, -0.33843017, -0.14888412),
}
WPM_C_WEIGHTS = np.zeros((rules.MAX_PLAYERS + 1, 2 * rules.MAX_PLAYERS), np.float64)
for _players, _weights in _WPM_C_TABLE.items():
    WPM_C_WEIGHTS[_players, : len(_weights)] = _weights
# The course's bots read battle odds from a table of the exact odds rounded to 8 decimals.
COURSE_ATTACK_WIN = np.round(ATTACK_WIN, 8)
WPM_C_MIN_IMPROVEMENT = -0.05  # an attack that is the best move is made unless it loses more log-odds

WEIGHTS_FILE = WIN_PROB_FILE
FIT_START = {"bias": -6.0, "region": 1.0, "dice": 1.0}
"""The coefficients the fit of the win-probability model starts from."""


# ----- decisions -------------------------------------------------------------------------
@njit(cache=True)
def _attacks(state, out):
    """Legal attacks (without the end-turn action) into out; returns their number."""
    return rules.legal_actions(state, out) - 1


@njit(cache=True)
def _mover_win_prob(state, player, params, shares):
    """The model's win probability for the seat to move, counting the dice its turn's end
    will bring (reserve + largest region) so that joining regions is worth something."""
    total = 0.0
    own = 0.0
    for p in range(state[rules.NUM_PLAYERS]):
        dice = rules.total_dice(state, p)
        if dice == 0:
            continue
        region = rules.largest_region(state, p)
        if p == player:
            dice += min(state[rules.RESERVE + p] + region, rules.MAX_RESERVE)
        z = params[0] + params[1] * np.log(region + 1.0) + params[2] * np.log(dice + 1.0)
        value = 1.0 / (1.0 + np.exp(-z))
        total += value
        if p == player:
            own = value
    return own / total


@njit(cache=True)
def _win_prob_after(state, player, params, src, tgt, won, shares):
    """The model's win probability for player after the battle src -> tgt ends as given."""
    n = state[rules.NUM_AREAS]
    so, sd = state[rules.AREAS + src], state[rules.AREAS + n + src]
    to, td = state[rules.AREAS + tgt], state[rules.AREAS + n + tgt]
    state[rules.AREAS + n + src] = 1
    if won:
        state[rules.AREAS + tgt] = player
        state[rules.AREAS + n + tgt] = sd - 1
    value = _mover_win_prob(state, player, params, shares)
    state[rules.AREAS + src], state[rules.AREAS + n + src] = so, sd
    state[rules.AREAS + tgt], state[rules.AREAS + n + tgt] = to, td
    return value


@njit(cache=True)
def _wpm_c_log_win(weights, features, players):
    z = 0.0
    for i in range(2 * players):
        z += weights[i] * features[i]
    return z


@njit(cache=True)
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True)
def wpm_c_improvements(state, buf, count, out):
    """dt.wpm_c's estimate for each of the ``count`` attacks in ``buf`` (into ``out``) and for
    ending the turn (returned): the change of log(estimated win probability) the move brings.
    The course's quirks are kept: every seat's score feature is the bot's own largest
    region, the score feature never changes between moves (its record of the largest region
    stays empty), ending the turn only adds that region to its own dice, and an attack is
    scored as if its own dice had already received that region too."""
    n = state[rules.NUM_AREAS]
    players = state[rules.NUM_PLAYERS]
    me = state[rules.TURN]
    weights = WPM_C_WEIGHTS[players]
    score = rules.largest_region(state, me)
    log_score = np.log(score + 1.0)
    features = np.empty(2 * players, np.float64)
    for k in range(players):
        features[2 * k] = log_score
        features[2 * k + 1] = np.log(rules.total_dice(state, (me + k) % players) + 1.0)
    start = np.log(_sigmoid(_wpm_c_log_win(weights, features, players)))
    own_dice = rules.total_dice(state, me)
    saved_own = features[1]
    features[1] = np.log(own_dice + score + 1.0)
    end = np.log(_sigmoid(_wpm_c_log_win(weights, features, players))) - start
    features[1] = saved_own
    for i in range(count):
        src = buf[i] // n
        tgt = buf[i] % n
        a = state[rules.AREAS + n + src]
        d = state[rules.AREAS + n + tgt]
        opponent = state[rules.AREAS + tgt]
        slot = 2 * ((opponent - me) % players) + 1
        saved_opponent = features[slot]
        opponent_dice = rules.total_dice(state, opponent)
        features[1] = np.log(own_dice + score + 1.0)
        features[slot] = np.log(opponent_dice - d + 1.0)
        win = _sigmoid(_wpm_c_log_win(weights, features, players))
        features[1] = np.log(own_dice + score - a + 1.0 + 1.0)
        features[slot] = np.log(opponent_dice + 1.0)
        loss = _sigmoid(_wpm_c_log_win(weights, features, players))
        features[1] = saved_own
        features[slot] = saved_opponent
        p = COURSE_ATTACK_WIN[a, d]
        out[i] = np.log(win * p + loss * (1.0 - p)) - start
    return end


@njit(cache=True)
def _wpm_c_action(state, buf, count):
    """dt.wpm_c's move: the moves ranked by improvement (ending the turn ranked first among
    equals, attacks in area order); the best attack is made if it is the top move and loses
    at most 0.05 or comes from an 8-dice area; when ending the turn is the top move, the best
    attack from an 8-dice area is made anyway."""
    n = state[rules.NUM_AREAS]
    end_action = n * n
    values = np.empty(count, np.float64)
    end = wpm_c_improvements(state, buf, count, values)
    best = -1
    best_full = -1  # best attack from an area with 8 dice
    for i in range(count):
        if best < 0 or values[i] > values[best]:
            best = i
        if state[rules.AREAS + n + buf[i] // n] == rules.MAX_DICE:
            if best_full < 0 or values[i] > values[best_full]:
                best_full = i
    if values[best] > end:
        if values[best] >= WPM_C_MIN_IMPROVEMENT or state[rules.AREAS + n + buf[best] // n] == rules.MAX_DICE:
            return buf[best]
        return end_action
    if best_full >= 0:
        return buf[best_full]
    return end_action


@njit(cache=True)
def bot_action(state, kind, u, params, buf):
    """The action of bot ``kind`` for the seat to move; ``u`` in [0, 1) breaks ties and
    makes the random choices; ``params`` are the bot's numbers (see the agent classes)."""
    n = state[rules.NUM_AREAS]
    end = n * n
    count = _attacks(state, buf)
    if count == 0:
        return end
    player = state[rules.TURN]
    if kind == WPM_C:
        return _wpm_c_action(state, buf, count)
    if kind == DW_RANDOM or kind == DW_ALL_RANDOM:
        if kind == DW_RANDOM and state[rules.ATTACKS] >= params[0]:
            return end
        return buf[int(u * count)]
    best = -1e300
    ties = 0
    if kind == WIN_PROB:
        shares = np.zeros(rules.MAX_PLAYERS, np.float64)
        best = _mover_win_prob(state, player, params, shares) + params[3]  # ending the turn, plus the required margin
    for i in range(count):
        src = buf[i] // n
        tgt = buf[i] % n
        a = state[rules.AREAS + n + src]
        d = state[rules.AREAS + n + tgt]
        if kind == STRENGTH_DIFF:
            if a - d < 0:
                continue
            value = float(a - d)
        elif kind == SINGLE_TURN:
            value = ATTACK_WIN[a, d] * rules.hold_probability(state, tgt, player, a - 1)
            if value < params[0] and a < rules.MAX_DICE:
                continue
        else:
            p = ATTACK_WIN[a, d]
            value = p * _win_prob_after(state, player, params, src, tgt, True, shares)
            value += (1.0 - p) * _win_prob_after(state, player, params, src, tgt, False, shares)
        if value > best + 1e-12:
            best = value
            ties = 0
        if value >= best - 1e-12:
            buf[ties], buf[i] = buf[i], buf[ties]  # keep the tied best at the front
            ties += 1
    if ties == 0:
        return end
    return buf[int(u * ties)]


@njit(cache=True)
def play_bot_game(state, kinds, params, seed, record):
    """Play the game in ``state`` to the end with bot ``kinds[seat]`` (``params[seat]``) in
    each seat, random numbers from ``seed``. When ``record`` has rows, it receives one row
    (turn number, seat, largest region, total dice) for every seat alive at the start of
    each turn; returns the number of rows written (or -1 if ``record`` ran out of room)."""
    np.random.seed(seed)
    size = state.shape[0]
    buf = np.empty(size, np.int64)
    probs = np.empty(size, np.float64)
    undo = np.empty(rules.UNDO_SIZE, np.int64)
    rows = 0
    last_turn = -1
    while state[0] != TERMINAL:
        if state[0] == CHANCE:
            action = draw_outcome(buf, probs, rules.chance_outcomes(state, buf, probs), np.random.random())
        else:
            seat = state[0]
            if record.shape[0] > 0 and state[rules.TURNS] != last_turn:
                last_turn = state[rules.TURNS]
                for p in range(state[rules.NUM_PLAYERS]):
                    if rules.area_count(state, p) > 0:
                        if rows >= record.shape[0]:
                            return -1
                        record[rows, 0] = last_turn
                        record[rows, 1] = p
                        record[rows, 2] = rules.largest_region(state, p)
                        record[rows, 3] = rules.total_dice(state, p)
                        rows += 1
            action = bot_action(state, kinds[seat], np.random.random(), params[seat], buf)
        rules.apply_action(state, action, undo)
    return rows


# ----- agents ------------------------------------------------------------------------------
class _DiceWarsBot(BaseAgent):
    games = ("dice_wars",)
    kind = -1

    def _params(self) -> np.ndarray:
        return np.zeros(4, np.float64)

    def act(self, state: GameState) -> int:
        array = state.array
        if array[rules.PHASE] != rules.PHASE_MOVE:
            raise ValueError(f"{self.name}: act() needs a player's decision, not a chance node")
        buf = np.empty(state.max_legal_actions, np.int64)
        return int(bot_action(array, self.kind, self.rng.random(), self._params(), buf))


class DwRandomAgent(_DiceWarsBot):
    """Random attacks, at most ``max_attacks`` (2) a turn, then ends the turn."""

    spec_name = "dw_random"
    description = "the course's random bot: random attacks, at most max_attacks a turn"
    limits = {"max_attacks": Range(0, 10_000, integer=True)}
    kind = DW_RANDOM

    def __init__(self, *, max_attacks: int = 2, seed: int | None = None,
                 name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)
        self.max_attacks = max_attacks

    def _params(self) -> np.ndarray:
        return np.array([self.max_attacks, 0, 0, 0], np.float64)


class DwAllRandomAgent(_DiceWarsBot):
    """Makes every possible attack in random order: a random attack while any is left."""

    spec_name = "dw_all_random"
    description = "the course's bot that makes every possible attack in random order"
    kind = DW_ALL_RANDOM

    def __init__(self, *, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)


class StrengthDiffAgent(_DiceWarsBot):
    """Attacks with the largest non-negative difference (own dice - target dice) until no
    attack with a non-negative difference is left."""

    spec_name = "strength_diff"
    description = "the course's bot attacking with the largest dice difference"
    kind = STRENGTH_DIFF

    def __init__(self, *, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)


class SingleTurnAgent(_DiceWarsBot):
    """Attacks where P(win) x P(holding the captured area) >= ``threshold`` or from an area
    with 8 dice, best product first; ends the turn when none is left."""

    spec_name = "single_turn"
    description = "the course's bot attacking where winning and holding the area is likely"
    limits = {"threshold": Range(0, 1)}
    kind = SINGLE_TURN

    def __init__(self, *, threshold: float = 0.2, seed: int | None = None,
                 name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)
        self.threshold = threshold

    def _params(self) -> np.ndarray:
        return np.array([self.threshold, 0, 0, 0], np.float64)


_COEF = load_win_prob_coefficients()


class WinProbAgent(_DiceWarsBot):
    """Estimates each seat's win probability with a logistic model on log(largest region+1)
    and log(total dice+1) (normalised over the seats alive); makes the attack with the best
    expected own win probability (both battle outcomes weighted) while it beats ending the
    turn by ``margin``. Coefficients default to the fitted ones shipped in
    plies/games/dice_wars/data/win_prob.json."""

    spec_name = "win_prob"
    description = "the course's bot maximising a logistic model's win probability"
    limits = {"bias": Range(-1e6, 1e6), "region": Range(-1e6, 1e6), "dice": Range(-1e6, 1e6), "margin": Range(-1, 1)}
    kind = WIN_PROB

    def __init__(self, *, bias: float = _COEF["bias"], region: float = _COEF["region"],
                 dice: float = _COEF["dice"], margin: float = 0.0, seed: int | None = None,
                 name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)
        self.coefficients = (bias, region, dice)
        self.margin = margin

    def _params(self) -> np.ndarray:
        return np.array([*self.coefficients, self.margin], np.float64)


class WpmCAgent(_DiceWarsBot):
    """The course's ``dt.wpm_c``: win-probability maximisation with the course's hard-coded
    logistic weights for the game's number of players (2-8) over (log(score + 1),
    log(dice + 1)) of every seat in turn order, its own first, without a bias. Each move's
    value is the change of log(estimated win probability): an attack weighs the estimates
    after a won and a lost battle by the battle's odds; ending the turn adds its largest
    region to its dice. It attacks when the best move is an attack losing at most 0.05 (or
    from 8 dice); when ending the turn looks best it still attacks from an 8-dice area.

    The course code's quirks are kept as its behaviour: the score of every seat is read from
    the bot's own regions; the region features never change between moves (the course fills
    its record of the largest region nowhere); a won or lost attack is scored as if its own
    dice already included its largest region. plies's ``win_prob`` is an improved bot of the
    same idea (its own fitted model per seat, with a bias)."""

    spec_name = "wpm_c"
    description = "the course's dt.wpm_c bot: win-probability maximisation with its fixed weights"
    kind = WPM_C

    def __init__(self, *, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)


BOT_KINDS = {
    "dw_random": (DW_RANDOM, DwRandomAgent),
    "dw_all_random": (DW_ALL_RANDOM, DwAllRandomAgent),
    "strength_diff": (STRENGTH_DIFF, StrengthDiffAgent),
    "single_turn": (SINGLE_TURN, SingleTurnAgent),
    "win_prob": (WIN_PROB, WinProbAgent),
    "wpm_c": (WPM_C, WpmCAgent),
}


def bot_params(agent: _DiceWarsBot) -> np.ndarray:
    return agent._params()


# ----- fitting win_prob ------------------------------------------------------------------
def self_play_records(
    num_games: int, coefficients: tuple[float, float, float], seed: int, num_players: int = 4
) -> tuple[np.ndarray, np.ndarray]:
    """Features (log(region+1), log(dice+1)) and labels (1 = that seat won the game) of every
    alive seat at every turn start of ``num_games`` games of ``win_prob`` bots."""
    from plies.games.dice_wars.state import DiceWarsState

    rng = np.random.default_rng(seed)
    kinds = np.full(num_players, WIN_PROB, np.int64)
    params = np.tile(np.array([*coefficients, 0.0]), (num_players, 1))
    features, labels = [], []
    record = np.zeros((200_000, 4), np.int64)
    for _ in range(num_games):
        state = DiceWarsState.initial(rng, num_players=num_players)
        rows = play_bot_game(state.array, kinds, params, int(rng.integers(2**31)), record)
        winner = state.winner
        if winner is None or rows < 0:
            continue  # cancelled games have no winner to learn from
        part = record[:rows]
        features.append(np.log1p(part[:, 2:4].astype(np.float64)))
        labels.append((part[:, 1] == winner).astype(np.float64))
    return np.concatenate(features), np.concatenate(labels)


def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = 1e-4) -> np.ndarray:
    """Logistic regression by Newton's method: returns (bias, w_region, w_dice)."""
    x = np.column_stack([np.ones(len(features)), features])
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        grad = x.T @ (p - labels) / len(x) + l2 * w
        hess = (x.T * (p * (1 - p))) @ x / len(x) + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def fit_win_prob(games: int, iterations: int, seed: int) -> dict:
    """Fit the model on its own games: play with the current coefficients, refit, repeat."""
    coef = tuple(FIT_START.values())
    history = []
    for it in range(iterations):
        feats, labels = self_play_records(games, coef, seed + it)
        w = fit_logistic(feats, labels)
        coef = (float(w[0]), float(w[1]), float(w[2]))
        history.append({"iteration": it, "rows": int(len(labels)), "coefficients": coef})
    return {
        "model": "logistic regression on log(largest region + 1), log(total dice + 1)",
        "coefficients": dict(zip(("bias", "region", "dice"), coef)),
        "games_per_iteration": games,
        "iterations": iterations,
        "seed": seed,
        "history": history,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the Dice Wars win_prob bot by self-play")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("dice_wars_win_prob.json"),
                        help="where to write the coefficients (default: ./dice_wars_win_prob.json; "
                        f"the shipped file is {WEIGHTS_FILE})")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = fit_win_prob(args.games, args.iterations, args.seed)
    result["command"] = (
        f"python -m plies.agents.dice_wars_bots --games {args.games} "
        f"--iterations {args.iterations} --seed {args.seed}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out, lambda f: f.write(json.dumps(result, indent=2) + "\n"), text=True)
    print(json.dumps(result["coefficients"]), f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()


# ----- the report's search player ----------------------------------------------------------
@njit(cache=True)
def end_turn_rows(states):
    """Each running row in its move phase becomes the position just after its player ends the
    turn (the reinforcement about to be placed); other rows, and a row whose ending would cancel
    the game, are left as they are."""
    undo = np.empty(rules.UNDO_SIZE, np.int64)
    for i in range(states.shape[0]):
        row = states[i]
        if row[rules.PHASE] != rules.PHASE_MOVE or row[rules.RESULT] != rules.ONGOING:
            continue
        rules.apply_action(row, row[rules.NUM_AREAS] ** 2, undo)
        if row[rules.RESULT] != rules.ONGOING:
            rules.undo_action(row, row[rules.NUM_AREAS] ** 2, undo)


class TurnEndLeaves(BatchEvaluator):
    """Scores every leaf as the position after its player ends the turn there, so that a leaf
    in the middle of a turn and the end of the turn are the same kind of position for the
    network (a batch evaluator wrapped)."""

    def __init__(self, evaluator) -> None:
        self.evaluator = evaluator

    def evaluate_all(self, states: np.ndarray, root: int, num_players: int, zero_sum: bool) -> np.ndarray:
        ended = np.ascontiguousarray(states, np.int64).copy()
        end_turn_rows(ended)
        return self.evaluator.evaluate_all(ended, root, num_players, zero_sum)

    def evaluate(self, states: np.ndarray, seat: int) -> np.ndarray:
        n = int(np.max(states[:, rules.NUM_PLAYERS]))
        return self.evaluate_all(states, seat, n, False)[:, seat]


class DwExpectiminimaxAgent(BaseAgent):
    """The report's expectiminimax player, over the generic ``expectiminimax`` search.

    At most ``max_attacks`` attacks a turn (the report's limit: then it ends the turn); each
    attack is chosen by an expectiminimax search of ``depth`` plies over the player's own
    attacks (both battle outcomes weighted by their exact probabilities; the search also stops
    a turn after the attacks left this turn), scored by the heuristic ``eval`` (default the
    course's score, the largest region; ``areas``/``dice`` add tie-break weights to it).
    Like the report's player it does not end a turn early unless ``end_turn`` is true, in which
    case ending the turn competes with the attacks. ``filter`` keeps the k best children (by
    the heuristic) at nodes with two or more plies left (0 = full width).
    ``eval=net`` scores the leaves with the shipped value network (``eval=oldmaps``: the earlier
    one, trained on the earlier maps; ``eval=<file>.pt``: another one; plies/agents/value_net.py) in one batch per decision; its ``filter`` ranks children
    by the compiled heuristic ``filter_eval`` (default ``win_prob``); ``filter_leaves`` filters
    the last ply too, so a network scores about (2 k)^depth leaves instead of all of them.
    ``leaves=turn_end`` (with a network) scores every leaf as the position after its player
    ends the turn there, so that attacking and ending the turn (``end_turn=true``) are valued
    on the same kind of position.
    """

    spec_name = "dw_expectiminimax"
    description = "the report's expectiminimax player over its own attacks"
    games = ("dice_wars",)
    limits = {
        "depth": Range(1, 16, integer=True),
        "max_attacks": Range(0, 10_000, integer=True),
        "filter": Range(0, 10_000, integer=True),
        "areas": Range(-1e6, 1e6),
        "dice": Range(-1e6, 1e6),
    }

    def __init__(self, *, depth: int = 3, max_attacks: int = 3, eval: str = "score",
                 areas: float = 0.0, dice: float = 0.0, filter: int = 5,
                 filter_eval: str = "win_prob", filter_leaves: bool = False,
                 end_turn: bool = False, leaves: str = "as_is",
                 seed: int | None = None, name: str | None = None) -> None:
        super().__init__(seed=seed, name=name)
        from plies.agents.evaluator_specs import check_eval_spec

        check_eval_spec(eval)
        self.depth = depth
        self.max_attacks = max_attacks
        self.eval_name = eval
        self.weights = {"areas": areas, "dice": dice} if eval == "score" else {}
        self.filter = filter
        self.filter_eval = filter_eval
        self.filter_leaves = filter_leaves
        self.end_turn = end_turn
        if leaves not in ("as_is", "turn_end"):
            raise ValueError(f"leaves={leaves!r}: use as_is or turn_end")
        self.leaves = leaves
        self.last_values: np.ndarray | None = None

    def _is_network(self, state: GameState) -> bool:
        """``eval`` names a value network: ``net``, an earlier shipped one (``oldmaps``) or a file."""
        from plies.agents.value_net import shipped_names

        name = self.eval_name
        if name == "net" or name.endswith(".pt"):
            return True
        return name not in state.game.heuristics and name in shipped_names(state.game.id)

    def act(self, state: GameState) -> int:
        from plies.agents.evaluator_specs import evaluator_for
        from plies.agents.expectiminimax import analyse

        array = state.array
        end = state.num_areas**2
        made = int(array[rules.ATTACKS])
        if self.max_attacks > 0 and made >= self.max_attacks:
            return end
        legal = state.legal_actions()
        if len(legal) == 1:
            return end
        weights = {k: v for k, v in self.weights.items() if v}
        ranker = None
        network = self._is_network(state)
        if self.leaves == "turn_end" and not network:
            raise ValueError(f"leaves=turn_end needs a value network (eval=net or a .pt file), not eval={self.eval_name}")
        if network:
            # a value network (plies/agents/value_net.py): leaves in one batch; the filter
            # ranks children by a compiled heuristic
            evaluator = evaluator_for(state, self.eval_name)
            if self.leaves == "turn_end":
                evaluator = TurnEndLeaves(evaluator)
            ranker = evaluator_for(state, self.filter_eval) if self.filter else None
        else:
            evaluator = evaluator_for(state, self.eval_name, **weights)
        values, actions, _, _ = analyse(
            state,
            depth=self.depth,
            evaluator=evaluator,
            filter=self.filter,
            filter_evaluator=ranker,
            filter_leaves=self.filter_leaves,
            limit=self.max_attacks - made if self.max_attacks > 0 else 0,
            chance_limit=1,
        )
        scores = values[:, state.current_player].copy()
        if self.leaves == "turn_end" and self.end_turn:
            # the search scores ending after the first reinforcement die; every other leaf is
            # scored before its reinforcement is placed, and so is this one
            ending = evaluator.evaluate_all(array[None].copy(), state.current_player,
                                            state.num_players, False)[0, state.current_player]
            scores[actions == end] = ending
        if not self.end_turn:
            scores[actions == end] = -np.inf
        self.last_values = scores
        best = np.flatnonzero(scores >= scores.max() - 1e-12)
        return int(actions[self.choose(best)])
