"""How close can a network of plies's inputs come to gnubg 0-ply when it is taught gnubg's own
evaluations? A diagnostic of issue 25's plateau, not a way to make a shipped network.

1. ``--games`` self-play games of ``--network`` (1 ply, dice from ``--seed``) give positions: every
   end-of-turn position taken, plus a random ``--candidate-share`` of the other end-of-turn
   positions the player could have chosen (a 1-ply player must rank those too).
2. gnubg-nn labels each with its five outputs for the side on roll: its network (0-ply, the
   default) or, with ``--label-plies 1``, its one-roll lookahead (each of the 21 rolls' best
   reply by the network, averaged; about 1.6 ms a position against 0.01 ms). ``--labels FILE``
   keeps the positions and their labels (written atomically) and reads them back on a later run
   with the same settings, so a long labelling is done once (a file made with other settings is
   refused, never overwritten).
3. Two networks are fitted to the labels (cross-entropy, Adam, 50,000 positions held out): the
   contact/race architecture of ``eval=net`` started from ``--network`` (``--hidden`` units:
   the network's own count, or more, its units copied as ``--init-from`` does), and a fresh one
   with two ReLU layers (``--deep H1,H2``) per class.
4. Each plays ``--match-games`` games at 1 ply against ``gnubg:depth=0`` (single-game scoring,
   seats swapped in pairs, ``--match-seed``; ``--match-games 0`` skips the matches).
   ``--keep DIR`` keeps the fitted networks there (``contact_race.pt`` plays as ``eval=FILE``).

It prints each network's held-out mean |P(win) - gnubg's P(win)| and its win rate with a 95%
Wilson interval. A network that copied gnubg exactly would win 50%; what the fitted ones fall
short of that says how much of the gap the inputs and the architecture leave even with the
teacher's own labels. Needs the ``gnubg`` extra (gnubg-nn) and torch.

    python benchmarks/backgammon_imitation.py --network checkpoints/backgammon_contact/checkpoint.pt
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_label_files import check_probabilities, file_sha256, position_problem, read_npz
from plies.agents.evaluators import BatchEvaluator
from plies.agents.expectiminimax import ExpectiminimaxAgent
from plies.agents.gnubg_agents import _gnubg, to_gnubg
from plies.agents.value_net import ContactRaceNet, contact_race_equity, load_value_net, model_payload
from plies.evaluation.report import wilson_interval
from plies.files import DamagedFileError, atomic_write, load_torch, save_torch
from plies.games.backgammon import features
from plies.games.backgammon import rules as bg_rules
from plies.games.kernels import CHANCE, TERMINAL
from plies.training.backgammon import ARCH, _Mover, numpy_weights, roll, widen_into
from plies.training.engine import score_against

HELD_OUT = 50_000
DEEP_KIND = "weights"  # the two-layer networks' file: a plies torch file, checksummed, no code in it


def positions(network, games: int, share: float, seed: int) -> np.ndarray:
    """End-of-turn positions (after the opening roll), each board once, of ``games`` self-play games."""
    rng = np.random.default_rng(seed)
    parallel = min(64, games)
    states = np.stack([bg_rules.initial_array(0) for _ in range(parallel)])
    mover = _Mover(numpy_weights(network))
    kept, done = [], 0
    while done < games:
        roll(states, rng.random(parallel), mover.undo)
        rows = mover.move(states)["rows"]
        kept.append(rows[(rng.random(len(rows)) < share) & (rows[:, 0] != TERMINAL)])
        over = states[:, 0] == TERMINAL
        kept.append(states[~over & (states[:, bg_rules.PLAYER] == CHANCE)].copy())
        for g in np.flatnonzero(over):
            done += 1
            states[g] = bg_rules.initial_array(0)
    rows = np.concatenate(kept)
    rows[:, [bg_rules.DIE_HI, bg_rules.DIE_LO]] = 0  # the dice that led there: one board, one row
    rows = np.unique(rows, axis=0)
    return rows[(rows[:, bg_rules.PLAYER] == CHANCE) & (rows[:, bg_rules.ROLLS] > 0)]


LABEL_PLIES = (0, 1)  # gnubg's 2-ply costs about 37 ms a position: weeks for a data set


def gnubg_labels(rows: np.ndarray, plies: int = 0, progress: bool = False) -> np.ndarray:
    """gnubg-nn's five outputs of each position for the side on roll, at ``plies`` (0 or 1)."""
    if plies not in LABEL_PLIES:
        raise ValueError(f"gnubg labels are at 0 or 1 plies, not {plies!r}")
    gnubg = _gnubg()
    on_roll = features.next_mover(rows)
    pairs = zip(rows, on_roll)
    if progress:
        from tqdm import tqdm

        pairs = tqdm(pairs, total=len(rows), desc=f"gnubg {plies}-ply labels", mininterval=5)
    return np.array([gnubg.probabilities(to_gnubg(r, int(m)), plies) for r, m in pairs], np.float32)


