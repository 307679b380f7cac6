"""``VectorGame``: many games of one kind stepped together by one compiled call per step."""

from __future__ import annotations

from typing import Any

import numpy as np

from plies.games import batching as vk
from plies.games.game import Game
from plies.games.kernels import KernelRef, action_index
from plies.games.registry import get_game

PARALLEL_MIN_ENVS = 1024
"""``parallel=None`` steps over all cores (numba prange, chunks of 64 games) from this batch
size on, when numba has more than one thread. On an idle 2-core machine prange won at 1,024
games and above for every game and lost below (the former benchmarks/bench_vector.py); on a busy machine
the OpenMP threads can lose at every size: pass ``parallel=False`` there."""


class VectorGame:
    """``num_envs`` games of ``game``, stepped together (``plies.envs.vector.make``).

    All data lives in numpy arrays that ``step`` overwrites in place (copy what you keep):

    ``observations``   (num_envs, *observation_shape) float32, for the player to move
    ``rewards``        (num_envs, num_players) float32, the returns of games that just ended
    ``terminations``   (num_envs,) bool: the game ended in this step (and was reset)
    ``truncations``    (num_envs,) bool: the game hit ``max_game_length`` (and was reset)
    ``current_player`` (num_envs,) int64, the seat to move in each game
    ``action_mask``    (num_envs, num_actions) bool
    ``states``         (num_envs, state_size) int64, the games' state arrays (GameState layout)

    Chance nodes are resolved inside ``step`` from each game's own seeded generator, so after
    every step each game waits for a player. A finished game is replaced at once (its rewards
    and termination flag report the end; the observation is already the new game's).
    An action of -1 leaves that game as it is for the step.
    """

    def __init__(
        self,
        game: str | Game,
        num_envs: int,
        seed: int | None = 0,
        max_game_length: int | None = None,
        parallel: bool | None = None,
        trace: int = 0,
        **options: Any,
    ) -> None:
        num_envs = _count("num_envs", num_envs, 1)
        trace = _count("trace", trace, 0)
        if max_game_length is not None:
            max_game_length = _count("max_game_length", max_game_length, 1)
        declared = game if isinstance(game, Game) else get_game(game)
        self.declaration = declared
        self.game = declared.id
        self.num_envs = num_envs
        cls = declared.state_class
        self.state_class = cls
        seeds = np.random.SeedSequence(seed)
        setup_rng = np.random.default_rng(seeds.spawn(1)[0])
        initial = declared.batch_starts(declared, setup_rng, self.num_envs, options)
        self.initial_states = np.ascontiguousarray(initial, np.int64)
        probe = cls(self.initial_states[0].copy())
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.observation_shape = tuple(probe.observation_shape)
        self.observation_bounds = probe.observation_bounds
        self.max_game_length = int(max_game_length or probe.max_game_length)
        self.parallel = _auto_parallel(self.num_envs) if parallel is None else bool(parallel)

        n = self.num_envs
        width = max(probe.max_legal_actions, self.num_players, 1)
        self._observe = KernelRef(declared.observe, vk.OBSERVE_SIG)
        self._run = declared.batch_run
        self._trace_capacity = int(trace)
        size = self.initial_states.shape[1]
        obs_size = int(np.prod(self.observation_shape))
        arenas = _Arenas()
        ints = {  # name -> shape, in the order of the O_* slots of plies.games.batching
            "rng": (n,), "actions": (n,), "players": (n,), "counts": (n,), "lengths": (n,),
            "trace_len": (n,), "states": (n, size), "legal": (n, width),
            "undo": (n, max(1, declared.undo_size)), "initial": self.initial_states.shape,
            "trace": (n, self._trace_capacity), "starts": (n if trace else 0, size),
        }
        for name, shape in ints.items():
            arenas.add("ints", name, shape)
        arenas.add("f32", "obs", (n, obs_size))
        arenas.add("f32", "rewards", (n, self.num_players))
        arenas.add("f64", "probs", (n, width))
        arenas.add("flags", "terms", (n,))
        arenas.add("flags", "truncs", (n,))
        arenas.add("flags", "mask", (n, self.num_actions))
        self._ints, self._f32, self._f64, self._flags = arenas.build()
        header = self._ints
        header[: vk.H_MAX_LEN + 1] = (
            n, size, width, ints["undo"][1], len(self.initial_states), self._trace_capacity,
            obs_size, self.num_players, self.num_actions, self.max_game_length,
        )
        view = arenas.view
        for slot, name in enumerate(list(ints) + ["obs", "rewards", "probs", "terms", "truncs", "mask"]):
            header[vk.O_RNG + slot] = arenas.offsets[name]
        view("initial")[:] = self.initial_states
        self.initial_states = view("initial")
        self.states = view("states")
        self._obs_flat = view("obs")
        self.observations = self._obs_flat.reshape((n, *self.observation_shape))
        self.rewards = view("rewards")
        self.terminations = view("terms")
        self.truncations = view("truncs")
        self.current_player = view("players")
        self.action_mask = view("mask")
        self.legal_actions = view("legal")
        self.legal_counts = view("counts")
        self.episode_lengths = view("lengths")
        self._actions = view("actions")
        self._rng = view("rng").view(np.uint64)
        self._trace = view("trace")
        self._trace_len = view("trace_len")
        self._starts = view("starts")
        self._arenas = (self._ints, self._f32, self._f64, self._flags)
        self._step_mode = vk.MODE_STEP_PARALLEL if self.parallel else vk.MODE_STEP
        self._infos = {"current_player": self.current_player, "action_mask": self.action_mask}
        self._rng[:] = seeds.generate_state(n, np.uint64)
        self.reset()  # compiles (or loads) this game's entry
        # call the compiled entry points directly, skipping numba's type dispatch: the
        # arguments are always these same arrays, so one checked call is check enough
        self._run = _entry_point(self._run, vk.MODE_RESET, *self._arenas)
        self._sample = _entry_point(vk.sample_actions, self._ints)
        self.reset()

    # ----- the batch API ------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Start a new game everywhere (``seed`` restarts the generators; None keeps them)."""
        if seed is not None:
            self._rng[:] = np.random.SeedSequence(seed).generate_state(self.num_envs, np.uint64)
        self._trace_len[:] = 0
        self.rewards[:] = 0.0
        self.terminations[:] = False
        self.truncations[:] = False
        self._run(vk.MODE_RESET, *self._arenas)
        return self.observations, self.infos

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play one action per game (-1: that game sits out). Returns ``(observations,
        rewards, terminations, truncations, infos)``; infos holds ``current_player`` and
        ``action_mask``. All arrays are overwritten by the next call."""
        if actions is not self._actions:  # sample_actions() fills the buffer itself
            _copy_actions(actions, self._actions)
        actions = self._actions
        bad = self._run(self._step_mode, *self._arenas)
        if bad >= 0:
            legal = self.legal_actions[bad, : self.legal_counts[bad]].tolist()
            raise ValueError(
                f"action {int(actions[bad])} is illegal in game {bad} (player "
                f"{int(self.current_player[bad])} to move; legal: {legal}); nothing was played"
            )
        return self.observations, self.rewards, self.terminations, self.truncations, self._infos

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action per game, drawn in compiled code from each game's
        generator. The returned array is reused by the next call."""
        self._sample(self._ints)
        return self._actions

    @property
    def infos(self) -> dict[str, np.ndarray]:
        """``current_player`` and ``action_mask`` (the same dict and arrays every step)."""
        return self._infos

    def observe(self, seats: Any) -> np.ndarray:
        """Observations for the given seat of each game (one seat, or one per game)."""
        given = np.asarray(seats)
        if given.dtype == np.bool_ or not np.issubdtype(given.dtype, np.integer):
            raise TypeError(f"seats must be integers, got {given.dtype}")
        if given.size and (given.min() < 0 or given.max() >= self.num_players):
            raise ValueError(f"seats must lie in 0..{self.num_players - 1}, got {given.min()}..{given.max()}")
        seats = np.ascontiguousarray(np.broadcast_to(given.astype(np.int64), (self.num_envs,)))
        out = np.zeros_like(self._obs_flat)
        vk_compiled(vk.observe_all)(self._observe, self.states, seats, out)
        return out.reshape(self.observations.shape)

    def game_state(self, index: int):
        """Game ``index`` as a GameState (a copy: playing it does not touch the batch)."""
        return self.state_class(self.states[self._index(index)].copy())

    def _index(self, index: Any) -> int:
        index = action_index(index, "game index")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"game index {index} is outside 0..{self.num_envs - 1}")
        return index

    def _repr_svg_(self) -> str:
        """Jupyter shows a batch as its first game's position."""
        return self.game_state(0).svg()

    def as_torch(self) -> dict[str, Any]:
        """The batch's arrays as torch tensors sharing their memory (no copies): they show
        the current values after every ``step``."""
        try:
            import torch
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise ImportError('as_torch() needs torch: pip install "plies[nn]"') from error
        arrays = {
            "observations": self.observations,
            "rewards": self.rewards,
            "terminations": self.terminations,
            "truncations": self.truncations,
            "current_player": self.current_player,
            "action_mask": self.action_mask,
            "states": self.states,
        }
        return {name: torch.from_numpy(array) for name, array in arrays.items()}

    # ----- traces (tests, replays) ----------------------------------------------------------
    def trace(self, index: int) -> list[int]:
        """Everything played in game slot ``index`` since the last ``reset`` or ``clear_trace``
        (needs ``trace=capacity``): actions and chance outcomes, ``TRACE_RESET`` (-1) where a
        new game started from ``start_state(index)``."""
        if not self._trace_capacity:
            raise ValueError("this batch keeps no traces; make it with trace=<capacity>")
        index = self._index(index)
        n = int(self._trace_len[index])
        if n < 0:
            raise ValueError(f"the trace of game {index} overflowed its capacity {self._trace_capacity}")
        return self._trace[index, :n].tolist()

    def start_state(self, index: int) -> np.ndarray:
        """The state the current game in slot ``index`` started from (needs ``trace``)."""
        if not self._trace_capacity:
            raise ValueError("this batch keeps no start states; make it with trace=<capacity>")
        return self._starts[self._index(index)].copy()

    def clear_trace(self) -> None:
        self._trace_len[:] = 0

    def __repr__(self) -> str:
        return f"VectorGame({self.game!r}, num_envs={self.num_envs})"


