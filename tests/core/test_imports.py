"""plies's modules import one another without cycles, and in one direction: the games
(plies.games) never import agents, agents never import the environments, and the environments
never import evaluation, training or the front ends. Every import counts: at the top of a file,
inside a function, or under ``if TYPE_CHECKING:``."""

from __future__ import annotations

import ast
from pathlib import Path

import plies

ROOT = Path(plies.__file__).parent
LAYERS = {
    # the games: their contract and rules, and helpers that import nothing of plies
    "games": 0, "files": 0, "_numba_cache": 0, "_moved": 0,
    "agents": 1,
    # the faces of a game for RL users (AEC, single-agent, vector, id registration), the classroom
    "envs": 2, "classroom": 2,
    # plies.testing replays games through plies.envs.vector
    "evaluation": 3, "training": 3, "testing": 3,
    # the front ends for people
    "play": 4, "web": 4, "cli": 4, "__init__": 4,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """plies modules imported by a file: function-local and TYPE_CHECKING imports included."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("plies"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("plies"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if (ROOT.parent / candidate.replace(".", "/")).with_suffix(".py").exists()
                          or (ROOT.parent / candidate.replace(".", "/")).is_dir() else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target in _imports(path):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name and not name.startswith(target + "."):
                targets.add(target)
        graph[name] = targets
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1] if len(parts) > 1 else "__init__", 4)


def test_no_import_cycles():
    graph = _graph()
    state: dict[str, int] = {}
    cycles = []

    def walk(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if target.startswith(node + "."):  # a package importing its own submodules
                continue
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target):] + [target] if target in stack else [node, target])
            elif target not in state:
                walk(target, stack + [target])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_imports_flow_one_way():
    wrong = [f"{source} -> {target}" for source, targets in _graph().items() for target in targets
             if _layer(target) > _layer(source)]
    assert not wrong, "imports against the layering: " + ", ".join(sorted(wrong))


def test_every_subpackage_has_a_layer():
    packages = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in ROOT.glob("*.py")}
    assert not (packages | modules) - set(LAYERS), "give these a layer: " + ", ".join(sorted((packages | modules) - set(LAYERS)))


def test_type_checking_imports_count_as_edges(tmp_path, monkeypatch):
    source = tmp_path / "module.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from plies.games.game import Game\n"
                      "def f():\n    from plies.agents import base\n")
    assert _imports(source) == {"plies.games.game", "plies.agents.base"}
