"""``solver``: perfect Connect Four play where the exact solver finishes within the budget,
alpha-beta with the heuristic before that (early in the game)."""

from __future__ import annotations

from plies.agents.alphabeta import AlphaBetaSearch
from plies.agents.base import BaseAgent, Range
from plies.games.state import GameState

NODES_PER_SECOND = 3_000_000
"""Solver speed assumed to turn the time budget into a node limit (measured: 3.5-4.5M/s)."""


class SolverAgent(BaseAgent):
    """``solver:budget=1.0,depth=8,eval=cells``.

    Each move first asks the exact solver for every column's score, allowing it
    ``budget`` seconds' worth of nodes; among the columns of the best score (the quickest win,
    else a draw, else the slowest loss) it picks one at random. If the solver runs out of
    budget, an alpha-beta search to ``depth`` plies with the ``eval`` heuristic (and at most
    ``budget`` seconds) chooses instead. ``last`` tells which of the two chose the last move.
    """

    spec_name = "solver"
    description = "the exact Connect Four solver within a node budget, alpha-beta before that"
    games = ("connect_four",)
    limits = {"budget": Range(0, 3600, open_low=True), "depth": Range(1, 64, integer=True)}

    def __init__(
        self,
        *,
        budget: float = 1.0,
        depth: int = 8,
        eval: str = "cells",
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed, name)
        if budget <= 0:
            raise ValueError(f"budget must be > 0 seconds, got {budget}")
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self.budget = budget
        self.depth = depth
        self.searcher = AlphaBetaSearch(eval)
        self.last = ""
        self.last_scores: list[int | None] | None = None

    def act(self, state: GameState) -> int:
        from plies.games.connect_four.solver import get_solver

        if state.game.id != "connect_four":
            raise ValueError(f"the solver agent plays Connect Four, not {state.game.id}")
        solver = get_solver(state.width, state.height)  # type: ignore[attr-defined]
        scores = solver.column_scores(state, node_limit=int(self.budget * NODES_PER_SECOND))
        self.last_scores = scores
        if scores is not None:
            best = max(v for v in scores if v is not None)
            self.last = "solver"
            return self.choose([c for c, v in enumerate(scores) if v == best])
        self.last = "alphabeta"
        result = self.searcher.search(state, self.depth, time_limit=self.budget)
        return self.choose(result.best_moves)
