"""The backgammon diagnostics' own parts: the candidate inputs on positions worked by hand, and
the bookkeeping of the 2-ply labels' decisions (numbering across workers, each decision's pick)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.backgammon_input_candidates import PER_SIDE, candidate_inputs
from benchmarks.backgammon_own_2ply import first_of_each, merge, picks
from plies.agents.gnubg_agents import from_gnubg
from plies.games.backgammon import rules

START = {6: 5, 8: 3, 13: 5, 24: 2}
# forward anchor 24 -> 1/6; checkers behind the mean 167/15 on 24 and 13; timing: 3 spares on the
# 6 (5 pips each), 3 on the 8 (7), 5 on the 13 (12), the 24's anchor kept; free pips: beyond two on
# each point (3 x 6 + 1 x 8 + 3 x 13); one anchor with 2 checkers back; 3 spares at home; 3 builders
START_VALUES = [1 / 6, (2 * (24 - 167 / 15) ** 2 + 5 * (13 - 167 / 15) ** 2) / 400, 0.96, 0.0, 2 / 8, 0.65,
                0.0, 0.0, 0.0, 0.3, 0.3]


def _state(me: dict[int, int], them: dict[int, int], mover: int) -> np.ndarray:
    """``me`` (seat ``mover``) and ``them``: point -> checkers in each side's numbering (25: bar);
    the rest borne off."""
    side = lambda points: [points.get(i, 0) for i in range(1, 26)]  # noqa: E731
    return from_gnubg([side(them), side(me)], mover, rules.initial_array(0))


def test_the_candidates_of_the_starting_position_worked_by_hand():
    values = candidate_inputs(_state(START, START, 0)[None], np.array([0]))[0]
    np.testing.assert_allclose(values, START_VALUES * 2, rtol=1e-6)


@pytest.mark.parametrize("mover", [0, 1])
def test_a_back_game_with_a_checker_on_the_bar_worked_by_hand(mover):
    me = {25: 1, 22: 2, 20: 3, 8: 2, 6: 5}  # 13 checkers, 2 borne off
    pips = 25 + 2 * 22 + 3 * 20 + 2 * 8 + 5 * 6
    mean = pips / 13
    moment = ((25 - mean) ** 2 + 2 * (22 - mean) ** 2 + 3 * (20 - mean) ** 2) / 400
    # timing: 3 spares on the 6 (5 pips), both on the 8 (7), one beyond the 20's anchor (19), the bar (24)
    timing = (3 * 5 + 2 * 7 + 19 + 24) / 100
    free = (3 * 6 + 20 + 25) / 100  # beyond two on the 6 and the 20, and the bar
    expected = [5 / 6, moment, timing, 6 / 8, 0.0, free, 2 / 5, 0.0, 0.0, 0.3, 0.2]
    values = candidate_inputs(_state(me, START, mover)[None], np.array([mover]))[0]
    np.testing.assert_allclose(values[:PER_SIDE], expected, rtol=1e-6)
    np.testing.assert_allclose(values[PER_SIDE:], START_VALUES, rtol=1e-6)


def test_a_late_bear_off_splits_the_borne_off_checkers():
    values = candidate_inputs(_state({1: 2, 2: 1}, START, 0)[None], np.array([0]))[0]
    np.testing.assert_allclose(values[6:9], [1.0, 1.0, 2 / 5])


def test_the_candidates_refuse_bad_input():
    state = _state(START, START, 0)[None]
    with pytest.raises(ValueError, match="seats"):
        candidate_inputs(state, np.array([2]))
    with pytest.raises(ValueError, match="whole seats"):
        candidate_inputs(state, np.array([0.5]))
    with pytest.raises(ValueError, match="one mover a state"):
        candidate_inputs(state, np.array([0, 1]))
    with pytest.raises(ValueError, match="STATE_SIZE"):
        candidate_inputs(state[:, :-1], np.array([0]))


def test_the_workers_decisions_keep_numbers_of_their_own():
    part = lambda ids: {"rows": np.zeros((len(ids), 2)), "labels": np.zeros((len(ids), 5)),  # noqa: E731
                        "ids": np.array(ids)}
    merged = merge([part([0, 0, 1, 2, 3, 4, 4]), part([0, 1, 1, 2]), part([0])])
    assert merged["ids"].tolist() == [0, 0, 1, 2, 3, 4, 4, 5, 6, 6, 7, 8]
    assert len(merged["rows"]) == len(merged["labels"]) == 12


def test_each_decision_picks_its_lowest_value():
    ids = np.array([7, 7, 7, 3, 3, 9])
    starts = first_of_each(ids)
    assert starts.tolist() == [0, 3, 5]
    assert picks(np.array([0.2, -0.1, 0.4, 0.5, 0.6, 0.0]), starts).tolist() == [1, 3, 5]
