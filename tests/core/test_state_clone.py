"""Clones share their history's undo rows copy on write: whatever a clone or its original plays
and takes back afterwards, neither disturbs the other, and each undoes to where it began."""

import numpy as np
import pytest

from plies.games.registry import game_ids, new_state
from plies.games.state import sample_chance


def play(state, rng, plies):
    for _ in range(plies):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply(sample_chance(state, rng))
        else:
            state.apply(int(rng.choice(state.legal_actions())))


def snapshot(state):
    return state.array.copy(), state.history


@pytest.mark.parametrize("game", game_ids())
def test_clones_and_originals_play_and_undo_independently(game):
    rng = np.random.default_rng(7)
    for trial in range(6):
        original = new_state(game, seed=trial)
        start = snapshot(original)
        play(original, rng, 12)
        family = [original]
        for _ in range(3):  # clones of clones, each going its own way after undoing some plies
            child = family[int(rng.integers(len(family)))].clone()
            for _ in range(int(rng.integers(0, len(child.history) + 1))):
                child.undo()
            play(child, rng, 10)
            family.append(child)
        for member in family:  # each undoes to the start through the positions it went through
            mark = snapshot(member)
            replay = new_state(game, seed=trial)
            for action in mark[1]:
                replay.apply(action)
            assert np.array_equal(replay.array, mark[0])
            while member.history:
                member.undo()
            assert np.array_equal(member.array, start[0])


def test_a_copy_is_a_clone():
    import copy

    state = new_state("connect_four")
    state.apply(3)
    other = copy.copy(state)
    other.apply(4)
    assert state.history == [3] and other.history == [3, 4]
