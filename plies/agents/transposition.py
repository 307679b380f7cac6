"""A bounded transposition table that can be saved and loaded: the memory of rote learning.

Entries live in fixed arrays indexed by a mix of the position key; the table never grows.
Replacement policy: a new result replaces the entry in its slot when the slot is empty, holds
the same position, was written by an older search (generation), or was searched less deep.
So deep results of the current search survive, and stale ones make room.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from plies.files import atomic_write

FORMAT = "plies-transposition-table"
VERSION = 1

# meta columns
DEPTH, FLAG, BEST, GENERATION = 0, 1, 2, 3
EXACT, LOWER, UPPER = 0, 1, 2


class TranspositionTable:
    """Fixed-size arrays shared with the compiled search (``keys``, ``values``, ``meta``)."""

    def __init__(self, bits: int = 20, game: str = "", key_kind: str = "plain") -> None:
        if not 4 <= bits <= 30:
            raise ValueError(f"table bits must be between 4 and 30, got {bits}")
        self.bits = bits
        self.game = game
        self.key_kind = key_kind
        self.keys = np.zeros(1 << bits, np.int64)
        self.values = np.zeros(1 << bits, np.float64)
        self.meta = np.full((1 << bits, 4), -1, np.int64)
        self.generation = 0

    @property
    def capacity(self) -> int:
        return 1 << self.bits

    def __len__(self) -> int:
        return int(np.count_nonzero(self.meta[:, DEPTH] >= 0))

    def clear(self) -> None:
        self.meta[:] = -1
        self.generation = 0

    def save(self, path: str | os.PathLike) -> None:
        """Write the table atomically: a crash during the write leaves the old file intact."""
        path = Path(path)
        header = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "key_kind": self.key_kind,
            "bits": self.bits,
            "generation": self.generation,
        }

        def write(handle) -> None:
            np.savez_compressed(
                handle,
                header=np.frombuffer(json.dumps(header).encode(), np.uint8),
                keys=self.keys,
                values=self.values,
                meta=self.meta,
            )
            handle.flush()
            os.fsync(handle.fileno())

        atomic_write(path, write)

    @classmethod
    def load(cls, path: str | os.PathLike, game: str = "", key_kind: str | None = None) -> TranspositionTable:
        """Read a table saved by ``save``; a corrupt or foreign file raises ``ValueError``."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(bytes(data["header"]).decode())
                keys, values, meta = data["keys"], data["values"], data["meta"]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, EOFError) as err:
            if isinstance(err, FileNotFoundError):
                raise
            raise ValueError(f"{path} is not a readable plies transposition table ({err})") from err
        if not isinstance(header, dict):
            raise ValueError(f"{path} is not a plies transposition table (its header is not a JSON object)")
        if header.get("format") != FORMAT:
            raise ValueError(f"{path} is not a plies transposition table (format {header.get('format')!r})")
        if header.get("version") != VERSION:
            raise ValueError(
                f"{path} is a version {header.get('version')} table; this plies reads version {VERSION}"
            )
        if game and header.get("game") != game:
            raise ValueError(f"{path} holds a table for {header.get('game')!r}, not for {game!r}")
        if key_kind is not None and header.get("key_kind") != key_kind:
            raise ValueError(
                f"{path} was built with {header.get('key_kind')} keys, but this search uses "
                f"{key_kind} keys (symmetry setting differs)"
            )
        bits, generation = header.get("bits"), header.get("generation", 0)
        if not (type(bits) is int and 4 <= bits <= 30 and type(generation) is int and generation >= 0
                and isinstance(header.get("game", ""), str) and header.get("key_kind", "plain") in ("plain", "symmetric")):
            raise ValueError(f"{path} is corrupt: its header's bits (4 to 30), generation, game or key kind is not valid")
        if keys.shape != (1 << bits,) or meta.shape != (1 << bits, 4) or values.shape != keys.shape:
            raise ValueError(f"{path} is corrupt: array shapes do not match its header")
        if keys.dtype.kind not in "iu" or meta.dtype.kind not in "iu" or values.dtype.kind != "f" \
                or not np.isfinite(values).all():
            raise ValueError(f"{path} is corrupt: its keys and slots are not integers, or its values not finite numbers")
        table = cls(bits, header.get("game", ""), header.get("key_kind", "plain"))
        table.keys[:] = keys
        table.values[:] = values
        table.meta[:] = meta
        table.generation = generation
        return table
