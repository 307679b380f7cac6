"""A small table of one measurement's rows, for the game-specific scripts (searches, solvers).

The generic timings (playouts, AEC envs, batched envs, per-call costs) are benchmarks/run.py's.
"""

from __future__ import annotations


def report(title: str, rows: list[tuple[str, float]], baseline: str, unit: str = "steps/s") -> str:
    base = dict(rows)[baseline]
    lines = [f"## {title}", f"| what | {unit} | vs {baseline} |", "|---|---:|---:|"]
    for name, value in rows:
        lines.append(f"| {name} | {value:,.0f} | {value / base:.2f}x |")
    return "\n".join(lines)
