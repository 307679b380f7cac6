"""One game between people and agents, a decision at a time: what ``plies play`` and
``plies serve`` drive.

A :class:`Match` holds the position, the agents of the seats that are not ``human``, a seeded
generator for the dice, and a log of lines by seat (``O (alphabeta:depth=4) played 5``). People
play with :meth:`Match.play`, agents and chance with :meth:`Match.step`; :meth:`Match.undo_turn`
takes back a person's moves of the turn being played and :meth:`Match.undo_to_human` goes back
to a person's previous decision.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from plies.agents.specs import make as make_agent
from plies.games.kernels import action_index
from plies.games.registry import game_ids, get_game
from plies.games.state import GameState, sample_chance

HUMAN = "human"

@dataclass
class LogLine:
    """One entry of a game's log: who (seat, or None for chance) did what, after which ply."""

    seat: int | None
    text: str
    ply: int
    action: int = -1


def move_text(state: GameState, action: int, viewer: int | None) -> str:
    """``action`` named in ``state`` (before it is played) for a person sitting at ``viewer``,
    as the game declares (backgammon renumbers points to the viewer's side)."""
    return state.game.move_text(state, int(action), viewer)


class Match:
    """A game in progress between the agent specs in ``seats`` (``"human"`` for a person)."""

    def __init__(self, game: str, seats: list[str] | tuple[str, ...], seed: int | None = None,
                 options: dict[str, Any] | None = None, build_agents: bool = True) -> None:
        if game not in game_ids():
            raise ValueError(f"unknown game {game!r}; games: {', '.join(game_ids())}")
        self.game = game
        self.declared = get_game(game)
        # a game that takes a range of players gets as many as there are seats
        self.options = self.declared.seat_options(len(seats), dict(options or {}))
        self.seed = int(np.random.SeedSequence(seed).generate_state(1)[0]) if seed is None else int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.state = self.declared.state_class.initial(self.rng, **self.options)
        n = self.state.num_players
        seats = [str(s).strip() for s in seats]
        if len(seats) != n:
            low, high = self.declared.player_range
            extra = f" (it takes {low} to {high}: set num_players with a game option)" if low != high else ""
            raise ValueError(
                f"{game} takes {n} players, one agent spec per seat; got {len(seats)}: "
                f"{' '.join(seats) or 'none'}{extra}; e.g. --players human alphabeta:depth=4"
            )
        self.seats = seats
        self.agents: dict[int, Any] = {}  # built when first asked to move (see agent())
        if build_agents:  # a wrong spec is an error now, not at the agent's first move
            for seat in self.agent_seats:
                self.agent(seat)
        self.log: list[LogLine] = []
        self.version = 0  # counts changes: a request made on an older version is stale
        self.turn_start = 0  # ply at which the person now to move got the move
        self.viewer = self.humans[0] if self.humans else 0

    # ----- facts ----------------------------------------------------------------------------
    @property
    def humans(self) -> list[int]:
        return [seat for seat, spec in enumerate(self.seats) if spec == HUMAN]

    @property
    def agent_seats(self) -> list[int]:
        return [seat for seat, spec in enumerate(self.seats) if spec != HUMAN]

    def agent(self, seat: int) -> Any:
        """The agent of ``seat``, built the first time it is needed."""
        if seat not in self.agents:
            self.agents[seat] = make_agent(self.seats[seat], seed=self.seed + seat, game=self.declared.id)
        return self.agents[seat]

    @property
    def plies(self) -> int:
        return len(self.state.history)

    @property
    def moves(self) -> list[int]:
        """The players' actions so far, chance outcomes left out."""
        return [line.action for line in self.log if line.seat is not None]

    def label(self, seat: int) -> str:
        """``O (alphabeta:depth=4)`` or ``X (you)``."""
        spec = self.seats[seat]
        return f"{self.declared.seat_name(seat)} ({'you' if spec == HUMAN and len(self.humans) == 1 else spec})"

    def over(self) -> bool:
        return self.state.is_terminal() or self.plies >= self.state.max_game_length

    def human_to_move(self) -> bool:
        return not self.over() and self.state.current_player in self.humans

    def result_text(self) -> str:
        if not self.state.is_terminal():
            return "the game was stopped" if not self.over() else "the game reached its move cap (a draw)"
        returns = self.state.returns()
        best = float(returns.max())
        winners = [s for s in range(len(returns)) if returns[s] == best]
        if len(winners) == len(returns):
            return "draw"
        points = f" ({best:g} points)" if best > 1 else ""
        return " and ".join(self.label(s) for s in winners) + " won" + points

    # ----- moves ----------------------------------------------------------------------------
    def _apply(self, action: int, seat: int | None) -> None:
        state = self.state
        text = move_text(state, action, self.viewer)
        if state.is_chance_node():
            line = f"chance: {text}"
        else:
            line = f"{self.label(seat)} played {text}"
        state.apply(int(action))
        self.log.append(LogLine(seat, line, self.plies, int(action)))
        self.version += 1

    def play(self, action: int) -> None:
        """A person's move (checked: the person must be to move and the move legal)."""
        if self.over():
            raise ValueError("the game is over")
        if not self.human_to_move():
            raise ValueError("it is not a person's turn")
        action = action_index(action)  # 4.9 or "4" is not a move (int() would make it 4)
        if not self.state.is_legal(action):
            raise ValueError(self.state._illegal_message(action))
        seat = self.state.current_player
        self._apply(action, seat)
        self._continue_turn(seat)
        if self.human_to_move() and self.state.current_player != seat:
            self.turn_start = self.plies  # another person's turn begins (two people at one board)

    def _continue_turn(self, seat: int) -> None:
        """Roll the dice that belong to the mover's own turn (a Dice Wars battle) at once, so
        the person plays on; dice that pass the move to another seat wait for :meth:`step`."""
        if not self.state.is_chance_node():
            return
        probe, rng = self.state.clone(), copy.deepcopy(self.rng)
        while probe.is_chance_node():
            probe.apply_unchecked(sample_chance(probe, rng))
        if probe.current_player == seat:
            while self.state.is_chance_node():
                self._apply(sample_chance(self.state, self.rng), None)

    def agent_to_move(self) -> int | None:
        """The seat of the agent to decide now (None at a chance node, a person's turn or the end)."""
        if self.over() or self.state.is_chance_node() or self.state.current_player in self.humans:
            return None
        return self.state.current_player

    def step(self, action: int | None = None) -> None:
        """One agent decision, or the chance outcomes up to the next decision (a roll, a battle,
        every die of a reinforcement); then note where a person's turn starts. ``action``: the
        agent's move computed elsewhere (another process); it must be legal here."""
        state = self.state
        if self.over():
            raise ValueError("the game is over")
        if state.is_chance_node():
            while state.is_chance_node() and not self.over():
                self._apply(sample_chance(state, self.rng), None)
        elif state.current_player not in self.humans:
            seat = state.current_player
            if action is None:
                action = self.agent(seat).act(state.clone())
            else:
                action = action_index(action, "the agent's move")
                if not state.is_legal(action):
                    raise ValueError(f"the agent's move {action} is not legal here")
            self._apply(int(action), seat)
        else:
            raise ValueError("a person is to move")
        if self.human_to_move():
            self.turn_start = self.plies

    def advance_to_human(self) -> None:
        """Let chance and the agents play until a person is to move or the game ends."""
        while not self.over() and not self.human_to_move():
            self.step()

    def can_undo_turn(self) -> bool:
        """Whether the person who moved last can take back moves of the turn being played: only
        their own moves since their turn began, with no dice rolled or agent moved since."""
        return (bool(self.humans) and not self.state.is_terminal() and self.plies > self.turn_start
                and all(line.seat in self.humans for line in self.log[self.turn_start:]))

    def undo_turn(self) -> None:
        """Take back the person's last move of the turn being played."""
        if not self.can_undo_turn():
            raise ValueError("nothing to undo in this turn")
        self._undo_one()

    def undo_to_human(self) -> None:
        """Go back to the person's previous decision (taking back the agents' replies too)."""
        human_plies = [line.ply for line in self.log if line.seat in self.humans]
        if not human_plies:
            raise ValueError("no move of yours to take back yet")
        target = human_plies[-1] - 1
        while self.plies > target:
            self._undo_one()
        self.turn_start = min(self.turn_start, self.plies)

    def _undo_one(self) -> None:
        self.state.undo()
        self.log.pop()
        self.version += 1

    def hint(self, spec: str | None = None) -> int:
        """The move the agent ``spec`` (default: a strong one for the game) would play here."""
        if not self.human_to_move():
            raise ValueError("a hint is for a person to move")
        agent = make_agent(spec or self.declared.hint_agent, seed=self.seed, game=self.declared.id)
        return int(agent.act(self.state.clone()))

    # ----- saving -----------------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        """Everything needed to rebuild this match (JSON types only): the seats, seed and
        options, every action with its seat (None for chance), where the turn started, the
        version and the dice generator's state."""
        return {"game": self.game, "seats": list(self.seats), "seed": self.seed, "options": self.options,
                "moves": [[line.seat, line.action] for line in self.log], "turn_start": self.turn_start,
                "version": self.version, "rng": self.rng.bit_generator.state}

    @classmethod
    def from_record(cls, record: dict[str, Any], build_agents: bool = False) -> Match:
        """The match ``to_record`` described, replayed move by move (each move checked)."""
        match = cls(record["game"], record["seats"], seed=record["seed"], options=record["options"],
                    build_agents=build_agents)
        for seat, action in record["moves"]:
            if not match.state.is_chance_node() and match.state.current_player != seat:
                raise ValueError(f"move {action} is recorded for seat {seat}, but seat "
                                 f"{match.state.current_player} is to move")
            if match.over() or not match.state.is_legal(int(action)):
                raise ValueError(f"recorded move {action} is not legal after {match.plies} plies")
            match._apply(int(action), seat)
        match.turn_start = int(record["turn_start"])
        match.version = int(record["version"])
        match.rng.bit_generator.state = record["rng"]
        return match
