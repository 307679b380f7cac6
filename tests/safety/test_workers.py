"""Worker processes end when the tournament that started them is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest


def _children(pid: int) -> set[int]:
    """Every process whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_a_tournament_leaves_no_worker_running():
    proc = subprocess.Popen(
        [sys.executable, "-m", "plies.cli", "tournament", "--game", "connect_four", "--agents", "random",
         "alphabeta:depth=4", "--games", "2000", "--workers", "2", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = _children(proc.pid)
            assert proc.poll() is None, "the tournament ended before it could be killed"
        assert len(workers) >= 2, f"workers did not start: {workers}"
        time.sleep(1.5)  # let the workers import plies and start their games
        workers |= _children(proc.pid)  # with multiprocessing's resource tracker
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if _alive(p)]
        assert not left, f"processes still running after the tournament was killed: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in workers:  # only the processes this test started, if the fix failed
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
