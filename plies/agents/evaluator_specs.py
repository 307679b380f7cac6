"""Evaluators named in agent specs (``eval=NAME``): a game's heuristic, its shipped value
network (``net``) or a network file (``FILE.pt``). Sits above both kinds of evaluator, so
neither module imports the other."""

from __future__ import annotations

from plies.agents.evaluators import Evaluator, HeuristicEvaluator
from plies.agents.value_net import net_evaluator
from plies.envs.core import GameState


def evaluator_for(state: GameState, name: str = "", **weights: float) -> Evaluator:
    """The game's heuristic ``name`` (its default when empty) as an Evaluator; ``net`` is the
    game's shipped value network, ``<file>.pt`` a network file (plies/agents/value_net.py)."""
    info = state.game
    key = name or info.default_heuristic
    if key == "net" or key.endswith(".pt"):  # a value network: shipped weights or a file
        return net_evaluator(state.game.id, None if key == "net" else key)
    if key not in info.heuristics:
        raise ValueError(
            f"{info.name} has no heuristic {key!r}; heuristics: "
            f"{', '.join(info.heuristics) or 'none'}"
        )
    heuristic = info.heuristics[key]
    return HeuristicEvaluator(heuristic.kernel, heuristic.params(weights or None), key)
