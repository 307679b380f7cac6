"""The solver agent and the generic searches on Connect Four."""

from plies.agents import make
from plies.games.connect_four import ConnectFourState


def test_solver_agent_is_exact_late_in_the_game():
    agent = make("solver:budget=0.5", seed=0)
    # X to move: 1-2-3 on the bottom row with column 4 free wins at once (score 18)
    state = ConnectFourState.from_string("152637")
    assert agent.act(state) == 3
    assert agent.last == "solver"
    assert agent.last_scores[3] == 18


def test_solver_agent_falls_back_to_alphabeta_on_the_empty_board():
    agent = make("solver:budget=0.01,depth=4", seed=0)
    move = agent.act(ConnectFourState())
    assert agent.last == "alphabeta"
    assert move == 3  # the centre column has the highest cell weights


def test_solver_agent_beats_a_random_player():
    solver, rnd = make("solver:budget=0.05,depth=4", seed=1), make("random", seed=2)
    for first in (0, 1):
        state = ConnectFourState()
        players = [solver, rnd] if first == 0 else [rnd, solver]
        while not state.is_terminal():
            state.apply(players[state.current_player].act(state))
        assert state.winner == first


def test_alphabeta_with_cell_weights_blocks_a_four():
    # O to move: X holds 1-2-3 on the bottom row, so O must take column 4
    state = ConnectFourState.from_string("15263")
    assert make("alphabeta:depth=4,eval=cells", seed=0).act(state) == 3
