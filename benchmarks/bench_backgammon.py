"""Backgammon: 2-ply moves and a whole 3-ply game, plies next to OpenSpiel; ``--networks`` times
the value networks' decisions at 1 and 2 ply instead. Random playouts, the AEC env and the
batched env (against OpenSpiel and pgx): ``python -m benchmarks.run --games backgammon``.

OpenSpiel's Python ``expectiminimax`` (open_spiel.python.algorithms.minimax) counts every
decision as a ply (chance nodes not counted) and splits doubles over two decisions, so its
depth 2 (own move, opponent's roll, opponent's move) is the write-up's 2-ply for non-doubles. Both sides use a pip-count
value function here.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import machine  # noqa: E402
from plies.agents.evaluator_specs import evaluator_for  # noqa: E402
from plies.agents.expectiminimax import ExpectiminimaxAgent, analyse  # noqa: E402
from plies.games.backgammon import BackgammonState  # noqa: E402
from plies.games.state import sample_chance  # noqa: E402


def positions(count: int, seed: int = 0) -> list[BackgammonState]:
    """Positions from random games, each with a player to move."""
    rng = np.random.default_rng(seed)
    found: list[BackgammonState] = []
    while len(found) < count:
        state = BackgammonState()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state.apply_unchecked(sample_chance(state, rng))
                continue
            if len(state.dice_left) in (2, 4) and rng.random() < 0.2:
                found.append(state.clone())
            actions = state.legal_actions()
            state.apply_unchecked(int(actions[rng.integers(len(actions))]))
    return found


def time_moves(states: list[BackgammonState], depth: int, eval_name: str,
               clock=time.perf_counter) -> list[float]:
    evaluator = evaluator_for(states[0], eval_name)
    analyse(states[0], depth=depth, evaluator=evaluator)  # compile / load caches
    times = []
    for state in states:
        start = clock()
        analyse(state, depth=depth, evaluator=evaluator)
        times.append(clock() - start)
    return times


def whole_game(depth: int, eval_name: str, seed: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of this process, result for the deeper player)."""
    rng = np.random.default_rng(seed)
    agents = [ExpectiminimaxAgent(depth=depth, eval=eval_name, seed=seed),
              ExpectiminimaxAgent(depth=1, eval=eval_name, seed=seed + 1)]
    state = BackgammonState()
    start = time.perf_counter()
    cpu = time.process_time()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_unchecked(sample_chance(state, rng))
        else:
            state.apply_unchecked(agents[state.current_player].act(state))
    return time.perf_counter() - start, time.process_time() - cpu, float(state.returns()[0])


def openspiel_moves(count: int, seed: int = 0) -> list[float]:
    import pyspiel
    from open_spiel.python.algorithms.minimax import expectiminimax

    game = pyspiel.load_game("backgammon")
    rng = np.random.default_rng(seed)

    def pips(state) -> float:  # pip lead of player 0, from the board
        x = sum((24 - p) * state.board(0, p) for p in range(24))
        o = sum((p + 1) * state.board(1, p) for p in range(24))
        return float(np.tanh((o - x) / 40.0))

    times = []
    state = game.new_initial_state()
    while len(times) < count and not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        player = state.current_player()

        def value(s, player=player):
            return pips(s) if player == 0 else -pips(s)

        start = time.perf_counter()
        _, action = expectiminimax(state, 2, value, player)
        times.append(time.perf_counter() - start)
        state.apply_action(action)
    return times


def network_decisions(evals: list[str], count: int = 40) -> None:
    """Median wall and CPU time of a network player's decision at 1 and 2 ply (one forward pass
    per batch of leaves), on positions from random games."""
    print(f"# Backgammon network decisions ({machine()}, load average {os.getloadavg()[0]:.1f})\n")
    print("| evaluator | depth | positions | median wall | median CPU | max wall |")
    print("|---|---:|---:|---:|---:|---:|")
    states = positions(count, seed=3)
    for eval_name in evals:
        for depth, subset in ((1, states), (2, states[: max(1, count // 2)])):
            wall = time_moves(subset, depth, eval_name)
            cpu = time_moves(subset, depth, eval_name, clock=time.process_time)
            print(f"| {eval_name} | {depth} | {len(subset)} | {np.median(wall) * 1e3:.1f} ms | "
                  f"{np.median(cpu) * 1e3:.1f} ms | {max(wall) * 1e3:.1f} ms |", flush=True)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--networks", nargs="*", metavar="EVAL",
                        help="time network decisions with these eval= names or .pt files (default: net td80)")
    args = parser.parse_args()
    if args.networks is not None:
        network_decisions(args.networks or ["net", "td80"])
        return
    print(f"# Backgammon benchmark ({machine()})\n", flush=True)
    print(f"\nload average before the searches: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(wall times grow with it; CPU times are this process's own)")
    states = positions(30)
    two = time_moves(states, 2, "pips")
    two_cpu = time_moves(states, 2, "pips", clock=time.process_time)
    spiel = openspiel_moves(3)
    print("\n## 2-ply move (write-up's 2-ply, full width, pip heuristic)")
    print(f"| plies expectiminimax depth=2 | median {np.median(two) * 1e3:.1f} ms | "
          f"max {max(two) * 1e3:.1f} ms | {len(two)} positions |")
    print(f"| same, CPU time | median {np.median(two_cpu) * 1e3:.1f} ms | "
          f"max {max(two_cpu) * 1e3:.1f} ms | |")
    print(f"| OpenSpiel Python expectiminimax depth 2 | median {np.median(spiel) * 1e3:.0f} ms | "
          f"max {max(spiel) * 1e3:.0f} ms | {len(spiel)} positions |")
    print(f"| ratio (medians) | {np.median(spiel) / np.median(two):.0f}x |")
    three = time_moves(states[:8], 3, "singleton", clock=time.process_time)
    print(f"\n3-ply move, singleton (CPU time): median {np.median(three):.2f} s, "
          f"max {max(three):.2f} s ({len(three)} positions)")
    games = [whole_game(3, "singleton", seed) for seed in range(4)]
    print("\n## whole game: 3-ply (full width, singleton) against 1-ply")
    print("| wall | CPU | result |")
    for seconds, cpu, result in games:
        print(f"| {seconds:.1f} s | {cpu:.1f} s | 3-ply {'won' if result > 0 else 'lost'} |")
    print(f"| median {np.median([g[0] for g in games]):.1f} s | "
          f"median {np.median([g[1] for g in games]):.1f} s | (write-up: 1,493 s) |")


if __name__ == "__main__":
    main()
