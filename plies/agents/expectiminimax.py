"""Expectiminimax for every game: chance nodes weighted by their probabilities, MaxN values.

One compiled search (``search``) serves all games through the kernel bundle (``KERNELS_T``):

- **Values are vectors**, one entry per seat; the player to move picks the child best for its
  own entry (MaxN). For two-player zero-sum games the evaluator is called once, for the root
  seat, and the other entry is its negation: plain expectiminimax.
- **Chance nodes** average their outcomes by probability.
- **Two ways to step through a turn.** *Action mode* (every game): one legal action is one
  ply; consecutive moves by the same seat are detected by comparing ``state[0]`` before and
  after the move, and ``limit`` caps them per turn (Dice Wars: at most ``limit`` attacks are
  looked at, deeper nodes are evaluated). *Turn mode* (games with an afterstate kernel, like
  backgammon): a ply is a whole turn, the children are the distinct end-of-turn positions of the
  roll (the write-up's 1/2/3-ply: 1 = best afterstate by value, 2 = expectation over the
  opponent's 21 rolls of the opponent's best reply, 3 = one more own roll).
- ``depth`` counts plies (player decisions); chance nodes do not count. ``chance_limit`` (action
  mode) turns a chain of more than that many consecutive chance nodes into a leaf, for games
  whose chance events come in long chains (Dice Wars' reinforcement, one die at a time).
- **Move filters** (``filter`` = k): at a player node with two or more plies left (one or more
  with ``filter_leaves``), children are first scored by the evaluator (0-ply; with a network
  evaluator, by a compiled ``filter_evaluator``) and only the k best are searched deeper.
- **Leaves in batches.** With a compiled heuristic (``EVAL_T``) leaves are scored inside the
  search. Any other ``Evaluator`` (a torch network) uses the same traversal twice: a first pass
  collects every leaf state into one array, the evaluator scores them in one call, and a second
  pass replays the traversal reading those values (the traversal depends only on the compiled
  filter heuristic, never on the leaf values, so both passes visit the same leaves in order).

The search is iterative, an explicit stack of frames (``st``, ``kind``, ``order``, ``acc``, ...,
one row per level), so one compiled function with typed kernel arguments serves every game and
numba caches it; the steps of the loop are the small functions ``_is_leaf``,
``_rank_children``, ``_average_in`` and ``_maximise_in``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, types

from plies.agents.base import BaseAgent, PlayPlan, Range
from plies.agents.evaluator_specs import check_eval_spec, evaluator_for
from plies.agents.evaluators import Evaluator, HeuristicEvaluator, check_evaluator_fits
from plies.games.kernels import (
    AFTERSTATES_SIG,
    CHANCE,
    EVAL_T,
    KERNELS_T,
    TERMINAL,
    afterstates_ref,
    compiled,
    eval_ref,
    kernel_refs,
)
from plies.games.state import GameState

TURNS_SIG = AFTERSTATES_SIG
"""afterstates(state, out, paths) -> count (-1 if out is too small): a game's end-of-turn
positions of the current roll/turn, with one action sequence (-1 padded) reaching each."""
TURNS_T = types.FunctionType(TURNS_SIG)

class SearchConfig(NamedTuple):
    """The settings of one search, read by name in the compiled code (numba types it as
    ``CONFIG_T``, a tuple of int64)."""

    depth: int  # plies (turns in turn mode) to search
    turns: int  # 1: children are whole turns (the game's afterstates), 0: single actions
    limit: int  # own actions per turn searched in action mode (0: no limit)
    filter: int  # children kept after ranking by the heuristic (0: all)
    players: int  # seats
    zero_sum: int  # 1: a two-player zero-sum game (one value, negated)
    mode: int  # MODE_EVAL, MODE_COLLECT or MODE_REPLAY
    levels: int  # frames on the search's stack
    width: int  # room for the legal actions of one node
    root: int  # the seat to move at the root
    chance_limit: int  # chance nodes in a row before a node counts as a leaf
    path_len: int  # actions per child path (turn mode)
    undo: int  # the game's undo row size
    prune: int  # 1: Star1 pruning of chance nodes
    bound: int  # the largest absolute value a game can have
    filter_from: int  # the filter acts at nodes with at least this many plies left


CONFIG_T = types.NamedUniTuple(types.int64, len(SearchConfig._fields), SearchConfig)
MODE_EVAL, MODE_COLLECT, MODE_REPLAY = 0, 1, 2

# frame kinds
K_CHANCE, K_ACTIONS, K_TURNS = 0, 1, 2

SEARCH_SIG = types.int64(
    types.int64[::1],  # state
    KERNELS_T,
    TURNS_T,
    EVAL_T,
    types.float64[::1],  # params of the heuristic
    CONFIG_T,  # cfg
    types.float64[:, ::1],  # root child values (children x players)
    types.int64[:, ::1],  # root children: afterstate rows (turn mode)
    types.int64[:, ::1],  # root children: action paths (turn mode) / [k, 0] = action
    types.int64[:, ::1],  # leaf states (collect mode)
    types.float64[:, ::1],  # leaf values (replay mode)
    types.int64[::1],  # stats: nodes, leaves, leaves stored
)


@njit(TURNS_SIG, cache=True)
def no_turns(state, out, paths):
    """The afterstate kernel of games that have none (turn mode is then unavailable)."""
    return -2


@njit(cache=True)
def _leaf_value(st, kernels, evaluate, params, cfg, ret, out, leaf_states, leaf_values, stats):
    """Scores a leaf into out (one value per seat)."""
    n = cfg.players
    stats[1] += 1
    if st[0] == TERMINAL:
        kernels.returns(st, ret)
        for s in range(n):
            out[s] = ret[s]
        return
    mode = cfg.mode
    if mode == MODE_EVAL:
        _heuristic_value(st, evaluate, params, cfg, out)
    elif mode == MODE_COLLECT:
        k = stats[2]
        if k < leaf_states.shape[0]:
            for i in range(st.shape[0]):
                leaf_states[k, i] = st[i]
        stats[2] = k + 1
        for s in range(n):
            out[s] = 0.0
        return
    if mode == MODE_REPLAY:
        k = stats[2]
        stats[2] = k + 1
        for s in range(n):
            out[s] = leaf_values[k, s]


@njit(cache=True)
def _heuristic_value(st, evaluate, params, cfg, out):
    """The compiled heuristic's value of a non-terminal state into out (one value per seat)."""
    n = cfg.players
    if cfg.zero_sum == 1 and n == 2:
        root = cfg.root
        v = evaluate(st, root, params)
        out[root] = v
        out[1 - root] = -v
        return
    for s in range(n):
        out[s] = evaluate(st, s, params)


