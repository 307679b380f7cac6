"""A person at the terminal: shows the board and the legal moves, asks until a move is legal."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TextIO

from plies.agents.base import BaseAgent
from plies.games.state import GameState


class HumanAgent(BaseAgent):
    """``human``: reads moves in the game's notation (or action numbers) from standard input."""

    spec_name = "human"
    description = "a person typing moves at the terminal"

    def __init__(
        self,
        *,
        seed: int | None = None,
        name: str | None = None,
        read: Callable[[str], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        super().__init__(seed, name)
        self.read = read or input
        self.out = out or sys.stdout

    def act(self, state: GameState) -> int:
        print(state.render_text(), file=self.out)
        legal = [state.action_to_string(int(a)) for a in state.legal_actions()]
        print(f"player {state.current_player} to move; legal moves: {' '.join(legal)}", file=self.out)
        while True:
            try:
                text = self.read("your move> ")
            except EOFError:
                raise SystemExit("no more input: game abandoned") from None
            try:
                return parse_move(state, text)
            except ValueError as err:
                print(f"{err}; try again", file=self.out)


def parse_move(state: GameState, text: str) -> int:
    """A move typed by a person: one of the names shown (``*`` and case ignored) or, where the
    game reads other spellings (``xd7``), those; never a bare action number."""
    legal = [int(a) for a in state.legal_actions()]
    names = {state.action_to_string(a).lower().replace("*", ""): a for a in legal}
    key = text.strip().lower().replace("*", "")
    if key in names:
        return names[key]
    shown = list(names)
    every = [state.action_to_string(a) for a in range(state.num_actions)]
    if re.fullmatch(r"-?\d+", key) and all(re.fullmatch(r"\d+", n) for n in every):
        low, high = min(map(int, every)), max(map(int, every))
        where = "out of range" if not low <= int(key) <= high else "not playable now"
        raise ValueError(f"{text.strip()!r} is {where}: moves are {low} to {high} "
                         f"(playable now: {' '.join(shown)})")
    if not re.fullmatch(r"-?\d+", key):
        try:
            return state.string_to_action(text)
        except ValueError:
            pass
    raise ValueError(f"{text.strip()!r} is not a move here; moves: {' '.join(shown)}")
