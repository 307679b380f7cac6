"""``plies train-policy GAME``: a policy network that gives MCTS its priors in one pass.

PUCT with value priors (``mcts:eval=net,prior_temperature=T``) scores every child of a node with
the value network when the node is expanded, and takes the softmax of those values over T as the
children's priors. A policy network learns that softmax from the position alone, so a node costs
one pass of the policy network instead of one value pass per child (``mcts:policy=``).

How: the game's value network (``--value``: ``net`` or a ``FILE.pt`` of ``plies train``) plays
``--games`` games against itself in the training engine's self-play (``selfplay``: the
best 1-ply move, a random one with probability ``--epsilon``, random moves for the first
``--random-plies`` plies); at every position taken, each legal action's child is scored by the
value network (``child_values``, the values value priors use), and the target is their softmax
over ``--temperature``. An ``mlp_policy`` network (``--hidden`` ReLU units) is fitted to those
targets by Adam (cross-entropy over the legal actions; illegal actions' logits are left out), on
all but a tenth of the games; the held-out tenth measures how often its top action is the value
network's (``top1``) and the cross-entropy's excess over the targets' own entropy (``kl``).
The weights and their card (command, positions, seconds, machine, held-out figures) are written
atomically to ``--out``. A run takes minutes and is a function of its seed: it is run again
rather than resumed.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from plies.agents.evaluator_specs import compiled_network
from plies.agents.value_net import MLPPolicyNet, require_torch
from plies.evaluation.interrupts import raise_swallowed_stop
from plies.games.game import Game
from plies.games.registry import get_game
from plies.training.common import save_weights, seed_everything
from plies.training.engine import CandidateScorer, selfplay


def child_values(game: Game, positions: np.ndarray, params: np.ndarray, actions: int, width: int,
                 chunk: int = 4096) -> np.ndarray:
    """``values[b, a]``: the value network's value, for the side to move in ``positions[b]``, of
    the position after its action ``a`` (a finished game's return), as self-play scores moves
    (``CandidateScorer``); NaN where ``a`` is not legal."""
    values = np.full((len(positions), actions), np.nan)
    scorer = CandidateScorer(game, chunk, width, positions.shape[1])
    for start in range(0, len(positions), chunk):
        owner, action, value = scorer.score(np.ascontiguousarray(positions[start:start + chunk]), params)
        values[start + owner, action] = value
    return values


def check_game(game: Game) -> None:
    if game.has_chance or game.num_players != 2 or not game.zero_sum:
        raise ValueError(f"a policy network gives PUCT its priors in two-player zero-sum games without "
                         f"chance; {game.id} is not one")
    if game.net_value is None or game.encode is None or game.features_into is None:
        raise ValueError(f"{game.id} declares no net_value, encode and features_into: it has no value "
                         "network to learn a policy from")


def prior_targets(values: np.ndarray, temperature: float) -> np.ndarray:
    """The softmax of each row's values over ``temperature``, NaN (illegal) entries 0: the
    priors PUCT takes from the value network (``mcts:prior_temperature``)."""
    legal = ~np.isnan(values)
    shifted = np.where(legal, values, -np.inf)
    shifted = shifted - shifted.max(axis=1, keepdims=True)  # before dividing: no inf - inf at a small T
    weights = np.where(legal, np.exp(np.where(legal, shifted, 0.0) / temperature), 0.0)
    return weights / weights.sum(axis=1, keepdims=True)


def policy_data(game: Game, value: str, games: int, temperature: float, epsilon: float, random_plies: int,
                seed: int, options: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Self-play positions of the value network ``value``: their inputs, prior targets, legal
    masks and games."""
    options = options or {}
    start = game.new_state(0, **options)
    params = compiled_network(start, value).params  # its layout checked against this game's encoder
    played = selfplay(game, options, params, games, epsilon, random_plies, (seed,))
    positions = np.ascontiguousarray(played["positions"])
    values = child_values(game, positions, params, start.num_actions, start.max_legal_actions)
    return {"x": game.encode(positions), "targets": prior_targets(values, temperature).astype(np.float32),
            "legal": ~np.isnan(values), "game_of": played["game_of"]}


def _losses(torch, model, x, targets, legal):
    logits = model(x).masked_fill(~legal, -1e9)
    log_p = torch.log_softmax(logits, dim=1)
    return -(targets * log_p).sum(dim=1), logits


def fit_policy(data: dict[str, np.ndarray], game: Game, hidden: list[int], epochs: int, batch: int, lr: float,
               seed: int, quiet: bool = True) -> tuple[Any, dict[str, float]]:
    """An ``mlp_policy`` network fitted to ``data`` (``policy_data``), and its held-out figures."""
    torch = require_torch()
    from tqdm.auto import tqdm

    seed_everything(seed)
    held = data["game_of"] % 10 == 9
    x, targets, legal = (torch.from_numpy(np.ascontiguousarray(data[k])) for k in ("x", "targets", "legal"))
    train_rows, test_rows = np.flatnonzero(~held), np.flatnonzero(held)
    model = MLPPolicyNet(game=game.id, inputs=x.shape[1], actions=targets.shape[1], hidden=list(hidden))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    for _ in tqdm(range(epochs), disable=quiet, desc=f"{game.id} policy"):
        order = rng.permutation(train_rows)
        for start in range(0, len(order), batch):
            rows = torch.from_numpy(order[start:start + batch])
            loss = _losses(torch, model, x[rows], targets[rows], legal[rows])[0].mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    model.eval()
    rows = torch.from_numpy(test_rows if len(test_rows) else train_rows)
    with torch.no_grad():
        cross, logits = _losses(torch, model, x[rows], targets[rows], legal[rows])
        t = targets[rows]
        entropy = -(t * torch.log(t.clamp_min(1e-12))).sum(dim=1)
        top1 = (logits.argmax(dim=1) == t.argmax(dim=1)).double().mean().item()
    return model, {"kl": round(float((cross - entropy).mean()), 4), "top1": round(top1, 4),
                   "held_out_positions": int(len(rows))}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="plies train-policy", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="a game id (two players, no chance, a value network)")
    p.add_argument("--value", default="net", help="the value network: net (the shipped one) or FILE.pt")
    p.add_argument("--games", type=int, default=4000, help="self-play games whose positions are learnt")
    p.add_argument("--temperature", type=float, default=0.1,
                   help="the targets are the softmax of the children's values over this (as prior_temperature)")
    p.add_argument("--epsilon", type=float, default=0.1, help="share of random moves in the self-play")
    p.add_argument("--random-plies", type=int, default=4, help="random moves that open each game")
    p.add_argument("--hidden", type=int, nargs="+", default=[128], help="hidden layer sizes")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, help="where the weights go (default runs/<game>_policy.pt)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def check_args(args: argparse.Namespace) -> None:
    for name in ("games", "epochs", "batch"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name} must be at least 1, not {getattr(args, name)}")
    if args.random_plies < 0:
        raise ValueError(f"--random-plies must be 0 or more, not {args.random_plies}")
    if not 0.0 <= args.epsilon <= 1.0:
        raise ValueError(f"--epsilon must lie in [0, 1], not {args.epsilon}")
    if not 0.0 < args.temperature <= 1e6 or not np.isfinite(args.temperature):
        raise ValueError(f"--temperature must be above 0, not {args.temperature}")
    if not 0.0 < args.lr < 1.0:
        raise ValueError(f"--lr must lie in (0, 1), not {args.lr}")
    if any(not 1 <= h <= 4096 for h in args.hidden) or len(args.hidden) > 8:
        raise ValueError(f"--hidden takes 1 to 8 layer sizes of 1 to 4096, not {args.hidden}")
    if not (args.value == "net" or args.value.endswith(".pt")):
        raise ValueError(f"--value takes net or a FILE.pt, not {args.value!r}")


