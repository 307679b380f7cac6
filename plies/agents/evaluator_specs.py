"""Evaluators named in agent specs (``eval=NAME``): a game's heuristic, its shipped value
network (``net``) or a network file (``FILE.pt``). Sits above both kinds of evaluator, so
neither module imports the other."""

from __future__ import annotations

import numpy as np

from plies.agents.evaluators import Evaluator, HeuristicEvaluator
from plies.agents.value_net import (
    NetEvaluator,
    compiled_net_params,
    kernel_params,
    net_evaluator,
    shipped_names,
)
from plies.files import load_torch
from plies.games.state import GameState


def names_network(state: GameState, name: str) -> bool:
    """Whether ``eval=name`` means a network of this game (a file or a shipped name)."""
    return name.endswith(".pt") or (name not in state.game.heuristics and name in shipped_names(state.game.id))


def compiled_network(state: GameState, name: str) -> HeuristicEvaluator:
    """A network of a game that declares ``Game.net_value``, as a compiled evaluation: its
    kernel with the network's weights as parameters, checked against the game's encoder for
    this state (the kernel reads them without bounds checks)."""
    game = state.game
    path = name if name.endswith(".pt") else None
    params = compiled_net_params(game.id, path, name if path is None else "net")  # layout checked
    inputs = int(game.encode(state.array[None]).shape[1])
    if int(params[1]) != inputs:  # e.g. a network of another board size
        raise ValueError(f"the {game.id} network {name!r} takes {int(params[1])} inputs; this game's "
                         f"encoder gives {inputs}")
    return HeuristicEvaluator(game.net_value, params, name, game=game, inputs=inputs)


class NetworkWeights:
    """A compiled network in the place of a heuristic (``kernel``, ``params``): what
    alpha-beta reads for ``eval=net``; its weights take no overrides."""

    def __init__(self, evaluator: HeuristicEvaluator) -> None:
        self.kernel = evaluator.kernel
        self.name = evaluator.name
        self._params = evaluator.params

    def params(self, overrides: dict[str, float] | None = None) -> np.ndarray:
        if overrides:
            raise ValueError(f"the network {self.name!r} takes no weights; drop weights=")
        return self._params


def check_eval_spec(name: str) -> None:
    """Fail when the agent is built, not at its first move: an ``eval=FILE.pt`` must be a
    readable plies weights file or training checkpoint (checked by its SHA-256, loaded without
    running code)."""
    if name.endswith(".pt"):
        load_torch(name, ("weights", "checkpoint"))


def evaluator_for(state: GameState, name: str = "", **weights: float) -> Evaluator:
    """The game's heuristic ``name`` (its default when empty) as an Evaluator; ``net`` is the
    game's shipped value network (an earlier one by its name, e.g. ``td80``), ``<file>.pt`` a
    network file (plies/agents/value_net.py)."""
    info = state.game
    key = name or info.default_heuristic
    if names_network(state, key):
        if info.net_value is not None:  # a network the compiled searches run themselves
            if weights:
                raise ValueError(f"the network {key!r} takes no weights; drop weights=")
            return compiled_network(state, key)
        if key.endswith(".pt"):  # a network file
            return net_evaluator(info.id, key)
        return net_evaluator(info.id, name=key)
    if key not in info.heuristics:
        raise ValueError(
            f"{info.id} has no heuristic {key!r}; heuristics: "
            f"{', '.join(info.heuristics) or 'none'}; shipped networks: "
            f"{', '.join(shipped_names(info.id)) or 'none'}"
        )
    heuristic = info.heuristics[key]
    return HeuristicEvaluator(heuristic.kernel, heuristic.params(weights or None), key, game=info)


def compiled_evaluator_for(state: GameState, name: str) -> HeuristicEvaluator:
    """``eval=name`` as a compiled evaluation, for searches that score leaves one by one in
    machine code (MCTS): a heuristic, a ``Game.net_value`` network, or a torch network whose
    architecture the game compiles (``Game.net_kernels``) with its weights as parameters."""
    evaluator = evaluator_for(state, name)
    if isinstance(evaluator, HeuristicEvaluator):
        return evaluator
    game = state.game
    model = evaluator.model if isinstance(evaluator, NetEvaluator) else None
    compiled = game.net_kernels.get(getattr(model, "arch", None))
    if compiled is None:
        archs = ", ".join(game.net_kernels) or "none"
        raise ValueError(
            f"{name!r} of {game.id} is a {getattr(model, 'arch', 'torch')!r} network, which has no "
            f"compiled form for leaf-by-leaf searches (compiled: {archs}); expectiminimax runs it "
            "(expectiminimax:eval=...)")
    return HeuristicEvaluator(compiled.kernel, kernel_params(model, compiled.check), name, game=game)
