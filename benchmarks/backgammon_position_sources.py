"""Are the positions of games against gnubg harder for a network than its own self-play ones?

A diagnostic of issue 25's plateau (held-out figures, no games played): it replays the games of
a ``plies tournament --json`` results file of a 1-ply network against ``gnubg:depth=0`` and keeps
their end-of-turn positions, split by who has just moved (the network, whose afterstates its
1-ply search compares, or gnubg), plus the end-of-turn positions of ``--self-play-games``
self-play games of ``eval=net``. Each network named is scored on all three by its mean
|P(win) - gnubg 0-ply's P(win)| for the side on roll, over all positions and over contact ones.
A network whose error grew much more on gnubg's positions than on its own would be learning
its own distribution rather than the game.

    plies tournament --game backgammon --agents "expectiminimax:depth=1,eval=net" gnubg:depth=0 \\
        --games 2000 --seed 2141 --workers 2 --quiet --json games.json
    python benchmarks/backgammon_position_sources.py games.json --games 1000 \\
        plies/agents/weights/backgammon_net.pt plies/agents/weights/backgammon_net_cr600k.pt

Needs the ``gnubg`` extra (gnubg-nn) and torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backgammon_imitation import gnubg_labels, positions
from plies.agents.value_net import load_value_net, shipped_weights
from plies.games.backgammon import features
from plies.games.backgammon import rules as bg_rules
from plies.games.backgammon.state import GAME
from plies.games.kernels import CHANCE, TERMINAL
from plies.training.backgammon import ARCH

OPPONENT = "gnubg:depth=0"
SOURCES = ("after the network's moves", "after gnubg's moves", "self-play of eval=net")


def _unique_boards(rows: list[np.ndarray]) -> np.ndarray:
    table = np.stack(rows)
    table[:, [bg_rules.DIE_HI, bg_rules.DIE_LO]] = 0  # the dice that led there: one board, one row
    return np.unique(table, axis=0)


def game_positions(results: dict, games: int) -> tuple[np.ndarray, np.ndarray]:
    """End-of-turn positions of the first ``games`` games of a results file (``plies tournament
    --json``), each board once: (after the network's moves, after gnubg's). Every action is
    played through the checked ``apply``; a file that is not such a match is a ValueError."""
    try:
        config, records = results["config"], results["games"]
        agents = list(config["agents"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a plies tournament results file ({error!r} missing)") from None
    if config.get("game") != "backgammon" or len(agents) != 2 or OPPONENT not in agents:
        raise ValueError(f"not a backgammon match against {OPPONENT}: {agents}")
    network = agents[1 - agents.index(OPPONENT)]
    if config.get("options"):
        raise ValueError(f"the games were played with options {config['options']}; this reads plain games")
    after = {network: [], OPPONENT: []}
    for record in records[:games]:
        try:
            seats, seed, actions = record["seats"], int(record["seed"]), record["actions"]
            mover_of = {seat: name for seat, name in enumerate(seats)}
            if sorted(seats) != sorted(agents):
                raise ValueError(f"seats {seats}")
            state = GAME.new_state(seed=seed)
            for action in actions:
                before = state.current_player
                state.apply(action)
                row = state.array
                if row[0] == TERMINAL:
                    break
                if row[bg_rules.PLAYER] == CHANCE and row[bg_rules.ROLLS] > 0 and before >= 0:
                    after[mover_of[before]].append(np.array(row, np.int64))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"game {record.get('index', '?') if isinstance(record, dict) else '?'} "
                             f"cannot be replayed ({error})") from None
    if not after[network] or not after[OPPONENT]:
        raise ValueError("the file holds no positions to score")
    return _unique_boards(after[network]), _unique_boards(after[OPPONENT])


def errors(network, rows: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Mean |P(win) - label| over ``rows``, and over their contact positions."""
    import torch

    x, classes = features.encode(rows, features.next_mover(rows))
    with torch.no_grad():
        p = network(torch.from_numpy(x), torch.from_numpy(classes.astype(np.int64))).numpy()
    gap = np.abs(p[:, 0] - labels[:, 0])
    contact = classes == features.CONTACT
    return float(gap.mean()), float(gap[contact].mean()) if contact.any() else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="a plies tournament --json file: a 1-ply network against gnubg 0-ply")
    parser.add_argument("networks", nargs="+", help="contact/race network files (weights or checkpoints) to score")
    parser.add_argument("--games", type=int, default=1000, help="games of the file to replay")
    parser.add_argument("--self-play-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=77, help="the self-play games' dice")
    args = parser.parse_args(argv)
    if args.games < 1 or args.self_play_games < 1:
        parser.error("--games and --self-play-games must be at least 1")
    import torch

    torch.set_num_threads(1)
    try:
        results = json.loads(args.results.read_text())
        ours, theirs = game_positions(results, args.games)
        nets = [load_value_net(path, "backgammon") for path in args.networks]
    except (OSError, ValueError) as error:
        parser.error(str(error))
    for path, net in zip(args.networks, nets):
        if getattr(net, "arch", None) != ARCH:
            parser.error(f"{path} is not a contact/race network")
    own = positions(load_value_net(shipped_weights("backgammon"), "backgammon"), args.self_play_games, 0.0, args.seed)
    sources = dict(zip(SOURCES, (ours, theirs, own)))
    labels = {name: gnubg_labels(rows, 0) for name, rows in sources.items()}
    print("mean |P(win) - gnubg 0-ply's| for the side on roll: all positions (contact ones)")
    print(f"{'network':<36}" + "".join(f"{name:>28}" for name in SOURCES))
    print(f"{'positions':<36}" + "".join(f"{len(rows):>28,}" for rows in sources.values()))
    for path, net in zip(args.networks, nets):
        cells = [errors(net, sources[name], labels[name]) for name in SOURCES]
        print(f"{Path(path).name:<36}" + "".join(f"{f'{a:.4f} ({c:.4f})':>28}" for a, c in cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
