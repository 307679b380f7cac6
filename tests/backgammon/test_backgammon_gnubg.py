"""The gnubg and pubeval agents: board conversion against gnubg-nn itself, afterstates equal
gnubg's move generator, and the agents playing legal plays only."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from plies.agents.gnubg_agents import (
    GnubgAgent,
    PubevalAgent,
    from_gnubg,
    play_steps,
    pubeval_steps,
    to_gnubg,
)
from plies.agents.specs import make
from plies.games.backgammon import BackgammonState, rules
from plies.games.state import sample_chance

gnubg_nn = pytest.importorskip("gnubg_nn")

START = "X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; {who} to play {hi}-{lo}"
ROLLS = [(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)]


def board_key(array: np.ndarray) -> tuple[int, ...]:
    return tuple(int(v) for v in array[rules.BOARD : rules.BOARD + 2 * rules.SIDE])


def gnubg_afterstates(state: BackgammonState) -> list[tuple[int, ...]]:
    """gnubg's distinct results of the roll, converted to plies boards (with repeats, if any)."""
    seat = state.current_player
    hi, lo = state.dice
    keys = gnubg_nn.moves(to_gnubg(state.array, seat), hi, lo)
    return [
        board_key(from_gnubg(gnubg_nn.board_from_position_key(key), seat, state.array))
        for key in keys
    ]


def random_positions(seed: int, count: int) -> list[BackgammonState]:
    """Positions with a whole roll to play, from games of random checker moves."""
    rng = np.random.default_rng(seed)
    found: list[BackgammonState] = []
    while len(found) < count:
        state = BackgammonState()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state.apply(sample_chance(state, rng))
                if state.current_player >= 0:
                    found.append(state.clone())
                continue
            actions = state.legal_actions()
            state.apply(int(actions[rng.integers(len(actions))]))
    return found


def test_start_position_converts_to_gnubg_by_hand_and_has_the_standard_id():
    state = BackgammonState.from_string(START.format(who="O", hi=6, lo=5))
    side = [0] * 25
    side[23], side[12], side[7], side[5] = 2, 5, 3, 5  # points 24, 13, 8, 6 (0-based)
    assert to_gnubg(state.array, 1) == [side, side]
    assert gnubg_nn.position_id(to_gnubg(state.array, 1)) == "4HPwATDgc/ABMA"  # gnubg's start


def test_a_diagram_with_bar_and_borne_off_checkers_converts_both_ways():
    text = "X bar:2 20:1 5:4 2:3 off:5; O bar:1 22:2 3:2 1:3 off:7; X to play 4-4"
    state = BackgammonState.from_string(text)
    board = to_gnubg(state.array, 0)
    x = [0] * 25
    x[24], x[19], x[4], x[1] = 2, 1, 4, 3
    o = [0] * 25
    o[24], o[21], o[2], o[0] = 1, 2, 2, 3
    assert board == [o, x]  # [opponent, player on roll], each in its own numbering
    assert board_key(from_gnubg(board, 0, state.array)) == board_key(state.array)
    # the same board from O's side, as gnubg's key of the swapped board
    swapped = gnubg_nn.board_from_position_key(gnubg_nn.key_of_board(board[::-1]))
    assert board_key(from_gnubg(swapped, 1, state.array)) == board_key(state.array)
    with pytest.raises(ValueError):
        from_gnubg([[5] * 25, [0] * 25], 0, state.array)


def test_every_opening_roll_round_trips_and_matches_gnubg_moves():
    for who in "XO":
        for hi, lo in ROLLS:
            state = BackgammonState.from_string(START.format(who=who, hi=hi, lo=lo))
            seat = state.current_player
            board = to_gnubg(state.array, seat)
            assert np.array_equal(from_gnubg(board, seat, state.array), state.array)
            rows, _ = state.afterstates()
            ours = sorted(board_key(r) for r in rows)
            theirs = gnubg_afterstates(state)
            assert ours == sorted(theirs), (who, hi, lo)
            # gnubg's and pubeval's chosen plays, stepped on gnubg's board, are legal for us
            for steps in (
                gnubg_nn.best_move(board, hi, lo),
                pubeval_steps(gnubg_nn.pub_best_move(board, hi, lo)),
            ):
                after = from_gnubg(play_steps(board, steps), seat, state.array)
                assert board_key(after) in set(ours), (who, hi, lo, steps)


