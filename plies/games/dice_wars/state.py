"""The Dice Wars GameState."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from plies.files import DamagedFileError
from plies.games import batching
from plies.games.dice_wars import drawing, features, rules
from plies.games.dice_wars.maps import (
    DEFAULT_AREAS,
    DEFAULT_COLS,
    DEFAULT_MAP_GENERATOR,
    DEFAULT_ROWS,
    MAP_GENERATORS,
    DiceWarsMap,
    generate_map,
    map_from_adjacency,
)
from plies.games.game import Game
from plies.games.kernels import CHANCE, TERMINAL, Heuristic, action_index, check_options
from plies.games.options import option_int
from plies.games.state import GameState
from plies.games.value_kernels import NetKernel

WIN_PROB_PARAM_NAMES = ("bias", "region", "dice")
# Fallback coefficients (bias, log region, log dice) used when the fitted weights are missing.
WIN_PROB_FILE = Path(__file__).parent / "data" / "win_prob.json"
"""The shipped coefficients of the win-probability model (``dice_wars_bots --fit`` writes them)."""


def load_win_prob_coefficients(path: Path = WIN_PROB_FILE) -> dict[str, float]:
    """The model's coefficients by name; a missing, damaged or wrong file is a DamagedFileError
    naming it (never silently replaced by other numbers)."""
    try:
        data = json.loads(Path(path).read_text())
        values = {k: float(data["coefficients"][k]) for k in WIN_PROB_PARAM_NAMES}
    except (OSError, KeyError, TypeError, ValueError) as err:
        raise DamagedFileError(f"{path} does not hold the win-probability coefficients "
                               f"{', '.join(WIN_PROB_PARAM_NAMES)} ({type(err).__name__}: {err}); "
                               "reinstall plies or refit them") from None
    if not all(math.isfinite(v) for v in values.values()):
        raise DamagedFileError(f"{path}: the win-probability coefficients must be finite numbers, got {values}")
    return values


MAX_AREAS = 256
MAX_GRID_SIDE = 128
OPTIONS = ("num_players", "num_areas", "rows", "cols", "adjacency", "map_generator")

class DiceWarsState(GameState):
    """Dice Wars for 2-8 players on a map of areas.

    Actions: ``source * num_areas + target`` attacks, ``num_areas ** 2`` ends the turn.
    Battles and every reinforcement die are chance nodes (see rules.py).
    """

    __slots__ = ("_cells",)

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("dice_wars", options, OPTIONS)
        if array is None:
            made = type(self).initial(np.random.default_rng(0), **options)
            array, cells = made._s, made._cells
        else:
            array, cells = self.game.checked_state(array), None
        super().__init__(array)
        self._cells = cells

    @classmethod
    def initial(
        cls,
        rng: np.random.Generator | None = None,
        num_players: int = 4,
        num_areas: int = DEFAULT_AREAS,
        rows: int = DEFAULT_ROWS,
        cols: int = DEFAULT_COLS,
        adjacency: Sequence[Sequence[int]] | dict[int, Sequence[int]] | None = None,
        map_generator: str | None = None,
        **unknown: Any,
    ) -> DiceWarsState:
        """A new game: the map (grown on the hex grid by ``map_generator``, ``"course"`` by
        default or ``"plies"``, or given as ``adjacency``) and the dealing are drawn from
        ``rng``. Seats take a random free area in turn, starting with seat 0, which also moves
        first; every area starts with 3 dice."""
        check_options("dice_wars", unknown, OPTIONS)
        if map_generator is not None and (
            not isinstance(map_generator, str) or map_generator not in MAP_GENERATORS
        ):
            raise ValueError(
                f"map_generator={map_generator!r}: the generators are {', '.join(MAP_GENERATORS)}"
            )
        if map_generator is not None and adjacency is not None:
            raise ValueError("give either adjacency (a fixed map) or map_generator, not both")
        rng = np.random.default_rng() if rng is None else rng
        num_players = option_int("dice_wars", "num_players", num_players, 2, rules.MAX_PLAYERS)
        # bounded so that one request to `plies serve` cannot ask for a map that takes the
        # machine's memory or minutes to grow
        num_areas = option_int("dice_wars", "num_areas", num_areas, 1, MAX_AREAS)
        rows = option_int("dice_wars", "rows", rows, 1, MAX_GRID_SIDE)
        cols = option_int("dice_wars", "cols", cols, 1, MAX_GRID_SIDE)
        if adjacency is not None:
            if hasattr(adjacency, "__len__") and len(adjacency) > MAX_AREAS:
                raise ValueError(f"option adjacency of dice_wars names at most {MAX_AREAS} areas, not {len(adjacency)}")
            game_map = map_from_adjacency(adjacency)
        else:
            game_map = generate_map(
                rng, int(num_areas), int(rows), int(cols), map_generator or DEFAULT_MAP_GENERATOR
            )
        return cls.from_map(game_map, int(num_players), rng)

    @classmethod
    def from_map(
        cls, game_map: DiceWarsMap, num_players: int, rng: np.random.Generator
    ) -> DiceWarsState:
        """Deal ``game_map`` to ``num_players`` seats at random (seat 0 first)."""
        n = game_map.num_areas
        if n < num_players:
            raise ValueError(f"{n} areas cannot be dealt to {num_players} players")
        owners = np.zeros(n, np.int64)
        free = list(range(n))
        seat = 0
        while free:
            owners[free.pop(int(rng.integers(len(free))))] = seat
            seat = (seat + 1) % num_players
        dice = np.full(n, rules.START_DICE, np.int64)
        state = cls(rules.build_array(game_map.adjacency, owners, dice, num_players))
        state._cells = game_map.cells
        return state

    # ----- facts ---------------------------------------------------------------------------
    @property
    def num_players(self) -> int:  # type: ignore[override]
        return int(self._s[rules.NUM_PLAYERS])

    @property
    def num_areas(self) -> int:
        return int(self._s[rules.NUM_AREAS])

    @property
    def num_actions(self) -> int:  # type: ignore[override]
        return self.num_areas**2 + 1

    @property
    def end_turn_action(self) -> int:
        return self.num_areas**2

    def timeout_action(self) -> int | None:
        """A player out of time has its turn ended for it (the course framework's rule)."""
        return self.end_turn_action

    @property
    def max_legal_actions(self) -> int:  # type: ignore[override]
        return max(self.num_areas * int(self._s[rules.MAX_DEGREE]) + 1, self.num_areas, 2)

    @property
    def max_game_length(self) -> int:  # type: ignore[override]
        return 200_000

    @property
    def owners(self) -> np.ndarray:
        n = self.num_areas
        return self._s[rules.AREAS : rules.AREAS + n].copy()

    @property
    def dice(self) -> np.ndarray:
        n = self.num_areas
        return self._s[rules.AREAS + n : rules.AREAS + 2 * n].copy()

    @property
    def adjacency(self) -> tuple[tuple[int, ...], ...]:
        n, width = self.num_areas, int(self._s[rules.MAX_DEGREE])
        deg = self._s[rules.AREAS + 2 * n : rules.AREAS + 3 * n]
        adj = self._s[rules.AREAS + 3 * n :].reshape(n, width)
        return tuple(tuple(int(b) for b in adj[a, : deg[a]]) for a in range(n))

    @property
    def cells(self) -> np.ndarray | None:
        """The hex grid of area ids (-1 water), or None for a map given as adjacency."""
        return self._cells

    @property
    def reserves(self) -> np.ndarray:
        return self._s[rules.RESERVE : rules.RESERVE + self.num_players].copy()

    @property
    def turn_player(self) -> int:
        """The seat whose turn it is (also at the chance nodes inside that turn)."""
        return int(self._s[rules.TURN])

    @property
    def phase(self) -> str:
        return ("move", "battle", "reinforce", "over")[int(self._s[rules.PHASE])]

    @property
    def attacks_this_turn(self) -> int:
        return int(self._s[rules.ATTACKS])

    @property
    def battles(self) -> int:
        return int(self._s[rules.BATTLES])

    @property
    def winner(self) -> int | None:
        """The winning seat, or None (game running or cancelled)."""
        result = int(self._s[rules.RESULT])
        return result if result >= 0 else None

    @property
    def cancelled(self) -> bool:
        return int(self._s[rules.RESULT]) == rules.CANCELLED

    def largest_region(self, player: int) -> int:
        return int(rules.largest_region(self._s, self.seat_in_range(player, "player")))

    def total_dice(self, player: int) -> int:
        return int(rules.total_dice(self._s, self.seat_in_range(player, "player")))

    def area_count(self, player: int) -> int:
        return int(rules.area_count(self._s, self.seat_in_range(player, "player")))

    def alive_players(self) -> list[int]:
        owners = self.owners
        return [p for p in range(self.num_players) if np.any(owners == p)]

    def attack_action(self, source: int, target: int) -> int:
        """The action of an attack from area ``source`` on area ``target`` (legal or not: see
        ``is_legal``); areas are 0..num_areas-1."""
        n = self.num_areas
        source, target = action_index(source, "an area"), action_index(target, "an area")
        if not (0 <= source < n and 0 <= target < n):
            raise ValueError(f"areas are 0..{n - 1}, got {source} and {target}")
        return source * n + target

    # ----- learning ------------------------------------------------------------------------
    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.num_areas, self.num_players + 1 + self.num_areas)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)  # one-hots, adjacency and dice / MAX_DICE

    # ----- text ----------------------------------------------------------------------------
    def to_string(self) -> str:
        s = self._s
        phase = int(s[rules.PHASE])
        if phase == rules.PHASE_BATTLE:
            phase_text = f"battle:{int(s[rules.SOURCE])}>{int(s[rules.TARGET])}"
        elif phase == rules.PHASE_REINFORCE:
            phase_text = f"reinforce:{int(s[rules.TO_PLACE])}"
        elif phase == rules.PHASE_OVER:
            phase_text = "over:cancelled" if self.cancelled else f"over:{self.winner}"
        else:
            phase_text = "move"
        fields = [
            f"players={self.num_players}",
            f"turn={self.turn_player}",
            f"phase={phase_text}",
            "reserve=" + ",".join(str(int(r)) for r in self.reserves),
            f"battles={int(s[rules.BATTLES])}",
            f"passes={int(s[rules.PASSES])}",
            f"attacks={int(s[rules.ATTACKS])}",
            f"turns={int(s[rules.TURNS])}",
            "areas=" + ",".join(f"{o}:{d}" for o, d in zip(self.owners, self.dice)),
            "adjacency=" + "/".join(",".join(map(str, a)) for a in self.adjacency),
        ]
        return " ".join(fields)

    @classmethod
    def from_string(cls, text: str, **options: Any) -> DiceWarsState:
        """Parse ``to_string``'s format: space-separated ``key=value`` fields

        ``players=4 turn=0 phase=move areas=0:3,1:3,... adjacency=1,2/0/0`` (required) and
        optionally ``reserve=r0,r1,..`` ``battles=`` ``passes=`` ``attacks=`` ``turns=``.
        ``areas`` lists owner:dice per area; ``adjacency`` the neighbours of each area,
        areas separated by ``/``. ``phase`` is move, battle:S>T, reinforce:N, over:SEAT or
        over:cancelled."""
        check_options("dice_wars", options, ())
        allowed = ("players", "turn", "phase", "reserve", "battles", "passes", "attacks",
                   "turns", "areas", "adjacency")
        fields: dict[str, str] = {}
        for item in text.split():
            key, eq, value = item.partition("=")
            if not eq or key not in allowed:
                raise ValueError(
                    f"malformed Dice Wars position: field {item!r} is not key=value with a key "
                    f"from {', '.join(allowed)}"
                )
            fields[key] = value
        missing = [k for k in ("players", "turn", "areas", "adjacency") if k not in fields]
        if missing:
            raise ValueError(f"malformed Dice Wars position: missing {', '.join(missing)}")
        try:
            players = int(fields["players"])
            turn = int(fields["turn"])
            pairs = [p.split(":") for p in fields["areas"].split(",")]
            owners = np.array([int(o) for o, _ in pairs], np.int64)
            dice = np.array([int(d) for _, d in pairs], np.int64)
            adjacency = [[int(b) for b in a.split(",") if b] for a in fields["adjacency"].split("/")]
            reserve = [int(r) for r in fields.get("reserve", "").split(",") if r]
        except (ValueError, OverflowError) as err:
            raise ValueError(
                f"malformed Dice Wars position ({err}): players/turn are integers, areas is "
                "owner:dice,..., adjacency is neighbours separated by ',' and areas by '/'"
            ) from None
        if not 2 <= players <= rules.MAX_PLAYERS:
            raise ValueError(f"players={players}: Dice Wars takes 2 to 8 players")
        if len(adjacency) != len(owners):
            raise ValueError(
                f"areas lists {len(owners)} areas but adjacency lists {len(adjacency)}"
            )
        if np.any((owners < 0) | (owners >= players)):
            raise ValueError(f"area owners must be seats 0 to {players - 1}")
        if np.any((dice < 1) | (dice > rules.MAX_DICE)):
            raise ValueError(f"dice per area must be 1 to {rules.MAX_DICE}")
        if not 0 <= turn < players:
            raise ValueError(f"turn={turn}: seats are 0 to {players - 1}")
        game_map = map_from_adjacency(adjacency)
        s = rules.build_array(game_map.adjacency, owners, dice, players, turn)
        if reserve:
            if len(reserve) != players or min(reserve) < 0 or max(reserve) > rules.MAX_RESERVE:
                raise ValueError(f"reserve needs {players} values from 0 to {rules.MAX_RESERVE}")
            s[rules.RESERVE : rules.RESERVE + players] = reserve
        for key, slot in (("battles", rules.BATTLES), ("passes", rules.PASSES),
                          ("attacks", rules.ATTACKS), ("turns", rules.TURNS)):
            if key in fields:
                value = fields[key]
                if not (value.isascii() and value.isdigit() and int(value) < 10**9):
                    raise ValueError(f"{key}={value!r} must be an integer from 0 to 999999999")
                s[slot] = int(value)
        cls._parse_phase(s, fields.get("phase", "move"), len(owners))
        state = cls(s)
        state._check_possible(text)
        return state

    def _check_possible(self, text: str) -> None:
        """Refuses positions no game reaches: a running game with one owner of every area or a
        seat to move that owns nothing, a winner who does not own the map, a chance node with
        no outcomes or a turn with no moves."""
        s = self._s
        owners = set(self.owners.tolist())
        turn = int(s[rules.TURN])
        if s[rules.PHASE] == rules.PHASE_OVER:
            result = int(s[rules.RESULT])
            if result != rules.CANCELLED and (not 0 <= result < self.num_players or owners != {result}):
                raise ValueError(f"impossible Dice Wars position {text!r}: over:{result} needs seat "
                                 f"{result} to own every area (owners: {sorted(owners)})")
            return
        if len(owners) == 1:
            raise ValueError(f"impossible Dice Wars position {text!r}: seat {owners.pop()} owns every "
                             "area, so the game is over (phase=over:SEAT)")
        if turn not in owners:
            raise ValueError(f"impossible Dice Wars position {text!r}: seat {turn} is to move but "
                             "owns no area")
        if self.is_chance_node():
            if len(self.chance_outcomes()[0]) == 0:
                raise ValueError(f"impossible Dice Wars position {text!r}: the chance node "
                                 f"({self.phase}) has no outcomes")
        elif len(self.legal_actions()) == 0:
            raise ValueError(f"impossible Dice Wars position {text!r}: seat {turn} has no move")

    @staticmethod
    def _parse_phase(s: np.ndarray, text: str, n: int) -> None:
        kind, _, arg = text.partition(":")
        turn = int(s[rules.TURN])
        try:
            if kind == "move" and not arg:
                return
            if kind == "battle":
                src, tgt = (int(x) for x in arg.split(">"))
                if not (0 <= src < n and 0 <= tgt < n and tgt in _neighbours(s, src)
                        and s[rules.AREAS + src] == turn and s[rules.AREAS + tgt] != turn
                        and s[rules.AREAS + n + src] >= 2):
                    raise ValueError
                s[rules.PHASE], s[rules.SOURCE], s[rules.TARGET] = rules.PHASE_BATTLE, src, tgt
                s[rules.TO_MOVE] = CHANCE
                return
            if kind == "reinforce":
                s[rules.PHASE], s[rules.TO_PLACE] = rules.PHASE_REINFORCE, int(arg)
                if not 1 <= int(arg) <= rules.MAX_RESERVE:
                    raise ValueError
                s[rules.TO_MOVE] = CHANCE
                return
            if kind == "over":
                result = rules.CANCELLED if arg == "cancelled" else int(arg)
                s[rules.PHASE], s[rules.RESULT], s[rules.TO_MOVE] = (
                    rules.PHASE_OVER, result, TERMINAL)
                return
        except ValueError:
            pass
        raise ValueError(
            f"phase={text!r} is not valid here; phases: move, battle:S>T (an attack of the "
            "player to move), reinforce:N (1-64 dice), over:SEAT or over:cancelled"
        )

    def action_to_string(self, action: int) -> str:
        action = self.action_in_range(action)
        n = self.num_areas
        phase = int(self._s[rules.PHASE])
        if phase == rules.PHASE_BATTLE:
            return "won" if action == rules.WON else "lost"
        if phase == rules.PHASE_REINFORCE:
            return f"+{action}"
        if action == n * n:
            return "end"
        return f"{action // n}->{action % n}"

    def render_text(self) -> str:
        lines = []
        for a, (o, d, neigh) in enumerate(zip(self.owners, self.dice, self.adjacency)):
            lines.append(f"area {a:2d}: seat {o} {'#' * int(d):8s} {d}  touches {list(neigh)}")
        if self.is_terminal():
            status = "cancelled" if self.cancelled else f"seat {self.winner} wins"
        elif self.is_chance_node():
            status = f"seat {self.turn_player}: {self.phase} (chance)"
        else:
            status = f"seat {self.turn_player} to move"
        reserves = ", ".join(f"{p}:{int(r)}" for p, r in enumerate(self.reserves))
        lines.append(f"({status}; reserves {reserves}; battles {self.battles})")
        return "\n".join(lines)


