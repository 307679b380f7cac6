"""``plies train dice_wars``: the Dice Wars network, trained in rounds on games of its own player.

The training engine's recipe for Dice Wars (``RECIPE``, named by the game's declaration): the
engine (``plies.training.engine``) runs the rounds, checkpoints, resume, metrics and card; this
module says what a round plays, how it learns and how it is evaluated.

Round 0: ``--pool-games`` (default ``--round-games``) four-player games, every seat drawn from the training pool
(``DEFAULT_POOL``: the course's five bots under their course names, ``win_prob`` and the
report's expectiminimax player with the score). Round k >= 1: ``--round-games`` games where the network
player of round k-1 (``dw_expectiminimax:depth=D,eval=RUN/round_{k-1}.pt``, D =
``--player-depth``) takes ``--player-seats`` seats of every table and pool bots the others, so
the positions its own play reaches enter the data. Games are played in worker processes and
stored in chunks under ``RUN/games/round_K`` (kept across resumes).

Every round the network is fitted further (warm start: it keeps the previous round's weights and
optimiser) for ``--epochs`` epochs on a sample of the positions (``--keep``) of all rounds so far
(``--window``: only the last rounds; ``--positions turn_end``: only those just after a player
ends the turn; ``--per-game K``: each epoch at most K of each game's, drawn anew), each
labelled with its game's winner: cross-entropy of a
softmax over the seats alive. With ``--lam L`` < 1 the targets of rounds >= 1 are soft: along each
game's kept positions, the lambda-returns of the win probabilities that round k-1's network gives
them (the last kept position gets the winner); validation losses stay against the winner. Games
are split into training and validation games (no game on
both sides). The round's network is written to ``RUN/round_K.pt`` and evaluated in the course's
tournament schedule (``--eval-games`` four-player games, the network player in every game, three
of ``--eval-pool`` around it; the same maps and dice every round); win rate and 95% Wilson
interval go to ``RUN/metrics.csv`` and ``RUN/learning_curve.png`` (win rate against training
games), the epochs to ``RUN/epochs.csv``.

A checkpoint is written after every epoch and every round, the evaluation games are stored as
they finish, so ``--resume`` after a kill at any point continues exactly as if the run had not
stopped (the same weights, bit for bit). The last round's network (``--average K``: the mean
of the last K rounds' networks' parameters) and its card go to ``--out`` (default
``RUN/dice_wars_net.pt``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from plies.agents.specs import parse_spec
from plies.agents.value_net import DiceWarsNet
from plies.evaluation.store import ResultStore, rename_agent
from plies.games.dice_wars import rules as dw_rules
from plies.training.common import MetricsLog, plot_curve, save_weights, wilson
from plies.training.dw_data import (
    COURSE_BOTS,
    DEFAULT_POOL,
    POSITION_KINDS,
    ensure_games,
    lambda_targets,
    positions,
    selfplay_seconds,
)
from plies.training.engine import Recipe, Run, score_against

GAME = "dice_wars"
ARCH = "dice_wars_net"
EVAL_POOLS = {
    "course": COURSE_BOTS,
    "strong": (*COURSE_BOTS, "dw_expectiminimax", "win_prob"),
}
"""Opponents of the evaluation tournaments: the course's five bots (the issue's main figure), or
those and plies's stronger players (the report's expectiminimax player with the score, win_prob)."""
EVAL_POOL = EVAL_POOLS["course"]
SEATS = 4
GAME_ID_STRIDE = 10_000_000  # game ids of round k: k * stride + the game's index in its round
FIELDS = ["round", "games", "positions", "val_positions", "epochs", "train_loss", "val_loss",
          "val_accuracy", "selfplay_seconds", "fit_seconds", "eval_games", "eval_wins",
          "eval_win_rate", "eval_low", "eval_high", "eval_seconds"]
EPOCH_FIELDS = ["round", "epoch", "step", "positions", "train_loss", "val_loss", "val_accuracy",
                "seconds"]
# options that must not change when a run is resumed (--rounds may grow; workers, backend,
# progress bars and --out may change)
_HELP = __doc__
FIXED = ("round_games", "pool_games", "chunk", "keep", "positions", "per_game", "window", "player_depth", "player_options", "player_seats", "epochs", "batch",
         "lr", "lam", "hidden", "layers", "val", "seed", "eval_games", "eval_agent", "eval_pool", "eval_seed")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The recipe's options (the engine adds --run, --seed, --workers, --backend, --resume,
    --out and --quiet)."""
    p.add_argument("--rounds", type=int, default=1,
                   help="rounds: 0 = games of the pool, k >= 1 = games of round k-1's network (default 1)")
    p.add_argument("--round-games", type=int, default=2000, help="games played in each round (default 2000)")
    p.add_argument("--pool-games", type=int, default=0,
                   help="games of round 0, the pool's (0: --round-games; pool games are cheap, the "
                        "network player's are not)")
    p.add_argument("--chunk", type=int, default=100, help="games per stored chunk")
    p.add_argument("--keep", type=float, default=0.05,
                   help="share of each game's positions used (default 0.05)")
    p.add_argument("--positions", choices=POSITION_KINDS, default="all",
                   help="all: every decision and reinforcement step; turn_end: only the positions just "
                        "after a player ends the turn (what leaves=turn_end scores) (default all)")
    p.add_argument("--per-game", type=int, default=0,
                   help="fit each epoch on at most this many of each training game's positions, drawn "
                        "anew every epoch (0: all of them; default 0)")
    p.add_argument("--window", type=int, default=0,
                   help="fit on the positions of the last WINDOW rounds (default 0: all rounds)")
    p.add_argument("--player-depth", type=int, default=1,
                   help="search depth of the network player in the games of rounds >= 1 (default 1)")
    p.add_argument("--player-options", default="",
                   help="more options of the network player in rounds >= 1, e.g. "
                        "leaves=turn_end,end_turn=true (default none)")
    p.add_argument("--player-seats", type=int, default=1,
                   help="seats of every table the network player takes in rounds >= 1 (1-4, default 1)")
    p.add_argument("--epochs", type=int, default=4, help="epochs of fitting in each round (default 4)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--lam", type=float, default=1.0,
                   help="targets of rounds >= 1: lambda-returns along each game's kept positions of the "
                        "previous round's network's win probabilities (1: the game's winner, as round 0; "
                        "default 1)")
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=2,
                   help="message-passing rounds (0: pooled MLP over per-area features)")
    p.add_argument("--val", type=float, default=0.1, help="share of each round's games kept for validation")
    p.add_argument("--average", type=int, default=1,
                   help="the final weights (--out) are the mean of the parameters of the last AVERAGE "
                        "rounds' networks (RUN/round_K.pt); 1: the last round's network (default 1). "
                        "Only the output changes: a resume may give another value")
    p.add_argument("--eval-games", type=int, default=400,
                   help="evaluation games after each round, a multiple of 4 (0: no evaluation)")
    p.add_argument("--eval-agent", default="dw_expectiminimax:depth=3",
                   help="spec of the player using the network (eval=<the round's network> is added)")
    p.add_argument("--eval-pool", choices=tuple(EVAL_POOLS), default="course",
                   help="course: the five course bots; strong: and dw_expectiminimax (score), win_prob")
    p.add_argument("--eval-seed", type=int, default=2026,
                   help="seed of the evaluation tournaments (the same maps and dice every round)")