@njit(cache=True, inline="always")
def _is_leaf(p, no_room, plies_left, chance_run, last_mover, moves_in_row, use_turns, chance_limit, limit):
    """Whether the node is evaluated instead of expanded: the game is over, the frame stack is
    full, the plies are used up, a chain of chance nodes is too long, or the mover has made
    ``limit`` moves in a row this turn (action mode)."""
    if p == TERMINAL or no_room:
        return True
    if p == CHANCE:
        # turn mode scores afterstates before the roll; action mode resolves the chance event
        # of the last move first (a battle), up to chance_limit in a row
        return (use_turns and plies_left <= 0) or (chance_limit > 0 and chance_run >= chance_limit)
    if plies_left <= 0:
        return True
    return limit > 0 and not use_turns and p == last_mover and moves_in_row >= limit


@njit(cache=True)
def _rank_children(s, p, count, turns, rows, acts, scratch, order, kernels, evaluate, params, cfg,
                   undo, ret, tmp, static, stats):
    """Orders a player node's children best first for ``p`` by the compiled heuristic (by the
    returns at terminals): the move filter keeps the first ones, Star1 cuts more after good
    ones. With a network's leaves the ranking still uses the heuristic, so the collecting and
    the replaying pass keep the same children."""
    n = cfg.players
    for k in range(count):
        if turns:
            child = rows[k]
        else:
            child = scratch
            child[:] = s
            kernels.apply_action(child, acts[k], undo)
        stats[1] += 1
        if child[0] == TERMINAL:
            kernels.returns(child, ret)
            for j in range(n):
                tmp[j] = ret[j]
        else:
            _heuristic_value(child, evaluate, params, cfg, tmp)
        static[k] = -tmp[p]
    chosen = np.argsort(static[:count], kind="mergesort")
    for k in range(count):
        order[k] = chosen[k]


