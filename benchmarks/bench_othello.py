"""Othello: plies's MCTS against OpenSpiel's C++ MCTSBot, in one run.

Random playouts, the batched env (against pgx) and the AEC env (against OpenSpiel through
Shimmy): ``python -m benchmarks.run --games othello``.

MCTS with random rollouts from the start: plies ``mcts`` vs OpenSpiel's C++ ``MCTSBot``, in
   simulations/s, then a match in which each side gets the simulations it runs in the same
   time per move.

python -m benchmarks.bench_othello [--simulations 5000] [--match-games 10] [--move-time 0.05]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import report
from plies.games.othello import OthelloState


def machine_and_load() -> str:
    model = subprocess.run("lscpu | grep 'Model name'", shell=True, capture_output=True, text=True).stdout
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return f"{model.split(':', 1)[-1].strip()}, nproc {cores}; uptime: {load}"


def openspiel_bot(simulations: int, seed: int):
    import pyspiel

    game = pyspiel.load_game("othello")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    # game, evaluator, uct_c, max_simulations, max_memory_mb, solve, seed, verbose
    return game, pyspiel.MCTSBot(game, evaluator, 1.4, simulations, 1000, False, seed, False)


def mcts_rates(simulations: int, repeats: int) -> tuple[float, float]:
    from plies.agents import make

    agent = make(f"mcts:simulations={simulations},exploration=1.4", seed=0)
    state = OthelloState()
    agent.visit_counts(state)  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        agent.visit_counts(state)
    ours = simulations * repeats / (time.perf_counter() - start)
    game, bot = openspiel_bot(simulations, 0)
    spiel_state = game.new_initial_state()
    bot.step(spiel_state)
    start = time.perf_counter()
    for _ in range(repeats):
        bot.step(spiel_state)
    theirs = simulations * repeats / (time.perf_counter() - start)
    return ours, theirs


def mcts_match(games: int, ours_sims: int, theirs_sims: int) -> tuple[int, int, int, float, float]:
    """plies mcts vs OpenSpiel MCTSBot, colours alternating; (wins, draws, losses, mean move
    seconds of plies, of OpenSpiel)."""
    from tqdm import tqdm

    from plies.agents import make

    wins = draws = losses = 0
    times: dict[str, list[float]] = {"plies": [], "openspiel": []}
    for g in tqdm(range(games), desc="mcts match"):
        agent = make(f"mcts:simulations={ours_sims},exploration=1.4", seed=g)
        game, bot = openspiel_bot(theirs_sims, g)
        ours, theirs = OthelloState(), game.new_initial_state()
        plies_seat = g % 2
        while not ours.is_terminal():
            start = time.perf_counter()
            if ours.current_player == plies_seat:
                action = agent.act(ours)
                times["plies"].append(time.perf_counter() - start)
            else:
                action = bot.step(theirs)
                times["openspiel"].append(time.perf_counter() - start)
            ours.apply(action)
            theirs.apply_action(action)
        result = ours.returns()[plies_seat]
        assert result == theirs.returns()[plies_seat]
        wins += result > 0
        draws += result == 0
        losses += result < 0
    return wins, draws, losses, float(np.mean(times["plies"])), float(np.mean(times["openspiel"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=5000, help="per MCTS rate measurement")
    parser.add_argument("--match-games", type=int, default=10)
    parser.add_argument("--move-time", type=float, default=0.05, help="seconds per move in the match")
    args = parser.parse_args()
    print(f"machine: {machine_and_load()}\n")

    ours, theirs = mcts_rates(args.simulations, 3)
    rows = [("plies mcts", ours), ("OpenSpiel MCTSBot (C++)", theirs)]
    print(report("MCTS from the start, random rollouts", rows, "OpenSpiel MCTSBot (C++)", "simulations/s"), "\n")
    if args.match_games:
        ours_sims = max(1, int(ours * args.move_time))
        theirs_sims = max(1, int(theirs * args.move_time))
        wins, draws, losses, t_ours, t_theirs = mcts_match(args.match_games, ours_sims, theirs_sims)
        print(f"## match, {args.move_time}s per move: plies mcts ({ours_sims} simulations, "
              f"{t_ours * 1e3:.0f} ms/move) vs MCTSBot ({theirs_sims} simulations, {t_theirs * 1e3:.0f} ms/move)")
        print(f"plies wins {wins}, draws {draws}, losses {losses} of {args.match_games} (colours alternate)")


if __name__ == "__main__":
    main()
