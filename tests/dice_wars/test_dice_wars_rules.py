"""Each rule of Dice Wars, set up from positions in the text notation."""

import pickle

import numpy as np
import pytest

from plies.games.dice_wars import DiceWarsState, attack_success_probability, rules
from plies.games.kernels import CHANCE, TERMINAL
from plies.games.state import sample_chance

LINE4 = "adjacency=1/0,2/1,3/2"  # areas 0-1-2-3 in a row


def pos(text: str) -> DiceWarsState:
    return DiceWarsState.from_string(text)


def attack(state, src, tgt, won):
    state.apply(state.attack_action(src, tgt))
    assert state.current_player == CHANCE and state.phase == "battle"
    state.apply(rules.WON if won else rules.LOST)


def test_dealing_and_start():
    state = DiceWarsState.initial(np.random.default_rng(3), num_players=4)
    counts = [state.area_count(p) for p in range(4)]
    assert sorted(counts) == [7, 7, 7, 8] and counts[0] == 8  # dealt in turn from seat 0
    assert np.all(state.dice == 3)
    assert state.current_player == 0 and state.num_actions == 29 * 29 + 1
    again = DiceWarsState.initial(np.random.default_rng(3), num_players=4)
    assert np.array_equal(state.array, again.array)
    with pytest.raises(ValueError, match="2 to 8"):
        DiceWarsState.initial(np.random.default_rng(0), num_players=9)
    with pytest.raises(ValueError, match="unknown option.*players.*options: num_players"):
        DiceWarsState.initial(np.random.default_rng(0), players=4)
    eight = DiceWarsState.initial(np.random.default_rng(0), num_players=8)
    assert sorted(set(eight.owners.tolist())) == list(range(8))


def test_legal_attacks_need_two_dice_and_an_adjacent_enemy():
    state = pos(f"players=2 turn=0 areas=0:2,0:1,1:3,1:4 {LINE4}")
    # area 0 borders only its own area 1; area 1 has one die: nothing to attack
    assert list(state.legal_actions()) == [state.end_turn_action]
    state = pos(f"players=2 turn=0 areas=0:1,0:2,1:3,1:4 {LINE4}")
    assert list(state.legal_actions()) == [state.attack_action(1, 2), state.end_turn_action]
    assert state.action_to_string(state.attack_action(1, 2)) == "1->2"
    assert state.string_to_action("end") == state.end_turn_action
    with pytest.raises(ValueError, match="illegal"):
        state.apply(state.attack_action(0, 1))


def test_attack_outcomes_move_dice():
    state = pos(f"players=2 turn=0 areas=0:1,0:5,1:3,1:4 {LINE4}")
    state.apply(state.attack_action(1, 2))
    outcomes, probs = state.chance_outcomes()
    assert list(outcomes) == [rules.LOST, rules.WON]
    assert probs[1] == pytest.approx(attack_success_probability(5, 3))
    assert probs.sum() == pytest.approx(1.0)
    won = state.clone()
    won.apply(rules.WON)
    assert won.owners.tolist() == [0, 0, 0, 1] and won.dice.tolist() == [1, 1, 4, 4]
    assert won.current_player == 0 and won.attacks_this_turn == 1 and won.battles == 1
    state.apply(rules.LOST)
    assert state.owners.tolist() == [0, 0, 1, 1] and state.dice.tolist() == [1, 1, 3, 4]
    assert state.current_player == 0


def test_certain_win_has_one_outcome():
    state = pos(f"players=2 turn=0 areas=0:8,1:1,1:3,1:4 {LINE4}")
    state.apply(state.attack_action(0, 1))
    outcomes, probs = state.chance_outcomes()
    assert list(outcomes) == [rules.WON] and list(probs) == [1.0]


def test_reinforcement_is_reserve_plus_largest_region_one_die_at_a_time():
    # seat 0 owns areas 0,1 (a region of 2) and area 3 (alone): largest region 2, reserve 3
    state = pos(f"players=2 turn=0 reserve=3,0 areas=0:2,0:8,1:3,0:4 {LINE4}")
    state.apply(state.end_turn_action)
    assert state.current_player == CHANCE and state.phase == "reinforce"
    outcomes, probs = state.chance_outcomes()
    assert list(outcomes) == [0, 3] and np.allclose(probs, 0.5)  # area 1 is full
    for _ in range(5):
        assert state.current_player == CHANCE
        state.apply(0)
    assert state.current_player == 1 and state.reserves.tolist() == [0, 0]
    assert state.dice.tolist() == [7, 8, 3, 4]


def test_reinforcement_overflow_goes_to_reserve_capped_at_64():
    state = pos(f"players=2 turn=0 reserve=64,0 areas=0:8,0:7,1:3,1:3 {LINE4}")
    state.apply(state.end_turn_action)  # 64 + 2 capped at 64; one free slot
    assert list(state.chance_outcomes()[0]) == [1]
    state.apply(1)
    assert state.current_player == 1
    assert state.reserves.tolist() == [63, 0]
    full = pos(f"players=2 turn=0 reserve=10,0 areas=0:8,0:8,1:3,1:3 {LINE4}")
    full.apply(full.end_turn_action)  # no room at all: no chance node
    assert full.current_player == 1 and full.reserves.tolist() == [12, 0]


def test_win_returns():
    state = pos("players=3 turn=0 areas=0:5,1:1,0:2 adjacency=1,2/0/0")
    state.apply(state.attack_action(0, 1))
    state.apply(rules.WON)
    assert state.is_terminal() and state.winner == 0 and not state.cancelled
    assert state.returns().tolist() == [1.0, -0.5, -0.5]
    assert state.legal_actions() == ()


