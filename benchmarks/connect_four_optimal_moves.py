"""Connect Four: how often a search plays a solver-optimal move (docs/training.md).

Positions come from uniformly random play after 6 to 20 plies (the count drawn uniformly,
finished games and positions where the side to move can win at once skipped). The exact
solver scores every column win / draw / loss for the side to move (weak solving, within a node
limit; positions it cannot finish are left out and counted); a move is optimal when its value
is the best one. Each agent spec then picks a move in every position, and the share of optimal
picks is printed with its 95% Wilson interval.

The solved positions are kept in an ``.npz`` file (``--positions``) so that later agents are
measured on the same set without solving again.

    python -m benchmarks.connect_four_optimal_moves --count 1000 \
        "alphabeta:depth=4,eval=net" "alphabeta:depth=4"
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from plies.agents import make
from plies.files import atomic_write
from plies.games.connect_four import ConnectFourState
from plies.games.connect_four.solver import get_solver
from plies.training.common import wilson

NODE_LIMIT = 50_000_000


def draw_positions(count: int, seed: int, node_limit: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``count`` solved positions: their state arrays and per-column values (-1, 0, 1, or -9
    for a full column); also the number of positions the solver could not finish."""
    rng = np.random.default_rng(seed)
    solver = get_solver()
    arrays, values, skipped = [], [], 0
    with tqdm(total=count, desc="solving positions") as bar:
        while len(arrays) < count:
            state = ConnectFourState()
            plies = int(rng.integers(6, 21))
            for _ in range(plies):
                if state.is_terminal():
                    break
                state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal() or _wins_at_once(state):
                continue
            scores = solver.column_scores(state, weak=True, node_limit=node_limit)
            if scores is None:
                skipped += 1
                continue
            arrays.append(state.array.copy())
            values.append([-9 if v is None else int(np.sign(v)) for v in scores])
            bar.update(1)
    return np.array(arrays), np.array(values, np.int64), skipped


def _wins_at_once(state: ConnectFourState) -> bool:
    for action in state.legal_actions():
        child = state.clone()
        child.apply(int(action))
        if child.is_terminal() and child.returns()[state.current_player] > 0:
            return True
    return False


def optimal_share(spec: str, arrays: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, float]:
    """Whether ``spec`` picks an optimal move in each position, and its median seconds a move."""
    agent = make(spec, seed=0)
    hits, times = [], []
    for array, column_values in zip(arrays, values):
        state = ConnectFourState()
        state.array[:] = array
        start = time.perf_counter()
        action = agent.act(state)
        times.append(time.perf_counter() - start)
        hits.append(column_values[action] == column_values.max())
    return np.array(hits), float(np.median(times))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("agents", nargs="+", help="agent specs to measure")
    p.add_argument("--count", type=int, default=1000, help="positions")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--node-limit", type=int, default=NODE_LIMIT, help="solver nodes per position")
    p.add_argument("--positions", type=Path, default=Path("runs/connect_four_positions.npz"),
                   help="solved positions (made when missing, else read)")
    args = p.parse_args()
    if args.positions.exists():
        with np.load(args.positions, allow_pickle=False) as data:
            arrays, values, skipped = data["arrays"], data["values"], int(data["skipped"])
            if "node_limit" in data.files:
                args.node_limit = int(data["node_limit"])
        print(f"{len(arrays)} positions from {args.positions}")
    else:
        arrays, values, skipped = draw_positions(args.count, args.seed, args.node_limit)
        args.positions.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(args.positions, lambda f: np.savez_compressed(f, arrays=arrays, values=values,
                                                                    skipped=skipped, node_limit=args.node_limit))
    decisive = np.array([not np.all(v[v > -9] == v[v > -9].max()) for v in values])
    print(f"positions: {len(arrays)} (seed {args.seed}; {skipped} left unsolved within "
          f"{args.node_limit:,} nodes; {int(decisive.sum())} where the moves differ in value)")
    print("| agent | optimal moves | share | 95% interval | where the moves differ | median time a move |")
    print("|---|---:|---:|---|---:|---:|")
    for spec in args.agents:
        hits, median = optimal_share(spec, arrays, values)
        lo, hi = wilson(int(hits.sum()), len(arrays))
        dlo, dhi = wilson(int(hits[decisive].sum()), int(decisive.sum()))
        print(f"| `{spec}` | {int(hits.sum())} / {len(arrays)} | {100 * hits.mean():.1f}% | "
              f"{100 * lo:.1f}-{100 * hi:.1f}% | {100 * hits[decisive].mean():.1f}% "
              f"[{100 * dlo:.1f}, {100 * dhi:.1f}] | {1000 * median:.1f} ms |")


if __name__ == "__main__":
    main()
