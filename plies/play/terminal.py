"""``plies play`` at the terminal: people type moves (or ``undo``, ``hint``, ``quit``), agents
answer, and every line says which seat did what."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from plies.agents.human import parse_move
from plies.games.state import GameState
from plies.play.match import HUMAN, Match

COMMANDS = "undo (back to your last move), hint [AGENT], quit"


class Quit(Exception):
    """The person asked to stop."""


def board_text(state: GameState, viewer: int) -> str:
    """The position as text for a person at ``viewer``, as the game declares (Nine Men's Morris
    with its a-g / 1-7 labels, backgammon numbered from the viewer's side)."""
    return state.game.board_text(state, viewer)


def play_in_terminal(match: Match, read: Callable[[str], str] | None = None, out: TextIO | None = None,
                     show: bool = False, on_action: Callable[[GameState], None] | None = None) -> bool:
    """Play ``match`` to its end; False if a person quit. ``show``: print the board after every
    move (always when a person plays)."""
    out = out or sys.stdout
    read = read or input
    game = match.game
    printed = 0

    def flush() -> None:
        nonlocal printed
        printed = min(printed, len(match.log))
        for line in match.log[printed:]:
            print(line.text, file=out)
        printed = len(match.log)

    print(f"{game}: " + " vs ".join(match.label(s) for s in range(len(match.seats))), file=out)
    if on_action:
        on_action(match.state)
    while not match.over():
        if match.human_to_move():
            flush()
            try:
                _human_turn(match, read, out)
            except Quit:
                flush()
                return False
        else:
            match.step()
            flush()
            if show and not match.humans and not match.state.is_chance_node():
                print(board_text(match.state, match.viewer) + "\n", file=out)
        if on_action:
            on_action(match.state)
    flush()
    print(board_text(match.state, match.viewer), file=out)
    return True


def _human_turn(match: Match, read: Callable[[str], str], out: TextIO) -> None:
    state = match.state
    seat = state.current_player
    print(board_text(state, seat), file=out)
    moves = " ".join(state.action_to_string(int(a)) for a in state.legal_actions())
    print(f"{match.label(seat)} to move; moves: {moves}\n  or: {COMMANDS}", file=out)
    while True:
        try:
            text = read("your move> ").strip()
        except EOFError:
            raise Quit from None
        word, _, rest = text.partition(" ")
        if word.lower() in ("quit", "q", "exit"):
            raise Quit
        try:
            if word.lower() == "undo":
                match.undo_to_human()
                print("taken back", file=out)
                return
            if word.lower() == "hint":
                action = match.hint(rest.strip() or None)
                print(f"hint: {state.action_to_string(action)}", file=out)
                continue
            if not text:
                continue
            match.play(parse_move(state, text))
            return
        except ValueError as err:
            print(f"{err}; try again", file=out)


def human_seats_ok(match: Match) -> None:
    """Games a person cannot play at the terminal say where to play them."""
    if not match.declared.plays_in_text and HUMAN in match.seats:
        raise ValueError(f"{match.declared.title} is played on its drawing: run `plies serve` and play it in the "
                         "browser (agents-only games can be watched here with --show)")
