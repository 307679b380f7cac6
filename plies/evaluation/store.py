"""SQLite storage of tournament results: one row per finished game, written as it finishes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


@dataclass
class GameRecord:
    """The result of one tournament game."""

    index: int
    seed: int
    seats: list[str]  # agent spec per seat
    returns: list[float]
    plies: int
    truncated: bool
    decision_seconds: list[float]  # time used per seat
    decisions: list[int]  # decisions taken per seat
    actions: list[int]  # every action of the game, chance outcomes included (a replay)
    timeouts: list[int] = field(default_factory=list)  # decisions over the clock, per seat
    errors: list[str] = field(default_factory=list)  # why a seat forfeited ("" if it did not), per seat


class ResultStore:
    """A results file bound to one tournament configuration."""

    def __init__(self, path: str | Path, config: dict[str, Any], resume: bool) -> None:
        self.path = Path(path)
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            self.db = sqlite3.connect(self.path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS games (idx INTEGER PRIMARY KEY, record TEXT NOT NULL)"
            )
        except sqlite3.DatabaseError as err:
            raise ValueError(f"{self.path} is not a plies results file ({err})") from err
        stored = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        wanted = {"schema": str(SCHEMA_VERSION), "config": json.dumps(config, sort_keys=True)}
        if stored:
            if stored.get("schema") != wanted["schema"]:
                raise ValueError(
                    f"{self.path} was written by another version of plies (results schema "
                    f"{stored.get('schema')}, this one writes {SCHEMA_VERSION}); use a new file"
                )
            if stored.get("config") != wanted["config"]:
                raise ValueError(
                    f"{self.path} holds results of another tournament:\n  stored: {stored.get('config')}\n"
                    f"  asked:  {wanted['config']}\nuse a new --results file or the same options"
                )
            if not resume and self.count():
                raise ValueError(
                    f"{self.path} already holds {self.count()} games of this tournament; "
                    "pass --resume to continue it or choose another --results file"
                )
        elif existed and not stored and self.count():
            raise ValueError(f"{self.path} is not a plies results file")
        else:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", wanted.items())

    @staticmethod
    def read_config(path: str | Path) -> dict[str, Any]:
        """The configuration stored in a results file (for ``plies report``)."""
        if not Path(path).exists():
            raise FileNotFoundError(f"no results file {path}")
        try:
            db = sqlite3.connect(path)
            rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
            db.close()
        except sqlite3.DatabaseError as err:
            raise ValueError(f"{path} is not a plies results file ({err})") from err
        if "config" not in rows:
            raise ValueError(f"{path} is not a plies results file (no tournament configuration)")
        return json.loads(rows["config"])

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def done(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT idx FROM games")}

    def add(self, record: GameRecord) -> None:
        with self.db:  # one transaction per game: a crash loses at most the game in flight
            self.db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?)", (record.index, json.dumps(asdict(record)))
            )

    def records(self) -> Iterator[GameRecord]:
        for (text,) in self.db.execute("SELECT record FROM games ORDER BY idx"):
            yield GameRecord(**json.loads(text))

    def close(self) -> None:
        self.db.close()