def _neighbours(s: np.ndarray, area: int) -> list[int]:
    n, width = int(s[rules.NUM_AREAS]), int(s[rules.MAX_DEGREE])
    deg = int(s[rules.AREAS + 2 * n + area])
    row = rules.AREAS + 3 * n + area * width
    return [int(b) for b in s[row : row + deg]]


def probability_of_holding_area(state, area: int, player: int, dice: int | None = None) -> float:
    """P(``player`` keeps ``area`` through one attack from each adjacent enemy area).

    The product, over adjacent areas not owned by ``player`` with more than one die, of
    1 - P(that area's dice beat ``dice``), where ``dice`` defaults to the area's dice (pass
    another count to judge an area after a capture). ``state`` is a DiceWarsState or its array.
    """
    array = getattr(state, "array", None)
    if array is None:  # a raw row from the caller: its values are checked before a kernel reads them
        array = GAME.checked_state(state)
    area = action_index(area, "area")
    num_areas = int(array[rules.NUM_AREAS])
    if not 0 <= area < num_areas:
        raise ValueError(f"area {area} does not exist; areas are 0 to {num_areas - 1}")
    players = int(array[rules.NUM_PLAYERS])
    player = action_index(player, "player")
    if not 0 <= player < players:
        raise ValueError(f"player {player} is not a seat of this {players}-player game (seats 0..{players - 1})")
    if dice is None:
        dice = int(array[rules.AREAS + num_areas + area])
    dice = action_index(dice, "dice")
    if not 1 <= dice <= rules.MAX_DICE:
        raise ValueError(f"an area holds 1 to {rules.MAX_DICE} dice, not {dice}")
    return float(rules.hold_probability(array, int(area), player, dice))


