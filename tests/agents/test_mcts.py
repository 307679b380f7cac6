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


def test_priors_from_an_evaluation_steer_the_visits_to_the_win():
    # PUCT: the child that wins at once has value 1, so its prior and mean draw nearly every visit
    win = TicTacToeState.from_string("XX./OO./...")
    agent = make("mcts:simulations=60,eval=lines,prior_temperature=0.1", seed=0)
    counts = agent.visit_counts(win)
    assert sum(counts.values()) == 60 and counts[2] >= 50
    assert agent.act(win) == 2
    plain = make("mcts:simulations=60,eval=lines", seed=0).visit_counts(win)
    assert counts[2] > plain[2]  # without priors every move is tried first
    same = make("mcts:simulations=60,eval=lines,prior_temperature=0.1", seed=0).visit_counts(win)
    assert same == counts


def test_priors_hold_against_the_perfect_player():
    spec = "mcts:simulations=200,eval=lines,prior_temperature=0.2"
    result = run_tournament("tictactoe", [spec, "perfect"], 20, seed=0, workers=1, progress=False)
    assert result.table().totals[spec].losses == 0


def test_priors_need_an_evaluation_and_a_game_without_chance():
    with pytest.raises(ValueError, match="prior_temperature needs eval"):
        make("mcts:prior_temperature=0.5")
    with pytest.raises(ValueError, match="prior_temperature"):
        make("mcts:eval=lines,prior_temperature=-1")
    with pytest.raises(ValueError, match="prior_temperature"):
        make("mcts:eval=lines,prior_temperature=nan")
    import plies
    state = plies.new_state("backgammon", seed=1)
    while state.is_chance_node():
        state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="without chance nodes"):
        make("mcts:simulations=10,eval=singleton,prior_temperature=0.5", seed=0).act(state)
