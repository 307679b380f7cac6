"""Tournaments between agents, their stored results and win-rate tables."""

from plies.evaluation.store import GameRecord, ResultStore
from plies.evaluation.table import WinRateTable
from plies.evaluation.tournament import (
    TournamentConfig,
    TournamentResult,
    play_game,
    play_games,
    run_tournament,
    schedule,
    self_play,
)

__all__ = [
    "GameRecord",
    "ResultStore",
    "TournamentConfig",
    "TournamentResult",
    "WinRateTable",
    "play_game",
    "play_games",
    "run_tournament",
    "schedule",
    "self_play",
]
