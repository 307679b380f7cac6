"""Backgammon self-play throughput of ``plies train backgammon``'s workers, and where its time goes.

One worker's loop (``plies.training.backgammon.play_games``: 64 games at once, every roll's
afterstates of all games encoded in one compiled call and scored in one forward pass) with the
shipped network's shape, timed in one run two ways on the same dice:

1. ``torch``: the forward pass the workers use (torch's matrix products and sigmoid);
2. ``numpy``: the same network in numpy, as the workers computed it until 2026-11-27.

The two forwards agree up to float rounding, so both play the same games but for a rare near
tie, and the ratio is the forward pass's alone. A second table splits one batch of afterstates' time into the inputs
(``features.encode``) and each forward pass. Everything runs on one thread, as a worker does.

    python -m benchmarks.bench_backgammon_selfplay [--games 128] [--repeats 3] [--network net]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from plies.agents.value_net import load_value_net, shipped_weights
from plies.games.backgammon import features, rules
from plies.training import backgammon as trainer


def numpy_forward(weights: list[tuple[np.ndarray, ...]], x: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The workers' forward pass as it was in numpy (kept here as the comparison)."""
    out = np.empty((len(x), trainer.OUTPUTS), np.float32)
    classes = features.network_classes(classes, len(weights))
    for k, layers in enumerate(weights):
        rows = np.flatnonzero(classes == k)
        if len(rows):
            w1, b1, w2, b2 = layers[:4]
            with np.errstate(over="ignore"):
                h = 1.0 / (1.0 + np.exp(-(x[rows, :w1.shape[1]] @ w1.T + b1)))
            logits = h @ w2.T + b2
            if len(layers) > 4:
                w3, b3, w4 = layers[4:]
                logits += np.maximum(h @ w3.T + b3, 0.0) @ w4.T
            out[rows] = 1.0 / (1.0 + np.exp(-np.clip(logits, -80.0, 80.0)))
    return out


def games_per_second(weights, forward, games: int, seed: int) -> float:
    shipped = trainer._forward
    trainer._forward = forward
    try:
        start = time.perf_counter()
        trainer.play_games(weights, games, seed=seed, lam=0.0)
        return games / (time.perf_counter() - start)
    finally:
        trainer._forward = shipped


def afterstate_batches(weights, steps: int, seed: int) -> list[np.ndarray]:
    """The afterstates of ``steps`` self-play steps of 64 games (what one forward pass scores)."""
    mover = trainer._Mover(weights)
    rng = np.random.default_rng(seed)
    states = np.stack([rules.initial_array(1) for _ in range(64)])
    batches = []
    for _ in range(steps):
        trainer.roll(states, rng.random(len(states)), mover.undo)
        batches.append(mover.move(states)["rows"].copy())
        for g in np.flatnonzero(states[:, 0] == trainer.TERMINAL):
            states[g] = rules.initial_array(1)
    return batches


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=128, help="games per measurement")
    p.add_argument("--repeats", type=int, default=3, help="measurements of each way, alternating")
    p.add_argument("--network", default="net", help="a shipped backgammon network's name")
    args = p.parse_args()
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(1)
    threadpool_limits(limits=1, user_api="blas")
    weights = trainer.numpy_weights(load_value_net(shipped_weights("backgammon", args.network), "backgammon"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; network {args.network}, "
          f"{args.games} games a measurement")
    games_per_second(weights, trainer._forward, 4, 0)  # compile the kernels outside the timing
    rates: dict[str, list[float]] = {"torch": [], "numpy": []}
    for repeat in range(args.repeats):
        for name, forward in (("torch", trainer._forward), ("numpy", numpy_forward)):
            rates[name].append(games_per_second(weights, forward, args.games, seed=repeat))
    print("| forward | games/s (one worker), each measurement | median | torch / numpy |")
    print("|---|---|---:|---:|")
    ratio = np.median(rates["torch"]) / np.median(rates["numpy"])
    for name, values in rates.items():
        shown = " / ".join(f"{v:.1f}" for v in values)
        print(f"| {name} | {shown} | {np.median(values):.1f} | {ratio if name == 'torch' else 1.0:.2f}x |")

    batches = afterstate_batches(weights, 100, seed=1)
    rows = sum(len(b) for b in batches)
    start = time.perf_counter()
    encoded = [features.encode(r, features.next_mover(r)) for r in batches]
    timings = {"inputs (features.encode)": time.perf_counter() - start}
    for name, forward in (("forward, torch", trainer._forward), ("forward, numpy", numpy_forward)):
        start = time.perf_counter()
        for x, classes in encoded:
            forward(weights, x, classes)
        timings[name] = time.perf_counter() - start
    print(f"\n{rows:,} afterstates in {len(batches)} batches (about {rows // len(batches):,} a batch)\n")
    print("| part | µs an afterstate |")
    print("|---|---:|")
    for name, seconds in timings.items():
        print(f"| {name} | {seconds * 1e6 / rows:.2f} |")


if __name__ == "__main__":
    main()
