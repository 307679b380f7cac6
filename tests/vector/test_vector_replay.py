"""A batch run matches the same games played one by one through the GameState.

Each batch keeps a trace of every action and chance outcome per slot. After every step the
test replays the new trace entries through a GameState (checked ``apply``: every move and
chance outcome must be legal there) and compares the batch's state row, player, mask,
observation, rewards and end flags with the GameState's.
"""

from __future__ import annotations

import numpy as np
import pytest

import plies.envs.vector as pv
from plies.games.registry import game_ids, state_class
from plies.testing import replay_batch

GAMES = game_ids()
STEPS = {"tictactoe": 60, "connect_four": 80, "nine_mens_morris": 150, "dice_wars": 150,
         "backgammon": 150, "othello": 80}


def replay_check(game: str, num_envs: int, steps: int, seed: int, parallel: bool, **options) -> dict[str, int]:
    stats = replay_batch(game, num_envs, steps, seed=seed, parallel=parallel, **options)
    return {"ended": stats["batch_ended"], "truncated": stats["batch_truncated"], "chance": stats["batch_chance"]}


@pytest.mark.parametrize("game", GAMES)
def test_batch_matches_gamestate_replay(game):
    options = {"maps": 3} if game == "dice_wars" else {}
    stats = replay_check(game, 12, STEPS.get(game, 100), seed=7, parallel=False, **options)
    if game in ("tictactoe", "connect_four"):
        assert stats["ended"] > 0
    if game in ("dice_wars", "backgammon"):
        assert stats["chance"] > 0


@pytest.mark.parametrize("game", ["tictactoe", "nine_mens_morris"])
def test_truncation_matches_replay(game):
    stats = replay_check(game, 6, 40, seed=3, parallel=False, max_game_length=7)
    assert stats["truncated"] > 0


def test_parallel_replay_matches_gamestate():
    replay_check("connect_four", 300, 30, seed=11, parallel=True)


@pytest.mark.parametrize("game", GAMES)
def test_parallel_and_serial_runs_are_identical(game):
    """Each game has its own generator, so the thread that steps it does not matter."""
    options = {"maps": 2} if game == "dice_wars" else {}
    runs = []
    for parallel in (False, True):
        batch = pv.make(game, 40, seed=5, parallel=parallel, **options)
        for _ in range(25):
            batch.step(batch.sample_actions())
        runs.append(batch.states.copy())
    np.testing.assert_array_equal(runs[0], runs[1])


def test_start_states_are_the_games_initial_positions():
    for game in ("tictactoe", "connect_four", "nine_mens_morris"):
        batch = pv.make(game, 3, seed=0, trace=100)
        expected = state_class(game)().array
        for i in range(3):
            np.testing.assert_array_equal(batch.start_state(i), expected)


def test_dice_wars_resets_deal_the_slot_map_anew():
    from plies.games.dice_wars import rules

    batch = pv.make("dice_wars", 4, seed=2, maps=2, trace=10)
    n = int(batch.initial_states[0, rules.NUM_AREAS])
    owners = slice(rules.AREAS, rules.AREAS + n)
    deals = set()
    for _ in range(30):
        batch.reset()
        for i in range(4):
            start = batch.start_state(i)
            row = batch.initial_states[i % 2]
            # everything but the owners comes from the slot's map row
            rest = np.ones(len(row), bool)
            rest[owners] = False
            np.testing.assert_array_equal(start[rest], row[rest])
            counts = np.bincount(start[owners], minlength=4)
            assert counts.max() - counts.min() <= 1  # seats take areas in turn
            deals.add(tuple(start[owners]))
    assert len(deals) > 100  # redrawn each time
