"""Differential test: plies' Nine Men's Morris against OpenSpiel's ``nine_mens_morris``.

With ``OPENSPIEL_OPTIONS`` (flying on, no repetition or no-mill rule, a draw after 200 turns)
random games must agree action by action on the legal actions, the board, the player to
move, termination and the returns.
"""

import numpy as np
import pytest

from plies.games.nine_mens_morris import OPENSPIEL_OPTIONS, NineMensMorrisState

pyspiel = pytest.importorskip("pyspiel")


def _openspiel_points(os_state) -> np.ndarray:
    # OpenSpiel writes the 24 points, in point order, as W, B or '.' in its diagram
    chars = [ch for line in str(os_state).splitlines()[:13] for ch in line if ch in "WB."]
    return np.array([".WB".index(ch) for ch in chars], np.int64)


def _play_random_games(num_games: int, seed: int) -> tuple[int, dict[str, int]]:
    game = pyspiel.load_game("nine_mens_morris")
    rng = np.random.default_rng(seed)
    plies_total = 0
    outcomes = {"W": 0, "B": 0, "draw": 0}
    for _ in range(num_games):
        ours = NineMensMorrisState(**OPENSPIEL_OPTIONS)
        theirs = game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal(), (ours, theirs, ours.history)
            if theirs.is_terminal():
                break
            assert ours.current_player == theirs.current_player()
            legal = theirs.legal_actions()
            np.testing.assert_array_equal(np.sort(ours.legal_actions()), sorted(legal))
            np.testing.assert_array_equal(ours.points, _openspiel_points(theirs))
            action = int(legal[rng.integers(len(legal))])
            assert ours.action_to_string(action) and theirs.action_to_string(action)
            ours.apply(action)
            theirs.apply_action(action)
            plies_total += 1
        np.testing.assert_array_equal(ours.returns(), theirs.returns())
        r = ours.returns()
        outcomes["W" if r[0] > 0 else "B" if r[1] > 0 else "draw"] += 1
    return plies_total, outcomes


def test_random_games_agree_with_openspiel():
    plies_total, outcomes = _play_random_games(60, seed=1)
    assert plies_total > 60 * 50
    # random play reaches every kind of ending
    assert outcomes["W"] > 0 and outcomes["B"] > 0 and outcomes["draw"] > 0


@pytest.mark.slow
def test_many_random_games_agree_with_openspiel():
    _play_random_games(600, seed=2)


def test_openspiel_diagram_is_read_back():
    game = pyspiel.load_game("nine_mens_morris")
    theirs = game.new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(30):
        theirs.apply_action(int(rng.choice(theirs.legal_actions())))
    ours = NineMensMorrisState.from_string(str(theirs), **OPENSPIEL_OPTIONS)
    np.testing.assert_array_equal(ours.points, _openspiel_points(theirs))
    assert ours.current_player == theirs.current_player()
    assert sorted(ours.legal_actions()) == sorted(theirs.legal_actions())
