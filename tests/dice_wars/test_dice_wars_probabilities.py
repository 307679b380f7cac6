"""Battle probabilities against brute-force enumeration, and the holding probability."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from plies.games.dice_wars import DiceWarsState, attack_success_probability, probability_of_holding_area
from plies.games.dice_wars.probabilities import attack_success_fraction


def _enumerate(a, d):
    wins = 0
    total = 0
    for roll in itertools.product(range(1, 7), repeat=a + d):
        total += 1
        wins += sum(roll[:a]) > sum(roll[a:])
    return Fraction(wins, total)


@pytest.mark.parametrize("a,d", [(1, 1), (2, 1), (1, 2), (2, 2), (3, 2), (2, 3), (3, 3), (4, 2),
                                 (1, 5), (5, 1)])
def test_exact_against_enumeration(a, d):
    exact = _enumerate(a, d)
    assert attack_success_fraction(a, d) == exact
    assert attack_success_probability(a, d) == pytest.approx(float(exact), abs=1e-15)


def test_table_shape_of_the_game():
    # ties go to the defender: one die against one wins 15 of 36 rolls
    assert attack_success_probability(1, 1) == pytest.approx(15 / 36)
    assert attack_success_probability(8, 1) == 1.0  # 8 dice always beat one die's 6
    assert attack_success_probability(7, 1) == 1.0
    assert 0.0 < attack_success_probability(2, 8) < 1e-3
    for a in range(1, 8):
        for d in range(1, 9):
            assert attack_success_probability(a + 1, d) > attack_success_probability(a, d) or \
                attack_success_probability(a, d) == 1.0
    with pytest.raises(ValueError, match="1 to 8"):
        attack_success_probability(9, 1)


def test_probability_of_holding_area():
    # area 0 (seat 0, 3 dice) touches 1 (seat 1, 5 dice), 2 (seat 2, 1 die), 3 (own, 8 dice)
    state = DiceWarsState.from_string(
        "players=3 turn=0 areas=0:3,1:5,2:1,0:8 adjacency=1,2,3/0/0/0"
    )
    expected = 1.0 - attack_success_probability(5, 3)  # 1-die and own neighbours cannot attack
    assert probability_of_holding_area(state, 0, 0) == pytest.approx(expected)
    assert probability_of_holding_area(state, 0, 0, dice=7) == pytest.approx(
        1.0 - attack_success_probability(5, 7))
    # judged for seat 1, area 1 is a friend and seat 0's 8-dice area 3 an attacker
    assert probability_of_holding_area(state.array, 0, 1) == pytest.approx(
        1.0 - attack_success_probability(8, 3))
    # for seat 2 both area 1 (5 dice) and area 3 (8 dice) attack
    both = (1.0 - attack_success_probability(5, 3)) * (1.0 - attack_success_probability(8, 3))
    assert probability_of_holding_area(state, 0, 2) == pytest.approx(both)
    with pytest.raises(ValueError):
        probability_of_holding_area(state, 4, 0)
    assert np.isclose(probability_of_holding_area(state, 3, 0), 1.0)
