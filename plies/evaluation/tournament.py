"""Tournaments: who plays whom, playing one game, and running many in worker processes."""

from __future__ import annotations

import itertools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from plies.agents.specs import install_registered, picklable_registry
from plies.agents.specs import make as make_agent
from plies.agents.wrappers import checked_action
from plies.envs.loop import GameLoop
from plies.evaluation.interrupts import raise_swallowed_stop, remembered_stops, sigint_ignored
from plies.evaluation.schedules import ScheduledGame, course_schedule
from plies.evaluation.store import GameRecord, ResultStore
from plies.games.registry import GameEntry, register_game, state_class
from plies.games.registry import entries as game_entries
from plies.games.state import GameState


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides a tournament's games: equal configs play equal games."""

    game: str
    agents: tuple[str, ...]
    games: int
    seed: int = 0
    opening_plies: int = 0
    focus: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    clock: tuple[float, float] | None = None  # seconds at the start, seconds added per decision
    schedule: str = "rotations"  # or "course": plies.evaluation.schedules.course_schedule

    def as_dict(self) -> dict[str, Any]:
        fields = {
            "clock": list(self.clock) if self.clock else None,
            "game": self.game,
            "agents": list(self.agents),
            "games": self.games,
            "seed": self.seed,
            "opening_plies": self.opening_plies,
            "focus": self.focus,
            "options": self.options,
        }
        if self.schedule != "rotations":  # stored tournaments from before the option still match
            fields["schedule"] = self.schedule
        return fields

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        """The config ``as_dict`` wrote (results files store it)."""
        clock = data.get("clock")
        return cls(data["game"], tuple(data["agents"]), int(data["games"]), int(data.get("seed", 0)),
                   int(data.get("opening_plies", 0)), data.get("focus"), dict(data.get("options") or {}),
                   tuple(clock) if clock else None)


SCHEDULES = ("rotations", "course")


def _num_players(config: TournamentConfig) -> int:
    return state_class(config.game).initial(np.random.default_rng(0), **config.options).num_players


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """The games of a tournament, each with its seed and seating.

    Two players: every pair of agents meets in ``games`` games, played in pairs that share a
    seed (same opening, same dice) with the seats swapped. More players: blocks of games that
    share a seed and play every rotation of one seating; the seating is the agents themselves
    when there are exactly as many as seats, otherwise the ``focus`` agent (if any) plus
    opponents drawn from the rest, seeded. ``games`` is then the total number of games.
    ``config.schedule == "course"``: ``schedules.course_schedule`` instead.
    """
    if config.schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {config.schedule!r}; schedules: {', '.join(SCHEDULES)}")
    if config.schedule == "course":
        return course_schedule(config.agents, _num_players(config), config.games, config.seed, config.focus)
    agents = list(config.agents)
    if len(set(agents)) != len(agents):
        raise ValueError("each agent spec may appear once; give a copy a different name")
    n = _num_players(config)
    if config.games < 1:
        raise ValueError(f"games must be >= 1, got {config.games}")
    root = np.random.SeedSequence(config.seed)
    out: list[ScheduledGame] = []
    if n == 2:
        if len(agents) < 2:
            raise ValueError("a two-player tournament needs at least two agents")
        for a, b in itertools.combinations(agents, 2):
            for k in range(config.games):
                pair = k // 2
                seed = int(np.random.SeedSequence([config.seed, agents.index(a), agents.index(b), pair]).generate_state(1)[0])
                seats = (a, b) if k % 2 == 0 else (b, a)
                out.append(ScheduledGame(len(out), seed, seats))
        return out
    if config.focus is not None and config.focus not in agents:
        raise ValueError(f"focus agent {config.focus!r} is not among the agents")
    if len(agents) < n and config.focus is None:
        raise ValueError(f"{config.game} with {n} players needs at least {n} agents (or a focus agent)")
    rng = np.random.default_rng(root)
    block = 0
    while len(out) < config.games:
        if config.focus is not None:
            pool = [a for a in agents if a != config.focus]
            picks = rng.choice(len(pool), size=n - 1, replace=len(pool) < n - 1)
            lineup = [config.focus] + [pool[i] for i in picks]
        elif len(agents) == n:
            lineup = list(agents)
        else:
            lineup = [agents[i] for i in rng.choice(len(agents), size=n, replace=False)]
        seed = int(np.random.SeedSequence([config.seed, block]).generate_state(1)[0])
        for r in range(n):
            if len(out) == config.games:
                break
            out.append(ScheduledGame(len(out), seed, tuple(lineup[r:] + lineup[:r])))
        block += 1
    return out


