"""A ``gymnasium.vector.VectorEnv`` over a ``VectorGame``: one seat learns in every game, the
other seats are played by a batched opponent policy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from plies.envs.loop import DEFAULT_ILLEGAL_ACTION, check_illegal_action
from plies.envs.vector.batch import VectorGame
from plies.games.batching import TRACE_RESET

Policy = Callable[[np.ndarray, np.ndarray], Any]
"""A batched policy: (observations, action masks) of the games where it is to move -> one
action per game (numpy array, list or torch tensor)."""


Opponent = "str | Policy"


class GymVectorEnv(VectorEnv):
    """``num_envs`` games of ``game`` where one learner plays a seat in every game.

    ``seat`` is the learner's seat in every game, or -1: a seat drawn at random for each new
    game (``infos["seat"]`` and ``seats`` tell which). ``opponent`` plays every other seat (or
    ``opponents``, one per other seat in seat order, for games of more players):

    - ``"random"``: uniform legal moves drawn in compiled code (the fast default);
    - a batched ``Policy`` such as ``torch_policy(model)``, called once per round with the
      games where that opponent is to move;
    - any other agent spec (``"alphabeta:depth=2"``, ``"mcts:simulations=200"``): one agent
      shared by all games, asked per game and move (a search per call, so far slower).

    Each ``step`` takes one learner action per game, then lets the opponents move until the
    learner is to move again in every game. Finished games are reset in the same step
    (``AutoresetMode.SAME_STEP``): the reward is the learner's return, ``terminations`` /
    ``truncations`` flag the end, and the observation is already the next game's; with
    ``final_observation=True``, ``infos["final_obs"]`` (masked by ``infos["_final_obs"]``)
    holds the learner's observation of each finished game's last position. Observations are
    the learner's (float32, bounded by the game's ``observation_bounds``; copies unless
    ``copy=False``); legal actions are in ``infos["action_mask"]`` and ``action_masks()``.

    Actions follow the rules of every plies env (``plies.envs.loop``): integers only
    (TypeError), in ``range(num_actions)`` (ValueError), and ``illegal_action="raise"``
    (default: ValueError naming the game, nothing played) or ``"penalize"`` (that game ends as
    a forfeit: the learner gets -1 and the game is terminated and reset).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int,
        seat: int = 0,
        opponent: Opponent = "random",
        opponents: Sequence[Opponent] | None = None,
        seed: int | None = 0,
        illegal_action: str = DEFAULT_ILLEGAL_ACTION,
        final_observation: bool = False,
        copy: bool = True,
        **options: Any,
    ) -> None:
        self.illegal_action = check_illegal_action(illegal_action)
        self.final_observation = bool(final_observation)
        # the trace (cleared before each batch step) replays a finished game's last decision:
        # one action, its chance nodes (Dice Wars reinforcements), the restart and its set-up
        trace = 256 if self.final_observation else 0
        self.batch = VectorGame(game, num_envs, seed, trace=trace, **options)
        n_players = self.batch.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not -1 <= seat < n_players:
            raise ValueError(f"seat must be in 0..{n_players - 1} (or -1: random per game), got {seat!r}")
        specs = list(opponents) if opponents is not None else [opponent] * (n_players - 1)
        if len(specs) != n_players - 1:
            raise ValueError(f"{game} with {n_players} players needs {n_players - 1} opponents, got {len(specs)}")
        self.opponents = [_controller(spec, seed, k) for k, spec in enumerate(specs)]
        self.fixed_seat = int(seat)
        self.num_envs = num_envs
        self.copy = bool(copy)
        self._rng = np.random.default_rng(seed)
        self.seats = np.full(num_envs, max(self.fixed_seat, 0), np.int64)
        low, high = self.batch.observation_bounds
        self.single_observation_space = spaces.Box(
            low, high, self.batch.observation_shape, np.float32
        )
        self.single_action_space = spaces.Discrete(self.batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._index = np.arange(num_envs)
        self._rewards = np.zeros(num_envs, np.float32)
        self._terminations = np.zeros(num_envs, bool)
        self._truncations = np.zeros(num_envs, bool)
        self._ended = np.zeros(num_envs, bool)
        self._forfeits = np.zeros(num_envs, bool)
        self._actions = np.zeros(num_envs, np.int64)
        self._final_obs = np.zeros((num_envs, *self.batch.observation_shape), np.float32)
        self._before = np.zeros_like(self.batch.states) if self.final_observation else None

    @property
    def game(self) -> str:
        return self.batch.game

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.batch.reset(seed)
        for opponent in self.opponents:
            if isinstance(opponent, _AgentOpponent):
                opponent.agent.reset(None if seed is None else seed + 1)
        self._draw_seats(np.ones(self.num_envs, bool))
        self._clear()
        self._play_opponents()
        self._ended[:] = False
        return self._observations(), self._infos()

    def step(self, actions: Any):
        self._clear()
        self._ended[:] = False
        actions = self._check(actions)
        self._step_batch(actions)
        self._play_opponents()
        return (
            self._observations(), self._rewards.copy() if self.copy else self._rewards,
            self._terminations.copy() if self.copy else self._terminations,
            self._truncations.copy() if self.copy else self._truncations, self._infos(),
        )

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions per game (bool, num_envs x num_actions)."""
        return self.batch.action_mask

    # ----- internals ---------------------------------------------------------------------
    def _observations(self) -> np.ndarray:
        return self.batch.observations.copy() if self.copy else self.batch.observations

    def _check(self, actions: Any) -> np.ndarray:
        """The learner's actions as int64, after the checks of ``plies.envs.loop``; illegal
        ones are handled by the policy (raise, or mark the game as forfeited)."""
        if hasattr(actions, "detach"):  # a torch tensor
            actions = actions.detach().cpu().numpy()
        array = np.asarray(actions)
        if array.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers in range({self.batch.num_actions}), got dtype {array.dtype}")
        if array.shape != (self.num_envs,):
            raise ValueError(f"need {self.num_envs} actions, one per game, got shape {array.shape}")
        num_actions = self.batch.num_actions
        out_of_range = (array < 0) | (array >= num_actions)
        if out_of_range.any():
            game = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(
                f"action {int(array[game])} in game {game} is out of range: actions are 0..{num_actions - 1}"
            )
        legal = self.batch.action_mask[self._index, array]
        if legal.all():
            return array
        bad = np.flatnonzero(~legal)
        if self.illegal_action == "raise":
            game = int(bad[0])
            raise ValueError(
                f"action {int(array[game])} is illegal in game {game} (legal: "
                f"{np.flatnonzero(self.batch.action_mask[game]).tolist()}); nothing was played"
            )
        # a forfeit: play any legal action with the game at its length limit, so the batch
        # ends and restarts it in this step; the outcome is then overwritten as a loss
        array = array.astype(np.int64, copy=True)
        array[bad] = self.batch.legal_actions[bad, 0]
        self.batch.episode_lengths[bad] = self.batch.max_game_length - 1
        self._forfeits[bad] = True
        if self.final_observation:
            self._final_obs[bad] = self.batch.observations[bad]
        return array

    def _clear(self) -> None:
        self._rewards[:] = 0.0
        self._terminations[:] = False
        self._truncations[:] = False
        self._forfeits[:] = False

    def _draw_seats(self, games: np.ndarray) -> None:
        if self.fixed_seat < 0 and games.any():
            self.seats[games] = self._rng.integers(self.batch.num_players, size=int(games.sum()))

    def _step_batch(self, actions: np.ndarray) -> None:
        """One batch step; collect the learner's rewards and end flags, note the final
        observations, and draw seats for the games that restarted."""
        batch = self.batch
        if self.final_observation:
            np.copyto(self._before, batch.states)
            batch.clear_trace()
        batch.step(actions)
        ended = batch.terminations | batch.truncations
        if not ended.any():
            return
        forfeits = self._forfeits & ended
        self._rewards += np.where(forfeits, -1.0, batch.rewards[self._index, self.seats])
        self._terminations |= batch.terminations | forfeits
        self._truncations |= batch.truncations & ~forfeits
        if self.final_observation:
            for game in np.flatnonzero(ended & ~forfeits):
                self._final_obs[game] = self._last_position(int(game)).observation(int(self.seats[game]))
        self._ended |= ended
        self._forfeits &= ~ended
        self._draw_seats(ended)

    def _last_position(self, game: int):
        """The finished game's last position: its row before the step, replayed through the
        trace up to the restart."""
        state = self.batch.state_class(self._before[game].copy())
        for action in self.batch.trace(game):
            if action == TRACE_RESET:
                break
            state.apply_unchecked(action)
        return state

    def _play_opponents(self) -> None:
        batch = self.batch
        actions = self._actions
        while True:
            waiting = batch.current_player != self.seats
            if not waiting.any():
                return
            if len(self.opponents) == 1 and self.opponents[0] == "random":
                actions = batch.sample_actions().copy()
                actions[~waiting] = -1
            else:
                actions = self._actions
                actions[:] = -1
                players = batch.current_player
                rank = players - (players > self.seats)  # which opponent: seats in order, learner left out
                sampled = batch.sample_actions().copy() if "random" in self.opponents else None
                for k, opponent in enumerate(self.opponents):
                    games = waiting & (rank == k)
                    if not games.any():
                        continue
                    if opponent == "random":
                        actions[games] = sampled[games]
                    else:
                        actions[games] = opponent(batch, np.flatnonzero(games))
            self._step_batch(actions)

    def _infos(self) -> dict[str, np.ndarray]:
        infos = {"action_mask": self.batch.action_mask.copy() if self.copy else self.batch.action_mask,
                 "seat": self.seats.copy()}
        if self.final_observation and self._ended.any():
            infos["final_obs"] = self._final_obs.copy()
            infos["_final_obs"] = self._ended.copy()
        return infos

    def __repr__(self) -> str:
        return f"GymVectorEnv({self.batch.game!r}, num_envs={self.num_envs}, seat={self.fixed_seat})"


class _PolicyOpponent:
    """A batched policy playing the games it is asked about in one call."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def __call__(self, batch: VectorGame, games: np.ndarray) -> np.ndarray:
        chosen = self.policy(batch.observations[games], batch.action_mask[games])
        if hasattr(chosen, "detach"):
            chosen = chosen.detach().cpu().numpy()
        chosen = np.asarray(chosen)
        # one integer action a game: a float would be truncated, and -1 means "sits out" to the batch
        if chosen.dtype.kind not in "iu" or chosen.shape not in ((len(games),), (len(games), 1)):
            raise ValueError(f"an opponent policy returns one integer action for each of the {len(games)} games, "
                             f"not an array of shape {chosen.shape} and dtype {chosen.dtype}")
        chosen = chosen.astype(np.int64).reshape(-1)
        if (chosen < 0).any() or (chosen >= batch.num_actions).any():
            raise ValueError(f"an opponent policy's actions are 0..{batch.num_actions - 1}, got {chosen.tolist()}")
        return chosen


class _AgentOpponent:
    """A plies agent (from a spec) asked for each game in turn."""

    def __init__(self, spec: str, seed: int | None) -> None:
        from plies.agents.specs import make as make_agent

        self.agent = make_agent(spec, seed=seed)

    def __call__(self, batch: VectorGame, games: np.ndarray) -> np.ndarray:
        return np.array([self.agent.act(batch.game_state(int(g))) for g in games], np.int64)


def _controller(spec: Opponent, seed: int | None, k: int):
    if isinstance(spec, str):
        return "random" if spec == "random" else _AgentOpponent(spec, None if seed is None else seed + 1 + k)
    if callable(spec):
        return _PolicyOpponent(spec)
    raise TypeError(f"an opponent is 'random', an agent spec string or a batched policy callable, got {spec!r}")


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
