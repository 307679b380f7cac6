"""Nine Men's Morris: alpha-beta search.

Run: ``python benchmarks/bench_nine_mens_morris.py [--quick]``, after a warm-up (numba
compilation is not timed). Random playouts, the AEC env and the batched env against OpenSpiel:
``python -m benchmarks.run --games nine_mens_morris``.

Alpha-beta (``plies.agents.alphabeta``) at depth 4, 6 and 8 from the opening and from a
   moving-phase position, with plain and symmetric keys, cold and with a warm table (the same
   search repeated: rote learning).
"""

from __future__ import annotations

import argparse

from plies.agents.alphabeta import AlphaBetaSearch
from plies.games.nine_mens_morris import NineMensMorrisState

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
    parser.add_argument("--quick", action="store_true", help="depths 4 and 6 only")
    args = parser.parse_args()
    bench_search((4, 6) if args.quick else (4, 6, 8))


if __name__ == "__main__":
    main()
