"""Where a backgammon player loses equity to gnubg, by kind of position.

The player under test (``--agent``, default the shipped network at 1 ply) plays both sides of
``--games`` games, the dice drawn from ``--seed``. At each of its turns the reference player
(``--reference``, default ``gnubg:depth=0``) chooses its play from the same position too; where
the two plays differ, both end-of-turn positions are scored by gnubg's network at
``--judge-depth`` plies (single-game scoring: equity = 2 P(win) - 1 for the side that moved),
and the difference is the player's error on that turn (negative where it chose better than
the reference, as the judge sees it). Turns are grouped by gnubg's class of the position before
the roll was played (contact, crashed, race, bear-off).

The judge is gnubg's own network, searched deeper, so it shares the reference's taste: read
the figures as "where the player and gnubg differ, and which way gnubg's deeper search leans",
not as absolute errors. Needs the ``gnubg`` extra (gnubg-nn).

    python benchmarks/backgammon_errors.py --games 40 --seed 1
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from plies.agents import make
from plies.agents.gnubg_agents import _gnubg, to_gnubg
from plies.files import atomic_write
from plies.games.backgammon import rules
from plies.games.registry import new_state

CLASS_NAMES = {"c_bearoff": "bear-off", "c_contact": "contact", "c_crashed": "crashed", "c_race": "race",
               "c_over": "over"}


def end_of_turn(state, agent) -> np.ndarray:
    """The position after ``agent`` plays the whole turn of the side to move in ``state``."""
    clone = state.clone()
    mover = clone.current_player
    while not clone.is_terminal() and not clone.is_chance_node() and clone.current_player == mover:
        clone.apply(agent.act(clone))
    return clone


def judged_equity(gnubg, after, mover: int, depth: int) -> float:
    """The mover's single-game equity of an end-of-turn position, by gnubg at ``depth`` plies."""
    if after.is_terminal():
        return 1.0 if after.returns()[mover] > 0 else -1.0
    win = gnubg.probabilities(to_gnubg(after.array, 1 - mover), depth)[0]  # the opponent on roll
    return -(2.0 * win - 1.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="expectiminimax:depth=1,eval=net")
    parser.add_argument("--reference", default="gnubg:depth=0")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--judge-depth", type=int, default=2, choices=(0, 1, 2))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--records", type=Path, default=None,
                        help="also write every turn to this .npz (the state before the play, the mover, "
                             "the class, the error: 0 where the plays agree) for a finer breakdown")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    gnubg = _gnubg()
    gnubg.set.score(1, 1)  # double match point: only winning counts (single-game scoring)
    classes = {getattr(gnubg, name): label for name, label in CLASS_NAMES.items()}
    agent, reference = make(args.agent, seed=args.seed), make(args.reference, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    turns: dict[str, int] = defaultdict(int)
    differ: dict[str, int] = defaultdict(int)
    errors: dict[str, list[float]] = defaultdict(list)
    kinds = sorted(set(CLASS_NAMES.values()) | {"other"})
    rows: dict[str, list] = {"states": [], "movers": [], "kinds": [], "errors": []}
    from tqdm.auto import tqdm

    for _ in tqdm(range(args.games), desc="games"):
        state = new_state("backgammon", seed=int(rng.integers(2**31)))
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = state.chance_outcomes()
                state.apply(int(actions[rng.choice(len(actions), p=probs / probs.sum())]))
                continue
            mover = state.current_player
            kind = classes.get(gnubg.classify(to_gnubg(state.array, mover)), "other")
            mine, theirs = end_of_turn(state, agent), end_of_turn(state, reference)
            turns[kind] += 1
            board = slice(rules.BOARD, rules.BOARD + 2 * rules.SIDE)
            error = 0.0
            if not np.array_equal(mine.array[board], theirs.array[board]):
                differ[kind] += 1
                error = (judged_equity(gnubg, theirs, mover, args.judge_depth)
                         - judged_equity(gnubg, mine, mover, args.judge_depth))
                errors[kind].append(error)
            if args.records is not None:
                for key, value in (("states", state.array.copy()), ("movers", mover),
                                   ("kinds", kinds.index(kind)), ("errors", error)):
                    rows[key].append(value)
            state = mine
    print(f"{args.agent} against {args.reference}, judged by gnubg at {args.judge_depth} plies, "
          f"{args.games} games of the player against itself (seed {args.seed})")
    print("| class | turns | plays differ | mean error a turn (equity) | share of all error | worse / better |")
    print("|---|---:|---:|---:|---:|---|")
    total = sum(sum(v) for v in errors.values())
    for kind in sorted(turns, key=lambda k: -turns[k]):
        e = np.array(errors[kind]) if errors[kind] else np.zeros(0)
        print(f"| {kind} | {turns[kind]} | {differ[kind]} ({100 * differ[kind] / turns[kind]:.0f}%) | "
              f"{e.sum() / turns[kind]:+.4f} | {100 * e.sum() / total if total else 0:.0f}% | "
              f"{int((e > 0).sum())} / {int((e < 0).sum())} |")
    all_turns = sum(turns.values())
    print(f"all: {all_turns} turns, mean error a turn {total / max(all_turns, 1):+.4f}")
    if args.records is not None:
        arrays = dict(states=np.stack(rows["states"]), movers=np.array(rows["movers"], np.int64),
                      kinds=np.array(rows["kinds"], np.int64), errors=np.array(rows["errors"]),
                      kind_names=np.array(kinds))
        atomic_write(args.records, lambda handle: np.savez(handle, **arrays))
        print(f"turns written to {args.records}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
