"""``plies train dice_wars``: fit the Dice Wars network on self-play games.

1. Self-play: ``--games`` four-player games, every seat drawn from the course bots and the
   expectiminimax player (``DEFAULT_POOL``), played in worker processes by the tournament
   engine and stored in chunks under ``RUN/games`` (kept across runs and resumes).
2. Positions: a sample of the positions of those games (player decisions and reinforcement
   steps), each labelled with the game's winner; games are split into training and validation
   games (no game on both sides).
3. Supervised fitting: cross-entropy of the predicted win probabilities (a softmax over the
   seats alive) against the winner, Adam, ``--epochs`` epochs; a checkpoint after every epoch,
   validation loss/accuracy in ``RUN/metrics.csv``, and every ``--eval-every`` epochs a
   tournament of ``dw_expectiminimax`` with this network against the course bots.
4. The network and its card go to ``--out`` (default ``RUN/dice_wars_net.pt``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from plies.agents.value_net import DiceWarsNet, require_torch
from plies.training.common import (
    MetricsLog,
    load_checkpoint,
    plot_curve,
    restore_rng_states,
    save_checkpoint,
    save_weights,
    seed_everything,
    wilson,
)
from plies.training.dw_data import DEFAULT_POOL, add_seconds, ensure_games, positions

GAME = "dice_wars"
ARCH = "dice_wars_net"
EVAL_POOL = ("dw_random", "dw_all_random", "strength_diff", "single_turn", "win_prob")
"""The course bots: the opponents of the evaluation tournaments."""
FIELDS = ["epoch", "step", "positions", "train_loss", "val_loss", "val_accuracy", "seconds",
          "eval_games", "eval_win_rate", "eval_low", "eval_high"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="plies train dice_wars", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", type=Path, default=Path("runs/dice_wars"), help="run folder")
    p.add_argument("--games", type=int, default=3000, help="self-play games (default 3000)")
    p.add_argument("--chunk", type=int, default=200, help="games per stored chunk")
    p.add_argument("--keep", type=float, default=0.05,
                   help="share of each game's positions used (default 0.05)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=2,
                   help="message-passing rounds (0: pooled MLP over per-area features)")
    p.add_argument("--val", type=float, default=0.1, help="share of games kept for validation")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2, help="processes for self-play and evaluation")
    p.add_argument("--backend", choices=("process", "ray"), default="process")
    p.add_argument("--eval-every", type=int, default=0, help="epochs between evaluation tournaments (0: none)")
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--eval-agent", default="dw_expectiminimax:depth=1,end_turn=true",
                   help="spec of the player using the network (eval=<the network> is added)")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in the run folder")
    p.add_argument("--out", type=Path, help="where the final weights go (default RUN/dice_wars_net.pt)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def _config(args: argparse.Namespace) -> dict:
    keys = ("games", "keep", "epochs", "batch", "lr", "hidden", "layers", "val", "seed",
            "eval_every", "eval_games", "eval_agent")
    return {k: getattr(args, k) for k in keys}


def load_positions(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """The positions of the run's games (cached in RUN/positions.npz)."""
    cache = args.run / "positions.npz"
    paths = ensure_games(args.run / "games", args.games, args.chunk, args.seed, args.workers,
                         DEFAULT_POOL, args.backend, progress=not args.quiet)
    key = f"{args.games}:{args.keep}:{args.seed}"
    if cache.exists():
        with np.load(cache) as data:
            if str(data["key"]) == key:
                return {k: data[k] for k in ("states", "winners", "games")}
    data = positions(paths, args.keep, args.seed)
    tmp = cache.with_suffix(".tmp.npz")
    np.savez(tmp, key=np.array(key), **data)
    tmp.replace(cache)
    return data


