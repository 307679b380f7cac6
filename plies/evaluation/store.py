"""SQLite storage of tournament results: one row per finished game, written as it finishes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from plies.files import sqlite_meta

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


PLIES_TABLES = {"meta": ["key", "value"], "games": ["idx", "record"]}


def _not_plies(path: Path, why: str) -> ValueError:
    return ValueError(f"{path} is not a plies results file ({why}); it was left unchanged: "
                      "give --results a new file name")


def _inspect(path: Path) -> dict[str, str] | None:
    """The meta table of an existing plies results file, read without changing the file;
    None for an empty or missing file. Anything else is refused before a byte is written."""
    meta = sqlite_meta(path, PLIES_TABLES, lambda why: _not_plies(path, why))
    if meta is not None and ("schema" not in meta or "config" not in meta):
        raise _not_plies(path, "no tournament configuration in its meta table")
    return meta


def _write_error(path: Path, err: Exception) -> OSError:
    """A failed write is the disk's or the folder's fault (full, read-only): say so."""
    return OSError(f"cannot write results file {path}: {err}")


class ResultStore:
    """A results file bound to one tournament configuration.

    An existing file is recognised before anything is written: it must hold exactly plies's
    two tables and a tournament configuration; anything else (another program's database,
    another file) is refused and left byte-identical."""

    def __init__(self, path: str | Path, config: dict[str, Any], resume: bool) -> None:
        self.path = Path(path)
        stored = _inspect(self.path)
        wanted = {"schema": str(SCHEMA_VERSION), "config": json.dumps(config, sort_keys=True)}
        if stored is not None:
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
        try:
            self.db = sqlite3.connect(self.path)
            if stored is None:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("BEGIN")  # tables and configuration together, or nothing
                self.db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                self.db.execute("CREATE TABLE games (idx INTEGER PRIMARY KEY, record TEXT NOT NULL)")
                self.db.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
                self.db.commit()
        except sqlite3.DatabaseError as err:
            raise _write_error(self.path, err) from None
        if stored is not None and not resume and self.count():
            count = self.count()
            self.db.close()
            raise ValueError(
                f"{self.path} already holds {count} games of this tournament; "
                "pass --resume to continue it or choose another --results file"
            )

    @staticmethod
    def read_config(path: str | Path) -> dict[str, Any]:
        """The configuration stored in a results file (for ``plies report`` and ``--resume``)."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no results file {path}")
        meta = _inspect(path)
        if meta is None:
            raise _not_plies(path, "empty file")
        try:
            config = json.loads(meta["config"])
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: its stored configuration is not valid JSON ({err})") from None
        if not isinstance(config, dict) or not {"game", "agents", "games"} <= set(config):
            raise ValueError(f"{path}: its stored configuration lacks the game, agents or games")
        return config

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def done(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT idx FROM games")}

    def add(self, record: GameRecord) -> None:
        try:
            with self.db:  # one transaction per game: a crash loses at most the game in flight
                self.db.execute(
                    "INSERT OR IGNORE INTO games VALUES (?, ?)", (record.index, json.dumps(asdict(record)))
                )
        except sqlite3.DatabaseError as err:
            raise _write_error(self.path, err) from None

    def records(self) -> Iterator[GameRecord]:
        for idx, text in self.db.execute("SELECT idx, record FROM games ORDER BY idx"):
            yield parse_record(self.path, idx, text)

    def close(self) -> None:
        self.db.close()


def rename_agent(path: str | Path, old: str, new: str) -> int:
    """Rename the agent ``old`` to ``new`` in the results file ``path``: in its configuration
    and in the seats of every stored game, in one transaction (all or nothing). For an agent
    whose spec names a file that has moved (a run folder copied elsewhere), so that the
    tournament resumes instead of being refused as another one. Returns the games renamed;
    raises ValueError where ``old`` is not an agent of the file or ``new`` already is."""
    path = Path(path)
    config = ResultStore.read_config(path)
    agents = config["agents"]
    if old == new:
        raise ValueError(f"{path}: {old!r} renamed to itself")
    if old not in agents:
        raise ValueError(f"{path}: no agent {old!r} to rename (its agents: {agents})")
    if new in agents:
        raise ValueError(f"{path}: {new!r} is already one of its agents")
    config["agents"] = [new if a == old else a for a in agents]
    if config.get("focus") == old:
        config["focus"] = new
    db = sqlite3.connect(path)
    try:
        renamed = 0
        with db:
            for idx, text in db.execute("SELECT idx, record FROM games").fetchall():
                record = parse_record(path, idx, text)
                if old in record.seats:
                    record.seats = [new if s == old else s for s in record.seats]
                    db.execute("UPDATE games SET record = ? WHERE idx = ?", (json.dumps(asdict(record)), idx))
                    renamed += 1
            db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config, sort_keys=True),))
        return renamed
    except sqlite3.DatabaseError as err:
        raise _write_error(path, err) from None
    finally:
        db.close()


_RECORD_TYPES = {"index": int, "seed": int, "seats": list, "returns": list, "plies": int,
                 "truncated": bool, "decision_seconds": list, "decisions": list, "actions": list}


def parse_record(path: Path, idx: Any, text: Any) -> GameRecord:
    """One stored game; a row that is not one (edited by hand, damaged) is a ValueError naming
    the file and the row."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        for key, kind in _RECORD_TYPES.items():
            if not isinstance(data.get(key), kind):
                raise TypeError(f"{key!r} must be {kind.__name__}, not {data.get(key)!r}")
        if data["index"] != idx:
            raise TypeError(f"its index {data['index']} is not its row {idx}")
        if len(data["returns"]) != len(data["seats"]) or not all(
                isinstance(r, (int, float)) for r in data["returns"]):
            raise TypeError("'returns' must hold one number per seat")
        if not all(isinstance(a, str) for a in data["seats"]):
            raise TypeError("'seats' must hold agent specs")
        return GameRecord(**data)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}: row {idx} is not a plies game record ({err})") from None
