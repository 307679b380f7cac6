"""What priors cost MCTS: the median decision time of plies' compiled MCTS with the game's
network at the leaves, as UCT and as PUCT with priors from the network
(``prior_temperature``) or from a policy network (``policy=``: the game's shipped one, or
``--policy FILE.pt``), over the same positions from random play, in one run.

The win rates at equal simulations and at equal time are tournaments (docs/training.md,
"Priors for MCTS"); this script gives the times that make "equal time" honest.
python benchmarks/bench_mcts_priors.py [--game connect_four] [--positions 60] [--policy FILE.pt]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import machine
from plies.agents import make
from plies.agents.value_net import shipped_policy
from plies.games.registry import new_state

SPECS = (
    "mcts:simulations=200,eval=net",
    "mcts:simulations=1000,eval=net",
    "mcts:simulations=2000,eval=net",
    "mcts:simulations=200,eval=net,prior_temperature=0.1",
    "mcts:simulations=200,eval=net,prior_temperature=0.3",
)


def positions(game: str, count: int, seed: int, plies: tuple[int, int] = (4, 20)) -> list:
    """Positions after ``plies`` (a range) random plies where the game goes on."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = new_state(game, seed=rng.randrange(2**31))
        for _ in range(rng.randint(*plies)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.append(state)
    return found


def median_decision_ms(spec: str, game: str, states: list) -> tuple[float, float]:
    """Median wall and CPU milliseconds a decision (CPU time is what a loaded machine distorts
    least: the searches are single-threaded)."""
    agent = make(spec, seed=0, game=game)
    agent.act(states[0])  # numba compiles
    wall, cpu = [], []
    for state in states:
        start, start_cpu = time.perf_counter(), time.process_time()
        agent.act(state)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--policy", help="a policy network file (default: the game's shipped one, if any)")
    args = parser.parse_args()
    print(f"machine: {machine()}\n")
    states = positions(args.game, args.positions, 7)
    policy = args.policy or ("net" if shipped_policy(args.game).exists() else "")
    specs = [*SPECS, *(f"mcts:simulations={n},eval=net,policy={policy}" for n in (200, 400, 600) if policy)]
    rows = [(spec, median_decision_ms(spec, args.game, states)) for spec in specs]
    base = rows[0][1][1]
    print(f"## {args.game}: median decision over {len(states)} positions")
    print(f"| agent | wall ms | CPU ms | CPU vs {rows[0][0]} |\n|---|---:|---:|---:|")
    for spec, (wall, cpu) in rows:
        print(f"| `{spec}` | {wall:.3f} | {cpu:.3f} | {cpu / base:.2f}x |")


if __name__ == "__main__":
    main()
