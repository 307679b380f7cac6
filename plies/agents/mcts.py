"""Monte Carlo tree search (UCT with random rollouts or an evaluation at the leaves; PUCT with
priors from the evaluation or from a policy network), compiled once for every game.

Each node keeps, for every seat, the sum of the returns of the simulations through it; a
node is scored for the player who moved into it, so the same code serves two players, many
players, and players who move several times in a row. Chance nodes are part of the tree:
a simulation samples their outcome by its probability. Each simulation copies the root
position into a scratch array and plays forward: no undo is needed, however long the rollout.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from plies.agents.base import BaseAgent, Range
from plies.agents.evaluator_specs import check_eval_spec, compiled_evaluator_for
from plies.agents.evaluators import HeuristicEvaluator
from plies.agents.value_net import compiled_policy_params
from plies.games.kernels import (
    CHANCE,
    EVAL_T,
    KERNELS_T,
    STATE_T,
    TERMINAL,
    compiled,
    eval_ref,
    kernel_refs,
)
from plies.games.state import GameState
from plies.games.value_kernels import FEATURES_SIG, FEATURES_T, features_ref, mlp_forward

_I1 = types.int64[::1]
_F1 = types.float64[::1]
_F2 = types.float64[:, ::1]

_NO_PARAMS = np.zeros(1, np.float64)


@njit(FEATURES_SIG, cache=True)
def _no_features(state, out):
    """The features kernel passed when the search runs no policy network."""

ROLLOUT, EVAL_EACH_SEAT, EVAL_ZERO_SUM = 0, 1, 2
"""How a new leaf is scored (``mcts_search``'s ``eval_mode``)."""

# node columns
PARENT, MOVER, FIRST_CHILD, NUM_CHILDREN, ACTION, VISITS = range(6)


@njit(cache=True)
def _sample(probs, n, u):
    total = 0.0
    for i in range(n):
        total += probs[i]
    x = u * total
    acc = 0.0
    for i in range(n):
        acc += probs[i]
        if x < acc:
            return i
    return n - 1


@njit(
    types.int64(STATE_T, types.int64, types.float64, types.int64, types.int64, KERNELS_T,
                EVAL_T, _F1, types.int64, types.int64[:, ::1], _F2, _F1, _I1, _I1, _F1, _I1, _I1,
                types.float64, _F1, _F1, FEATURES_T, _F1, _F1),
    cache=True,
)
def mcts_search(root, simulations, exploration, rollout_cap, seed, kernels, evaluate, eval_params,
                eval_mode, nodes, value_sums, ret, legal_buf, undo_row, probs, root_actions,
                root_visits, prior_temperature, child_values, priors, features_into, policy_params, features_row):
    """Run ``simulations`` and write each root action with its visit count; returns their number.

    With ``prior_temperature`` > 0 (an evaluation, no chance nodes) the search is PUCT: when a
    node is expanded every child is scored by ``evaluate`` from the mover's view (its value kept
    in ``child_values``), the children's priors are the softmax of those values over
    ``prior_temperature`` (kept in ``priors``: worked out once, not at every visit), an unvisited child counts its own value as its mean, and a child is
    picked by mean + exploration * prior * sqrt(parent visits) / (1 + visits).

    With ``policy_params`` (a policy network's flat parameters, more than one number) the priors
    come from that network instead: one pass over the node's inputs (``features_into``, written
    into ``features_row``), its logits' softmax over the legal actions. An unvisited child then
    counts the parent's mean as its own (its value is not known before its visit).

    A new leaf is scored by a random rollout (``eval_mode`` ROLLOUT), or by ``evaluate`` (a
    heuristic or a compiled network, chance nodes included, as expectiminimax scores them):
    for every seat (EVAL_EACH_SEAT), or once for
    seat 0 and negated for seat 1 in two-player zero-sum games (EVAL_ZERO_SUM: one evaluation a
    leaf). ``nodes`` needs one row per possible node
    (simulations times the widest branching, plus one, is always enough) and ``value_sums`` a
    row per node with one column per seat.
    """
    legal, apply, returns, chance_outcomes = (kernels.legal_actions, kernels.apply_action, kernels.returns,
                                              kernels.chance_outcomes)
    undo = kernels.undo_action
    use_policy = policy_params.shape[0] > 1 and eval_mode != ROLLOUT
    use_priors = prior_temperature > 0.0 and eval_mode != ROLLOUT and not use_policy
    np.random.seed(seed)
    num_seats = value_sums.shape[1]
    capacity = nodes.shape[0]
    nodes[0, PARENT] = -1
    nodes[0, MOVER] = -1
    nodes[0, FIRST_CHILD] = -1
    nodes[0, NUM_CHILDREN] = 0
    nodes[0, VISITS] = 0
    value_sums[0, :] = 0.0
    used = 1
    state = root.copy()
    for _ in range(simulations):
        state[:] = root
        node = 0
        # selection and expansion: descend until a new node or the end of the game
        while True:
            player = state[0]
            if player == TERMINAL:
                break
            if nodes[node, FIRST_CHILD] < 0:
                if player == CHANCE:
                    n = chance_outcomes(state, legal_buf, probs)
                else:
                    n = legal(state, legal_buf)
                if used + n > capacity:
                    break  # tree full: evaluate this node by a rollout
                nodes[node, FIRST_CHILD] = used
                nodes[node, NUM_CHILDREN] = n
                for i in range(n):
                    child = used + i
                    nodes[child, PARENT] = node
                    nodes[child, MOVER] = player
                    nodes[child, FIRST_CHILD] = -1
                    nodes[child, NUM_CHILDREN] = 0
                    nodes[child, ACTION] = legal_buf[i]
                    nodes[child, VISITS] = 0
                    value_sums[child, :] = 0.0
                    if use_priors and player != CHANCE:  # the child's value, for its prior
                        apply(state, legal_buf[i], undo_row)
                        if state[0] == TERMINAL:
                            returns(state, ret)
                            child_values[child] = ret[player]
                        else:
                            child_values[child] = evaluate(state, player, eval_params)
                        undo(state, legal_buf[i], undo_row)
                if use_policy and player != CHANCE:  # the policy network's softmax over the legal actions
                    features_into(state, features_row)
                    logits = mlp_forward(features_row, policy_params)
                    top = -1e300
                    for i in range(n):
                        top = max(top, logits[legal_buf[i]])
                    total = 0.0
                    for i in range(n):
                        priors[used + i] = np.exp(logits[legal_buf[i]] - top)
                        total += priors[used + i]
                    for i in range(n):
                        priors[used + i] /= total
                if use_priors and player != CHANCE:  # the softmax over the new children
                    top = -1e300
                    for i in range(n):
                        top = max(top, child_values[used + i])
                    total = 0.0
                    for i in range(n):
                        priors[used + i] = np.exp((child_values[used + i] - top) / prior_temperature)
                        total += priors[used + i]
                    for i in range(n):
                        priors[used + i] /= total
                used += n
                is_new = True
            else:
                is_new = False
            first = nodes[node, FIRST_CHILD]
            count = nodes[node, NUM_CHILDREN]
            if player == CHANCE:
                n = chance_outcomes(state, legal_buf, probs)
                pick = first + _sample(probs, n, np.random.random())
            elif use_priors or use_policy:
                pick = first
                best = -1e300
                scale = exploration * np.sqrt(nodes[node, VISITS] + 1.0)
                unvisited = 0.0  # with a policy: the parent's mean
                if use_policy and nodes[node, VISITS] > 0:
                    unvisited = value_sums[node, player] / nodes[node, VISITS]
                for k in range(count):
                    child = first + k
                    visits = nodes[child, VISITS]
                    if visits > 0:
                        mean = value_sums[child, player] / visits
                    elif use_priors:
                        mean = child_values[child]
                    else:
                        mean = unvisited
                    score = mean + scale * priors[child] / (1.0 + visits) + 1e-9 * np.random.random()
                    if score > best:
                        best = score
                        pick = child
            else:
                pick = -1
                best = -1e300
                log_parent = np.log(nodes[node, VISITS] + 1.0)
                offset = np.random.randint(count)  # unvisited children in random order
                for k in range(count):
                    child = first + (k + offset) % count
                    visits = nodes[child, VISITS]
                    if visits == 0:
                        pick = child
                        break
                    score = value_sums[child, player] / visits + exploration * np.sqrt(log_parent / visits)
                    if score > best:
                        best = score
                        pick = child
            apply(state, nodes[pick, ACTION], undo_row)
            node = pick
            if is_new or nodes[node, VISITS] == 0:
                break
        # rollout: uniformly random moves, chance sampled, until the end or the cap
        steps = 0
        if eval_mode != ROLLOUT and state[0] != TERMINAL:  # the evaluation instead (chance nodes too)
            if use_priors and node > 0 and eval_mode == EVAL_ZERO_SUM:
                # its parent's expansion scored it already, for the seat that moved into it
                mover = nodes[node, MOVER]
                ret[mover] = child_values[node]
                ret[1 - mover] = -child_values[node]
            elif eval_mode == EVAL_ZERO_SUM:
                ret[0] = evaluate(state, 0, eval_params)
                ret[1] = -ret[0]
            else:
                for seat in range(num_seats):
                    ret[seat] = evaluate(state, seat, eval_params)
            steps = -1
        while steps >= 0 and state[0] != TERMINAL and steps < rollout_cap:
            if state[0] == CHANCE:
                n = chance_outcomes(state, legal_buf, probs)
                action = legal_buf[_sample(probs, n, np.random.random())]
            else:
                n = legal(state, legal_buf)
                action = legal_buf[np.random.randint(n)]
            apply(state, action, undo_row)
            steps += 1
        if state[0] == TERMINAL:
            returns(state, ret)
        elif steps >= 0:
            ret[:] = 0.0
        # backpropagation
        while node >= 0:
            nodes[node, VISITS] += 1
            for seat in range(num_seats):
                value_sums[node, seat] += ret[seat]
            node = nodes[node, PARENT]
    first = nodes[0, FIRST_CHILD]
    count = nodes[0, NUM_CHILDREN] if first >= 0 else 0
    for k in range(count):
        root_actions[k] = nodes[first + k, ACTION]
        root_visits[k] = nodes[first + k, VISITS]
    return count


class MCTSAgent(BaseAgent):
    """``mcts:simulations=1000,exploration=1.4``: UCT with uniformly random rollouts.

    Plays the most visited root move (ties broken by the seeded generator). ``rollout_cap``
    bounds a rollout (0: the game's own move cap); an unfinished rollout counts as a draw.
    ``eval=NAME`` scores each new leaf by an evaluation instead of a rollout: ``net`` (the
    game's shipped network, in compiled code), ``<file>.pt`` or a heuristic of the game.
    ``prior_temperature=T`` (> 0, with ``eval=``, games without chance) makes it PUCT with
    priors from the evaluation: each child's prior is the softmax of its value over T.
    ``policy=net`` (the game's shipped policy network) or ``policy=FILE.pt`` (with ``eval=``,
    games without chance that declare ``features_into``) makes it PUCT with the priors of a
    policy network: one network pass a node, where value priors score every child.
    """

    spec_name = "mcts"
    description = ("Monte Carlo tree search: UCT with random rollouts or eval= leaves; PUCT with prior_temperature "
                   "or policy=")
    limits = {
        "simulations": Range(1, 10_000_000, integer=True),
        "exploration": Range(0, 1e6),
        "rollout_cap": Range(0, 10_000_000, integer=True),
        "prior_temperature": Range(0, 1e6),
    }

    def __init__(
        self,
        *,
        simulations: int = 1000,
        exploration: float = 1.4,
        rollout_cap: int = 0,
        eval: str = "",
        prior_temperature: float = 0.0,
        policy: str = "",
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed, name)
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        check_eval_spec(eval)
        if prior_temperature > 0 and not eval:
            raise ValueError("prior_temperature needs eval=... (the priors come from the evaluation)")
        if policy and not eval:
            raise ValueError("policy= needs eval=... (the policy gives the priors, the evaluation the leaves' values)")
        if policy and prior_temperature > 0:
            raise ValueError("policy= and prior_temperature= both set the priors: take one")
        if policy:
            check_eval_spec(policy)
        self.prior_temperature = float(prior_temperature)
        self.policy_name = policy
        self._policies: dict[tuple, np.ndarray] = {}
        self.simulations = simulations
        self.exploration = exploration
        self.rollout_cap = rollout_cap
        self.eval_name = eval
        self._evaluators: dict[tuple[str, int], HeuristicEvaluator] = {}
        self._arrays: dict[tuple, tuple] = {}
        self.last_visits: dict[int, int] = {}

    def _buffers(self, state: GameState) -> tuple:
        priors = self.prior_temperature > 0 or bool(self.policy_name)
        key = (type(state), state.num_players, state.max_legal_actions, state.game.undo_size, priors)
        if key not in self._arrays:
            capacity = self.simulations * state.max_legal_actions + 1
            self._arrays[key] = (
                np.zeros((capacity, 6), np.int64),
                np.zeros((capacity, state.num_players), np.float64),
                np.zeros(state.num_players, np.float64),
                np.zeros(state.max_legal_actions, np.int64),
                np.zeros(max(1, state.game.undo_size), np.int64),
                np.zeros(state.max_legal_actions, np.float64),
                np.zeros(state.max_legal_actions, np.int64),
                np.zeros(state.max_legal_actions, np.int64),
                np.zeros(capacity if self.prior_temperature > 0 else 1, np.float64),
                np.zeros(capacity if priors else 1, np.float64),
            )
        return self._arrays[key]

    def visit_counts(self, state: GameState) -> dict[int, int]:
        """Run the search from ``state`` and return the visits of each root action."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("MCTS searches positions where a player is to move")
        if (self.prior_temperature > 0 or self.policy_name) and state.game.has_chance:
            what = "policy" if self.policy_name else "prior_temperature"
            raise ValueError(f"{what}: priors need a game without chance nodes; {state.game.id} has them")
        nodes, sums, ret, legal, undo_row, probs, actions, visits, child_values, priors = self._buffers(state)
        cap = self.rollout_cap or state.max_game_length
        seed = int(self.rng.integers(2**31))
        evaluator = self._evaluator(state)
        kernel = evaluator.kernel if evaluator else HeuristicEvaluator.zero_kernel()
        params = evaluator.params if evaluator else _NO_PARAMS
        if evaluator is None:
            mode = ROLLOUT
        elif state.game.zero_sum and state.num_players == 2:
            mode = EVAL_ZERO_SUM
        else:
            mode = EVAL_EACH_SEAT
        n = compiled(mcts_search)(state.array, self.simulations, self.exploration, cap, seed,
                                  kernel_refs(state.game.kernels), eval_ref(kernel), params,
                                  mode, nodes, sums, ret, legal, undo_row, probs,
                                  actions, visits, self.prior_temperature, child_values, priors,
                                  *self._policy(state))
        self.last_visits = {int(a): int(v) for a, v in zip(actions[:n], visits[:n])}
        return self.last_visits

    def _policy(self, state: GameState) -> tuple:
        """The features kernel, policy parameters and features row ``mcts_search`` takes (no
        policy: a one-number parameter array)."""
        if not self.policy_name:
            return features_ref(_no_features), _NO_PARAMS, _NO_PARAMS
        game = state.game
        if game.features_into is None:
            raise ValueError(f"policy=: {game.id} declares no features_into for a policy network")
        inputs = int(game.encode(state.array[None]).shape[1])
        key = (game.id, inputs, state.num_actions)
        if key not in self._policies:  # the layout is checked against this board's sizes
            self._policies[key] = compiled_policy_params(game.id, self.policy_name, inputs, state.num_actions)
        return features_ref(game.features_into), self._policies[key], np.zeros(inputs, np.float64)

    def _evaluator(self, state: GameState) -> HeuristicEvaluator | None:
        """The compiled evaluation of ``eval=`` (None: random rollouts)."""
        if not self.eval_name:
            return None
        game = state.game
        # a network is checked against one board's input count: another board size gets its own
        inputs = int(game.encode(state.array[None]).shape[1]) if game.encode is not None and game.net_value else 0
        key = (game.id, inputs)
        if key not in self._evaluators:
            self._evaluators[key] = compiled_evaluator_for(state, self.eval_name)
        return self._evaluators[key]

    def search(self, state: GameState) -> dict[int, int]:
        """The search: visits of each root action."""
        return self.visit_counts(state)

    def policy(self, state: GameState) -> np.ndarray:
        """Visit fractions of a search, per legal action (``state.legal_actions()`` order)."""
        counts = self.visit_counts(state)
        visits = np.array([counts.get(int(a), 0) for a in state.legal_actions()], np.float64)
        return visits / visits.sum()

    def act(self, state: GameState) -> int:
        counts = self.visit_counts(state)
        most = max(counts.values())
        return self.choose(sorted(a for a, v in counts.items() if v == most))