class _Arenas:
    """Lays out named arrays in four flat arenas (see plies.games.batching)."""

    DTYPES = {"ints": np.int64, "f32": np.float32, "f64": np.float64, "flags": np.bool_}

    def __init__(self) -> None:
        self.sizes = {kind: 0 for kind in self.DTYPES}
        self.sizes["ints"] = vk.HEADER_SIZE
        self.offsets: dict[str, int] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.kinds: dict[str, str] = {}
        self.arrays: dict[str, np.ndarray] = {}

    def add(self, kind: str, name: str, shape: tuple[int, ...]) -> None:
        self.offsets[name] = self.sizes[kind]
        self.shapes[name] = tuple(int(d) for d in shape)
        self.kinds[name] = kind
        self.sizes[kind] += int(np.prod(shape))

    def build(self) -> tuple[np.ndarray, ...]:
        self.arrays = {kind: np.zeros(max(1, size), self.DTYPES[kind]) for kind, size in self.sizes.items()}
        return tuple(self.arrays[kind] for kind in self.DTYPES)

    def view(self, name: str) -> np.ndarray:
        start, shape = self.offsets[name], self.shapes[name]
        return self.arrays[self.kinds[name]][start : start + int(np.prod(shape))].reshape(shape)


def _entry_point(function, *args: Any):
    """The compiled entry point of ``function`` after one type-checked call with ``args``."""
    from plies.games.kernels import compiled

    checked = compiled(function)
    checked(*args)
    return checked.entry


def _count(name: str, value: Any, least: int) -> int:
    value = action_index(value, name)
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")
    return value


def _auto_parallel(num_envs: int) -> bool:
    import numba

    return num_envs >= PARALLEL_MIN_ENVS and numba.get_num_threads() > 1


def vk_compiled(function):
    from plies.games.kernels import compiled

    return compiled(function)


def _copy_actions(actions: Any, buffer: np.ndarray) -> None:
    if hasattr(actions, "detach"):  # a torch tensor
        actions = actions.detach().cpu().numpy()
    array = np.asarray(actions)
    if array.shape != buffer.shape:
        raise ValueError(f"need {buffer.shape[0]} actions, got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"actions must be integers, got {array.dtype}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        # it would wrap to a negative action, and -1 means "sits out"
        raise ValueError(f"action {int(array.max())} is out of range: actions are game actions, or -1 to sit out")
    buffer[:] = array