def check_args(args: argparse.Namespace) -> None:
    """Refuses options that cannot work, with what is wrong (before any game is played)."""
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ValueError(message)

    need(args.rounds >= 1, f"--rounds must be at least 1, got {args.rounds}")
    need(args.round_games >= 2, f"--round-games must be at least 2 (training and validation games), "
                                f"got {args.round_games}")
    need(args.pool_games == 0 or args.pool_games >= 2,
         f"--pool-games must be 0 (as --round-games) or at least 2, got {args.pool_games}")
    need(args.chunk >= 1, f"--chunk must be at least 1, got {args.chunk}")
    need(0.0 < args.keep <= 1.0, f"--keep is a share of positions in (0, 1], got {args.keep}")
    need(args.per_game >= 0, f"--per-game must be 0 (all) or more, got {args.per_game}")
    need(args.window >= 0, f"--window must be 0 (all rounds) or more, got {args.window}")
    need(1 <= args.player_depth <= 16, f"--player-depth must be 1-16, got {args.player_depth}")
    need(1 <= args.player_seats <= SEATS, f"--player-seats must be 1-{SEATS}, got {args.player_seats}")
    need(args.epochs >= 1, f"--epochs must be at least 1, got {args.epochs}")
    need(args.batch >= 1, f"--batch must be at least 1, got {args.batch}")
    need(args.lr > 0, f"--lr must be positive, got {args.lr}")
    need(0.0 <= args.lam <= 1.0, f"--lam is a weight in [0, 1], got {args.lam}")
    need(args.hidden >= 1, f"--hidden must be at least 1, got {args.hidden}")
    need(args.layers >= 0, f"--layers must be 0 or more, got {args.layers}")
    need(0.0 < args.val < 1.0, f"--val is a share of games in (0, 1), got {args.val}")
    need(1 <= args.average <= args.rounds,
         f"--average must be 1 to --rounds ({args.rounds}), got {args.average}")
    need(args.workers >= 1, f"--workers must be at least 1, got {args.workers}")
    need(args.eval_games >= 0 and args.eval_games % SEATS == 0,
         f"--eval-games must be 0 or a positive multiple of {SEATS} (the course schedule plays every "
         f"rotation of each table), got {args.eval_games}")
    need("eval" not in parse_spec(args.eval_agent)[1],
         f"--eval-agent {args.eval_agent!r}: leave out eval=, the round's network is added")
    need("," not in str(args.run.resolve()),
         f"--run {args.run}: the folder's path goes into agent specs, which cannot hold a comma")
    if args.eval_games:
        from plies.agents import make

        head = args.eval_agent.partition(":")[0]
        if head not in ("dw_expectiminimax", "expectiminimax"):
            raise ValueError(f"--eval-agent {args.eval_agent!r}: the network player is a search "
                             "(dw_expectiminimax or expectiminimax) whose eval= takes the network")
        make(eval_spec(args.eval_agent, "score"), game=GAME)  # a bad spec fails now, not after a round
    if args.player_options:
        from plies.agents import make

        player = f"dw_expectiminimax:{args.player_options}"
        need(not {"depth", "eval"} & set(parse_spec(player)[1]),
             f"--player-options {args.player_options!r}: depth= is --player-depth and eval= the round's network")
        make(player, game=GAME)  # a bad option fails now


