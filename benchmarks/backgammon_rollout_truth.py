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
     stratified; with ``--luck-free`` the luck of every later roll taken out too (gnubg's
     variance reduction: a 1-ply search before each roll, about thirty times the CPU a trial);
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
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_imitation import gnubg_labels, positions
from benchmarks.backgammon_label_files import (
    check_probabilities,
    file_sha256,
    read_npz,
    setting,
)
from plies.agents.gnubg_agents import _gnubg
from plies.agents.value_net import load_value_net, require_torch
from plies.files import atomic_write
from plies.games.backgammon import features
from plies.training.backgammon import ARCH, _forward, numpy_weights, rollout_targets, search_targets

CLASSES = {"contact": features.CONTACT, "race": features.RACE, "crashed": features.CRASHED}
LABELS = ("V", "S", "R_a", "R_b", "G")


def contact_race_network(parser: argparse.ArgumentParser, path: str):
    """The network of ``path``, or a parser error that says why it will not do."""
    if not Path(path).is_file():
        parser.error(f"--network {path}: no such file")
    try:
        network = load_value_net(path, "backgammon")
    except (ValueError, OSError) as error:
        parser.error(f"--network {path}: {error}")
    if getattr(network, "arch", None) != ARCH:
        parser.error(f"--network {path} is not a contact/race network")
    return network


def own_values(weights, rows: np.ndarray) -> np.ndarray:
    """The network's five outputs at positions waiting for a roll, from the side on roll's view."""
    x, classes = features.encode(rows, features.next_mover(rows))
    return _forward(weights, x, classes).astype(np.float64)


def position_classes(rows: np.ndarray) -> np.ndarray:
    return features.encode(rows, features.next_mover(rows))[1]


def one_thread_worker():
    """Torch and numpy's BLAS on one thread in this worker process (a context for the BLAS):
    the workers fill the cores, and sixteen workers of sixteen threads each stall."""
    from threadpoolctl import threadpool_limits

    require_torch().set_num_threads(1)
    return threadpool_limits(limits=1, user_api="blas")


def label_chunk(network_path: str, rows: np.ndarray, horizon: int, trials: int, seed: tuple[int, ...],
                luck_free: bool = False) -> dict[str, np.ndarray]:
    """V, S, R_a and R_b of ``rows`` (one worker's share; G is added by the caller), and the
    seconds the two rollouts took."""
    with one_thread_worker():
        weights = numpy_weights(load_value_net(network_path, "backgammon"))
        rng = np.random.default_rng(seed)
        labels = {"V": own_values(weights, rows), "S": search_targets(weights, rows)}
        t0 = time.perf_counter()
        labels["R_a"] = rollout_targets(weights, rows, horizon, trials, rng, luck_free=luck_free)
        labels["R_b"] = rollout_targets(weights, rows, horizon, trials, rng, luck_free=luck_free)
        labels["seconds"] = np.array([time.perf_counter() - t0])
        return labels


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


def pooled(sets: list[dict[str, np.ndarray]]) -> dict[str, float]:
    """``distances`` of several sets of labels, each set's own noise taken out, weighted by positions."""
    n = np.array([len(labels["G"]) for labels in sets], np.float64)
    each = [distances(labels) for labels in sets]
    return {k: float(sum(w * d[k] for w, d in zip(n, each)) / n.sum()) for k in each[0]}


def bootstrap_gaps(sets: list[dict[str, np.ndarray]], rounds: int = 1000, seed: int = 0
                   ) -> dict[str, tuple[float, float]]:
    """95% bootstrap intervals of R's and S's distances from G minus V's, the positions of each set
    drawn again within it (positions, not games: boards of one game are related, so these
    intervals are on the narrow side)."""
    rng = np.random.default_rng(seed)
    gaps: dict[str, list[float]] = {"R - V": [], "S - V": []}
    for _ in range(rounds):
        drawn = []
        for labels in sets:
            pick = rng.integers(0, len(labels["G"]), len(labels["G"]))
            drawn.append({k: v[pick] for k, v in labels.items()})
        d = pooled(drawn)
        gaps["R - V"].append(d["R"] - d["V"])
        gaps["S - V"].append(d["S"] - d["V"])
    return {k: tuple(float(x) for x in np.percentile(v, [2.5, 97.5])) for k, v in gaps.items()}


SETTINGS = ("games", "positions", "horizon", "trials", "seed", "chunk")
OPTIONAL_SETTINGS = {"luck_free": 0}  # settings that files written before them lack
TEXTS = ("position_class", "network")


def write_labels(path: str | Path, labels: dict[str, np.ndarray], rows: np.ndarray, settings: dict[str, Any]) -> None:
    def write(f) -> None:
        np.savez(f, rows=rows, **labels, **{k: np.int64(settings[k]) for k in SETTINGS},
                 **{k: np.int64(settings.get(k, default)) for k, default in OPTIONAL_SETTINGS.items()},
                 **{k: np.array(str(settings[k])) for k in TEXTS})

    atomic_write(path, write)