@njit(cache=True, inline="always")
def _average_in(acc, value, pr, cum, level, prune, root, bound, lo_w, hi_w):
    """Adds a chance outcome's value, weighted by its probability, to the node's average.
    With Star1 pruning, returns True when the outcomes left cannot bring the average back
    inside the window (the average is then replaced by the bound it proved)."""
    for j in range(acc.shape[0]):
        acc[j] += pr * value[j]
    cum[level] += pr
    if not prune:
        return False
    total = acc[root]
    rest = max(0.0, 1.0 - cum[level]) * bound
    if total + rest <= lo_w[level]:
        cut = total + rest  # fails low: an upper bound
    elif total - rest >= hi_w[level]:
        cut = total - rest  # fails high: a lower bound
    else:
        return False
    acc[root] = cut
    acc[1 - root] = -cut
    return True


@njit(cache=True, inline="always")
def _maximise_in(acc, value, mover, level, prune, root, lo_w, hi_w):
    """Keeps the child's value if it is the best yet for the mover (MaxN). With pruning, returns
    True when the node's value already lies outside its window (a cut); at the root, strictly
    worse moves may be cut but equal ones stay exact, for ties."""
    if value[mover] > acc[mover]:
        for j in range(acc.shape[0]):
            acc[j] = value[j]
    if not prune:
        return False
    v = acc[root]
    if level == 0:
        lo_w[0] = max(lo_w[0], v - 1e-9)
        return False
    return (mover == root and v >= hi_w[level]) or (mover != root and v <= lo_w[level])


