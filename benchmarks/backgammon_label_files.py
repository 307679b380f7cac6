"""Reading back the backgammon diagnostics' files of labelled positions: one place for the checks
that keep a damaged or foreign file away from the feature kernels (which index without bounds
checks). No pickles are read."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from plies.games.backgammon import features
from plies.games.backgammon import rules as bg_rules
from plies.training.backgammon import OUTPUTS


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_npz(path: str | Path, what: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz file (no pickles); anything else, or a damaged one, is refused."""
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("a single array, not an .npz")
        with data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ValueError(f"{path} is not a readable {what} ({error})") from None
    # numpy hands back a member that is not an .npy as raw bytes
    odd = [k for k, v in arrays.items() if not isinstance(v, np.ndarray)]
    if odd:
        raise ValueError(f"{path} is not a readable {what} ({', '.join(odd)} not arrays)")
    return arrays


def setting(path: str | Path, arrays: dict[str, np.ndarray], key: str, kind: str) -> Any:
    """A setting stored as a single value: an integer ("i") or a text ("U")."""
    value = arrays[key]
    if value.shape != () or value.dtype.kind != kind:
        raise ValueError(f"{path}: {key} must be a single {'integer' if kind == 'i' else 'text'}")
    return int(value) if kind == "i" else str(value)


def check_probabilities(path: str | Path, name: str, a: np.ndarray, n: int) -> None:
    """``a`` must be ``n`` rows of the five outputs, each in [0, 1] (sums may overshoot by rounding)."""
    if (a.dtype.kind != "f" or a.shape != (n, OUTPUTS) or not np.isfinite(a).all()
            or (a < -1e-6).any() or (a > 1 + 1e-6).any()):
        raise ValueError(f"{path}: {name} must be {n} rows of {OUTPUTS} probabilities")


def position_problem(rows: np.ndarray) -> str | None:
    """Why integer ``rows`` read from a file are not backgammon positions the feature kernels
    may index with, or None."""
    if rows.ndim != 2 or rows.shape[1] != bg_rules.STATE_SIZE or not np.issubdtype(rows.dtype, np.integer):
        return f"rows must be backgammon states of {bg_rules.STATE_SIZE} integers"
    boards = rows[:, bg_rules.BOARD:bg_rules.BOARD + 2 * bg_rules.SIDE].reshape(len(rows), 2, bg_rules.SIDE)
    if ((boards < 0) | (boards > 15)).any() or (boards.sum(axis=2) != 15).any():
        return "a row is not a position (each side has 15 checkers)"
    if not np.isin(features.next_mover(rows), (0, 1)).all():
        return "a row has no side to move"
    return None
