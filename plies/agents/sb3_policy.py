"""A Stable-Baselines3 policy as a plies agent: ``sb3:path=model.zip``.

The model must have been trained on the game's single-agent environment (its observation
for the seat to move); masked models (sb3-contrib's MaskablePPO) get the legal-action mask,
other models have an illegal choice replaced by the legal action they rank highest.
"""

from __future__ import annotations

import numpy as np

from plies.agents.base import BaseAgent
from plies.games.state import GameState


def load_model(path: str):
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.base_class import BaseAlgorithm  # noqa: F401
    except ImportError as err:
        raise ImportError('sb3 agents need Stable-Baselines3: pip install "plies[rl]"') from err
    import zipfile

    try:
        return MaskablePPO.load(path, device="cpu")
    except (zipfile.BadZipFile, KeyError, ValueError) as err:
        raise ValueError(f"{path} is not a MaskablePPO model saved by Stable-Baselines3 ({err})") from err


class SB3PolicyAgent(BaseAgent):
    """Plays a trained MaskablePPO policy; ``deterministic=false`` samples from it."""

    spec_name = "sb3"
    description = "a trained Stable-Baselines3 MaskablePPO policy (sb3:path=FILE.zip)"

    def __init__(
        self,
        *,
        path: str = "",
        deterministic: bool = True,
        seed: int | None = None,
        name: str | None = None,
        model=None,
    ) -> None:
        super().__init__(seed, name)
        if model is None:
            if not path:
                raise ValueError("the sb3 agent needs a model: sb3:path=FILE.zip")
            import os

            if not os.path.isfile(path):  # checked here: Stable-Baselines3 would report PATH.zip.zip
                raise FileNotFoundError(f"sb3 agent: no model file {path}")
            model = load_model(path)
        self.model = model
        self.deterministic = deterministic

    def act(self, state: GameState) -> int:
        observation = state.observation(state.current_player)
        mask = state.action_mask().astype(bool)
        if not self.deterministic:
            self.model.set_random_seed(int(self.rng.integers(2**31)))
        action, _ = self.model.predict(observation, action_masks=mask, deterministic=self.deterministic)
        action = int(action)
        if not mask[action]:  # a policy trained without masks may still pick an illegal action
            action = self.choose(np.flatnonzero(mask))
        return action
