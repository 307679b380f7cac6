"""A Gymnasium environment where one seat learns and the other seats are plies agents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from plies.agents.specs import make as make_agent
from plies.envs.loop import DEFAULT_ILLEGAL_ACTION, GameLoop, check_illegal_action
from plies.envs.render import render_state
from plies.games.registry import state_class


class SingleAgentEnv(gymnasium.Env):
    """``gymnasium.make("plies/ConnectFour-v0", opponent="alphabeta:depth=2", seat=0)``.

    The learner plays ``seat``; every other seat is played by an agent spec (``opponent`` for
    two-player games, ``opponents=[...]`` one per other seat in seat order, e.g. for Dice Wars).
    ``seat=-1`` draws the learner's seat at random on every reset.

    Observations are the game's float32 observation for the learner, in a Box bounded by the
    game's ``observation_bounds``. ``info["action_mask"]`` (int8) holds the learner's legal
    actions after ``reset`` and every ``step`` (all zeros once the game is over), and
    ``action_masks()`` gives them as booleans (sb3-contrib's MaskablePPO hook); ``reset``'s info
    also names the ``seat``. The reward is the learner's return at the end of the game.

    The game is played by ``plies.envs.loop.GameLoop``, as in every plies env: integer actions
    only (TypeError otherwise), out of range raises ValueError, so does stepping after the
    end; ``illegal_action="raise"`` (default) raises on an illegal action, ``"penalize"`` ends
    the game with -1 for the learner (``info["illegal_action"]`` names it). A game reaching
    ``max_game_length`` decisions (all seats counted) is truncated with reward 0.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        opponent: str = "random",
        opponents: Sequence[str] | None = None,
        seat: int = 0,
        render_mode: str | None = None,
        illegal_action: str = DEFAULT_ILLEGAL_ACTION,
        max_game_length: int | None = None,
        **options: Any,
    ) -> None:
        self.illegal_action = check_illegal_action(illegal_action)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; modes: ansi, rgb_array, human")
        self.game = game
        self.state_cls = state_class(game)
        self.options = options
        self.render_mode = render_mode
        probe = self.state_cls.initial(np.random.default_rng(0), **options)
        n = probe.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not -1 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1} (or -1 for random), got {seat!r}")
        specs = list(opponents) if opponents is not None else [opponent] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"{game} with {n} players needs {n - 1} opponent specs, got {len(specs)}")
        self.opponent_specs = specs
        self.opponents = [make_agent(spec, game=game) for spec in specs]
        self.fixed_seat = int(seat)
        self.seat = max(self.fixed_seat, 0)
        self.max_game_length = max_game_length or probe.max_game_length
        low, high = probe.observation_bounds
        self.observation_space = spaces.Box(low, high, probe.observation_shape, np.float32)
        self.action_space = spaces.Discrete(probe.num_actions)
        self.game_state = probe
        self.loop = GameLoop(probe, np.random.default_rng(0), self.max_game_length, self.illegal_action)

    @property
    def decisions(self) -> int:
        return self.loop.decisions

    def _opponent_for(self, seat: int):
        return self.opponents[seat if seat < self.seat else seat - 1]

    def _advance(self) -> None:
        """Play the opponents until the learner is to move or the game is over."""
        loop, state = self.loop, self.game_state
        while not loop.finished and state.current_player != self.seat:
            loop.play(self._opponent_for(state.current_player).act(state))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        n_seats = len(self.opponents) + 1
        self.seat = int(self.np_random.integers(n_seats)) if self.fixed_seat < 0 else self.fixed_seat
        for i, agent in enumerate(self.opponents):
            if hasattr(agent, "reset"):  # users' agents may have no reset
                agent.reset(int(self.np_random.integers(2**31)) + i)
        self.game_state = self.state_cls.initial(self.np_random, **self.options)
        self.loop = GameLoop(self.game_state, self.np_random, self.max_game_length, self.illegal_action)
        self.loop.start()
        self._advance()
        info = self._info()
        info["seat"] = self.seat
        return self.game_state.observation(self.seat), info

    def step(self, action: Any):
        loop = self.loop
        if not loop.play(action):
            info = self._info()
            info["illegal_action"] = int(action)
            return self.game_state.observation(self.seat), float(loop.returns()[self.seat]), True, False, info
        self._advance()
        observation = self.game_state.observation(self.seat)
        reward = float(loop.returns()[self.seat]) if loop.finished else 0.0
        return observation, reward, loop.terminated, loop.truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as booleans (MaskablePPO's hook); none once it is over."""
        state = self.game_state
        if self.loop.finished or state.current_player != self.seat:
            return np.zeros(self.action_space.n, bool)
        return state.action_mask().astype(bool)

    def render(self):
        return render_state(self.game_state, self.render_mode)

    def _repr_svg_(self) -> str:
        """Jupyter shows the environment as its current position."""
        return self.game_state.svg()
