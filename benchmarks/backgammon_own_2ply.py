"""Can the network take in its own 2-ply search? A diagnostic of issue 25's plateau.

At 2 ply the shipped network wins about 1.3 points more against gnubg 0-ply than at 1 ply
(docs/training.md). If a network could learn the values its own 2-ply search gives, its 1-ply
player would pick the 2-ply player's plays. So:

1. ``--games`` self-play games of ``--network`` at 1 ply (``--workers`` processes, dice from
   ``--seed`` on): at each decision with two or more plays, the ``--top`` best end-of-turn
   positions by the player's money equity.
2. Each is labelled by the network's 1-ply search of it (``search_targets``: every roll of the
   side to move next, the reply the network picks, averaged), which is that position's value
   at 2 ply.
3. The network is trained on from its weights on the labels (cross-entropy, Adam, ``--lr``,
   ``--epochs``), a tenth of the decisions held out. With ``--listwise W`` a ranking term
   weighted W joins the cross-entropy: over each decision's plays, the softmax of the network's
   negated P(win) (the opponent's after the play: the lowest is the mover's pick) over
   ``--temperature`` is fitted to the same softmax of the labels (a single-game 1-ply player only
   compares the plays of one roll by P(win), so only their order counts); batches are then
   whole decisions. ``--decisions FILE`` saves the labelled decisions, or reads them back.

It prints, before the fit and after each epoch, how often on the held-out decisions the 1-ply
pick (by money equity and by P(win) alone) is the 2-ply pick among the ``--top``, and the mean
|P(win) - its 2-ply label|; ``--out`` saves the fitted weights (``eval=FILE``). Needs torch.

    python benchmarks/backgammon_own_2ply.py --games 1000 --workers 2 --out own_2ply.pt
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_label_files import (
    check_probabilities,
    file_sha256,
    position_problem,
    read_npz,
    setting,
)
from plies.agents.value_net import load_value_net, model_payload
from plies.files import atomic_write, save_torch
from plies.games.backgammon import features
from plies.games.backgammon import rules as bg_rules
from plies.games.kernels import TERMINAL
from plies.training.backgammon import ARCH, _Mover, mover_equity, numpy_weights, roll, search_targets


def labelled_decisions(network_path: str, games: int, top: int, seed: int) -> dict[str, np.ndarray]:
    """The ``top`` best plays of each decision of ``games`` self-play games, their decision's
    number (``ids``, the best play first) and their 2-ply labels."""
    import torch

    torch.set_num_threads(1)
    weights = numpy_weights(load_value_net(network_path, "backgammon"))
    rng = np.random.default_rng(seed)
    parallel = min(32, games)
    states = np.stack([bg_rules.initial_array(1) for _ in range(parallel)])
    mover = _Mover(weights)
    kept, ids = [], []
    done = 0
    while done < games:
        roll(states, rng.random(parallel), mover.undo)
        step = mover.move(states)
        rows, best, owner, equity, terminal = (step[k] for k in ("rows", "best", "owner", "equity", "terminal"))
        for g in np.flatnonzero(best >= 0):
            plays = np.flatnonzero((owner == g) & (terminal == 0))
            if terminal[best[g]] > 0 or len(plays) < 2:
                continue
            plays = plays[np.argsort(equity[plays], kind="stable")[:top]]
            kept.append(rows[plays])
            ids.append(np.full(len(plays), len(ids)))
        for g in np.flatnonzero(states[:, 0] == TERMINAL):
            done += 1
            states[g] = bg_rules.initial_array(1)
    rows = np.concatenate(kept)
    labels = np.concatenate([search_targets(weights, rows[i:i + 2000]) for i in range(0, len(rows), 2000)])
    return {"rows": rows, "ids": np.concatenate(ids), "labels": labels.astype(np.float32)}


def merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The workers' ``labelled_decisions`` as one, each worker's decisions numbered after the
    previous workers' so that no two share a number."""
    merged = {key: np.concatenate([p[key] for p in parts]) for key in ("rows", "labels")}
    offsets = np.cumsum([0] + [int(p["ids"].max()) + 1 if len(p["ids"]) else 0 for p in parts])
    merged["ids"] = np.concatenate([p["ids"] + offset for p, offset in zip(parts, offsets)])
    return merged


def write_decisions(path: str | Path, decisions: dict[str, np.ndarray], network_path: str, games: int,
                    top: int, seed: int) -> None:
    """Save labelled decisions with what made them: the labelling network's file hash and
    the games, plays a decision and seed (plain arrays, readable without pickles)."""
    made_by = {"network_sha256": np.array(file_sha256(network_path)), "games_top_seed": np.array([games, top, seed])}
    atomic_write(path, lambda handle: np.savez(handle, **decisions, **made_by))