class AgentTimeout(BaseException):
    """An agent's decision ran past its clock (raised inside the agent by an alarm; a
    BaseException, so an agent's own ``except Exception`` does not swallow it)."""


GRACE_SECONDS = 1.0
"""How long past its clock a decision may run before it is interrupted (Python code only:
compiled search is interrupted when it returns to Python)."""


def _decide(agent: Any, state: GameState, spec: str, limit: float | None) -> int:
    """The agent's action, checked: an integer and legal. ``limit`` (seconds) interrupts a
    decision that hangs, where the process can set an alarm (the main thread, POSIX)."""
    alarm = limit is not None and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if alarm:
        def on_alarm(signum, frame):
            raise AgentTimeout(f"agent {spec!r} ran past its clock")

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, max(limit, 1e-3))
    try:
        action = agent.act(state)
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
    return checked_action(spec, action, state.action_mask().astype(bool))
_plan = schedule  # run_tournament's parameter `schedule` hides the function's name


def play_game(
    config: TournamentConfig,
    scheduled: ScheduledGame,
    observer: Callable[[GameState, int | None], None] | None = None,
) -> GameRecord:
    """Play one scheduled game to the end (or the game's move cap).

    ``observer(state, action)`` is called with the start position (action None) and after
    every action, chance outcomes included (to show or record a game). An agent that cannot
    be built, raises, returns a non-integer or illegal action, or (with a clock) hangs past
    its time forfeits the game; ``errors`` in the record says why."""
    cls = state_class(config.game)
    rng = np.random.default_rng(scheduled.seed)
    state = cls.initial(rng, **config.options)
    seats = scheduled.seats
    if len(seats) != state.num_players:
        raise ValueError(f"game {scheduled.index}: {config.game} here has {state.num_players} seats, "
                         f"but its lineup names {len(seats)} agents ({', '.join(seats)})")
    errors = [""] * len(seats)
    forfeit: int | None = None
    agents = []
    for seat, spec in enumerate(seats):
        try:
            agents.append(make_agent(spec, seed=scheduled.seed + seat, game=config.game))
        except Exception as err:  # a user's factory may raise anything: the game is forfeited
            raise_swallowed_stop()  # unless the error is a stop that compiled code turned into it
            errors[seat] = f"could not build the agent: {type(err).__name__}: {err}"
            forfeit = seat if forfeit is None else forfeit
            agents.append(None)
    times = [0.0] * len(seats)
    counts = [0] * len(seats)
    timeouts = [0] * len(seats)
    budget = [config.clock[0] if config.clock else 0.0] * len(seats)
    loop = GameLoop(state, rng, observer=observer)  # chance, the move cap, the result
    loop.start()
    if forfeit is not None:
        loop.forfeit(forfeit)
    while not loop.finished:
        player = state.current_player
        if loop.decisions < config.opening_plies:
            action = int(rng.choice(state.legal_actions()))
        else:
            start = time.perf_counter()
            limit = budget[player] + config.clock[1] + GRACE_SECONDS if config.clock else None
            try:
                action = _decide(agents[player], state, seats[player], limit)
            except AgentTimeout:
                action = -1  # over the clock: handled below
            except Exception as err:  # whatever a user's agent raises forfeits its game
                raise_swallowed_stop()  # unless the error is a stop that compiled code turned into it
                errors[player] = f"{type(err).__name__}: {err}"
                loop.forfeit(player)
                break
            used = time.perf_counter() - start
            times[player] += used
            counts[player] += 1
            if config.clock:
                budget[player] += config.clock[1] - used
                if budget[player] < 0 or action < 0:
                    timeouts[player] += 1
                    budget[player] = 0.0
                    replacement = state.timeout_action()
                    if replacement is None:
                        errors[player] = "ran past its clock"
                        loop.forfeit(player)
                        break
                    action = replacement
        loop.play(action)
    returns = loop.returns()
    plies = loop.decisions
    return GameRecord(
        index=scheduled.index,
        seed=scheduled.seed,
        seats=list(seats),
        returns=[float(r) for r in returns],
        plies=plies,
        truncated=loop.truncated,
        decision_seconds=times,
        decisions=counts,
        actions=state.history,
        timeouts=timeouts,
        errors=errors,
    )


