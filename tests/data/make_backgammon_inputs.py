"""Record backgammon positions and the network inputs plies computes for them.

The shipped backgammon networks were trained on exactly these inputs, so a change to how they
are computed (a faster search for the shots, say) must leave every one of them as it was. This
script plays random games (uniform legal moves, seeded), keeps every fifth position with a
side to move, and writes their states, the side each is encoded for (alternating, so both views
occur) and the inputs and classes ``plies.games.backgammon.features.encode`` gives them.
``tests/backgammon/test_backgammon_features.py`` compares the current code's inputs with these.

    python tests/data/make_backgammon_inputs.py [--positions 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from plies.games.backgammon import BackgammonState, features
from plies.games.state import sample_chance


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path(__file__).with_name("backgammon_inputs.npz"))
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    kept: list[np.ndarray] = []
    seen = 0
    while len(kept) < args.positions:
        state = BackgammonState()
        while not state.is_terminal() and len(kept) < args.positions:
            if state.is_chance_node():
                state.apply_unchecked(sample_chance(state, rng))
                continue
            if seen % 5 == 0:
                kept.append(state.array.copy())
            seen += 1
            actions = state.legal_actions()
            state.apply_unchecked(int(actions[rng.integers(len(actions))]))
    states = np.stack(kept)
    mover = (np.arange(len(states)) % 2).astype(np.int64)
    inputs, classes = features.encode(states, mover)
    np.savez_compressed(args.out, states=states, mover=mover, inputs=inputs, classes=classes)
    print(f"{len(states)} positions ({int((classes != features.RACE).sum())} contact) -> {args.out}")


if __name__ == "__main__":
    main()