def player_spec(depth: int, weights: Path, options: str = "") -> str:
    """The network player of the self-play rounds (``options``: more of its options, k=v,...)."""
    more = f",{options}" if options else ""
    return f"dw_expectiminimax:depth={depth}{more},eval={weights.resolve()}"


def eval_spec(agent: str, evaluator: str) -> str:
    """``agent`` with ``eval=evaluator`` added."""
    return f"{agent},eval={evaluator}" if ":" in agent else f"{agent}:eval={evaluator}"


def _round_seed(seed: int, k: int) -> int:
    return int(np.random.SeedSequence([seed, 7919, k]).generate_state(1)[0])


def games_of_round(args: argparse.Namespace, k: int) -> int:
    """Games played in round ``k`` (round 0: ``--pool-games`` where given)."""
    return args.pool_games if k == 0 and args.pool_games else args.round_games


def games_until(args: argparse.Namespace, k: int) -> int:
    """Games played in rounds 0..k."""
    return games_of_round(args, 0) + k * args.round_games


def round_games(args: argparse.Namespace, k: int) -> list[Path]:
    """The game chunks of round ``k`` (played now where missing)."""
    player = (player_spec(args.player_depth, args.run / f"round_{k - 1}.pt", args.player_options)
              if k >= 1 else None)
    return ensure_games(args.run / "games" / f"round_{k}", games_of_round(args, k), args.chunk,
                        _round_seed(args.seed, k), args.workers, DEFAULT_POOL, args.backend,
                        progress=not args.quiet, player=player,
                        player_seats=args.player_seats if k >= 1 else 0)


