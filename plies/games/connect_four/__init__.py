"""Connect Four: bitboard rules for any board up to 64 bits, and an exact solver."""

from __future__ import annotations

from plies.games.connect_four.state import ConnectFourState


def solve(moves: str, weak: bool = False, width: int = 7, height: int = 6) -> tuple[int, list[int]]:
    """The exact score of the position after ``moves`` (1-based column digits, e.g. ``"4453"``)
    and its best moves (1-based columns). See :func:`plies.games.connect_four.solver.solve`."""
    from plies.games.connect_four.solver import solve as _solve  # compiled on first use

    return _solve(moves, weak=weak, width=width, height=height)


def __getattr__(name: str):
    # the solver's kernels compile (or load from numba's cache) on first use, not on import
    if name in ("Solver", "SolveResult", "get_solver"):
        from plies.games.connect_four import solver

        return getattr(solver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ConnectFourState", "SolveResult", "Solver", "get_solver", "solve"]