def test_afterstates_equal_gnubg_moves_on_random_positions():
    positions = random_positions(seed=5, count=600)
    seen = {"doubles": 0, "bar": 0, "bear-off": 0, "one die": 0}
    for state in positions:
        seat = state.current_player
        assert np.array_equal(from_gnubg(to_gnubg(state.array, seat), seat, state.array),
                              state.array)
        rows, _ = state.afterstates()
        theirs = gnubg_afterstates(state)
        assert len(theirs) == len(set(theirs))
        assert sorted(board_key(r) for r in rows) == sorted(theirs), state.to_string()
        own = state.checkers(seat)
        hi, lo = state.dice
        seen["doubles"] += hi == lo
        seen["bar"] += own[rules.BAR] > 0
        seen["bear-off"] += own[7:].sum() == 0
        seen["one die"] += hi != lo and max(int((p >= 0).sum()) for p in state.afterstates()[1]) == 1
    assert min(seen.values()) > 0, seen


def test_play_steps_hits_and_bears_off():
    board = [[0] * 25, [0] * 25]
    board[1][5] = 1  # our 6-point
    board[1][1] = 1  # our 2-point
    board[0][20] = 1  # opponent blot on its 21 = our 4
    after = play_steps(board, [(6, 4), (2, 0)])
    assert after[1][3] == 1 and after[1][5] == 0 and after[1][1] == 0
    assert after[0][20] == 0 and after[0][24] == 1
    assert pubeval_steps([24, 19, 4, -1]) == [(25, 20), (5, 0)]
    with pytest.raises(ValueError):
        play_steps(board, [(7, 1)])


@pytest.mark.parametrize("spec", ["gnubg", "pubeval"])
def test_agents_play_legal_plays_and_the_whole_chosen_play(spec):
    rng = np.random.default_rng(9)
    agent = make(spec, seed=0)
    other = make("expectiminimax:depth=1,eval=combined", seed=1)
    for game in range(2):
        state = BackgammonState()
        seats = [agent, other] if game == 0 else [other, agent]
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(sample_chance(state, rng))
                continue
            player = seats[state.current_player]
            if player is agent:
                seat = state.current_player
                board = to_gnubg(state.array, seat)
                hi, lo = state.dice
                gnubg_nn.set.score(1, 1)  # single scoring: gnubg plays at double match point
                steps = (gnubg_nn.best_move(board, hi, lo) if spec == "gnubg"
                         else pubeval_steps(gnubg_nn.pub_best_move(board, hi, lo)))
                expected = board_key(from_gnubg(play_steps(board, steps), seat, state.array))
                while state.current_player == seat:
                    state.apply(agent.act(state))  # apply() rejects illegal actions
                assert board_key(state.array) == expected
            else:
                state.apply(player.act(state))
        assert sorted(state.returns()) == [-1.0, 1.0]


@pytest.mark.parametrize("cls", [GnubgAgent, PubevalAgent])
def test_agents_finish_a_turn_someone_else_started(cls):
    agent = cls(seed=0)
    finished = 0
    for state in random_positions(seed=8, count=40):
        if len(state.legal_actions()) == 0 or len(state.dice_left) < 2:
            continue
        seat = state.current_player
        state.apply(int(state.legal_actions()[0]))
        finished += state.current_player == seat
        while state.current_player == seat:
            state.apply(agent.act(state))
    assert finished > 10


def test_gnubg_agent_depth_is_checked_and_spec_parsed():
    assert make("gnubg:depth=1").depth == 1
    with pytest.raises(ValueError):
        GnubgAgent(depth=7)


def test_missing_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(ImportError, match=r'pip install "plies\[gnubg\]"'):
        PubevalAgent()
