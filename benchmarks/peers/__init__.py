"""One adapter per peer library. Each module holds its own table of the plies game ids it has
(and their names there) and offers:

- ``NAME``: how tables head its columns;
- ``LABELS``: kind -> what of the peer is timed for that kind (only the kinds it takes);
- ``GAMES``: plies game id -> the peer's name of the game;
- ``missing()``: why the library cannot be used here, or None;
- ``same_as(kind, variant)``: the key under which one of its measurements serves several of
  plies's variants (OpenSpiel has one ``apply_action`` for plies's checked and unchecked apply);
- ``workload(kind, game, variant)``: the timed function, as plies's own in benchmarks.subject.
"""

from __future__ import annotations

import importlib
from types import ModuleType

PEERS = ("openspiel", "pettingzoo", "pgx")


def load(name: str) -> ModuleType:
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; peers: {', '.join(PEERS)}")
    return importlib.import_module(f"benchmarks.peers.{name}")
