"""The training engine: ``plies train GAME`` for every game, plies's six and a user's.

One loop trains every network. A **recipe** (``Recipe``) says what a round plays and learns
and how the run is measured; the engine does the rest, the same for every game: the common
options (``--run``, ``--seed``, ``--workers``, ``--backend``, ``--resume``, ``--out``,
``--quiet``), the network and its Adam optimiser, checkpoints written atomically after every
logged round and an exact ``--resume`` (network, optimiser, counters and every random
generator), the metrics log ``RUN/metrics.csv`` (rows after the checkpoint dropped on resume),
the progress bar, the round's jobs over worker processes or Ray (each job seeded by (seed,
round, worker): the same run on either backend), evaluations, the learning curve
``RUN/learning_curve.png`` and the final weights with their card. A game names its recipe in its
declaration (``Game.trainer``); the engine names no game.

Recipes: ``SelfPlayRecipe`` below (every game that declares ``encode`` and ``net_value``:
Tic-Tac-Toe, Connect Four, Othello, Nine Men's Morris, a user's game), backgammon's
(``plies.training.backgammon``: TD(lambda) or search labels for the contact/race networks,
dice and gammons) and Dice Wars's (``plies.training.dice_wars``: four-player games of the course
bots and of the network player, labelled by their winners).

``SelfPlayRecipe``, for two-player zero-sum games without chance that declare ``encode`` (a
batch of state arrays as the network's inputs, from the view of the side to move) and
``net_value`` (the same inputs scored by the network inside compiled code,
``plies.games.value_kernels``):

- **Self-play on the batched env**: ``selfplay`` plays up to ``SELFPLAY_BATCH`` games at once
  on ``plies.vector``. At every step each game's legal actions are applied in compiled code, all
  the children of all the games are scored in one batched pass of the network (a finished game
  by its return), and each game plays its best child (ties at random), a uniformly random move
  with probability ``--epsilon``, and random moves for its first ``--random-plies`` plies; the
  batch moves in one ``step``. Every position is kept with the 1-ply value the mover saw in it.
- **Targets**: TD(lambda), forward view, as TD-Leaf: ``G_t = (1 - lambda) u_t + lambda
  G_(t+1)``, each turned to the view of the side to move at ``t``, where ``u_t`` is the 1-ply
  value of position ``t`` and the game's result closes the recursion. ``--lam 1`` is the plain
  outcome, ``--lam 0`` the search value alone.
- **Rounds over processes** (or Ray, ``--backend ray``): in round r every worker plays ``--round-games`` games with the
  weights of round r, seeded by (seed, round, worker); the main process takes ``--epochs``
  passes of Adam over the positions of the last ``--window`` rounds (mean squared error of the
  tanh output; the window is saved beside the checkpoint). The network after N rounds is a
  function of the seed, and ``--resume`` goes on exactly.
- **Evaluation**: every ``--eval-every`` rounds the network at ``--eval-depth`` plies of
  alpha-beta plays ``--eval-games`` games (seats swapped in pairs) against each ``--opponent``
  through the tournament engine, each pair from its own ``--eval-opening`` random plies (two
  deterministic searches would otherwise replay the same few games); the score (wins plus half the draws) and its 95% interval go to
  ``RUN/metrics.csv`` and the curve to ``RUN/learning_curve.png``.
- The final network goes to ``RUN/<game>_net.pt`` with its card (command, games, positions,
  seconds, machine, figures).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, types

from plies.agents.value_net import MLPValueNet, require_torch
from plies.envs.vector.batch import VectorGame
from plies.evaluation.interrupts import exit_status, raise_swallowed_stop
from plies.files import DamagedFileError, atomic_write
from plies.games.game import Game
from plies.games.kernels import KERNELS_T, TERMINAL, compiled, kernel_refs
from plies.games.registry import get_game, new_state
from plies.games.value_kernels import mlp_forward_rows
from plies.training.common import (
    MetricsLog,
    RoundRunner,
    load_checkpoint,
    plot_curve,
    resume_from,
    save_checkpoint,
    save_weights,
    seed_everything,
    wilson,
)

ARCH = "mlp_value"
_I1 = types.int64[::1]
_F1 = types.float64[::1]


# ----- self-play on the batched env ---------------------------------------------------------------
SELFPLAY_BATCH = 256
"""Games a worker plays at once on the batched env (fewer when it plays fewer)."""


@njit(types.int64(types.int64[:, ::1], KERNELS_T, types.int64[:, ::1], _I1, _I1, _F1, _I1, _I1, _F1),
      cache=True)
def list_candidates(states, kernels, children, owner, actions, ended, legal_buf, undo_row, ret):
    """Every game's children: row k of ``children`` is game ``owner[k]`` after its legal action
    ``actions[k]`` (rows in game order); ``ended[k]``: the return of a child that ends the game,
    for the side that moved into it, else NaN. Returns the row count."""
    k = 0
    for g in range(states.shape[0]):
        mover = states[g, 0]
        n = kernels.legal_actions(states[g], legal_buf)
        for i in range(n):
            children[k, :] = states[g]
            kernels.apply_action(children[k], legal_buf[i], undo_row)
            owner[k] = g
            actions[k] = legal_buf[i]
            ended[k] = np.nan
            if children[k, 0] == TERMINAL:
                kernels.returns(children[k], ret)
                ended[k] = ret[mover]
            k += 1
    return k


class CandidateScorer:
    """Scores every legal move of a batch of positions with a value network: the children are
    listed in compiled code (``list_candidates``) and scored in one batched pass
    (``value_kernels.mlp_forward_rows``; a finished game by its return), each from the view of
    the side that moved. Keeps its buffers for ``rows`` positions a call."""

    def __init__(self, game: Game, rows: int, width: int, state_size: int) -> None:
        self.game, self.kernels = game, kernel_refs(game.kernels)
        self.children = np.zeros((rows * width, state_size), np.int64)
        self.owner, self.actions = np.zeros(len(self.children), np.int64), np.zeros(len(self.children), np.int64)
        self.ended = np.zeros(len(self.children))
        self.legal_buf, self.undo_row = np.zeros(width, np.int64), np.zeros(max(1, game.undo_size), np.int64)
        self.ret = np.zeros(game.num_players)

    def score(self, states: np.ndarray, params: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(owner, action, value) of every child of ``states`` (at most ``rows`` of them), in
        position order."""
        n = compiled(list_candidates)(states, self.kernels, self.children, self.owner, self.actions, self.ended,
                                      self.legal_buf, self.undo_row, self.ret)
        values = self.ended[:n].copy()
        going = np.flatnonzero(np.isnan(values))
        if len(going):
            children, owner = self.children[going], self.owner[going]
            v = mlp_forward_rows(self.game.encode(children), params)
            again = children[:, 0] == states[owner, 0]  # the mover moves again
            values[going] = np.where(again, v, -v)
        return self.owner[:n].copy(), self.actions[:n].copy(), values


