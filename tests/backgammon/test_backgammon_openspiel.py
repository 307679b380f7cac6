"""Distinct afterstates and results equal OpenSpiel's backgammon, driven with the same dice."""

from __future__ import annotations

import numpy as np
import pytest
from bg_reference import board_key, plies_afterstates, spiel_afterstates, spiel_board_key, spiel_outcome

from plies.games.backgammon import BackgammonState
from plies.games.state import sample_chance

pyspiel = pytest.importorskip("pyspiel")


def play_both(seed: int, games: int, scoring: str = "single") -> int:
    rng = np.random.default_rng(seed)
    params = {"scoring_type": "full_scoring"} if scoring == "gammon" else {}
    game = pyspiel.load_game("backgammon", params)
    turns = 0
    for _ in range(games):
        ours = BackgammonState(scoring=scoring)
        theirs = game.new_initial_state()
        while not ours.is_terminal():
            outcome = sample_chance(ours, rng)
            ours.apply(outcome)
            theirs.apply_action(spiel_outcome(outcome))
            mine = plies_afterstates(ours)
            reference = spiel_afterstates(theirs)
            assert set(mine) == set(reference), ours.to_string()
            turns += 1
            key = sorted(mine)[rng.integers(len(mine))]
            for action in mine[key]:
                ours.apply(action)
            for action in reference[key]:
                theirs.apply_action(action)
            assert board_key(ours.array) == spiel_board_key(theirs)
            assert ours.is_terminal() == theirs.is_terminal()
        assert list(ours.returns()) == list(theirs.returns())
    return turns


def test_afterstates_equal_openspiel_quick():
    assert play_both(seed=11, games=2) > 50


@pytest.mark.slow
def test_afterstates_equal_openspiel_many_games_with_gammons():
    assert play_both(seed=12, games=25, scoring="gammon") > 1000
