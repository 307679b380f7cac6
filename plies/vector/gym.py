"""A ``gymnasium.vector.VectorEnv`` over a ``VectorGame``: one seat learns in every game, the
other seats are played by a batched opponent policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from plies.vector.batch import VectorGame

Policy = Callable[[np.ndarray, np.ndarray], Any]
"""A batched policy: (observations, action masks) of the games where it is to move -> one
action per game (numpy array, list or torch tensor)."""


class GymVectorEnv(VectorEnv):
    """``num_envs`` games of ``game`` where the learner plays ``seat`` in every one.

    ``opponent`` plays every other seat: ``"random"`` (uniform legal moves drawn in compiled
    code) or a batched ``Policy`` such as ``torch_policy(model)``. Each ``step`` takes one
    learner action per game, then lets the opponents move until the learner is to move again
    in every game. Finished games are reset in the same step (``AutoresetMode.SAME_STEP``): the
    reward is the learner's return, ``terminations`` / ``truncations`` flag the end, and the
    observation is already the next game's. Observations are the learner's (float32); legal
    actions are in ``infos["action_mask"]`` and ``action_masks()``. An illegal learner action
    raises ``ValueError``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int,
        seat: int = 0,
        opponent: str | Policy = "random",
        seed: int | None = 0,
        **options: Any,
    ) -> None:
        if "opponents" in options or (isinstance(opponent, str) and opponent != "random"):
            given = options.get("opponents", opponent)
            raise ValueError(
                f"the batched env plays every other seat with one opponent, 'random' or a batched "
                f"policy callable (see torch_policy), got {given!r}; for agent specs use the "
                f"single-agent env: gymnasium.make_vec(id, num_envs, vectorization_mode='sync', "
                f"opponent=SPEC)"
            )
        self.batch = VectorGame(game, num_envs, seed, **options)
        if not 0 <= seat < self.batch.num_players:
            raise ValueError(f"seat must be in 0..{self.batch.num_players - 1}, got {seat}")
        self.opponent = opponent
        self.seat = seat
        self.num_envs = num_envs
        low, high = self.batch.observation_bounds
        self.single_observation_space = spaces.Box(
            low, high, self.batch.observation_shape, np.float32
        )
        self.single_action_space = spaces.Discrete(self.batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rewards = np.zeros(num_envs, np.float32)
        self._terminations = np.zeros(num_envs, bool)
        self._truncations = np.zeros(num_envs, bool)
        self._opponent_actions = np.zeros(num_envs, np.int64)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.batch.reset(seed)
        self._clear()
        self._play_opponents()
        return self.batch.observations, self._infos()

    def step(self, actions: Any):
        self._clear()
        self.batch.step(actions)
        self._collect()
        self._play_opponents()
        return (
            self.batch.observations, self._rewards, self._terminations, self._truncations,
            self._infos(),
        )

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions per game (bool, num_envs x num_actions)."""
        return self.batch.action_mask

    # ----- internals ---------------------------------------------------------------------
    def _clear(self) -> None:
        self._rewards[:] = 0.0
        self._terminations[:] = False
        self._truncations[:] = False

    def _collect(self) -> None:
        batch = self.batch
        self._rewards += batch.rewards[:, self.seat]
        self._terminations |= batch.terminations
        self._truncations |= batch.truncations

    def _play_opponents(self) -> None:
        batch = self.batch
        while True:
            waiting = batch.current_player != self.seat
            if not waiting.any():
                return
            if self.opponent == "random":
                actions = batch.sample_actions()
                actions[~waiting] = -1
            else:
                actions = self._opponent_actions
                actions[:] = -1
                chosen = self.opponent(batch.observations[waiting], batch.action_mask[waiting])
                if hasattr(chosen, "detach"):
                    chosen = chosen.detach().cpu().numpy()
                actions[waiting] = np.asarray(chosen, np.int64).reshape(-1)
            batch.step(actions)
            self._collect()

    def _infos(self) -> dict[str, np.ndarray]:
        return {"action_mask": self.batch.action_mask}

    def __repr__(self) -> str:
        return f"GymVectorEnv({self.batch.game!r}, num_envs={self.num_envs}, seat={self.seat})"


def random_policy(seed: int | None = None) -> Policy:
    """A batched policy choosing uniformly among the legal actions (numpy; for tests and as a
    template; ``opponent="random"`` is the compiled, faster equivalent)."""
    rng = np.random.default_rng(seed)

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        scores = rng.random(masks.shape) * masks
        return scores.argmax(axis=1)

    return act


def torch_policy(model: Any, greedy: bool = False) -> Policy:
    """Wrap a torch module mapping a batch of observations to action logits into a batched
    policy: illegal actions are masked out, then the action is sampled (or the best taken)."""
    import torch

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = model(torch.from_numpy(np.ascontiguousarray(observations)))
            logits = logits.reshape(len(masks), -1).float()
            logits = logits.masked_fill(~torch.from_numpy(np.ascontiguousarray(masks)), -torch.inf)
            if greedy:
                return logits.argmax(dim=1).numpy()
            return torch.distributions.Categorical(logits=logits).sample().numpy()

    return act