def selfplay(game: Game | str, options: dict[str, Any], params: np.ndarray, games: int, epsilon: float,
             random_plies: int, seed: tuple[int, ...]) -> dict[str, np.ndarray]:
    """One worker's games of a round: positions, their movers, 1-ply values and games, and the
    games' results (for seat 0). ``game`` travels to worker processes as its declaration (a
    user's game is found by its module).

    Up to ``SELFPLAY_BATCH`` games at once on ``plies.vector``'s batched env: at each step every
    game's children are scored in one batched pass of the network (``CandidateScorer``), and
    each game plays its best child (ties at random), a uniformly random move with
    probability ``epsilon``, or random moves for its first ``random_plies`` plies; the batch
    takes its moves in one ``step``. A game that reaches the game's move cap is scored a draw."""
    game = get_game(game) if isinstance(game, str) else game
    seed_value = int(np.random.SeedSequence(list(seed)).generate_state(1)[0] % (2**31))
    parallel = max(1, min(games, SELFPLAY_BATCH))
    env = VectorGame(game, parallel, seed=seed_value, parallel=False, **options)
    rng = np.random.default_rng(seed_value)
    scorer = CandidateScorer(game, parallel, max(1, int(env.legal_actions.shape[1])), env.states.shape[1])
    slot_game = np.arange(parallel)
    active = np.ones(parallel, bool)
    plies = np.zeros(parallel, np.int64)
    started = parallel
    results = np.full(games, np.nan)
    kept: dict[str, list[np.ndarray]] = {"positions": [], "values": [], "movers": [], "game_of": []}
    play = np.full(parallel, -1, np.int64)
    while active.any():
        slots = np.flatnonzero(active)
        states = np.ascontiguousarray(env.states[slots])
        owner, actions, values = scorer.score(states, params)
        n = len(values)
        first = np.searchsorted(owner, np.arange(len(slots)))
        counts = np.diff(np.append(first, n))
        # the best child of each game, ties at random: the largest value, then the largest draw
        order = np.lexsort((rng.random(n), values, owner))
        best = order[first + counts - 1]
        pick = actions[best]
        explore = (plies[slots] < random_plies) | (rng.random(len(slots)) < epsilon)
        if explore.any():
            rows = first[explore] + (rng.random(int(explore.sum())) * counts[explore]).astype(np.int64)
            pick[explore] = actions[rows]
        kept["positions"].append(states)
        kept["values"].append(values[best])
        kept["movers"].append(states[:, 0].copy())
        kept["game_of"].append(slot_game[slots].copy())
        play[:] = -1
        play[slots] = pick
        env.step(play)
        plies[slots] += 1
        for slot in slots[(env.terminations | env.truncations)[slots]]:
            results[slot_game[slot]] = float(env.rewards[slot, 0]) if env.terminations[slot] else 0.0
            if started < games:  # the env has reset the slot: a new game starts there
                slot_game[slot], plies[slot] = started, 0
                started += 1
            else:
                active[slot] = False
    game_of = np.concatenate(kept["game_of"])
    order = np.argsort(game_of, kind="stable")  # each game's positions together, in order
    return {"positions": np.concatenate(kept["positions"])[order], "values": np.concatenate(kept["values"])[order],
            "movers": np.concatenate(kept["movers"])[order], "game_of": game_of[order], "results": results}


