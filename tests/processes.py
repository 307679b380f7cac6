"""Helpers for tests that stop whole commands: which processes of a group are still running."""
import sys
from pathlib import Path

import pytest

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table from /proc")


def live_members(group: int) -> list[int]:
    """The processes of a process group still running (zombies not counted), read from /proc."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(int(stat.parent.name))
    return members
