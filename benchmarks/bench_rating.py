"""Placing an agent on the Connect Four ladder: adaptive placement (the two rungs nearest the
estimate) against playing every rung in turn, same stopping rule (a 95% interval of +-width
points), in one run. Target: a fast agent placed to +-50 in under 3 minutes on 2 cores.

python benchmarks/bench_rating.py [--agent mcts:simulations=200] [--width 50] [--game connect_four]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import machine
from plies.evaluation.rating import Ladder, place


def timed(ladder: Ladder, agent: str, width: float, max_games: int, nearest: int, seed: int):
    start = time.perf_counter()
    placement = place(ladder, agent, width=width, max_games=max_games, seed=seed, progress=False, nearest=nearest)
    return placement, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--agent", default="mcts:simulations=200,name=user")
    parser.add_argument("--width", type=float, default=50.0)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ladder = Ladder.load(args.game)
    print(f"{machine()}; {args.game} ladder of {ladder.date}, {len(ladder.rungs)} rungs; agent {args.agent}")
    place(ladder, args.agent, max_games=4, progress=False)  # warm-up: compile the kernels once
    rows = []
    for label, nearest in (("adaptive (2 nearest rungs)", 2), ("every rung in turn", len(ladder.rungs))):
        placement, seconds = timed(ladder, args.agent, args.width, args.max_games, nearest, args.seed)
        rows.append((label, placement, seconds))
        print(f"{label:28s} {seconds:7.1f} s  {placement.games:5d} games  rating {placement.rating:6.0f} "
              f"[{placement.low:.0f}, {placement.high:.0f}]")
    (_, fast, t_fast), (_, slow, t_slow) = rows
    print(f"adaptive / every rung: {t_slow / t_fast:.2f}x faster, {slow.games / max(fast.games, 1):.2f}x fewer games")


if __name__ == "__main__":
    main()
