"""PettingZoo's own classic environments, through the same AEC loop as plies's env."""

from __future__ import annotations

import importlib

from benchmarks.subject import aec_loop
from benchmarks.timing import Unavailable, Workload

NAME = "PettingZoo"
GAMES = {"tictactoe": "tictactoe_v3", "connect_four": "connect_four_v3"}
LABELS = {"aec": "PettingZoo classic env (AEC)",
          "single": "PettingZoo classic env (AEC), the first seat's steps (the other replies at random)"}


def missing() -> str | None:
    try:
        importlib.import_module("pettingzoo.classic")
    except ImportError as error:
        return f"{error} (pip install 'pettingzoo[classic]')"
    return None


def same_as(kind: str, variant: str) -> str:
    return variant


def workload(kind: str, game: str, variant: str) -> Workload:
    if kind not in LABELS or game not in GAMES:
        raise Unavailable(f"PettingZoo has no {kind} measurement of {game}")
    module = importlib.import_module(f"pettingzoo.classic.{GAMES[game]}")
    return aec_loop(module.env(), learner_only=kind == "single")