def round_positions(args: argparse.Namespace, k: int) -> dict[str, np.ndarray]:
    """The positions of round ``k``'s games (cached in RUN/positions/round_K.npz), with a
    ``val`` flag per position (its game is a validation game) and run-wide game ids."""
    folder = args.run / "positions"
    folder.mkdir(parents=True, exist_ok=True)
    cache = folder / f"round_{k}.npz"
    key = f"{games_of_round(args, k)}:{args.keep}:{args.val}:{args.seed}:{k}"
    if args.positions != "all":
        key += f":{args.positions}"
    if cache.exists():
        try:
            with np.load(cache, allow_pickle=False) as data:
                if str(data["key"]) == key:
                    kept = {name: data[name] for name in ("states", "winners", "games", "val")}
                    # the positions go to compiled encoders: a damaged row is a damaged cache
                    rows = kept["states"]
                    if (rows.ndim != 2 or any(kept[n].shape != (len(rows),) for n in ("winners", "games", "val"))
                            or (len(rows) and dw_rules.check_rows(rows))):
                        raise ValueError("damaged positions")
                    return kept
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            pass  # a damaged cache is rebuilt from the stored games
    paths = round_games(args, k)
    data = positions(paths, args.keep, _round_seed(args.seed, k), kind=args.positions)
    data["games"] = data["games"] + k * GAME_ID_STRIDE
    held = held_out(np.unique(data["games"]), args.val, _round_seed(args.seed, k))
    data["val"] = np.isin(data["games"], held)
    tmp = cache.with_name(cache.stem + ".tmp.npz")
    np.savez(tmp, key=np.array(key), **data)
    os.replace(tmp, cache)
    return data


def held_out(games: np.ndarray, val: float, seed: int) -> np.ndarray:
    """The validation games among ``games`` (at least one)."""
    rng = np.random.default_rng([seed, 1])
    return rng.choice(games, size=max(1, int(len(games) * val)), replace=False) if len(games) else games