def read_decisions(path: Path) -> tuple[dict[str, np.ndarray], str, np.ndarray]:
    """Labelled decisions saved by ``write_decisions``, their network's hash and (games, top,
    seed); every array checked, no pickles read, a damaged file refused."""
    def refuse(why: str) -> SystemExit:
        return SystemExit(f"{path} is not a file of labelled decisions: {why}")

    try:
        arrays = read_npz(path, "file of labelled decisions")
    except ValueError as error:
        raise refuse(f"damaged or another kind ({error})") from None
    missing = [k for k in ("rows", "ids", "labels", "network_sha256", "games_top_seed") if k not in arrays]
    if missing:
        raise refuse(f"it lacks {', '.join(missing)}")
    decisions = {key: arrays[key] for key in ("rows", "ids", "labels")}
    made = arrays["games_top_seed"]
    try:
        network_hash = setting(path, arrays, "network_sha256", "U")
    except ValueError as error:
        raise refuse(str(error)) from None
    rows, ids, labels = decisions["rows"], decisions["ids"], decisions["labels"]
    if not (np.issubdtype(rows.dtype, np.integer) and np.issubdtype(ids.dtype, np.integer)
            and np.issubdtype(made.dtype, np.integer)
            and np.issubdtype(labels.dtype, np.floating)):
        raise refuse("its rows, ids and games_top_seed must be integers, its labels floats")
    if (rows.ndim != 2 or rows.shape[1] != bg_rules.STATE_SIZE or len(rows) == 0 or ids.shape != (len(rows),)
            or labels.shape != (len(rows), 5) or made.shape != (3,)):
        raise refuse("its arrays have the wrong shapes")
    try:
        check_probabilities(path, "its labels", labels, len(rows))
    except ValueError as error:
        raise refuse(str(error)) from None
    starts = first_of_each(ids)
    if len(starts) != len(np.unique(ids)) or (np.diff(np.r_[starts, len(ids)]) < 2).any():
        raise refuse("each decision's plays must be together, two or more")
    problem = position_problem(rows)
    if problem:
        raise refuse(problem)
    decisions = {"rows": rows.astype(np.int64), "ids": ids.astype(np.int64), "labels": labels.astype(np.float32)}
    return decisions, network_hash, made


def first_of_each(ids: np.ndarray) -> np.ndarray:
    """The first row of each run of equal ``ids`` (a decision's rows are contiguous)."""
    return np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])