BATCH_MAPS = 64
"""Distinct maps drawn for a batch (slot i plays map i % maps), since growing a map takes
milliseconds in Python; every reset deals the slot's map anew in compiled code."""


def batch_starts(game: Game, rng: np.random.Generator, count: int, options: dict[str, Any]) -> np.ndarray:
    """Start rows of up to ``BATCH_MAPS`` maps (``maps=`` in the options), adjacency padded to
    one common row width."""
    options = dict(options)
    maps = int(options.pop("maps", BATCH_MAPS))
    if maps < 1:
        raise ValueError(f"maps={maps}: a batch needs at least one map")
    states = [DiceWarsState.initial(rng, **options).array for _ in range(min(maps, count))]
    sizes = {int(s[rules.NUM_AREAS]) for s in states}
    if len(sizes) != 1:
        raise ValueError(f"Dice Wars maps of a batch need one number of areas, got {sorted(sizes)}")
    n = sizes.pop()
    width = max(int(s[rules.MAX_DEGREE]) for s in states)
    rows = np.zeros((len(states), rules.state_size(n, width)), np.int64)
    adjacency = rules.AREAS + 3 * n
    for k, s in enumerate(states):
        old = int(s[rules.MAX_DEGREE])
        rows[k, :adjacency] = s[:adjacency]
        rows[k, rules.MAX_DEGREE] = width
        grid = np.full((n, width), -1, np.int64)
        grid[:, :old] = s[adjacency:].reshape(n, old)
        rows[k, adjacency:] = grid.ravel()
    return rows


