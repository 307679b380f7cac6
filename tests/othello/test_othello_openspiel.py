"""Differential test against OpenSpiel's othello: random games agree move by move.

Both number the squares row by row from the top-left (OpenSpiel's ``a1`` is action 0) and pass
with action 64, so actions carry over unchanged; the boards are compared cell by cell."""

import numpy as np
import pytest

from plies.games.othello import OthelloState

pyspiel = pytest.importorskip("pyspiel")


def openspiel_board(state) -> list[str]:
    """OpenSpiel's printed board as 8 rows of ``x``, ``o`` and ``.``."""
    lines = str(state).splitlines()
    rows = [line.split()[1:9] for line in lines if line[:1].isdigit()]
    return ["".join(cell if cell in "xo" else "." for cell in row) for row in rows]


def play_random_games(games: int, seed: int) -> set[tuple[float, ...]]:
    game = pyspiel.load_game("othello")
    rng = np.random.default_rng(seed)
    outcomes = set()
    passes = 0
    for _ in range(games):
        ours = OthelloState()
        theirs = game.new_initial_state()
        plies = 0
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            assert ours.to_string().split()[0].split("/") == openspiel_board(theirs)
            if theirs.is_terminal():
                break
            assert ours.current_player == theirs.current_player()
            legal = theirs.legal_actions()
            assert list(ours.legal_actions()) == legal  # both ascending
            assert [ours.action_to_string(a) for a in legal] == [theirs.action_to_string(a) for a in legal]
            action = int(rng.choice(legal))
            passes += action == 64
            ours.apply(action)
            theirs.apply_action(action)
            plies += 1
        assert plies <= ours.max_game_length == game.max_game_length()
        assert ours.returns().tolist() == theirs.returns()
        outcomes.add(tuple(theirs.returns()))
    assert passes > 0, "no game passed: the forced pass went untested"
    return outcomes


def test_random_games_agree_with_openspiel():
    outcomes = play_random_games(200, seed=2024)  # a few seconds
    assert (1.0, -1.0) in outcomes and (-1.0, 1.0) in outcomes


@pytest.mark.slow
def test_thousand_random_games_agree_with_openspiel():
    outcomes = play_random_games(1000, seed=7)  # 10-20 s
    assert {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} <= outcomes
