import numpy as np
import pytest

from plies.agents import make
from plies.evaluation import run_tournament
from plies.games.tictactoe import TicTacToeState


def test_takes_the_win_and_blocks_the_loss():
    win = TicTacToeState.from_string("XX./OO./...")
    assert make("mcts:simulations=2000", seed=0).act(win) == 2
    block = TicTacToeState.from_string("XX./O../...")  # O must block at 2
    assert make("mcts:simulations=4000", seed=0).act(block) == 2


def test_visit_counts_add_up_and_follow_the_seed():
    state = TicTacToeState()
    counts = make("mcts:simulations=500", seed=3).visit_counts(state)
    assert sorted(counts) == list(range(9))
    assert sum(counts.values()) == 500
    assert make("mcts:simulations=500", seed=3).visit_counts(state) == counts
    assert make("mcts:simulations=500", seed=4).visit_counts(state) != counts


def test_never_loses_to_the_perfect_player_over_100_games():
    result = run_tournament("tictactoe", ["mcts:simulations=3000", "perfect"], 100, seed=0,
                            workers=1, progress=False)
    assert result.table().totals["mcts:simulations=3000"].losses == 0
    assert result.table().totals["mcts:simulations=3000"].games == 100


def test_a_small_tree_budget_still_returns_a_legal_move():
    state = TicTacToeState.from_string("X../.O./...")
    action = make("mcts:simulations=1", seed=0).act(state)
    assert action in list(state.legal_actions())
    with pytest.raises(ValueError, match="simulations=0 is not allowed; simulations must be an integer in 1.."):
        make("mcts:simulations=0")
    with pytest.raises(ValueError, match="a player is to move"):
        make("mcts").act(TicTacToeState.from_string("XXX/OO./..."))


def test_beats_random_clearly():
    result = run_tournament("tictactoe", ["mcts:simulations=300", "random"], 40, seed=1,
                            workers=1, progress=False)
    tally = result.table().totals["mcts:simulations=300"]
    assert tally.wins >= 30 and tally.losses <= 2
    assert np.isfinite(tally.win_rate)
