"""Heuristics and the expectiminimax players on Dice Wars."""

import numpy as np
import pytest

from plies.agents import make
from plies.agents.evaluator_specs import evaluator_for
from plies.agents.expectiminimax import analyse
from plies.games.dice_wars import DiceWarsState, attack_success_probability, rules
from plies.games.dice_wars.state import GAME

# seat 0 holds areas 0 and 3; conquering area 1 or 2 joins them into a region of 3
BRIDGE = "players=2 turn=0 areas=0:4,1:3,1:3,0:2,1:6 adjacency=1,2,4/0,3/0,3/1,2/0"


def pos(text):
    return DiceWarsState.from_string(text)


def test_heuristics_stay_inside_the_open_interval():
    state = DiceWarsState.initial(np.random.default_rng(0))
    for name, heuristic in GAME.heuristics.items():
        params = heuristic.params()
        for seat in range(4):
            value = heuristic.kernel(state.array, seat, params)
            assert -1.0 < value < 1.0, name
    assert rules.evaluate_score(state.array, 0, np.array([1.0, 0, 0])) == pytest.approx(
        state.largest_region(0) / 30)


def test_heuristic_at_a_pending_battle_is_the_expectation():
    state = pos(BRIDGE)
    params = np.array([1.0, 0.0, 0.0])
    before = rules.evaluate_score(state.array, 0, params)
    state.apply(state.attack_action(0, 1))
    p = attack_success_probability(4, 3)
    # won: areas 0, 1 and 3 join into a region of 3; lost: the largest region stays 1
    expected = (p * 3 + (1 - p) * 1) / 6
    assert before == pytest.approx(1 / 6)
    assert rules.evaluate_score(state.array, 0, params) == pytest.approx(expected)
    assert state.phase == "battle"  # evaluating did not change the state


def test_generic_expectiminimax_weights_both_outcomes():
    state = pos(BRIDGE)
    # prune=False: with two players Star1 pruning leaves only bounds for the worse moves
    values, actions, _, _ = analyse(state, depth=1, evaluator=evaluator_for(state, "score"),
                                    limit=3, chance_limit=1, prune=False)
    by_action = dict(zip(actions.tolist(), values[:, 0]))
    p = attack_success_probability(4, 3)
    assert by_action[state.attack_action(0, 1)] == pytest.approx((p * 3 + (1 - p)) / 6)
    q = attack_success_probability(4, 6)  # area 4 only adds itself to area 0's region
    assert by_action[state.attack_action(0, 4)] == pytest.approx((q * 2 + (1 - q)) / 6)
    agent = make("expectiminimax:depth=1,limit=3,chance_limit=1,eval=score", seed=0)
    assert agent.act(state) in (state.attack_action(0, 1), state.attack_action(0, 2))


def test_report_player_limits_attacks_per_turn():
    agent = make("dw_expectiminimax:depth=2", seed=0)
    state = pos(BRIDGE)
    bridges = [state.attack_action(s, t) for s in (0, 3) for t in (1, 2)]
    assert agent.act(state) in bridges
    tired = pos(BRIDGE.replace("turn=0", "turn=0 attacks=3"))
    assert agent.act(tired) == tired.end_turn_action
    assert make("dw_expectiminimax:max_attacks=5", seed=0).act(tired) != tired.end_turn_action


@pytest.mark.slow
def test_depth_three_players_play_legal_games():
    rng = np.random.default_rng(5)
    lineup = ["dw_expectiminimax:depth=3",
              "expectiminimax:depth=3,limit=3,chance_limit=1,filter=5,eval=score",
              "strength_diff", "single_turn"]
    agents = [make(spec, seed=i) for i, spec in enumerate(lineup)]
    state = DiceWarsState.initial(rng)
    decisions = 0
    while not state.is_terminal() and decisions < 400:
        if state.is_chance_node():
            outcomes, probs = state.chance_outcomes()
            state.apply(int(outcomes[rng.choice(len(outcomes), p=probs)]))
            continue
        action = agents[state.current_player].act(state)
        assert state.is_legal(action)
        state.apply(action)
        decisions += 1
    assert state.battles > 10


def _midgame_state(seed: int) -> DiceWarsState:
    """A four-player position after some random play: the start of a turn, several attacks open."""
    rng = np.random.default_rng(seed)
    state = DiceWarsState.initial(rng, num_players=4)
    plies = 0
    while plies < 40 or state.is_chance_node() or state.array[rules.ATTACKS] > 0:
        if state.is_chance_node():
            outcomes, probs = state.chance_outcomes()
            state.apply(int(rng.choice(outcomes, p=np.asarray(probs) / np.sum(probs))))
        else:
            state.apply(int(rng.choice(state.legal_actions())))
            plies += 1
    return state


