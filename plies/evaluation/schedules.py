"""Who plays whom: the scheduled-game record and the course framework's tournament schedule.

``course_schedule`` follows the Dice Wars course's tournament script: groups are chosen one
at a time so that games spread evenly (the agent with the fewest games so far is the pivot,
the second agent is the one the pivot has met least, the rest are drawn at random), and each
group plays every rotation of one random seating, all on one map with one seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScheduledGame:
    index: int
    seed: int  # decides the set-up, the opening plies, the dice and the agents' tie-breaks
    seats: tuple[str, ...]


def course_groups(
    agents: Sequence[str], num_players: int, groups: int, rnd: random.Random, focus: str | None = None
) -> Iterator[list[str]]:
    """``groups`` groups of ``num_players`` distinct agents, chosen as the course does, one
    at a time (so that draws for the seatings can come between them, as in the course).

    A table counts, for every two agents, the groups they were in together (an agent with
    itself: its groups). Pivot: the agent in fewest group places so far (sum of its row; the
    first listed on ties), or ``focus`` always when given (the course's evaluation of one AI).
    Second: on the pivot's first group the agent listed after it, then the agent it met least
    (the first listed on ties). The other places: a random draw from the rest. Unlike the
    course, the pivot itself is never its own least-met opponent (the course's script stops
    with an assertion there, e.g. when every group holds every agent)."""
    agents = list(agents)
    if len(set(agents)) != len(agents):
        raise ValueError("each agent spec may appear once; give a copy a different name")
    if num_players < 2:
        raise ValueError(f"num_players={num_players}: a game needs at least 2 seats")
    if len(agents) < num_players:
        raise ValueError(
            f"the course schedule seats distinct agents: {num_players} players need at least "
            f"{num_players} agents, got {len(agents)}"
        )
    if focus is not None and focus not in agents:
        raise ValueError(f"focus agent {focus!r} is not among the agents")
    return _course_groups(agents, num_players, groups, rnd, focus)


def _course_groups(
    agents: list[str], num_players: int, groups: int, rnd: random.Random, focus: str | None
) -> Iterator[list[str]]:
    n = len(agents)
    met = np.zeros((n, n), np.int64)
    for _ in range(groups):
        if focus is None:
            totals = met.sum(axis=1)
            pivot = int(np.argmin(totals))  # argmin takes the first of equals, like a stable sort
        else:
            pivot = agents.index(focus)
        if met[pivot, pivot] == 0:
            second = (pivot + 1) % n
        else:
            row = met[pivot].astype(np.float64)
            row[pivot] = np.inf
            second = int(np.argmin(row))
        rest = [i for i in range(n) if i not in (pivot, second)]
        rnd.shuffle(rest)
        group = [pivot, second] + rest[: num_players - 2]
        for a in group:
            for b in group:
                met[a, b] += 1
        yield [agents[i] for i in group]


def course_rotations(group: Sequence[str], rnd: random.Random) -> list[tuple[str, ...]]:
    """Every rotation of one random seating of ``group``, in the course's order (shifted by
    one seat first, the drawn seating itself last)."""
    seating = list(group)
    rnd.shuffle(seating)
    k = len(seating)
    return [tuple(seating[(r + 1) % k:] + seating[: (r + 1) % k]) for r in range(k)]


def course_schedule(
    agents: Sequence[str], num_players: int, games: int, seed: int = 0, focus: str | None = None
) -> list[ScheduledGame]:
    """The course's tournament schedule: groups from ``course_groups``, each playing every
    rotation of one random seating on one map (the group's games share a seed: the same map,
    dealing and dice stream). ``games`` is the total number of games; use a multiple of
    ``num_players`` so that every group plays all its rotations."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    rnd = random.Random(seed)
    blocks = -(-games // num_players)
    out: list[ScheduledGame] = []
    for block, group in enumerate(course_groups(agents, num_players, blocks, rnd, focus)):
        game_seed = int(np.random.SeedSequence([seed, block]).generate_state(1)[0])
        for seats in course_rotations(group, rnd):
            if len(out) == games:
                break
            out.append(ScheduledGame(len(out), game_seed, seats))
    return out
