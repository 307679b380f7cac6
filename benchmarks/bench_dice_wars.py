"""Dice Wars timings: map generation, bot games, search decisions (random play through the
GameState, the AEC env and the batched env: ``python -m benchmarks.run --games dice_wars``).

Neither OpenSpiel nor PettingZoo has Dice Wars, so there is no peer to time against; the
figures are plies' own, against the targets of the issue (1,000 games of four strength_diff
bots under 60 s; a depth-3 expectiminimax decision under 20 ms median on the default map).

    python benchmarks/bench_dice_wars.py [--games 1000]
    python benchmarks/bench_dice_wars.py --tournament 1000 --agent dw_expectiminimax:depth=3
    python benchmarks/bench_dice_wars.py --tournament 1000 --agent none   # the course bots alone
    python benchmarks/bench_dice_wars.py --net-decisions 50   # depth-3 network player's decisions
    python benchmarks/bench_dice_wars.py --map-stats 300      # map statistics of both generators
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore", message="First-class function type")

from plies.agents import make  # noqa: E402
from plies.agents.dice_wars_bots import STRENGTH_DIFF, play_bot_game  # noqa: E402
from plies.games.dice_wars import DiceWarsState  # noqa: E402
from plies.games.dice_wars.maps import MAP_GENERATORS, generate_map, map_statistics  # noqa: E402
from plies.games.state import sample_chance  # noqa: E402


def bench_maps(count: int) -> float:
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(count):
        generate_map(rng)
    return (time.perf_counter() - start) / count


def print_map_statistics(count: int) -> None:
    """Mean and standard error over ``count`` seeded maps (seeds 0..count-1) of each generator
    (the table in docs/dice_wars.md)."""
    for generator in MAP_GENERATORS:
        start = time.perf_counter()
        rows = [map_statistics(generate_map(np.random.default_rng(s), generator=generator))
                for s in range(count)]
        seconds = (time.perf_counter() - start) / count
        print(f"{generator} generator, {count} maps, {seconds * 1e3:.1f} ms a map:")
        for key in rows[0]:
            values = np.array([r[key] for r in rows])
            print(f"  {key:12s} mean {values.mean():7.3f}  standard error "
                  f"{values.std(ddof=1) / np.sqrt(count):6.3f}  range {values.min():g}-{values.max():g}")


def bench_compiled_bot_games(games: int) -> tuple[float, int]:
    """Four strength_diff bots, whole games in compiled code (map generation included)."""
    rng = np.random.default_rng(1)
    kinds = np.full(4, STRENGTH_DIFF, np.int64)
    params = np.zeros((4, 4))
    no_record = np.zeros((0, 4), np.int64)
    warm = DiceWarsState.initial(rng)
    play_bot_game(warm.array, kinds, params, 0, no_record)
    finished = 0
    start = time.perf_counter()
    for g in range(games):
        state = DiceWarsState.initial(rng)
        play_bot_game(state.array, kinds, params, g, no_record)
        finished += state.winner is not None
    return time.perf_counter() - start, finished


def bench_python_bot_games(games: int) -> tuple[float, int]:
    """The same through the GameState API, one agent decision and one chance draw at a time
    (what an environment or the tournament engine does)."""
    rng = np.random.default_rng(2)
    agents = [make("strength_diff", seed=i) for i in range(4)]
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        state = DiceWarsState.initial(rng)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_unchecked(sample_chance(state, rng))
            else:
                state.apply_unchecked(agents[state.current_player].act(state))
            plies += 1
    return time.perf_counter() - start, plies


def decision_positions(count: int) -> list[DiceWarsState]:
    """First decisions of a turn with attacks available (so that every player searches),
    from games of strength_diff bots."""
    rng = np.random.default_rng(4)
    bot = make("strength_diff", seed=0)
    positions: list[DiceWarsState] = []
    while len(positions) < count:
        state = DiceWarsState.initial(rng)
        step = 0
        while not state.is_terminal() and len(positions) < count:
            if state.is_chance_node():
                state.apply_unchecked(sample_chance(state, rng))
                continue
            if (step % 7 == 0 and state.attacks_this_turn == 0
                    and len(state.legal_actions()) > 1):
                positions.append(state.clone())
            state.apply_unchecked(bot.act(state))
            step += 1
    return positions


def bench_search(spec: str, positions: list[DiceWarsState]) -> tuple[float, float]:
    agent = make(spec, seed=0)
    agent.act(positions[0])  # compile / load the cache
    times = []
    for state in positions:
        start = time.perf_counter()
        agent.act(state)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), float(np.max(times))


POOL = ["dt.rand", "dt.sdc", "dt.ste", "dt.wpm_c", "xlogin00"]
"""The course's five bots under their course names (docs/dice_wars.md)."""


