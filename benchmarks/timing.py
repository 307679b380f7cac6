"""The one timer every measurement goes through, plies and peers alike.

A workload is a function that does some work and returns how many units (steps, calls) it did.
``measure`` warms it up, then splits its time budget into repeats and reports the best and the
median rate over them. Imports nothing of plies or of the peers: the driver also loads it into
a process that runs an older plies checkout.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

Workload = Callable[[], int]

WARMUP_SECONDS = 0.2
"""Caches, lazy compilation and branch predictors settle within this (numba compilation itself
happens once per checkout, before any timing: see run.py's warm-up)."""


@dataclass(frozen=True)
class Rate:
    """Units per second over the repeats of one measurement."""

    best: float
    median: float
    repeats: int

    def to_dict(self) -> dict:
        return asdict(self)


def _run_for(workload: Workload, seconds: float) -> float:
    units, start = 0, time.perf_counter()
    while True:
        units += workload()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return units / elapsed


REPEATS = 5


def measure(workload: Workload, seconds: float, repeats: int = REPEATS) -> Rate:
    """Warm ``workload`` up, then run it ``repeats`` times for ``seconds / repeats`` each."""
    _run_for(workload, min(WARMUP_SECONDS, seconds))
    rates = [_run_for(workload, seconds / repeats) for _ in range(repeats)]
    return Rate(best=max(rates), median=statistics.median(rates), repeats=repeats)


def machine() -> str:
    """The processor, the cores and the load average when called."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, load average {load}")


class Unavailable(Exception):
    """This side cannot time this cell: it lacks the game, the call or its library."""
