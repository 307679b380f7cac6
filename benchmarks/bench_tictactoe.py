"""Tic-Tac-Toe: plies (GameState and env) against OpenSpiel and PettingZoo, in one run.

python benchmarks/bench_tictactoe.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyspiel
from pettingzoo.classic import tictactoe_v3

import plies

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import aec_playout, machine, openspiel_playout, plies_state_playout, rate, report
from plies.classroom.tictactoe import outcome_counts
from plies.games.tictactoe import TicTacToeState


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    print(f"machine: {machine()}\n")
    rows = [
        ("plies GameState", rate(plies_state_playout(TicTacToeState), args.seconds)),
        ("OpenSpiel tic_tac_toe (Python API)", rate(openspiel_playout(pyspiel.load_game("tic_tac_toe")), args.seconds)),
    ]
    print(report("random playouts, state API", rows, "OpenSpiel tic_tac_toe (Python API)"), "\n")
    rows = [
        ("plies env (AEC)", rate(aec_playout(plies.make("tictactoe")), args.seconds)),
        ("PettingZoo tictactoe_v3", rate(aec_playout(tictactoe_v3.env()), args.seconds)),
    ]
    print(report("random playouts, PettingZoo AEC loop", rows, "PettingZoo tictactoe_v3"), "\n")
    outcome_counts([0] * 9)  # compile / load the cache
    start = time.perf_counter()
    repeats = 20
    for _ in range(repeats):
        counts = outcome_counts([0] * 9)
    print(f"## outcome_counts(empty board) = {counts}: {(time.perf_counter() - start) / repeats * 1000:.1f} ms")


if __name__ == "__main__":
    main()
