"""What a network costs a leaf-by-leaf search: the compiled kernels that MCTS and alpha-beta
call for ``eval=net`` against torch, the network's own framework, in one run.

For each game with a shipped network: positions from random play (chance nodes included in the
dice games), each scored once (for every seat in Dice Wars, as MCTS asks), three ways: the compiled kernel, leaf by leaf inside
one compiled loop (what the searches do); torch one position a pass (what a search calling
torch leaf by leaf would pay); torch all positions in one pass (expectiminimax's way, the
cheapest per position, but a search that scores one leaf at a time cannot batch).
python benchmarks/bench_net_leaves.py [--positions 400] [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from numba import njit, types

from benchmarks.bench_mcts_priors import positions
from benchmarks.timing import machine, measure
from plies.agents.evaluator_specs import compiled_evaluator_for
from plies.agents.value_net import cached_network, require_torch
from plies.games.kernels import EVAL_T, eval_ref

GAMES = ("connect_four", "othello", "nine_mens_morris", "backgammon", "dice_wars")


@njit(types.float64(types.int64[:, ::1], EVAL_T, types.float64[::1], types.int64), cache=True)
def score_all(states, evaluate, params, seats):
    """Every position scored for every seat by a compiled evaluation (the sum, so no work is
    optimised away)."""
    total = 0.0
    for b in range(states.shape[0]):
        for seat in range(seats):
            total += evaluate(states[b], seat, params)
    return total


def leaf_row(game: str, count: int, seconds: float) -> str:
    """The table row of one game: microseconds a leaf three ways."""
    states = positions(game, count, 7, plies=(2, 40))
    size = max({len(s.array) for s in states}, key=lambda n: sum(len(s.array) == n for s in states))
    states = [s for s in states if len(s.array) == size]  # one batch: arrays of one length
    batch = np.ascontiguousarray(np.stack([s.array for s in states]))
    players = states[0].num_players
    # a two-player zero-sum search scores a leaf once; Dice Wars asks every seat
    seats = 1 if states[0].game.zero_sum and players == 2 else players
    evaluator = compiled_evaluator_for(states[0], "net")
    kernel, params = eval_ref(evaluator.kernel), evaluator.params
    model = cached_network(game)
    leaves = len(states) * seats

    def compiled_run() -> int:
        score_all(batch, kernel, params, seats)
        return leaves

    def one_a_pass() -> int:
        for row in batch:
            model.seat_values(row[None], players, "cpu")
        return leaves

    def batched() -> int:
        model.seat_values(batch, players, "cpu")
        return leaves

    micro = [1e6 / measure(w, seconds).best for w in (compiled_run, one_a_pass, batched)]
    return (f"| {game} | {len(states)} x {seats} | {micro[0]:.2f} | {micro[1]:.1f} | {micro[2]:.2f} | "
            f"{micro[1] / micro[0]:.0f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    torch = require_torch()
    torch.set_num_threads(1)
    print(f"machine: {machine()}\n")
    print("| game | positions x seats | compiled µs a leaf | torch one a pass µs | torch batched µs | "
          "one-a-pass / compiled |\n|---|---:|---:|---:|---:|---:|")
    for game in GAMES:
        print(leaf_row(game, args.positions, args.seconds))


if __name__ == "__main__":
    main()
