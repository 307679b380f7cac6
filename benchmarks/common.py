"""Shared timing loops: random playouts through plies and its peers, measured the same way."""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable

import numpy as np


def machine() -> str:
    import os

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def rate(run: Callable[[], int], seconds: float = 2.0) -> float:
    """Steps per second of ``run`` (which returns the steps it made), repeated for ~seconds."""
    run()  # warm-up (compilation, caches)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run()
    return steps / (time.perf_counter() - start)


def plies_state_playout(new_state: Callable) -> Callable[[], int]:
    choice = random.Random(0).choice

    def run() -> int:
        state = new_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = state.chance_outcomes()
                state.apply_unchecked(int(outcomes[np.searchsorted(np.cumsum(probs), random.random() * probs.sum())]))
            else:
                state.apply_unchecked(choice(state.legal_actions()))
            steps += 1
        return steps

    return run


def openspiel_playout(game) -> Callable[[], int]:
    choice = random.Random(0).choice

    def run() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = random.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
                state.apply_action(action)
            else:
                state.apply_action(choice(state.legal_actions()))
            steps += 1
        return steps

    return run


def aec_playout(env, mask_in_info: bool = False) -> Callable[[], int]:
    """A PettingZoo AEC loop with action masks, as users write it (plies or PettingZoo envs;
    ``mask_in_info`` for envs that give the mask in ``info``, as Shimmy's do)."""
    choice = random.Random(0).choice

    def run() -> int:
        env.reset()
        steps = 0
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = info["action_mask"] if mask_in_info else obs["action_mask"]
                action = choice(np.flatnonzero(mask).tolist())
            env.step(action)
            steps += 1
        return steps

    return run


def report(title: str, rows: list[tuple[str, float]], baseline: str, unit: str = "steps/s") -> str:
    base = dict(rows)[baseline]
    lines = [f"## {title}", f"| what | {unit} | vs {baseline} |", "|---|---:|---:|"]
    for name, value in rows:
        lines.append(f"| {name} | {value:,.0f} | {value / base:.2f}x |")
    return "\n".join(lines)
