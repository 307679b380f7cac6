"""A Gymnasium environment where one seat learns and the other seats are plies agents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from plies.agents.specs import make as make_agent
from plies.envs.core import sample_chance
from plies.envs.render import render_state
from plies.registration import state_class


class SingleAgentEnv(gymnasium.Env):
    """``gymnasium.make("plies/ConnectFour-v0", opponent="alphabeta:depth=2", seat=0)``.

    The learner plays ``seat``; every other seat is played by an agent spec (``opponent`` for
    two-player games, ``opponents=[...]`` one per other seat, e.g. for Dice Wars). Observations
    are the game's float32 observation for the learner; ``action_masks()`` gives the legal
    actions (for sb3-contrib's MaskablePPO). The reward is the learner's return at the end.
    An illegal action ends the game with -1 (``illegal_action="raise"`` raises instead).
    Use ``seat=-1`` to draw the learner's seat at random on every reset.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        opponent: str = "random",
        opponents: Sequence[str] | None = None,
        seat: int = 0,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        max_game_length: int | None = None,
        **options: Any,
    ) -> None:
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"unknown illegal_action {illegal_action!r}; choose 'raise' or 'penalize'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; modes: ansi, rgb_array, human")
        self.game = game
        self.state_cls = state_class(game)
        self.options = options
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        probe = self.state_cls.initial(np.random.default_rng(0), **options)
        n = probe.num_players
        if not -1 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1} (or -1 for random), got {seat}")
        specs = list(opponents) if opponents is not None else [opponent] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"{game} with {n} players needs {n - 1} opponent specs, got {len(specs)}")
        self.opponent_specs = specs
        self.opponents = [make_agent(spec, game=game) for spec in specs]
        self.fixed_seat = seat
        self.seat = max(seat, 0)
        self.max_game_length = max_game_length or probe.max_game_length
        self.observation_space = spaces.Box(-np.inf, np.inf, probe.observation_shape, np.float32)
        self.action_space = spaces.Discrete(probe.num_actions)
        self.state = probe
        self.decisions = 0

    def _opponent_for(self, seat: int):
        return self.opponents[seat if seat < self.seat else seat - 1]

    def _advance(self) -> None:
        """Resolve chance and play the opponents until the learner is to move or the game ends."""
        state = self.state
        while not state.is_terminal() and self.decisions < self.max_game_length:
            if state.is_chance_node():
                state.apply_unchecked(sample_chance(state, self.np_random))
            elif state.current_player == self.seat:
                return
            else:
                action = self._opponent_for(state.current_player).act(state)
                state.apply(action)
                self.decisions += 1

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        n_seats = len(self.opponents) + 1
        self.seat = int(self.np_random.integers(n_seats)) if self.fixed_seat < 0 else self.fixed_seat
        for i, agent in enumerate(self.opponents):
            if hasattr(agent, "reset"):  # users' agents may have no reset
                agent.reset(int(self.np_random.integers(2**31)) + i)
        self.state = self.state_cls.initial(self.np_random, **self.options)
        self.decisions = 0
        self._advance()
        return self.state.observation(self.seat), {"seat": self.seat}

    def step(self, action: Any):
        state = self.state
        action = int(action)
        if not state.is_legal(action):
            if self.illegal_action == "raise":
                raise ValueError(state._illegal_message(action))
            return state.observation(self.seat), -1.0, True, False, {"illegal_action": action}
        state.apply_unchecked(action)
        self.decisions += 1
        self._advance()
        if state.is_terminal():
            reward = float(state.returns()[self.seat])
            return state.observation(self.seat), reward, True, False, {}
        truncated = self.decisions >= self.max_game_length
        return state.observation(self.seat), 0.0, False, truncated, {}

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as booleans (MaskablePPO's hook)."""
        if self.state.is_terminal() or self.state.current_player != self.seat:
            return np.zeros(self.action_space.n, bool)
        return self.state.action_mask().astype(bool)

    def render(self):
        return render_state(self.state, self.render_mode)
