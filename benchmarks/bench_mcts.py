"""MCTS simulations per second: plies' compiled UCT and the users' example (a PUCT written in
examples/compiled_puct.py over the same kernels) against OpenSpiel's C++ MCTSBot, one run.

Both search from the initial position with uniformly random rollouts (one rollout per leaf)
and the same exploration constant. python benchmarks/bench_mcts.py [--simulations 20000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyspiel

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import report
from benchmarks.timing import machine
from plies.agents import make
from plies.games.registry import new_state

GAMES = {"tictactoe": "tic_tac_toe", "connect_four": "connect_four"}


def searches_per_second(search, state, simulations: int, repeats: int) -> float:
    """Simulations per second of ``search(state)`` (one call warms up: numba compiles)."""
    search(state)
    start = time.perf_counter()
    for _ in range(repeats):
        search(state)
    return simulations * repeats / (time.perf_counter() - start)


def plies_rate(game: str, simulations: int, repeats: int) -> float:
    agent = make(f"mcts:simulations={simulations}", seed=0)
    return searches_per_second(agent.visit_counts, new_state(game), simulations, repeats)


def example_rate(game: str, simulations: int, repeats: int) -> float:
    from examples.compiled_puct import PUCTAgent

    agent = PUCTAgent(simulations)
    return searches_per_second(agent.visit_counts, new_state(game), simulations, repeats)


def openspiel_rate(game: str, simulations: int, repeats: int) -> float:
    spiel_game = pyspiel.load_game(game)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    # game, evaluator, uct_c, max_simulations, max_memory_mb, solve, seed, verbose
    bot = pyspiel.MCTSBot(spiel_game, evaluator, 1.4, simulations, 1000, False, 0, False)
    state = spiel_game.new_initial_state()
    bot.step(state)
    start = time.perf_counter()
    for _ in range(repeats):
        bot.step(state)
    return simulations * repeats / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--simulations", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {machine()}\n")
    for game, spiel_name in GAMES.items():
        rows = [
            ("plies mcts", plies_rate(game, args.simulations, args.repeats)),
            ("users' PUCT example", example_rate(game, args.simulations, args.repeats)),
            ("OpenSpiel MCTSBot (C++)", openspiel_rate(spiel_name, args.simulations, args.repeats)),
        ]
        print(report(f"{game}: MCTS from the start", rows, "OpenSpiel MCTSBot (C++)", "simulations/s"), "\n")


if __name__ == "__main__":
    main()