def lambda_targets(values: np.ndarray, movers: np.ndarray, game_of: np.ndarray,
                   results: np.ndarray, lam: float) -> np.ndarray:
    """TD(lambda) targets of the kept positions, each from the view of its mover (see the
    module docstring); positions of games that were not finished get NaN."""
    targets = np.full(len(values), np.nan)
    after = 0.0  # G of the next position, from seat 0's view
    for k in range(len(values) - 1, -1, -1):
        g = game_of[k]
        last = k == len(values) - 1 or game_of[k + 1] != g
        if last:
            after = results[g]
        if np.isnan(after):
            continue
        sign = 1.0 if movers[k] == 0 else -1.0
        target = (1.0 - lam) * values[k] + lam * sign * after
        targets[k] = target
        after = sign * target
    return targets


def check_trainable(game: Game) -> None:
    """Raises a ValueError saying why this engine cannot train ``game``'s network."""
    if game.has_chance or game.num_players != 2 or not game.zero_sum:
        raise ValueError(f"the training engine trains two-player zero-sum games without chance; "
                         f"{game.id} is not one")
    missing = [name for name in ("encode", "net_value") if getattr(game, name) is None]
    if missing:
        raise ValueError(f"{game.id} declares no {' and no '.join(missing)}: the training engine needs "
                         "both (docs/training.md, training any game)")


# ----- worker processes ------------------------------------------------------------------------
def _worker_round(job: tuple) -> dict[str, np.ndarray]:
    from threadpoolctl import threadpool_limits

    # numpy's matrix products on one thread: the workers fill the cores, and a seed gives the
    # same sums whatever the backend
    with threadpool_limits(limits=1, user_api="blas"):
        return selfplay(*job)