BACKENDS = ("process", "ray")
PARENT_POLL_SECONDS = 0.5


def registries() -> tuple[dict[str, Any], list[GameEntry]]:
    """What a worker must know of this process: the users' registered agents (checked to
    travel) and every registered game (a user's game is found by its module path)."""
    return picklable_registry(), game_entries()


def install_registries(known: tuple[dict[str, Any], list[GameEntry]]) -> None:
    agents, games = known
    install_registered(agents)
    for entry in games:
        register_game(entry.id, entry.target, entry.gym_id)


def _start_worker(parent: int, known: tuple[dict[str, Any], list[GameEntry]]) -> None:
    """A worker's set-up: it ends when its parent does, and knows the users' agents and games."""
    exit_with_parent(parent)
    install_registries(known)


def exit_with_parent(parent: int) -> None:
    """In a worker: end this process when ``parent`` is gone (killed with SIGKILL, its pool
    never says goodbye), so no worker outlives the tournament that started it."""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="plies-exit-with-parent", daemon=True).start()


def play_games(
    config: TournamentConfig,
    games: Sequence[ScheduledGame],
    workers: int = 1,
    backend: str = "process",
) -> Iterator[GameRecord]:
    """Play scheduled games and yield each record as soon as its game ends (in any order).

    ``backend="process"`` uses worker processes on this machine (``workers <= 1``: this
    process); ``"ray"`` sends games to a Ray cluster (``ray.init()`` is called if needed, so a
    local instance starts when no cluster is configured, and ends with this process even when
    it is killed: plies.evaluation.ray_watchdog). Workers import plies once and keep
    the compiled searches loaded between games. Tournaments and self-play both use this.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if backend == "ray":
        yield from _play_with_ray(config, games, workers)
    elif workers <= 1 or len(games) <= 1:
        for scheduled in games:
            with remembered_stops():  # for callers outside the CLI too; not held across the yield
                record = play_game(config, scheduled)
                raise_swallowed_stop()  # a stop lost inside a compiled search: the game is not kept
            yield record
    else:
        known = registries()  # users' registered agents and games, sent to every worker
        entries = known[0]
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                   initializer=_start_worker, initargs=(os.getpid(), known))
        try:
            queue = iter(games)
            # workers are spawned by these first submits and inherit Ctrl-C ignored: the parent
            # alone takes it and ends them (a worker still importing plies would print a traceback)
            with sigint_ignored():
                started = pool.submit(int, 0)
                running = {pool.submit(play_game, config, g) for g in itertools.islice(queue, workers * 2)}
            try:
                started.result()
            except BrokenProcessPool as err:
                raise RuntimeError(
                    "worker processes could not start; a script that runs tournaments with "
                    "workers > 1 needs an `if __name__ == \"__main__\":` guard (processes are "
                    "spawned and import the script again), and agents added with register() must "
                    f"be importable by the workers (registered: {', '.join(entries) or 'none'})"
                ) from err
            while running:
                complete, running = wait(running, return_when=FIRST_COMPLETED)
                for future in complete:
                    yield future.result()
                    nxt = next(queue, None)
                    if nxt is not None:
                        running.add(pool.submit(play_game, config, nxt))
        except BaseException:  # Ctrl-C, an error, or the caller stopped reading: unfinished games are dropped
            stop_workers(pool)
            raise
        finally:
            # a second Ctrl-C inside the shutdown would stop it before the workers are told to end,
            # and the interpreter would hang at exit joining them
            with sigint_ignored():
                pool.shutdown(wait=True, cancel_futures=True)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's workers now, their games unfinished (``terminate_workers`` from Python 3.14)."""
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.is_alive():
            process.terminate()


