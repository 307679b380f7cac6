"""Self-play games as training data, on the tournament engine's backends.

Games are played by ``plies.evaluation.play_games`` (worker processes, or Ray), so any agent
specs can sit at the table; every record carries the full action list, chance outcomes
included, and ``replay`` walks through its positions again from the game's seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from plies.evaluation.store import GameRecord
from plies.evaluation.tournament import ScheduledGame, TournamentConfig, play_games
from plies.games.registry import state_class


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed`` (set-up, dice and tie-breaks)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def draw_lineups(pool: Sequence[str], weights: Sequence[float] | None, num_seats: int,
                 games: int, rng: np.random.Generator) -> list[tuple[str, ...]]:
    """One seating per game, each seat drawn from ``pool`` (with ``weights``)."""
    p = None if weights is None else np.asarray(weights, np.float64) / np.sum(weights)
    picks = rng.choice(len(pool), size=(games, num_seats), p=p)
    return [tuple(pool[i] for i in row) for row in picks]


def generate(
    game: str,
    lineups: Sequence[Sequence[str]],
    seed: int = 0,
    first_index: int = 0,
    workers: int = 1,
    backend: str = "process",
    options: dict[str, Any] | None = None,
    progress: bool = False,
) -> list[GameRecord]:
    """Play one game per lineup (game ``first_index + k`` gets ``game_seed(seed, ...)``) and
    return the records in order. Lineups may differ from game to game."""
    from tqdm.auto import tqdm

    specs = tuple(dict.fromkeys(s for lineup in lineups for s in lineup))
    config = TournamentConfig(game, specs, max(1, len(lineups)), seed, 0, None, dict(options or {}))
    plan = [
        ScheduledGame(first_index + k, game_seed(seed, first_index + k), tuple(lineup))
        for k, lineup in enumerate(lineups)
    ]
    records = []
    with tqdm(total=len(plan), disable=not progress, desc=f"{game} self-play") as bar:
        for record in play_games(config, plan, workers, backend):
            records.append(record)
            bar.update(1)
    return sorted(records, key=lambda r: r.index)


def replay(game: str, record: GameRecord, options: dict[str, Any] | None = None) -> Iterator[Any]:
    """The positions of a recorded game, from the start to the end (the same state object,
    advanced one action at a time: copy what you keep). Each action is checked against the
    position's legal ones (records may come from a file): one that is not legal there is a
    ValueError naming its ply, never a step the kernels take."""
    state = state_class(game).initial(np.random.default_rng(record.seed), **(options or {}))
    yield state
    for ply, action in enumerate(record.actions):
        if state.is_terminal():
            raise ValueError(f"game {record.index}: action {action!r} at ply {ply}, after the game ended")
        try:
            state.apply(int(action))
        except (TypeError, ValueError) as err:
            raise ValueError(f"game {record.index}: action {action!r} at ply {ply} is not legal there ({err})") from None
        yield state
