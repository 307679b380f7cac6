"""Nine Men's Morris speed: random playouts against OpenSpiel, and alpha-beta search.

Run: ``python benchmarks/bench_nine_mens_morris.py [--games N] [--quick]``. Everything is
measured in this one run, after a warm-up (numba compilation is not timed):

1. random playouts with OpenSpiel's rules (flying, no draw rules, 200-turn cap), through
   plies' Python ``GameState`` and through ``pyspiel`` (C++ behind Python bindings), plus the
   same playouts as one compiled numba loop over plies' kernels; ratios are printed;
2. alpha-beta (``plies.agents.alphabeta``) at depth 4, 6 and 8 from the opening and from a
   moving-phase position, with plain and symmetric keys, cold and with a warm table (the same
   search repeated: rote learning).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from plies.agents.alphabeta import AlphaBetaSearch
from plies.games.nine_mens_morris import OPENSPIEL_OPTIONS, NineMensMorrisState, rules

MOVING_PHASE = """
W-----B-----.
| W---.---B |
| | .-B-W | |
W-.-B   .-W-B
| | .-W-. | |
| B---.---W |
.-----B-----.
W to move
"""


def playouts_plies(games: int, seed: int) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for _ in range(games):
        state = NineMensMorrisState(**OPENSPIEL_OPTIONS)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_unchecked(int(legal[rng.integers(len(legal))]))
            steps += 1
    return time.perf_counter() - start, steps


def playouts_openspiel(games: int, seed: int) -> tuple[float, int]:
    import pyspiel

    game = pyspiel.load_game("nine_mens_morris")
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    return time.perf_counter() - start, steps


@njit(cache=True)
def _kernel_playouts(initial, games, seed):
    np.random.seed(seed)
    legal = np.zeros(rules.MAX_LEGAL_ACTIONS, np.int64)
    undo = np.zeros(rules.UNDO_SIZE, np.int64)
    steps = 0
    for _ in range(games):
        state = initial.copy()
        while state[0] >= 0:
            n = rules.legal_actions(state, legal)
            rules.apply_action(state, legal[np.random.randint(n)], undo)
            steps += 1
    return steps


def playouts_kernels(games: int, seed: int) -> tuple[float, int]:
    initial = NineMensMorrisState(**OPENSPIEL_OPTIONS).array
    start = time.perf_counter()
    steps = _kernel_playouts(initial, games, seed)
    return time.perf_counter() - start, steps


def bench_playouts(games: int) -> None:
    playouts_plies(5, 0)
    playouts_openspiel(5, 0)
    playouts_kernels(5, 0)
    rows = []
    for name, fn, n in (
        ("plies GameState (Python)", playouts_plies, games),
        ("OpenSpiel pyspiel (C++ via Python)", playouts_openspiel, games),
        ("plies kernels (one numba loop)", playouts_kernels, games * 20),
    ):
        seconds, steps = fn(n, 1)
        rows.append((name, n, steps, seconds))
    print(f"\nRandom playouts, OpenSpiel rules ({games} games; numba loop {games * 20})")
    print(f"{'implementation':38s} {'games/s':>10s} {'steps/s':>12s} {'vs OpenSpiel':>13s}")
    base = rows[1][2] / rows[1][3]
    for name, n, steps, seconds in rows:
        rate = steps / seconds
        print(f"{name:38s} {n / seconds:10.0f} {rate:12.0f} {rate / base:12.2f}x")


def bench_search(depths: tuple[int, ...]) -> None:
    positions = {
        "opening": NineMensMorrisState(),
        "moving phase": NineMensMorrisState.from_string(MOVING_PHASE),
    }
    AlphaBetaSearch().search(positions["opening"], 2)  # warm-up: load compiled code
    AlphaBetaSearch(symmetry=True).search(positions["opening"], 2)
    print("\nAlpha-beta (weighted heuristic, iterative deepening, 2^20-entry table)")
    print(f"{'position':13s} {'depth':>5s} {'keys':>9s} {'cold s':>8s} {'cold nodes':>11s} "
          f"{'warm s':>8s} {'warm nodes':>11s} {'best':>8s}")
    for label, state in positions.items():
        for depth in depths:
            for symmetry in (False, True):
                search = AlphaBetaSearch(symmetry=symmetry)
                cold = search.search(state, depth)
                warm = search.search(state, depth)
                best = ",".join(state.action_to_string(a) for a in cold.best_moves[:2])
                print(f"{label:13s} {depth:5d} {'symmetric' if symmetry else 'plain':>9s} "
                      f"{cold.stats['runtime']:8.3f} {cold.stats['visited']:11d} "
                      f"{warm.stats['runtime']:8.3f} {warm.stats['visited']:11d} {best:>8s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="random games per implementation")
    parser.add_argument("--quick", action="store_true", help="depths 4 and 6 only, 50 games")
    args = parser.parse_args()
    games = 50 if args.quick else args.games
    bench_playouts(games)
    bench_search((4, 6) if args.quick else (4, 6, 8))


if __name__ == "__main__":
    main()