# ----- the engine: one loop for every recipe -----------------------------------------------------
class Recipe:
    """A configuration of the training engine: what one round plays and learns, and how the run
    is measured. The engine does the rest, the same for every game: the common options, the
    network and optimiser, checkpoints and exact resume, the metrics log, progress bar, worker
    processes (or Ray), evaluations, the learning curve, the weights and their card.

    A game names its recipe in its declaration (``Game.trainer``, ``"module:NAME"``); a game that
    names none gets ``SelfPlayRecipe``."""

    arch = ""
    step_field = "round"  # the counter that metrics rows, --eval-every and the bar count in
    default_workers: int | None = None  # None: every core
    worker: Callable[[tuple], Any] | None = None  # the module-level function a round's jobs run
    help = ""  # the --help text

    def add_arguments(self, parser: argparse.ArgumentParser, game: Game) -> None:
        """The recipe's own options (the engine adds --run, --seed, --workers, --backend,
        --resume, --out, --quiet)."""

    def check_args(self, game: Game, args: argparse.Namespace) -> None:
        """Raises ValueError for options that cannot work, before anything is played."""

    def arch_config(self, game: Game, args: argparse.Namespace) -> dict[str, Any]:
        raise NotImplementedError

    def new_model(self, game: Game, arch_config: dict[str, Any]):
        raise NotImplementedError

    def new_optimizer(self, model, args: argparse.Namespace):
        return require_torch().optim.Adam(model.parameters(), lr=args.lr)

    def config(self, args: argparse.Namespace) -> dict[str, Any]:
        """The run's settings, stored in every checkpoint."""
        raise NotImplementedError

    def new_progress(self) -> dict[str, Any]:
        return {self.step_field: 0}

    def resumed_config(self, run: Run, stored: dict[str, Any]) -> dict[str, Any]:
        """The settings a resumed run goes on with (ValueError where the command line changes
        one that must stay)."""
        raise NotImplementedError

    def start_fresh(self, run: Run) -> None:
        """A new run's first step (after the network and optimiser are made)."""

    def total(self, args: argparse.Namespace) -> int:
        """Where ``progress[step_field]`` ends."""
        raise NotImplementedError

    def logged_step(self, progress: dict[str, Any]) -> int:
        """The metrics rows kept on resume are those up to this step."""
        return int(progress[self.step_field])

    def fields(self, args: argparse.Namespace) -> list[str]:
        raise NotImplementedError

    def bar_label(self, game: Game, args: argparse.Namespace) -> str:
        return f"{game.id} training"

    def open(self, run: Run) -> None:
        """Run-long state in ``run.state`` (replay buffers, extra logs), after the checkpoint is
        loaded. ``run.state`` is not saved: what a resume needs goes into ``run.progress`` (in
        every checkpoint) or into the recipe's own files, written in ``before_checkpoint``."""

    def before_checkpoint(self, run: Run) -> None:
        """Writes the recipe's own files of the round, just before the engine's checkpoint (after
        the round's evaluation: a run killed in between resumes at the last checkpoint, and its
        files must still match it)."""

    def play_round(self, run: Run) -> dict[str, Any] | None:
        """Plays and learns one round and advances ``run.progress``; returns a metrics row when
        one is due (it is logged and a checkpoint written), else None."""
        raise NotImplementedError

    def evaluation_due(self, run: Run, row: dict[str, Any]) -> bool:
        return False

    def evaluate(self, run: Run, row: dict[str, Any]) -> dict[str, Any]:
        """The evaluation's columns of ``row`` (the row's snapshot against the opponents)."""
        return {}

    def plot(self, run: Run) -> None:
        """Draws ``RUN/learning_curve.png`` from the metrics."""

    def weights_name(self, game: Game) -> str:
        return f"{game.id}_net.pt"

    def final_model(self, run: Run):
        """The network that goes to ``--out`` with the card: the run's own, unless the recipe
        makes another (an average of its last rounds, say)."""
        return run.model

    def card(self, run: Run) -> dict[str, Any]:
        raise NotImplementedError

    def summary(self, card: dict[str, Any], out: Path) -> str:
        """What ``plies train`` prints at the end."""
        return json.dumps(card, indent=2)


