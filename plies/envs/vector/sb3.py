"""Stable-Baselines3 on the compiled batch: ``plies.envs.vector.sb3.VecEnv``.

SB3 steps its vectorised environments through its own ``VecEnv`` class (not Gymnasium's), so
``GymVectorEnv`` is wrapped here: SB3's ``PPO`` and sb3-contrib's ``MaskablePPO`` train on it
directly, hundreds of games per step, with the masks through ``action_masks()``::

    from sb3_contrib import MaskablePPO
    from plies.envs.vector.sb3 import VecEnv

    env = VecEnv("connect_four", num_envs=256, seat=-1, opponent="random", seed=0)
    MaskablePPO("MlpPolicy", env).learn(100_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv as _SB3VecEnv
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError('plies.envs.vector.sb3 needs Stable-Baselines3: pip install "plies[rl]"') from error

from plies.envs.loop import DEFAULT_ILLEGAL_ACTION
from plies.envs.vector.gym import GymVectorEnv, Opponent


class VecEnv(_SB3VecEnv):
    """``num_envs`` games of ``game`` as a Stable-Baselines3 ``VecEnv``; the learner plays
    ``seat`` (-1: a random seat per game) against ``opponent`` / ``opponents`` (``"random"`` in
    compiled code, a batched policy, or any agent spec; see ``GymVectorEnv``).

    SB3's conventions: ``reset()`` returns the observations only; ``step`` returns ``(obs,
    rewards, dones, infos)`` with one info dict per game; a finished game is restarted in the
    same step, and its info holds ``terminal_observation`` (the learner's view of the last
    position) and ``TimeLimit.truncated`` (True when it was cut at ``max_game_length``, which
    SB3 then bootstraps from). ``action_masks()`` (and ``env_method("action_masks")``, which
    MaskablePPO calls) gives the legal actions. ``illegal_action`` is the policy of every
    plies env; ``seed(s)`` applies at the next ``reset()``. The game's options go through as
    keywords.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        seat: int = 0,
        opponent: Opponent = "random",
        opponents: Sequence[Opponent] | None = None,
        seed: int | None = 0,
        illegal_action: str = DEFAULT_ILLEGAL_ACTION,
        **options: Any,
    ) -> None:
        self.env = GymVectorEnv(
            game, num_envs, seat=seat, opponent=opponent, opponents=opponents, seed=seed,
            illegal_action=illegal_action, final_observation=True, copy=True, **options,
        )
        self.render_mode = None
        super().__init__(num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions: np.ndarray | None = None

    @property
    def game(self) -> str:
        return self.env.game

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        observations, infos = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{"seat": int(s)} for s in infos["seat"]]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise ValueError("step_wait() without step_async(actions)")
        observations, rewards, terminations, truncations, infos = self.env.step(self._actions)
        self._actions = None
        dones = terminations | truncations
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_obs"]
            for game in np.flatnonzero(dones):
                out[game] = {
                    "terminal_observation": final[game],
                    "TimeLimit.truncated": bool(truncations[game] and not terminations[game]),
                }
        return observations, rewards, dones, out

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions per game (bool, num_envs x num_actions)."""
        return self.env.action_masks().copy()

    def close(self) -> None:
        pass

    # ----- SB3's per-env access: one batch stands for all games ------------------------------
    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name in ("action_masks", "render_mode") else getattr(
            self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        games = self._indices(indices)
        if method_name == "action_masks":
            return list(self.env.action_masks()[games])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(games)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def __repr__(self) -> str:
        return f"plies.envs.vector.sb3.VecEnv({self.game!r}, num_envs={self.num_envs}, seat={self.env.fixed_seat})"