def split(data: dict[str, np.ndarray], val: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of training and validation positions, split by game."""
    held = held_out(np.unique(data["games"]), val, seed)
    is_val = np.isin(data["games"], held)
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def window_data(args: argparse.Namespace, k: int) -> dict[str, np.ndarray]:
    """Positions of the rounds in the window ending at round ``k``, one array each."""
    first = 0 if args.window == 0 else max(0, k - args.window + 1)
    parts = [round_positions(args, j) for j in range(first, k + 1)]
    width = max(p["states"].shape[1] for p in parts)
    states = np.zeros((sum(len(p["states"]) for p in parts), width), np.int16)
    row = 0
    for p in parts:
        states[row:row + len(p["states"]), : p["states"].shape[1]] = p["states"]
        row += len(p["states"])
    return {"states": states, **{name: np.concatenate([p[name] for p in parts])
                                 for name in ("winners", "games", "val")}}


def epoch_rows(rows: np.ndarray, games: np.ndarray, per_game: int, rng: np.random.Generator) -> np.ndarray:
    """The training rows of one epoch: all of ``rows``, or at most ``per_game`` of each game's
    (drawn anew each epoch): positions of one game share their label. Measured, it did not
    help (docs/training.md); all positions is the default."""
    if per_game == 0:
        return rows
    order = rows[np.argsort(games[rows], kind="stable")]
    _, starts, counts = np.unique(games[order], return_index=True, return_counts=True)
    picks = [start + rng.choice(count, size=min(per_game, count), replace=False)
             for start, count in zip(starts, counts)]
    return order[np.concatenate(picks)] if picks else rows[:0]


def batch_loss(model, states: np.ndarray, winners: np.ndarray, torch):
    logp = model(*model.tensors(states, "cpu"))
    target = torch.from_numpy(winners)
    loss = torch.nn.functional.nll_loss(logp, target)
    correct = (logp.argmax(-1) == target).sum().item()
    return loss, correct


def soft_loss(model, states: np.ndarray, targets: np.ndarray, torch):
    """Cross-entropy of the network's seat distribution against soft targets (N x seats)."""
    logp = model(*model.tensors(states, "cpu"))
    target = torch.from_numpy(targets)
    # dead seats have log P = -1e9 and target 0; the clamp keeps 0 * -1e9 out of the sum
    return -(target * logp[:, : target.shape[1]].clamp(min=-100.0)).sum(-1).mean()


def round_targets(args: argparse.Namespace, k: int, data: dict[str, np.ndarray], torch,
                  progress: bool = False) -> np.ndarray | None:
    """Soft targets of round ``k``'s fit (``--lam`` < 1, rounds >= 1): lambda-returns of round
    k-1's network's win probabilities along each game's kept positions; None: the winners."""
    if args.lam >= 1.0 or k == 0:
        return None
    from tqdm.auto import tqdm

    from plies.agents.value_net import load_value_net

    teacher = load_value_net(args.run / f"round_{k - 1}.pt", GAME)
    teacher.eval()
    states = data["states"]
    probs = np.empty((len(states), SEATS), np.float32)
    with torch.no_grad():
        for first in tqdm(range(0, len(states), 4096), disable=not progress, desc=f"dice_wars round {k} targets"):
            rows = states[first:first + 4096].astype(np.int64)
            probs[first:first + 4096] = teacher(*teacher.tensors(rows, "cpu")).exp().numpy()[:, :SEATS]
    order = np.argsort(data["games"], kind="stable")  # each game's positions together, in order
    targets = np.empty_like(probs)
    targets[order] = lambda_targets(probs[order], data["games"][order], data["winners"][order], args.lam)
    return targets


def validate(model, data, rows: np.ndarray, torch) -> tuple[float, float]:
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


def evaluate_games(weights: Path, agent: str, games: int, seed: int, workers: int, backend: str,
                   progress: bool, pool: tuple[str, ...] = EVAL_POOL,
                   results: Path | None = None) -> tuple[int, int]:
    """Wins and games of ``agent`` with the network in ``weights`` in four-player games of the
    course's schedule: the player in every game (the course's evaluation of one AI), three of
    ``pool`` around it, every rotation of each table. ``results``: games stored as they end,
    and those already there are not played again."""
    spec = eval_spec(agent, str(weights.resolve()))
    if results is not None and results.is_file():
        follow_moved_weights(results, agent, weights, pool, games, seed)
    rate, n = score_against(GAME, spec, list(pool), games, seed, workers, win=lambda points: points >= 1.0,
                            focus=spec, progress=progress, backend=backend, schedule="course",
                            results=results, resume=results is not None)
    return round(rate * n), n


def follow_moved_weights(results: Path, agent: str, weights: Path, pool: tuple[str, ...], games: int,
                         seed: int) -> None:
    """Where the results file of a round's evaluation names the round's network at another
    path (the run folder was moved or copied since the evaluation began), rename that agent to
    ``agent`` with ``weights`` so that the evaluation resumes. Only for the same evaluation
    (pool, games, seed) of the same agent with a file of the same name, and only where the old
    file is gone or holds the same bytes; anything else is left for the results file to refuse."""
    spec = eval_spec(agent, str(weights.resolve()))
    stored = ResultStore.read_config(results)
    if stored["agents"][1:] != list(pool) or stored["games"] != games or stored.get("seed") != seed:
        return
    old_spec = stored["agents"][0]
    old = Path(str(parse_spec(old_spec)[1].get("eval", "")))
    if old_spec == spec or old.name != weights.name or eval_spec(agent, str(old)) != old_spec:
        return
    try:
        if old.exists() and (not old.is_file() or old.read_bytes() != weights.read_bytes()):
            return
    except OSError:  # the old place cannot be read: nothing shows it is the same network
        return
    rename_agent(results, old_spec, spec)


def averaged_rounds(args: argparse.Namespace) -> list[int]:
    """The rounds whose networks the final weights average (``--average``): the last ones."""
    return list(range(args.rounds - args.average, args.rounds))


def average_networks(paths: list[Path], arch_config: dict[str, Any]):
    """A network whose every parameter is the mean of that parameter in the networks at
    ``paths`` (weight averaging along one run: the rounds' networks are close neighbours, so
    their mean is a network of its own, not an ensemble)."""
    from plies.agents.value_net import load_value_net

    nets = [load_value_net(path, GAME, arch_config) for path in paths]
    states = [net.state_dict() for net in nets]
    nets[0].load_state_dict({key: sum(state[key] for state in states) / len(states) for key in states[0]})
    return nets[0]


def _config(args: argparse.Namespace) -> dict:
    return {k: getattr(args, k) for k in ("rounds", *FIXED)}


def command_line(config: dict) -> str:
    return "plies train dice_wars " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in config.items())