@njit(SEARCH_SIG, cache=True)
def search(state, kernels, turns, evaluate, params, cfg, root_values, root_rows, root_paths,
           leaf_states, leaf_values, stats):
    """Expectiminimax from a player node; returns the number of root children, whose values
    are in root_values (and, in turn mode, rows/paths in root_rows/root_paths; in action mode
    root_paths[k, 0] is the k-th child's action). See the module docstring for cfg."""
    legal = kernels.legal_actions
    apply = kernels.apply_action
    chance = kernels.chance_outcomes
    depth = cfg.depth
    use_turns = cfg.turns == 1
    limit = cfg.limit
    keep = cfg.filter
    n = cfg.players
    levels = cfg.levels
    width = cfg.width
    chance_limit = cfg.chance_limit
    size = state.shape[0]

    st = np.empty((levels, size), np.int64)
    undo = np.empty(max(cfg.undo, 1), np.int64)  # children are copies: nothing is undone
    kind = np.zeros(levels, np.int64)
    count = np.zeros(levels, np.int64)
    nxt = np.zeros(levels, np.int64)
    plies = np.zeros(levels, np.int64)  # plies left at the node
    mover = np.zeros(levels, np.int64)
    run = np.zeros(levels, np.int64)  # consecutive moves of the last mover before this node
    last = np.zeros(levels, np.int64)  # the last seat that moved before this node
    chain = np.zeros(levels, np.int64)  # consecutive chance nodes ending at this node
    rows_cap = root_rows.shape[0] if use_turns else 1
    acts = np.empty((levels, width), np.int64)
    probs = np.empty((levels, width), np.float64)
    # a node's children: up to width actions or rows_cap afterstates (doubles: hundreds)
    order = np.empty((levels, max(width, rows_cap)), np.int64)
    acc = np.zeros((levels + 1, n), np.float64)
    res = np.zeros((levels + 1, n), np.float64)
    ret = np.zeros(max(n, 2), np.float64)
    tmp = np.zeros(n, np.float64)
    rows = np.empty((levels, rows_cap, size), np.int64)
    paths = np.empty((levels, rows_cap, root_paths.shape[1]), np.int64)
    static = np.empty(max(width, rows_cap), np.float64)
    # Star1 pruning (two-player zero-sum, values from the root's view in [-bound, bound])
    prune = cfg.prune == 1 and cfg.zero_sum == 1 and n == 2 and cfg.mode == MODE_EVAL
    root = cfg.root
    bound = float(cfg.bound)
    lo_w = np.full(levels + 1, -np.inf)
    hi_w = np.full(levels + 1, np.inf)
    cum = np.zeros(levels + 1, np.float64)

    for i in range(size):
        st[0, i] = state[i]
    plies[0] = depth
    last[0] = -1
    level = 0
    descending = True
    n_root = 0
    while True:
        if descending:
            stats[0] += 1
            s = st[level]
            p = s[0]
            leaf = _is_leaf(p, level + 1 >= levels, plies[level], chain[level], last[level], run[level],
                            use_turns, chance_limit, limit)
            if leaf and level > 0:
                _leaf_value(s, kernels, evaluate, params, cfg, ret, res[level], leaf_states,
                            leaf_values, stats)
                level -= 1
                descending = False
                continue
            # expand the node
            for j in range(n):
                acc[level, j] = 0.0 if p == CHANCE else -np.inf
            cum[level] = 0.0
            if p == CHANCE:
                kind[level] = K_CHANCE
                count[level] = chance(s, acts[level], probs[level])
            elif use_turns:
                kind[level] = K_TURNS
                mover[level] = p
                c = turns(s, rows[level], paths[level])
                count[level] = rows_cap if c < 0 else c
            else:
                kind[level] = K_ACTIONS
                mover[level] = p
                count[level] = legal(s, acts[level])
            c = count[level]
            for k in range(c):
                order[level, k] = k
            if prune and kind[level] == K_CHANCE and c > 1:
                # likelier outcomes first: the probability mass left shrinks fastest, so Star1
                # bounds tighten with fewer children searched
                chosen = np.argsort(-probs[level, :c], kind="mergesort")
                for k in range(c):
                    order[level, k] = chosen[k]
            # move filter: search only the best `keep` children (by the evaluator) deeper;
            # with pruning, search all of them best first (good bounds early cut more)
            # (with a network's leaves, the filter ranks by the compiled heuristic `evaluate`,
            # so the collecting and the replaying pass keep the same children)
            filtering = keep > 0 and c > keep and plies[level] >= cfg.filter_from
            ordering = prune and plies[level] >= 2
            if kind[level] != K_CHANCE and (filtering or ordering) and c > 1:
                _rank_children(s, p, c, kind[level] == K_TURNS, rows[level], acts[level], st[level + 1],
                               order[level], kernels, evaluate, params, cfg, undo, ret, tmp, static, stats)
                if filtering:
                    count[level] = keep
            if level == 0:
                n_root = count[0]
            elif kind[level] == K_TURNS and plies[level] == 1:
                # the afterstates are leaves: score them in place, no frames
                m = p
                for k in range(count[level]):
                    _leaf_value(rows[level, order[level, k]], kernels, evaluate, params, cfg,
                                ret, tmp, leaf_states, leaf_values, stats)
                    if tmp[m] > acc[level, m]:
                        for j in range(n):
                            acc[level, j] = tmp[j]
                        if prune:
                            v = acc[level, root]
                            if (m == root and v >= hi_w[level]) or (m != root and v <= lo_w[level]):
                                break
                for j in range(n):
                    res[level, j] = acc[level, j]
                if count[level] == 0:
                    _leaf_value(s, kernels, evaluate, params, cfg, ret, res[level],
                                leaf_states, leaf_values, stats)
                level -= 1
                descending = False
                continue
            nxt[level] = 0
            descending = False
            res[level + 1, 0] = np.nan  # marks "no child value yet": pick the first child
            continue
        # ascending: level is the parent, res[level + 1] holds the child value (or nan if none)
        parent = level
        if parent < 0:
            break
        if not np.isnan(res[parent + 1, 0]):
            value = res[parent + 1]
            if kind[parent] == K_CHANCE:
                pr = probs[parent, order[parent, nxt[parent] - 1]]
                if _average_in(acc[parent], value, pr, cum, parent, prune, root, bound, lo_w, hi_w):
                    nxt[parent] = count[parent]  # Star1 cut: the rest cannot change the decision
            else:
                if parent == 0:
                    root_values[nxt[parent] - 1, :] = value
                if _maximise_in(acc[parent], value, mover[parent], parent, prune, root, lo_w, hi_w):
                    nxt[parent] = count[parent]  # alpha-beta cut
        if nxt[parent] < count[parent]:
            k = order[parent, nxt[parent]]
            child_level = parent + 1
            if prune:
                lo_c = lo_w[parent]
                hi_c = hi_w[parent]
                if kind[parent] == K_CHANCE:
                    pr = probs[parent, k]
                    total = acc[parent, root]
                    rest = max(0.0, 1.0 - cum[parent] - pr) * bound
                    lo_c = (lo_w[parent] - total - rest) / pr
                    hi_c = (hi_w[parent] - total + rest) / pr
                elif nxt[parent] > 0:
                    if mover[parent] == root:
                        lo_c = max(lo_c, acc[parent, root])
                    else:
                        hi_c = min(hi_c, acc[parent, root])
                lo_w[child_level] = lo_c
                hi_w[child_level] = hi_c
            nxt[parent] += 1
            s = st[parent]
            child = st[child_level]
            if kind[parent] == K_TURNS:
                child[:] = rows[parent, k]
                if parent == 0:
                    root_rows[nxt[parent] - 1, :] = rows[parent, k]
                    root_paths[nxt[parent] - 1, :] = paths[parent, k]
                plies[child_level] = plies[parent] - 1
                last[child_level] = mover[parent]
                run[child_level] = 1
                chain[child_level] = 0
            elif kind[parent] == K_ACTIONS:
                child[:] = s
                apply(child, acts[parent, k], undo)
                if parent == 0:
                    root_paths[nxt[parent] - 1, 0] = acts[parent, k]
                m = mover[parent]
                plies[child_level] = plies[parent] - 1
                run[child_level] = run[parent] + 1 if last[parent] == m else 1
                last[child_level] = m
                chain[child_level] = 0
            else:
                child[:] = s
                apply(child, acts[parent, k], undo)
                plies[child_level] = plies[parent]
                last[child_level] = last[parent]
                run[child_level] = run[parent]
                chain[child_level] = chain[parent] + 1
                # turn mode: a roll that cannot be played passes the turn; it still is a ply
                if use_turns and child[0] == CHANCE:
                    plies[child_level] = plies[parent] - 1
            level = child_level
            descending = True
            continue
        # all children done: the node's value goes to its parent
        for j in range(n):
            res[parent, j] = acc[parent, j]
        if count[parent] == 0:
            # no legal move (should not happen at a player node): score the node itself
            _leaf_value(st[parent], kernels, evaluate, params, cfg, ret, res[parent],
                        leaf_states, leaf_values, stats)
        if parent == 0:
            break
        level = parent - 1
    return n_root