def _wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def report_tournament(agent: str, games: int, seed: int, schedule: str, workers: int) -> None:
    """The report's tournament: ``agent`` in every 4-player game (the course's evaluation of
    one AI: it is always the pivot), opponents from the pool of the five course bots, seeded
    maps, every rotation of each seating; ``agent="none"``: the course bots among themselves."""
    from plies.evaluation.tournament import run_tournament

    start = time.perf_counter()
    agents = POOL if agent == "none" else [agent, *POOL]
    focus = None if agent == "none" else agent
    result = run_tournament("dice_wars", agents, games, seed=seed, focus=focus, workers=workers,
                            progress=True, schedule=schedule)
    table = result.table()
    print(f"{games} games, schedule {schedule}, seed {seed}, {workers} worker(s): "
          f"{time.perf_counter() - start:.0f} s")
    for name in agents:
        tally = table.totals[name]
        low, high = _wilson(tally.wins, tally.games)
        print(f"  {name:40s} {tally.wins:5d}/{tally.games:<5d} won = {100 * tally.win_rate:5.1f}% "
              f"(95% Wilson {100 * low:.1f}-{100 * high:.1f}%)")
    print(table.format())


def bench_net_decisions(spec: str, count: int) -> None:
    """Decision time of the network player on the first decisions of turns (course maps):
    wall-clock and this process's CPU time (the latter less sensitive to a loaded machine)."""
    positions = decision_positions(count)
    agent = make(spec, seed=0)
    agent.act(positions[0])  # load the network, compile the search
    wall, cpu = [], []
    for state in positions:
        w, c = time.perf_counter(), time.process_time()
        agent.act(state)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    print(f"{spec} over {len(positions)} decisions (target < 50 ms median): wall median "
          f"{np.median(wall) * 1e3:.1f} ms, max {np.max(wall) * 1e3:.1f} ms; CPU median "
          f"{np.median(cpu) * 1e3:.1f} ms, max {np.max(cpu) * 1e3:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--python-games", type=int, default=200)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--tournament", type=int, default=0,
                        help="also run the report's tournament with this many games")
    parser.add_argument("--agent", default="dw_expectiminimax:depth=3",
                        help="the agent under test; 'none': the course bots among themselves")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--schedule", choices=("course", "rotations"), default="course")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--net-decisions", type=int, default=0,
                        help="only time this many decisions of --net-spec")
    parser.add_argument("--net-spec", default="dw_expectiminimax:depth=3,eval=net")
    parser.add_argument("--map-stats", type=int, default=0,
                        help="only print the statistics of this many maps of each generator")
    args = parser.parse_args()
    if args.map_stats:
        print_map_statistics(args.map_stats)
        return
    if args.tournament:
        report_tournament(args.agent, args.tournament, args.seed, args.schedule, args.workers)
        return
    if args.net_decisions:
        bench_net_decisions(args.net_spec, args.net_decisions)
        return

    print(f"map generation (28x32, 29 areas): {bench_maps(50) * 1e3:.1f} ms a map")
    seconds, won = bench_compiled_bot_games(args.games)
    print(f"{args.games} games of 4 strength_diff bots, compiled loop: {seconds:.1f} s "
          f"({seconds / args.games * 1e3:.1f} ms a game, {won} won, target < 60 s)")
    seconds, plies = bench_python_bot_games(args.python_games)
    print(f"{args.python_games} games of 4 strength_diff bots through GameState/agents: "
          f"{seconds:.1f} s ({seconds / args.python_games * 1e3:.1f} ms a game, "
          f"{plies / seconds / 1e3:.0f}k plies/s; 1,000 games ~ {seconds / args.python_games * 1e3:.0f} s)")
    positions = decision_positions(args.positions)
    print(f"search decisions over {len(positions)} positions of the default map "
          f"(median / max ms):")
    for spec in (
        "dw_expectiminimax:depth=3",
        "expectiminimax:depth=3,limit=3,chance_limit=1,filter=5,eval=score",
        "dw_expectiminimax:depth=2,filter=0",
        "expectiminimax:depth=3,limit=3,chance_limit=1,eval=score",
    ):
        median, worst = bench_search(spec, positions)
        print(f"  {spec:70s} {median * 1e3:7.2f} / {worst * 1e3:7.1f}")


if __name__ == "__main__":
    main()
