"""The long backgammon TD run measured on the fresh-dice pair, point by point: its slope, and a plot.

Every measured snapshot of the run behind ``eval=net`` played 20,000 games at 1 ply against
``gnubg:depth=0`` on the same dice (seeds 2141 and 2147, 10,000 games each, seats swapped in
pairs), each chosen by a rule written before its games (docs/backgammon_experiments.md). The
points live in ``docs/data/backgammon_fresh_dice.csv``; this script reads them, prints each with
its 95% Wilson interval, and the least-squares line through them in points a million games with
two standard errors: one from the points' binomial noise alone, one from their scatter about the
line.

    python benchmarks/backgammon_fresh_dice.py                       # the table and the slope
    python benchmarks/backgammon_fresh_dice.py --plot docs/images/backgammon_fresh_dice.png
    python benchmarks/backgammon_fresh_dice.py --add 26400000 54 rule54_2141.json rule54_2147.json

``--add NETWORK_GAMES RULE FILE FILE`` takes a new point from the two ``plies tournament --json``
files of seeds 2141 and 2147 (the first agent the network at 1 ply, the second gnubg 0-ply) and
writes the table back atomically. Needs the ``eval`` extra (scipy; matplotlib for ``--plot``).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from plies.evaluation.report import wilson_interval
from plies.files import atomic_write

POINTS = Path(__file__).resolve().parents[1] / "docs" / "data" / "backgammon_fresh_dice.csv"
SEEDS = (2141, 2147)
GAMES_PER_SEED = 10_000
OPPONENT = "gnubg:depth=0"
PLAYER = "expectiminimax:depth=1,"
COLUMNS = ["network_games", "rule", "date", *(f"wins_seed_{s}" for s in SEEDS), "wins", "games"]


@dataclass(frozen=True)
class Point:
    network_games: int
    rule: int
    date: str
    seed_wins: tuple[int, ...] | None  # one a seed of ``SEEDS``; None where only the sum was kept
    wins: int
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games


def read_points(path: str | Path = POINTS) -> list[Point]:
    """The points in ``path``, ordered by the network's games; a row that does not add up, a
    network measured twice or a file of other columns is refused (ValueError)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read the table of points {path} ({error})") from None
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames != COLUMNS:
        raise ValueError(f"{path}: the columns must be {', '.join(COLUMNS)}, not {reader.fieldnames}")
    points = []
    for line, row in enumerate(reader, start=2):
        try:
            seeds = [row[f"wins_seed_{s}"] for s in SEEDS]
            point = Point(int(row["network_games"]), int(row["rule"]), datetime.date.fromisoformat(row["date"]).isoformat(),
                          tuple(int(w) for w in seeds) if all(seeds) else None, int(row["wins"]), int(row["games"]))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}, line {line}: not a point ({error})") from None
        if point.network_games < 0 or point.games < 1 or not 0 <= point.wins <= point.games:
            raise ValueError(f"{path}, line {line}: wins must lie between 0 and the games played, games at least 1")
        if any(seeds) and point.seed_wins is None:
            raise ValueError(f"{path}, line {line}: give the wins of both seeds or of neither")
        if point.seed_wins is not None and sum(point.seed_wins) != point.wins:
            raise ValueError(f"{path}, line {line}: the seeds' wins {point.seed_wins} do not add up to {point.wins}")
        points.append(point)
    networks = [p.network_games for p in points]
    if len(set(networks)) != len(networks):
        raise ValueError(f"{path}: a network is measured twice")
    return sorted(points, key=lambda p: p.network_games)


def write_points(points: list[Point], path: str | Path = POINTS) -> None:
    def write(handle) -> None:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        for p in sorted(points, key=lambda p: p.network_games):
            seeds = list(p.seed_wins) if p.seed_wins is not None else [""] * len(SEEDS)
            writer.writerow([p.network_games, p.rule, p.date, *seeds, p.wins, p.games])

    atomic_write(path, write, text=True)


@dataclass(frozen=True)
class Slope:
    per_million: float  # win-rate points a million games
    intercept: float  # the line's win rate (in points) at no games
    se_binomial: float  # from each point's binomial noise at the pooled rate
    se_scatter: float  # from the points' scatter about the line
    mean_rate: float


def slope(points: list[Point]) -> Slope:
    """The least-squares line of win rate (in points) against millions of games."""
    from scipy import stats

    if len(points) < 3:
        raise ValueError("a slope and its scatter need at least three points")
    x = [p.network_games / 1e6 for p in points]
    y = [100 * p.rate for p in points]
    fit = stats.linregress(x, y)
    pooled = sum(p.wins for p in points) / sum(p.games for p in points)
    mean_x = sum(x) / len(x)
    sxx = sum((xi - mean_x) ** 2 for xi in x)
    variance = sum((xi - mean_x) ** 2 * pooled * (1 - pooled) / p.games for xi, p in zip(x, points)) / sxx ** 2
    return Slope(float(fit.slope), float(fit.intercept), 100 * math.sqrt(variance), float(fit.stderr), pooled)


