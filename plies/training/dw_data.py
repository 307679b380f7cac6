"""Dice Wars training data: games of the course bots, of plies's searchers and of the network
player being trained, and the positions (with the winner) taken from them."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from plies.files import DamagedFileError, atomic_write
from plies.training.records import load_records, save_records
from plies.training.selfplay import draw_lineups, generate

COURSE_BOTS = ("dt.rand", "dt.sdc", "dt.ste", "dt.wpm_c", "xlogin00")
"""The course framework's five bots under their course names (docs/dice_wars.md)."""

DEFAULT_POOL = {
    "dt.rand": 1.0,
    "dt.sdc": 2.0,
    "dt.ste": 2.0,
    "dt.wpm_c": 3.0,
    "xlogin00": 1.0,
    "win_prob": 2.0,
    "dw_expectiminimax": 3.0,
}
"""The training pool: the course bots and plies's own players (``win_prob``; the report's
expectiminimax player with the score, depth 3), with their weights in the draw of each seat."""


def ensure_games(
    folder: Path,
    games: int,
    chunk: int,
    seed: int,
    workers: int,
    pool: dict[str, float] | None = None,
    backend: str = "process",
    options: dict[str, Any] | None = None,
    progress: bool = True,
    tag: str = "games",
    player: str | None = None,
    player_seats: int = 0,
) -> list[Path]:
    """Self-play chunks ``folder/<tag>_<k>.npz`` until ``games`` games exist; chunks already
    on disk are kept (an interrupted run continues where it stopped). With ``player``, that
    spec takes ``player_seats`` seats of every table (drawn at random), the pool the others."""
    pool = dict(pool or DEFAULT_POOL)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range((games + chunk - 1) // chunk):
        path = folder / f"{tag}_{k:04d}.npz"
        paths.append(path)
        if path.exists():
            continue
        n = min(chunk, games - k * chunk)
        rng = np.random.default_rng([seed, k])
        num_seats = int((options or {}).get("num_players", 4))
        lineups = draw_lineups(list(pool), list(pool.values()), num_seats, n, rng)
        if player is not None and player_seats > 0:
            lineups = seat_player(lineups, player, player_seats, rng)
        start = time.perf_counter()
        records = generate("dice_wars", lineups, seed=seed, first_index=k * chunk,
                           workers=workers, backend=backend, options=options, progress=progress)
        save_records(records, path)
        add_seconds(folder, time.perf_counter() - start)
    return paths


def seat_player(lineups: list[tuple[str, ...]], player: str, seats: int,
                rng: np.random.Generator) -> list[tuple[str, ...]]:
    """The lineups with ``player`` in ``seats`` seats of each table (which seats: drawn)."""
    out = []
    for lineup in lineups:
        if not 1 <= seats <= len(lineup):
            raise ValueError(f"player_seats={seats}: a table has {len(lineup)} seats")
        row = list(lineup)
        for i in rng.choice(len(row), size=seats, replace=False):
            row[int(i)] = player
        out.append(tuple(row))
    return out


def selfplay_seconds(folder: Path) -> float:
    """The wall time spent on the folder's self-play so far (``seconds.json``; 0 if none)."""
    file = folder / "seconds.json"
    return float(json.loads(file.read_text())["seconds"]) if file.exists() else 0.0


def add_seconds(folder: Path, seconds: float) -> float:
    """Adds to the wall time spent on the folder's self-play (``seconds.json``)."""
    total = selfplay_seconds(folder) + seconds
    atomic_write(folder / "seconds.json", lambda f: f.write(json.dumps({"seconds": round(total, 1)})), text=True)
    return total


POSITION_KINDS = ("all", "turn_end")
"""Which positions of a game become training data: ``all`` (every player decision and
reinforcement step), ``turn_end`` (only the position just after a player ends the turn, its
reinforcement about to be placed: the positions the ``leaves=turn_end`` search scores)."""


def positions(paths: list[Path], keep: float, seed: int,
              options: dict[str, Any] | None = None, kind: str = "all") -> dict[str, np.ndarray]:
    """Positions of the games in ``paths`` of the given ``kind`` (``POSITION_KINDS``), each kept
    with probability ``keep`` (pending battles are never kept: searches resolve them).
    Returns states (int16, zero padded), winner seat and game index per position; games
    without a winner (cancelled, truncated) are skipped."""
    from plies.games.dice_wars import rules
    from plies.training.selfplay import replay

    if kind not in POSITION_KINDS:
        raise ValueError(f"position kind {kind!r}: use one of {', '.join(POSITION_KINDS)}")
    rng = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    winners: list[int] = []
    games: list[int] = []
    for path in paths:
        for record in load_records(path):
            if max(record.returns) < 1.0:
                continue
            winner = int(np.argmax(record.returns))
            ended = False  # the action that led here ended a player's turn
            try:
                for i, state in enumerate(replay("dice_wars", record, options)):
                    s = state.array
                    if ((kind == "all" or ended) and s[0] != rules.TERMINAL
                            and s[rules.PHASE] != rules.PHASE_BATTLE and rng.random() < keep):
                        rows.append(s.astype(np.int16))
                        winners.append(winner)
                        games.append(record.index)
                    ended = i < len(record.actions) and _ends_turn(s, int(record.actions[i]), rules)
            except ValueError as err:
                raise DamagedFileError(f"damaged self-play records file {path}: {err}") from None
    width = max((len(r) for r in rows), default=rules.AREAS)
    states = np.zeros((len(rows), width), np.int16)
    for i, r in enumerate(rows):
        states[i, : len(r)] = r
    return {"states": states, "winners": np.array(winners, np.int64),
            "games": np.array(games, np.int64)}


def _ends_turn(state: np.ndarray, action: int, rules: Any) -> bool:
    """``action`` in ``state`` is a player ending the turn."""
    return (state[0] >= 0 and state[rules.PHASE] == rules.PHASE_MOVE
            and action == int(state[rules.NUM_AREAS]) ** 2)


def lambda_targets(probs: np.ndarray, games: np.ndarray, winners: np.ndarray, lam: float) -> np.ndarray:
    """Soft targets of the positions: the lambda-return of each seat's win probability along its
    game's positions (rows of one game together, in the order played). The game's last position
    gets its winner; each earlier one ``(1 - lam) * probs[next] + lam * target[next]``, ``probs``
    being a network's P(seat wins) of every position (N x seats). ``lam`` 1 is the winner
    everywhere, 0 the network's value of the next position (TD(0))."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda is a weight in [0, 1], got {lam}")
    probs = np.ascontiguousarray(probs, np.float32)
    games = np.ascontiguousarray(games, np.int64)
    winners = np.ascontiguousarray(winners, np.int64)
    if len(probs) != len(games) or len(games) != len(winners):
        raise ValueError(f"probs, games and winners differ in length: {len(probs)}, {len(games)}, {len(winners)}")
    if len(games) and ((winners < 0).any() or (winners >= probs.shape[1]).any()):
        raise ValueError(f"a winner is not a seat of 0-{probs.shape[1] - 1}")
    if len(games) > 1 and len(np.unique(games)) != 1 + int((games[1:] != games[:-1]).sum()):
        raise ValueError("each game's positions must stand together, in the order played")
    out = np.empty_like(probs)
    _lambda_targets(probs, games, winners, np.float32(lam), out)
    return out


@njit(cache=True)
def _lambda_targets(probs, games, winners, lam, out):
    n, seats = probs.shape
    for i in range(n - 1, -1, -1):
        if i == n - 1 or games[i + 1] != games[i]:  # the game's last position: its winner
            for s in range(seats):
                out[i, s] = 0.0
            out[i, winners[i]] = 1.0
        else:
            for s in range(seats):
                out[i, s] = (1.0 - lam) * probs[i + 1, s] + lam * out[i + 1, s]
