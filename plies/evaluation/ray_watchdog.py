"""Starting Ray for plies, and a watchdog that ends Ray's processes with the process that started them.

``ray.init()`` starts a local instance (gcs_server, raylet, its agents and workers). Ray ties
the processes it spawns itself to their parent (Linux: ``PR_SET_PDEATHSIG``), but the
raylet's own children are not: killed with SIGKILL, a tournament (Ray 2.60) left the
dashboard and runtime-env agents running for about a minute.
So when plies starts Ray itself, it also starts this file as a small process
(``python -I ray_watchdog.py PARENT ROOT...``) that every ``POLL_SECONDS`` notes the processes
Ray started and their descendants (Linux: read from /proc), and kills them (SIGTERM, then
SIGKILL after ``GRACE_SECONDS``) once the parent is gone. It exits by itself when the parent
ends (after the same clean-up: nothing of Ray should outlive it) or when Ray's processes are
all gone (``ray.shutdown()``). A Ray that the user started, or a cluster that ``ray.init()``
connects to (``RAY_ADDRESS``), is left alone.

This file imports only the standard library: the watchdog runs it by path, not as a module of
plies, so it starts fast (no numpy, no numba) and needs nothing importable.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

POLL_SECONDS = 0.5
GRACE_SECONDS = 3.0

ProcessTable = dict[int, tuple[int, int, str]]
"""pid -> (parent pid, start time in clock ticks since boot, state letter), from /proc."""

_watchdogs: list[subprocess.Popen] = []  # kept, so their exit statuses are collected


def start_ray(workers: int) -> Any:
    """The ``ray`` module, initialised: a Ray that is already running (the user's ``ray.init``)
    is used as it is; a cluster named by ``RAY_ADDRESS`` is joined; otherwise a local instance
    starts with ``workers`` CPUs, and a watchdog that ends it with this process."""
    try:
        import ray
    except ImportError as err:
        raise ImportError('the ray backend needs Ray: pip install "plies[ray]"') from err
    if ray.is_initialized():
        return ray
    # ray.init replaces the SIGTERM handler with its own sys.exit; one installed before it (the
    # CLI's, which stops a command as Ctrl-C does) is put back
    on_sigterm = signal.getsignal(signal.SIGTERM)
    keep = callable(on_sigterm) and threading.current_thread() is threading.main_thread()
    try:
        if os.environ.get("RAY_ADDRESS"):  # a cluster: its size is its own (num_cpus is refused there)
            ray.init(log_to_driver=False)
            return ray
        before = set(_children(os.getpid()))
        ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
    finally:
        if keep:
            signal.signal(signal.SIGTERM, on_sigterm)
    # the processes ray.init spawned here are Ray's (gcs_server, raylet, ...); the raylet's
    # workers and agents come later and are found below these
    roots = sorted(set(_children(os.getpid())) - before)
    if roots:
        start_watchdog(os.getpid(), roots)
    return ray


def start_watchdog(parent: int, roots: list[int]) -> subprocess.Popen | None:
    """Start the watchdog over ``roots`` and their descendants, ending them when ``parent``
    (this process) is gone. Only where /proc lists processes (Linux) and Python knows its own
    interpreter; elsewhere ``None``."""
    if not os.path.isdir("/proc/self") or not sys.executable:
        return None
    # -I: the standard library only; neither the working folder nor PYTHONPATH can shadow it
    process = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__), str(parent), *map(str, roots)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _watchdogs[:] = [w for w in _watchdogs if w.poll() is None] + [process]
    return process


def process_table() -> ProcessTable:
    """Every process /proc lists now."""
    table: ProcessTable = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # ended while we looked
            continue
        # the command name in parentheses may hold spaces and parentheses: split after the last ")"
        fields = stat[stat.rindex(b")") + 2:].split()
        table[int(name)] = (int(fields[1]), int(fields[19]), fields[0].decode())
    return table


def _children(pid: int) -> list[int]:
    if not os.path.isdir("/proc/self"):
        return []
    return [p for p, (ppid, _, _) in process_table().items() if ppid == pid]


def descendants(table: ProcessTable, roots: dict[int, int]) -> dict[int, int]:
    """``roots`` (pid -> start time) that still run, and everything below them: pid -> start
    time. A pid now used by a later process (another start time) is not a root any more."""
    found = {pid: start for pid, start in roots.items() if _alive(table, pid, start)}
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    todo = list(found)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found and table[child][2] != "Z":
                found[child] = table[child][1]
                todo.append(child)
    return found


def _alive(table: ProcessTable, pid: int, start: int) -> bool:
    entry = table.get(pid)
    return entry is not None and entry[1] == start and entry[2] != "Z"  # a zombie has ended


def end_processes(tracked: dict[int, int], grace: float = GRACE_SECONDS) -> None:
    """SIGTERM the tracked processes (and what they started since), SIGKILL those still there
    after ``grace`` seconds. Signals go only to a pid whose start time still matches, so a pid
    the system gave to an unrelated process meanwhile is spared."""
    tracked = descendants(process_table(), tracked)
    _signal(tracked, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while tracked and time.monotonic() < deadline:
        time.sleep(0.1)
        table = process_table()
        tracked = {pid: start for pid, start in tracked.items() if _alive(table, pid, start)}
    if tracked:
        _signal(descendants(process_table(), tracked), signal.SIGKILL)


def _signal(processes: dict[int, int], sig: int) -> None:
    table = process_table()
    for pid, start in processes.items():
        if _alive(table, pid, start):
            try:
                os.kill(pid, sig)
            except OSError:  # ended meanwhile, or not ours to signal
                pass


def watch(parent: int, roots: list[int]) -> None:
    """The watchdog's loop: note the roots' process trees until ``parent`` is gone (then end
    them) or the trees are (then there is nothing left to do)."""
    table = process_table()
    tracked = descendants(table, {pid: table[pid][1] for pid in roots if pid in table})
    while tracked:
        if os.getppid() != parent:  # our parent started us; once it ends we are someone else's
            end_processes(tracked)
            return
        time.sleep(POLL_SECONDS)
        # every tracked process that still runs stays tracked, also one whose parent ended
        # (the raylet's agents outlive it): then nothing links it to Ray any more
        tracked = descendants(process_table(), tracked)


def main(argv: list[str]) -> None:
    # Ctrl-C, or the terminal closing, reaches the whole process group: the parent acts on it,
    # and the watchdog must still be there to clean up if that ends the parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    parent, *roots = map(int, argv)
    watch(parent, roots)


if __name__ == "__main__":
    main(sys.argv[1:])
