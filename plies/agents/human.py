"""A person at the terminal: shows the board and the legal moves, asks until a move is legal."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from plies.agents.base import BaseAgent
from plies.envs.core import GameState


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
                return state.string_to_action(text)
            except ValueError as err:
                print(f"{err}; try again", file=self.out)