def point_from_tournaments(network_games: int, rule: int, files: list[str | Path],
                           date: str | None = None) -> Point:
    """A point from the ``plies tournament --json`` files of the fresh-dice pair: the same
    1-ply network against gnubg 0-ply in both, ``GAMES_PER_SEED`` games each at the default
    options, one file of each seed."""
    if type(network_games) is not int or network_games < 0 or type(rule) is not int or rule < 1:
        raise ValueError(f"the network's games must be 0 or more and the rule 1 or more, not {network_games}, {rule}")
    date = date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    try:
        date = datetime.date.fromisoformat(date).isoformat()
    except (TypeError, ValueError):
        raise ValueError(f"the date must read YYYY-MM-DD, not {date!r}") from None
    if len(files) != len(SEEDS):
        raise ValueError(f"one tournament file for each of the seeds {SEEDS}")
    found: dict[int, tuple[int, int]] = {}
    players = set()
    for path in files:
        try:
            data = json.loads(Path(path).read_text())
            config, summary = data["config"], data["summary"]
            agents, seed = config["agents"], config["seed"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path} is not a plies tournament results file ({error})") from None
        if config.get("game") != "backgammon" or len(agents) != 2 or agents[1] != OPPONENT \
                or not str(agents[0]).startswith(PLAYER):
            raise ValueError(f"{path}: not a 1-ply network ({PLAYER}...) against {OPPONENT}: {agents}")
        if seed not in SEEDS or seed in found:
            raise ValueError(f"{path}: seed {seed}; the fresh-dice pair is one file each of {SEEDS}")
        if config.get("games") != GAMES_PER_SEED or config.get("opening_plies") or config.get("options"):
            raise ValueError(f"{path}: the pair's matches are {GAMES_PER_SEED:,} games from the start at the "
                             f"default options, not {config.get('games')} games, opening plies "
                             f"{config.get('opening_plies')}, options {config.get('options')}")
        rows = [r for r in summary if r.get("agent") == agents[0]]
        if len(rows) != 1 or rows[0].get("games") != GAMES_PER_SEED:
            raise ValueError(f"{path}: no summary row of {GAMES_PER_SEED:,} games for {agents[0]}")
        found[seed] = (int(rows[0]["wins"]), int(rows[0]["games"]))
        players.add(agents[0])
    if len(players) != 1:
        raise ValueError(f"the two files are of different players: {sorted(players)}")
    seed_wins = tuple(found[s][0] for s in SEEDS)
    return Point(network_games, rule, date, seed_wins, sum(seed_wins), sum(found[s][1] for s in SEEDS))


def plot(points: list[Point], line: Slope, out: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [p.network_games / 1e6 for p in points]
    y = [100 * p.rate for p in points]
    intervals = [wilson_interval(p.wins, p.games) for p in points]
    low = [yi - 100 * lo for yi, (lo, _) in zip(y, intervals)]
    high = [100 * hi - yi for yi, (_, hi) in zip(y, intervals)]
    fig, ax = plt.subplots(figsize=(8, 4.8))
    ax.axhline(50, color="tab:red", linestyle="--", linewidth=1, label="target: 50%")
    ax.errorbar(x, y, yerr=[low, high], fmt="o", color="tab:blue", capsize=3,
                label="1 ply vs gnubg 0-ply, 20,000 games (95% Wilson)")
    ends = [min(x), max(x)]
    ax.plot(ends, [line.intercept + line.per_million * e for e in ends], color="tab:gray",
            label=f"least squares: {line.per_million:+.3f} points a million games")
    ax.set_xlabel("self-play games of the network (millions)")
    ax.set_ylabel("win rate (%)")
    ax.set_title("The backgammon TD run on the fresh-dice pair (seeds 2141 and 2147)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    atomic_write(out, lambda handle: fig.savefig(handle, format="png", dpi=110))
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=Path, default=POINTS, help="the table of points (CSV)")
    parser.add_argument("--add", nargs=4, metavar=("NETWORK_GAMES", "RULE", "FILE_2141", "FILE_2147"),
                        help="add a point from the two tournament results files")
    parser.add_argument("--date", help="the new point's date (YYYY-MM-DD; default: today, UTC)")
    parser.add_argument("--plot", type=Path, help="draw the points and the line into this PNG")
    args = parser.parse_args(argv)
    try:
        points = read_points(args.points)
        if args.add:
            games, rule = (int(v) for v in args.add[:2])
            new = point_from_tournaments(games, rule, args.add[2:], args.date)
            if any(p.network_games == new.network_games for p in points):
                raise ValueError(f"{args.points} already has a point for the network at {games:,} games")
            points = sorted([*points, new], key=lambda p: p.network_games)
            write_points(points, args.points)
    except ValueError as error:
        parser.error(str(error))
    print(f"{'games':>12} {'rule':>5} {'date':>11} {'wins':>7} {'of':>7} {'rate':>7}  95% interval")
    for p in points:
        lo, hi = wilson_interval(p.wins, p.games)
        print(f"{p.network_games:>12,} {p.rule:>5} {p.date:>11} {p.wins:>7,} {p.games:>7,} "
              f"{100 * p.rate:>6.2f}%  [{100 * lo:.2f}, {100 * hi:.2f}]")
    line = slope(points)
    print(f"\n{len(points)} points: {line.per_million:+.4f} points a million games (standard error "
          f"{line.se_binomial:.4f} from the binomial noise, {line.se_scatter:.4f} from the scatter); "
          f"pooled {100 * line.mean_rate:.2f}%")
    if args.plot:
        plot(points, line, args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