def train_policy(args: argparse.Namespace) -> dict[str, Any]:
    """Runs ``plies train-policy``; returns the card of the written weights."""
    check_args(args)
    game = get_game(args.game)
    check_game(game)
    began = time.perf_counter()
    data = policy_data(game, args.value, args.games, args.temperature, args.epsilon, args.random_plies, args.seed)
    model, figures = fit_policy(data, game, args.hidden, args.epochs, args.batch, args.lr, args.seed, args.quiet)
    out = args.out or Path("runs") / f"{game.id}_policy.pt"
    out.parent.mkdir(parents=True, exist_ok=True)
    card = {"game": game.id, "arch": model.arch, "arch_config": model.config,
            "command": f"plies train-policy {game.id} --value {args.value} --games {args.games} --temperature "
                       f"{args.temperature} --epsilon {args.epsilon} --random-plies {args.random_plies} --hidden "
                       f"{' '.join(map(str, args.hidden))} --epochs {args.epochs} --batch {args.batch} "
                       f"--lr {args.lr} --seed {args.seed}",
            "value_network": args.value, "temperature": args.temperature, "self_play_games": args.games,
            "positions": int(len(data["x"])), "training_seconds": round(time.perf_counter() - began, 1),
            "machine": f"{platform.machine()} {platform.processor() or ''}".strip(), **figures}
    raise_swallowed_stop()  # a stop that compiled code lost: no weights written for a stopped run
    save_weights(model, out, card)
    return card


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        card = train_policy(args)
    except (KeyError, ValueError, FileNotFoundError) as err:
        print(f"plies train-policy {args.game}: {err}", file=sys.stderr)
        return 2
    out = args.out or Path("runs") / f"{card['game']}_policy.pt"
    print(f"{out}: {card['positions']} positions of {card['self_play_games']} games; held out: its top action "
          f"is the value network's in {card['top1']:.1%}, cross-entropy {card['kl']:.4f} above the targets' "
          f"entropy ({card['training_seconds']} s)")
    return 0
