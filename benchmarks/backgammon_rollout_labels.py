"""Positions labelled by rollouts of a network's own play to the end of the game, gathered a
chunk at a time (resumable over sessions), and a network fitted to them: issue 25's untried
lever, at the scale a few CPU-hours allow. backgammon_rollout_truth.py measured first that such
labels lie closer to gnubg 0-ply's values than the network's own (a third of the squared
distance of P(win) on contact positions), so fitting them might lift the network off the plateau
its own TD targets hold it on.

``label``: chunk i plays ``--games`` self-play games of ``--network`` (1 ply, dice from
(``--seed``, i)), keeps every end-of-turn position and a ``--candidate-share`` of the plays it
did not choose (a 1-ply player ranks those too), and labels each by ``rollout_targets``: each
of the 21 first rolls played out ``--trials`` times by the network at 1 ply for both sides to
the end of the game (``--horizon`` moves at most; the first roll stratified). With one trial a
first roll a label's P(win) carries a noise of about 0.009 (variance), far above the squared
distances it should correct (about 0.0001): the fit has to average it out over many positions.
``--luck-free`` takes the luck of every later roll out as well (gnubg's variance reduction: a
1-ply search before each roll), for a noise about 45 times lower at about 33 times the CPU
(docs/backgammon_experiments.md, "What a label with little noise costs"). Chunk files
(``FOLDER/chunk_NNNNN.npz``, written atomically) that exist and match the settings are kept, so
a stopped run goes on where it stopped; a damaged one is labelled again. A kill (or Ctrl-C)
keeps the chunks written; the queued ones are dropped and the workers end with their chunk.

``fit``: the network fitted to the labels (cross-entropy, Adam, ``--lr``, ``--epochs``), every
tenth chunk held out; before and after, the held-out mean square distance of P(win) from the
labels (their noise included, the same for both), and on up to ``--judge`` held-out contact
positions from gnubg 0-ply's values (the judge of backgammon_rollout_truth.py; never a label).

    python benchmarks/backgammon_rollout_labels.py label --folder runs/rollout_labels --chunks 200
    python benchmarks/backgammon_rollout_labels.py fit --folder runs/rollout_labels --out fitted.pt
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np
from tqdm import tqdm

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_imitation import gnubg_labels, positions
from benchmarks.backgammon_label_files import (
    check_probabilities,
    file_sha256,
    position_problem,
    read_npz,
    setting,
)
from benchmarks.backgammon_rollout_truth import contact_race_network, one_thread_worker
from plies.agents.value_net import load_value_net, model_payload
from plies.files import atomic_write, save_torch
from plies.games.backgammon import features
from plies.training.backgammon import ARCH, numpy_weights, rollout_targets

SETTINGS = ("seed", "index", "games", "horizon", "trials")
OPTIONAL_SETTINGS = {"luck_free": 0}  # settings that chunks written before them lack


def chunk_path(folder: Path, index: int) -> Path:
    return folder / f"chunk_{index:05d}.npz"


def read_chunk(path: Path) -> dict[str, np.ndarray]:
    """One chunk's rows, labels and settings; a file that is not one, or is damaged, is refused."""
    arrays = read_npz(path, "chunk of rollout labels")
    missing = [k for k in ("rows", "labels", "network", "candidate_share", *SETTINGS) if k not in arrays]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: not a chunk of rollout labels")
    for key, default in OPTIONAL_SETTINGS.items():  # chunks written before the setting existed
        arrays.setdefault(key, np.int64(default))
    rows, labels = arrays["rows"], arrays["labels"]
    problem = "it holds no positions" if rows.ndim == 2 and len(rows) == 0 else position_problem(rows)
    if problem:
        raise ValueError(f"{path}: {problem}")
    check_probabilities(path, "labels", labels, len(rows))
    for key in (*SETTINGS, *OPTIONAL_SETTINGS):
        setting(path, arrays, key, "i")
    if int(arrays["luck_free"]) not in (0, 1):
        raise ValueError(f"{path}: luck_free must be 0 or 1")
    setting(path, arrays, "network", "U")
    share = arrays["candidate_share"]
    if share.shape != () or share.dtype.kind != "f" or not 0.0 <= float(share) <= 1.0:
        raise ValueError(f"{path}: candidate_share must be a single share in [0, 1]")
    return arrays


