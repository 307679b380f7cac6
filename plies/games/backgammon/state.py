"""The Backgammon GameState."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from plies.games import batching
from plies.games.backgammon import drawing, features, rules
from plies.games.game import Game
from plies.games.kernels import CHANCE, TERMINAL, Heuristic, check_options
from plies.games.state import GameState
from plies.games.value_kernels import NetKernel

NAMES = "XO"
DIE_NAMES = frozenset("123456")
POINT_NAMES = frozenset(str(i) for i in range(1, 25))
CHECKER_COUNTS = frozenset(str(i) for i in range(16))
SCORINGS = {"single": 0, "gammon": 1}

def move_to_string(source: int, die: int, hit: bool) -> str:
    """One checker move in standard notation, in the mover's numbering (``bar/22``, ``6/off``)."""
    start = "bar" if source == rules.BAR else str(source)
    end = "off" if source - die <= 0 else str(source - die)
    return f"{start}/{end}{'*' if hit else ''}"


class BackgammonState(GameState):
    """Backgammon without the doubling cube; seat 0 is X, seat 1 is O.

    Action = ``source * 6 + die - 1`` (source 0..23 = the mover's points 1..24, 24 = bar): one
    checker moved by one die; the mask enforces the whole-roll rules. ``afterstates()`` lists
    the distinct positions the current roll can end in.
    """

    __slots__ = ()

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("backgammon", options, ("scoring",))
        scoring = options.get("scoring", "single")
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, not {scoring!r}")
        if array is None:
            array = rules.initial_array(SCORINGS[scoring])
        else:
            array = self.game.checked_state(array)
        super().__init__(array)

    num_players = 2  # type: ignore[assignment]
    num_actions = rules.NUM_ACTIONS  # type: ignore[assignment]
    max_legal_actions = rules.NUM_ACTIONS  # type: ignore[assignment]
    max_game_length = 5000  # type: ignore[assignment]

    @property
    def value_bound(self) -> float:
        """The largest result a game can have (3 with gammons and backgammons, else 1)."""
        return 3.0 if self._s[rules.SCORING] else 1.0

    # ----- board access --------------------------------------------------------------------
    def checkers(self, seat: int) -> np.ndarray:
        """26 counts in seat's own numbering: [off, points 1..24, bar]."""
        base = rules.BOARD + rules.SIDE * self.seat_in_range(seat)
        return self._s[base : base + rules.SIDE].copy()

    @property
    def dice(self) -> tuple[int, int]:
        return int(self._s[rules.DIE_HI]), int(self._s[rules.DIE_LO])

    @property
    def dice_left(self) -> list[int]:
        s = self._s
        return [int(s[rules.DIE_HI])] * int(s[rules.REM_HI]) + [int(s[rules.DIE_LO])] * int(
            s[rules.REM_LO]
        )

    def afterstates(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct end-of-turn positions of the roll being played, as state arrays (one
        row each), and one action sequence (-1 padded) reaching each."""
        if self.current_player < 0:
            raise ValueError("afterstates() needs a player to move (roll the dice first)")
        out = np.zeros((rules.MAX_AFTERSTATES, rules.STATE_SIZE), np.int64)
        paths = np.zeros((rules.MAX_AFTERSTATES, 4), np.int64)
        n = rules.afterstates(self._s, out, paths)
        if n < 0:
            raise RuntimeError("more distinct plays than MAX_AFTERSTATES")
        return out[:n].copy(), paths[:n].copy()

    def roll(self, hi: int, lo: int) -> None:
        """Apply the chance outcome of the given dice (either order)."""
        a, b = max(hi, lo), min(hi, lo)
        if not (1 <= b <= a <= 6):
            raise ValueError(f"dice must be 1..6, got {hi} and {lo}")
        if self._s[rules.ROLLS] == 0:
            raise ValueError("the opening roll is one die each: use apply(opening_outcome(...))")
        self.apply((a - 1) * 6 + b - 1)

    @staticmethod
    def opening_outcome(die_x: int, die_o: int) -> int:
        """The chance outcome of the opening roll where X rolls die_x and O rolls die_o."""
        if die_x == die_o or not (1 <= die_x <= 6 and 1 <= die_o <= 6):
            raise ValueError("opening dice must differ and be 1..6")
        return rules.OPENING_BASE + (die_x - 1) * 6 + die_o - 1

    # ----- learning ------------------------------------------------------------------------
    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (204,)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        # the largest entry: all 15 checkers on the bar, 15 / 2 (a point holds at most (15 - 3) / 2)
        return (0.0, 7.5)

    # ----- text ------------------------------------------------------------------------------
    def _side_text(self, seat: int) -> str:
        counts = self.checkers(seat)
        parts = [NAMES[seat]]
        if counts[rules.BAR]:
            parts.append(f"bar:{counts[rules.BAR]}")
        for i in range(24, 0, -1):
            if counts[i]:
                parts.append(f"{i}:{counts[i]}")
        if counts[rules.OFF]:
            parts.append(f"off:{counts[rules.OFF]}")
        return " ".join(parts)

    def _status_text(self) -> str:
        s = self._s
        player = int(s[0])
        if player == TERMINAL:
            return f"{NAMES[s[rules.WINNER]]} won {s[rules.POINTS]}"
        if player == CHANCE:
            if s[rules.ROLLS] == 0:
                return "opening roll"
            return f"{NAMES[s[rules.ROLLER]]} to roll"
        hi, lo = self.dice
        text = f"{NAMES[player]} to play {hi}-{lo}"
        left = self.dice_left
        full = [hi] * 4 if hi == lo else [hi, lo]
        if left != full:
            text += " left " + " ".join(map(str, left))
        return text

    def to_string(self) -> str:
        """``X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; X to play 6-5`` (each side in its own
        numbering; ``bar:n`` and ``off:n``; status ``opening roll``, ``O to roll``,
        ``X to play 6-6 left 6 6``, ``X won 2``). ``scoring=gammon`` is appended when set."""
        text = f"{self._side_text(0)}; {self._side_text(1)}; {self._status_text()}"
        if self._s[rules.SCORING]:
            text += "; scoring=gammon"
        return text

    @classmethod
    def from_string(cls, text: str, **options: Any) -> BackgammonState:
        parts = [p.strip() for p in text.strip().split(";") if p.strip()]
        if parts and parts[-1].startswith("scoring="):
            options.setdefault("scoring", parts.pop()[len("scoring=") :])
        if len(parts) != 3:
            raise ValueError(
                f"malformed backgammon position {text!r}: need 'X <points>; O <points>; <status>'"
                " like 'X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; X to play 6-5'"
            )
        state = cls(**options)
        s = state._s
        s[rules.BOARD :] = 0
        for seat in range(2):
            tokens = parts[seat].split()
            if not tokens or tokens[0].upper() != NAMES[seat]:
                raise ValueError(f"side {seat + 1} of {text!r} must start with {NAMES[seat]!r}")
            base = rules.BOARD + rules.SIDE * seat
            for token in tokens[1:]:
                where, colon, count = token.partition(":")
                if not colon or count not in CHECKER_COUNTS:
                    raise ValueError(f"bad entry {token!r}: use point:count, bar:n or off:n (n 0 to 15)")
                if where == "bar":
                    index = rules.BAR
                elif where == "off":
                    index = rules.OFF
                elif where in POINT_NAMES:
                    index = int(where)
                else:
                    raise ValueError(f"bad point {where!r} in {token!r}: points are 1-24, bar, off")
                if s[base + index] + int(count) > 15:
                    raise ValueError(f"{NAMES[seat]} has more than 15 checkers on {where} in {text!r}")
                s[base + index] += int(count)
            if s[base : base + rules.SIDE].sum() != 15:
                raise ValueError(
                    f"{NAMES[seat]} has {s[base : base + rules.SIDE].sum()} checkers; need 15"
                )
        for i in range(1, 25):
            if s[rules.BOARD + i] and s[rules.BOARD + rules.SIDE + 25 - i]:
                raise ValueError(f"X's point {i} is also held by O (O's point {25 - i})")
        state._parse_status(parts[2])
        state._check_possible(text)
        return state

    def _check_possible(self, text: str) -> None:
        """Refuses positions no game reaches: a finished game still running, a winner without
        all 15 checkers off, points a win cannot score."""
        s = self._s
        off = [int(s[rules.BOARD + rules.SIDE * seat + rules.OFF]) for seat in range(2)]
        if off == [15, 15]:
            raise ValueError(f"impossible position {text!r}: both sides have borne off all 15 checkers")
        player = int(s[0])
        if player != TERMINAL and 15 in off:
            raise ValueError(f"impossible position {text!r}: {NAMES[off.index(15)]} has borne off all "
                             "15 checkers, so the game is over (status 'X won 1')")
        if player == TERMINAL:
            winner = int(s[rules.WINNER])
            if off[winner] != 15:
                raise ValueError(f"impossible position {text!r}: {NAMES[winner]} won but has "
                                 f"{off[winner]} checkers off, not 15")
            points = int(s[rules.POINTS])
            if not s[rules.SCORING] and points != 1:
                raise ValueError(f"impossible position {text!r}: without scoring=gammon a win scores 1")
            if off[1 - winner] > 0 and points != 1:
                raise ValueError(f"impossible position {text!r}: the loser bore off checkers, so the "
                                 "win scores 1 (no gammon)")
        if player == CHANCE and s[rules.ROLLS] == 0 and (off != [0, 0] or not np.array_equal(
                s[rules.BOARD:], rules.initial_array()[rules.BOARD:])):
            raise ValueError(f"impossible position {text!r}: the opening roll comes at the start position")

    def encode(self) -> np.ndarray:
        """The position as an int array, canonical: slots that no longer matter (the dice of a
        finished turn, the roller of a finished game) are zero, so equal positions encode
        equally however they were reached (``from_string(to_string(s))`` equals ``s``)."""
        return canonical(self._s)

    def hash(self) -> int:
        return int(rules.hash_state(canonical(self._s)))

    def _parse_status(self, status: str) -> None:
        s = self._s
        words = status.split()
        s[rules.ROLLS] = 1
        s[rules.WINNER] = -1
        if status == "opening roll":
            s[rules.ROLLS] = 0
            s[0] = CHANCE
            return
        if len(words) == 3 and words[0] in NAMES and words[1] == "won" and words[2] in ("1", "2", "3"):
            s[0] = TERMINAL
            s[rules.WINNER] = NAMES.index(words[0])
            s[rules.POINTS] = int(words[2])
            return
        if len(words) == 3 and words[0] in NAMES and words[1:] == ["to", "roll"]:
            s[0] = CHANCE
            s[rules.ROLLER] = NAMES.index(words[0])
            return
        if len(words) >= 4 and words[0] in NAMES and words[1:3] == ["to", "play"]:
            seat = NAMES.index(words[0])
            dice = words[3].split("-")
            if len(dice) == 2 and all(d in DIE_NAMES for d in dice):
                hi, lo = max(map(int, dice)), min(map(int, dice))
                s[rules.ROLLER] = seat
                s[rules.DIE_HI], s[rules.DIE_LO] = hi, lo
                if len(words) == 4:
                    left = [hi] * 4 if hi == lo else [hi, lo]
                elif words[4] == "left" and all(w in DIE_NAMES for w in words[5:]):
                    left = [int(w) for w in words[5:]]
                else:
                    left = None
                if left is not None and self._set_left(hi, lo, left):
                    s[0] = seat
                    return
        raise ValueError(
            f"bad status {status!r}: use 'opening roll', 'X to roll', 'X to play 6-5', "
            "'X to play 3-3 left 3 3', or 'O won 2'"
        )

    def _set_left(self, hi: int, lo: int, left: list[int]) -> bool:
        s = self._s
        if hi == lo:
            if not (1 <= len(left) <= 4 and all(d == hi for d in left)):
                return False
            s[rules.REM_HI], s[rules.REM_LO] = len(left), 0
            return True
        if not left or len(left) > 2 or any(left.count(d) > 1 or d not in (hi, lo) for d in left):
            return False
        s[rules.REM_HI], s[rules.REM_LO] = int(hi in left), int(lo in left)
        return True

    def action_to_string(self, action: int) -> str:
        action = self.action_in_range(action)
        if self.is_chance_node():
            if action >= rules.OPENING_BASE + 36:
                raise ValueError(f"a roll is 0..{rules.OPENING_BASE + 35}, got {action}")
            if action >= rules.OPENING_BASE:
                k = action - rules.OPENING_BASE
                return f"X rolls {k // 6 + 1}, O rolls {k % 6 + 1}"
            return f"roll {action // 6 + 1}-{action % 6 + 1}"
        source, die = action // 6 + 1, action % 6 + 1
        hit = False
        if self.current_player >= 0 and source - die >= 1:
            opp = self.checkers(1 - self.current_player)
            hit = opp[25 - (source - die)] == 1
        return move_to_string(source, die, hit)

    def string_to_action(self, text: str) -> int:
        """A single checker move (``13/7``, ``bar/22*``, ``6/off``; the ``*`` is optional)."""
        text = text.strip().lower().replace("*", "")
        for action in self.legal_actions():
            if self.action_to_string(int(action)).replace("*", "") == text:
                return int(action)
        return super().string_to_action(text)

    def play_to_string(self, actions: list[int] | np.ndarray) -> str:
        """A whole play in standard notation, joining a checker's steps (``24/18*/13``) and
        counting repeats (``13/7(2)``). The steps are one player's checker moves from this
        position, each legal where it is played (a negative one ends the list, as in padded
        play tables); anything else is a ValueError."""
        state = self.clone()
        steps: list[list[tuple[int, int, bool]]] = []  # chains of (from, to, hit)
        for step, action in enumerate(actions):
            action = int(action)
            if action < 0:
                break
            if state.is_terminal() or state.is_chance_node() or not state.is_legal(action):
                where = "the game is over" if state.is_terminal() else (
                    "the dice are to be rolled" if state.is_chance_node() else state._illegal_message(action))
                raise ValueError(f"step {step + 1} ({action}) of the play is not a checker move here: {where}")
            source, die = action // 6 + 1, action % 6 + 1
            hit = "*" in state.action_to_string(action)
            state.apply_unchecked(action)
            target = max(0, source - die)
            # continue the chain of a checker that just arrived on this source, if it did not hit
            for k in range(len(steps) - 1, -1, -1):
                chain = steps[k]
                if chain[-1][1] == source and source != 0:
                    chain.append((source, target, hit))
                    break
            else:
                steps.append([(source, target, hit)])
        texts = []
        for chain in steps:
            text = "bar" if chain[0][0] == rules.BAR else str(chain[0][0])
            for _, target, hit in chain:
                text += "/" + ("off" if target == 0 else str(target)) + ("*" if hit else "")
            texts.append(text)
        merged: list[str] = []
        for text in sorted(texts, key=_notation_key):
            count = texts.count(text)
            label = text if count == 1 else f"{text}({count})"
            if label not in merged:
                merged.append(label)
        return " ".join(merged)

    def render_text(self) -> str:
        x, o = self.checkers(0), self.checkers(1)
        cells = []
        for point in range(1, 25):  # X's numbering
            if x[point]:
                cells.append(f"X{x[point]}")
            elif o[25 - point]:
                cells.append(f"O{o[25 - point]}")
            else:
                cells.append(" .")
        top = " ".join(f"{p:>2}" for p in range(13, 25))
        top_row = " ".join(f"{c:>2}" for c in cells[12:24])
        bottom = " ".join(f"{p:>2}" for p in range(12, 0, -1))
        bottom_row = " ".join(f"{c:>2}" for c in cells[11::-1])
        return "\n".join(
            [
                top,
                top_row,
                f"bar X {x[rules.BAR]}  O {o[rules.BAR]}    off X {x[rules.OFF]}  O {o[rules.OFF]}",
                bottom_row,
                bottom,
                f"({self._status_text()}; points in X's numbering, O's point n is X's 25-n)",
            ]
        )

def canonical(array: np.ndarray) -> np.ndarray:
    """A copy of a backgammon state array with the slots that no longer matter set to zero."""
    s = array.copy()
    player = int(s[0])
    if player >= 0:
        s[rules.ROLLER] = player
    else:
        s[rules.DIE_HI] = s[rules.DIE_LO] = s[rules.REM_HI] = s[rules.REM_LO] = 0
        if player == TERMINAL or s[rules.ROLLS] == 0:
            s[rules.ROLLER] = 0
    return s


def _notation_key(text: str) -> tuple[int, str]:
    head = text.split("/")[0]
    return (-(25 if head == "bar" else int(head)), text)


@njit(cache=True)
def batch_run(mode, ints, f32, f64, flags):
    """The batched env's entry: the generic batch kernels bound to this game's rules (named
    through their modules: numba caches module attributes, not bare global functions)."""
    return batching.run_batch(rules.legal_actions, rules.apply_action, rules.returns,
                              rules.chance_outcomes, rules.observe, batching.no_reset_hook, mode, ints, f32, f64, flags)


GAME = Game(
    check_rows=rules.check_rows,
    encode=features.encode,
    net_kernels={"backgammon_contact_race": NetKernel(features.contact_race_value, features.check_contact_race_params)},
    trainer="plies.training.backgammon:RECIPE",
    id="backgammon",
    title="Backgammon",
    state_class=BackgammonState,
    kernels=rules.KERNELS,
    observe=rules.observe,
    batch_run=batch_run,
    schema=rules.SCHEMA,
    num_players=2,
    num_actions=rules.NUM_ACTIONS,
    undo_size=rules.STATE_SIZE,
    options=("scoring",),
    has_chance=True,
    afterstates=rules.afterstates,
    max_afterstates=rules.MAX_AFTERSTATES,
    heuristics={
        "singleton": Heuristic(
            "singleton",
            rules.evaluate_singleton,
            (1.0, 1.0, 1.0, 6.0),
            ("off", "blot", "bar", "scale"),
            "the write-up's singleton: borne-off lead, own blots (single checkers) cost",
        ),
        "pips": Heuristic(
            "pips", rules.evaluate_pips, (40.0,), ("scale",), "pip-count lead (a race)"
        ),
        "points": Heuristic(
            "points",
            rules.evaluate_points,
            (1.0, 1.0, 1.0, 6.0),
            ("made", "home", "blot", "scale"),
            "made points, home-board points, blots",
        ),
        "primes": Heuristic(
            "primes",
            rules.evaluate_primes,
            (1.0, 0.5, 4.0),
            ("prime", "pips", "scale"),
            "longest prime against the opponent's, plus pip lead",
        ),
        "combined": Heuristic(
            "combined",
            rules.evaluate_combined,
            (1.0, 1.0, 0.5, 0.5, 0.5, 1.0, 0.5, 8.0),
            ("pips", "exposed", "made", "home", "prime", "bar", "off", "scale"),
            "pip lead, exposed blots, made and home points, prime, bar and borne-off",
        ),
    },
    default_heuristic="combined",
    draw=drawing.svg,
    docs="docs/backgammon.md",
    seat_names=("X", "O"),
    default_opponent="expectiminimax",
    hint_agent="expectiminimax:depth=1",
    click=drawing.click,
    view_options=drawing.view_options,
    move_text=drawing.move_text,
    board_text=drawing.board_text,
)