def read_labels(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The labels of a file ``write_labels`` made; anything else, or a damaged one, is refused."""
    arrays = read_npz(path, "file of rollout labels")
    missing = [k for k in ("rows", *LABELS, *SETTINGS, *TEXTS) if k not in arrays]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: not a file of rollout labels")
    if arrays["rows"].ndim != 2:  # only their count is read: the labels are what is compared
        raise ValueError(f"{path}: rows must be a table of positions")
    n = len(arrays["rows"])
    if n == 0:
        raise ValueError(f"{path} holds no positions")
    for k in LABELS:
        check_probabilities(path, k, arrays[k], n)
    settings = {k: setting(path, arrays, k, "i") for k in SETTINGS}
    settings.update({k: setting(path, arrays, k, "i") if k in arrays else default
                     for k, default in OPTIONAL_SETTINGS.items()})
    settings.update({k: setting(path, arrays, k, "U") for k in TEXTS})
    if settings["luck_free"] not in (0, 1):
        raise ValueError(f"{path}: luck_free must be 0 or 1")
    return {k: arrays[k].astype(np.float64) for k in LABELS}, settings


def report(sets: list[dict[str, np.ndarray]]) -> None:
    d = pooled(sets)
    gaps = bootstrap_gaps(sets)
    rms = lambda v: math.sqrt(max(v, 0.0))  # noqa: E731
    count = sum(len(labels["G"]) for labels in sets)
    print(f"{count} positions in {len(sets)} set(s); mean square distance of P(win) from gnubg 0-ply's "
          "(root in brackets):")
    print(f"  V  the network                    {d['V']:.6f}  ({rms(d['V']):.4f})")
    print(f"  S  its 1-ply search               {d['S']:.6f}  ({rms(d['S']):.4f})")
    print(f"  R  rollouts, their noise out      {d['R']:.6f}  ({rms(d['R']):.4f})   noise of R: {d['R_noise']:.6f}")
    for name, (low, high) in gaps.items():
        gap = d[name[0]] - d["V"]
        print(f"  {name}: {gap:+.6f}, 95% bootstrap interval [{low:+.6f}, {high:+.6f}]")
    print(f"  how far the rollouts move P(win) from the network's: {rms(d['R_from_V']):.4f} (mean {d['R_minus_V']:+.4f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", default="plies/agents/weights/backgammon_net.pt")
    parser.add_argument("--games", type=int, default=200, help="self-play games that give the positions")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--class", dest="position_class", choices=sorted(CLASSES), default="contact")
    parser.add_argument("--horizon", type=int, default=400, help="moves a trial is played at most")
    parser.add_argument("--trials", type=int, default=1, help="trials of each first roll, in each of R_a and R_b")
    parser.add_argument("--luck-free", action="store_true",
                        help="take the luck of every later roll out of the rollouts (gnubg's variance reduction)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=64, help="positions a job")
    parser.add_argument("--out", default="", help="an .npz to save the labels in")
    parser.add_argument("--report", nargs="+", default=[], metavar="NPZ",
                        help="print the figures of saved labels instead (several files: pooled)")
    args = parser.parse_args(argv)
    if args.report:
        sets = []
        for path in args.report:
            try:
                labels, settings = read_labels(path)
            except ValueError as error:
                parser.error(str(error))
            print(f"labels of {path}: " + ", ".join(f"{k} {v}" for k, v in settings.items()))
            sets.append(labels)
        report(sets)
        return 0
    if min(args.games, args.positions, args.horizon, args.trials, args.workers, args.chunk) < 1:
        parser.error("--games, --positions, --horizon, --trials, --workers and --chunk must be at least 1")
    if args.horizon > 10_000 or args.trials > 1000:
        parser.error("--horizon is at most 10,000 moves and --trials at most 1,000")
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, not {args.seed}")
    if args.out and (Path(args.out).is_dir() or not Path(args.out).resolve().parent.is_dir()):
        parser.error(f"--out {args.out}: a file in a folder that exists")
    network = contact_race_network(parser, args.network)
    try:
        _gnubg()  # the judge, before the work rather than after it
    except ImportError as error:
        parser.error(str(error))
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
                        [args.trials] * len(chunks), [(args.seed, i) for i in range(len(chunks))],
                        [args.luck_free] * len(chunks))
        parts = list(tqdm(jobs, total=len(chunks), desc="rollouts", unit="job", mininterval=10))
    labels = {k: np.concatenate([p[k] for p in parts]) for k in ("V", "S", "R_a", "R_b")}
    rollout_seconds = sum(float(p["seconds"][0]) for p in parts)
    print(f"rollouts: {rollout_seconds:.0f} s of the workers' time, {rollout_seconds / (2 * len(rows)):.2f} s a "
          f"label of {21 * args.trials} trials", flush=True)
    labels["G"] = gnubg_labels(rows).astype(np.float64)
    print(f"labelled in {time.perf_counter() - t0:.0f} s", flush=True)
    if args.out:
        write_labels(args.out, labels, rows, {**{k: getattr(args, k) for k in SETTINGS},
                                              "luck_free": int(args.luck_free),
                                              "position_class": args.position_class,
                                              "network": file_sha256(args.network)})
    report([labels])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