def picks(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The row with the lowest value (the opponent's equity) in each decision."""
    return np.array([s + np.argmin(v) for s, v in zip(starts, np.split(values, starts[1:]))])


def decision_table(ids: np.ndarray) -> np.ndarray:
    """Row numbers a decision a line, padded with -1 (a decision's rows are contiguous)."""
    starts = first_of_each(ids)
    sizes = np.diff(np.r_[starts, len(ids)])
    table = np.full((len(starts), int(sizes.max()) if len(sizes) else 0), -1, dtype=np.int64)
    for j in range(table.shape[1]):
        table[sizes > j, j] = starts[sizes > j] + j
    return table


def listwise_loss(win_logits, label_wins, table, temperature: float):
    """Cross-entropy between the softmax over each decision's plays of the labels' and the
    network's negated P(win) (the opponent's, after the play: the mover wants it low), over
    ``temperature``. ``table`` is ``decision_table`` of the rows given (torch tensors)."""
    import torch

    present = table >= 0
    rows = table.clamp(min=0)
    floor = torch.finfo(win_logits.dtype).min / 4
    mine = torch.where(present, -torch.sigmoid(win_logits)[rows] / temperature, floor)
    theirs = torch.where(present, -label_wins[rows] / temperature, floor)
    return -(torch.softmax(theirs, 1) * torch.log_softmax(mine, 1)).sum(1).mean()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", default="plies/agents/weights/backgammon_net.pt")
    parser.add_argument("--games", type=int, default=1000, help="self-play games a worker")
    parser.add_argument("--top", type=int, default=4, help="plays a decision to label")
    parser.add_argument("--seed", type=int, default=21, help="worker i draws its dice from seed + i")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.00003)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--listwise", type=float, default=0.0, help="weight of the ranking term (0: none)")
    parser.add_argument("--temperature", type=float, default=0.005, help="of the ranking term's softmax, in P(win)")
    parser.add_argument("--out", default="", help="where to save the fitted weights")
    parser.add_argument("--decisions", default="",
                        help="an .npz of labelled decisions: read if it exists, else written after the labelling")
    args = parser.parse_args(argv)
    if min(args.games, args.workers, args.epochs) < 1 or args.top < 2:
        parser.error("--games, --workers and --epochs must be at least 1, --top at least 2")
    if not 0.0 < args.lr < 1.0:
        parser.error(f"--lr must lie in (0, 1), not {args.lr}")
    if not (math.isfinite(args.listwise) and args.listwise >= 0):
        parser.error(f"--listwise must be a finite weight of at least 0, not {args.listwise}")
    if not (math.isfinite(args.temperature) and args.temperature >= 1e-4):
        parser.error(f"--temperature must be finite and at least 0.0001 (P(win) is in [0, 1]), not {args.temperature}")
    for name, path in (("--out", args.out), ("--decisions", args.decisions)):
        if path and not Path(path).resolve().parent.is_dir():
            parser.error(f"{name} {path}: its folder does not exist")
    import torch

    network = load_value_net(args.network, "backgammon")
    if getattr(network, "arch", None) != ARCH:
        parser.error(f"{args.network} is not a contact/race network")
    t0 = time.perf_counter()
    if args.decisions and Path(args.decisions).exists():
        decisions, network_hash, (games, top, seed) = read_decisions(Path(args.decisions))
        if network_hash != file_sha256(args.network):
            parser.error(f"{args.decisions} was labelled by another network than {args.network}")
        print(f"decisions read from {args.decisions}: {games} games a worker, the {top} best plays, seed {seed}")
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            parts = list(pool.map(labelled_decisions, [args.network] * args.workers, [args.games] * args.workers,
                                  [args.top] * args.workers, [args.seed + i for i in range(args.workers)]))
        decisions = merge(parts)
        if args.decisions:
            write_decisions(args.decisions, decisions, args.network, args.games, args.top, args.seed)
        print(f"labelled at 2 ply in {time.perf_counter() - t0:.0f} s")
    rows, ids, labels = decisions["rows"], decisions["ids"], decisions["labels"]
    print(f"{len(rows):,} plays of {len(np.unique(ids)):,} decisions", flush=True)

    torch.set_num_threads(args.workers)
    x, classes = features.encode(rows, features.next_mover(rows))
    x_t, classes_t, labels_t = torch.from_numpy(x), torch.from_numpy(classes.astype(np.int64)), torch.from_numpy(labels)
    held_ids = np.random.default_rng(0).permutation(np.unique(ids))[: len(np.unique(ids)) // 10]
    held = np.flatnonzero(np.isin(ids, held_ids))
    train = np.flatnonzero(~np.isin(ids, held_ids))
    starts = first_of_each(ids[held])
    truth = labels[held].astype(np.float64)
    best_money, best_single = picks(mover_equity(truth), starts), picks(truth[:, 0], starts)

    def report(label: str) -> None:
        with torch.no_grad():
            p = torch.sigmoid(network.logits(x_t[held], classes_t[held])).numpy().astype(np.float64)
        money = np.mean(picks(mover_equity(p), starts) == best_money)
        single = np.mean(picks(p[:, 0], starts) == best_single)
        print(f"{label:<22} 2-ply pick (money) {100 * money:5.2f}%  (P(win)) {100 * single:5.2f}%  "
              f"|P(win) - label| {np.abs(p[:, 0] - truth[:, 0]).mean():.5f}", flush=True)

    print(f"held out: {len(starts):,} decisions")
    report("the network as it is")
    optimizer = torch.optim.Adam(network.parameters(), lr=args.lr)
    rng = np.random.default_rng(1)
    table = decision_table(ids)
    train_decisions = np.flatnonzero(~np.isin(ids[table[:, 0]], held_ids))
    for epoch in range(args.epochs):
        network.train()
        if args.listwise > 0:  # whole decisions, about 128 rows a batch
            order = rng.permutation(train_decisions)
            per_batch = max(1, 128 // args.top)
            batches = [table[order[i:i + per_batch]] for i in range(0, len(order), per_batch)]
        else:
            order = rng.permutation(train)
            batches = [order[i:i + 128] for i in range(0, len(order), 128)]
        for batch in batches:
            rows_in = batch[batch >= 0]
            logits = network.logits(x_t[rows_in], classes_t[rows_in])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels_t[rows_in])
            if args.listwise > 0:
                local = np.full(batch.shape, -1, dtype=np.int64)
                local[batch >= 0] = np.arange(len(rows_in))
                loss = loss + args.listwise * listwise_loss(
                    logits[:, 0], labels_t[rows_in, 0], torch.from_numpy(local), args.temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        network.eval()
        report(f"after epoch {epoch + 1}")
    if args.out:
        save_torch(model_payload(network), Path(args.out), "weights")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
