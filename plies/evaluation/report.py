"""What a tournament's results say: intervals, ratings, a heatmap, CSV and JSON.

Needs the ``eval`` extra (scipy for Wilson intervals, openskill for ratings, matplotlib for the
heatmap); each function says which install to run when its package is missing.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from plies.evaluation.store import GameRecord
from plies.evaluation.table import WinRateTable
from plies.files import atomic_write


def _need(module: str, extra: str = "eval"):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f"{module} is needed for this report: pip install \"plies[{extra}]\"") from err


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (scipy's ``binomtest(...).proportion_ci``)."""
    if trials == 0:
        return (0.0, 1.0)
    stats = _need("scipy.stats")
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def ratings(records: Iterable[GameRecord], agents: list[str]) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) ratings from the game results, in the order played.

    Every game is one match of single-player teams ranked by their returns (ties share a
    rank), so two-player and N-player tournaments are rated alike."""
    models = _need("openskill.models")
    model = models.PlackettLuce()
    current = {a: model.rating(name=a) for a in agents}
    for record in records:
        order = sorted(set(record.returns), reverse=True)
        ranks = [order.index(r) + 1 for r in record.returns]
        teams = [[current[a]] for a in record.seats]
        for (rated,), agent in zip(model.rate(teams, ranks=ranks), record.seats):
            current[agent] = rated
    return {a: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for a, r in current.items()}


def summary_rows(table: WinRateTable, records: list[GameRecord]) -> list[dict]:
    """One row per agent, best first: counts, win rate, its 95% interval, rating, per opponent."""
    rated = ratings(records, table.agents)
    rows = []
    for agent in table.ranking():
        t = table.totals.get(agent)
        games, wins = (t.games, t.wins) if t else (0, 0)
        low, high = wilson_interval(wins, games)
        row = {
            "agent": agent,
            "games": games,
            "wins": wins,
            "draws": t.draws if t else 0,
            "losses": t.losses if t else 0,
            "win_rate": wins / games if games else 0.0,
            "ci_low": low,
            "ci_high": high,
            "rating": rated[agent]["ordinal"],
            "mu": rated[agent]["mu"],
            "sigma": rated[agent]["sigma"],
        }
        for other in table.ranking():
            v = table.versus.get((agent, other))
            if other != agent and v is not None:
                row[f"vs {other}"] = f"{100 * v.win_rate:.0f}%/{v.games}"
        rows.append(row)
    return rows


def format_summary(table: WinRateTable, records: list[GameRecord]) -> str:
    """The win-rate table with 95% Wilson intervals and ratings appended per agent."""
    lines = [table.format(), "", "agent  win% [95% Wilson interval]  rating (mu - 3 sigma)"]
    for row in summary_rows(table, records):
        lines.append(
            f"{row['agent']}  {100 * row['win_rate']:.1f}% [{100 * row['ci_low']:.1f}, "
            f"{100 * row['ci_high']:.1f}]  {row['rating']:.2f}"
        )
    return "\n".join(lines)


def _atomic_write(path: Path, write) -> None:
    atomic_write(path, write, text=True)


def export_csv(table: WinRateTable, records: list[GameRecord], path: str | Path) -> None:
    rows = summary_rows(table, records)
    fields = list(dict.fromkeys(k for row in rows for k in row))

    def write(handle) -> None:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)

    _atomic_write(Path(path), write)


def export_json(table: WinRateTable, records: list[GameRecord], path: str | Path, config: dict | None = None) -> None:
    payload = {
        "config": config or {},
        "summary": summary_rows(table, records),
        "games": [asdict(r) for r in records],
    }
    _atomic_write(Path(path), lambda handle: json.dump(payload, handle, indent=1))


def plot_heatmap(table: WinRateTable, path: str | Path, title: str = "") -> None:
    """A PNG heatmap: the row agent's score against the column agent (win 1, draw 1/2) as the
    colour; its win and draw rates and the number of games as the text."""
    matplotlib = _need("matplotlib", "plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    order = table.ranking()
    n = len(order)
    rates = np.full((n, n), np.nan)
    labels = [["" for _ in range(n)] for _ in range(n)]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            v = table.versus.get((a, b))
            if a != b and v is not None and v.games:
                rates[i, j] = (v.wins + v.draws / 2) / v.games
                labels[i][j] = f"{100 * v.win_rate:.0f}% w\n{100 * v.draws / v.games:.0f}% d\nn={v.games}"
    size = 1.2 + 0.9 * n
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    image = ax.imshow(rates, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(n), order, rotation=35, ha="right")
    ax.set_yticks(range(n), order)
    for i in range(n):
        for j in range(n):
            if labels[i][j]:
                ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent (row wins)")
    ax.set_title(title or "score of the row agent")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    atomic_write(Path(path), lambda handle: fig.savefig(handle, dpi=110, format="png"))
    plt.close(fig)
