"""Your own compiled search over any plies game: PUCT with random rollouts, in one @njit function.

plies's games are numba kernels over an int64 state array (docs/compiled_code.md). A search of
your own takes them as one typed argument (``KERNELS_T``), so one compiled function serves every
game, and runs at machine speed: no Python between the moves. This one is PUCT (the AlphaZero
selection rule) with uniform priors and one random rollout per new leaf; swap the priors or the
rollout for your own policy.

    python examples/compiled_puct.py [--game connect_four] [--simulations 20000]

It prints the search's choice from the starting position and its simulations per second.
Games with chance are left out here (plies's own ``mcts`` agent shows chance nodes in a tree).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit, types

import plies
from plies.games.kernels import KERNELS_T, STATE_T, TERMINAL, compiled, kernel_refs

# node columns
PARENT, MOVER, FIRST_CHILD, COUNT, ACTION, VISITS = range(6)


@njit(types.int64(STATE_T, types.int64, types.float64, types.int64, KERNELS_T, types.int64[:, ::1],
                  types.float64[:, ::1], types.float64[::1], types.int64[::1], types.int64[::1],
                  types.int64[::1], types.int64[::1]),
      cache=True)
def puct_search(root, simulations, c_puct, seed, kernels, nodes, value_sums, ret, legal_buf, undo_row,
                root_actions, root_visits):
    """``simulations`` PUCT simulations from ``root``; writes each root action and its visits
    and returns their number. ``nodes`` needs ``simulations * max_legal_actions + 1`` rows and
    ``value_sums`` as many rows, one column per seat."""
    np.random.seed(seed)
    capacity = nodes.shape[0]
    nodes[0, PARENT] = -1
    nodes[0, FIRST_CHILD] = -1
    nodes[0, VISITS] = 0
    value_sums[0, :] = 0.0
    used = 1
    state = root.copy()
    for _ in range(simulations):
        state[:] = root  # each simulation plays forward on a copy: no undo needed
        node = 0
        while state[0] != TERMINAL:
            if nodes[node, FIRST_CHILD] < 0:  # a new leaf: expand it, then roll out
                n = kernels.legal_actions(state, legal_buf)
                if used + n <= capacity:
                    nodes[node, FIRST_CHILD] = used
                    nodes[node, COUNT] = n
                    for i in range(n):
                        child = used + i
                        nodes[child, PARENT] = node
                        nodes[child, MOVER] = state[0]
                        nodes[child, FIRST_CHILD] = -1
                        nodes[child, ACTION] = legal_buf[i]
                        nodes[child, VISITS] = 0
                        value_sums[child, :] = 0.0
                    used += n
                break
            player = state[0]
            first, count = nodes[node, FIRST_CHILD], nodes[node, COUNT]
            prior = 1.0 / count  # uniform priors: put a policy's here
            explore = c_puct * prior * np.sqrt(nodes[node, VISITS] + 1.0)
            best, pick = -1e300, first
            for child in range(first, first + count):
                visits = nodes[child, VISITS]
                q = value_sums[child, player] / visits if visits else 0.0
                score = q + explore / (1.0 + visits) + 1e-9 * np.random.random()
                if score > best:
                    best, pick = score, child
            kernels.apply_action(state, nodes[pick, ACTION], undo_row)
            node = pick
        while state[0] != TERMINAL:  # the rollout: uniformly random moves
            n = kernels.legal_actions(state, legal_buf)
            kernels.apply_action(state, legal_buf[np.random.randint(n)], undo_row)
        kernels.returns(state, ret)
        while node >= 0:
            nodes[node, VISITS] += 1
            value_sums[node, :] += ret
            node = nodes[node, PARENT]
    first = nodes[0, FIRST_CHILD]
    count = nodes[0, COUNT] if first >= 0 else 0
    for k in range(count):
        root_actions[k] = nodes[first + k, ACTION]
        root_visits[k] = nodes[first + k, VISITS]
    return count


class PUCTAgent:
    """An agent around ``puct_search``: plays the most visited root move. Any object with
    ``act(state) -> action`` is a plies agent (``plies.agents.register`` gives it a spec)."""

    def __init__(self, simulations: int = 1000, c_puct: float = 2.5, seed: int = 0) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        self.simulations, self.c_puct = simulations, c_puct
        self.rng = np.random.default_rng(seed)
        self.name = f"puct:simulations={simulations}"

    def visit_counts(self, state) -> dict[int, int]:
        if state.game.has_chance:
            raise ValueError(f"{state.game.id} has chance nodes; this example searches games without")
        if state.is_terminal():
            raise ValueError("the game is over")
        width, seats = state.max_legal_actions, state.num_players
        capacity = self.simulations * width + 1
        nodes = np.zeros((capacity, 6), np.int64)
        sums = np.zeros((capacity, seats), np.float64)
        actions, visits = np.zeros(width, np.int64), np.zeros(width, np.int64)
        # compiled(): the entry point without numba's per-call dispatch, each argument checked
        n = compiled(puct_search)(state.array, self.simulations, self.c_puct, int(self.rng.integers(2**31)),
                                  kernel_refs(state.game.kernels), nodes, sums, np.zeros(seats, np.float64),
                                  np.zeros(width, np.int64), np.zeros(max(1, state.game.undo_size), np.int64),
                                  actions, visits)
        return {int(a): int(v) for a, v in zip(actions[:n], visits[:n])}

    def act(self, state) -> int:
        counts = self.visit_counts(state)
        return max(counts, key=lambda a: (counts[a], -a))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--simulations", type=int, default=20_000)
    args = parser.parse_args()
    state = plies.get_game(args.game).new_state()
    agent = PUCTAgent(args.simulations)
    agent.act(state)  # the first call compiles (or loads numba's cache)
    start = time.perf_counter()
    move = agent.act(state)
    seconds = time.perf_counter() - start
    print(f"{args.game}: PUCT plays {state.action_to_string(move)} after {args.simulations} simulations, "
          f"{args.simulations / seconds:,.0f} simulations/s")


if __name__ == "__main__":
    main()