class DiceWarsRecipe(Recipe):
    """The training engine's configuration for Dice Wars (module docstring)."""

    arch = ARCH
    default_workers = 2
    help = _HELP

    def add_arguments(self, p: argparse.ArgumentParser, game: Any) -> None:
        add_arguments(p)

    def check_args(self, game: Any, args: argparse.Namespace) -> None:
        check_args(args)

    def arch_config(self, game: Any, args: argparse.Namespace) -> dict[str, Any]:
        return {"hidden": args.hidden, "layers": args.layers}

    def new_model(self, game: Any, arch_config: dict[str, Any]):
        return DiceWarsNet(**arch_config)

    def config(self, args: argparse.Namespace) -> dict[str, Any]:
        return _config(args)

    def new_progress(self) -> dict[str, Any]:
        return {"round": 0, "epoch": 0, "step": 0, "fit_seconds": 0.0, "eval_seconds": 0.0}

    def resumed_config(self, run: Run, stored: dict[str, Any]) -> dict[str, Any]:
        changed = [f"--{k.replace('_', '-')} {stored[k]} (now {getattr(run.args, k)})"
                   for k in FIXED if k in stored and stored[k] != getattr(run.args, k)]
        if changed:
            raise ValueError(f"{run.checkpoint_path} was written with other settings: {'; '.join(changed)}; "
                             "resume with the same settings (only --rounds may grow), or start a new run folder")
        done = int(run.progress["round"])
        if run.args.rounds < done:  # the last round and --average's rounds count from --rounds
            raise ValueError(f"{run.checkpoint_path}: the run has done {done} rounds; resume with "
                             f"--rounds {done} or more, not {run.args.rounds}")
        return run.config

    def total(self, args: argparse.Namespace) -> int:
        return args.rounds

    def logged_step(self, progress: dict[str, Any]) -> int:
        return int(progress["round"]) - 1  # rows are numbered by the round they end (from 0)

    def fields(self, args: argparse.Namespace) -> list[str]:
        return FIELDS

    def bar_label(self, game: Any, args: argparse.Namespace) -> str:
        return "dice_wars rounds"

    def open(self, run: Run) -> None:
        run.state["epochs_log"] = MetricsLog(run.folder / "epochs.csv", EPOCH_FIELDS,
                                             resume_step=run.progress["step"] if run.resuming else None)

    def play_round(self, run: Run) -> dict[str, Any]:
        from tqdm.auto import tqdm

        args, progress, model, torch = run.args, run.progress, run.model, run.torch
        k = progress["round"]
        data = window_data(args, k)
        train_rows, val_rows = np.flatnonzero(~data["val"]), np.flatnonzero(data["val"])
        if len(train_rows) == 0:
            raise ValueError(f"round {k}: the games hold no training positions; raise --keep or --round-games")
        targets = round_targets(args, k, data, torch, progress=not args.quiet)
        for epoch in range(progress["epoch"], args.epochs):
            start = time.perf_counter()
            order = run.rng.permutation(epoch_rows(train_rows, data["games"], args.per_game, run.rng))
            total = 0.0
            bar = tqdm(range(0, len(order), args.batch), disable=args.quiet,
                       desc=f"dice_wars round {k} epoch {epoch + 1}/{args.epochs}")
            for first in bar:
                idx = order[first:first + args.batch]
                if targets is None:
                    loss, _ = batch_loss(model, data["states"][idx], data["winners"][idx], torch)
                else:
                    loss = soft_loss(model, data["states"][idx], targets[idx], torch)
                run.optimizer.zero_grad()
                loss.backward()
                run.optimizer.step()
                total += loss.item() * len(idx)
                progress["step"] += 1
                bar.set_postfix(loss=f"{loss.item():.3f}")
            val_loss, val_acc = validate(model, data, val_rows, torch)
            progress["epoch"] = epoch + 1
            progress["fit_seconds"] += time.perf_counter() - start
            progress["train_loss"] = total / len(order)
            progress["val_loss"], progress["val_accuracy"] = val_loss, val_acc
            run.state["epochs_log"].add(round=k, epoch=epoch + 1, step=progress["step"], positions=len(train_rows),
                                        train_loss=progress["train_loss"], val_loss=val_loss,
                                        val_accuracy=val_acc, seconds=round(progress["fit_seconds"], 1))
            run.save_checkpoint()  # a resume goes on from the next epoch
        save_weights(model, args.run / f"round_{k}.pt", {"game": GAME, "arch": ARCH, "arch_config": run.arch_config,
                                                         "round": k, "command": command_line(run.config)})
        row = {"round": k, "games": games_until(args, k), "positions": len(train_rows),
               "val_positions": len(val_rows), "epochs": (k + 1) * args.epochs,
               "train_loss": progress.get("train_loss", ""), "val_loss": progress.get("val_loss", ""),
               "val_accuracy": progress.get("val_accuracy", ""),
               "selfplay_seconds": round(selfplay_seconds(args.run / "games" / f"round_{k}"), 1),
               "fit_seconds": round(progress["fit_seconds"], 1)}
        # the round is done; its checkpoint is written after its evaluation, whose games are stored
        # as they end (a resume in the middle plays only the missing ones)
        progress.update(round=k + 1, epoch=0)
        if not args.quiet and not args.eval_games:
            print(json.dumps(row), flush=True)
        return row

    def evaluation_due(self, run: Run, row: dict[str, Any]) -> bool:
        return bool(run.args.eval_games)

    def evaluate(self, run: Run, row: dict[str, Any]) -> dict[str, Any]:
        args, k = run.args, row["round"]
        start = time.perf_counter()
        (args.run / "eval").mkdir(exist_ok=True)
        wins, n = evaluate_games(args.run / f"round_{k}.pt", args.eval_agent, args.eval_games, args.eval_seed,
                                 args.workers, args.backend, not args.quiet, EVAL_POOLS[args.eval_pool],
                                 results=args.run / "eval" / f"round_{k}.sqlite")
        run.progress["eval_seconds"] += time.perf_counter() - start
        lo, hi = wilson(wins, n)
        columns = {"eval_games": n, "eval_wins": wins, "eval_win_rate": wins / n, "eval_low": lo,
                   "eval_high": hi, "eval_seconds": round(run.progress["eval_seconds"], 1)}
        if not args.quiet:
            print(json.dumps({**row, **columns}), flush=True)
        return columns

    def plot(self, run: Run) -> None:
        if run.args.eval_games:
            plot_curve(run.folder / "metrics.csv", run.folder / "learning_curve.png", "games",
                       {"eval_win_rate": f"network player vs the {run.args.eval_pool} pool"},
                       "Dice Wars: win rate after each round",
                       interval=("eval_low", "eval_high"), ylabel="share of 4-player games won")

    def final_model(self, run: Run):
        if run.args.average == 1:
            return run.model
        return average_networks([run.args.run / f"round_{k}.pt" for k in averaged_rounds(run.args)],
                                run.arch_config)

    def card(self, run: Run) -> dict[str, Any]:
        args, progress = run.args, run.progress
        rows = run.log.rows()
        selfplay = sum(selfplay_seconds(args.run / "games" / f"round_{k}") for k in range(args.rounds))
        return {
            "game": GAME, "arch": ARCH, "arch_config": run.arch_config,
            "command": command_line(run.config) + (f" --average {args.average}" if args.average > 1 else ""),
            "rounds": args.rounds, "games": games_until(args, args.rounds - 1),
            "weights": f"the last round's network (round {args.rounds - 1})" if args.average == 1 else
                       "the mean of the parameters of the networks of rounds "
                       f"{', '.join(map(str, averaged_rounds(args)))}",
            "training_pool": DEFAULT_POOL,
            "network_player": f"dw_expectiminimax:depth={args.player_depth}"
                              f"{',' + args.player_options if args.player_options else ''} in {args.player_seats} seat(s) "
                              "of every table from round 1",
            "targets": "the game's winner" if args.lam >= 1.0 or args.rounds == 1 else
                       f"round 0: the game's winner; rounds >= 1: lambda-returns (lambda {args.lam}) of "
                       "the previous round's network along each game's kept positions",
            "positions": int(rows[-1]["positions"]) if rows else 0,
            "selfplay_seconds": round(selfplay, 1),
            "fit_seconds": round(progress["fit_seconds"], 1),
            "eval_seconds": round(progress["eval_seconds"], 1),
            "cpu_hours": round((selfplay + progress["eval_seconds"]) * args.workers / 3600
                               + progress["fit_seconds"] / 3600, 2),
            "cpu_hours_note": "wall seconds of games and evaluation times --workers, plus fitting (one thread): "
                              "an upper bound of the CPU time",
            "machine": f"{platform.machine()}, {os.cpu_count()} CPU(s), {platform.system()}, "
                       f"Python {sys.version.split()[0]}, {args.workers} worker(s)",
            "evaluation": f"{args.eval_games} games per round, course schedule, seed {args.eval_seed}, "
                          f"{args.eval_agent} with the network vs the {args.eval_pool} pool "
                          f"({', '.join(EVAL_POOLS[args.eval_pool])})" if args.eval_games else "none",
            "per_round": rows,
        }


RECIPE = DiceWarsRecipe()
