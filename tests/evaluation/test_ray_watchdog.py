"""Processes that plies starts for Ray end with the process that started them, even killed."""

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from plies.evaluation import ray_watchdog
from plies.evaluation.ray_watchdog import descendants

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="the watchdog reads /proc (Linux)")

ROOT = Path(__file__).resolve().parents[2]


def _tree(pid: int) -> dict[int, int]:
    """The processes below ``pid`` now: pid -> start time (read here, not with the code tested)."""
    parents, starts = {}, {}
    for name in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes() if name.isdigit() else None
        except OSError:
            continue
        if stat:
            fields = stat[stat.rindex(b")") + 2:].split()
            parents[int(name)], starts[int(name)] = int(fields[1]), int(fields[19])
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found[child] = starts[child]
                todo.append(child)
    return found


def _running(processes: dict[int, int]) -> dict[int, str]:
    """Those of ``processes`` still running (not ended, not a zombie): pid -> command line."""
    alive = {}
    for pid, start in processes.items():
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2:].split()
        if int(fields[19]) == start and fields[0] != b"Z":
            alive[pid] = command.strip()
    return alive


def _wait_gone(processes: dict[int, int], timeout: float) -> dict[int, str]:
    deadline = time.monotonic() + timeout
    while (alive := _running(processes)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


def _kill(processes: dict[int, int]) -> None:
    for pid in _running(processes):  # a failed test leaves nothing behind
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _start(script: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _wait_line(process: subprocess.Popen, expected: str, timeout: float) -> None:
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else ""
    assert line.strip() == expected, f"the script did not get ready ({line!r}; exit status {process.poll()})"


def test_descendants_follow_the_tree_and_skip_a_reused_pid():
    table = {1: (0, 5, "S"), 10: (1, 100, "S"), 11: (10, 101, "S"), 12: (11, 102, "S"),
             13: (11, 103, "Z"), 20: (1, 200, "S"), 30: (1, 999, "S")}
    assert descendants(table, {10: 100}) == {10: 100, 11: 101, 12: 102}  # the zombie has ended
    assert descendants(table, {12: 102, 20: 200}) == {12: 102, 20: 200}
    assert descendants(table, {30: 300}) == {}  # pid 30 is another process now
    assert descendants(table, {40: 400}) == {}


# A stand-in for ray.init: processes that ignore their parent's death (sleep, and a shell whose
# sleep is orphaned when the shell ends), handed to the watchdog as Ray's would be.
PARENT = """
    import os, subprocess, sys, time
    from plies.evaluation.ray_watchdog import start_watchdog
    roots = [subprocess.Popen(["sleep", "300"]).pid,
             subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"]).pid]
    start_watchdog(os.getpid(), roots)
    time.sleep(1.5)  # the watchdog has looked at the trees at least twice
    print("ready", flush=True)
    if sys.argv[-1] == "exit":
        sys.stdin.readline()  # the test has listed the processes: end now (not before, on a busy machine)
        os._exit(0)  # ending normally, but without reaping: the children stay
    time.sleep(300)
"""


@pytest.mark.parametrize("end", ["sigkill", "exit"])
def test_the_watchdog_ends_the_processes_with_their_parent(end):
    parent = _start(PARENT, end)
    processes: dict[int, int] = {}
    try:
        _wait_line(parent, "ready", 60)
        processes = _tree(parent.pid)
        commands = _running(processes)
        assert sum("sleep 300" == c for c in commands.values()) == 3, commands
        assert any("ray_watchdog" in c for c in commands.values()), commands
        if end == "sigkill":
            parent.kill()
        else:
            parent.stdin.write("go\n")
            parent.stdin.flush()
        parent.wait(30)
        started = time.monotonic()
        survivors = _wait_gone(processes, 15)
        assert not survivors, f"outlived their parent: {survivors}"
        assert time.monotonic() - started < ray_watchdog.GRACE_SECONDS + 5
    finally:
        parent.kill()
        parent.wait()
        _kill(processes)


def test_the_watchdog_exits_when_the_processes_end_first():
    sleeper = subprocess.Popen(["sleep", "300"])
    watchdog = ray_watchdog.start_watchdog(os.getpid(), [sleeper.pid])
    try:
        time.sleep(0.5)
        assert watchdog.poll() is None
        sleeper.kill()
        sleeper.wait()
        assert watchdog.wait(10) == 0  # like after ray.shutdown(): nothing left to watch
    finally:
        sleeper.kill()
        watchdog.kill()
        watchdog.wait()


def test_a_cluster_named_by_ray_address_is_joined_as_it_is(monkeypatch):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kwargs: calls.append(kwargs))
    monkeypatch.setattr(ray_watchdog, "start_watchdog", lambda *args: pytest.fail("a cluster got a watchdog"))
    monkeypatch.setenv("RAY_ADDRESS", "ray-head:6379")
    assert ray_watchdog.start_ray(4) is ray
    assert calls == [{"log_to_driver": False}]  # no num_cpus: Ray refuses it for a cluster


RAY_TOURNAMENT = """
    import time
    from plies.evaluation import TournamentConfig, play_games, schedule

    config = TournamentConfig("tictactoe", ("random", "random:name=other"), 4)
    games = play_games(config, schedule(config), workers=1, backend="ray")
    next(games)  # Ray is up and a worker has played a game
    time.sleep(2)  # the raylet's agents have started, and the watchdog has seen them
    print("playing", flush=True)
    time.sleep(600)
"""


@pytest.mark.slow
def test_ray_s_processes_end_when_the_tournament_is_killed():
    pytest.importorskip("ray", reason="the ray extra is not installed")
    tournament = _start(RAY_TOURNAMENT)
    processes: dict[int, int] = {}
    try:
        _wait_line(tournament, "playing", 180)
        processes = _tree(tournament.pid)
        commands = " | ".join(_running(processes).values())
        assert "raylet" in commands and "gcs_server" in commands and "ray_watchdog" in commands, commands
        tournament.kill()
        tournament.wait(30)
        # Ray's own fate-sharing leaves the raylet's agents running about a minute
        survivors = _wait_gone(processes, 20)
        assert not survivors, f"outlived the tournament: {survivors}"
    finally:
        tournament.kill()
        tournament.wait()
        _kill(processes)
