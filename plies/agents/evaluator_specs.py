"""Evaluators named in agent specs (``eval=NAME``): a game's heuristic, its shipped value
network (``net``) or a network file (``FILE.pt``). Sits above both kinds of evaluator, so
neither module imports the other."""

from __future__ import annotations

from plies.agents.evaluators import Evaluator, HeuristicEvaluator
from plies.agents.value_net import net_evaluator, shipped_names
from plies.files import load_torch
from plies.games.state import GameState


def check_eval_spec(name: str) -> None:
    """Fail when the agent is built, not at its first move: an ``eval=FILE.pt`` must be a
    readable plies weights file (checked by its SHA-256, loaded without running code)."""
    if name.endswith(".pt"):
        load_torch(name, "weights")


def evaluator_for(state: GameState, name: str = "", **weights: float) -> Evaluator:
    """The game's heuristic ``name`` (its default when empty) as an Evaluator; ``net`` is the
    game's shipped value network (an earlier one by its name, e.g. ``td80``), ``<file>.pt`` a
    network file (plies/agents/value_net.py)."""
    info = state.game
    key = name or info.default_heuristic
    if key.endswith(".pt"):  # a network file
        return net_evaluator(state.game.id, key)
    if key not in info.heuristics and key in shipped_names(info.id):  # a shipped network
        return net_evaluator(state.game.id, name=key)
    if key not in info.heuristics:
        raise ValueError(
            f"{info.id} has no heuristic {key!r}; heuristics: "
            f"{', '.join(info.heuristics) or 'none'}; shipped networks: "
            f"{', '.join(shipped_names(info.id)) or 'none'}"
        )
    heuristic = info.heuristics[key]
    return HeuristicEvaluator(heuristic.kernel, heuristic.params(weights or None), key)
