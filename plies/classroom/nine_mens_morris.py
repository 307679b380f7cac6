"""The Nine Men's Morris write-up's player (alpha-beta with rote learning), over plies' code.

The write-up's ``AlphaBetaPruningRoteLearning`` searches ``limit`` plies below each move,
evaluates the leaves with a weighted heuristic, and keeps a cache of searched positions (with
all their symmetric images when ``symmetry`` is on) from one search to the next. Here the
search is plies' generic alpha-beta (``plies.agents.alphabeta``), the cache is its bounded
``TranspositionTable`` (values stored with their depth and bound type, saved atomically), and
the symmetric images share one canonical key instead of being stored 16 times.

Differences from the write-up, on purpose: a removal after a mill is its own ply (as in
OpenSpiel's encoding), so ``limit`` counts removals; and the best moves are returned as
action numbers, with the successor states alongside in ``BestMoves.states``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from plies.agents.alphabeta import WIN, AlphaBetaSearch, _slot
from plies.agents.transposition import DEPTH, EXACT, FLAG, TranspositionTable
from plies.games.nine_mens_morris import rules
from plies.games.nine_mens_morris.state import NineMensMorrisState
from plies.games.nine_mens_morris.symmetry import NUM_SYMMETRIES, SYMMETRIES, canonical_hash

__all__ = [
    "AlphaBetaPruningRoteLearning",
    "BestMoves",
    "CacheRoteLearning",
    "HeuristicWeights",
    "findSymmetries",
]


@dataclass
class HeuristicWeights:
    """Weights of the heuristic's features (each one own minus opponent's); see
    ``plies.games.nine_mens_morris.rules.features`` for their definitions."""

    stones: float = rules.DEFAULT_WEIGHTS[0]
    mills: float = rules.DEFAULT_WEIGHTS[1]
    blocked: float = rules.DEFAULT_WEIGHTS[2]
    open_mills: float = rules.DEFAULT_WEIGHTS[3]
    double_mills: float = rules.DEFAULT_WEIGHTS[4]
    mobility: float = rules.DEFAULT_WEIGHTS[5]

    def as_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}


class CacheRoteLearning:
    """The write-up's cache: what earlier searches learnt, kept across searches and games.

    A bounded transposition table (``2**bits`` entries; the replacement policy is the one of
    ``plies.agents.transposition``: a slot is overwritten by the same position, by a result of
    a newer search, or by a deeper one). Keys are canonical over the 16 symmetries when the
    cache serves a player with ``symmetry=True``; one cache serves one kind of key.
    """

    def __init__(self, bits: int = 20, table: TranspositionTable | None = None) -> None:
        self.table = table
        self.bits = bits

    def bind(self, symmetry: bool) -> TranspositionTable:
        """The table for a player with this symmetry setting (made on first use)."""
        kind = "symmetric" if symmetry else "plain"
        if self.table is None:
            self.table = TranspositionTable(self.bits, "nine_mens_morris", kind)
        elif self.table.key_kind != kind:
            raise ValueError(
                f"this cache holds {self.table.key_kind} keys; a player with symmetry={symmetry} "
                f"needs {kind} keys (use a separate cache)"
            )
        return self.table

    @property
    def cache(self) -> dict[int, float]:
        """The stored values by key (the write-up's ``cache`` dict; built on request)."""
        if self.table is None:
            return {}
        used = self.table.meta[:, DEPTH] >= 0
        return dict(zip(self.table.keys[used].tolist(), self.table.values[used].tolist()))

    def __len__(self) -> int:
        return 0 if self.table is None else len(self.table)

    def read(self, state: NineMensMorrisState, player: int | None = None) -> float | None:
        """The exact value stored for ``state`` (for the player to move), or None."""
        _check_player(state, player)
        if self.table is None:
            return None
        key = _key(state, self.table.key_kind == "symmetric")
        slot = int(_slot(key, self.table.bits))
        meta = self.table.meta[slot]
        if meta[DEPTH] < 0 or self.table.keys[slot] != key or meta[FLAG] != EXACT:
            return None
        return float(self.table.values[slot])

    def save(self, path: str | Path) -> None:
        """Write the cache to ``path`` atomically (an interrupted save keeps the old file)."""
        if self.table is None:
            raise ValueError("the cache is empty: nothing has been searched yet")
        self.table.save(path)

    @classmethod
    def load(cls, path: str | Path) -> CacheRoteLearning:
        """Read a cache written by ``save``; a corrupt or foreign file raises ValueError."""
        table = TranspositionTable.load(path, game="nine_mens_morris")
        return cls(table.bits, table)


@dataclass
class BestMoves:
    """Every move of the best value, the value (+1 won, -1 lost, else the heuristic's
    estimate in (-1, 1)), and the write-up's statistics."""

    moves: list[int]
    value: float
    runtime: float
    limit: int
    visited: int
    cache_hit: int
    cache_miss: int
    cache_size: int
    states: list[NineMensMorrisState] = field(default_factory=list, repr=False)

    @property
    def statistics(self) -> dict[str, float]:
        return {
            "runtime": self.runtime,
            "limit": self.limit,
            "visited": self.visited,
            "cache_hit": self.cache_hit,
            "cache_miss": self.cache_miss,
            "cache_size": self.cache_size,
        }


class AlphaBetaPruningRoteLearning:
    """The write-up's player: ``limit`` plies searched below each move (so ``limit + 1``
    from the position), the weighted heuristic at the leaves, and a cache kept between
    searches; ``symmetry`` makes the 16 images of a position share one cache entry."""

    def __init__(
        self,
        limit: int = 3,
        symmetry: bool = True,
        weights: HeuristicWeights | dict[str, float] | None = None,
        cache: CacheRoteLearning | None = None,
        name: str | None = None,
    ) -> None:
        if limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        self.name = name
        self.limit = limit
        self.symmetry = symmetry
        if weights is None:
            weights = HeuristicWeights()
        self.weights = weights
        self.cache = cache if cache is not None else CacheRoteLearning()
        named = weights.as_dict() if isinstance(weights, HeuristicWeights) else dict(weights)
        self._search = AlphaBetaSearch(
            eval="weighted", weights=named, symmetry=symmetry, table=self.cache.bind(symmetry)
        )

    def bestMoves(self, state: NineMensMorrisState, player: int | None = None) -> BestMoves:  # noqa: N802
        """All moves of the best value for ``player`` (who must be the player to move)."""
        _check_player(state, player)
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to choose")
        result = self._search.search(state, self.limit + 1)
        value = result.value
        if abs(value) > WIN / 2:
            value = float(np.sign(value))
        states = []
        for move in result.best_moves:
            child = state.clone()
            child.apply_unchecked(move)
            states.append(child)
        stats = result.stats
        return BestMoves(
            moves=list(result.best_moves),
            value=float(value),
            runtime=float(stats["runtime"]),
            limit=self.limit,
            visited=int(stats["visited"]),
            cache_hit=int(stats["cache_hit"]),
            cache_miss=int(stats["cache_miss"]),
            cache_size=int(stats["cache_size"]),
            states=states,
        )

    def __repr__(self) -> str:
        return (
            f"AlphaBetaPruningRoteLearning(name={self.name}, limit={self.limit}, "
            f"symmetry={self.symmetry}, weights={self.weights})"
        )


def findSymmetries(state: NineMensMorrisState) -> list[NineMensMorrisState]:  # noqa: N802
    """The distinct images of ``state`` under the board's 16 symmetries (``state`` first).

    Each image shares ``state``'s canonical hash; its repetition history starts afresh."""
    _check_state(state)
    images: list[NineMensMorrisState] = []
    seen: set[bytes] = set()
    points = state.points
    for k in range(NUM_SYMMETRIES):
        array = state.array.copy()
        image = np.empty_like(points)
        image[SYMMETRIES[k]] = points
        array[rules.POINTS : rules.POINTS + rules.NUM_POINTS] = image
        array[rules.BOARD_HASH] = rules.board_key(array)
        # the image starts a fresh repetition history (the stored keys are of the original
        # orientation) but keeps the original's pending repetition draws, so it hashes alike
        threats = array[rules.THREATS]
        array[rules.HIST_LEN] = 0
        rules.start_segment(array)
        array[rules.THREATS] = threats
        if image.tobytes() not in seen:
            seen.add(image.tobytes())
            images.append(NineMensMorrisState(array))
    return images


def _check_player(state: NineMensMorrisState, player: int | None) -> None:
    _check_state(state)
    if player is not None and not state.is_terminal() and player != state.current_player:
        raise ValueError(
            f"player {player} is not to move here (player {state.current_player} is); "
            "plies positions know whose turn it is"
        )


def _check_state(state: object) -> None:
    # the cache and the symmetry tables read the array with Nine Men's Morris's layout
    if not isinstance(state, NineMensMorrisState):
        raise TypeError(f"a Nine Men's Morris position is needed, got {type(state).__name__}")


def _key(state: NineMensMorrisState, symmetric: bool) -> int:
    return int(canonical_hash(state.array) if symmetric else state.hash())
