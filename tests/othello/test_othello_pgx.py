"""Differential test against pgx's othello, replayed from recorded games (tests/data/README.md).

pgx numbers the squares as plies does (row by row from the top-left, 64 = pass) and also
lets a player pass only when it cannot place a disc. Two differences are mapped here:

* pgx draws which of its seats moves first; that seat plays black, plies's seat 0;
* pgx ends a game when the board is full, a side has no disc left, or after two passes in a
  row, so where neither side can move it plays out one or two forced passes that plies (and
  OpenSpiel) skip by ending the game at once.
"""

from pathlib import Path

import numpy as np
import pytest

from plies.games.othello import OthelloState, rules

DATA = Path(__file__).resolve().parents[1] / "data" / "othello_pgx.npz"


@pytest.fixture(scope="module")
def games() -> dict[str, np.ndarray]:
    with np.load(DATA) as data:
        return {name: data[name] for name in data.files}


def replay(games: dict[str, np.ndarray], index: int) -> int:
    """Replay game ``index`` through plies, checking every legal set and the result; return
    the forced passes pgx played after plies's end."""
    legal = np.unpackbits(games["legal"][index], axis=-1)[:, : rules.NUM_ACTIONS]
    state = OthelloState()
    trailing = 0
    for t in range(int(games["lengths"][index])):
        action = int(games["actions"][index, t])
        pgx_legal = np.flatnonzero(legal[t]).tolist()
        if state.is_terminal():
            assert pgx_legal == [rules.PASS] and action == rules.PASS, f"game {index}, step {t}"
            trailing += 1
            continue
        assert list(state.legal_actions()) == pgx_legal, f"game {index}, step {t}"
        state.apply(action)
    assert state.is_terminal() and trailing <= 2
    first = int(games["first_player"][index])
    pgx_rewards = games["rewards"][index]
    assert state.returns().tolist() == [float(pgx_rewards[first]), float(pgx_rewards[1 - first])]
    return trailing


def test_the_recorded_games_are_what_the_readme_says(games):
    assert len(games["lengths"]) == 1000
    assert set(games["first_player"].tolist()) == {0, 1}  # both seat mappings are exercised
    assert DATA.stat().st_size < 2_000_000


def test_all_pgx_games_replay_through_plies(games):
    trailing = [replay(games, index) for index in range(len(games["lengths"]))]  # well under a second
    assert trailing.count(2) > 0  # games where neither side could move before the board filled
    assert (games["actions"] == rules.PASS).sum() > sum(trailing)  # and forced passes mid-game
    rewards = games["rewards"]
    assert {0, 1, -1} <= set(rewards[:, 0].tolist())  # wins both ways and draws
