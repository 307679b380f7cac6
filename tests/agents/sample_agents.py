"""Users' agents for the tests: importable, so worker processes can build them."""

from __future__ import annotations

import time

import numpy as np


class FirstLegal:
    """A user's agent class that is not a plies BaseAgent: plays the lowest legal action."""

    def __init__(self, offset: int = 0, seed: int | None = None, name: str = "first") -> None:
        self.offset = offset
        self.name = name

    def act(self, state) -> int:
        legal = state.legal_actions()
        return int(legal[min(self.offset, len(legal) - 1)])

    def reset(self, seed=None) -> None:
        pass


def last_legal_policy(observation: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def make_first(offset: int = 0):
    """A factory function (keyword parameters become the spec's)."""
    return FirstLegal(offset)


def broken_factory():
    raise RuntimeError("no weights found")


class Illegal:
    name = "illegal"

    def act(self, state):
        return 10_000


class NotAnInteger:
    name = "float"

    def act(self, state):
        return 1.5


class Crashes:
    name = "crashes"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, state):
        raise KeyError("lost my table")


class Sleeper:
    """Hangs on its first decision."""

    name = "sleeper"

    def act(self, state):
        time.sleep(30)
        return int(state.legal_actions()[0])
