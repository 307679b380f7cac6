"""Expectiminimax at a root with more afterstates than the game has actions (150): every
afterstate is searched once, with the value computed by hand (a doubles roll of 174 plays)."""

from __future__ import annotations

import numpy as np
import pytest

from plies.agents.evaluator_specs import evaluator_for
from plies.agents.expectiminimax import analyse
from plies.games.backgammon import BackgammonState

WIDE = "X bar:1 24:2 22:1 13:5 6:4 3:1 2:1; O 24:1 17:1 13:4 9:1 8:1 7:1 6:4 4:2; O to play 3-3"


def two_ply_by_hand(state: BackgammonState, path: np.ndarray, evaluator) -> float:
    seat = state.current_player
    after = state.clone()
    for action in path:
        if action >= 0:
            after.apply(int(action))
    outcomes, probs = after.chance_outcomes()
    expected = 0.0
    for outcome, prob in zip(outcomes, probs):
        rolled = after.clone()
        rolled.apply(int(outcome))
        if rolled.is_chance_node():  # the opponent cannot move
            expected += prob * evaluator.evaluate(rolled.array[None], seat)[0]
        else:
            replies, _ = rolled.afterstates()
            expected += prob * evaluator.evaluate(replies, seat).min()
    return expected


@pytest.mark.parametrize("prune", [False, True])
def test_every_one_of_many_root_afterstates_is_searched_once(prune):
    state = BackgammonState.from_string(WIDE)
    seat = state.current_player
    rows, _ = state.afterstates()
    assert len(rows) > 150
    evaluator = evaluator_for(state, "pips")
    values, _, paths, _ = analyse(state, depth=2, evaluator=evaluator, prune=prune)
    reached = []
    for path in paths:
        after = state.clone()
        for action in path:
            if action >= 0:
                after.apply(int(action))
        reached.append(after.array.tobytes())
    assert sorted(reached) == sorted(r.tobytes() for r in rows)  # each one exactly once
    best = int(np.argmax(values[:, seat]))
    by_hand = [two_ply_by_hand(state, paths[k], evaluator) for k in (best, 151, len(paths) - 1)]
    assert values[best, seat] == pytest.approx(by_hand[0])
    if not prune:  # pruned searches give only bounds for moves that are not the best
        assert values[151, seat] == pytest.approx(by_hand[1])
        assert values[-1, seat] == pytest.approx(by_hand[2])
    else:
        assert by_hand[0] >= max(by_hand[1:]) - 1e-12
