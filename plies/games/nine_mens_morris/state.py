"""The Nine Men's Morris GameState."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numba import njit

from plies.games import batching
from plies.games.game import Game
from plies.games.kernels import TERMINAL, Heuristic, check_options
from plies.games.nine_mens_morris import drawing, features, rules
from plies.games.nine_mens_morris.symmetry import canonical_hash
from plies.games.options import option_bool, option_int
from plies.games.state import GameState

OPTIONS = ("flying", "repetition", "no_mill", "turn_cap")
DEFAULT_OPTIONS: dict[str, Any] = {"flying": True, "repetition": 3, "no_mill": 100, "turn_cap": 0}
OPENSPIEL_OPTIONS: dict[str, Any] = {"flying": True, "repetition": 0, "no_mill": 0, "turn_cap": 200}
"""The rules of OpenSpiel's ``nine_mens_morris``: flying, no draw rules, a draw at 200 turns."""

SEATS = "WB"
FILES = "abcdefg"

# the compact diagram: 7 rows, point characters at these columns, lines in between
_DIAGRAM = (
    ".-----.-----.",
    "| .---.---. |",
    "| | .-.-. | |",
    ".-.-.   .-.-.",
    "| | .-.-. | |",
    "| .---.---. |",
    ".-----.-----.",
)
_DIAGRAM_CHARS = set("WB.-| ")

def point_name(p: int) -> str:
    """Board coordinates of a point: files a-g from the left, ranks 1-7 from the bottom."""
    row, col = rules.COORDS[p]
    return f"{FILES[col]}{7 - row}"


_POINT_BY_NAME = {point_name(p): p for p in range(rules.NUM_POINTS)}


