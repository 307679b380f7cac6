"""Negamax alpha-beta for every two-player game without chance, compiled once.

Iterative deepening, a transposition table (optionally over symmetric positions, optionally
kept across games and saved to disk: rote learning), TT-move and history move ordering,
quicker wins and slower losses preferred, every best root move reported, search statistics.
A player may move several times in a row: the sign of a child's value flips only when the
player to move changes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit, types

from plies.agents.base import BaseAgent, Range, uniform_policy
from plies.agents.evaluator_specs import NetworkWeights, check_eval_spec, compiled_network, names_network
from plies.agents.transposition import BEST, DEPTH, EXACT, FLAG, GENERATION, LOWER, UPPER, TranspositionTable
from plies.games.kernels import (
    EVAL_SIG,
    EVAL_T,
    HASH_SIG,
    KERNELS_T,
    PARAMS_T,
    STATE_T,
    TERMINAL,
    compiled,
    eval_ref,
    hash_ref,
    kernel_refs,
)
from plies.games.state import GameState

WIN = 1_000_000.0
"""Score of a win at the root; a win n plies deep scores WIN - n."""
INF = 1e18

# statistics slots
VISITED, HITS, MISSES, STORES, USE_TT_MOVE, GEN, NODE_LIMIT, ABORTED, HORIZON = range(9)
SOLVED_DEPTH = 1 << 30
"""Table depth of a subtree searched to its end: valid at any depth."""

_HASH_T = types.FunctionType(HASH_SIG)
_I2 = types.int64[:, ::1]


@njit(EVAL_SIG, cache=True)
def zero_evaluation(state, seat, params):
    """The evaluation of games without a heuristic: every non-terminal leaf is unknown."""
    return 0.0


@njit(cache=True, inline="always")
def _slot(key, bits):
    mixed = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(mixed >> np.uint64(64 - bits))


@njit(cache=True, inline="always")
def _to_table(value, ply):
    if value > WIN / 2:
        return value + ply
    if value < -WIN / 2:
        return value - ply
    return value


@njit(cache=True, inline="always")
def _from_table(value, ply):
    if value > WIN / 2:
        return value - ply
    if value < -WIN / 2:
        return value + ply
    return value


@njit(
    types.float64(
        STATE_T, types.int64, types.int64, types.float64, types.float64, KERNELS_T, EVAL_T, PARAMS_T,
        _HASH_T, types.int64, types.int64[::1], types.float64[::1], _I2, _I2, _I2, types.float64[::1],
        types.int64[::1], types.int64[::1],
    ),
    cache=True,
)
def negamax(state, depth, ply, alpha, beta, kernels, evaluate, params, hash_fn, bits, tt_keys,
            tt_values, tt_meta, moves, undo_rows, ret, history, stats):
    """Value of ``state`` (not terminal) for the player to move, searched ``depth`` plies."""
    legal, apply, undo, returns = kernels.legal_actions, kernels.apply_action, kernels.undo_action, kernels.returns
    stats[VISITED] += 1
    if stats[NODE_LIMIT] > 0 and stats[VISITED] > stats[NODE_LIMIT]:
        stats[ABORTED] = 1
        return 0.0
    me = state[0]
    alpha0 = alpha
    key = hash_fn(state)
    slot = _slot(key, bits)
    tt_move = -1
    if tt_meta[slot, DEPTH] >= 0 and tt_keys[slot] == key:
        stats[HITS] += 1
        stored = _from_table(tt_values[slot], ply)
        if tt_meta[slot, DEPTH] >= depth:
            if tt_meta[slot, DEPTH] < SOLVED_DEPTH:
                stats[HORIZON] += 1  # the stored value rests on heuristic leaves
            flag = tt_meta[slot, FLAG]
            if flag == EXACT:
                return stored
            if flag == LOWER and stored > alpha:
                alpha = stored
            elif flag == UPPER and stored < beta:
                beta = stored
            if alpha >= beta:
                return stored
        if stats[USE_TT_MOVE] != 0:
            tt_move = tt_meta[slot, BEST]
    else:
        stats[MISSES] += 1
    if depth <= 0:
        stats[HORIZON] += 1
        return evaluate(state, me, params)
    horizon0 = stats[HORIZON]

    row = moves[ply]
    n = legal(state, row)
    # order: the table's best move first, then by history score (insertion sort, n is small)
    for i in range(1, n):
        a = row[i]
        score = history[a]
        if a == tt_move:
            score = 1 << 60
        j = i - 1
        while j >= 0:
            b = row[j]
            other = (1 << 60) if b == tt_move else history[b]
            if other >= score:
                break
            row[j + 1] = b
            j -= 1
        row[j + 1] = a

    best = -INF
    best_move = -1
    for i in range(n):
        action = moves[ply, i]
        apply(state, action, undo_rows[ply])
        child = state[0]
        if child == TERMINAL:
            returns(state, ret)
            value = ret[me] * (WIN - ply - 1)
        elif child == me:
            value = negamax(state, depth - 1, ply + 1, alpha, beta, kernels, evaluate, params, hash_fn,
                            bits, tt_keys, tt_values, tt_meta, moves, undo_rows, ret, history, stats)
        else:
            value = -negamax(state, depth - 1, ply + 1, -beta, -alpha, kernels, evaluate, params,
                             hash_fn, bits, tt_keys, tt_values, tt_meta, moves, undo_rows, ret,
                             history, stats)
        undo(state, action, undo_rows[ply])
        if stats[ABORTED] != 0:
            return 0.0
        if value > best:
            best = value
            best_move = action
        if value > alpha:
            alpha = value
        if alpha >= beta:
            history[action] += depth * depth
            break

    old_depth = tt_meta[slot, DEPTH]
    if (old_depth < 0 or tt_keys[slot] == key or tt_meta[slot, GENERATION] != stats[GEN]
            or old_depth <= depth):
        tt_keys[slot] = key
        tt_values[slot] = _to_table(best, ply)
        tt_meta[slot, DEPTH] = SOLVED_DEPTH if stats[HORIZON] == horizon0 else depth
        tt_meta[slot, FLAG] = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
        tt_meta[slot, BEST] = best_move
        tt_meta[slot, GENERATION] = stats[GEN]
        stats[STORES] += 1
    return best


@njit(
    types.int64(
        STATE_T, types.int64, KERNELS_T, EVAL_T, PARAMS_T, _HASH_T, types.int64, types.int64[::1],
        types.float64[::1], _I2, _I2, _I2, types.float64[::1], types.int64[::1], types.int64[::1],
        types.int64[::1], types.float64[::1],
    ),
    cache=True,
)
def search_root(state, depth, kernels, evaluate, params, hash_fn, bits, tt_keys, tt_values, tt_meta,
                moves, undo_rows, ret, history, stats, root_moves, root_values):
    """Exact values of the best root moves (ties included) at ``depth``; others get upper bounds.

    ``root_moves`` gives the order to try (its length is the move count) and receives nothing;
    ``root_values[i]`` receives the value of ``root_moves[i]``. Returns 0, or 1 if aborted.
    """
    apply, undo, returns = kernels.apply_action, kernels.undo_action, kernels.returns
    me = state[0]
    best = -INF
    for i in range(root_moves.shape[0]):
        action = root_moves[i]
        apply(state, action, undo_rows[0])
        child = state[0]
        # a window just below the best so far: moves as good as it get exact values
        alpha = best - 1e-9 if best > -INF else -INF
        if child == TERMINAL:
            returns(state, ret)
            value = ret[me] * (WIN - 1)
        elif child == me:
            value = negamax(state, depth - 1, 1, alpha, INF, kernels, evaluate, params, hash_fn, bits,
                            tt_keys, tt_values, tt_meta, moves, undo_rows, ret, history, stats)
        else:
            value = -negamax(state, depth - 1, 1, -INF, -alpha, kernels, evaluate, params, hash_fn,
                             bits, tt_keys, tt_values, tt_meta, moves, undo_rows, ret, history, stats)
        undo(state, action, undo_rows[0])
        if stats[ABORTED] != 0:
            return 1
        root_values[i] = value
        if value > best:
            best = value
    return 0


@dataclass
class SearchResult:
    """What a search found: every move of the best value, that value, and statistics."""

    best_moves: list[int]
    value: float
    depth: int
    values: dict[int, float] = field(default_factory=dict)
    stats: dict[str, float] = field(default_factory=dict)


def resolve_evaluator(state: GameState, eval_name: str):
    """The heuristic kernel named ``eval_name`` (``""``: the game's default; ``none``: zero), or
    a network's compiled kernel (``net``, a shipped network's name, ``<file>.pt``)."""
    info = state.game
    if eval_name in ("none", "zero") or (not eval_name and not info.default_heuristic):
        return zero_evaluation, None
    if eval_name and info.net_value is not None and names_network(state, eval_name):
        weights = NetworkWeights(compiled_network(state, eval_name))
        return weights.kernel, weights
    name = eval_name or info.default_heuristic
    if name not in info.heuristics:
        raise ValueError(
            f"unknown evaluation {name!r} for {info.id}; evaluations: "
            + ", ".join(list(info.heuristics) + ["none"])
        )
    heuristic = info.heuristics[name]
    return heuristic.kernel, heuristic


def parse_weights(text: str) -> dict[str, float]:
    """``"stones=1;mills=2.5"`` -> ``{"stones": 1.0, "mills": 2.5}``."""
    weights: dict[str, float] = {}
    for item in filter(None, (p.strip() for p in text.replace("/", ";").split(";"))):
        key, eq, value = item.partition("=")
        try:
            weights[key.strip()] = float(value)
        except ValueError:
            raise ValueError(f"malformed weight {item!r}: write name=number, separated by ';'") from None
        if not eq:
            raise ValueError(f"malformed weight {item!r}: write name=number, separated by ';'")
    return weights


class AlphaBetaSearch:
    """A reusable search with its own transposition table (kept between calls)."""

    def __init__(
        self,
        eval: str = "",
        weights: dict[str, float] | None = None,
        symmetry: bool = False,
        table: TranspositionTable | None = None,
        tt_bits: int = 18,
        use_table_moves: bool = True,
    ) -> None:
        self.eval_name = eval
        self.weights = dict(weights or {})
        self.symmetry = symmetry
        self.table = table
        self.tt_bits = tt_bits
        self.use_table_moves = use_table_moves
        self._history: np.ndarray | None = None
        self._variant: tuple | None = None

    def _prepare(self, state: GameState):
        info = state.game
        if info.has_chance:
            raise ValueError(f"alpha-beta cannot search {info.id}: it has chance nodes; use expectiminimax")
        if state.num_players != 2:
            raise ValueError(f"alpha-beta needs a two-player game; {info.id} has {state.num_players} players")
        if self.symmetry and info.canonical_hash is None:
            raise ValueError(f"{info.id} has no symmetry hash; use symmetry=false")
        key_kind = "symmetric" if self.symmetry else "plain"
        if self.table is None:
            self.table = TranspositionTable(self.tt_bits, info.id, key_kind)
        elif self.table.key_kind != key_kind or (self.table.game and self.table.game != info.id):
            raise ValueError(
                f"the transposition table holds {self.table.key_kind} keys of {self.table.game!r}; "
                f"this search needs {key_kind} keys of {info.id!r}"
            )
        # a game's keys are unique within one set of options (a board size), not across them:
        # a search of another variant starts from an empty table
        variant = (info.id, state.num_actions, len(state.array), tuple(state.observation_shape))
        if self._variant is not None and variant != self._variant:
            self.table = TranspositionTable(self.tt_bits, info.id, key_kind)
        self._variant = variant
        self.table.game = info.id
        kernel, heuristic = resolve_evaluator(state, self.eval_name)
        params = heuristic.params(self.weights) if heuristic else np.zeros(1, np.float64)
        if self._history is None or self._history.shape[0] != state.num_actions:
            self._history = np.zeros(state.num_actions, np.int64)
        hash_fn = info.canonical_hash if self.symmetry else info.kernels.hash
        return kernel, params, hash_fn

    def search(
        self, state: GameState, depth: int, time_limit: float = 0.0, node_limit: int = 0
    ) -> SearchResult:
        """Iterative deepening to ``depth`` plies (stopping early past ``time_limit`` seconds
        or ``node_limit`` nodes, keeping the deepest finished iteration)."""
        if state.is_terminal():
            raise ValueError("cannot search a finished game")
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        evaluate, params, hash_fn = self._prepare(state)
        table = self.table
        assert table is not None and self._history is not None
        table.generation += 1
        kernels = kernel_refs(state.game.kernels)
        evaluate, hash_fn = eval_ref(evaluate), hash_ref(hash_fn)
        run_root = compiled(search_root)
        array = state.array.copy()
        width = state.max_legal_actions
        moves = np.zeros((depth + 2, width), np.int64)
        undo_rows = np.zeros((depth + 2, max(1, state.game.undo_size)), np.int64)
        ret = np.zeros(state.num_players, np.float64)
        stats = np.zeros(9, np.int64)
        stats[USE_TT_MOVE] = int(self.use_table_moves and not self.symmetry)
        stats[GEN] = table.generation
        stats[NODE_LIMIT] = node_limit
        root = state.legal_array()
        values = np.zeros(len(root), np.float64)
        start = time.perf_counter()
        result: SearchResult | None = None
        for d in range(1, depth + 1):
            horizon0 = stats[HORIZON]
            aborted = run_root(array, d, kernels, evaluate, params, hash_fn, table.bits, table.keys,
                                  table.values, table.meta, moves, undo_rows, ret, self._history,
                                  stats, root, values)
            if aborted:
                break
            best = float(values.max()) + 0.0  # no negative zero
            best_moves = sorted(int(a) for a, v in zip(root, values) if v >= best - 1e-9)
            result = SearchResult(best_moves, best, d, {int(a): float(v) for a, v in zip(root, values)})
            order = np.argsort(-values, kind="stable")
            root, values = root[order].copy(), values[order].copy()
            if stats[HORIZON] == horizon0 or (abs(best) > WIN / 2 and d >= WIN - abs(best)):
                # searched to the end, or a win/loss proven at a distance this iteration covers
                # (so every other move as quick is proven too): deeper iterations change nothing
                break
            if time_limit and time.perf_counter() - start > time_limit / 3:
                break  # the next iteration would most likely overrun
        if result is None:
            raise TimeoutError("alpha-beta finished no iteration within its limits")
        result.stats = {
            "runtime": time.perf_counter() - start,
            "limit": depth,
            "depth": result.depth,
            "visited": int(stats[VISITED]),
            "cache_hit": int(stats[HITS]),
            "cache_miss": int(stats[MISSES]),
            "cache_stores": int(stats[STORES]),
            "cache_size": len(table),
        }
        return result


class AlphaBetaAgent(BaseAgent):
    """``alphabeta:depth=6,eval=cells``: iterative-deepening negamax with a table.

    ``weights`` sets heuristic weights as ``name=value;name=value``; ``table`` names a file the
    transposition table is loaded from (if it exists) and saved to by ``save_table()``;
    ``time_limit`` (seconds, 0 = none) stops deepening early.
    """

    spec_name = "alphabeta"
    description = "iterative-deepening alpha-beta (negamax) with a transposition table"
    requires = ("no_chance",)
    limits = {
        "depth": Range(1, 512, integer=True),
        "tt_bits": Range(4, 30, integer=True),
        "time_limit": Range(0, 86400),
    }

    def __init__(
        self,
        *,
        depth: int = 4,
        eval: str = "",
        weights: str = "",
        symmetry: bool = False,
        table: str = "",
        tt_bits: int = 18,
        time_limit: float = 0.0,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed, name)
        if depth < 1:
            raise ValueError(f"alphabeta depth must be >= 1, got {depth}")
        check_eval_spec(eval)
        self.depth = depth
        self.time_limit = time_limit
        self.table_path = table
        loaded = None
        if table:
            import os

            if os.path.exists(table):
                loaded = TranspositionTable.load(table, key_kind="symmetric" if symmetry else "plain")
        self.searcher = AlphaBetaSearch(eval, parse_weights(weights), symmetry, loaded, tt_bits)
        self.last_result: SearchResult | None = None

    def search(self, state: GameState) -> SearchResult:
        self.last_result = self.searcher.search(state, self.depth, self.time_limit)
        return self.last_result

    def act(self, state: GameState) -> int:
        return self.choose(self.search(state).best_moves)

    def policy(self, state: GameState) -> np.ndarray:
        """Uniform over the best moves of a search (the moves ``act`` chooses among)."""
        return uniform_policy(state, self.search(state).best_moves)

    def value(self, state: GameState) -> float:
        """The searched value for the player to move: a proven win (loss) is the game's
        return, scaled back from WIN - plies; otherwise the heuristic's score."""
        value = float(self.search(state).value)
        if abs(value) > WIN / 2:
            return float(round(value / WIN))  # ret * (WIN - plies): plies < WIN / 2
        return value

    def save_table(self, path: str = "") -> None:
        target = path or self.table_path
        if not target:
            raise ValueError("no table file: pass a path or build the agent with table=FILE")
        if self.searcher.table is None:
            raise ValueError("nothing to save: the agent has not searched yet")
        self.searcher.table.save(target)


class PerfectAgent(AlphaBetaAgent):
    """``perfect``: alpha-beta to the end of the game (for small games such as Tic-Tac-Toe)."""

    spec_name = "perfect"
    description = "alpha-beta to the end of the game (exact play; small games only)"
    games = ("tictactoe",)

    def __init__(self, *, seed: int | None = None, name: str | None = None) -> None:
        super().__init__(depth=64, eval="none", seed=seed, name=name)


def search(
    state: GameState,
    depth: int,
    eval: str = "",
    weights: dict[str, float] | None = None,
    symmetry: bool = False,
    table: TranspositionTable | None = None,
    time_limit: float = 0.0,
    node_limit: int = 0,
) -> SearchResult:
    """One alpha-beta search of ``state`` (pass ``table`` to keep what it learns)."""
    searcher = AlphaBetaSearch(eval, weights, symmetry, table)
    return searcher.search(state, depth, time_limit, node_limit)
