"""``plies train backgammon``: TD(lambda) self-play, as TD-Gammon did.

The network (``BackgammonNet``: TD-Gammon's 198 inputs, one hidden sigmoid layer, outputs
P(win), P(gammon win), P(gammon loss) of the side on roll) plays both sides: at every roll it
lists the distinct end-of-turn positions (the rules' afterstate kernel), scores them in one
forward pass and takes the best for the mover (greedy 1-ply, as TD-Gammon). After each game the
weights move towards the lambda-returns of the positions it passed through (the forward view of
TD(lambda), one gradient step per game over all of its positions; the final target is the
game's result, gammons included).

Every ``--eval-every`` games the network plays ``--eval-games`` games at 1-ply against
``--opponent`` (default pubeval) through the tournament engine; the win rate, its 95% interval
and the training loss go to ``RUN/metrics.csv``, a snapshot of the weights to
``RUN/snapshots``, and a checkpoint (network, optimiser, config, counters, random states) to
``RUN/checkpoint.pt`` (``--resume`` continues it exactly).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from plies.agents.value_net import BackgammonNet, require_torch
from plies.games.backgammon import rules
from plies.games.backgammon.features import td_gammon_encode
from plies.games.kernels import CHANCE, TERMINAL, draw_outcome
from plies.training.common import (
    MetricsLog,
    load_checkpoint,
    plot_curve,
    resume_from,
    save_checkpoint,
    save_weights,
    seed_everything,
    staged_commands,
    wilson,
)

GAME = "backgammon"
ARCH = "backgammon_td"
FIELDS = ["games", "step", "loss", "moves_per_game", "seconds", "eval_games", "eval_score",
          "eval_low", "eval_high"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="plies train backgammon", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", type=Path, default=Path("runs/backgammon"), help="run folder")
    p.add_argument("--games", type=int, default=20000, help="self-play games in total")
    p.add_argument("--hidden", type=int, default=80)
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's step size")
    p.add_argument("--lam", type=float, default=0.7, help="TD(lambda)'s lambda")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--checkpoint-every", type=int, default=500, help="games between checkpoints")
    p.add_argument("--eval-every", type=int, default=2000, help="games between evaluations (0: none)")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--opponent", default="pubeval", help="agent spec of the evaluation opponent")
    p.add_argument("--workers", type=int, default=1, help="processes for the evaluation games")
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in the run folder")
    p.add_argument("--out", type=Path, help="where the final weights go (default RUN/backgammon_net.pt)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _outcome(state: np.ndarray, seat: int) -> np.ndarray:
    """[win, gammon win, gammon loss] of a finished game for ``seat`` (a gammon: the loser has
    borne off nothing; backgammons count as gammons)."""
    winner = int(state[rules.WINNER])
    loser_off = state[rules.BOARD + rules.SIDE * (1 - winner) + rules.OFF]
    gammon = float(loser_off == 0)
    if winner == seat:
        return np.array([1.0, gammon, 0.0])
    return np.array([0.0, 0.0, gammon])


def _flip(v: np.ndarray) -> np.ndarray:
    """The same outputs from the other side's view."""
    return np.stack([1.0 - v[..., 0], v[..., 2], v[..., 1]], -1)


