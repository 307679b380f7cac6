"""Users' agents as plies agents: a plain policy function, or a torch module giving action logits.

    agent = plies.agents.from_policy(my_policy)          # my_policy(observation, action_mask) -> action
    agent = plies.agents.from_torch(net, greedy=False, seed=0)
    plies.agents.register("mine", agent)                 # then "mine" works in tournaments and plies play

The observation is the game's float32 observation for the player to move (as in the
single-agent environment) and the mask marks the legal actions (booleans, one per action).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from plies.agents.base import BaseAgent
from plies.games.state import GameState


def checked_action(agent: str, action: Any, mask: np.ndarray) -> int:
    """``action`` as an int if it is an integer marked legal in ``mask``, else a ValueError
    naming the agent and what was wrong."""
    if isinstance(action, np.ndarray) and action.size == 1:
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        raise ValueError(f"agent {agent!r} returned {action!r} ({type(action).__name__}), not an integer action")
    if not 0 <= int(action) < len(mask) or not mask[int(action)]:
        raise ValueError(f"agent {agent!r} returned the illegal action {int(action)}")
    return int(action)


class PolicyAgent(BaseAgent):
    """Plays ``policy(observation, action_mask) -> action`` for the player to move."""

    spec_name = "policy"
    description = "a function policy(observation, action_mask) -> action"

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], Any], *, seed: int | None = None,
                 name: str | None = None) -> None:
        if not callable(policy):
            raise TypeError(f"from_policy needs a function policy(observation, action_mask), not {policy!r}")
        super().__init__(seed, name or getattr(policy, "__name__", "policy"))
        self.function = policy

    def act(self, state: GameState) -> int:
        mask = state.action_mask().astype(bool)
        return checked_action(self.name, self.function(state.observation(state.current_player), mask), mask)


class TorchPolicyAgent(BaseAgent):
    """Plays a torch module mapping an observation batch (1 x observation shape) to action
    logits (1 x actions): illegal actions are masked out; ``greedy`` plays the most likely
    legal action (ties: the lowest), otherwise samples from the masked softmax with the
    agent's seeded generator."""

    spec_name = "torch"
    description = "a torch module giving action logits (masked; greedy or sampled)"

    def __init__(self, module: Any, *, greedy: bool = True, device: str = "cpu", seed: int | None = None,
                 name: str | None = None) -> None:
        from plies.agents.value_net import require_torch

        torch = require_torch()
        if not isinstance(module, torch.nn.Module):
            raise TypeError(f"from_torch needs a torch.nn.Module, not {type(module).__name__}")
        super().__init__(seed, name or type(module).__name__)
        self.module = module
        self.greedy = greedy
        self.device = device

    def _masked_probabilities(self, state: GameState) -> tuple[np.ndarray, np.ndarray]:
        import torch

        mask = state.action_mask().astype(bool)
        observation = torch.as_tensor(state.observation(state.current_player), dtype=torch.float32)
        with torch.no_grad():
            logits = self.module(observation.unsqueeze(0).to(self.device))
        logits = np.asarray(logits.detach().cpu().double().numpy()).reshape(-1)
        if logits.shape[0] != mask.shape[0]:
            raise ValueError(f"agent {self.name!r}: the module gave {logits.shape[0]} logits, the game has "
                             f"{mask.shape[0]} actions")
        logits = np.where(mask, logits, -np.inf)
        if not np.isfinite(logits[mask]).all():
            raise ValueError(f"agent {self.name!r}: the module gave non-finite logits for legal actions")
        probabilities = np.exp(logits - logits[mask].max())
        return probabilities / probabilities.sum(), mask

    def policy(self, state: GameState) -> np.ndarray:
        """The masked softmax, per legal action (``state.legal_actions()`` order)."""
        probabilities, _ = self._masked_probabilities(state)
        return probabilities[state.legal_array()]

    def act(self, state: GameState) -> int:
        probabilities, mask = self._masked_probabilities(state)
        if self.greedy:
            return int(np.argmax(probabilities))
        return int(self.rng.choice(len(probabilities), p=probabilities))


def from_policy(policy: Callable[[np.ndarray, np.ndarray], Any], name: str | None = None,
                seed: int | None = None) -> PolicyAgent:
    """An agent playing ``policy(observation, action_mask) -> action``."""
    return PolicyAgent(policy, seed=seed, name=name)


def from_torch(module: Any, greedy: bool = True, seed: int | None = None, name: str | None = None,
               device: str = "cpu") -> TorchPolicyAgent:
    """An agent playing a torch module's masked action logits (greedy, or sampled with ``seed``)."""
    return TorchPolicyAgent(module, greedy=greedy, device=device, seed=seed, name=name)