class NineMensMorrisState(GameState):
    """Nine Men's Morris: White (seat 0, ``W``) places first; see docs/nine_mens_morris.md.

    Options: ``flying`` (a player with 3 stones may move anywhere, default on),
    ``repetition`` (draw when a position occurs this many times, default 3, 0 = off),
    ``no_mill`` (draw after this many turns without a removal, default 100, 0 = off),
    ``turn_cap`` (draw after this many turns, default 0 = off). ``OPENSPIEL_OPTIONS`` gives
    OpenSpiel's rules.
    """

    __slots__ = ()

    def __init__(self, array: np.ndarray | None = None, **options: Any) -> None:
        check_options("nine_mens_morris", options, OPTIONS)
        if array is None:
            array = rules.initial_array(**_options(options))
        else:
            array = self.game.checked_state(array)
        super().__init__(array)

    num_players = 2  # type: ignore[assignment]
    num_actions = rules.NUM_ACTIONS  # type: ignore[assignment]
    max_legal_actions = rules.MAX_LEGAL_ACTIONS  # type: ignore[assignment]

    @property
    def max_game_length(self) -> int:  # type: ignore[override]
        """Actions (removals included) in the longest game the options allow."""
        s = self._s
        bounds = []
        if s[rules.OPT_NO_MILL] > 0:
            bounds.append((rules.MAX_CAPTURES + 1) * int(s[rules.OPT_NO_MILL]))
        if s[rules.OPT_TURN_CAP] > 0:
            bounds.append(int(s[rules.OPT_TURN_CAP]))
        if s[rules.OPT_REPETITION] > 0:
            bounds.append(rules.UNBOUNDED_HISTORY)
        turns = min(bounds) if bounds else 10_000
        return turns + rules.MAX_CAPTURES

    @property
    def options(self) -> dict[str, Any]:
        s = self._s
        return {
            "flying": bool(s[rules.OPT_FLYING]),
            "repetition": int(s[rules.OPT_REPETITION]),
            "no_mill": int(s[rules.OPT_NO_MILL]),
            "turn_cap": int(s[rules.OPT_TURN_CAP]),
        }

    # ----- readable parts of the position ------------------------------------------------
    @property
    def points(self) -> np.ndarray:
        """The 24 points: 0 empty, 1 White, 2 Black."""
        return self._s[rules.POINTS : rules.POINTS + rules.NUM_POINTS].copy()

    @property
    def player(self) -> int:
        """The seat whose turn it is (also after the game ended)."""
        return int(self._s[rules.PLAYER])

    @property
    def removing(self) -> bool:
        """Whether the player to move has closed a mill and must remove a stone."""
        return bool(self._s[rules.REMOVING])

    def in_hand(self, seat: int) -> int:
        return int(self._s[rules.HAND + self.seat_in_range(seat)])

    def on_board(self, seat: int) -> int:
        return int(self._s[rules.ON_BOARD + self.seat_in_range(seat)])

    @property
    def turn(self) -> int:
        return int(self._s[rules.TURNS])

    @property
    def quiet_turns(self) -> int:
        """Turns since the last removal."""
        return int(self._s[rules.QUIET])

    @property
    def result(self) -> int:
        """-1 while the game runs, then the winning seat, or 2 for a draw."""
        return int(self._s[rules.RESULT])

    def features(self, seat: int) -> dict[str, float]:
        """The heuristic's features for ``seat`` (own minus opponent's), by name."""
        out = np.zeros(len(rules.FEATURES), np.float64)
        rules.features(self._s, self.seat_in_range(seat), out)
        return dict(zip(rules.FEATURES, out.tolist()))

    # ----- learning -----------------------------------------------------------------------
    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (55,)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)

    # ----- text ---------------------------------------------------------------------------
    def diagram(self) -> str:
        """The board as 7 text rows (``W`` White, ``B`` Black, ``.`` empty)."""
        rows = [list(r) for r in _DIAGRAM]
        for p in range(rules.NUM_POINTS):
            r, c = rules.COORDS[p]
            rows[r][2 * c] = ".WB"[self._s[rules.POINTS + p]]
        return "\n".join("".join(r) for r in rows)

    def status(self) -> str:
        s = self._s
        who = SEATS[self.player]
        items = [f"{who} to {'remove' if s[rules.REMOVING] else 'move'}"]
        items.append(f"in hand W {s[rules.HAND]} B {s[rules.HAND + 1]}")
        items.append(f"turn {s[rules.TURNS]}")
        items.append(f"quiet {s[rules.QUIET]}")
        segment = self._segment()
        if segment:
            items.append("history " + " ".join(f"{int(k) & _KEY_MASK:016x}" for k in segment))
        if self.is_terminal():
            result = s[rules.RESULT]
            items.append("draw" if result == rules.DRAW else f"{SEATS[result]} wins")
        rules_in_play = self.options
        if rules_in_play != _options({}):  # the text must not lose them: they change the game
            items.append("options " + " ".join(f"{k}={int(v)}" for k, v in rules_in_play.items()))
        return ", ".join(items)

    def to_string(self) -> str:
        return self.diagram() + "\n" + self.status()

    def _segment(self) -> list[int]:
        """The position keys of the current repetition segment, for the text, when they are
        more than the key of the position itself (otherwise none: the usual case)."""
        s = self._s
        if s[rules.HIST_CAP] == 0:
            return []
        keys = s[rules.HISTORY + s[rules.SEG_START] : rules.HISTORY + s[rules.HIST_LEN]].tolist()
        if len(keys) == 1 and not s[rules.REMOVING] and keys[0] == rules.position_key(s):
            return []
        return keys

    def encode(self) -> np.ndarray:
        """The state array with the keys from before the last irreversible turn zeroed: they
        can no longer decide a repetition, and the text does not carry them."""
        code = self._s.copy()
        code[rules.HISTORY : rules.HISTORY + code[rules.SEG_START]] = 0
        return code

    @classmethod
    def from_string(cls, text: str, **options: Any) -> NineMensMorrisState:
        """Parse a board diagram and an optional status line (see docs/nine_mens_morris.md).

        The diagram is any set of lines made of ``W``, ``B``, ``.`` (the 24 points in the
        order of their numbers, i.e. row by row), ``-``, ``|`` and spaces; the 7-row diagram
        of ``to_string``, OpenSpiel's 13-row one and a single 24-character line all work.
        Other lines hold the status, comma-separated items: ``W to move`` / ``B to move`` /
        ``W to remove`` (a mill was closed), ``in hand W 3 B 2``, ``turn 20``, ``quiet 4``,
        and ``W wins`` / ``B wins`` / ``draw`` for a finished game. OpenSpiel's status lines
        (``Current player: W``, ``Turn number``, ``Men to deploy``, ``Capture time!``) are
        read too. Defaults: White to move, nothing in hand, turn 0.
        """
        check_options("nine_mens_morris", options, OPTIONS)
        cells: list[str] = []
        status_lines: list[str] = []
        for line in text.splitlines():
            if not line.strip():
                continue
            if set(line) <= _DIAGRAM_CHARS:
                cells.extend(ch for ch in line if ch in "WB.")
            else:
                status_lines.append(line.strip())
        if len(cells) != rules.NUM_POINTS:
            raise ValueError(
                f"malformed Nine Men's Morris diagram: found {len(cells)} points, need 24 "
                "(diagram lines may hold only 'W', 'B', '.' for points and '-', '|', spaces; "
                f"got {text!r})"
            )
        fields = _parse_status(status_lines, text)
        written = fields.get("options", {})
        opts = _options({**written, **options})
        if written and opts != _options(written):
            raise ValueError(f"the position's options {written} disagree with the options given, {options} ({text!r})")
        state = cls._from_array(rules.empty_array(**opts))
        s = state._s
        for p, ch in enumerate(cells):
            if ch != ".":
                colour = 1 if ch == "W" else 2
                s[rules.POINTS + p] = colour
                s[rules.ON_BOARD + colour - 1] += 1
        s[rules.BOARD_HASH] = rules.board_key(s)
        hand = fields.get("hand", (0, 0))
        for seat in range(2):
            if not 0 <= hand[seat] <= rules.NUM_STONES:
                raise ValueError(f"stones in hand must be 0-9, got {hand[seat]} ({text!r})")
            total = hand[seat] + s[rules.ON_BOARD + seat]
            if total > rules.NUM_STONES:
                raise ValueError(
                    f"{SEATS[seat]} has {total} stones on the board and in hand; at most 9 "
                    f"({text!r})"
                )
            s[rules.HAND + seat] = hand[seat]
        seat = fields.get("player", 0)
        s[rules.PLAYER] = s[rules.TO_MOVE] = seat
        s[rules.TURNS] = fields.get("turn", 0)
        s[rules.QUIET] = fields.get("quiet", 0)
        if fields.get("removing"):
            colour = 2 - seat
            if not np.any(s[rules.POINTS : rules.POINTS + 24] == colour):
                raise ValueError(
                    f"{SEATS[seat]} is to remove a stone but {SEATS[1 - seat]} has none on the "
                    f"board ({text!r})"
                )
            s[rules.REMOVING] = 1
        result = fields.get("result")
        _place_history(s, fields.get("history"), result is not None, text)
        if result is not None:
            s[rules.RESULT] = result
            s[rules.TO_MOVE] = TERMINAL
            s[rules.THREATS] = 0  # as settle leaves a finished game: no draw pending
        elif not s[rules.REMOVING]:
            rules.settle(s)  # the top key's turn end: repetition threats, and whether it is over
        return state

    def action_to_string(self, action: int) -> str:
        """``d7`` places, ``xd7`` removes, ``d7-d6`` moves (a1 is the lower left corner)."""
        action = self.action_in_range(action)
        if action >= rules.NUM_POINTS:
            source, target = divmod(action - rules.NUM_POINTS, rules.NUM_POINTS)
            return f"{point_name(source)}-{point_name(target)}"
        prefix = "x" if self._s[rules.REMOVING] else ""
        return prefix + point_name(action)

    def string_to_action(self, text: str) -> int:
        """Reads ``d7``, ``xd7``, ``d7-d6``, OpenSpiel's ``Point 3`` / ``Move 0 -> 1``, or the
        action number."""
        t = text.strip().lower()
        action: int | None = None
        if m := re.fullmatch(r"x?([a-g][1-7])", t):
            action = _POINT_BY_NAME.get(m.group(1))
        elif m := re.fullmatch(r"([a-g][1-7])\s*[-:]\s*([a-g][1-7])", t):
            a, b = _POINT_BY_NAME.get(m.group(1)), _POINT_BY_NAME.get(m.group(2))
            if a is not None and b is not None:
                action = rules.NUM_POINTS + a * rules.NUM_POINTS + b
        elif m := re.fullmatch(r"point\s+(\d+)", t):
            action = int(m.group(1))
        elif m := re.fullmatch(r"move\s+(\d+)\s*->\s*(\d+)", t):
            action = rules.NUM_POINTS + int(m.group(1)) * rules.NUM_POINTS + int(m.group(2))
        elif re.fullmatch(r"\d+", t):
            action = int(t)
        if action is not None and self.is_legal(action):
            return action
        legal = ", ".join(self.action_to_string(int(a)) for a in self.legal_actions())
        raise ValueError(
            f"{text!r} is not a legal move here; legal moves: {legal or 'none (game over)'} "
            "(write d7 to place, xd7 to remove, d7-d6 to move)"
        )

    def render_text(self) -> str:
        return self.to_string()

    # ----- symmetry -----------------------------------------------------------------------
    def canonical_hash(self) -> int:
        """A key shared by the (up to) 16 symmetric images of this position."""
        return int(canonical_hash(self._s))


