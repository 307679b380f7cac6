"""Would more contact inputs help? A diagnostic of issue 25's plateau, run before any training.

Eleven candidate units a side that gnubg's contact inputs or the backgammon literature name and
plies's 240 inputs lack (``CANDIDATE_NAMES``) are appended to the 240, and two networks of the
same shape (two ReLU layers a class, ``--deep`` units, the same seed, data and steps) are fitted
to gnubg 0-ply's five outputs on self-play positions of ``--network`` (as
``backgammon_imitation.py`` gathers and labels them): one reads the 240 inputs, the other the 240
and the candidates. If the candidates carried something about the position that the 240 miss
and gnubg's network uses, the second fit would come closer to gnubg's values on the positions
held out; if it does not, more inputs of this kind are not where the gap is.

It prints each fit's held-out mean |P(win) - gnubg's P(win)|, in all positions, contact (with
crashed) and race, and the mean error of the gammon output. Needs the ``gnubg`` extra and torch.

    python benchmarks/backgammon_input_candidates.py --games 4000 --epochs 4
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_imitation import (
    HELD_OUT,
    class_logits,
    deep_nets,
    deep_units,
    fit,
    gnubg_labels,
    positions,
)
from plies.agents.value_net import load_value_net
from plies.games.backgammon import features
from plies.games.backgammon import rules as bg_rules
from plies.training.backgammon import ARCH

CANDIDATE_NAMES = (  # after gnubg's contact inputs of these names, in our own definitions
    "forward anchor: (25 - the lowest point 19..24 made) / 6, 0 without one",
    "second moment: the squared distances behind the mean of the side's checkers / 400",
    "timing: pips playable without breaking a home point or an anchor in the opponent's home / 100",
    "back game: checkers on the bar and in the opponent's home / 8 when holding two or more anchors there",
    "one anchor: the same with exactly one anchor there",
    "free pips: pips of the checkers beyond two on each made point, of blots and of the bar / 100",
    "borne off 0-5 / 5",
    "borne off 5-10 / 5",
    "borne off 10-15 / 5",
    "spares: checkers beyond two on home points / 10",
    "builders: checkers on points 7-12 / 10",
)
PER_SIDE = len(CANDIDATE_NAMES)


@njit(cache=True)
def _candidates(own, out, k):
    """The candidate units of one side (counts in its own numbering: 0 off, 25 bar) into out[k:]."""
    forward = 0.0
    for p in range(19, 25):
        if own[p] >= 2:
            forward = (25 - p) / 6.0
            break
    checkers = 0
    pips = 0
    for i in range(1, 26):
        checkers += own[i]
        pips += i * own[i]
    moment = 0.0
    if checkers > 0:
        mean = pips / checkers
        for i in range(1, 26):
            if i > mean:
                moment += own[i] * (i - mean) ** 2
    anchors = 0
    back = own[25]
    for p in range(19, 25):
        back += own[p]
        if own[p] >= 2:
            anchors += 1
    timing = 0
    free = 0
    for i in range(1, 26):
        c = own[i]
        held_back = 2 if c >= 2 and i != 25 and (i <= 6 or i >= 19) else 0  # home points and anchors stay
        timing += max(c - held_back, 0) * (i - 1)
        held = 2 if c >= 2 and i != 25 else 0
        free += max(c - held, 0) * i
    spares = 0
    for i in range(1, 7):
        spares += max(own[i] - 2, 0)
    builders = 0
    for i in range(7, 13):
        builders += own[i]
    off = own[0]
    out[k] = forward
    out[k + 1] = moment / 400.0
    out[k + 2] = timing / 100.0
    out[k + 3] = back / 8.0 if anchors >= 2 else 0.0
    out[k + 4] = back / 8.0 if anchors == 1 else 0.0
    out[k + 5] = free / 100.0
    out[k + 6] = min(off, 5) / 5.0
    out[k + 7] = min(max(off - 5, 0), 5) / 5.0
    out[k + 8] = max(off - 10, 0) / 5.0
    out[k + 9] = spares / 10.0
    out[k + 10] = builders / 10.0


@njit(cache=True)
def _encode_candidates(states, mover, out):
    counts = np.empty(26, np.int64)
    for b in range(states.shape[0]):
        for side in range(2):
            features._side_counts(states[b], mover[b] if side == 0 else 1 - mover[b], counts)
            _candidates(counts, out[b], side * PER_SIDE)


def candidate_inputs(states: np.ndarray, mover: np.ndarray) -> np.ndarray:
    """The candidates of a batch of states, the side ``mover[b]`` first, then the other side."""
    states = np.ascontiguousarray(states, np.int64)
    if not np.array_equal(mover, np.asarray(mover, np.int64)):
        raise ValueError("mover must hold whole seats (0 or 1)")
    mover = np.ascontiguousarray(mover, np.int64)
    if states.ndim != 2 or states.shape[1] != bg_rules.STATE_SIZE or mover.shape != (len(states),):
        raise ValueError("expected backgammon states (n, STATE_SIZE) and one mover a state")
    if len(mover) and (mover.min() < 0 or mover.max() > 1):
        raise ValueError("mover must hold seats 0 or 1")
    out = np.zeros((len(states), 2 * PER_SIDE), np.float32)
    _encode_candidates(states, mover, out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", default="plies/agents/weights/backgammon_net.pt")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--deep", default="400,200", help="the two ReLU layers' units")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    h1, h2 = deep_units(parser, args.deep)
    if min(args.games, args.epochs, args.threads) < 1:
        parser.error("--games, --epochs and --threads must be at least 1")
    if not 0.0 < args.lr < 1.0:
        parser.error(f"--lr must lie in (0, 1), not {args.lr}")
    import torch

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    network = load_value_net(args.network, "backgammon")
    if getattr(network, "arch", None) != ARCH:
        parser.error(f"{args.network} is not a contact/race network")
    rows = positions(network, args.games, 0.2, args.seed)
    if len(rows) <= HELD_OUT:
        parser.error(f"{len(rows)} positions: too few to hold {HELD_OUT} out; play more --games")
    targets = torch.from_numpy(gnubg_labels(rows))
    mover = features.next_mover(rows)
    x, classes = features.encode(rows, mover)
    with_candidates = np.concatenate([x, candidate_inputs(rows, mover)], 1)
    classes_t = torch.from_numpy(classes.astype(np.int64))
    held = np.random.default_rng(args.seed).permutation(len(rows))[:HELD_OUT]
    print(f"{len(rows):,} positions labelled by gnubg 0-ply in {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"\n{'inputs':<26} {'|dP(win)| all':>14} {'contact and crashed':>20} {'race':>8} {'|dP(gammon)|':>13}")
    for label, inputs in (("plies's 240", x), (f"240 + {2 * PER_SIDE} candidates", with_candidates)):
        torch.manual_seed(args.seed)
        nets = deep_nets(torch, h1, h2, inputs.shape[1])
        data = (torch.from_numpy(inputs), classes_t, targets)
        logits = lambda xs, cs, nets=nets: class_logits(torch, nets, xs, cs)  # noqa: E731
        error = fit(torch, logits, nets.parameters(), data, held, args.epochs, args.lr, args.seed)
        rows_t = torch.from_numpy(held)
        with torch.no_grad():
            p = torch.sigmoid(logits(data[0][rows_t], classes_t[rows_t]))
        gap = (p - targets[rows_t]).abs()
        race = classes_t[rows_t] == features.RACE
        print(f"{label:<26} {error:>14.5f} {float(gap[~race, 0].mean()):>20.5f} {float(gap[race, 0].mean()):>8.5f} "
              f"{float(gap[:, 1].mean()):>13.5f}", flush=True)
    print(f"\n(errors over the {HELD_OUT:,} positions held out of the fits; {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
