"""Game records on disk: seeds, seatings, returns and every action, in one ``.npz`` per chunk."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from plies.evaluation.store import GameRecord
from plies.files import DamagedFileError, atomic_write


def save_records(records: list[GameRecord], path: str | Path) -> None:
    """Writes records atomically (a temporary file renamed into place)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lengths = np.array([len(r.actions) for r in records], np.int64)
    actions = np.concatenate([np.asarray(r.actions, np.int64) for r in records]) if records else np.zeros(0, np.int64)
    meta = [{"index": r.index, "seats": r.seats, "plies": r.plies, "truncated": r.truncated}
            for r in records]
    atomic_write(path, lambda f: np.savez_compressed(
        f,
        seeds=np.array([r.seed for r in records], np.uint64),
        returns=np.array([r.returns for r in records], np.float64).reshape(len(records), -1),
        lengths=lengths,
        actions=actions,
        meta=np.array(json.dumps(meta)),
    ))


def load_records(path: str | Path) -> list[GameRecord]:
    """Records saved by ``save_records``; a damaged file is a DamagedFileError naming it."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            offsets = np.concatenate([[0], np.cumsum(data["lengths"])])
            out = []
            for k, m in enumerate(meta):
                out.append(GameRecord(
                    index=m["index"], seed=int(data["seeds"][k]), seats=m["seats"],
                    returns=[float(x) for x in data["returns"][k]], plies=m["plies"],
                    truncated=m["truncated"], decision_seconds=[], decisions=[],
                    actions=data["actions"][offsets[k]:offsets[k + 1]].tolist(),
                ))
    except FileNotFoundError:
        raise
    except (OSError, ValueError, KeyError, IndexError, TypeError, EOFError, zipfile.BadZipFile) as err:
        raise DamagedFileError(f"damaged self-play records file {path} ({type(err).__name__}: {err})") from None
    return out
