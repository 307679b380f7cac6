"""Would rollouts of a network's own play label positions closer to the truth than the network
itself? A diagnostic of issue 25's plateau, asked before anyone spends the core-hours that
training on such labels takes. gnubg 0-ply is the judge here (its values stand in for the
truth), never a teacher: nothing is fitted.

1. ``--games`` self-play games of ``--network`` (1 ply, dice from ``--seed``) give end-of-turn
   positions (``positions`` of backgammon_imitation.py); ``--positions`` of those of one class
   (``--class``, contact by default: where most of the difference with gnubg lies) are drawn.
2. Each is labelled from the view of the side on roll by
   - V, the network's own outputs at the position;
   - S, its 1-ply search: the best play of each of the 21 rolls, averaged with their chances;
   - R_a and R_b, two independent rollouts: each first roll played out ``--trials`` times by the
     network at 1 ply for both sides until the game ends (``rollout_targets`` with a horizon of
     ``--horizon`` moves; a trial still going there is scored by the network), the first roll
     stratified;
   - G, gnubg 0-ply's outputs.
3. It prints the mean square distance of each label's P(win) from gnubg's. For the rollouts,
   R = (R_a + R_b) / 2, and their own noise, E[(R_a - R_b)^2] / 4, is taken out, so the figure
   is what rollouts with endless trials would score. If R lies closer to G than V does, rollouts
   of the network's own play carry information the network lacks (the lever issue 25's notes
   left untried); if not, labels from them would only teach the network its own values again.

The labels are saved (``--out``, an .npz) and ``--report FILE`` prints the figures from one
again. ``--workers`` processes label chunks of ``--chunk`` positions, each chunk's dice from
(``--seed``, chunk). Needs the ``gnubg`` extra (gnubg-nn).

    python benchmarks/backgammon_rollout_truth.py --positions 2000 --workers 2 --out truth.npz
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
from tqdm import tqdm

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_imitation import gnubg_labels, positions
from plies.agents.value_net import load_value_net
from plies.files import atomic_write
from plies.games.backgammon import features
from plies.training.backgammon import ARCH, OUTPUTS, _forward, numpy_weights, rollout_targets, search_targets

CLASSES = {"contact": features.CONTACT, "race": features.RACE, "crashed": features.CRASHED}
LABELS = ("V", "S", "R_a", "R_b", "G")


def own_values(weights, rows: np.ndarray) -> np.ndarray:
    """The network's five outputs at positions waiting for a roll, from the side on roll's view."""
    x, classes = features.encode(rows, features.next_mover(rows))
    return _forward(weights, x, classes).astype(np.float64)


def position_classes(rows: np.ndarray) -> np.ndarray:
    return features.encode(rows, features.next_mover(rows))[1]


def label_chunk(network_path: str, rows: np.ndarray, horizon: int, trials: int, seed: tuple[int, ...]
                ) -> dict[str, np.ndarray]:
    """V, S, R_a and R_b of ``rows`` (one worker's share; G is added by the caller)."""
    weights = numpy_weights(load_value_net(network_path, "backgammon"))
    rng = np.random.default_rng(seed)
    return {"V": own_values(weights, rows), "S": search_targets(weights, rows),
            "R_a": rollout_targets(weights, rows, horizon, trials, rng),
            "R_b": rollout_targets(weights, rows, horizon, trials, rng)}


def distances(labels: dict[str, np.ndarray]) -> dict[str, float]:
    """Mean square distances of P(win) (column 0) from gnubg's, the rollouts' noise taken out."""
    g = labels["G"][:, 0]
    a, b = labels["R_a"][:, 0], labels["R_b"][:, 0]
    rollout = (a + b) / 2
    noise = float(np.mean((a - b) ** 2) / 4)  # the variance of the mean of two independent rollouts
    return {
        "V": float(np.mean((labels["V"][:, 0] - g) ** 2)),
        "S": float(np.mean((labels["S"][:, 0] - g) ** 2)),
        "R": float(np.mean((rollout - g) ** 2)) - noise,
        "R_noise": noise,
        "R_from_V": float(np.mean((rollout - labels["V"][:, 0]) ** 2)) - noise,
        "R_minus_V": float(np.mean(rollout - labels["V"][:, 0])),
    }


def bootstrap_gap(labels: dict[str, np.ndarray], rounds: int = 1000, seed: int = 0) -> tuple[float, float]:
    """A 95% bootstrap interval (over positions) of the distance of R from G minus V's."""
    rng = np.random.default_rng(seed)
    n = len(labels["G"])
    gaps = []
    for _ in range(rounds):
        pick = rng.integers(0, n, n)
        d = distances({k: v[pick] for k, v in labels.items()})
        gaps.append(d["R"] - d["V"])
    low, high = np.percentile(gaps, [2.5, 97.5])
    return float(low), float(high)


def write_labels(path: str | Path, labels: dict[str, np.ndarray], rows: np.ndarray, settings: dict[str, int]) -> None:
    def write(f) -> None:
        np.savez(f, rows=rows, **labels, **{k: np.int64(v) for k, v in settings.items()})

    atomic_write(path, write)


SETTINGS = ("games", "positions", "horizon", "trials", "seed")


def read_labels(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The labels of a file ``write_labels`` made; anything else, or a damaged one, is refused."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ValueError(f"{path} is not a readable file of rollout labels ({error})") from None
    missing = [k for k in ("rows", *LABELS, *SETTINGS) if k not in arrays]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: not a file of rollout labels")
    n = len(arrays["rows"])
    for k in LABELS:
        a = arrays[k]
        if a.dtype.kind != "f" or a.shape != (n, OUTPUTS) or not np.isfinite(a).all() or (a < -1e-6).any() or (a > 1 + 1e-6).any():
            raise ValueError(f"{path}: {k} must be {n} rows of {OUTPUTS} probabilities")
    if n == 0:
        raise ValueError(f"{path} holds no positions")
    return {k: arrays[k].astype(np.float64) for k in LABELS}, {k: int(arrays[k]) for k in SETTINGS}


def report(labels: dict[str, np.ndarray]) -> None:
    d = distances(labels)
    low, high = bootstrap_gap(labels)
    rms = lambda v: math.sqrt(max(v, 0.0))  # noqa: E731
    print(f"{len(labels['G'])} positions; mean square distance of P(win) from gnubg 0-ply's (root in brackets):")
    print(f"  V  the network                    {d['V']:.6f}  ({rms(d['V']):.4f})")
    print(f"  S  its 1-ply search               {d['S']:.6f}  ({rms(d['S']):.4f})")
    print(f"  R  rollouts, their noise out      {d['R']:.6f}  ({rms(d['R']):.4f})   noise of R: {d['R_noise']:.6f}")
    print(f"  R - V: {d['R'] - d['V']:+.6f}, 95% bootstrap interval [{low:+.6f}, {high:+.6f}]")
    print(f"  how far the rollouts move P(win) from the network's: {rms(d['R_from_V']):.4f} (mean {d['R_minus_V']:+.4f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", default="plies/agents/weights/backgammon_net.pt")
    parser.add_argument("--games", type=int, default=200, help="self-play games that give the positions")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--class", dest="position_class", choices=sorted(CLASSES), default="contact")
    parser.add_argument("--horizon", type=int, default=400, help="moves a trial is played at most")
    parser.add_argument("--trials", type=int, default=1, help="trials of each first roll, in each of R_a and R_b")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=64, help="positions a job")
    parser.add_argument("--out", default="", help="an .npz to save the labels in")
    parser.add_argument("--report", default="", help="print the figures of a saved .npz instead")
    args = parser.parse_args(argv)
    if args.report:
        try:
            labels, settings = read_labels(args.report)
        except ValueError as error:
            parser.error(str(error))
        print(f"labels of {args.report}: " + ", ".join(f"{k} {v}" for k, v in settings.items()))
        report(labels)
        return 0
    if min(args.games, args.positions, args.horizon, args.trials, args.workers, args.chunk) < 1:
        parser.error("--games, --positions, --horizon, --trials, --workers and --chunk must be at least 1")
    if args.horizon > 10_000 or args.trials > 1000:
        parser.error("--horizon is at most 10,000 moves and --trials at most 1,000")
    if args.out and not Path(args.out).resolve().parent.is_dir():
        parser.error(f"--out {args.out}: its folder does not exist")
    network = load_value_net(args.network, "backgammon")
    if getattr(network, "arch", None) != ARCH:
        parser.error(f"{args.network} is not a contact/race network")
    t0 = time.perf_counter()
    rows = positions(network, args.games, 0.0, args.seed)
    rows = rows[position_classes(rows) == CLASSES[args.position_class]]
    if len(rows) < args.positions:
        parser.error(f"{args.games} games gave {len(rows)} {args.position_class} positions, fewer than "
                     f"--positions {args.positions}: ask for more --games")
    rows = rows[np.sort(np.random.default_rng(args.seed).choice(len(rows), args.positions, replace=False))]
    chunks = [rows[i:i + args.chunk] for i in range(0, len(rows), args.chunk)]
    print(f"{len(rows)} {args.position_class} positions from {args.games} games ({time.perf_counter() - t0:.0f} s); "
          f"{len(chunks)} jobs on {args.workers} workers", flush=True)
    # spawned, not forked: the parent has torch's and numba's threads going by now
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        jobs = pool.map(label_chunk, [args.network] * len(chunks), chunks, [args.horizon] * len(chunks),
                        [args.trials] * len(chunks), [(args.seed, i) for i in range(len(chunks))])
        parts = list(tqdm(jobs, total=len(chunks), desc="rollouts", unit="job", mininterval=10))
    labels = {k: np.concatenate([p[k] for p in parts]) for k in ("V", "S", "R_a", "R_b")}
    labels["G"] = gnubg_labels(rows).astype(np.float64)
    print(f"labelled in {time.perf_counter() - t0:.0f} s", flush=True)
    if args.out:
        write_labels(args.out, labels, rows, {k: getattr(args, k) for k in SETTINGS})
    report(labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
