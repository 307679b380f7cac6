"""The backgammon write-up's players and test loop, over plies' generic expectiminimax.

``ValuePlayer(color, value)`` picks the afterstate with the best value (1-ply);
``TwoPlyValuePlayer`` and ``ThreePlyValuePlayer`` look one and two rolls further (the
write-up's 2-ply and 3-ply; gnubg calls them 1-ply and 2-ply). ``value`` is a heuristic name
of the game (``"singleton"``, ``"pips"``, ...) or a ``plies.games.kernels.Heuristic``. Colors are
``"black"`` (X, seat 0) and ``"white"`` (O, seat 1), as in the write-up.
"""

from __future__ import annotations

import time

import numpy as np

from plies.agents.evaluator_specs import evaluator_for
from plies.agents.evaluators import HeuristicEvaluator
from plies.agents.expectiminimax import ExpectiminimaxAgent
from plies.games.backgammon import BackgammonState
from plies.games.kernels import Heuristic
from plies.games.registry import game_ids, get_game
from plies.games.state import sample_chance

PLAYERS = ("black", "white")


class ValuePlayer:
    """1-ply: the move whose resulting position has the best value."""

    depth = 1

    def __init__(self, color: str, value: str | Heuristic = "singleton", seed: int | None = None):
        if color not in PLAYERS:
            raise ValueError(f"color must be one of {PLAYERS}, not {color!r}")
        self.color = color
        self.seat = PLAYERS.index(color)
        probe = BackgammonState()
        if isinstance(value, Heuristic):
            others = [game.id for game in map(get_game, game_ids()) if game.id != probe.game.id
                      and any(value is h for h in game.heuristics.values())]
            if others:  # its kernel would read a backgammon state as another game's
                raise ValueError(f"the heuristic {value.name!r} is {others[0]}'s, not backgammon's")
            self.value_name = value.name
            evaluator = HeuristicEvaluator(value.kernel, value.params(), value.name, game=probe.game)
        else:
            self.value_name = value
            evaluator = evaluator_for(probe, value)
        self.agent = ExpectiminimaxAgent(depth=self.depth, evaluator=evaluator, seed=seed)

    def act(self, state: BackgammonState) -> int:
        return self.agent.act(state)

    def get_name(self) -> str:
        return f"{type(self).__name__} [{self.value_name}]"


class TwoPlyValuePlayer(ValuePlayer):
    """2-ply: expected value over the opponent's 21 rolls of its best reply."""

    depth = 2


class ThreePlyValuePlayer(ValuePlayer):
    """3-ply: as 2-ply, then the expectation over one more own roll of the best move."""

    depth = 3


def test(players: list[ValuePlayer], n: int, seed: int = 0) -> dict[str, int]:
    """Plays n games and prints each winner and the totals, as the write-up's PlayerTest."""
    by_seat = {p.seat: p for p in players}
    if sorted(by_seat) != [0, 1]:
        raise ValueError("need one black and one white player")
    rng = np.random.default_rng(seed)
    wins = {color: 0 for color in reversed(PLAYERS)}
    start = time.perf_counter()
    for game in range(n):
        state = BackgammonState()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_unchecked(sample_chance(state, rng))
            else:
                state.apply(by_seat[state.current_player].act(state))
        winner = by_seat[int(np.argmax(state.returns()))]
        wins[winner.color] += 1
        print(f"Spiel {game} von {n} geht an {winner.get_name()} ( {winner.color} )")
    print()
    print(wins)
    print(f"{n} Spiele in  {time.perf_counter() - start} Sekunden")
    return wins
