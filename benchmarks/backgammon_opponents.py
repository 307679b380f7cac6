"""Backgammon: the best heuristic at 1, 2 and 3 ply against pubeval and gnubg 0-ply.

Each match is a plies tournament (pairs of games with the same dice and the seats swapped),
stored in ``--out`` as it goes, so an interrupted run continues where it stopped
(``--resume`` is implied). Prints a markdown table with 95% Wilson intervals of the win rate.

    python benchmarks/backgammon_opponents.py --out results/backgammon
    python benchmarks/backgammon_opponents.py --out results/backgammon --table-only
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plies.evaluation import run_tournament  # noqa: E402
from plies.evaluation.report import wilson_interval  # noqa: E402
from plies.evaluation.store import ResultStore  # noqa: E402
from plies.evaluation.tournament import TournamentConfig  # noqa: E402

HEURISTIC = "combined"  # the best at 1 ply against pubeval in a 200-game screen (see docs)
MATCHES = [(1, 1000), (2, 1000), (3, 200)]  # (depth, games)
OPPONENTS = ["pubeval", "gnubg:depth=0"]


def player(depth: int) -> str:
    return f"expectiminimax:depth={depth},eval={HEURISTIC}"


def results_file(out: Path, depth: int, opponent: str) -> Path:
    return out / f"ply{depth}_vs_{opponent.split(':')[0]}.sqlite"


def tally(path: Path, depth: int, opponent: str, games: int) -> tuple[int, int, float]:
    """(wins, games played, mean points) of the heuristic player stored in path."""
    if not path.exists():
        return 0, 0, 0.0
    config = TournamentConfig("backgammon", (player(depth), opponent), games, seed=depth)
    store = ResultStore(path, config.as_dict(), resume=True)
    records = list(store.records())
    store.close()
    wins = 0
    points = 0.0
    for record in records:
        result = record.returns[record.seats.index(player(depth))]
        wins += result > 0
        points += result
    return wins, len(records), points / max(1, len(records))


def table(out: Path) -> str:
    lines = [
        f"| plies `{HEURISTIC}` | opponent | games | wins | win rate | 95% interval |",
        "|---|---|---:|---:|---:|---|",
    ]
    for depth, games in MATCHES:
        for opponent in OPPONENTS:
            wins, played, _ = tally(results_file(out, depth, opponent), depth, opponent, games)
            if not played:
                lines.append(f"| {depth}-ply | {opponent} | 0 of {games} | - | - | - |")
                continue
            low, high = wilson_interval(wins, played)
            done = f"{played}" if played == games else f"{played} of {games}"
            lines.append(
                f"| {depth}-ply | {opponent} | {done} | {wins} | {wins / played:.3f} | "
                f"{low:.3f}-{high:.3f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/backgammon"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--depths", default="1,2,3", help="the matches to play, in this order")
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.table_only:
        wanted = [int(d) for d in args.depths.split(",")]
        for depth, games in sorted(MATCHES, key=lambda m: wanted.index(m[0]) if m[0] in wanted else 99):
            if depth not in wanted:
                continue
            for opponent in args.opponents.split(","):
                start = time.perf_counter()
                run_tournament(
                    "backgammon",
                    [player(depth), opponent],
                    games,
                    seed=depth,
                    workers=args.workers,
                    results=results_file(args.out, depth, opponent),
                    resume=True,
                    progress=False,
                )
                print(f"{depth}-ply vs {opponent}: {time.perf_counter() - start:.0f} s", flush=True)
                print(table(args.out), flush=True)
    print(table(args.out))


if __name__ == "__main__":
    main()
