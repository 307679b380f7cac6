"""The Dice Wars GameState."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from plies.envs import render
from plies.envs.core import CHANCE, TERMINAL, GameInfo, GameState, Heuristic, check_options
from plies.envs.dice_wars import rules
from plies.envs.dice_wars.maps import (
    DEFAULT_AREAS,
    DEFAULT_COLS,
    DEFAULT_ROWS,
    DiceWarsMap,
    generate_map,
    map_from_adjacency,
)
from plies.envs.options import option_int

WIN_PROB_PARAM_NAMES = ("bias", "region", "dice")
# Fallback coefficients (bias, log region, log dice) used when the fitted weights are missing.
WIN_PROB_FALLBACK = (-6.0, 1.0, 1.0)


def _win_prob_defaults() -> tuple[float, ...]:
    try:
        import json
        from importlib import resources

        text = resources.files("plies.agents").joinpath("weights/dice_wars_win_prob.json").read_text()
        coef = json.loads(text)["coefficients"]
        return tuple(float(coef[k]) for k in WIN_PROB_PARAM_NAMES)
    except (OSError, KeyError, ValueError, ModuleNotFoundError):
        return WIN_PROB_FALLBACK


INFO = GameInfo(
    name="dice_wars",
    kernels=rules.KERNELS,
    undo_size=rules.UNDO_SIZE,
    has_chance=True,
    zero_sum=True,
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
            "win_prob", rules.evaluate_win_prob, _win_prob_defaults(), WIN_PROB_PARAM_NAMES,
            description="logistic model on log(largest region+1), log(total dice+1), normalised",
        ),
    },
    default_heuristic="score",
)

OPTIONS = ("num_players", "num_areas", "rows", "cols", "adjacency")

PLAYER_COLORS = (
    (214, 69, 65), (65, 131, 215), (46, 160, 67), (240, 180, 40),
    (150, 80, 190), (240, 120, 30), (60, 180, 180), (230, 100, 170),
)
WATER = (225, 235, 245)

_DIGITS = {
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
}


class DiceWarsState(GameState):
    """Dice Wars for 2-8 players on a map of areas.

    Actions: ``source * num_areas + target`` attacks, ``num_areas ** 2`` ends the turn.
    Battles and every reinforcement die are chance nodes (see rules.py).
    """

    info = INFO
    __slots__ = ("_cells",)

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("dice_wars", options, OPTIONS)
        if array is None:
            made = type(self).initial(np.random.default_rng(0), **options)
            array, cells = made._s, made._cells
        else:
            cells = None
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
        **unknown: Any,
    ) -> DiceWarsState:
        """A new game: the map (grown on the hex grid, or ``adjacency``) and the dealing are
        drawn from ``rng``. Seats take a random free area in turn, starting with seat 0, which
        also moves first; every area starts with 3 dice."""
        check_options("dice_wars", unknown, OPTIONS)
        rng = np.random.default_rng() if rng is None else rng
        num_players = option_int("dice_wars", "num_players", num_players, 2, rules.MAX_PLAYERS)
        num_areas = option_int("dice_wars", "num_areas", num_areas, 1)
        rows = option_int("dice_wars", "rows", rows, 1)
        cols = option_int("dice_wars", "cols", cols, 1)
        if adjacency is not None:
            game_map = map_from_adjacency(adjacency)
        else:
            game_map = generate_map(rng, int(num_areas), int(rows), int(cols))
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
        return int(rules.largest_region(self._s, player))

    def total_dice(self, player: int) -> int:
        return int(rules.total_dice(self._s, player))

    def area_count(self, player: int) -> int:
        return int(rules.area_count(self._s, player))

    def alive_players(self) -> list[int]:
        owners = self.owners
        return [p for p in range(self.num_players) if np.any(owners == p)]

    def attack_action(self, source: int, target: int) -> int:
        return int(source) * self.num_areas + int(target)

    # ----- learning ------------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """Per area: owner one-hot relative to ``seat`` (column k = the k-th seat after
        ``seat``, 0 = own), dice / 8, then the area's row of the adjacency matrix."""
        n, players = self.num_areas, self.num_players
        out = np.empty(n * (players + 1 + n), np.float32)
        rules.observe(self._s, seat, out)
        return out.reshape(n, players + 1 + n)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.num_areas, self.num_players + 1 + self.num_areas)

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
        action = int(action)
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

    # ----- pictures ------------------------------------------------------------------------
    def render_rgb(self) -> np.ndarray:
        if self._cells is None:
            return self._render_graph()
        return self._render_hexes()

    def _render_hexes(self) -> np.ndarray:
        cells = self._cells
        rows, cols = cells.shape
        cw, ch = 14, 12  # a hex cell drawn as a brick; odd rows shifted half a cell
        height, width = rows * ch + 8, cols * cw + cw // 2 + 8
        ys, xs = np.mgrid[0:height, 0:width]
        r = (ys - 4) // ch
        shift = np.where(r % 2 == 1, cw // 2, 0)
        c = (xs - 4 - shift) // cw
        inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols) & (ys >= 4)
        area = np.full((height, width), -1, np.int64)
        area[inside] = cells[r[inside], c[inside]]
        palette = np.array(PLAYER_COLORS + (WATER,), np.uint8)
        owner_of = np.append(self.owners, len(PLAYER_COLORS))
        image = palette[owner_of[area]]
        edge = np.zeros((height, width), bool)
        edge[:, :-1] |= area[:, :-1] != area[:, 1:]
        edge[:-1, :] |= area[:-1, :] != area[1:, :]
        edge &= (area >= 0) | np.roll(area >= 0, -1, 0) | np.roll(area >= 0, -1, 1)
        image[edge] = (40, 40, 40)
        dice = self.dice
        for a in range(self.num_areas):
            yy, xx = np.nonzero(area == a)
            if len(yy) == 0:
                continue
            k = np.argmin((yy - yy.mean()) ** 2 + (xx - xx.mean()) ** 2)  # a pixel in the area
            _draw_number(image, int(yy[k]) - 6, int(xx[k]) - 5, int(dice[a]))
        return image

    def _render_graph(self) -> np.ndarray:
        size = 420
        image = render.canvas(size, size, WATER)
        n = self.num_areas
        angles = 2 * np.pi * np.arange(n) / n
        cy, cx, radius = size / 2, size / 2, size * 0.4
        pos = [(cy + radius * np.sin(t), cx + radius * np.cos(t)) for t in angles]
        for a, neigh in enumerate(self.adjacency):
            for b in neigh:
                if b > a:
                    render.line(image, *pos[a], *pos[b], 2, (90, 90, 90))
        disc = max(8.0, min(24.0, np.pi * radius / max(n, 1) * 0.8))
        for a in range(n):
            render.fill_disc(image, *pos[a], disc, PLAYER_COLORS[int(self.owners[a])])
            _draw_number(image, int(pos[a][0]) - 6, int(pos[a][1]) - 5, int(self.dice[a]))
        return image


def _neighbours(s: np.ndarray, area: int) -> list[int]:
    n, width = int(s[rules.NUM_AREAS]), int(s[rules.MAX_DEGREE])
    deg = int(s[rules.AREAS + 2 * n + area])
    row = rules.AREAS + 3 * n + area * width
    return [int(b) for b in s[row : row + deg]]


def _draw_number(image: np.ndarray, top: int, left: int, value: int) -> None:
    """A digit in a 3x5 pixel font scaled x2, on a white box, for the dice count."""
    render.fill_rect(image, top - 1, left - 1, 12, 8, (255, 255, 255))
    for i, bits in enumerate(_DIGITS[str(value)[-1]]):
        for j, bit in enumerate(bits):
            if bit == "1":
                render.fill_rect(image, top + 2 * i, left + 2 * j, 2, 2, (0, 0, 0))
