"""TurnBasedEnv: the one PettingZoo AEC environment, for every game."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from plies.envs.core import GameState, sample_chance
from plies.envs.render import render_state

ILLEGAL_ACTION_MODES = ("raise", "penalize")
ACTION_MASK_MODES = ("observation", "info")


class TurnBasedEnv(AECEnv):
    """A PettingZoo AEC environment over any plies GameState.

    Agents are ``player_0 .. player_{n-1}`` (seat order). Observations are dicts with the
    game's ``observation`` (float32) and an ``action_mask`` (int8); with
    ``action_mask="info"`` the observation is the plain float32 array (a Box, which SuperSuit's
    observation wrappers accept) and the mask is ``infos[agent]["action_mask"]``. Rewards come at the end
    of the game from the state's returns. Chance nodes (dice) are resolved inside ``step``
    and ``reset`` from the env's seeded generator. A game longer than ``max_game_length``
    decisions is truncated with zero rewards. ``illegal_action="raise"`` (default) raises a
    ``ValueError`` naming the legal actions; ``"penalize"`` ends the game with -1 for the
    offender and 0 for everyone else, as PettingZoo's classic environments do.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": False}

    def __init__(
        self,
        state_cls: type[GameState],
        render_mode: str | None = None,
        illegal_action: str = "raise",
        max_game_length: int | None = None,
        action_mask: str = "observation",
        **options: Any,
    ) -> None:
        super().__init__()
        if action_mask not in ACTION_MASK_MODES:
            raise ValueError(
                f"unknown action_mask {action_mask!r}; choose one of {', '.join(ACTION_MASK_MODES)}"
            )
        self.mask_in_info = action_mask == "info"
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r}; modes: {', '.join(self.metadata['render_modes'])}"
            )
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"unknown illegal_action {illegal_action!r}; choose one of {', '.join(ILLEGAL_ACTION_MODES)}"
            )
        self.state_cls = state_cls
        self.options = dict(options)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.np_random = np.random.default_rng()
        self.state: GameState = state_cls.initial(self.np_random, **options)
        self.max_game_length = max_game_length or self.state.max_game_length
        name = state_cls.game.id
        self.metadata = dict(self.metadata, name=f"{name}_v0")
        n = self.state.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = self.state.observation_bounds
        num_actions = self.state.num_actions
        box = spaces.Box(low, high, self.state.observation_shape, np.float32)
        obs_space = box if self.mask_in_info else spaces.Dict(
            {"observation": box, "action_mask": spaces.Box(0, 1, (num_actions,), np.int8)}
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.agents: list[str] = []
        self.decisions = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def seat(self, agent: str) -> int:
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return self._seat[agent]

    # ----- the game loop -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.state = self.state_cls.initial(self.np_random, **self.options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.decisions = 0
        self._resolve_chance()
        self.agent_selection = self.possible_agents[max(0, self.state.current_player)]
        if self.state.is_terminal():
            self._finish(self.state.returns())
        self._update_mask_infos()

    def _update_mask_infos(self) -> None:
        if not self.mask_in_info:
            return
        for agent in self.agents:
            self.infos[agent]["action_mask"] = self._mask_for(agent)

    def _resolve_chance(self) -> None:
        state = self.state
        while state.is_chance_node():
            state.apply_unchecked(sample_chance(state, self.np_random))

    def _finish(self, rewards: np.ndarray, truncated: bool = False) -> None:
        for agent in self.agents:
            self.rewards[agent] = float(rewards[self._seat[agent]])
            if truncated:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
        self._accumulate_rewards()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        if action is None or not state.is_legal(int(action)):
            if self.illegal_action == "raise":
                if action is None:
                    raise ValueError(f"{agent} must act: step(None) is only for finished agents")
                raise ValueError(f"{agent}: " + state._illegal_message(int(action)))
            penalty = np.zeros(state.num_players)
            penalty[self._seat[agent]] = -1.0
            self._clear_rewards()
            self.infos[agent] = {"illegal_action": action}
            self._finish(penalty)
            return
        self._clear_rewards()
        state.apply_unchecked(int(action))
        self.decisions += 1
        self._resolve_chance()
        if state.is_terminal():
            self._finish(state.returns())
        elif self.decisions >= self.max_game_length:
            self._finish(np.zeros(state.num_players), truncated=True)
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        self._update_mask_infos()
        if self.render_mode == "human":
            self.render()

    def _mask_for(self, agent: str) -> np.ndarray:
        state = self.state
        if state.current_player == self._seat[agent] and not (self.terminations[agent] or self.truncations[agent]):
            return state.action_mask()
        return np.zeros(state.num_actions, np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        observation = self.state.observation(self._seat[agent])
        if self.mask_in_info:
            return observation
        return {"observation": observation, "action_mask": self._mask_for(agent)}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal actions of ``agent`` (default: the one to act) as an int8 mask."""
        return self._mask_for(agent or self.agent_selection)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        return render_state(self.state, self.render_mode)

    def _repr_svg_(self) -> str:
        """Jupyter shows the environment as its current position."""
        return self.state.svg()

    def close(self) -> None:
        pass
