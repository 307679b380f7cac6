"""Where the server's games live: an SQLite file with one row per game, written in the same
transaction as each change, and a bounded cache of the games being played.

A game is stored as its seats, seed, options and every action with its seat, so a restart (or
a crash) loses nothing: ``/play/ID`` replays the actions and the game goes on where it was. The
cache only saves that replay; a game that leaves it is read back from the file when asked for.
Games are forgotten by one rule, not by memory pressure: a finished game ``keep_finished_days``
after it ended, any game ``keep_idle_days`` after its last change.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from plies.files import DamagedFileError, sqlite_meta
from plies.play.match import Match

SCHEMA = "1"
TABLES = {"meta": ["key", "value"],
          "games": ["id", "record", "created", "updated", "finished"]}
CACHE = 200
"""Games kept in memory as live objects (the rest are read back from the file when asked for)."""
KEEP_FINISHED_DAYS = 7.0
KEEP_IDLE_DAYS = 30.0
EXPIRE_EVERY = 600.0  # seconds between two sweeps of old games
DAY = 86_400.0


class UnknownGame(KeyError):
    """No game has this id (never created, or forgotten by the expiry rule)."""


@dataclass
class WebGame:
    """A game being played, with the lock that orders the requests that change it."""

    id: str
    match: Match
    selected: int | None = None  # the checker or field a person picked, before the target
    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0  # requests holding it now: a game in use never leaves the cache


class GameStore:
    """The games of one server. ``path=None`` keeps them in memory only (tests, embedding)."""

    def __init__(self, path: str | Path | None = None, cache: int = CACHE,
                 keep_finished_days: float = KEEP_FINISHED_DAYS, keep_idle_days: float = KEEP_IDLE_DAYS,
                 clock: Callable[[], float] = time.time) -> None:
        if cache < 1 or keep_finished_days <= 0 or keep_idle_days <= 0:
            raise ValueError("the cache holds at least one game and games are kept more than 0 days")
        self.path = Path(path) if path is not None else None
        self.cache_size = cache
        self.keep_finished = keep_finished_days * DAY
        self.keep_idle = keep_idle_days * DAY
        self.clock = clock
        self.cache: OrderedDict[str, WebGame] = OrderedDict()
        self.lock = threading.Lock()
        self.db = self._open()
        self.last_sweep = 0.0
        self.expire()

    # ----- the file ---------------------------------------------------------------------------
    def _refuse(self, why: str) -> DamagedFileError:
        return DamagedFileError(f"{self.path} is not a plies games file ({why}); it was left unchanged: "
                                "move it aside or give plies serve another --games file")

    def _open(self) -> sqlite3.Connection:
        meta = None
        if self.path is not None:
            meta = sqlite_meta(self.path, TABLES, self._refuse)
            if meta is not None and meta.get("schema") != SCHEMA:
                raise self._refuse(f"games schema {meta.get('schema')!r}, this plies writes {SCHEMA}")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # autocommit mode: each change below is one explicit transaction
        db = sqlite3.connect(self.path or ":memory:", timeout=0.5, check_same_thread=False, isolation_level=None)
        try:
            if self.path is not None:
                # one writer: the lock taken by the first write is held while the server runs
                db.execute("PRAGMA locking_mode=EXCLUSIVE")
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")  # WAL: a power cut may lose the last moves, not the file
            with _transaction(db):
                if meta is None:
                    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                    db.execute("CREATE TABLE games (id TEXT PRIMARY KEY, record TEXT NOT NULL, created REAL, "
                               "updated REAL NOT NULL, finished REAL)")
                    db.execute("CREATE INDEX IF NOT EXISTS games_updated ON games (updated)")
                    db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('opened', ?)", (str(self.clock()),))
        except sqlite3.OperationalError as err:
            db.close()
            if "locked" in str(err):
                raise RuntimeError(f"{self.path} is in use by another process (another plies serve?): "
                                   "each server needs its own --games file") from None
            raise OSError(f"cannot write games file {self.path}: {err}") from None
        return db

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # ----- games ------------------------------------------------------------------------------
    def add(self, match: Match) -> WebGame:
        """Store a new game under a fresh random id."""
        game = WebGame(secrets.token_urlsafe(9), match)
        now = self.clock()
        with self.lock:
            self._write("INSERT INTO games VALUES (?, ?, ?, ?, ?)",
                        (game.id, json.dumps(match.to_record()), now, now, now if match.over() else None))
            self._remember(game)
        if now - self.last_sweep > EXPIRE_EVERY:
            self.expire()
        return game

    def save(self, game: WebGame) -> None:
        """Write the game's present state (call it holding the game's lock, after each change)."""
        now = self.clock()
        with self.lock:
            self._write("UPDATE games SET record = ?, updated = ?, finished = CASE WHEN ? THEN "
                        "COALESCE(finished, ?) ELSE NULL END WHERE id = ?",
                        (json.dumps(game.match.to_record()), now, game.match.over(), now, game.id))

    def get(self, game_id: str) -> WebGame:
        """The game (from the cache, or read back from the file); ``UnknownGame`` if there is none."""
        with self.lock:
            return self._cached(game_id)

    @contextmanager
    def use(self, game_id: str) -> Iterator[WebGame]:
        """The game with its lock held: requests that change one game run one after another."""
        with self.lock:
            game = self._cached(game_id)
            game.users += 1
        try:
            with game.lock:
                yield game
        finally:
            with self.lock:
                game.users -= 1
                self._shrink()

    def count(self) -> int:
        with self.lock:
            return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def expire(self) -> int:
        """Forget the games the rule says are old; the number forgotten."""
        now = self.clock()
        with self.lock:
            self.last_sweep = now
            gone = [row[0] for row in self.db.execute(
                "SELECT id FROM games WHERE (finished IS NOT NULL AND finished < ?) OR updated < ?",
                (now - self.keep_finished, now - self.keep_idle))]
            gone = [g for g in gone if g not in self.cache or self.cache[g].users == 0]
            if gone:
                self._write_many("DELETE FROM games WHERE id = ?", [(g,) for g in gone])
                for game_id in gone:
                    self.cache.pop(game_id, None)
            return len(gone)

    # ----- inside the store's lock ------------------------------------------------------------
    def _cached(self, game_id: str) -> WebGame:
        game = self.cache.get(game_id)
        if game is None:
            game = self._load(game_id)
            self._remember(game)
        self.cache.move_to_end(game_id)
        return game

    def _load(self, game_id: str) -> WebGame:
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise UnknownGame(game_id)
        try:
            match = Match.from_record(json.loads(row[0]), build_agents=False)
        except (ValueError, KeyError, TypeError, IndexError) as err:
            raise DamagedFileError(f"game {game_id} in {self.path or 'memory'} cannot be read back: "
                                   f"{type(err).__name__}: {err}") from None
        return WebGame(game_id, match)

    def _remember(self, game: WebGame) -> None:
        self.cache[game.id] = game
        self._shrink()

    def _shrink(self) -> None:
        """Drop the least recently used games beyond the cache's size, never one in use."""
        for game_id in list(self.cache):
            if len(self.cache) <= self.cache_size:
                break
            if self.cache[game_id].users == 0:
                del self.cache[game_id]

    def _write(self, sql: str, values: tuple) -> None:
        self._write_many(sql, [values])

    def _write_many(self, sql: str, rows: list[tuple]) -> None:
        try:
            with _transaction(self.db):
                self.db.executemany(sql, rows)
        except sqlite3.DatabaseError as err:
            raise OSError(f"cannot write games file {self.path or 'in memory'}: {err}") from None


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """All or nothing: BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