def _play_with_ray(config: TournamentConfig, games: Sequence[ScheduledGame], workers: int) -> Iterator[GameRecord]:
    from plies.evaluation.ray_watchdog import start_ray

    ray = start_ray(workers)
    entries = registries()
    remote_play = ray.remote(_play_with_registry)
    queue = iter(games)
    running = [remote_play.remote(entries, config, g) for g in itertools.islice(queue, max(1, workers) * 2)]
    while running:
        done, running = ray.wait(running, num_returns=1)
        for ref in done:
            yield ray.get(ref)
            nxt = next(queue, None)
            if nxt is not None:
                running.append(remote_play.remote(entries, config, nxt))


def _play_with_registry(entries: tuple[dict[str, Any], list[GameEntry]], config: TournamentConfig,
                        scheduled: ScheduledGame) -> GameRecord:
    """``play_game`` in a worker that first learns the users' registered agents."""
    install_registries(entries)
    return play_game(config, scheduled)


@dataclass
class TournamentResult:
    config: TournamentConfig
    records: list[GameRecord]

    def table(self):
        from plies.evaluation.table import WinRateTable

        return WinRateTable.from_records(self.records, list(self.config.agents))

    def summary(self) -> str:
        """The table with 95% Wilson intervals and ratings (needs the ``eval`` extra)."""
        from plies.evaluation.report import format_summary

        return format_summary(self.table(), self.records)


def run_tournament(
    game: str,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int | None = None,
    results: str | Path | None = None,
    resume: bool = False,
    opening_plies: int = 0,
    focus: str | None = None,
    options: dict[str, Any] | None = None,
    progress: bool = True,
    backend: str = "process",
    clock: tuple[float, float] | None = None,
    schedule: str = "rotations",
) -> TournamentResult:
    """Play a tournament; every finished game is stored at once when ``results`` is given,
    and ``resume=True`` skips the games that file already holds. ``clock=(start, increment)``
    gives each agent a time budget (seconds) per game; what happens to an agent over it is
    the game's rule (``GameState.timeout_action``: its turn ends, or it forfeits).
    ``schedule="course"`` plays the Dice Wars course's schedule (plies.evaluation.schedules)
    instead of ``schedule``'s default rotations."""
    from tqdm.auto import tqdm

    for spec in agents:  # fail early on a bad spec or a game an agent cannot play, before any game
        make_agent(spec, game=game)
    config = TournamentConfig(game, tuple(agents), games, seed, opening_plies, focus, dict(options or {}),
                              tuple(clock) if clock else None, schedule)
    plan = _plan(config)
    store = ResultStore(results, config.as_dict(), resume) if results else None
    done = store.done() if store else set()
    records: dict[int, GameRecord] = {r.index: r for r in store.records()} if store else {}
    pending = [g for g in plan if g.index not in done]
    workers = (os.cpu_count() or 1) if workers is None else workers
    bar = tqdm(total=len(plan), initial=len(plan) - len(pending), disable=not progress, desc=f"{game} tournament")
    try:
        for record in play_games(config, pending, workers, backend):
            records[record.index] = record
            if store:
                store.add(record)
            bar.update(1)
    finally:
        bar.close()
        if store:
            store.close()
    return TournamentResult(config, [records[i] for i in sorted(records)])


def self_play(
    game: str,
    seats: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    backend: str = "process",
    opening_plies: int = 0,
    options: dict[str, Any] | None = None,
) -> list[GameRecord]:
    """Games for training data: ``seats`` gives the agent spec of every seat (the same spec
    may sit several times); each game gets its own seed. Records carry the full action list,
    so every position can be replayed. Runs on the same backends as tournaments."""
    config = TournamentConfig(game, tuple(dict.fromkeys(seats)), games, seed, opening_plies, None, dict(options or {}))
    plan = [
        ScheduledGame(i, int(np.random.SeedSequence([seed, i]).generate_state(1)[0]), tuple(seats))
        for i in range(games)
    ]
    records = sorted(play_games(config, plan, workers, backend), key=lambda r: r.index)
    for record in records:  # training data must not hold forfeited games
        for spec, error in zip(record.seats, record.errors):
            if error:
                raise RuntimeError(f"self-play game {record.index}: agent {spec!r} forfeited: {error}")
    return records
