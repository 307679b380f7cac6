"""Record random Othello games played by pgx into tests/data/othello_pgx.npz.

pgx needs JAX, which no extra of plies installs, so its games are kept as data and
tests/othello/test_othello_pgx.py replays them through plies. Rebuild (about a minute on CPU):

    pip install pgx==2.6.0 "jax==0.10.*"
    python tests/data/make_othello_pgx.py [--games 1000] [--seed 0]

Arrays in the file (``games`` = G, ``steps`` = the longest game, T):

``actions``       (G, T) int8: the action of each step, -1 after the end (64 is the pass)
``legal``         (G, T, 9) uint8: pgx's legal-action mask before each step (65 bits,
                  ``np.packbits`` along the last axis, big-endian bit order)
``lengths``       (G,) int16: steps of each game
``first_player``  (G,) int8: the pgx seat that moved first (pgx draws it; it plays black)
``rewards``       (G, 2) int8: pgx's final rewards, indexed by pgx seat
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "othello_pgx.npz"
MAX_STEPS = 140  # pgx adds up to two passes to OpenSpiel's 128


def record(games: int, seed: int) -> dict[str, np.ndarray]:
    import jax
    import pgx
    from tqdm import tqdm

    env = pgx.make("othello")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    state = init(jax.random.split(jax.random.PRNGKey(seed), games))
    rng = np.random.default_rng(seed)
    actions = np.full((games, MAX_STEPS), -1, np.int8)
    legal = np.zeros((games, MAX_STEPS, 65), bool)
    lengths = np.zeros(games, np.int16)
    rewards = np.zeros((games, 2), np.int8)
    first_player = np.asarray(state.current_player).astype(np.int8)
    for t in tqdm(range(MAX_STEPS), desc="pgx othello steps"):
        done = np.asarray(state.terminated)
        if done.all():
            break
        mask = np.asarray(state.legal_action_mask)
        # a uniformly random legal action per game (finished games step on, untouched by pgx)
        chosen = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int64)
        live = ~done
        actions[live, t] = chosen[live]
        legal[live, t] = mask[live]
        lengths[live] += 1
        state = step(state, jax.numpy.asarray(chosen, jax.numpy.int32))
        ended = live & np.asarray(state.terminated)
        rewards[ended] = np.asarray(state.rewards)[ended].astype(np.int8)
    if not np.asarray(state.terminated).all():
        raise RuntimeError(f"some pgx games ran past {MAX_STEPS} steps")
    width = int(lengths.max())
    return {
        "actions": actions[:, :width],
        "legal": np.packbits(legal[:, :width], axis=-1),
        "lengths": lengths,
        "first_player": first_player,
        "rewards": rewards,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    arrays = record(args.games, args.seed)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    with tempfile.NamedTemporaryFile(dir=OUT.parent, delete=False, suffix=".tmp") as tmp:
        tmp.write(buffer.getvalue())
    os.replace(tmp.name, OUT)  # atomic: a reader never sees half a file
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes, {args.games} games)")


if __name__ == "__main__":
    main()
