"""Batched environments: plies.envs.vector against pgx (JAX), OpenSpiel and PettingZoo, in one run.

Random-policy steps per second: plies ``step(sample_actions())`` at batch 1, 64, 1,024 and
4,096; pgx's vmapped ``step`` under ``auto_reset`` with its random policy inside one jitted
``fori_loop`` (so Python never runs between steps); one game at a time through OpenSpiel's
Python API and PettingZoo's AEC loop. A step is one player decision (chance outcomes are not
counted; plies and pgx resolve them inside the step). Backgammon is also given in games/s.

python -m benchmarks.bench_vector [--seconds 1] [--games tictactoe,connect_four]
                                  [--batches 1,64,1024,4096] [--no-pgx]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import aec_playout, machine

BATCHES = (1, 64, 1024, 4096)
PGX_NAMES = {"tictactoe": "tic_tac_toe", "connect_four": "connect_four", "backgammon": "backgammon",
             "othello": "othello"}
OPENSPIEL_NAMES = {
    "tictactoe": "tic_tac_toe", "connect_four": "connect_four",
    "nine_mens_morris": "nine_mens_morris", "backgammon": "backgammon",
}
PETTINGZOO = {"tictactoe": "tictactoe_v3", "connect_four": "connect_four_v3"}


def timed(run, seconds: float) -> float:
    """Steps per second of ``run`` (which returns the steps it made), warmed up first."""
    run()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run()
    return steps / (time.perf_counter() - start)


def plies_vector(game: str, batch: int, parallel: bool | None, repeats: int = 20):
    import plies.envs.vector as pv

    env = pv.make(game, batch, seed=0, parallel=parallel)
    step, sample = env.step, env.sample_actions

    def run() -> int:
        for _ in range(repeats):
            step(sample())
        return repeats * batch

    return run


def plies_game_length(game: str, batch: int = 256, steps: int = 2000) -> float:
    """Mean player decisions per finished game (for games/s = steps/s / length)."""
    import plies.envs.vector as pv

    env = pv.make(game, batch, seed=1)
    games = 0
    for _ in range(steps):
        _, _, terminations, truncations, _ = env.step(env.sample_actions())
        games += int(terminations.sum() + truncations.sum())
    return batch * steps / max(1, games)


def pgx_vector(game: str, batch: int, repeats: int = 50):
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(PGX_NAMES[game])
    step = jax.vmap(auto_reset(env.step, env.init))

    def body(_, carry):
        state, key, games = carry
        key, k_action, k_step = jax.random.split(key, 3)
        logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
        action = jax.random.categorical(k_action, logits, axis=-1)
        state = step(state, action, jax.random.split(k_step, batch))
        return state, key, games + (state.terminated | state.truncated).sum(dtype=jnp.int32)

    @jax.jit
    def loop(state, key):
        return jax.lax.fori_loop(0, repeats, body, (state, key, jnp.int32(0)))

    key = jax.random.PRNGKey(0)
    carry = [jax.jit(jax.vmap(env.init))(jax.random.split(key, batch)), key]

    def run() -> int:
        state, k, games = loop(carry[0], carry[1])
        carry[2] += int(games)  # waits for the device
        carry[3] += repeats * batch
        carry[0], carry[1] = state, k
        return repeats * batch

    carry += [0, 0]  # finished games, steps
    return run, carry


def openspiel_decisions(name: str):
    import pyspiel

    game = pyspiel.load_game(name)
    choice = random.Random(0).choice

    def run() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(random.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def pettingzoo_aec(name: str):
    from pettingzoo import classic

    return aec_playout(getattr(classic, name).env())


def fmt(value: float) -> str:
    return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--games", default="tictactoe,connect_four,nine_mens_morris,dice_wars,backgammon")
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)))
    parser.add_argument("--no-pgx", action="store_true", help="skip pgx (JAX)")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}\n")
    try:
        import pgx  # noqa: F401

        have_pgx = not args.no_pgx
    except ImportError:
        have_pgx = False
        print("(pgx not installed: pip install jax jaxlib pgx)\n")
    for game in args.games.split(","):
        try:
            timed(plies_vector(game, 1, False), 0.01)
        except (ValueError, ImportError, ModuleNotFoundError) as error:
            print(f"## {game}: skipped ({error})\n")
            continue
        print(f"## {game}: random-policy steps/s")
        print("| what | " + " | ".join(f"batch {b:,}" for b in batches) + " |")
        print("|---|" + "---:|" * len(batches))
        rows: dict[str, list[float]] = {}
        for label, parallel in (("plies.envs.vector serial", False), ("plies.envs.vector prange", True)):
            rows[label] = [timed(plies_vector(game, b, parallel), args.seconds) for b in batches]
        pgx_length = None
        if have_pgx and game in PGX_NAMES:
            rows["pgx (JAX CPU, jitted loop)"] = []
            for b in batches:
                run, carry = pgx_vector(game, b)
                rows["pgx (JAX CPU, jitted loop)"].append(timed(run, args.seconds))
            if game == "backgammon":  # its mean game length, from a longer run
                run, carry = pgx_vector(game, 64)
                for _ in range(40):
                    run()
                pgx_length = carry[3] / max(1, carry[2])
        singles = {}
        if game in OPENSPIEL_NAMES:
            singles["OpenSpiel (Python API, one game)"] = timed(openspiel_decisions(OPENSPIEL_NAMES[game]), args.seconds)
        if game in PETTINGZOO:
            singles[f"PettingZoo {PETTINGZOO[game]} (AEC, one game)"] = timed(pettingzoo_aec(PETTINGZOO[game]), args.seconds)
        for label, values in rows.items():
            print(f"| {label} | " + " | ".join(fmt(v) for v in values) + " |")
        for label, value in singles.items():
            print(f"| {label} | {fmt(value)} |" + " |" * (len(batches) - 1))
        best = [max(rows[k][i] for k in rows if k.startswith("plies")) for i in range(len(batches))]
        peer = "pgx (JAX CPU, jitted loop)"
        if peer in rows:
            print("| plies best / pgx | " + " | ".join(
                f"{b / p:.1f}x" for b, p in zip(best, rows[peer])) + " |")
        for label, value in singles.items():
            print(f"| plies best / {label.split(' (')[0]} | " + " | ".join(
                f"{b / value:.1f}x" for b in best) + " |")
        if game == "backgammon":
            length = plies_game_length(game)
            print(f"\ngames/s (steps/s / mean decisions per game; plies {length:.1f}"
                  + (f", pgx {pgx_length:.1f}" if pgx_length else "") + "):")
            print("| what | " + " | ".join(f"batch {b:,}" for b in batches) + " |")
            print("|---|" + "---:|" * len(batches))
            for label, values in rows.items():
                per_game = pgx_length if label == peer else length
                print(f"| {label} | " + " | ".join(f"{v / per_game:,.0f}" for v in values) + " |")
        print()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
