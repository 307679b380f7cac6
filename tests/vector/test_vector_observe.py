"""The observation kernels (rules.observe) give exactly what the GameStates computed with
numpy before the kernels existed; these reference versions are those numpy formulas."""

from __future__ import annotations

import numpy as np
import pytest

from plies.games.registry import state_class


def reference_tictactoe(state, seat):
    planes = (
        np.array([[0, 0], [1, 0], [0, 1]], np.float32),
        np.array([[0, 0], [0, 1], [1, 0]], np.float32),
    )
    return planes[seat][state.array[1:10]].reshape(3, 3, 2)


def reference_connect_four(state, seat):
    grid = state.grid()
    obs = np.zeros((state.height, state.width, 2), np.float32)
    obs[..., 0] = grid == seat + 1
    obs[..., 1] = grid == 2 - seat
    return obs


def reference_nine_mens_morris(state, seat):
    from plies.games.nine_mens_morris import rules

    s = state.array
    pts = s[rules.POINTS : rules.POINTS + rules.NUM_POINTS]
    obs = np.zeros(55, np.float32)
    obs[:24] = pts == seat + 1
    obs[24:48] = pts == 2 - seat
    obs[48] = s[rules.HAND + seat] / 9
    obs[49] = s[rules.HAND + 1 - seat] / 9
    obs[50] = s[rules.ON_BOARD + seat] / 9
    obs[51] = s[rules.ON_BOARD + 1 - seat] / 9
    obs[52] = float(s[rules.REMOVING] != 0 and s[rules.PLAYER] == seat)
    obs[53] = float(s[rules.PLAYER] == seat)
    limit = s[rules.OPT_NO_MILL] or s[rules.OPT_TURN_CAP] or 200
    obs[54] = min(1.0, s[rules.QUIET] / limit)
    return obs


def reference_dice_wars(state, seat):
    from plies.games.dice_wars import rules

    n, players = state.num_areas, state.num_players
    obs = np.zeros((n, players + 1 + n), np.float32)
    rel = (state.owners - seat) % players
    obs[np.arange(n), rel] = 1.0
    obs[:, players] = state.dice / rules.MAX_DICE
    for a, neigh in enumerate(state.adjacency):
        obs[a, players + 1 + np.array(neigh, np.int64)] = 1.0
    return obs


def reference_backgammon(state, seat):
    from plies.games.backgammon import rules

    own = state.checkers(seat)
    opp = state.checkers(1 - seat)
    obs = np.zeros(204, np.float32)
    for side, counts in enumerate((own, opp)):
        for i in range(1, 25):
            n = counts[i] if side == 0 else opp[25 - i]
            k = 96 * side + 4 * (i - 1)
            obs[k] = n >= 1
            obs[k + 1] = n >= 2
            obs[k + 2] = n >= 3
            obs[k + 3] = max(0, n - 3) / 2.0
        obs[192 + side] = counts[rules.BAR] / 2.0
        obs[194 + side] = counts[rules.OFF] / 15.0
    obs[196] = state.current_player == seat
    obs[197] = state.current_player == 1 - seat
    for die in state.dice_left:
        obs[197 + die] += 0.25
    return obs


REFERENCES = {
    "backgammon": reference_backgammon,
    "tictactoe": reference_tictactoe,
    "connect_four": reference_connect_four,
    "nine_mens_morris": reference_nine_mens_morris,
    "dice_wars": reference_dice_wars,
}


@pytest.mark.parametrize("game", sorted(REFERENCES))
def test_observation_kernel_matches_numpy_reference(game):
    cls = state_class(game)
    rng = np.random.default_rng(1)
    options = {"num_players": 3} if game == "dice_wars" else {}
    checked = 0
    for _ in range(3 if game == "backgammon" else 12):
        state = cls.initial(rng, **options)
        for _ in range(300 if game == "backgammon" else 120):
            for seat in range(state.num_players):
                got = state.observation(seat)
                want = REFERENCES[game](state, seat)
                assert got.dtype == np.float32 and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
                checked += 1
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if state.is_chance_node():
                from plies.games.state import sample_chance

                state.apply(sample_chance(state, rng))
            else:
                state.apply(int(rng.choice(legal)))
    assert checked > 150


def test_connect_four_observation_on_other_board_sizes():
    cls = state_class("connect_four")
    rng = np.random.default_rng(2)
    for width, height in ((4, 4), (9, 5), (8, 7)):
        state = cls(width=width, height=height)
        while not state.is_terminal():
            for seat in (0, 1):
                np.testing.assert_array_equal(
                    state.observation(seat), reference_connect_four(state, seat)
                )
            state.apply(int(rng.choice(state.legal_actions())))
