"""numba's disk cache, tied to this plies's version and sources.

numba checks a cached function against its own file's timestamp only: after an upgrade or an
edit of a kernel in another file (a callee), it would load stale machine code. So plies points
``NUMBA_CACHE_DIR`` at a folder named after a hash of its version and every ``.py`` file of the
subpackages with numba code (games, agents, envs): any change there gives a fresh folder. The hash is memoised in that cache
under a key of the files' sizes and modification times, so an unchanged install reads no source
file. A ``NUMBA_CACHE_DIR`` the user set is left alone. This module must run before numba is
imported (``plies/__init__.py`` calls it first) and imports nothing of plies.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def cache_home() -> Path:
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "plies"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "plies"


COMPILED = ("games", "agents", "envs")
"""The subpackages that hold numba code (the rest of plies never reaches a kernel's machine code)."""


def _sources(package: Path) -> list[Path]:
    return sorted(p for sub in COMPILED for p in (package / sub).rglob("*.py") if "__pycache__" not in p.parts)


def source_hash(package: Path = PACKAGE, version: str = "") -> str:
    """SHA-256 (16 hex digits) of ``version`` and the path and bytes of every compiled source."""
    digest = hashlib.sha256(version.encode())
    for path in _sources(package):
        digest.update(str(path.relative_to(package)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _stat_key(package: Path, version: str) -> str:
    digest = hashlib.sha256(f"{package}\0{version}".encode())
    for path in _sources(package):
        stat = path.stat()
        digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:32]


def numba_cache_dir(package: Path = PACKAGE, version: str = "", home: Path | None = None) -> Path:
    """The cache folder for these sources (its name is ``source_hash``)."""
    root = (home or cache_home()) / "numba"
    memo = root / "sources" / _stat_key(package, version)
    try:
        name = memo.read_text().strip()
    except OSError:
        name = ""
    if len(name) != 16:
        name = source_hash(package, version)
        try:
            memo.parent.mkdir(parents=True, exist_ok=True)
            tmp = memo.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(name)
            os.replace(tmp, memo)
        except OSError:
            pass  # a read-only home: hash again next time
    return root / name


def configure(version: str) -> None:
    """Point numba's cache at this version's folder, unless the user chose one."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    try:
        folder = numba_cache_dir(PACKAGE, version)
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # nowhere to write: numba's own default applies
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported before plies: its config was read already
        from numba.core import config

        config.CACHE_DIR = str(folder)