def test_elimination_skips_the_eliminated_seat():
    state = pos("players=3 turn=0 areas=0:5,1:1,2:2,2:2 adjacency=1,2/0/0,3/2")
    attack(state, 0, 1, won=True)
    assert state.area_count(1) == 0
    state.apply(state.end_turn_action)
    while state.current_player == CHANCE:
        state.apply(int(state.chance_outcomes()[0][0]))
    assert state.current_player == 2
    state.apply(state.end_turn_action)
    while state.current_player == CHANCE:
        state.apply(int(state.chance_outcomes()[0][0]))
    assert state.current_player == 0


def _pass_turn(state):
    state.apply(state.end_turn_action)
    while state.current_player == CHANCE:
        state.apply(int(state.chance_outcomes()[0][0]))


def test_cancel_after_eight_rounds_without_an_attack():
    state = pos(f"players=2 turn=0 areas=0:8,0:8,1:8,1:8 {LINE4}")
    for _ in range(15):
        _pass_turn(state)
        assert not state.is_terminal()
    _pass_turn(state)
    assert state.is_terminal() and state.cancelled and state.winner is None
    assert state.returns().tolist() == [0.0, 0.0]


def test_an_attack_resets_the_passing_count_and_rounds_count_alive_players():
    # three seats, one eliminated: 8 rounds are 16 turns
    text = "players=3 turn=0 passes=15 areas=0:8,0:8,2:8,2:8 adjacency=1/0,2/1,3/2"
    state = pos(text)
    _pass_turn(state)
    assert state.is_terminal() and state.cancelled
    state = pos("players=2 turn=0 passes=15 areas=0:2,0:8,1:8,1:8 " + LINE4)
    attack(state, 1, 2, won=False)
    _pass_turn(state)
    assert not state.is_terminal()


def test_cancel_at_ten_thousand_battles():
    state = pos(f"players=2 turn=0 battles=9999 areas=0:2,0:8,1:8,1:8 {LINE4}")
    attack(state, 1, 2, won=False)
    assert state.is_terminal() and state.cancelled
    assert state.returns().tolist() == [0.0, 0.0]


def test_random_game_undo_and_hash():
    rng = np.random.default_rng(1)
    state = DiceWarsState.initial(np.random.default_rng(2), num_players=3)
    start = state.array.copy()
    start_hash = state.hash()
    seen = 0
    while not state.is_terminal() and seen < 3000:
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            # attack more than end the turn, so that the game moves
            attacks = legal[:-1]
            pick = attacks if len(attacks) and rng.random() < 0.8 else legal
            state.apply(int(pick[rng.integers(len(pick))]))
        seen += 1
    assert state.battles > 0
    middle = state.clone()
    for _ in range(len(state.history)):
        state.undo()
    assert np.array_equal(state.array, start) and state.hash() == start_hash
    assert pickle.loads(pickle.dumps(middle)) == middle


def test_text_round_trip_and_errors():
    state = DiceWarsState.initial(np.random.default_rng(4))
    state.apply(state.legal_actions()[0])  # into a battle
    again = DiceWarsState.from_string(state.to_string())
    assert np.array_equal(again.array, state.array)
    for bad, match in [
        ("players=2 turn=0", "missing"),
        ("players=2 turn=0 areas=0:3,1:3 adjacency=1", "2 areas but adjacency lists 1"),
        ("players=2 turn=0 areas=0:9,1:3 adjacency=1/0", "dice per area"),
        ("players=2 turn=0 areas=0:3,1:3 adjacency=1/0 phase=battle:1>0", "phase"),
        ("players=2 turn=0 areas=0:3,1:3 adjacency=1/0 colour=red", "key=value"),
        ("players=2 turn=x areas=0:3,1:3 adjacency=1/0", "malformed"),
    ]:
        with pytest.raises(ValueError, match=match):
            DiceWarsState.from_string(bad)


def test_observation_and_render():
    state = DiceWarsState.initial(np.random.default_rng(0))
    obs = state.observation(1)
    assert obs.shape == state.observation_shape == (29, 4 + 1 + 29)
    assert obs.dtype == np.float32
    own = state.owners == 1
    assert np.array_equal(obs[:, 0] == 1, own)
    assert np.allclose(obs[:, 4], 3 / 8)
    assert obs[:, 5:].sum() == sum(len(a) for a in state.adjacency)
    image = state.render_rgb()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 4  # owners, borders, digits
    graph = pos("players=2 turn=0 areas=0:3,1:3,0:2 adjacency=1/0,2/1").render_rgb()
    assert graph.shape[1] == 420 and graph.shape[0] > 420  # the ring of areas, then the legend
    assert "seat 0 to move" in state.render_text()


def test_default_constructor_and_options():
    assert DiceWarsState().to_string() == DiceWarsState().to_string()
    small = DiceWarsState.initial(np.random.default_rng(0), num_players=2, num_areas=6,
                                  rows=10, cols=12)
    assert small.num_areas == 6 and small.num_players == 2
    custom = DiceWarsState.initial(np.random.default_rng(0), adjacency=[[1], [2], [3], []])
    assert custom.adjacency == ((1,), (0, 2), (1, 3), (2,)) and custom.cells is None
    with pytest.raises(ValueError, match="unknown option"):
        DiceWarsState(board_size=3)


def test_terminal_state_array_slot_zero():
    state = pos("players=2 turn=0 areas=0:5,1:1 adjacency=1/0")
    attack(state, 0, 1, won=True)
    assert state.array[0] == TERMINAL
