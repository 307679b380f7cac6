"""Where agents think: the server's searches run in worker processes, off the request path.

A compiled search holds the interpreter while it runs; in the server's own process one client's
long search would stall every other request. ``MoveService(workers=N)`` keeps N processes
(spawned, at lower priority than the server) that build agents and answer "what does this agent
play here"; a request waits for its answer in a thread while the server goes on answering the
others. A search that outlives ``seconds`` has its process replaced and the request answered
503, the game unchanged. ``workers=0`` computes in the calling thread (tests, embedding).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections import OrderedDict
from typing import Any

from plies.agents.specs import install_registered, make, picklable_registry
from plies.games.state import GameState

MOVE_SECONDS = 60.0
"""The longest an agent may think about one move in the server (``plies serve --move-seconds``)."""
CHECK_SECONDS = 60.0  # building an agent (loading its network) is not a move: it has its own allowance
AGENTS_PER_WORKER = 8  # agents kept between moves: a search's tables take 5-15 MB each


class MoveTimeout(RuntimeError):
    """An agent took longer than the server allows for one move."""


class AgentError(RuntimeError):
    """An agent failed while choosing a move (its error, as text)."""


def _handle(task: tuple, agents: OrderedDict) -> int | None:
    """Do one task: ``("check", game, spec)`` builds the agent once (a ValueError for a wrong
    spec); ``("act", key, game, spec, seed, state)`` returns the move of the agent kept under
    ``key`` (built on first use)."""
    if task[0] == "check":
        _, game, spec = task
        make(spec, seed=0, game=game)
        return None
    _, key, game, spec, seed, state = task
    agent = agents.get(key)
    if agent is None:
        agent = agents[key] = make(spec, seed=seed, game=game)
        while len(agents) > AGENTS_PER_WORKER:
            agents.popitem(last=False)
    agents.move_to_end(key)
    return int(agent.act(state))


def _answer(task: tuple, agents: OrderedDict) -> tuple[str, Any]:
    try:
        return "ok", _handle(task, agents)
    except (ValueError, TypeError) as err:
        return ("invalid" if task[0] == "check" else "error"), str(err)
    except Exception as err:  # an agent that fails: the request says so, the server goes on
        return "error", f"{type(err).__name__}: {err}"


def _worker(conn, registered: dict[str, Any]) -> None:
    """A worker process: answer tasks until the server closes the pipe (or dies)."""
    if hasattr(os, "nice"):
        os.nice(5)  # the server's requests come first on a busy machine
    install_registered(registered)
    agents: OrderedDict = OrderedDict()
    conn.send(("ready", None))  # the clock of a move starts after the imports
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        conn.send(_answer(task, agents))


class _Process:
    def __init__(self, context, registered: dict[str, Any]) -> None:
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_worker, args=(theirs, registered), daemon=True,
                                       name="plies-serve-moves")
        self.process.start()
        theirs.close()
        self.ready = False

    def stop(self, kill: bool = False) -> None:
        try:
            if kill:
                self.process.kill()
            else:
                self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.process.join(timeout=5)
        self.conn.close()


class MoveService:
    """Agents' moves for the server, in ``workers`` processes (0: in the calling thread)."""

    def __init__(self, workers: int = 0, seconds: float = MOVE_SECONDS) -> None:
        if workers < 0 or seconds <= 0:
            raise ValueError(f"workers must be >= 0 and seconds > 0, not {workers} and {seconds}")
        self.workers = workers
        self.seconds = seconds
        self.agents: OrderedDict = OrderedDict()  # workers=0: the agents live here
        self.inline_lock = threading.Lock()
        self.idle: queue.Queue[_Process] = queue.Queue()
        self.context = multiprocessing.get_context("spawn")
        self.registered = picklable_registry() if workers else {}
        self.closed = False
        for _ in range(workers):
            self.idle.put(_Process(self.context, self.registered))

    def check(self, game: str, spec: str) -> None:
        """Build ``spec``'s agent once: a ValueError saying what is wrong with it."""
        self._run(("check", game, spec), max(self.seconds, CHECK_SECONDS))

    def move(self, key: str, game: str, spec: str, seed: int, state: GameState) -> int:
        """The move of the agent ``spec`` kept under ``key`` (one per game and seat) in ``state``."""
        action = self._run(("act", key, game, spec, seed, state.clone()))
        assert action is not None
        return action

    def _run(self, task: tuple, seconds: float | None = None) -> int | None:
        if self.workers == 0:
            with self.inline_lock:
                status, value = _answer(task, self.agents)
        else:
            status, value = self._remote(task, seconds or self.seconds)
        if status == "invalid":
            raise ValueError(value)
        if status == "error":
            raise AgentError(value)
        return value

    def _remote(self, task: tuple, seconds: float) -> tuple[str, Any]:
        worker = self.idle.get()  # waits while every process is busy
        try:
            if not worker.ready:
                worker.conn.recv()
                worker.ready = True
            worker.conn.send(task)
            if not worker.conn.poll(seconds):
                worker.stop(kill=True)
                worker = _Process(self.context, self.registered)
                raise MoveTimeout(f"the agent did not move within {seconds:g} s (plies serve "
                                  "--move-seconds); the game is unchanged")
            return worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError) as err:
            worker.stop(kill=True)
            worker = _Process(self.context, self.registered)
            raise AgentError(f"the agent's process ended while it thought ({type(err).__name__}); "
                             "the game is unchanged") from None
        finally:
            if self.closed:
                worker.stop()
            else:
                self.idle.put(worker)

    def close(self) -> None:
        """Stop the processes (the server's shutdown)."""
        self.closed = True
        while True:
            try:
                self.idle.get_nowait().stop()
            except queue.Empty:
                return
