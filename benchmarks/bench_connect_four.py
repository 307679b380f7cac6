"""Connect Four: plies's searches against OpenSpiel's, and the solver against the reference.

Random playouts, the AEC env and the batched env: ``python -m benchmarks.run --games connect_four``.

1. alpha-beta to depth 8 from the empty board with the cell-weight evaluation: plies vs
   OpenSpiel's Python ``minimax.alpha_beta_search`` with the same evaluation and depth;
2. the exact solver on Pascal Pons's benchmark sets: mean time and nodes per position next to
   the reference C++ solver's figures (tests/data/connect4/README.md). The table is cleared
   before each position, outside the timing, so every position is solved from scratch.

Run: ``python benchmarks/bench_connect_four.py [--l1r2 N] [--l1r3 N]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")

from plies.games.connect_four import ConnectFourState, rules  # noqa: E402
from plies.games.connect_four.solver import Solver  # noqa: E402
from plies.games.connect_four.state import state_from_moves  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "connect4"
REFERENCE = {  # Pons's C++ solver, no book: (mean time s, mean nodes)
    "Test_L3_R1": (12e-6, 51),
    "Test_L2_R1": (81e-6, 449),
    "Test_L2_R2": (7.3e-3, 39_800),
    "Test_L1_R1": (0.54e-3, 3_300),
    "Test_L1_R2": (195e-3, 1_190_000),
    "Test_L1_R3": (8.5, 52_000_000),
}


# ----- 1. alpha-beta ---------------------------------------------------------------------------
WEIGHTS = rules.cell_weights(7, 6)[::-1].copy()  # row 0 at the top, as OpenSpiel prints


def openspiel_cells(state) -> float:
    """The cell-weight evaluation for player 0 (x), over the same total as plies' kernel."""
    grid = np.array([list(row) for row in str(state).split()])
    own = WEIGHTS[grid == "x"].sum()
    other = WEIGHTS[grid == "o"].sum()
    return float(own - other) / (WEIGHTS.sum() + 1.0)


def alphabeta_plies(depth: int) -> tuple[float, list[int], float, int]:
    from plies.agents.alphabeta import AlphaBetaSearch

    AlphaBetaSearch("cells").search(ConnectFourState(), 2)  # compile / load caches
    searcher = AlphaBetaSearch("cells")
    start = time.perf_counter()
    result = searcher.search(ConnectFourState(), depth)
    return time.perf_counter() - start, result.best_moves, result.value, int(result.stats["visited"])


def alphabeta_openspiel(depth: int) -> tuple[float, int, float, int]:
    import pyspiel
    from open_spiel.python.algorithms import minimax

    game = pyspiel.load_game("connect_four")
    calls = [0]

    def value(state) -> float:
        calls[0] += 1
        return openspiel_cells(state)

    start = time.perf_counter()
    best_value, action = minimax.alpha_beta_search(
        game, game.new_initial_state(), value, maximum_depth=depth, maximizing_player_id=0
    )
    return time.perf_counter() - start, action, best_value, calls[0]


# ----- 2. solver ---------------------------------------------------------------------------------
def solve_set(solver: Solver, name: str, limit: int | None) -> dict[str, float]:
    rows = [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]
    if limit is not None:
        rows = rows[:limit]
    times, nodes, wrong = [], [], 0
    for moves, expected in rows:
        position = state_from_moves(moves)
        solver.reset()
        start = time.perf_counter()
        score = solver.score(position)
        times.append(time.perf_counter() - start)
        nodes.append(solver.nodes)
        wrong += score != int(expected)
    return {
        "positions": len(rows),
        "mean_s": float(np.mean(times)),
        "median_s": float(np.median(times)),
        "max_s": float(np.max(times)),
        "nodes": float(np.mean(nodes)),
        "wrong": wrong,
    }


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--l1r2", type=int, default=100, help="positions of Test_L1_R2 (of 1000)")
    parser.add_argument("--l1r3", type=int, default=0, help="positions of Test_L1_R3 (slow)")
    parser.add_argument("--skip", default="", help="comma list of parts to skip: alphabeta,solver")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    if "alphabeta" not in skip:
        print(f"\n== alpha-beta, depth {args.depth}, cell weights, empty board ==")
        t_ours, best, value, visited = alphabeta_plies(args.depth)
        print(f"plies alphabeta   {t_ours * 1e3:9.1f} ms  best {best} value {value:.4f}  "
              f"{visited:,} nodes ({visited / t_ours:,.0f}/s, iterative deepening 1..{args.depth})")
        t_os, action, os_value, leaves = alphabeta_openspiel(args.depth)
        print(f"OpenSpiel python  {t_os * 1e3:9.1f} ms  best {action} value {os_value:.4f}  "
              f"{leaves:,} evaluations")
        print(f"ratio OpenSpiel/plies: {t_os / t_ours:.0f}x faster")

    if "solver" not in skip:
        print("\n== exact solver (table cleared before each position) ==")
        solver = Solver()
        for line in (DATA / "Test_L2_R1").read_text().splitlines()[:50]:  # load caches, warm up
            solver.score(state_from_moves(line.split()[0]))
        sets = {"Test_L3_R1": None, "Test_L2_R1": None, "Test_L2_R2": None, "Test_L1_R1": None,
                "Test_L1_R2": args.l1r2, "Test_L1_R3": args.l1r3}
        print(f"{'set':<11} {'n':>5} {'mean':>10} {'ref':>10} {'ratio':>6} {'median':>10} "
              f"{'nodes':>12} {'ref nodes':>11} {'slowest':>9} wrong")
        for name, limit in sets.items():
            if limit == 0:
                continue
            r = solve_set(solver, name, limit)
            ref_t, ref_n = REFERENCE[name]
            print(f"{name:<11} {r['positions']:>5} {fmt_time(r['mean_s']):>10} {fmt_time(ref_t):>10} "
                  f"{r['mean_s'] / ref_t:>5.2f}x {fmt_time(r['median_s']):>10} {r['nodes']:>12,.0f} {ref_n:>11,} "
                  f"{fmt_time(r['max_s']):>9} {r['wrong']}", flush=True)


if __name__ == "__main__":
    main()
