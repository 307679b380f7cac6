"""The users' compiled-search example: one @njit PUCT over any game's kernels plays legal moves,
finds a forced win, refuses what it cannot search, and beats random play."""

import numpy as np
import pytest

import plies
from examples.compiled_puct import PUCTAgent
from plies.agents import specs
from plies.evaluation import run_tournament


@pytest.mark.parametrize("game", ["tictactoe", "connect_four", "nine_mens_morris", "othello"])
def test_it_plays_a_legal_move_in_every_game_without_chance(game):
    state = plies.get_game(game).new_state()
    rng = np.random.default_rng(1)
    for _ in range(4):
        state.apply(int(rng.choice(state.legal_actions())))
    counts = PUCTAgent(300, seed=2).visit_counts(state)
    assert sorted(counts) == sorted(int(a) for a in state.legal_actions())
    assert sum(counts.values()) == 299  # the first simulation expands the root, each other leaves it by a child


def test_it_takes_a_win_in_one_and_blocks_one():
    state = plies.get_game("tictactoe").new_state()
    for cell in (0, 3, 1, 4):  # X has 0,1 and O has 3,4: X to move wins at 2
        state.apply(cell)
    assert PUCTAgent(2000, seed=0).act(state) == 2
    blocked = plies.get_game("tictactoe").new_state()
    for cell in (0, 4, 1):  # X threatens 2: O must take it
        blocked.apply(cell)
    assert PUCTAgent(2000, seed=0).act(blocked) == 2


def test_it_refuses_games_with_chance_and_finished_games():
    with pytest.raises(ValueError, match="chance"):
        PUCTAgent(10).act(plies.get_game("backgammon").new_state())
    state = plies.get_game("tictactoe").new_state()
    for cell in (0, 3, 1, 4, 2):
        state.apply(cell)
    with pytest.raises(ValueError, match="over"):
        PUCTAgent(10).act(state)
    with pytest.raises(ValueError, match="simulations"):
        PUCTAgent(0)


def test_it_beats_random_at_connect_four():
    specs.register("puct_example", "examples.compiled_puct:PUCTAgent", replace=True)
    try:
        result = run_tournament("connect_four", ["puct_example:simulations=400", "random"], 20, seed=5, workers=1,
                                progress=False)
    finally:
        specs.unregister("puct_example")
    assert result.table().totals["puct_example:simulations=400"].win_rate >= 0.85
