"""The module paths plies had before the house move (issue #24), kept for one release.

``import plies.envs.othello.state`` (or ``plies.vector``, ``plies.registration``, ...) still works:
it warns with a ``DeprecationWarning`` that names the new path and gives the new module itself,
so classes, ``GAME`` declarations and registration strings such as
``"plies.envs.othello.state:GAME"`` resolve to the very same objects. ``plies/__init__.py``
installs the finder; this module imports nothing of plies.

house-rewrite: skip (this module names the old paths on purpose)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent

MOVED = {
    "plies.single_agent": "plies.envs.single_agent",
    "plies.registration": "plies.envs.gym_ids",
    "plies.vector": "plies.envs.vector",
    "plies.playing": "plies.play.match",
    "plies.terminal": "plies.play.terminal",
}
"""Old module -> new module, for modules that moved whole (their submodules follow). Besides
these, every ``plies.envs.X`` that is now ``plies.games.X`` (the contract's modules and each
game's package) is an old path."""

SPLIT = {"plies.envs.core": ("plies.games.kernels", "plies.games.state")}
"""Old module -> the new modules its names now live in."""


def new_path(old: str) -> str | None:
    """The module that replaced ``old``, or None if ``old`` is no old path."""
    if old in SPLIT:
        return " and ".join(SPLIT[old])
    for prefix, new in MOVED.items():
        if old == prefix or old.startswith(prefix + "."):
            return new + old[len(prefix):]
    parts = old.split(".")
    if len(parts) > 2 and parts[:2] == ["plies", "envs"] and _moved_to_games(parts[2]):
        return ".".join(["plies", "games", *parts[2:]])
    return None


def _moved_to_games(name: str) -> bool:
    """Whether ``plies.envs.<name>`` was the old path of ``plies.games.<name>``."""

    def holds(folder: Path) -> bool:
        return (folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file()

    return holds(PACKAGE / "games") and not holds(PACKAGE / "envs")


class _OldPathLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return types.ModuleType(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        old = module.__name__
        warnings.warn(f"{old} is deprecated and will be removed: import {new_path(old)} instead",
                      DeprecationWarning, stacklevel=2)
        if old in SPLIT:  # one module under the old name with the names of both new ones
            for new in SPLIT[old]:
                module.__dict__.update({k: v for k, v in vars(importlib.import_module(new)).items()
                                        if not k.startswith("__")})
            module.__doc__ = f"Deprecated: the names of {new_path(old)}."
            return
        # the import system returns what sys.modules holds under the old name once this returns:
        # the new module itself, with its own __spec__ (so importlib.resources still find data)
        sys.modules[old] = importlib.import_module(new_path(old))


class _OldPathFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if not fullname.startswith("plies.") or new_path(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _OldPathLoader())


def install() -> None:
    """Put the old-path finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPathFinder())