def label_chunk(network_path: str, index: int, settings: dict[str, float]) -> dict[str, np.ndarray]:
    """Chunk ``index``: its self-play positions and their rollout labels (one worker, one thread)."""
    with one_thread_worker():
        network = load_value_net(network_path, "backgammon")
        seed = (int(settings["seed"]), index)
        rows = positions(network, int(settings["games"]), float(settings["candidate_share"]),
                         np.random.default_rng(seed).integers(2**62))
        labels = rollout_targets(numpy_weights(network), rows, int(settings["horizon"]), int(settings["trials"]),
                                 np.random.default_rng((*seed, 1)), luck_free=bool(settings.get("luck_free", 0)))
    return {"rows": rows.astype(np.int16), "labels": labels.astype(np.float32)}


def write_chunk(path: Path, chunk: dict[str, np.ndarray], network_hash: str, settings: dict[str, float],
                index: int) -> None:
    meta = {k: np.int64(settings[k]) for k in SETTINGS if k != "index"}
    meta.update({k: np.int64(settings.get(k, default)) for k, default in OPTIONAL_SETTINGS.items()})

    def write(f) -> None:
        np.savez(f, **chunk, network=np.array(network_hash), index=np.int64(index),
                 candidate_share=np.float64(settings["candidate_share"]), **meta)

    atomic_write(path, write)


def matches(arrays: dict[str, np.ndarray], network_hash: str, settings: dict[str, float], index: int) -> bool:
    return (str(arrays["network"]) == network_hash and int(arrays["index"]) == index
            and float(arrays["candidate_share"]) == settings["candidate_share"]
            and all(int(arrays[k]) == int(settings[k]) for k in SETTINGS if k != "index")
            and all(int(arrays[k]) == int(settings.get(k, default)) for k, default in OPTIONAL_SETTINGS.items()))


def _stop(signum: int, frame) -> None:
    raise SystemExit(128 + signum)


