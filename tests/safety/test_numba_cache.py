"""numba's cache folder follows plies's version and compiled sources."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from numba.core import config

import plies
from plies import _numba_cache

PACKAGE = Path(plies.__file__).parent


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "plies"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "weights"))
    return copy


def test_the_folder_changes_with_compiled_sources_and_version_only(tmp_path):
    package, home = _copy(tmp_path), tmp_path / "cache"
    first = _numba_cache.numba_cache_dir(package, "1.0", home)
    assert first.parent == home / "numba" and len(first.name) == 16
    assert _numba_cache.numba_cache_dir(package, "1.0", home) == first  # memoised
    assert _numba_cache.numba_cache_dir(package, "1.1", home) != first
    callee = package / "games" / "backgammon" / "rules.py"
    text = callee.read_text()
    callee.write_text(text + "\n# an edit of a callee in another file\n")
    edited = _numba_cache.numba_cache_dir(package, "1.0", home)
    assert edited != first and edited.name == _numba_cache.source_hash(package, "1.0")
    callee.write_text(text)
    os.utime(callee, ns=(0, 0))  # same bytes, other time: a new memo key, the same folder
    assert _numba_cache.numba_cache_dir(package, "1.0", home) == first
    cli = package / "cli.py"  # no numba code there: the compiled code stays valid
    cli.write_text(cli.read_text() + "\n# edit\n")
    assert _numba_cache.numba_cache_dir(package, "1.0", home) == first


def test_configure_points_numba_at_the_folder_unless_the_user_chose_one(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)  # restored after the test
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    _numba_cache.configure(plies.__version__)
    expected = _numba_cache.numba_cache_dir(_numba_cache.PACKAGE, plies.__version__, tmp_path / "plies")
    assert os.environ["NUMBA_CACHE_DIR"] == str(expected) == config.CACHE_DIR
    assert expected.is_dir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    config.CACHE_DIR = str(tmp_path / "mine")
    _numba_cache.configure(plies.__version__)
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine") == config.CACHE_DIR


def test_this_session_uses_a_folder_of_these_sources():
    folder = Path(config.CACHE_DIR)
    if folder.parent.name == "numba":  # unless the person running the tests set NUMBA_CACHE_DIR
        assert folder.name == _numba_cache.source_hash(_numba_cache.PACKAGE, plies.__version__)
