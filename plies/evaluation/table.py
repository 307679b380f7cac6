"""The win-rate table of a tournament: per agent, and per agent against each opponent."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from plies.evaluation.store import GameRecord


def outcome_for(record: GameRecord, seat: int) -> str:
    """``win`` (strictly the best return), ``draw`` (tied for the best) or ``loss``."""
    best = max(record.returns)
    mine = record.returns[seat]
    if mine < best:
        return "loss"
    return "win" if record.returns.count(best) == 1 else "draw"


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def add(self, outcome: str) -> None:
        if outcome == "win":
            self.wins += 1
        elif outcome == "draw":
            self.draws += 1
        else:
            self.losses += 1


@dataclass
class WinRateTable:
    """Totals per agent and, per pair of agents, the results over the games they shared."""

    agents: list[str]
    totals: dict[str, Tally] = field(default_factory=dict)
    versus: dict[tuple[str, str], Tally] = field(default_factory=dict)
    games: int = 0

    @classmethod
    def from_records(cls, records: Iterable[GameRecord], agents: list[str]) -> WinRateTable:
        totals: dict[str, Tally] = defaultdict(Tally)
        versus: dict[tuple[str, str], Tally] = defaultdict(Tally)
        count = 0
        for record in records:
            count += 1
            for seat, agent in enumerate(record.seats):
                outcome = outcome_for(record, seat)
                totals[agent].add(outcome)
                for other in set(record.seats) - {agent}:
                    versus[agent, other].add(outcome)
        return cls(list(agents), dict(totals), dict(versus), count)

    def ranking(self) -> list[str]:
        """Agents by win rate, best first (draw rate breaks ties)."""
        def key(agent: str) -> tuple[float, float]:
            t = self.totals.get(agent, Tally())
            return (-t.win_rate, -(t.draws / t.games if t.games else 0.0))

        return sorted(self.agents, key=key)

    def format(self) -> str:
        """Rows by win rate: totals, then ``rate%/n`` against each opponent."""
        order = self.ranking()
        short = {a: f"#{i + 1}" for i, a in enumerate(order)}
        head = ["#", "agent", "games", "wins", "draws", "losses", "win%"] + [short[a] for a in order]
        rows = [head]
        for agent in order:
            t = self.totals.get(agent, Tally())
            row = [short[agent], agent, str(t.games), str(t.wins), str(t.draws), str(t.losses), f"{100 * t.win_rate:.1f}"]
            for other in order:
                v = self.versus.get((agent, other))
                row.append("-" if other == agent or v is None else f"{100 * v.win_rate:.0f}%/{v.games}")
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.rjust(w) if i != 1 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
        lines.insert(1, "-" * len(lines[0]))
        lines.append(f"{self.games} games; a cell is the row agent's win rate over the games shared with the column agent / their count")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()
