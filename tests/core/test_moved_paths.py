"""The module paths from before the house move still import, warn, and give the same objects.

house-rewrite: skip (this file names the old paths on purpose)
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import warnings

import pytest

import plies
from plies import _moved


def _fresh_import(name: str):
    """Import ``name`` as a first import would (dropping an earlier alias of it)."""
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        if _moved.new_path(key) is not None:
            del sys.modules[key]
    return importlib.import_module(name)


@pytest.mark.parametrize("old, new", [
    ("plies.envs.othello.state", "plies.games.othello.state"),
    ("plies.envs.game", "plies.games.game"),
    ("plies.envs.registry", "plies.games.registry"),
    ("plies.envs.batching", "plies.games.batching"),
    ("plies.single_agent", "plies.envs.single_agent"),
    ("plies.registration", "plies.envs.gym_ids"),
    ("plies.vector", "plies.envs.vector"),
    ("plies.vector.gym", "plies.envs.vector.gym"),
    ("plies.playing", "plies.play.match"),
    ("plies.terminal", "plies.play.terminal"),
])
def test_an_old_path_warns_and_is_the_new_module(old, new):
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        module = _fresh_import(old)
    assert module is importlib.import_module(new)


def test_the_split_core_module_gives_the_same_objects():
    from plies.games import kernels, state

    with pytest.warns(DeprecationWarning, match=r"plies\.games\.kernels and plies\.games\.state"):
        core = _fresh_import("plies.envs.core")
    assert core.GameState is state.GameState
    assert core.sample_chance is state.sample_chance
    assert core.Kernels is kernels.Kernels and core.CHANCE == kernels.CHANCE


def test_an_old_registration_string_finds_the_same_game():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        game = plies.get_game("plies.envs.tictactoe.state:GAME")
    assert game is plies.get_game("tictactoe")
    assert pickle.loads(pickle.dumps(game)) is game


def test_plies_itself_uses_no_old_path():
    code = "import plies; plies.make('tictactoe').reset(); plies.new_state('connect_four')"
    subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], check=True)