class ExpectiminimaxAgent(BaseAgent):
    """Expectiminimax / MaxN over any game; turn mode where the game lists afterstates.

    ``depth``: plies (turns in turn mode); ``eval``: a heuristic of the game (default: the
    game's default); ``filter``: keep the k best children by the evaluator before searching
    deeper (0 = full width; with ``eval=net`` the children are ranked by the compiled heuristic
    ``filter_eval``, default the game's default); ``limit``: consecutive own moves looked at
    per turn (action mode;
    0 = no limit); ``turns``: "auto" (afterstates when the game has them), "on", "off";
    ``chance_limit``: longer chains of chance nodes are leaves (0 = no limit); ``prune``:
    Star1 cut-offs at chance and player nodes of two-player zero-sum games (the chosen move
    and its value are those of the full search; worse moves get upper bounds). Games whose
    results exceed +-1 say so with a ``value_bound`` attribute on their state.
    """

    spec_name = "expectiminimax"
    description = "expectiminimax / MaxN to a depth, leaves scored by a heuristic or value network"
    requires = ("chance_or_heuristic",)
    limits = {
        "depth": Range(1, 64, integer=True),
        "filter": Range(0, 10_000, integer=True),
        "limit": Range(0, 10_000, integer=True),
        "chance_limit": Range(0, 64, integer=True),
    }

    def __init__(
        self,
        *,
        depth: int = 1,
        eval: str = "",
        filter: int = 0,
        filter_eval: str = "",
        limit: int = 0,
        turns: str = "auto",
        chance_limit: int = 0,
        prune: bool = True,
        evaluator: Evaluator | None = None,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed=seed, name=name)
        if depth < 1:
            raise ValueError(f"expectiminimax depth must be at least 1, not {depth}")
        if turns not in ("auto", "on", "off"):
            raise ValueError(f"turns must be auto, on or off, not {turns!r}")
        check_eval_spec(eval)
        check_eval_spec(filter_eval)
        self.depth = depth
        self.eval_name = eval
        self.filter = filter
        self.filter_eval = filter_eval
        self.limit = limit
        self.turns = turns
        self.chance_limit = chance_limit
        self.prune = prune
        self.evaluator = evaluator
        self._plan = PlayPlan()
        self.last_values: np.ndarray | None = None
        self.stats = np.zeros(3, np.int64)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan.clear()

    def search(self, state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """The root's children: (values [children x seats], actions, paths, turn mode)."""
        type(self).check_game(state.game, self.name)
        evaluator = self.evaluator or evaluator_for(state, self.eval_name)
        ranker = None
        if self.filter and not isinstance(evaluator, HeuristicEvaluator):
            ranker = evaluator_for(state, self.filter_eval)  # a network's filter: a heuristic
        return analyse(
            state,
            depth=self.depth,
            evaluator=evaluator,
            filter=self.filter,
            filter_evaluator=ranker,
            limit=self.limit,
            turns=self.turns,
            chance_limit=self.chance_limit,
            prune=self.prune,
            stats=self.stats,
        )

    def value(self, state: GameState) -> float:
        """The searched value for the player to move."""
        values = self.search(state)[0]
        return float(values[:, state.current_player].max())

    def act(self, state: GameState) -> int:
        planned = self._plan.next_for(state)
        if planned is not None:
            return planned
        values, actions, paths, use_turns = self.search(state)
        seat = state.current_player
        scores = values[:, seat]
        best = np.flatnonzero(scores >= scores.max() - 1e-12)
        k = self.choose(best)
        self.last_values = scores
        if not use_turns:
            return int(actions[k])
        return self._plan.start(state, [int(a) for a in paths[k] if a >= 0])


def _levels(depth: int, use_turns: bool, limit: int, chance_limit: int) -> int:
    if use_turns:
        return 2 * depth + 3
    return depth * (2 + max(chance_limit, 1)) + 4


def analyse(
    state: GameState,
    *,
    depth: int,
    evaluator: Evaluator,
    filter: int = 0,
    limit: int = 0,
    turns: str = "auto",
    chance_limit: int = 0,
    prune: bool = True,
    stats: np.ndarray | None = None,
    max_leaves: int = 2_000_000,
    filter_evaluator: HeuristicEvaluator | None = None,
    filter_leaves: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Values of the root's children: (values [children x seats], actions, paths, turn mode).

    In turn mode ``paths[k]`` is the action sequence (-1 padded) of the k-th afterstate; in
    action mode ``actions[k]`` is the k-th legal action. A ``filter`` with an evaluator that
    is not a compiled heuristic (a network) ranks the children by ``filter_evaluator``, a
    compiled heuristic, and scores only the leaves with ``evaluator``; ``filter_leaves``
    applies the filter at the last ply as well (fewer leaves for an expensive evaluator)."""
    if state.current_player < 0:
        raise ValueError("expectiminimax needs a player to move, not a chance or terminal node")
    check_evaluator_fits(evaluator, state)
    if filter_evaluator is not None:
        check_evaluator_fits(filter_evaluator, state)
    turn_kernel = state.game.afterstates
    if turns == "on" and turn_kernel is None:
        raise ValueError(f"{state.game.id} has no afterstate kernel: use turns=off")
    use_turns = turn_kernel is not None and turns != "off"
    kernel = turn_kernel if use_turns else no_turns
    n_players = state.num_players
    width = max(int(state.max_legal_actions), 64)
    cap = int(state.game.max_afterstates) if use_turns else 1
    path_len = 4 if use_turns else 1
    cfg = SearchConfig(
        depth=depth, turns=int(use_turns), limit=limit, filter=filter, players=n_players,
        zero_sum=int(state.game.zero_sum and n_players == 2), mode=MODE_EVAL,
        levels=_levels(depth, use_turns, limit, chance_limit), width=width, root=state.current_player,
        chance_limit=chance_limit, path_len=path_len, undo=max(1, state.game.undo_size), prune=int(prune),
        bound=int(np.ceil(state.value_bound)), filter_from=1 if filter_leaves else 2)
    children = cap if use_turns else width
    values = np.zeros((children, n_players), np.float64)
    rows = np.zeros((cap, state.array.shape[0]), np.int64)
    paths = np.full((children, path_len), -1, np.int64)
    stats = np.zeros(3, np.int64) if stats is None else stats
    stats[:] = 0
    refs = kernel_refs(state.game.kernels)
    turns_fn = afterstates_ref(kernel)
    run = compiled(search)
    s = state.array.copy()
    if isinstance(evaluator, HeuristicEvaluator) and evaluator.kernel is not None:
        no_leaves = np.zeros((1, 1), np.int64)
        no_values = np.zeros((1, 1), np.float64)
        n = run(s, refs, turns_fn, eval_ref(evaluator.kernel), evaluator.params, cfg, values,
                rows, paths, no_leaves, no_values, stats)
    else:
        # pass 1: count and collect the leaves; evaluate them in one batch; pass 2: back up.
        # The compiled kernel passed along only ranks children for a filter.
        if filter:
            if filter_evaluator is None or getattr(filter_evaluator, "kernel", None) is None:
                raise ValueError(
                    "a move filter with a network evaluator needs filter_evaluator=<a compiled "
                    "heuristic> to rank the children (e.g. evaluator_for(state, 'score'))"
                )
            dummy_kernel = eval_ref(filter_evaluator.kernel)
            params = filter_evaluator.params
        else:
            dummy_kernel = eval_ref(HeuristicEvaluator.zero_kernel())
            params = np.zeros(1, np.float64)
        cfg = cfg._replace(mode=MODE_COLLECT)
        probe = np.zeros((0, s.shape[0]), np.int64)
        run(s, refs, turns_fn, dummy_kernel, params, cfg, values, rows, paths, probe,
            np.zeros((1, 1)), stats)
        n_leaves = int(stats[2])
        if n_leaves > max_leaves:
            raise ValueError(
                f"this search has {n_leaves} leaves (more than max_leaves={max_leaves}): "
                "lower the depth or use a compiled heuristic with a filter"
            )
        leaf_states = np.zeros((n_leaves, s.shape[0]), np.int64)
        stats[:] = 0
        run(s, refs, turns_fn, dummy_kernel, params, cfg, values, rows, paths,
            leaf_states, np.zeros((1, 1)), stats)
        leaf_values = np.zeros((max(n_leaves, 1), n_players), np.float64)
        if n_leaves:
            leaf_values[:n_leaves] = evaluator.evaluate_all(leaf_states, cfg.root, n_players,
                                                            zero_sum=bool(cfg.zero_sum))
        cfg = cfg._replace(mode=MODE_REPLAY)
        stats[:] = 0
        n = run(s, refs, turns_fn, dummy_kernel, params, cfg, values, rows, paths,
                leaf_states, leaf_values, stats)
    if n == 0:
        raise ValueError("expectiminimax: no legal move at a player node")
    actions = paths[:n, 0].copy()
    return values[:n].copy(), actions, paths[:n].copy(), use_turns


def best_value(state: GameState, **kwargs: Any) -> float:
    """The searched value of ``state`` for the player to move (max over its children)."""
    values, _, _, _ = analyse(state, **kwargs)
    return float(values[:, state.current_player].max())
