"""The course bots: legal in whole games, and each behaving as its rule says."""

import json

import numpy as np
import pytest

from plies.agents import make
from plies.agents.dice_wars_bots import (
    WEIGHTS_FILE,
    fit_logistic,
    play_bot_game,
    self_play_records,
)
from plies.games.dice_wars import (
    DiceWarsState,
    attack_success_probability,
    probability_of_holding_area,
    rules,
)
from plies.games.state import sample_chance

BOTS = ["dw_random", "dw_all_random", "strength_diff", "single_turn", "win_prob"]


def pos(text):
    return DiceWarsState.from_string(text)


@pytest.mark.parametrize("lineup", [BOTS[:4], BOTS[1:], ["win_prob", "dw_random"]])
def test_bots_play_legal_games(lineup):
    rng = np.random.default_rng(0)
    state = DiceWarsState.initial(rng, num_players=len(lineup))
    agents = [make(spec, seed=i) for i, spec in enumerate(lineup)]
    attacks_in_turn = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
            continue
        seat = state.current_player
        action = agents[seat].act(state)
        assert state.is_legal(action)
        if action != state.end_turn_action:
            attacks_in_turn += 1
            if lineup[seat] == "dw_random":
                assert attacks_in_turn <= 2
        else:
            attacks_in_turn = 0
        state.apply(action)
    assert state.winner is not None or state.cancelled


def test_dw_random_stops_after_two_attacks():
    text = "players=2 turn=0 attacks={} areas=0:5,1:2,0:5,1:2 adjacency=1/0,2/1,3/2"
    bot = make("dw_random", seed=0)
    for _ in range(5):
        assert bot.act(pos(text.format(1))) != pos(text.format(1)).end_turn_action
        assert bot.act(pos(text.format(2))) == pos(text.format(2)).end_turn_action
    end = pos(text.format(2)).end_turn_action
    assert make("dw_random:max_attacks=3", seed=0).act(pos(text.format(2))) != end


def test_all_random_attacks_while_it_can():
    state = pos("players=2 turn=0 attacks=7 areas=0:2,1:8,0:2,1:8 adjacency=1/0,2/1,3/2")
    bot = make("dw_all_random", seed=1)
    chosen = {bot.act(state) for _ in range(40)}
    assert chosen == {state.attack_action(0, 1), state.attack_action(2, 1),
                      state.attack_action(2, 3)}


def test_strength_diff_picks_the_largest_non_negative_difference():
    # star: own area 0 (6 dice) touches enemies 1 (5), 2 (2), 3 (7); own area 4 (3) touches 3
    state = pos("players=2 turn=0 areas=0:6,1:5,1:2,1:7,0:3 adjacency=1,2,3/0/0/0,4/3")
    bot = make("strength_diff", seed=0)
    assert bot.act(state) == state.attack_action(0, 2)  # 6 - 2 = 4 is the largest
    weak = pos("players=2 turn=0 areas=0:2,1:5,1:3 adjacency=1,2/0/0")
    assert bot.act(weak) == weak.end_turn_action  # only negative differences left
    equal = pos("players=2 turn=0 areas=0:3,1:3 adjacency=1/0")
    assert bot.act(equal) == equal.attack_action(0, 1)  # a zero difference still attacks


def test_single_turn_uses_win_times_hold_probability():
    # area 0 (4 dice) may attack 1 (3 dice); behind 1 sits enemy area 2
    template = "players=3 turn=0 areas=0:4,1:3,2:{} adjacency=1/0,2/1"
    bot = make("single_turn", seed=0)
    for behind in (1, 2, 5, 8):
        state = pos(template.format(behind))
        product = attack_success_probability(4, 3) * probability_of_holding_area(
            state, 1, 0, dice=3)
        expected = state.attack_action(0, 1) if product >= 0.2 else state.end_turn_action
        assert bot.act(state) == expected
    # the 8-dice rule: attacks from a full area even when the product is small
    full = pos("players=3 turn=0 areas=0:8,1:8,2:8 adjacency=1/0,2/1")
    assert attack_success_probability(8, 8) * probability_of_holding_area(full, 1, 0, 7) < 0.2
    assert bot.act(full) == full.attack_action(0, 1)
    strict = make("single_turn:threshold=0.99", seed=0)
    assert strict.act(pos(template.format(1))) == pos(template.format(1)).end_turn_action