def label_settings(network_path: str, games: int, share: float, seed: int, plies: int) -> np.ndarray:
    """What a labels file was made from, as one string: the network file's hash and the settings."""
    return np.array(f"{file_sha256(network_path)} games={games} share={share!r} seed={seed} plies={plies}")


def write_labels(path: Path, rows: np.ndarray, targets: np.ndarray, settings: np.ndarray) -> None:
    atomic_write(path, lambda handle: np.savez(handle, rows=rows, targets=targets, settings=settings))


def read_labels(path: Path, settings: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The positions and labels saved in ``path`` if it was made with ``settings``; None if it
    was made with others; SystemExit if it is damaged or not a labels file (no pickles read)."""
    try:
        arrays = read_npz(path, "file of gnubg labels")
        missing = [k for k in ("rows", "targets", "settings") if k not in arrays]
        if missing:
            raise ValueError(f"{path} lacks {', '.join(missing)}: not a file of gnubg labels")
        if str(arrays["settings"]) != str(settings):
            return None
        rows, targets = arrays["rows"], arrays["targets"]
        problem = position_problem(rows)
        if problem:
            raise ValueError(f"{path}: {problem}")
        check_probabilities(path, "labels", targets, len(rows))
    except ValueError as error:
        raise SystemExit(str(error)) from None
    return rows.astype(np.int64), targets.astype(np.float32)


def deep_nets(torch, h1: int, h2: int, inputs: int = features.INPUT_SIZE):
    """Two ReLU layers for each of contact and race (crashed positions go to contact, as in the
    two-class networks the results in docs/backgammon_experiments.md were measured with)."""
    return torch.nn.ModuleList(
        torch.nn.Sequential(torch.nn.Linear(inputs, h1), torch.nn.ReLU(), torch.nn.Linear(h1, h2),
                            torch.nn.ReLU(), torch.nn.Linear(h2, 5))
        for _ in range(2))


def class_logits(torch, nets, x, classes):
    classes = torch.where(classes == features.CRASHED, features.CONTACT, classes) if len(nets) == 2 else classes
    out = x.new_empty((len(x), 5))
    for k, net in enumerate(nets):
        rows = (classes == k).nonzero(as_tuple=True)[0]
        if len(rows):
            out[rows] = net(x[rows])
    return out


def win_error(torch, logits, data, held: np.ndarray) -> float:
    """Mean |P(win) - gnubg's P(win)| over the held-out rows."""
    x, classes, targets = data
    rows = torch.from_numpy(held)
    with torch.no_grad():
        p = torch.sigmoid(logits(x[rows], classes[rows]))
    return float((p[:, 0] - targets[rows][:, 0]).abs().mean())


def fit(torch, logits, params, data, held: np.ndarray, epochs: int, lr: float, seed: int) -> float:
    """Adam over the rows not held out, the step size halved each epoch; the held-out error at
    the end."""
    x, classes, targets = data
    rng = np.random.default_rng(seed)
    train = np.setdiff1d(np.arange(len(x)), held)
    optimizer = torch.optim.Adam(params, lr=lr)
    loss_fn = torch.nn.functional.binary_cross_entropy_with_logits
    for epoch in range(epochs):
        for group in optimizer.param_groups:
            group["lr"] = lr * 0.5 ** epoch
        shuffled = rng.permutation(train)
        for start in range(0, len(shuffled), 256):
            rows = torch.from_numpy(shuffled[start:start + 256])
            loss = loss_fn(logits(x[rows], classes[rows]), targets[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return win_error(torch, logits, data, held)


class DeepEvaluator(BatchEvaluator):
    """The two-layer networks fitted here, as the 1-ply search's evaluation."""

    def __init__(self, path: str) -> None:
        import torch

        saved = load_torch(path, DEEP_KIND)
        self.torch = torch
        try:
            self.nets = deep_nets(torch, int(saved["h1"]), int(saved["h2"]))
            self.nets.load_state_dict(saved["state_dict"])
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise DamagedFileError(f"{path} does not hold the two-layer networks ({error})") from None
        self.nets.eval()
        torch.set_num_threads(1)

    def evaluate_all(self, states, root, num_players, zero_sum):
        states = np.ascontiguousarray(states, np.int64)
        mover = features.next_mover(states)
        x, classes = features.encode(states, mover)
        with self.torch.no_grad():
            p = self.torch.sigmoid(class_logits(self.torch, self.nets, self.torch.from_numpy(x),
                                                self.torch.from_numpy(classes.astype(np.int64)))).numpy()
        equity = contact_race_equity(p.astype(np.float64), states[:, bg_rules.SCORING])
        out = np.empty((len(states), 2))
        rows = np.arange(len(states))
        out[rows, mover] = equity
        out[rows, 1 - mover] = -equity
        return out

    def evaluate(self, states, seat):
        return self.evaluate_all(states, seat, 2, True)[:, seat]


def deep_player(path: str, seed: int | None = None, name: str | None = None) -> ExpectiminimaxAgent:
    """A spec for the tournament's workers: ``benchmarks.backgammon_imitation:deep_player:path=F``."""
    return ExpectiminimaxAgent(depth=1, evaluator=DeepEvaluator(path), seed=seed, name=name)


def deep_units(parser: argparse.ArgumentParser, text: str) -> tuple[int, int]:
    """The two unit counts of ``--deep`` (``"400,200"``), or the parser's error."""
    units = text.split(",")
    if len(units) != 2 or not all(n.strip().isdigit() and int(n) > 0 for n in units):
        parser.error(f"--deep takes two unit counts such as 400,200, not {text!r}")
    return int(units[0]), int(units[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--network", default="plies/agents/weights/backgammon_net.pt",
                        help="the self-play network (weights or checkpoint) and the start of the fit")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--candidate-share", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=0, help="hidden units of the fitted contact/race network "
                        "(0: the network's own)")
    parser.add_argument("--deep", default="400,200", help="the two-layer network's units (empty: skip it)")
    parser.add_argument("--epochs", type=int, default=5, help="epochs of the contact/race fit")
    parser.add_argument("--deep-epochs", type=int, default=9)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--label-plies", type=int, default=0, choices=LABEL_PLIES,
                        help="gnubg's lookahead for the labels: 0 (its network) or 1 (one roll)")
    parser.add_argument("--labels", type=Path, help="keep the labelled positions in this .npz and reuse them")
    parser.add_argument("--keep", type=Path, help="keep the fitted networks in this folder")
    parser.add_argument("--match-games", type=int, default=2000, help="games a network (0: no matches)")
    parser.add_argument("--match-seed", type=int, default=2027)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.deep:
        deep_units(parser, args.deep)
    if not 0.0 <= args.candidate_share <= 1.0:
        parser.error(f"--candidate-share is a share from 0 to 1, not {args.candidate_share}")
    for name in ("games", "epochs", "deep_epochs", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.match_games < 0:
        parser.error("--match-games must be 0 (no matches) or more")
    import torch

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    network = load_value_net(args.network, "backgammon")
    if getattr(network, "arch", None) != ARCH:
        parser.error(f"{args.network} is not a contact/race network")
    if args.hidden and args.hidden < network.config["hidden"]:
        parser.error(f"--hidden {args.hidden} is fewer than the network's {network.config['hidden']} units")
    if args.hidden and network.hidden2 and args.hidden != network.config["hidden"]:
        parser.error(f"--hidden {args.hidden}: a network with a second layer keeps its {network.config['hidden']} units")
    if args.labels and not args.labels.parent.is_dir():
        parser.error(f"--labels {args.labels}: no folder {args.labels.parent} to keep it in")
    if args.keep and args.keep.exists() and not args.keep.is_dir():
        parser.error(f"--keep {args.keep} is a file, not a folder")
    settings = label_settings(args.network, args.games, args.candidate_share, args.seed, args.label_plies)
    saved = read_labels(args.labels, settings) if args.labels and args.labels.exists() else None
    if args.labels and args.labels.exists() and saved is None:
        parser.error(f"{args.labels} holds labels made with other settings than these ({settings}); "
                     "name another file, or remove it to label again")
    if saved is None:
        rows = positions(network, args.games, args.candidate_share, args.seed)
        if len(rows) <= HELD_OUT:
            parser.error(f"{len(rows)} positions: too few to hold {HELD_OUT} out; play more --games")
        targets = gnubg_labels(rows, args.label_plies, progress=True)
        if args.labels:
            write_labels(args.labels, rows, targets, settings)
    else:
        rows, targets = saved
        if len(rows) <= HELD_OUT:
            parser.error(f"{args.labels} holds {len(rows)} positions: too few to hold {HELD_OUT} out")
    x, classes = features.encode(rows, features.next_mover(rows))
    data = (torch.from_numpy(x.astype(np.float32)), torch.from_numpy(classes.astype(np.int64)),
            torch.from_numpy(targets))
    print(f"{len(rows):,} positions labelled by gnubg {args.label_plies}-ply"
          f"{' (read back)' if saved is not None else ''} in {time.perf_counter() - t0:.0f} s", flush=True)

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        report(args, torch, network, rows, data, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="imitation-") as folder:
            report(args, torch, network, rows, data, Path(folder))
    print(f"\n(errors over the {HELD_OUT:,} positions held out of the fits; {time.perf_counter() - t0:.0f} s)")
    return 0


def report(args, torch, network, rows, data, scratch: Path) -> None:
    """Fit the networks into ``scratch`` and print the table."""
    held = np.random.default_rng(args.seed).permutation(len(rows))[:HELD_OUT]
    save_torch(model_payload(network), scratch / "start.pt", "weights")  # eval= reads weights, not checkpoints
    results = [(f"{Path(args.network).name} as it is", win_error(torch, network.logits, data, held),
                f"expectiminimax:depth=1,eval={scratch / 'start.pt'}")]
    inputs = features.INPUT_SIZE
    torch.manual_seed(args.seed)  # the extra units' starting weights, where --hidden adds some
    model = ContactRaceNet(hidden=args.hidden or network.config["hidden"], inputs=inputs, hidden2=network.hidden2,
                           classes=len(network.nets))
    widen_into(model, network)
    error = fit(torch, model.logits, model.parameters(), data, held, args.epochs, args.lr, args.seed)
    save_torch(model_payload(model.eval()), scratch / "contact_race.pt", "weights")
    results.append((f"contact/race {model.config['hidden']} units, fitted", error,
                    f"expectiminimax:depth=1,eval={scratch / 'contact_race.pt'}"))
    if args.deep:
        h1, h2 = (int(n) for n in args.deep.split(","))
        nets = deep_nets(torch, h1, h2)
        error = fit(torch, lambda xs, cs: class_logits(torch, nets, xs, cs), nets.parameters(), data,
                    held, args.deep_epochs, args.lr, args.seed)
        save_torch({"h1": h1, "h2": h2, "state_dict": nets.state_dict()}, scratch / "deep.pth", DEEP_KIND)
        results.append((f"two ReLU layers {h1}+{h2}, fresh, fitted", error,
                        f"benchmarks.backgammon_imitation:deep_player:path={scratch / 'deep.pth'}"))
    print(f"\n{'network':<48} {'|P(win) error|':>15} {'vs gnubg 0-ply':>24}")
    for label, error, spec in results:
        if not args.match_games:
            print(f"{label:<48} {error:>15.4f} {'(not played)':>24}", flush=True)
            continue
        rate, n = score_against("backgammon", spec, ["gnubg:depth=0"], args.match_games, args.match_seed,
                                args.workers, win=lambda points: points > 0)
        lo, hi = wilson_interval(round(rate * n), n)
        print(f"{label:<48} {error:>15.4f} {100 * rate:>8.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