def label(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        raise SystemExit(f"--folder {folder} is a file")
    folder.mkdir(parents=True, exist_ok=True)
    network_hash = file_sha256(args.network)
    settings = {"seed": args.seed, "games": args.games, "horizon": args.horizon, "trials": args.trials,
                "candidate_share": args.candidate_share, "luck_free": int(args.luck_free)}
    todo = []
    for i in range(args.chunks):
        path = chunk_path(folder, i)
        if path.exists():
            try:
                arrays = read_chunk(path)
            except ValueError as error:
                print(f"labelling again: {error}", flush=True)
            else:
                if not matches(arrays, network_hash, settings, i):
                    raise SystemExit(f"{path} was labelled with other settings or another network: "
                                     "use another --folder, or the settings it was made with")
                continue
        todo.append(i)
    print(f"{args.chunks - len(todo)} of {args.chunks} chunks already labelled in {folder}", flush=True)
    t0 = time.perf_counter()
    if args.workers == 1:  # in this process (tests, debugging)
        for i in tqdm(todo, desc="rollout labels", unit="chunk", mininterval=10):
            write_chunk(chunk_path(folder, i), label_chunk(args.network, i, settings), network_hash, settings, i)
    else:  # spawned, not forked: a forked child can inherit a lock some thread of the parent held
        # a kill ends the workers too (they would go on with the queued chunks otherwise)
        previous = signal.signal(signal.SIGTERM, _stop)
        try:
            with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
                jobs = {pool.submit(label_chunk, args.network, i, settings): i for i in todo}
                try:
                    for job in tqdm(as_completed(jobs), total=len(jobs), desc="rollout labels", unit="chunk",
                                    mininterval=10):
                        i = jobs[job]
                        write_chunk(chunk_path(folder, i), job.result(), network_hash, settings, i)
                except BaseException:
                    pool.shutdown(cancel_futures=True)  # the chunks written so far stay; the rest wait for a resume
                    raise
        finally:
            signal.signal(signal.SIGTERM, previous)
    print(f"labelled {len(todo)} chunks in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


def load_folder(folder: Path, network_hash: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chunk's rows, labels and chunk index; chunks of another network are refused."""
    rows, labels, index = [], [], []
    paths = sorted(folder.glob("chunk_*.npz"))
    if not paths:
        raise SystemExit(f"{folder} holds no chunks: run the label step first")
    first = None
    for path in paths:
        try:
            arrays = read_chunk(path)
        except ValueError as error:
            raise SystemExit(f"{error}: label it again with the label step") from None
        if str(arrays["network"]) != network_hash:
            raise SystemExit(f"{path} was labelled by another network than --network")
        if path.name != chunk_path(folder, int(arrays["index"])).name:
            raise SystemExit(f"{path} holds chunk {int(arrays['index'])}: not the name it was written under")
        made = tuple(float(arrays[k]) for k in ("candidate_share", *SETTINGS, *OPTIONAL_SETTINGS) if k != "index")
        if first is not None and made != first:
            raise SystemExit(f"{path} was labelled with other settings than {paths[0]}")
        first = made
        rows.append(arrays["rows"].astype(np.int64))
        labels.append(arrays["labels"].astype(np.float32))
        index.append(np.full(len(arrays["rows"]), int(arrays["index"])))
    return np.concatenate(rows), np.concatenate(labels), np.concatenate(index)


def fit(args: argparse.Namespace) -> list[tuple[str, float, float]]:
    """Fits, reports and saves; returns (stage, held-out distance from the labels, from gnubg's or nan)."""
    import torch

    network = load_value_net(args.network, "backgammon")
    if getattr(network, "arch", None) != ARCH:
        raise SystemExit(f"{args.network} is not a contact/race network")
    rows, labels, index = load_folder(Path(args.folder), file_sha256(args.network))
    train = np.flatnonzero(index % 10 != 9)
    # held out: every tenth chunk, less the boards that a fitted chunk also holds (early boards recur)
    seen = {row.tobytes() for row in rows[train]}
    held = np.array([k for k in np.flatnonzero(index % 10 == 9) if rows[k].tobytes() not in seen], np.int64)
    if len(held) == 0 or len(train) == 0:
        raise SystemExit("fit needs at least ten chunks (every tenth is held out) and held-out boards that no fitted chunk holds")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    x, classes = features.encode(rows, features.next_mover(rows))
    x_t, c_t, y_t = torch.from_numpy(x), torch.from_numpy(classes.astype(np.int64)), torch.from_numpy(labels)
    contact = held[classes[held] == features.CONTACT]
    judged = contact[np.sort(np.random.default_rng(args.seed).permutation(len(contact))[: args.judge])]
    judge = gnubg_labels(rows[judged])[:, 0].astype(np.float64) if len(judged) else None
    print(f"{len(rows):,} labelled positions ({len(train):,} to fit, {len(held):,} held out; "
          f"{len(judged):,} held-out contact positions judged by gnubg 0-ply)", flush=True)

    figures: list[tuple[str, float, float]] = []
    judged_p: list[np.ndarray] = []

    def report(name: str) -> None:
        with torch.no_grad():
            p = torch.sigmoid(network.logits(x_t[held], c_t[held])).numpy()[:, 0].astype(np.float64)
        to_labels = np.mean((p - labels[held, 0]) ** 2)
        line = f"{name:<20} held out: mean square distance of P(win) from the labels {to_labels:.6f}"
        to_judge = float("nan")
        if judge is not None and len(judged):
            judged_p.append(p[np.searchsorted(held, judged)])
            to_judge = float(np.mean((judged_p[-1] - judge) ** 2))
            line += f", from gnubg 0-ply's {to_judge:.6f}"
        figures.append((name, float(to_labels), to_judge))
        print(line, flush=True)

    network.eval()
    report("the network as it is")
    optimizer = torch.optim.Adam(network.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    for epoch in range(args.epochs):
        network.train()
        order = rng.permutation(train)
        for start in range(0, len(order), args.batch):
            batch = order[start:start + args.batch]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(network.logits(x_t[batch], c_t[batch]),
                                                                        y_t[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        network.eval()
        report(f"after epoch {epoch + 1}")
    if judge is not None and len(judged_p) > 1:  # after the fit minus before, positions drawn again
        change = (judged_p[-1] - judge) ** 2 - (judged_p[0] - judge) ** 2
        draws = np.random.default_rng(args.seed).integers(0, len(change), (1000, len(change)))
        low, high = np.percentile(change[draws].mean(1), [2.5, 97.5])
        print(f"distance from gnubg 0-ply's, after minus before: {change.mean():+.6f} "
              f"(95% bootstrap interval [{low:+.6f}, {high:+.6f}])")
    if args.out:
        save_torch(model_payload(network), Path(args.out), "weights")
        print(f"saved {args.out}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    lab = steps.add_parser("label", help="label chunks of self-play positions by rollouts")
    lab.add_argument("--games", type=int, default=4, help="self-play games a chunk")
    lab.add_argument("--chunks", type=int, default=100, help="chunks the folder should hold")
    lab.add_argument("--candidate-share", type=float, default=0.1)
    lab.add_argument("--horizon", type=int, default=250)
    lab.add_argument("--trials", type=int, default=1)
    lab.add_argument("--workers", type=int, default=2)
    lab.add_argument("--luck-free", action="store_true",
                     help="take the luck of every later roll out of the rollouts (gnubg's variance reduction)")
    fitting = steps.add_parser("fit", help="fit the network to the labels of a folder")
    fitting.add_argument("--lr", type=float, default=0.00003)
    fitting.add_argument("--epochs", type=int, default=4)
    fitting.add_argument("--batch", type=int, default=128)
    fitting.add_argument("--threads", type=int, default=2)
    fitting.add_argument("--judge", type=int, default=2000, help="held-out contact positions gnubg judges (0: none)")
    fitting.add_argument("--out", default="", help="where to save the fitted weights")
    for step in (lab, fitting):
        step.add_argument("--network", default="plies/agents/weights/backgammon_net.pt")
        step.add_argument("--folder", required=True)
        step.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, not {args.seed}")
    contact_race_network(parser, args.network)
    if args.step == "label":
        if min(args.games, args.chunks, args.horizon, args.trials, args.workers) < 1:
            parser.error("--games, --chunks, --horizon, --trials and --workers must be at least 1")
        if args.chunks > 100_000 or args.horizon > 10_000 or args.trials > 1000 or args.games > 10_000:
            parser.error("at most 100,000 --chunks, 10,000 --games and --horizon, 1,000 --trials")
        if not 0.0 <= args.candidate_share <= 1.0:
            parser.error(f"--candidate-share must lie in [0, 1], not {args.candidate_share}")
        return label(args)
    if not 0.0 < args.lr < 1.0 or min(args.epochs, args.batch, args.threads) < 1 or args.judge < 0:
        parser.error("--lr must lie in (0, 1); --epochs, --batch and --threads at least 1; --judge at least 0")
    if args.out and (Path(args.out).is_dir() or not Path(args.out).resolve().parent.is_dir()):
        parser.error(f"--out {args.out}: a file in a folder that exists")
    fit(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
