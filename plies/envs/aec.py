"""TurnBasedEnv: the one PettingZoo AEC environment, for every game."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from plies.envs.loop import DEFAULT_ILLEGAL_ACTION, GameLoop, check_illegal_action
from plies.envs.render import render_state
from plies.games.state import GameState

ACTION_MASK_MODES = ("observation", "info")


class TurnBasedEnv(AECEnv):
    """A PettingZoo AEC environment over any plies GameState.

    Agents are ``player_0 .. player_{n-1}`` (seat order). Observations are dicts with the
    game's ``observation`` (float32, bounded by the game's ``observation_bounds``) and an
    ``action_mask`` (int8); with ``action_mask="info"`` the observation is the plain float32
    array (a Box, which SuperSuit's observation wrappers accept) and the mask is
    ``infos[agent]["action_mask"]``. Rewards come at the end of the game from the state's
    returns. Games are played by ``plies.envs.loop.GameLoop``: chance nodes (dice) are resolved
    inside ``step`` and ``reset`` from the env's seeded generator, a game longer than
    ``max_game_length`` decisions is truncated with zero rewards, actions must be integers in
    range, and ``illegal_action`` is the policy of every plies env (``"raise"``, the default,
    or ``"penalize"``: the offender forfeits, -1, the others share +1).

    The position is ``env.game_state`` (a GameState). ``env.state()`` is PettingZoo's global
    view: the full-information observation (every game here has perfect information), seen
    from seat 0, followed by a one-hot of the seat to move (all zeros once the game is over).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": False}

    def __init__(
        self,
        state_cls: type[GameState],
        render_mode: str | None = None,
        illegal_action: str = DEFAULT_ILLEGAL_ACTION,
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
        self.state_cls = state_cls
        self.options = dict(options)
        self.render_mode = render_mode
        self.illegal_action = check_illegal_action(illegal_action)
        self.np_random = np.random.default_rng()
        self.game_state: GameState = state_cls.initial(self.np_random, **options)
        self.max_game_length = max_game_length or self.game_state.max_game_length
        self.loop = GameLoop(self.game_state, self.np_random, self.max_game_length, self.illegal_action)
        name = state_cls.game.id
        self.metadata = dict(self.metadata, name=f"{name}_v0")
        n = self.game_state.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = self.game_state.observation_bounds
        num_actions = self.game_state.num_actions
        box = spaces.Box(low, high, self.game_state.observation_shape, np.float32)
        obs_space = box if self.mask_in_info else spaces.Dict(
            {"observation": box, "action_mask": spaces.Box(0, 1, (num_actions,), np.int8)}
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        state_size = int(np.prod(self.game_state.observation_shape)) + n
        self.state_space = spaces.Box(min(low, 0.0), max(high, 1.0), (state_size,), np.float32)
        self.agents: list[str] = []

    @property
    def decisions(self) -> int:
        """Decisions played in the current game."""
        return self.loop.decisions

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def seat(self, agent: str) -> int:
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return self._seat[agent]

    def state(self) -> np.ndarray:
        """The global view: seat 0's observation (flattened) and a one-hot of the seat to move."""
        game = self.game_state
        to_move = np.zeros(game.num_players, np.float32)
        if game.current_player >= 0:
            to_move[game.current_player] = 1.0
        return np.concatenate([game.observation(0).ravel(), to_move])

    # ----- the game loop -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.game_state = self.state_cls.initial(self.np_random, **self.options)
        self.loop = GameLoop(self.game_state, self.np_random, self.max_game_length, self.illegal_action)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.loop.start()
        self.agent_selection = self.possible_agents[max(0, self.game_state.current_player)]
        if self.game_state.is_terminal():
            self._finish()
        self._update_mask_infos()

    def _update_mask_infos(self) -> None:
        if not self.mask_in_info:
            return
        for agent in self.agents:
            self.infos[agent]["action_mask"] = self._mask_for(agent)

    def _finish(self) -> None:
        rewards = self.loop.returns()
        truncated = self.loop.truncated
        for agent in self.agents:
            self.rewards[agent] = float(rewards[self._seat[agent]])
            if truncated:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
        self._accumulate_rewards()

    def step(self, action: Any) -> None:
        if not self.agents:
            raise ValueError("the game is over and every agent has left: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        loop = self.loop
        self._clear_rewards()
        if not loop.play(action):
            self.infos[agent] = {"illegal_action": int(action)}
            self._finish()
        elif loop.finished:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.game_state.current_player]
        self._update_mask_infos()
        if self.render_mode == "human":
            self.render()

    def _mask_for(self, agent: str) -> np.ndarray:
        state = self.game_state
        if state.current_player == self._seat[agent] and not (self.terminations[agent] or self.truncations[agent]):
            return state.action_mask()
        return np.zeros(state.num_actions, np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        observation = self.game_state.observation(self._seat[agent])
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
        return render_state(self.game_state, self.render_mode)

    def _repr_svg_(self) -> str:
        """Jupyter shows the environment as its current position."""
        return self.game_state.svg()

    def close(self) -> None:
        pass