@pytest.mark.parametrize("filter_leaves", [False, True])
def test_network_filter_ranks_by_the_heuristic_and_matches_the_compiled_search(filter_leaves):
    from plies.agents.evaluators import FunctionEvaluator

    state = _midgame_state(4)
    assert len(state.legal_actions()) > 4
    heuristic = evaluator_for(state, "win_prob")
    # a Python evaluator scored in batches, equal to the heuristic: with the same filter the
    # collect-evaluate-replay search must give exactly the compiled search's values
    batched = FunctionEvaluator(heuristic.evaluate)
    options = dict(depth=3, limit=3, chance_limit=1, filter=3, filter_leaves=filter_leaves)
    stats_compiled, stats_batched = np.zeros(3, np.int64), np.zeros(3, np.int64)
    expected, actions, _, _ = analyse(state, evaluator=heuristic, stats=stats_compiled, **options)
    got, got_actions, _, _ = analyse(state, evaluator=batched, filter_evaluator=heuristic,
                                     stats=stats_batched, **options)
    assert got_actions.tolist() == actions.tolist()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    # the filter cuts the leaves the evaluator scores; filtering the last ply cuts more
    full = np.zeros(3, np.int64)
    analyse(state, evaluator=batched, depth=3, limit=3, chance_limit=1, stats=full)
    assert 0 < stats_batched[2] < full[2]
    if filter_leaves:
        plain = np.zeros(3, np.int64)
        analyse(state, evaluator=batched, filter_evaluator=heuristic, depth=3, limit=3,
                chance_limit=1, filter=3, stats=plain)
        assert stats_batched[2] < plain[2]


def test_network_filter_needs_a_compiled_ranking():
    from plies.agents.evaluators import FunctionEvaluator

    state = _midgame_state(4)
    batched = FunctionEvaluator(evaluator_for(state, "win_prob").evaluate)
    with pytest.raises(ValueError, match="filter_evaluator"):
        analyse(state, evaluator=batched, depth=2, limit=3, chance_limit=1, filter=3)


def test_network_player_filters_by_a_named_heuristic():
    pytest.importorskip("torch")
    state = _midgame_state(4)
    agent = make("dw_expectiminimax:depth=2,eval=net,filter=2,filter_eval=score", seed=0)
    assert agent.act(state) in list(state.legal_actions())
    bogus = make("dw_expectiminimax:depth=2,eval=net,filter=2,filter_eval=bogus", seed=0)
    with pytest.raises(ValueError, match="heuristics: score"):
        bogus.act(state)


def test_end_turn_rows_end_only_running_turns():
    from plies.agents.dice_wars_bots import end_turn_rows

    state = _midgame_state(4)
    ended = state.clone()
    ended.apply(state.end_turn_action)
    battle = state.clone()
    battle.apply(int(state.legal_actions()[0]))
    assert battle.is_chance_node()
    rows = np.stack([state.array, battle.array]).copy()
    end_turn_rows(rows)
    np.testing.assert_array_equal(rows[0], ended.array)
    np.testing.assert_array_equal(rows[1], battle.array)


def test_turn_end_leaves_score_each_leaf_after_the_turn_ends():
    pytest.importorskip("torch")
    state = _midgame_state(4)
    agent = make("dw_expectiminimax:depth=1,eval=net,leaves=turn_end,end_turn=true", seed=0)
    agent.act(state)
    net = evaluator_for(state, "net")
    seat, n = state.current_player, state.num_players

    def after_end(s):
        s = s.clone()
        if not s.is_terminal():
            s.apply(s.end_turn_action)
        return float(net.evaluate_all(s.array[None].copy(), seat, n, False)[0, seat])

    expected = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(int(action))
        if action == state.end_turn_action:  # scored before its reinforcement, like every leaf
            expected.append(float(net.evaluate_all(child.array[None].copy(), seat, n, False)[0, seat]))
            continue
        outcomes, probs = child.chance_outcomes()
        value = 0.0
        for outcome, p in zip(outcomes, probs):
            grand = child.clone()
            grand.apply(int(outcome))
            value += p * after_end(grand)
        expected.append(value)
    np.testing.assert_allclose(agent.last_values, expected, rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="as_is or turn_end"):
        make("dw_expectiminimax:leaves=sideways", seed=0)
    with pytest.raises(ValueError, match="needs a value network"):
        make("dw_expectiminimax:leaves=turn_end", seed=0).act(state)