class SelfPlay:
    """Greedy 1-ply self-play games of one network, recording each chosen afterstate."""

    def __init__(self, model, torch) -> None:
        self.model = model
        self.torch = torch
        self.out = np.zeros((rules.MAX_AFTERSTATES, rules.STATE_SIZE), np.int64)
        self.paths = np.zeros((rules.MAX_AFTERSTATES, 4), np.int64)
        self.undo = np.zeros(max(rules.STATE_SIZE, 64), np.int64)
        self.outcomes = np.zeros(64, np.int64)
        self.probs = np.zeros(64, np.float64)

    def play(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One game: the inputs of every afterstate taken (from the view of the side to roll
        next), that side, and the result ([win, gammon win, gammon loss]) for the last one."""
        torch = self.torch
        s = rules.initial_array(0)
        inputs, sides = [], []
        while True:
            if s[0] == TERMINAL:
                break
            if s[0] == CHANCE:
                n = rules.chance_outcomes(s, self.outcomes, self.probs)
                rules.apply_action(s, int(draw_outcome(self.outcomes, self.probs, n, rng.random())), self.undo)
                continue
            mover = int(s[0])
            n = rules.afterstates(s, self.out, self.paths)
            rows = self.out[:max(n, 0) if n >= 0 else self.out.shape[0]]
            done = np.flatnonzero(rows[:, 0] == TERMINAL)
            if len(done):
                s = rows[done[0]].copy()
                break
            side = 1 - mover
            x = td_gammon_encode(rows, np.full(len(rows), side, np.int64))
            with torch.no_grad():
                p = self.model(torch.from_numpy(x)).numpy()
            # the mover wants the roller's equity lowest (gammons counted)
            equity = 2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 2]
            best = int(np.argmin(equity))
            inputs.append(x[best])
            sides.append(side)
            s = rows[best].copy()
        final_side = sides[-1] if sides else 0
        return np.array(inputs, np.float32), np.array(sides), _outcome(s, final_side)


def lambda_returns(values: np.ndarray, sides: np.ndarray, final: np.ndarray, lam: float) -> np.ndarray:
    """Targets of TD(lambda)'s forward view: G_t = (1 - lam) V_{t+1} + lam G_{t+1}, with every
    term turned to the view of side t; the last target is the result."""
    targets = np.zeros_like(values)
    nxt = final  # in the view of sides[-1]
    g = final
    for t in range(len(values) - 1, -1, -1):
        if t < len(values) - 1:
            v_next = values[t + 1]
            g_next = g
            if sides[t + 1] != sides[t]:
                v_next = _flip(v_next)
                g_next = _flip(g_next)
            g = (1.0 - lam) * v_next + lam * g_next
        else:
            g = nxt
        targets[t] = g
    return targets


def evaluate(weights: Path, opponent: str, games: int, seed: int, workers: int,
             progress: bool) -> tuple[float, int]:
    """Score (win = 1) of the network at 1-ply against ``opponent``, seats swapped in pairs."""
    from plies.evaluation import run_tournament

    spec = f"expectiminimax:depth=1,eval={weights}"
    result = run_tournament(GAME, [spec, opponent], games, seed=seed, workers=workers,
                            progress=progress)
    wins = sum(1 for r in result.records if r.returns[r.seats.index(spec)] > 0)
    return wins / len(result.records), len(result.records)


def train(args: argparse.Namespace) -> dict:
    torch = require_torch()
    from tqdm.auto import tqdm

    torch.set_num_threads(1)
    args.run.mkdir(parents=True, exist_ok=True)
    checkpoint = args.run / "checkpoint.pt"
    arch_config = {"hidden": args.hidden}
    config = {k: getattr(args, k) for k in ("games", "hidden", "lr", "lam", "seed",
                                            "eval_every", "eval_games", "opponent")}
    rng = seed_everything(args.seed)  # before the network: its initial weights are seeded
    model = BackgammonNet(**arch_config)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    progress = {"games": 0, "step": 0, "seconds": 0.0, "moves": 0}
    if args.resume and checkpoint.exists():
        payload = load_checkpoint(checkpoint, GAME, ARCH, arch_config)
        progress = resume_from(payload, checkpoint, model, optimizer, rng, progress, "games")
        config = {**payload["config"], "games": args.games}
        if args.lr != config["lr"]:
            # a new step size from here on (e.g. a lower one to finish): recorded in the config
            for group in optimizer.param_groups:
                group["lr"] = args.lr
            config.setdefault("first_lr", config["lr"])
            config["lr_changes"] = [*config.get("lr_changes", []), [progress["games"], args.lr]]
            config["lr"] = args.lr
    elif checkpoint.exists():
        raise ValueError(f"{checkpoint} exists: pass --resume to continue it, or use another --run")
    log = MetricsLog(args.run / "metrics.csv", FIELDS,
                     resume_step=progress["games"] if args.resume else None, step_field="games")
    player = SelfPlay(model, torch)
    start = time.perf_counter() - progress["seconds"]
    window_loss, window_moves, window_games = 0.0, 0, 0
    bar = tqdm(total=args.games, initial=progress["games"], disable=args.quiet,
               desc="backgammon TD(lambda)")
    while progress["games"] < args.games:
        x, sides, final = player.play(rng)
        if len(x) > 0:
            inputs = torch.from_numpy(x)
            with torch.no_grad():
                values = model(inputs).numpy().astype(np.float64)
            targets = lambda_returns(values, sides, final, args.lam)
            loss = 0.5 * ((model(inputs) - torch.from_numpy(targets).float()) ** 2).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            progress["step"] += 1
            window_loss += loss.item()
        progress["games"] += 1
        progress["moves"] += len(x)
        window_moves += len(x)
        window_games += 1
        bar.update(1)
        games = progress["games"]
        evaluating = args.eval_every and games % args.eval_every == 0
        if games % args.checkpoint_every == 0 or evaluating or games == args.games:
            progress["seconds"] = time.perf_counter() - start
            row = {"games": games, "step": progress["step"],
                   "loss": window_loss / max(window_games, 1),
                   "moves_per_game": window_moves / max(window_games, 1),
                   "seconds": round(progress["seconds"], 1)}
            window_loss, window_moves, window_games = 0.0, 0, 0
            if evaluating:
                snap = args.run / "snapshots" / f"net_{games:07d}.pt"
                save_weights(model, snap, {"games": games, "seconds": row["seconds"]})
                try:
                    rate, n = evaluate(snap, args.opponent, args.eval_games, args.seed + games,
                                       args.workers, False)
                    lo, hi = wilson(rate * n, n)
                    row.update(eval_games=n, eval_score=rate, eval_low=lo, eval_high=hi)
                except (ImportError, ValueError) as err:  # e.g. no pubeval in this install
                    print(f"evaluation skipped: {err}")
                bar.set_postfix(vs=f"{row.get('eval_score', float('nan')):.3f}")
            log.add(**row)
            save_checkpoint(checkpoint, model, optimizer, config, progress, rng)
    bar.close()
    plot_curve(args.run / "metrics.csv", args.run / "learning_curve.png", "games",
               {"eval_score": f"1-ply net vs {args.opponent}"},
               f"Backgammon TD(lambda): win rate against {args.opponent}",
               interval=("eval_low", "eval_high"), ylabel="win rate")
    card = {
        "game": GAME, "arch": ARCH, "arch_config": arch_config,
        "command": _command(config, args.hidden),
        "self_play_games": progress["games"], "training_seconds": round(progress["seconds"], 1),
        "final": log.rows()[-1] if log.rows() else {},
    }
    save_weights(model, args.out or args.run / "backgammon_net.pt", card)
    return card


def _command(config: dict, hidden: int) -> str:
    """The command(s) that reproduce the run (one more ``--resume`` per change of step size)."""
    return staged_commands(config, lambda games, lr: (
        f"python -m plies.training.backgammon_td80 --games {games} --hidden {hidden} --lr {lr} "
        f"--lam {config['lam']} --seed {config['seed']} --eval-every {config['eval_every']} "
        f"--eval-games {config['eval_games']}"))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    print(json.dumps(train(args), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
