"""The GameState base class: a position of a game, with the operations everyone uses.

A game's ``state.py`` subclasses it and declares ``GAME = Game(...)`` with the subclass; the
``Game`` binds itself to the class (``bind_game``), so a state reaches its rules through
``self.game``. This module sits above ``plies.games.kernels`` and ``plies.games.game``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from plies.games.drawing import rasterise
from plies.games.game import Game
from plies.games.kernels import (
    APPLY_SIG,
    CHANCE,
    LEGAL_SIG,
    RETURNS_SIG,
    STEP_SIG,
    TERMINAL,
    UNDO_SIG,
    action_index,
    draw_outcome,
)


class GameState:
    """A position of a game, with the operations agents, environments and training use.

    Subclasses implement the game-specific parts (construction, text in and out, action names,
    rendering); the game's ``Game`` declaration (``plies.games.game``) binds itself to the class
    as ``game``. Everything else is generic over the game's kernels.
    """

    game: ClassVar[Game]
    random_start: ClassVar[bool] = False
    """Whether ``initial`` draws the starting position from its ``rng`` (set for a class that
    defines its own ``initial``); ``Game.new_state`` makes a generator only for those."""
    __slots__ = ("_s", "_actions", "_undo_rows", "_shared", "_scratch", "_player", "_legal", "_width")
    # a subclass's own slots, which a clone takes as they are (clone() names the base's)
    _own_slots: ClassVar[tuple[str, ...]] = ()

    # the kernels, bound once per game class by ``bind_game``
    _legal_fn: ClassVar[Callable]
    _apply_fn: ClassVar[Callable]
    _undo_fn: ClassVar[Callable]
    _step_fn: ClassVar[Callable | None] = None
    _returns_fn: ClassVar[Callable]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = tuple(slot for klass in cls.__mro__[:-1] if klass is not GameState
                    for slot in klass.__dict__.get("__slots__", ()))
        cls._own_slots = own
        # states built by writing into the array must not keep a stale cache
        for name in ("from_string", "initial"):
            if name in cls.__dict__:
                cls._wrap_constructor(name)
        if "initial" in cls.__dict__:
            cls.random_start = True

    @classmethod
    def bind_game(cls, game: Game) -> None:
        """Called by ``Game`` once: the class plays this game from now on."""
        if "game" in cls.__dict__ and cls.__dict__["game"] is not game:
            raise ValueError(f"{cls.__name__} already plays {cls.__dict__['game'].id!r}")
        cls.game = game
        # the kernels' compiled entry points: GameState passes only its own arrays and checked
        # ints, so numba's per-call type dispatch (about 0.4 us of a 1 us step) is skipped
        cls._legal_fn = staticmethod(_entry(game.kernels.legal_actions, LEGAL_SIG))
        cls._apply_fn = staticmethod(_entry(game.kernels.apply_action, APPLY_SIG))
        cls._undo_fn = staticmethod(_entry(game.kernels.undo_action, UNDO_SIG))
        cls._returns_fn = staticmethod(_entry(game.kernels.returns, RETURNS_SIG))
        cls._step_fn = staticmethod(_entry(game.apply_and_list, STEP_SIG)) if game.apply_and_list else None

    @classmethod
    def _wrap_constructor(cls, name: str) -> None:
        original = cls.__dict__[name].__func__

        def build(klass, *args: Any, **kwargs: Any) -> GameState:
            state = original(klass, *args, **kwargs)
            state.refresh()
            # a position read from text is one the kernels can play from, as a user's array must be
            problem = klass.game.rows_problem(state._s[None]) if name == "from_string" else None
            if problem:
                raise ValueError(f"{problem} (from the position {args[0] if args else kwargs.get('text')!r})")
            return state

        build.__doc__ = original.__doc__
        build.__name__ = original.__name__
        setattr(cls, name, classmethod(build))

    def refresh(self) -> None:
        """Forget cached facts about the array (call after writing into ``array`` directly)."""
        self._player = None
        self._legal = None

    def __init__(self, array: np.ndarray) -> None:
        self._s = np.ascontiguousarray(array, dtype=np.int64)
        self._actions: list[int] = []
        self._undo_rows: list[np.ndarray] = []
        self._shared = 0  # undo rows below this index may be shared with clones: copy before writing
        self._width = self.max_legal_actions
        self._scratch: np.ndarray | None = None  # this state's own: states may step in several threads
        self._player: int | None = None  # cached state[0]
        self._legal: tuple[int, ...] | None = None  # cached legal actions

    @classmethod
    def _from_array(cls, array: np.ndarray) -> GameState:
        """A state over an array this package built and is still filling in (a position read
        from text): not checked, unlike a user's array given to the constructor."""
        state = cls.__new__(cls)
        GameState.__init__(state, array)
        for slot in cls._own_slots:
            setattr(state, slot, None)
        return state

    @classmethod
    def initial(cls, rng: np.random.Generator | None = None, **options: Any) -> GameState:
        """The starting position; games with a random set-up (maps) draw it from ``rng``."""
        return cls(**options)

    # ----- facts -------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        raise NotImplementedError

    @property
    def num_actions(self) -> int:
        """Size of the action space (actions are ints in ``range(num_actions)``)."""
        raise NotImplementedError

    @property
    def max_legal_actions(self) -> int:
        """Upper bound on the number of legal actions or chance outcomes at any state."""
        return self.num_actions

    @property
    def max_game_length(self) -> int:
        """Plies after which an environment truncates the game."""
        raise NotImplementedError

    @property
    def array(self) -> np.ndarray:
        """The raw state array (shared, not copied): for kernels and vectorised code."""
        return self._s

    # ----- the game tree -----------------------------------------------------------------
    @property
    def current_player(self) -> int:
        player = self._player
        if player is None:
            player = self._player = self._s.item(0)
        return player

    def is_terminal(self) -> bool:
        player = self._player
        if player is None:
            player = self._player = self._s.item(0)
        return player == TERMINAL

    def is_chance_node(self) -> bool:
        player = self._player
        if player is None:
            player = self._player = self._s.item(0)
        return player == CHANCE

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions (at a chance node: the outcomes) as a tuple of ints, distinct, in
        the game's order (ascending, except where a game lists likely-best moves first, as
        backgammon does for its searches). Made once per position and cached: a tuple, as
        OpenSpiel's list, because Python code picks from it and tests membership in it far
        faster than in an array (``legal_array()`` gives the int64 array)."""
        legal = self._legal
        if legal is None:
            buf = self._scratch
            if buf is None:
                buf = self._scratch = np.empty(max(1, self._width), np.int64)
            legal = self._legal = tuple(buf[: self._legal_fn(self._s, buf)].tolist())
        return legal

    def legal_array(self) -> np.ndarray:
        """The legal actions as a fresh int64 array (for numpy indexing and vectorised code)."""
        return np.array(self.legal_actions(), np.int64)

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, np.int8)
        mask[list(self.legal_actions())] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        return action_index(action) in self.legal_actions()

    def chance_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        """Outcome actions and their probabilities at a chance node."""
        if self._s[0] != CHANCE:
            raise ValueError("chance_outcomes() needs a chance node; this state is not one")
        outcomes = np.empty(max(1, self._width), np.int64)
        probs = np.empty(max(1, self._width), np.float64)
        n = self.game.kernels.chance_outcomes(self._s, outcomes, probs)
        return outcomes[:n], probs[:n]

    def apply(self, action: int) -> None:
        """Play ``action`` (a move, or a chance outcome at a chance node). Checked."""
        if type(action) is not int:
            action = action_index(action)
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            raise ValueError(self._illegal_message(action))
        self.apply_unchecked(action)

    def apply_unchecked(self, action: int) -> None:
        """Play ``action`` without the legality check, for callers that took it from
        ``legal_actions()`` themselves: an action that is not legal corrupts the state."""
        actions = self._actions
        n = len(actions)
        rows = self._undo_rows
        if n == len(rows):  # grow geometrically: short games allocate little
            rows.extend(np.zeros((max(8, n), max(1, self.game.undo_size)), np.int64))
        elif n < self._shared:  # the row may be a clone's too: write into a row of our own
            rows[n] = np.empty_like(rows[n])
        step = self._step_fn
        if step is None:
            self._apply_fn(self._s, action, rows[n])
            self._player = self._legal = None
        else:  # one compiled call applies the action and lists the next position's actions
            buf = self._scratch
            if buf is None:
                buf = self._scratch = np.empty(max(1, self._width), np.int64)
            code = step(self._s, action, rows[n], buf)
            self._player = (code & 15) - 4
            self._legal = tuple(buf[: code >> 4].tolist())
        actions.append(action)

    def undo(self) -> None:
        """Take back the last action."""
        if not self._actions:
            raise ValueError("undo() on a state with no actions to take back")
        action = self._actions.pop()
        self._undo_fn(self._s, action, self._undo_rows[len(self._actions)])
        self._player = self._legal = None

    @property
    def history(self) -> list[int]:
        """The actions played on this object since it was made (chance outcomes included)."""
        return list(self._actions)

    def returns(self) -> np.ndarray:
        """One float per seat: the final result at a terminal state, zeros before."""
        out = np.zeros(self.num_players, np.float64)
        if self.is_terminal():
            self._returns_fn(self._s, out)
        return out

    def clone(self) -> GameState:
        """An independent copy (its own history, which it can undo). The undo rows of the
        history are shared, copy on write, so a clone costs about as much as its array."""
        cls = type(self)
        other = cls.__new__(cls)
        other._scratch = None
        other._player = self._player
        other._legal = self._legal
        other._width = self._width
        for slot in cls._own_slots:
            setattr(other, slot, getattr(self, slot))
        other._s = self._s.copy()
        actions = self._actions
        n = len(actions)
        other._actions = actions.copy()
        other._undo_rows = self._undo_rows[:n]
        other._shared = n
        if n > self._shared:
            self._shared = n
        return other

    def __copy__(self) -> GameState:
        return self.clone()

    def __deepcopy__(self, memo: dict) -> GameState:
        return self.clone()

    def __getstate__(self) -> dict[str, Any]:
        state = {}
        for klass in type(self).__mro__:
            for slot in getattr(klass, "__slots__", ()):
                if slot not in ("_scratch", "_legal", "_player", "_width", "_shared") and hasattr(self, slot):
                    state[slot] = getattr(self, slot)
        state["_undo_rows"] = self._undo_rows[: len(self._actions)]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            setattr(self, key, value)
        self._undo_rows = [np.array(r, np.int64) for r in self._undo_rows]
        self._shared = 0
        self._width = self.max_legal_actions
        self._scratch = None
        self._player = self._legal = None

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and np.array_equal(self.encode(), other.encode())

    def __hash__(self) -> int:
        return self.hash()

    def encode(self) -> np.ndarray:
        """A compact int array that identifies the position (equal positions, equal arrays)."""
        return self._s.copy()

    def hash(self) -> int:
        return int(self.game.kernels.hash(self._s))

    def _illegal_message(self, action: int) -> str:
        if self.is_terminal():
            return f"action {action} is illegal: the game is over"
        legal = self.legal_actions()
        names = ", ".join(f"{a} ({self.action_to_string(int(a))})" for a in legal[:40])
        more = f" and {len(legal) - 40} more" if len(legal) > 40 else ""
        who = "chance" if self.is_chance_node() else f"player {self.current_player}"
        return f"action {action} is illegal for {who} here; legal actions: {names}{more}"

    def observation(self, seat: int) -> np.ndarray:
        """A float32 array of ``observation_shape`` describing the position from ``seat``'s
        point of view (the game's ``observe`` kernel; its docs page says what each entry is)."""
        seat = self.seat_in_range(seat)
        shape = self.observation_shape
        out = np.empty(int(np.prod(shape)), np.float32)
        self.game.observe(self._s, seat, out)
        return out.reshape(shape)

    # ----- game-specific parts -----------------------------------------------------------

    @property
    def observation_shape(self) -> tuple[int, ...]:
        raise NotImplementedError

    @property
    def value_bound(self) -> float:
        """The largest absolute return a game can have (backgammon with gammons: 3)."""
        return 1.0

    @property
    def observation_bounds(self) -> tuple[float, float]:
        """Lowest and highest value an observation entry can take (for the Box space)."""
        return (-np.inf, np.inf)

    def to_string(self) -> str:
        raise NotImplementedError

    @classmethod
    def from_string(cls, text: str, **options: Any) -> GameState:
        raise NotImplementedError

    def action_in_range(self, action: Any) -> int:
        """``action`` as a Python int if it lies in ``range(num_actions)``: what every
        ``action_to_string`` checks first, so that no game names an action it does not have.
        Not an integer: TypeError; out of range: ValueError saying the range."""
        value = action_index(action, "an action", f" in range({self.num_actions})")
        if not 0 <= value < self.num_actions:
            raise ValueError(f"{self.game.title} actions are 0..{self.num_actions - 1}, got {value}")
        return value

    def action_to_string(self, action: int) -> str:
        return str(self.action_in_range(action))

    def seat_in_range(self, seat: Any, what: str = "seat") -> int:
        """``seat`` as a Python int if it is a seat of this game: what every method that takes
        a seat (or player) checks before a kernel indexes with it. Not an integer: TypeError;
        no such seat: ValueError saying the seats."""
        value = action_index(seat, what)
        if not 0 <= value < self.num_players:
            raise ValueError(f"{what} {value} is not a seat of this {self.num_players}-player game "
                             f"(seats 0..{self.num_players - 1})")
        return value

    def string_to_action(self, text: str) -> int:
        text = text.strip()
        for action in self.legal_actions():
            if self.action_to_string(int(action)) == text:
                return int(action)
        if text.lstrip("-").isdigit() and self.is_legal(int(text)):
            return int(text)
        legal = ", ".join(self.action_to_string(int(a)) for a in self.legal_actions())
        raise ValueError(f"{text!r} is not a legal move here; legal moves: {legal}")

    def render_text(self) -> str:
        return self.to_string()

    def timeout_action(self) -> int | None:
        """What the rules do when the player to move runs out of time: an action to play for
        it (a game where the turn simply ends), or None: the player forfeits the game."""
        return None

    def svg(self, **options: Any) -> str:
        """The position as an SVG document, drawn by the game's declared ``draw`` function
        (options depend on the game, e.g. backgammon's ``viewer``)."""
        if self.game.draw is None:
            raise NotImplementedError(f"{self.game.id} declares no drawing")
        return self.game.draw(self, **options)

    def _repr_svg_(self) -> str:  # Jupyter shows states as their drawing
        return self.svg()

    def render_rgb(self) -> np.ndarray:
        """An RGB picture of the position (H x W x 3 uint8): ``svg()`` rasterised."""
        return rasterise(self.svg())

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_string({self.to_string()!r})"

    def __str__(self) -> str:
        return self.render_text()


def _entry(kernel: Callable, signature: Any) -> Callable:
    """The compiled entry point of a kernel declared with ``signature`` (the dispatcher itself
    for a kernel compiled without that signature, e.g. a pure-Python stand-in in a test)."""
    overloads = getattr(kernel, "overloads", {})
    if signature.args in overloads:
        return overloads[signature.args].entry_point
    return kernel


def sample_chance(state: GameState, rng: np.random.Generator) -> int:
    """Draw a chance outcome of ``state`` by its probability (one uniform draw from ``rng``;
    far cheaper than ``rng.choice(p=...)``, which matters where every die is a chance node)."""
    outcomes, probs = state.chance_outcomes()
    return int(draw_outcome(outcomes, probs, len(outcomes), rng.random()))