@njit(cache=True)
def batch_run(mode, ints, f32, f64, flags):
    """The batched env's entry: the generic batch kernels bound to this game's rules (named
    through their modules: numba caches module attributes, not bare global functions)."""
    return batching.run_batch(rules.legal_actions, rules.apply_action, rules.returns,
                              rules.chance_outcomes, rules.observe, rules.deal_areas, mode, ints, f32, f64, flags)


GAME = Game(
    encode=features.encode,
    net_kernels={"dice_wars_net": NetKernel(features.gnn_value, features.check_gnn_params)},
    trainer="plies.training.dice_wars:RECIPE",
    id="dice_wars",
    title="Dice Wars",
    state_class=DiceWarsState,
    kernels=rules.KERNELS,
    observe=rules.observe,
    batch_run=batch_run,
    schema=rules.SCHEMA,
    check_rows=rules.check_rows,
    num_players=4,
    num_actions=DEFAULT_AREAS**2 + 1,
    undo_size=rules.UNDO_SIZE,
    options=OPTIONS,
    has_chance=True,
    heuristics={
        "score": Heuristic(
            "score", rules.evaluate_score, (1.0, 0.0, 0.0), ("region", "areas", "dice"),
            description="the course framework's score: own largest connected region "
            "(optional tie-break weights for own areas and dice/8)",
        ),
        "region_diff": Heuristic(
            "region_diff", rules.evaluate_region_difference,
            description="own largest region minus the best opponent's",
        ),
        "dice_share": Heuristic(
            "dice_share", rules.evaluate_dice_share,
            description="half the share of all dice plus half the share of areas",
        ),
        "win_prob": Heuristic(
            "win_prob", rules.evaluate_win_prob, tuple(load_win_prob_coefficients().values()), WIN_PROB_PARAM_NAMES,
            description="logistic model on log(largest region+1), log(total dice+1), normalised",
        ),
    },
    default_heuristic="score",
    batch_starts=batch_starts,
    draw=drawing.svg,
    docs="docs/dice_wars.md",
    default_opponent="strength_diff",
    hint_agent="strength_diff",
    player_range=(2, rules.MAX_PLAYERS),
    click=drawing.click,
    view_options=drawing.view_options,
    plays_in_text=False,  # a person plays it on its map, in the browser
)
