"""Generic code never names a game: outside each game's own package, the registry and the parts
that are game-specific by design (agents, training, the course adapters), no string literal in
plies/ equals a registered game id. A game's facts belong in its ``Game`` declaration."""

from __future__ import annotations

import ast
from pathlib import Path

import plies
from plies.games.registry import game_ids

ROOT = Path(plies.__file__).parent
GAME_SPECIFIC = ["games/registry.py", "agents", "training", "classroom"]
ALLOWED: set[tuple[str, str]] = set()


def _generic_files() -> list[Path]:
    skipped = [ROOT / part for part in GAME_SPECIFIC] + [ROOT / "games" / g for g in game_ids()]
    return [path for path in sorted(ROOT.rglob("*.py"))
            if not any(path == s or s in path.parents for s in skipped)]


def game_names(path: Path) -> list[tuple[int, str]]:
    """(line, id) of every string literal in ``path`` that is a registered game id."""
    ids = set(game_ids())
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids]


def test_the_scan_finds_game_ids(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('GAMES = ("othello", "not a game")\nif game == "tictactoe":\n    pass\n')
    assert game_names(sample) == [(1, "othello"), (2, "tictactoe")]


def test_generic_code_names_no_game():
    files = _generic_files()
    assert ROOT / "web" / "app.py" in files and ROOT / "play" / "match.py" in files
    named = [f"{path.relative_to(ROOT)}:{line}: {value!r}" for path in files for line, value in game_names(path)
             if (str(path.relative_to(ROOT)), value) not in ALLOWED]
    for script in sorted((ROOT / "web" / "static").glob("*.js")):  # the web page's code too
        text = script.read_text()
        named += [f"{script.relative_to(ROOT)}: {g!r}" for g in game_ids() if f'"{g}"' in text or f"'{g}'" in text]
    assert not named, "generic code names games (declare the fact in the game's Game instead):\n" + "\n".join(named)