def _options(options: dict[str, Any]) -> dict[str, Any]:
    merged = {**DEFAULT_OPTIONS, **options}
    for key in ("repetition", "no_mill", "turn_cap"):
        merged[key] = option_int("nine_mens_morris", key, merged[key], 0, rules.MAX_OPTION)
    if merged["repetition"] == 1:
        raise ValueError("option repetition must be 0 (off) or at least 2, got 1")
    merged["flying"] = option_bool("nine_mens_morris", "flying", merged["flying"])
    return merged


def _parse_status(lines: list[str], text: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    items = [item.strip() for line in lines for item in line.split(",") if item.strip()]
    for item in items:
        low = item.lower()
        if not low.isascii():
            raise ValueError(f"cannot read {item!r} in the Nine Men's Morris position {text!r}: "
                             "status items are plain ASCII")
        if m := re.fullmatch(r"([wb]) to (move|remove)", low):
            fields["player"] = SEATS.index(m.group(1).upper())
            fields["removing"] = m.group(2) == "remove"
        elif m := re.fullmatch(r"current player:\s*([wb])", low):
            fields["player"] = SEATS.index(m.group(1).upper())
        elif m := re.fullmatch(r"in hand:?\s*w\s*(\d+)\s*b\s*(\d+)", low):
            fields["hand"] = (int(m.group(1)), int(m.group(2)))
        elif m := re.fullmatch(r"men to deploy:\s*(\d+)\s+(\d+)", low):
            fields["hand"] = (int(m.group(1)), int(m.group(2)))
        elif m := re.fullmatch(r"(?:turn|turn number):?\s*(\d+)", low):
            fields["turn"] = int(m.group(1))
        elif m := re.fullmatch(r"quiet:?\s*(\d+)", low):
            fields["quiet"] = int(m.group(1))
        elif low.startswith("last move formed a mill"):
            fields["removing"] = True
        elif m := re.fullmatch(r"history((?:\s+[0-9a-f]{16})+)", low):
            fields["history"] = [_signed(int(key, 16)) for key in m.group(1).split()]
        elif m := re.fullmatch(r"options((?:\s+[a-z_]+=\d+)+)", low):
            pairs = dict(pair.split("=") for pair in m.group(1).split())
            unknown = sorted(set(pairs) - set(OPTIONS))
            if unknown:
                raise ValueError(f"unknown option(s) {', '.join(unknown)} in the Nine Men's Morris position {text!r}; "
                                 f"options: {', '.join(OPTIONS)}")
            if any(len(value) > 7 for value in pairs.values()):
                raise ValueError(f"an option's value is too large in {text!r} (at most {rules.MAX_OPTION})")
            fields["options"] = {key: int(value) for key, value in pairs.items()}
        elif low.startswith("num men:"):
            continue  # implied by the board and the stones in hand
        elif low in ("w wins", "b wins"):
            fields["result"] = SEATS.index(low[0].upper())
        elif low == "draw":
            fields["result"] = rules.DRAW
        else:
            raise ValueError(
                f"cannot read {item!r} in the Nine Men's Morris position {text!r}; status "
                "items are 'W to move', 'B to remove', 'in hand W 3 B 2', 'turn 20', "
                "'quiet 4', 'history <16 hex digits> ...', 'W wins', 'B wins', 'draw'"
            )
    most = 10**9  # far beyond any game, well inside int64
    for key in ("turn", "quiet"):
        if fields.get(key, 0) > most:
            raise ValueError(f"{key} {fields[key]} in the Nine Men's Morris position {text!r} is "
                             f"beyond any game (at most {most})")
    if fields.get("quiet", 0) > fields.get("turn", 0) and "turn" in fields:
        raise ValueError(f"impossible Nine Men's Morris position {text!r}: quiet {fields['quiet']} counts "
                         f"turns without a removal, so it cannot exceed turn {fields['turn']}")
    return fields


_KEY_MASK = (1 << 64) - 1


def _signed(key: int) -> int:
    return key - (1 << 64) if key >= 1 << 63 else key


def _place_history(s: np.ndarray, keys: list[int] | None, over: bool, text: str) -> None:
    """Lay out the repetition stack of a parsed position: one key per completed turn, the
    current segment's keys (given, or just the position's own) at its top, and the repetition
    threats that the turn ends before the top one found (``settle`` judges the top one, as in
    play, unless the game is over or a removal is pending: then it was judged already)."""
    if s[rules.HIST_CAP] == 0:
        if keys:
            raise ValueError(f"a history was given but these rules keep none ({text!r})")
        rules.start_segment(s)
        return
    length = int(s[rules.TURNS]) + 1  # the start position plus one key per completed turn
    if length > s[rules.HIST_CAP]:
        raise ValueError(f"turn {s[rules.TURNS]} is beyond the longest game these rules allow "
                         f"({s[rules.HIST_CAP] - 1} turns) ({text!r})")
    given = keys is not None
    keys = list(keys) if given else [int(rules.position_key(s))]
    if len(keys) > length:
        raise ValueError(f"a history of {len(keys)} positions is longer than the {length} the game "
                         f"has had by turn {s[rules.TURNS]} ({text!r})")
    if not s[rules.REMOVING] and keys[-1] != rules.position_key(s):
        raise ValueError(f"the history does not end at this position ({text!r})")
    start = length - len(keys)
    s[rules.HIST_LEN] = length
    s[rules.SEG_START] = start
    s[rules.HISTORY + start : rules.HISTORY + length] = keys
    s[rules.THREATS] = 0
    repetition = int(s[rules.OPT_REPETITION])
    judged = len(keys) if given and (over or s[rules.REMOVING]) else len(keys) - 1
    for i in range(judged):
        seen = 1 + sum(keys[j] == keys[i] for j in range(i - 2, -1, -2))
        if repetition > 0 and seen == repetition - 1:
            s[rules.THREATS] ^= keys[i]


@njit(cache=True)
def batch_run(mode, ints, f32, f64, flags):
    """The batched env's entry: the generic batch kernels bound to this game's rules (named
    through their modules: numba caches module attributes, not bare global functions)."""
    return batching.run_batch(rules.legal_actions, rules.apply_action, rules.returns,
                              rules.chance_outcomes, rules.observe, batching.no_reset_hook, mode, ints, f32, f64, flags)


GAME = Game(
    id="nine_mens_morris",
    title="Nine Men's Morris",
    state_class=NineMensMorrisState,
    kernels=rules.KERNELS,
    observe=rules.observe,
    batch_run=batch_run,
    schema=rules.SCHEMA,
    num_players=2,
    num_actions=rules.NUM_ACTIONS,
    undo_size=rules.UNDO_SIZE,
    apply_and_list=rules.apply_and_list,
    check_rows=rules.check_rows,
    encode=features.encode,
    features_into=features.features_into,
    net_value=features.net_value,
    options=OPTIONS,
    heuristics={
        "weighted": Heuristic(
            "weighted",
            rules.evaluate_weighted,
            default_params=rules.DEFAULT_WEIGHTS,
            param_names=rules.FEATURES,
            description="weighted sum of stones, mills, blocked stones, open mills, double "
            "mills and mobility (differences, own minus opponent's)",
        ),
        "stones": Heuristic(
            "stones", rules.evaluate_stones, description="stone difference (board and hand)"
        ),
    },
    default_heuristic="weighted",
    canonical_hash=canonical_hash,
    draw=drawing.svg,
    docs="docs/nine_mens_morris.md",
    seat_names=("W", "B"),
    default_opponent="alphabeta:depth=3",
    hint_agent="alphabeta:depth=4",
    click=drawing.click,
    view_options=drawing.view_options,
    board_text=drawing.board_text,
)
