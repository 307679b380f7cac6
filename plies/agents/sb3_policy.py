"""A Stable-Baselines3 policy as a plies agent: ``sb3:path=model.zip``.

The model must have been trained on the game's single-agent environment (its observation
for the seat to move); masked models (sb3-contrib's MaskablePPO) get the legal-action mask,
other models have an illegal choice replaced by the legal action they rank highest.
"""

from __future__ import annotations

import numpy as np

from plies.agents.base import BaseAgent
from plies.games.state import GameState

POLICY_KEYWORDS = {"net_arch", "ortho_init", "share_features_extractor", "normalize_images"}
"""The policy_kwargs a model file may set: plain JSON values (anything else would be pickled)."""
MAX_UNITS = 4096
MAX_INPUTS = 1_000_000
MAX_PARAMETERS = 50_000_000
MAX_LAYERS = 16


def load_model(path: str) -> _MaskablePolicy:
    """The policy of a MaskablePPO ``MlpPolicy`` model file, read without running code from it.

    Stable-Baselines3's own ``load`` unpickles objects stored in the file (the policy class,
    the spaces, the schedules), so a crafted file would run code on loading. Here only the
    file's JSON and its ``policy.pth`` weights (``torch.load(weights_only=True)``) are read:
    the spaces and network shape come from the JSON's plain fields, and the weights must fit
    them exactly."""
    try:
        import torch
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError as err:
        raise ImportError('sb3 agents need Stable-Baselines3: pip install "plies[rl]"') from err
    import json
    import pickle  # only for its error type: torch.load(weights_only=True) refuses what is not plain data
    import zipfile

    def refuse(why: str) -> ValueError:
        return ValueError(f"{path} is not a MaskablePPO model saved by Stable-Baselines3 that plies can load: {why}")

    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data").decode())
            with archive.open("policy.pth") as weights_file:
                weights = torch.load(weights_file, map_location="cpu", weights_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, RuntimeError, OSError, EOFError, pickle.UnpicklingError) as err:
        raise refuse(f"{type(err).__name__}: {err}") from err
    if not isinstance(data, dict):
        raise refuse("its data is not a JSON object")
    policy = data.get("policy_class")
    if not (isinstance(policy, dict) and "MaskableActorCriticPolicy.__init__" in str(policy.get("__init__"))):
        raise refuse("its policy is not sb3-contrib's MaskableActorCriticPolicy (MaskablePPO's MlpPolicy)")
    observation, action = data.get("observation_space"), data.get("action_space")
    try:
        if "spaces.box.Box" not in observation[":type:"] or "spaces.discrete.Discrete" not in action[":type:"]:
            raise TypeError
        shape = observation["_shape"]
        shape = tuple(json.loads(shape) if isinstance(shape, str) else shape)
        actions = action["n"]
        actions = int(actions) if isinstance(actions, (int, str)) and not isinstance(actions, bool) else 0
        if not (0 < len(shape) <= 4 and all(isinstance(n, int) and 0 < n <= 10**6 for n in shape)
                and 0 < actions <= 10**6 and str(action.get("start", 0)) == "0"):
            raise TypeError
    except (TypeError, KeyError, ValueError, json.JSONDecodeError) as err:
        raise refuse("its observation space is not a Box of a plain shape, or its action space not Discrete(n)") from err
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict) or ":serialized:" in kwargs or set(kwargs) - POLICY_KEYWORDS:
        raise refuse(f"its policy_kwargs may hold only plain {', '.join(sorted(POLICY_KEYWORDS))} "
                     "(other keywords are stored pickled, which plies does not unpickle)")
    _check_net_arch(kwargs.get("net_arch"), refuse)
    inputs = int(np.prod(shape))
    if inputs > MAX_INPUTS or _parameter_count(inputs, actions, kwargs.get("net_arch")) > MAX_PARAMETERS:
        raise refuse(f"its network would have more than {MAX_INPUTS:,} inputs or {MAX_PARAMETERS:,} weights")
    for flag in POLICY_KEYWORDS - {"net_arch"}:
        if flag in kwargs and not isinstance(kwargs[flag], bool):
            raise refuse(f"its policy_kwargs {flag} is not true or false")
    network = MaskableActorCriticPolicy(spaces.Box(-np.inf, np.inf, shape, np.float32), spaces.Discrete(actions),
                                        lambda _: 0.0, **kwargs)
    try:
        network.load_state_dict(weights)
    except (RuntimeError, TypeError, AttributeError) as err:
        raise refuse(f"its weights do not fit the network its data describes ({err})") from err
    if not all(torch.isfinite(t).all() for t in network.state_dict().values() if t.is_floating_point()):
        raise refuse("its weights are not all finite")
    network.set_training_mode(False)
    return _MaskablePolicy(network)


def _parameter_count(inputs: int, actions: int, net_arch: object) -> int:
    """About how many weights the policy the JSON describes holds (built only if not too many)."""
    if net_arch is None:
        net_arch = [64, 64]  # MaskableActorCriticPolicy's default for vector observations
    branches = [net_arch.get("pi", []), net_arch.get("vf", [])] if isinstance(net_arch, dict) else [net_arch, net_arch]
    total = 0
    for layers, out in zip(branches, (actions, 1)):
        sizes = [inputs, *layers, out]
        total += sum(a * b for a, b in zip(sizes, sizes[1:]))
    return total


def _check_net_arch(net_arch: object, refuse) -> None:
    def layers(value: object) -> bool:
        return (isinstance(value, list) and len(value) <= MAX_LAYERS
                and all(isinstance(n, int) and not isinstance(n, bool) and 0 < n <= MAX_UNITS for n in value))

    if net_arch is None or layers(net_arch):
        return
    if isinstance(net_arch, dict) and set(net_arch) <= {"pi", "vf"} and all(layers(v) for v in net_arch.values()):
        return
    raise refuse(f"its net_arch is not a list (or a pi/vf dict) of at most {MAX_LAYERS} layers of 1-{MAX_UNITS} units")


class _MaskablePolicy:
    """A loaded policy with the two calls the agent makes of a model."""

    def __init__(self, network) -> None:
        self.policy = network

    def predict(self, observation, action_masks=None, deterministic: bool = True):
        return self.policy.predict(observation, action_masks=action_masks, deterministic=deterministic)

    def set_random_seed(self, seed: int) -> None:
        import torch

        torch.manual_seed(seed)


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
