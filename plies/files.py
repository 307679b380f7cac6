"""Files plies writes and reads: atomic writes that respect the umask, and torch files that
load without running code and say clearly when they are damaged.

Network weights and training checkpoints are ``torch.save`` files holding only tensors and
plain data (dicts, lists, numbers, strings), so ``torch.load(weights_only=True)`` reads them:
loading never runs code from the file. The file is a small wrapper ``{"plies_format",
"kind", "sha256", "payload"}`` whose ``payload`` is the bytes of the inner ``torch.save`` (as a
uint8 tensor; files written before 2026-11-27 hold them as bytes, and load the same) and
``sha256`` their digest, so a damaged file is an error, never altered tensors.

This module imports nothing else from plies (everything may use it).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import signal
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

TORCH_FORMAT = "plies-torch-2"


class DamagedFileError(ValueError):
    """A file plies wrote cannot be read back: truncated, altered, or not a plies file."""


def user_mode() -> int:
    """The mode a new file gets from the umask (``open()`` would give 0o666 & ~umask)."""
    if sys.platform == "win32":
        return 0o666
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM that arrive inside the block are held and taken just after it, by the
    handler that was in place before it. Writers such as ``torch.save`` and ``np.savez`` turn an
    interrupt in the middle of a file into their own errors (a traceback instead of the stop the
    user asked for); a file is written in a moment, so the stop waits for it.

    Only the main thread can change handlers, and a handler installed outside Python cannot be
    put back: those signals (and every other thread) go on as before."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if handler is not None:
            previous[signum] = signal.signal(signum, lambda got, frame: held.append(got))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if held:
            handler = previous[held[0]]
            if callable(handler):
                handler(held[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(held[0])


def atomic_write(path: str | Path, write: Callable[[IO], None], text: bool = False) -> None:
    """Write ``path`` through ``write(handle)`` into a temporary file in the same folder, then
    rename it into place: readers see the old file or the new one, never half of it. The
    file gets the mode the umask gives new files (a temporary file alone would be 0600). A stop
    (Ctrl-C, SIGTERM) during the write is taken once the file is in place (``stops_held``)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    with stops_held():
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w" if text else "wb", **({"newline": ""} if text else {})) as handle:
                write(handle)
            os.chmod(tmp, user_mode())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def sqlite_meta(path: Path, tables: dict[str, list[str]], refuse: Callable[[str], Exception]) -> dict[str, str] | None:
    """The ``meta`` table (key, value) of an existing SQLite file of plies that must hold exactly
    ``tables`` (name -> columns), read without changing the file; None for a missing or empty
    file. Anything else (another program's database, another file, a damaged one) raises
    ``refuse(why)`` before a byte is written."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    if not path.is_file():
        raise refuse("not a regular file")
    with open(path, "rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise refuse("not an SQLite database")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            found = {name: [c[1] for c in db.execute(f'PRAGMA table_info("{name}")')]
                     for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if found != tables:
                held = ", ".join(f"{t}({', '.join(c)})" for t, c in sorted(found.items())) or "no tables"
                raise refuse(f"it holds {held}")
            if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise refuse("SQLite's check finds it damaged")
            return dict(db.execute("SELECT key, value FROM meta").fetchall())
        finally:
            db.close()
    except sqlite3.DatabaseError as err:
        text = str(err)
        if "not a database" in text or "malformed" in text:
            raise refuse(text) from None
        raise OSError(f"cannot read {path}: {text}") from None


def _torch():
    try:
        import torch
    except ImportError as err:
        raise ImportError('network files need torch: pip install "plies[nn]"') from err
    return torch


def save_torch(payload: dict[str, Any], path: str | Path, kind: str) -> None:
    """Save ``payload`` (tensors and plain data only) atomically with its checksum."""
    torch = _torch()
    inner = io.BytesIO()
    with stops_held():  # torch.save stopped halfway raises its own error, not the stop
        torch.save(payload, inner)
    data = inner.getvalue()
    # the payload travels as a uint8 tensor: torch pickles a bytes object as latin-1 text, half
    # again its size, and the weights-only loader reads no more compact form of bytes
    wrapper = {"plies_format": TORCH_FORMAT, "kind": kind, "sha256": hashlib.sha256(data).hexdigest(),
               "payload": torch.frombuffer(bytearray(data), dtype=torch.uint8)}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda handle: torch.save(wrapper, handle))


def _safe_load(torch, source: Any, path: Path) -> Any:
    try:
        return torch.load(source, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds (zip, pickle, EOF, runtime) for bad bytes
        raise DamagedFileError(
            f"damaged or unsafe file {path}: torch cannot load it as plain tensors and data "
            f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})") from None


def load_torch(path: str | Path, kind: str | tuple[str, ...]) -> dict[str, Any]:
    """The payload of a plies torch file of ``kind`` ("weights", "checkpoint" or a tuple of
    them): loaded with
    ``weights_only=True`` (no code runs) and checked against its SHA-256. Raises
    ``FileNotFoundError``, or ``DamagedFileError`` (a ValueError) naming the file and what is
    wrong with it: damaged bytes, a checksum mismatch, an old-format file, another kind."""
    torch = _torch()
    path = Path(path)
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    kind = " or ".join(kinds)
    if not path.is_file():
        raise FileNotFoundError(f"no {kind} file at {path}")
    wrapper = _safe_load(torch, path, path)
    if isinstance(wrapper, dict) and "arch" in wrapper and "plies_format" not in wrapper:
        raise DamagedFileError(
            f"{path} is a {kind} file of an older plies, without a checksum; convert it once with "
            f"`python -m plies.files convert {path}` (it is read as plain tensors, no code runs)")
    if not isinstance(wrapper, dict) or wrapper.get("plies_format") != TORCH_FORMAT:
        raise DamagedFileError(f"{path} is not a plies {kind} file (format {TORCH_FORMAT})")
    if wrapper.get("kind") not in kinds:
        raise DamagedFileError(f"{path} is a plies {wrapper.get('kind')} file, not a {kind} file")
    data = wrapper.get("payload")
    # a uint8 tensor since 2026-11-27; files written before hold the bytes themselves
    if isinstance(data, torch.Tensor) and data.dtype == torch.uint8 and data.dim() == 1:
        data = data.numpy().tobytes()
    elif not isinstance(data, bytes):
        data = None
    if data is None or hashlib.sha256(data).hexdigest() != wrapper.get("sha256"):
        raise DamagedFileError(f"damaged {kind} file {path}: checksum mismatch")
    payload = _safe_load(torch, io.BytesIO(data), path)
    if not isinstance(payload, dict):
        raise DamagedFileError(f"damaged {kind} file {path}: its payload is not a dict")
    return payload


def convert_old(path: str | Path, out: str | Path | None = None) -> Path:
    """Rewrite a weights or checkpoint file of an older plies (no checksum) in today's format.
    It is read with ``weights_only=True``, so converting an untrusted file runs no code."""
    torch = _torch()
    path = Path(path)
    payload = _safe_load(torch, path, path)
    if not isinstance(payload, dict) or "arch" not in payload:
        raise DamagedFileError(f"{path} is not a plies weights or checkpoint file of an older plies")
    kind = "checkpoint" if "optimizer" in payload else "weights"
    target = Path(out) if out else path
    save_torch(payload, target, kind)
    return target


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m plies.files",
                                     description="convert weights or checkpoints of an older plies")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("convert", help="rewrite FILE in today's format (with a checksum)")
    c.add_argument("file")
    c.add_argument("--out", help="write here instead of replacing FILE")
    args = parser.parse_args(argv)
    try:
        target = convert_old(args.file, args.out)
    except (ValueError, FileNotFoundError, ImportError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"converted: {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