def split(data: dict[str, np.ndarray], val: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of training and validation positions, split by game."""
    games = np.unique(data["games"])
    rng = np.random.default_rng([seed, 1])
    held = set(rng.choice(games, size=max(1, int(len(games) * val)), replace=False).tolist())
    is_val = np.array([g in held for g in data["games"]])
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def batch_loss(model, states: np.ndarray, winners: np.ndarray, torch):
    logp = model(*model.tensors(states, "cpu"))
    target = torch.from_numpy(winners)
    loss = torch.nn.functional.nll_loss(logp, target)
    correct = (logp.argmax(-1) == target).sum().item()
    return loss, correct


def validate(model, data, rows: np.ndarray, batch: int, torch) -> tuple[float, float]:
    model.eval()
    total, correct = 0.0, 0
    with torch.no_grad():
        for start in range(0, len(rows), 1024):
            idx = rows[start:start + 1024]
            loss, c = batch_loss(model, data["states"][idx], data["winners"][idx], torch)
            total += loss.item() * len(idx)
            correct += c
    model.train()
    return total / max(len(rows), 1), correct / max(len(rows), 1)


def evaluate_games(weights: Path, agent: str, games: int, seed: int, workers: int,
                   backend: str, progress: bool) -> tuple[float, int]:
    """Win rate of ``agent`` with the network in ``weights`` in four-player games against the
    course bots (every game has it at the table; three bots drawn from the pool)."""
    from plies.evaluation import run_tournament

    spec = f"{agent},eval={weights}" if ":" in agent else f"{agent}:eval={weights}"
    result = run_tournament(GAME, [spec, *EVAL_POOL], games, seed=seed, workers=workers,
                            focus=spec, progress=progress, backend=backend)
    wins = sum(1 for r in result.records if r.returns[r.seats.index(spec)] >= 1.0)
    return wins / len(result.records), len(result.records)


def train(args: argparse.Namespace) -> dict:
    torch = require_torch()
    from tqdm.auto import tqdm

    torch.set_num_threads(1)
    args.run.mkdir(parents=True, exist_ok=True)
    config = _config(args)
    checkpoint = args.run / "checkpoint.pt"
    arch_config = {"hidden": args.hidden, "layers": args.layers}
    rng = seed_everything(args.seed)  # before the network: its initial weights are seeded
    model = DiceWarsNet(**arch_config)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    progress = {"epoch": 0, "step": 0, "seconds": 0.0}
    if args.resume and checkpoint.exists():
        payload = load_checkpoint(checkpoint, GAME, ARCH, arch_config)
        model.load_state_dict(payload["state_dict"])
        optimizer.load_state_dict(payload["optimizer"])
        restore_rng_states(payload["rng"], rng)
        progress = payload["progress"]
        config = {**payload["config"], "epochs": args.epochs}
    elif checkpoint.exists() and not args.resume:
        raise ValueError(f"{checkpoint} exists: pass --resume to continue it, or use another --run")
    log = MetricsLog(args.run / "metrics.csv", FIELDS,
                     resume_step=progress["step"] if args.resume else None)
    data = load_positions(args)
    train_rows, val_rows = split(data, args.val, args.seed)
    start_time = time.perf_counter() - progress["seconds"]
    weights = args.run / "current_net.pt"
    for epoch in range(progress["epoch"], args.epochs):
        order = rng.permutation(train_rows)
        total = 0.0
        bar = tqdm(range(0, len(order), args.batch), disable=args.quiet,
                   desc=f"dice_wars epoch {epoch + 1}/{args.epochs}")
        for start in bar:
            idx = order[start:start + args.batch]
            loss, _ = batch_loss(model, data["states"][idx], data["winners"][idx], torch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
            progress["step"] += 1
            bar.set_postfix(loss=f"{loss.item():.3f}")
        val_loss, val_acc = validate(model, data, val_rows, args.batch, torch)
        progress["epoch"] = epoch + 1
        progress["seconds"] = time.perf_counter() - start_time
        row = {"epoch": epoch + 1, "step": progress["step"], "positions": len(train_rows),
               "train_loss": total / len(order), "val_loss": val_loss, "val_accuracy": val_acc,
               "seconds": round(progress["seconds"], 1)}
        if args.eval_every and (epoch + 1) % args.eval_every == 0:
            save_weights(model, weights, {"epoch": epoch + 1})
            rate, n = evaluate_games(weights, args.eval_agent, args.eval_games, args.seed + epoch,
                                     args.workers, args.backend, not args.quiet)
            lo, hi = wilson(rate * n, n)
            row.update(eval_games=n, eval_win_rate=rate, eval_low=lo, eval_high=hi)
        log.add(**row)
        if not args.quiet:
            print(json.dumps(row))
        save_checkpoint(checkpoint, model, optimizer, config, progress, rng)
    plot_curve(args.run / "metrics.csv", args.run / "learning_curve.png", "epoch",
               {"val_loss": "validation loss", "train_loss": "training loss"},
               "Dice Wars network: cross-entropy of the winner", ylabel="nats")
    card = {
        "game": GAME, "arch": ARCH, "arch_config": arch_config,
        "command": "plies train dice_wars " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in config.items()
            if k in ("games", "keep", "epochs", "hidden", "layers", "seed", "lr")),
        "self_play_games": args.games,
        "self_play_seconds": add_seconds(args.run / "games", 0.0),
        "positions": int(len(train_rows)),
        "validation_positions": int(len(val_rows)), "epochs": progress["epoch"],
        "training_seconds": round(progress["seconds"], 1),
        "final": log.rows()[-1] if log.rows() else {},
    }
    out = args.out or args.run / "dice_wars_net.pt"
    save_weights(model, out, card)
    return card


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    card = train(args)
    print(json.dumps(card, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