def test_win_prob_takes_a_certain_capture_and_skips_hopeless_ones():
    bot = make("win_prob", seed=0)
    sure = pos("players=2 turn=0 areas=0:8,1:1,1:8 adjacency=1/0,2/1")
    assert bot.act(sure) == sure.attack_action(0, 1)
    hopeless = pos("players=2 turn=0 areas=0:2,1:8,0:3 adjacency=1/0,2/1")
    assert bot.act(hopeless) == hopeless.end_turn_action
    shipped = json.loads(WEIGHTS_FILE.read_text())
    assert bot.coefficients == tuple(shipped["coefficients"][k] for k in ("bias", "region", "dice"))
    assert "command" in shipped


def test_compiled_bot_games_finish_and_record():
    state = DiceWarsState.initial(np.random.default_rng(3))
    kinds = np.array([2, 3, 2, 3], np.int64)
    params = np.tile(np.array([0.2, 0, 0, 0.0]), (4, 1))
    record = np.zeros((20_000, 4), np.int64)
    rows = play_bot_game(state.array, kinds, params, 7, record)
    assert state.is_terminal() and rows > 0
    assert np.all(record[:rows, 2] <= record[:rows, 3])  # a region never exceeds the dice
    assert set(record[:rows, 1]) <= {0, 1, 2, 3}


def test_fit_logistic_recovers_a_known_model():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20_000, 2))
    p = 1 / (1 + np.exp(-(-0.5 + 1.5 * x[:, 0] - 2.0 * x[:, 1])))
    y = (rng.random(len(p)) < p).astype(float)
    assert np.allclose(fit_logistic(x, y, l2=0.0), [-0.5, 1.5, -2.0], atol=0.1)
    feats, labels = self_play_records(2, (-6.0, 1.0, 1.0), seed=0)
    assert feats.shape[1] == 2 and set(np.unique(labels)) <= {0.0, 1.0}


def test_bots_refuse_chance_nodes():
    state = pos("players=2 turn=0 areas=0:5,1:2 adjacency=1/0")
    state.apply(state.attack_action(0, 1))
    with pytest.raises(ValueError, match="chance"):
        make("strength_diff").act(state)
    assert state.array[rules.PHASE] == rules.PHASE_BATTLE


def test_course_names_are_the_course_bots():
    """The course's names: dt.rand attacks while it can, xlogin00 stops after two attacks."""
    text = "players=2 turn=0 attacks={} areas=0:5,1:2,0:5,1:2 adjacency=1/0,2/1,3/2"
    after_two = pos(text.format(2))
    assert make("dt.rand", seed=0).act(after_two) != after_two.end_turn_action
    assert make("xlogin00", seed=0).act(after_two) == after_two.end_turn_action
    assert make("xlogin00", seed=0).act(pos(text.format(1))) != after_two.end_turn_action
    for course, plies in [("dt.rand", "dw_all_random"), ("dt.sdc", "strength_diff"),
                          ("dt.ste", "single_turn"), ("dt.wpm_c", "wpm_c"), ("xlogin00", "dw_random")]:
        assert type(make(course)) is type(make(plies))
        assert make(course).name == course


def test_course_pool_plays_legal_games():
    lineup = ["dt.rand", "dt.sdc", "dt.ste", "dt.wpm_c", "xlogin00"]
    rng = np.random.default_rng(4)
    state = DiceWarsState.initial(rng, num_players=len(lineup))
    agents = [make(spec, seed=i) for i, spec in enumerate(lineup)]
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
            continue
        action = agents[state.current_player].act(state)
        assert state.is_legal(action)
        state.apply(action)
    assert state.winner is not None or state.cancelled
