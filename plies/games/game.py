"""The declared game: one ``Game`` object per game, the contract every other part reads.

A game is declared once, at the end of its ``state.py``, as ``GAME = Game(...)``: its id, its
GameState class, every compiled kernel by name, its static facts and the named slot schema of
its state array. Environments, searches, MCTS, the batched envs, training and tournaments take
this object (``plies.get_game(id)``) and nothing else; they never look a game up by module name
and never index its kernels by position. docs/adding_a_game.md walks through it.

This module builds on ``plies.games.kernels`` only. The GameState base class
(``plies.games.state``) and the id registry (``plies.games.registry``) build on it, never the
reverse: a Game pickles through the table of declared games kept here.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from plies.games import drawing
from plies.games.kernels import Heuristic, Kernels

_DECLARED: dict[str, Game] = {}
"""Game id -> the first Game declared with it in this process (what an unpickled Game becomes)."""


def declared_game(game_id: str, module: str) -> Game:
    """The Game declared as ``game_id`` once ``module`` (its state class's module) is imported:
    how a pickled Game comes back as the very object of the process that loads it."""
    if game_id not in _DECLARED:
        importlib.import_module(module)
    return _DECLARED[game_id]


@dataclass(frozen=True)
class Slot:
    """A named run of entries of a game's state array.

    ``size`` is a number, or for layouts that depend on the game's options a short formula in
    the names the game's docs define (``"n"``, ``"3n"``); only slots before the first such slot
    have fixed offsets."""

    name: str
    size: int | str = 1
    meaning: str = ""


class SlotSchema:
    """The layout of a game's ``int64`` state array: slots in order, offsets derived from sizes.

    ``offset(name)`` gives the constants the kernels use (``MOVES = SCHEMA.offset("moves")``),
    and ``table()`` the Markdown layout table of the game's docs page, so both come from one
    declaration. Slot 0 is always ``player``: the seat to move, ``CHANCE`` or ``TERMINAL``."""

    def __init__(self, *slots: Slot) -> None:
        if not slots or slots[0].name != "player" or slots[0].size != 1:
            raise ValueError("a slot schema starts with the one-entry slot 'player'")
        names = [s.name for s in slots]
        if len(set(names)) != len(names):
            raise ValueError(f"slot names repeat: {names}")
        self.slots = tuple(slots)
        self._offsets: dict[str, int] = {}
        position: int | None = 0
        for slot in slots:
            if position is not None:
                self._offsets[slot.name] = position
            position = position + slot.size if position is not None and isinstance(slot.size, int) else None
        self._fixed_size = position

    def offset(self, name: str) -> int:
        if name not in self._offsets:
            known = ", ".join(self._offsets)
            raise KeyError(f"no fixed-offset slot {name!r}; slots with fixed offsets: {known}")
        return self._offsets[name]

    def offsets(self, *names: str) -> tuple[int, ...]:
        return tuple(self.offset(n) for n in names)

    @property
    def size(self) -> int | None:
        """Entries of the whole array, or None when a slot's size depends on options."""
        return self._fixed_size

    @property
    def fixed_prefix(self) -> int:
        """Entries before the first slot whose size depends on options (all of them when none
        does): the least a state array holds."""
        position = 0
        for slot in self.slots:
            if not isinstance(slot.size, int):
                break
            position += slot.size
        return position

    def table(self) -> str:
        """The layout as a Markdown table (index, slot, entries, meaning)."""
        rows = ["| index | slot | entries | meaning |", "|---|---|---|---|"]
        for slot in self.slots:
            where = self._offsets.get(slot.name)
            index = "after the above" if where is None else str(where)
            rows.append(f"| {index} | `{slot.name}` | {slot.size} | {slot.meaning} |")
        return "\n".join(rows)


def _starting_row(game: Game, rng: np.random.Generator, count: int, options: dict[str, Any]) -> np.ndarray:
    """Batch start rows: the one starting position (games with a random set-up override)."""
    return game.state_class.initial(rng, **options).array.copy()[None, :]


_STARTS: dict[Game, Any] = {}
"""The one start of each game without random set-ups (``Game.new_state`` clones it)."""


@dataclass(frozen=True, eq=False)
class Game:
    """Everything generic code may know about a game.

    Kernels (numba, with the signatures of ``plies.games.kernels``):
    ``kernels``: legal_actions, apply_action, undo_action, returns, hash, chance_outcomes (the
    bundle every search takes); ``apply_and_list``: apply then list the legal actions;
    ``observe``: a seat's observation; ``afterstates``: end-of-turn positions (dice games);
    ``canonical_hash``: one key for symmetric positions; ``encode``: a batch of state arrays
    as a value network's input (compiled, batched; the game's ``features.py``); ``features_into``:
    the same inputs of one position, compiled (``value_kernels.FEATURES_SIG``), which MCTS feeds
    a policy network (``mcts:policy=``); ``net_value``: an
    ``EVAL_SIG`` kernel scoring a position with a small network whose weights are its parameters
    (``plies.games.value_kernels``; games without chance, where it gives every search
    ``eval=net`` and ``plies train GAME``); ``net_kernels``: compiled forms of the game's torch
    networks by architecture (``value_kernels.NetKernel``), which MCTS scores leaves with one by
    one (expectiminimax keeps the batched torch forward pass); ``batch_run``: the batched-env entry
    (``plies.games.batching.run_batch`` bound to these kernels in the game's rules module, so
    numba compiles it once per game and caches it on disk). ``trainer``: ``"module:NAME"``,
    the training engine's recipe for this game (a ``plies.training.engine.Recipe``, imported
    only by ``plies train``), for games whose rounds the engine's own recipe cannot play
    (chance, more than two seats); empty: the engine's ``SelfPlayRecipe``.

    Static facts: ``num_players`` (the default; games with a player option say so in
    ``options``), ``num_actions``, ``undo_size``, ``has_chance``, ``zero_sum``, ``schema``.
    ``draw(state, **options) -> str``: the game's SVG drawing (``plies.games.drawing`` helps),
    which ``GameState.svg()``, ``render_rgb()``, Jupyter and the web app show.
    ``batch_starts(game, rng, count, options)`` gives a batch its start rows (games with random
    set-ups draw several); the batch resets a finished game from its slot's row, then calls the
    rules' reset hook compiled into ``batch_run`` (Dice Wars deals its areas there).

    For people (``plies play``, ``plies serve``), each with a generic default:
    ``seat_names``: how the game's own text names its seats (``("X", "O")``; default ``seat 0``,
    ``seat 1``, ...; see ``seat_name``). ``default_opponent``: the agent spec a new game offers
    against a person; ``hint_agent``: the agent asked for a hint (both default to
    ``expectiminimax:depth=1`` in games with chance and ``alphabeta:depth=4`` otherwise).
    ``player_range``: the seat counts the game takes (min, max; default ``num_players`` only);
    where it is a range, the ``num_players`` option follows the number of seats given.
    ``click(state, selected, value) -> drawing.Click``: what a click on the drawing's part
    ``value`` means with piece ``selected`` picked (default: the drawing takes no clicks; raise
    ``drawing.ClickError`` for a click that is no move). ``view_options(state, selected, viewer,
    moves) -> dict``: the ``draw`` options a person's view uses (the picked piece and where it
    can go, the side to draw from, the last move); ``moves`` are the players' actions so far,
    chance outcomes left out. ``move_text(state, action, viewer) -> str``: a move named for a
    person at seat ``viewer`` (default: ``action_to_string``). ``board_text(state, viewer) -> str``:
    the position as text for a person at ``viewer`` (default: ``render_text``).
    ``plays_in_text``: whether a person can play it by typing moves (False: only in the browser).
    ``check_rows(states) -> str | None``: why a batch of raw state arrays holds values the
    game's kernels would index out of bounds with (None if it does not); ``rows_problem`` and
    ``checked_rows`` add the shape checks, and every public function that takes raw state arrays
    (``encode``, the evaluators) calls them.
    """

    id: str
    title: str
    state_class: type  # a plies.games.state.GameState subclass (that module builds on this one)
    kernels: Kernels
    observe: Callable
    batch_run: Callable
    schema: SlotSchema
    num_players: int
    num_actions: int
    undo_size: int
    options: tuple[str, ...] = ()
    has_chance: bool = False
    zero_sum: bool = True
    heuristics: dict[str, Heuristic] = field(default_factory=dict)
    default_heuristic: str = ""
    apply_and_list: Callable | None = None
    afterstates: Callable | None = None
    max_afterstates: int = 4096
    canonical_hash: Callable | None = None
    encode: Callable[..., Any] | None = None
    features_into: Callable | None = None
    net_value: Callable | None = None
    net_kernels: dict[str, Any] = field(default_factory=dict)
    trainer: str = ""
    batch_starts: Callable[..., np.ndarray] = _starting_row
    draw: Callable[..., str] | None = None
    docs: str = ""
    seat_names: tuple[str, ...] = ()
    default_opponent: str = ""
    hint_agent: str = ""
    player_range: tuple[int, int] | None = None
    click: Callable[..., drawing.Click] = drawing.no_clicks
    view_options: Callable[..., dict[str, Any]] = drawing.no_view_options
    move_text: Callable[..., str] = drawing.action_text
    board_text: Callable[..., str] = drawing.board_text
    plays_in_text: bool = True
    check_rows: Callable[[np.ndarray], str | None] | None = None

    def rows_problem(self, states: np.ndarray) -> str | None:
        """Why a batch of raw state arrays (from a user, a file) is not one this game's kernels
        may read, or None: a 2-d integer batch, rows of the schema's size where it is fixed, and
        whatever the game's own ``check_rows`` asks of the values its kernels index with."""
        if states.ndim != 2 or states.dtype.kind not in "iu":
            return f"{self.title} states are a 2-d batch of integer rows, not shape {states.shape} of {states.dtype}"
        size = self.schema.size
        if size is not None and states.shape[1] != size:
            return f"{self.title} states have {size} entries a row, not {states.shape[1]}"
        if states.shape[1] < self.schema.fixed_prefix:
            return f"{self.title} states have at least {self.schema.fixed_prefix} entries a row, not {states.shape[1]}"
        return self.check_rows(states) if self.check_rows is not None and len(states) else None

    def checked_rows(self, states: Any) -> np.ndarray:
        """``states`` as a contiguous int64 batch, or a ValueError saying what is wrong with it."""
        rows = np.asarray(states)
        problem = self.rows_problem(rows)
        if problem:
            raise ValueError(problem)
        return np.ascontiguousarray(rows, np.int64)

    def checked_state(self, array: Any) -> np.ndarray:
        """One raw state array (a ``GameState`` built from a user's array) as contiguous int64,
        or a ValueError saying what is wrong with it (``rows_problem`` of it as a batch of one)."""
        row = np.asarray(array)
        if row.ndim != 1:
            raise ValueError(f"a {self.title} state array is 1-d, not shape {row.shape}")
        return self.checked_rows(row[None])[0]

    def __post_init__(self) -> None:
        if self.default_heuristic and self.default_heuristic not in self.heuristics:
            raise ValueError(f"{self.id}: default heuristic {self.default_heuristic!r} is not declared")
        search = "expectiminimax:depth=1" if self.has_chance else "alphabeta:depth=4"
        # frozen: the derived defaults are set once here
        if not self.default_opponent:
            object.__setattr__(self, "default_opponent", search)
        if not self.hint_agent:
            object.__setattr__(self, "hint_agent", search)
        if self.player_range is None:
            object.__setattr__(self, "player_range", (self.num_players, self.num_players))
        low, high = self.player_range
        if not 1 <= low <= self.num_players <= high:
            raise ValueError(f"{self.id}: player_range {self.player_range} must hold num_players={self.num_players}")
        if self.trainer and not re.fullmatch(r"[\w.]+:\w+", self.trainer):
            raise ValueError(f"{self.id}: trainer {self.trainer!r} must be 'module:NAME' (a training recipe)")
        self.state_class.bind_game(self)
        _DECLARED.setdefault(self.id, self)

    def seat_name(self, seat: int) -> str:
        """How the game's text names ``seat`` (``X``), or ``seat 2`` where it declares no names."""
        return self.seat_names[seat] if 0 <= seat < len(self.seat_names) else f"seat {seat}"

    def default_seats(self) -> list[str]:
        """The seats a new game offers: a person against ``default_opponent`` in the other seats."""
        return ["human"] + [self.default_opponent] * (self.num_players - 1)

    def seat_options(self, seats: int, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` with ``num_players`` set to the number of seats given, for games that take
        a range of players and were not told how many."""
        low, high = self.player_range or (self.num_players, self.num_players)
        if low != high and "num_players" in self.options and "num_players" not in options:
            return {**options, "num_players": seats}
        return dict(options)

    def new_state(self, seed: int | None = None, **options: Any) -> Any:
        """A starting position (random set-ups drawn from ``seed``). A game whose start is always
        the same (its state class does not define ``initial``) gets a clone of one start made
        once, its legal actions listed: cheaper than building it, which matters to playouts of
        small games."""
        cls = self.state_class
        if cls.random_start:
            return cls.initial(np.random.default_rng(seed), **options)
        if options:
            return cls.initial(None, **options)
        start = _STARTS.get(self)
        if start is None:
            start = _STARTS[self] = cls.initial(None)
            start.legal_actions()
        return start.clone()

    def from_string(self, text: str, **options: Any) -> Any:
        return self.state_class.from_string(text, **options)

    def __repr__(self) -> str:
        return f"<Game {self.id}>"

    def __reduce__(self) -> tuple:
        # pickled as its id: a worker process finds the same declared object
        return (declared_game, (self.id, self.state_class.__module__))
