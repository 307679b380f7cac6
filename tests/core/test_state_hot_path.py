"""The GameState's hot path: legal actions as a cached tuple, the checked apply, cheap starts."""

import random

import numpy as np
import pytest

import plies
from plies.games.registry import game_ids

GAMES = [g for g in game_ids() if g != "dice_wars"] + ["dice_wars"]


@pytest.mark.parametrize("game", GAMES)
def test_legal_actions_are_a_tuple_of_ints_that_agrees_with_the_kernel(game):
    state = plies.new_state(game, seed=3)
    rng = random.Random(0)
    kernels = plies.get_game(game).kernels
    out = np.empty(state.max_legal_actions, np.int64)
    for _ in range(60):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert type(legal) is tuple and all(type(a) is int for a in legal)
        n = kernels.legal_actions(state.array.copy(), out)
        assert legal == tuple(out[:n].tolist())  # the step's listing is the kernel's
        assert state.legal_array().tolist() == list(legal)
        assert state.action_mask().nonzero()[0].tolist() == sorted(legal)
        state.apply(rng.choice(legal))
        if len(state.history) % 3 == 0:  # after an undo the cache is rebuilt, not stale
            state.undo()
            n = kernels.legal_actions(state.array.copy(), out)
            assert state.legal_actions() == tuple(out[:n].tolist())
            state.apply(rng.choice(state.legal_actions()))


def test_the_checked_apply_refuses_what_the_tuple_does_not_hold():
    state = plies.new_state("tictactoe")
    state.apply(np.int64(4))  # numpy integers are taken
    with pytest.raises(ValueError, match="illegal"):
        state.apply(4)
    with pytest.raises(TypeError, match="integer"):
        state.apply(True)
    with pytest.raises(TypeError, match="integer"):
        state.apply(4.0)
    assert state.history == [4] and 4 not in state.legal_actions()


def test_a_clone_keeps_its_own_legal_actions():
    state = plies.new_state("connect_four")
    before = state.legal_actions()
    child = state.clone()
    child.apply(3)
    assert state.legal_actions() == before and child.legal_actions() == before  # column 3 still open
    for _ in range(5):  # six discs fill the column
        child.apply(3)
    assert 3 not in child.legal_actions() and 3 in state.legal_actions()


def test_only_games_with_random_starts_draw_them():
    assert not plies.get_game("tictactoe").state_class.random_start
    assert plies.get_game("dice_wars").state_class.random_start
    a = plies.new_state("dice_wars", seed=11)
    b = plies.new_state("dice_wars", seed=11)
    c = plies.new_state("dice_wars", seed=12)
    assert np.array_equal(a.array, b.array) and not np.array_equal(a.array, c.array)


@pytest.mark.parametrize("game", ["connect_four", "backgammon"])
def test_states_of_one_game_step_in_several_threads_without_mixing_their_legal_actions(game):
    # plies serve steps different games of one kind in a thread pool; each state's listing must
    # be its own even when the interpreter switches threads between a kernel call and the tuple
    import sys
    import threading

    def play(seed: int, log: list) -> None:
        rng = random.Random(seed)
        for _ in range(4):
            state = plies.new_state(game, seed=seed)
            while not state.is_terminal() and len(state.history) < 150:
                legal = state.legal_actions()
                log.append(legal)
                state.apply(rng.choice(legal))

    logs: list[list] = [[] for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch as often as the interpreter can
    try:
        threads = [threading.Thread(target=play, args=(seed, logs[seed])) for seed in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    for seed in range(4):  # the same games replayed in one thread list the same actions
        alone: list = []
        play(seed, alone)
        assert logs[seed] == alone
