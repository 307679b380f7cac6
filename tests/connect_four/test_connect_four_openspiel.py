"""Differential test against OpenSpiel's connect_four: random games agree move by move."""

import numpy as np
import pytest

from plies.games.connect_four import ConnectFourState

pyspiel = pytest.importorskip("pyspiel")


def test_random_games_agree_with_openspiel():
    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(12345)
    outcomes = set()
    for _ in range(300):
        ours = ConnectFourState()
        theirs = game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            # both print the top row first; OpenSpiel uses lower-case x / o
            assert ours.to_string().split("/") == str(theirs).upper().split()
            if theirs.is_terminal():
                break
            assert ours.current_player == theirs.current_player()
            assert list(ours.legal_actions()) == theirs.legal_actions()  # both ascending
            action = int(rng.choice(theirs.legal_actions()))
            ours.apply(action)
            theirs.apply_action(action)
        assert ours.returns().tolist() == theirs.returns()
        outcomes.add(tuple(theirs.returns()))
    assert (1.0, -1.0) in outcomes and (-1.0, 1.0) in outcomes