class Run:
    """One training run as the engine and its recipe see it: the run folder, the options, the
    network, optimiser, random generator, counters, metrics log and worker pool."""

    def __init__(self, game: Game, recipe: Recipe, args: argparse.Namespace) -> None:
        self.game, self.recipe, self.args = game, recipe, args
        self.torch = require_torch()
        self.folder: Path = args.run
        self.checkpoint_path = self.folder / "checkpoint.pt"
        self.arch_config = recipe.arch_config(game, args)
        self.config = recipe.config(args)
        self.rng = seed_everything(args.seed)  # before the network: its first weights are seeded
        self.model = recipe.new_model(game, self.arch_config)
        self.optimizer = recipe.new_optimizer(self.model, args)
        self.progress: dict[str, Any] = recipe.new_progress()
        self.resuming = bool(args.resume and self.checkpoint_path.exists())
        self.log: MetricsLog | None = None
        self.rounds: RoundRunner | None = None
        self.bar: Any = None
        self.state: dict[str, Any] = {}  # the recipe's own run-long state
        self.began = time.perf_counter()

    def load(self) -> None:
        payload = load_checkpoint(self.checkpoint_path, self.game.id, self.recipe.arch, self.arch_config)
        self.progress = resume_from(payload, self.checkpoint_path, self.model, self.optimizer, self.rng,
                                    self.recipe.new_progress(), self.recipe.step_field)
        self.config = self.recipe.resumed_config(self, payload["config"])

    def set_lr(self, lr: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def save_checkpoint(self) -> None:
        save_checkpoint(self.checkpoint_path, self.model, self.optimizer, self.config, self.progress, self.rng)

    def elapsed(self) -> float:
        """Seconds of training so far, this run's and earlier sessions' (``progress["seconds"]``)."""
        return time.perf_counter() - self.began


def score_against(game: str, spec: str, opponents: list[str], games: int, seed: int, workers: int,
                  win: Callable[[float], bool] | None = None, **tournament: Any) -> tuple[float, int]:
    """``spec``'s score in a tournament against ``opponents`` (seats swapped or rotated): wins
    plus half the draws per game, or with ``win``, the share of games whose return passes it."""
    from plies.evaluation import run_tournament

    result = run_tournament(game, [spec, *opponents], games, seed=seed, workers=workers,
                            progress=tournament.pop("progress", False), **tournament)
    points = 0.0
    for record in result.records:
        mine = record.returns[record.seats.index(spec)]
        if win is not None:
            points += 1.0 if win(mine) else 0.0
        else:
            points += 1.0 if mine > 0 else 0.5 if mine == 0 else 0.0
    return points / max(len(result.records), 1), len(result.records)


def rate_columns(column: str, rate: float, n: int) -> dict[str, Any]:
    """A rate's four metrics columns: the rate, its 95% interval and its games."""
    lo, hi = wilson(rate * n, n)
    return {column: round(rate, 4), f"{column}_low": round(lo, 4), f"{column}_high": round(hi, 4),
            f"{column}_games": n}


def rate_fields(opponents: list[str]) -> list[str]:
    """The metrics columns of ``rate_columns`` for each opponent."""
    return [f"{opponent_column(o)}{suffix}" for o in opponents for suffix in ("", "_low", "_high", "_games")]


def check_kept(run: Run, stored: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Raises ValueError where the command line changes a setting a resume must keep."""
    for key in keys:
        if stored[key] != run.config[key]:
            raise ValueError(f"{run.checkpoint_path} was made with --{key.replace('_', '-')} {stored[key]}, "
                             f"not {run.config[key]}: resume with the same settings")


def opponent_column(spec: str) -> str:
    return "vs_" + "".join(c if c.isalnum() else "_" for c in spec).strip("_")


def recipe_of(game: Game) -> Recipe:
    """The recipe ``game`` declares (``Game.trainer``), else the engine's own."""
    if not game.trainer:
        return SelfPlayRecipe()
    module, _, name = game.trainer.partition(":")
    recipe = getattr(importlib.import_module(module), name)
    if isinstance(recipe, type) and issubclass(recipe, Recipe):
        recipe = recipe()
    if not isinstance(recipe, Recipe):
        raise ValueError(f"{game.id}: trainer {game.trainer!r} is not a training Recipe")
    return recipe


def build_parser(game_id: str = "GAME", recipe: Recipe | None = None) -> argparse.ArgumentParser:
    game = get_game(game_id) if game_id != "GAME" else None
    recipe = recipe or (recipe_of(game) if game is not None else SelfPlayRecipe())
    p = argparse.ArgumentParser(prog=f"plies train {game_id}", description=recipe.help or __doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", type=Path, default=Path(f"runs/{game_id}"), help="run folder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=recipe.default_workers or os.cpu_count() or 1,
                   help="worker processes")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="where the workers run: processes of this machine, or Ray (a cluster named "
                   "by RAY_ADDRESS, else a local Ray); the same run either way")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in the run folder")
    p.add_argument("--out", type=Path, help="where the final weights go (default RUN/<game>_net.pt)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    recipe.add_arguments(p, game)
    return p


def train(game_id: str, args: argparse.Namespace) -> dict[str, Any]:
    """Runs (or resumes) a training run of ``game_id``'s recipe; returns the final card."""
    game = get_game(game_id)
    recipe = recipe_of(game)
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    recipe.check_args(game, args)
    torch = require_torch()
    from tqdm.auto import tqdm

    torch.set_num_threads(1)
    args.run.mkdir(parents=True, exist_ok=True)
    run = Run(game, recipe, args)
    if run.resuming:
        run.load()
    elif run.checkpoint_path.exists():
        raise ValueError(f"{run.checkpoint_path} exists: pass --resume to continue it, or use another --run")
    else:
        recipe.start_fresh(run)
    run.began -= float(run.progress.get("seconds", 0.0))
    run.log = MetricsLog(args.run / "metrics.csv", recipe.fields(args), step_field=recipe.step_field,
                         resume_step=recipe.logged_step(run.progress) if run.resuming else None)
    recipe.open(run)
    total = recipe.total(args)
    bar = run.bar = tqdm(total=total, initial=min(run.progress[recipe.step_field], total),
                         disable=args.quiet, desc=recipe.bar_label(game, args))
    try:
        if recipe.worker is not None:
            run.rounds = RoundRunner(recipe.worker, args.backend, args.workers)
        while run.progress[recipe.step_field] < total:
            raise_swallowed_stop()  # a stop that compiled code lost (interrupts.remembered_stops)
            before = run.progress[recipe.step_field]
            row = recipe.play_round(run)
            raise_swallowed_stop()
            bar.update(run.progress[recipe.step_field] - before)
            if row is None:
                continue
            evaluated = recipe.evaluation_due(run, row)
            if evaluated:
                row.update(recipe.evaluate(run, row))
            run.log.add(**row)
            recipe.before_checkpoint(run)
            run.save_checkpoint()
            if evaluated:
                recipe.plot(run)
        raise_swallowed_stop()
    except Exception:
        raise_swallowed_stop()  # the error a lost stop turned into: stop, with the message below
        raise
    finally:
        bar.close()
        if run.rounds is not None:
            run.rounds.close()
    recipe.plot(run)
    card = recipe.card(run)
    save_weights(recipe.final_model(run), args.out or args.run / recipe.weights_name(game), card)
    return card


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):
        print("usage: plies train GAME [options]", file=sys.stderr)
        return 2
    game_id, rest = argv[0], argv[1:]
    try:
        recipe = recipe_of(get_game(game_id))
    except (KeyError, ValueError, ImportError, AttributeError) as err:
        print(f"plies train {game_id}: {err}", file=sys.stderr)
        return 2
    args = build_parser(game_id, recipe).parse_args(rest)
    try:
        card = train(game_id, args)
    except (ValueError, FileNotFoundError) as err:
        print(f"plies train {game_id}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: checkpoints are written whole, so say how to go on
        print(f"\ninterrupted: the last checkpoint is in {args.run}; the same command with --resume "
              "goes on from it", file=sys.stderr)
        return exit_status(stop)
    print(recipe.summary(card, args.out or args.run / recipe.weights_name(get_game(game_id))))
    return 0


# ----- the engine's own recipe: helpers --------------------------------------------------------
def _hidden(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--hidden takes whole numbers separated by commas, not {text!r}") from None
    if not sizes or len(sizes) > 8 or not all(1 <= s <= 4096 for s in sizes):
        raise ValueError(f"--hidden takes 1 to 8 layer sizes from 1 to 4096, not {text!r}")
    return sizes


def opponents_of(args: argparse.Namespace) -> list[str]:
    given = [o.strip() for o in args.opponent.split(",") if o.strip()]
    return given or [f"alphabeta:depth={args.eval_depth}"]


def evaluate(game: str, weights: Path, depth: int, opponent: str, games: int, seed: int,
             workers: int, opening: int = 0) -> tuple[float, int]:
    """The score (wins plus half the draws, per game) of ``alphabeta:depth=D,eval=weights``
    against ``opponent``, seats swapped in pairs, each pair from its own random opening."""
    return score_against(game, f"alphabeta:depth={depth},eval={weights}", [opponent], games, seed, workers,
                         opening_plies=opening)


class Replay:
    """The inputs and targets of the last ``window`` rounds, saved beside the checkpoint with
    the round they end at (a resume checks it: a replay of another round is refused).

    The file is written just before the checkpoint, so a run stopped between the two leaves a
    replay one round ahead of its checkpoint: the file keeps one round more than the window,
    and a resume from the round before takes the window that ended there."""

    def __init__(self, path: Path, window: int) -> None:
        self.path, self.window = path, window
        self.rounds: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, x: np.ndarray, y: np.ndarray) -> None:
        self.rounds = [*self.rounds, (x, y)][-(self.window + 1):]

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        window = self.rounds[-self.window:]
        return (np.concatenate([x for x, _ in window]), np.concatenate([y for _, y in window]))

    def save(self, round_: int) -> None:
        if self.window == 1:
            return  # nothing carries over from one round to the next
        arrays: dict[str, np.ndarray] = {"round": np.array(round_)}
        for k, (x, y) in enumerate(self.rounds):
            arrays[f"x{k}"], arrays[f"y{k}"] = x, y
        atomic_write(self.path, lambda f: np.savez(f, **arrays))

    def load(self, round_: int) -> None:
        if self.window == 1:
            return
        try:
            with np.load(self.path, allow_pickle=False) as data:
                stored = int(data["round"])
                count = sum(1 for k in data.files if k.startswith("x"))
                rounds = [(data[f"x{k}"], data[f"y{k}"]) for k in range(count)]
        except (OSError, KeyError, ValueError) as err:
            raise DamagedFileError(f"{self.path} cannot be read ({err}): the run cannot resume exactly") from None
        if stored == round_ + 1 and len(rounds) > min(self.window, stored - 1):
            rounds = rounds[:-1]  # stopped after the replay was written, before its checkpoint
        elif stored != round_:
            raise DamagedFileError(f"{self.path} ends at round {stored}, the checkpoint at round {round_}")
        self.rounds = rounds


def _fit(model, optimizer, torch, x: np.ndarray, targets: np.ndarray, epochs: int, batch: int,
         rng: np.random.Generator) -> float:
    xs, ts = torch.from_numpy(x), torch.from_numpy(targets.astype(np.float32))
    total, steps = 0.0, 0
    for _ in range(epochs):
        order = rng.permutation(len(xs))
        for begin in range(0, len(order), batch):
            rows = torch.from_numpy(order[begin:begin + batch])
            loss = torch.nn.functional.mse_loss(model(xs[rows]), ts[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
            steps += 1
    return total / max(steps, 1)


def command_line(game: str, config: dict[str, Any]) -> str:
    flags = " ".join(f"--{k.replace('_', '-')} {config[k]}" for k in (
        "rounds", "round_games", "hidden", "lr", "lam", "epsilon", "random_plies", "epochs", "window",
        "batch", "seed", "workers", "eval_every", "eval_games", "eval_depth", "eval_opening"))
    return f"plies train {game} {flags}"

# ----- the engine's own recipe: batched self-play of games that declare net_value ---------------
FIELDS = ["round", "games", "positions", "loss", "draw_rate", "moves_per_game", "seconds",
          "positions_per_second"]
_FIXED = ("lam", "epsilon", "random_plies", "epochs", "window", "batch", "seed", "workers", "round_games")
_CHANGEABLE = ("rounds", "lr", "eval_every", "eval_games", "eval_depth", "eval_opening", "opponent")


class SelfPlayRecipe(Recipe):
    """Self-play on the batched env, TD(lambda) targets, an MLP fitted by Adam (module docstring)."""

    arch = ARCH
    worker = staticmethod(_worker_round)

    def add_arguments(self, p: argparse.ArgumentParser, game: Game | None) -> None:
        p.add_argument("--rounds", type=int, default=100, help="rounds of self-play and fitting")
        p.add_argument("--round-games", type=int, default=500, help="games each worker plays per round")
        p.add_argument("--hidden", default="128", help="hidden layer sizes, comma-separated (e.g. 128,64)")
        p.add_argument("--lr", type=float, default=1e-3, help="Adam's step size")
        p.add_argument("--lam", type=float, default=0.7, help="TD(lambda)'s lambda")
        p.add_argument("--epsilon", type=float, default=0.05, help="share of random moves in self-play")
        p.add_argument("--random-plies", type=int, default=2, help="random moves at the start of each game")
        p.add_argument("--epochs", type=int, default=2, help="passes over the positions at each round")
        p.add_argument("--window", type=int, default=1,
                       help="fit on the positions of the last N rounds (kept in RUN/replay.npz)")
        p.add_argument("--batch", type=int, default=256, help="positions per gradient step")
        p.add_argument("--eval-every", type=int, default=10, help="rounds between evaluations (0: none)")
        p.add_argument("--eval-games", type=int, default=200, help="games against each opponent")
        p.add_argument("--eval-depth", type=int, default=2, help="alpha-beta depth of the network player")
        p.add_argument("--eval-opening", type=int, default=4,
                       help="random opening plies of each evaluation pair (deterministic searches "
                       "otherwise replay the same few games)")
        p.add_argument("--opponent", default="", help="comma-separated agent specs to evaluate against "
                       "(default: alphabeta at the same depth with the game's heuristic)")

    def check_args(self, game: Game, args: argparse.Namespace) -> None:
        for name in ("rounds", "round_games", "epochs", "window", "batch", "eval_games", "eval_depth"):
            if getattr(args, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, not {getattr(args, name)}")
        if args.eval_every < 0 or args.random_plies < 0 or args.eval_opening < 0:
            raise ValueError("--eval-every, --eval-opening and --random-plies must be 0 or more")
        if args.eval_depth > 64:
            raise ValueError(f"--eval-depth must be at most 64, not {args.eval_depth}")
        for name in ("lam", "epsilon"):
            if not 0.0 <= getattr(args, name) <= 1.0:
                raise ValueError(f"--{name} must lie in [0, 1], not {getattr(args, name)}")
        if not 0.0 < args.lr < 1.0:
            raise ValueError(f"--lr must lie in (0, 1), not {args.lr}")
        _hidden(args.hidden)
        check_trainable(game)

    def arch_config(self, game: Game, args: argparse.Namespace) -> dict[str, Any]:
        start_state = new_state(game.id, seed=0)
        inputs = int(game.encode(start_state.array[None]).shape[1])
        return {"game": game.id, "inputs": inputs, "hidden": _hidden(args.hidden)}

    def new_model(self, game: Game, arch_config: dict[str, Any]):
        return MLPValueNet(**arch_config)

    def config(self, args: argparse.Namespace) -> dict[str, Any]:
        config = {k: getattr(args, k) for k in (*_FIXED, *_CHANGEABLE)}
        config["hidden"] = ",".join(map(str, _hidden(args.hidden)))
        return config

    def new_progress(self) -> dict[str, Any]:
        return {"round": 0, "games": 0, "positions": 0, "seconds": 0.0, "figures": {}}

    def resumed_config(self, run: Run, stored: dict[str, Any]) -> dict[str, Any]:
        check_kept(run, stored, _FIXED)
        if run.args.lr != stored["lr"]:
            run.set_lr(run.args.lr)
        return {**stored, **{k: run.config[k] for k in _CHANGEABLE}}

    def total(self, args: argparse.Namespace) -> int:
        return args.rounds

    def fields(self, args: argparse.Namespace) -> list[str]:
        return FIELDS + rate_fields(opponents_of(args))

    def bar_label(self, game: Game, args: argparse.Namespace) -> str:
        return f"{game.id} self-play"

    def open(self, run: Run) -> None:
        run.state["replay"] = Replay(run.folder / "replay.npz", run.args.window)
        if run.resuming and run.progress["round"]:
            run.state["replay"].load(run.progress["round"])

    def play_round(self, run: Run) -> dict[str, Any]:
        args, progress = run.args, run.progress
        t0 = time.perf_counter()
        params = run.model.flat_params()
        jobs = [(run.game, {}, params, args.round_games, args.epsilon, args.random_plies,
                 (args.seed, progress["round"], w)) for w in range(args.workers)]
        parts = run.rounds(jobs)
        targets = np.concatenate([lambda_targets(p["values"], p["movers"], p["game_of"], p["results"],
                                                 args.lam) for p in parts])
        positions = np.concatenate([p["positions"] for p in parts])
        keep = ~np.isnan(targets)
        run.state["replay"].add(run.game.encode(np.ascontiguousarray(positions[keep])), targets[keep].astype(np.float32))
        x, y = run.state["replay"].data()
        loss = _fit(run.model, run.optimizer, run.torch, x, y, args.epochs, args.batch, run.rng)
        results = np.concatenate([p["results"] for p in parts])
        played = int((~np.isnan(results)).sum())
        progress["round"] += 1
        progress["games"] += played
        progress["positions"] += int(keep.sum())
        progress["seconds"] = run.elapsed()
        return {"round": progress["round"], "games": progress["games"], "positions": progress["positions"],
                "loss": round(loss, 5), "draw_rate": round(float(np.mean(results[~np.isnan(results)] == 0)), 4),
                "moves_per_game": round(int(keep.sum()) / max(played, 1), 2),
                "seconds": round(progress["seconds"], 1),
                "positions_per_second": round(len(positions) / max(time.perf_counter() - t0, 1e-9), 1)}

    def before_checkpoint(self, run: Run) -> None:
        run.state["replay"].save(run.progress["round"])  # a resume finds the round's replay

    def evaluation_due(self, run: Run, row: dict[str, Any]) -> bool:
        every, done = run.args.eval_every, run.progress["round"]
        return bool(every) and (done % every == 0 or done == run.args.rounds)

    def evaluate(self, run: Run, row: dict[str, Any]) -> dict[str, Any]:
        args, progress = run.args, run.progress
        snap = run.folder / "snapshots" / f"net_{progress['round']:05d}.pt"
        save_weights(run.model, snap, {"round": progress["round"], "games": progress["games"]})
        columns: dict[str, Any] = {}
        for opponent in opponents_of(args):
            rate, n = evaluate(run.game.id, snap, args.eval_depth, opponent, args.eval_games,
                               args.seed + progress["round"], args.workers, args.eval_opening)
            column = opponent_column(opponent)
            columns.update(rate_columns(column, rate, n))
            progress["figures"][f"depth {args.eval_depth} vs {opponent}, {n} games, round "
                                f"{progress['round']}"] = (f"{100 * rate:.1f}% [{100 * columns[column + '_low']:.1f}, "
                                                           f"{100 * columns[column + '_high']:.1f}]")
            run.bar.set_postfix({opponent: f"{rate:.3f}"})
        return columns

    def plot(self, run: Run) -> None:
        opponents = opponents_of(run.args)
        column = opponent_column(opponents[0])
        plot_curve(run.folder / "metrics.csv", run.folder / "learning_curve.png", "games",
                   {opponent_column(o): f"alphabeta:depth={run.args.eval_depth},eval=net vs {o}" for o in opponents},
                   f"{run.game.title}: the network's score", interval=(f"{column}_low", f"{column}_high"),
                   ylabel="score (wins + draws / 2)")

    def card(self, run: Run) -> dict[str, Any]:
        progress, config = run.progress, run.config
        return {"game": run.game.id, "arch": ARCH, "arch_config": run.arch_config,
                "command": command_line(run.game.id, config), "rounds": progress["round"],
                "self_play_games": progress["games"], "positions": progress["positions"],
                "training_seconds": round(progress["seconds"], 1), "workers": config["workers"],
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
                "figures": dict(progress["figures"])}

    def summary(self, card: dict[str, Any], out: Path) -> str:
        lines = [f"{card['self_play_games']} games, {card['positions']} positions, "
                 f"{card['training_seconds']} s; weights in {out}"]
        lines += [f"  {key}: {value}" for key, value in card["figures"].items()]
        return "\n".join(lines)
