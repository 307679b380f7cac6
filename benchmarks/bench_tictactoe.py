"""Tic-Tac-Toe: the write-up's exhaustive ``outcome_counts`` recursion, timed.

Random playouts, the AEC env and the batched env against OpenSpiel and PettingZoo:
``python -m benchmarks.run --games tictactoe``.

python benchmarks/bench_tictactoe.py
"""

from __future__ import annotations

import time

from plies.classroom.tictactoe import outcome_counts


def main() -> None:
    outcome_counts([0] * 9)  # compile / load the cache
    start = time.perf_counter()
    repeats = 20
    for _ in range(repeats):
        counts = outcome_counts([0] * 9)
    print(f"## outcome_counts(empty board) = {counts}: {(time.perf_counter() - start) / repeats * 1000:.1f} ms")


if __name__ == "__main__":
    main()
