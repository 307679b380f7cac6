"""Backgammon rules: positions set up from diagrams, conservation, notation, afterstates."""

from __future__ import annotations

import numpy as np
import pytest

from plies.games.backgammon import BackgammonState, rules
from plies.games.state import sample_chance


def moves(state: BackgammonState) -> set[str]:
    return {state.action_to_string(int(a)) for a in state.legal_actions()}


def plays(state: BackgammonState) -> set[str]:
    _, paths = state.afterstates()
    return {state.play_to_string(p) for p in paths}


def test_opening_roll_decides_who_starts_and_has_no_doubles():
    state = BackgammonState()
    outcomes, probs = state.chance_outcomes()
    assert len(outcomes) == 30 and np.allclose(probs, 1 / 30)
    state.apply(BackgammonState.opening_outcome(2, 5))
    assert state.current_player == 1 and state.dice == (5, 2)
    later = BackgammonState.from_string("X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; X to roll")
    outcomes, probs = later.chance_outcomes()
    assert len(outcomes) == 21 and probs.sum() == pytest.approx(1.0)
    assert sorted(set(np.round(probs * 36).astype(int))) == [1, 2]


def test_bar_entry_blocked_passes_the_turn():
    # X enters with die d on O's point d; O's closed board (its points 1-6) blocks every roll
    state = BackgammonState.from_string(
        "X bar:1 13:14; O 6:2 5:2 4:2 3:2 2:2 1:2 13:3; X to roll"
    )
    state.roll(6, 6)
    assert state.is_chance_node() and state.to_string().endswith("O to roll")
    # O's 6 is open: the 6 must enter first (bar/19), the 5 cannot enter
    state = BackgammonState.from_string("X bar:1 13:14; O 5:2 4:2 3:2 2:2 1:2 13:5; X to play 6-5")
    assert moves(state) == {"bar/19"}
    state.apply(state.string_to_action("bar/19"))
    assert moves(state) == {"19/14", "13/8"}


def test_forced_larger_die_when_only_one_can_be_played():
    # X's only checker can play the 6 or the 2 but not both (after either, the rest is blocked)
    text = "X 24:1 off:14; O 17:2 13:2 12:2 11:2 10:2 9:5; X to play 6-2"
    state = BackgammonState.from_string(text)
    # 24/18 then the 2 (18/16 = O's 9) is blocked; 24/22 then the 6 (22/16) is blocked
    assert moves(state) == {"24/18"}
    assert plays(state) == {"24/18"}


def test_both_dice_must_be_played_when_possible():
    # 1 first (8/7) is blocked by O's 18; 8/2 then 2/1 plays both dice, so it is the only play
    text = "X 8:1 off:14; O 18:2 off:13; X to play 6-1"
    state = BackgammonState.from_string(text)
    assert plays(state) == {"8/2/1"}
    assert moves(state) == {"8/2"}


def test_bear_off_exact_and_with_a_higher_die():
    state = BackgammonState.from_string("X 5:1 3:1 off:13; O 12:15; X to play 6-4")
    # the 6 bears off the highest checker (5); the 4 bears off the 3 only once 5 is gone
    assert plays(state) == {"5/off 3/off", "5/1 3/off"}
    assert moves(state) == {"5/off", "5/1"}
    state = BackgammonState.from_string("X 6:1 2:1 off:13; O 12:15; X to play 4-1")
    assert "2/off" not in moves(state)  # a checker on 6 is above the 2
    assert {"6/2", "6/5", "2/1"} <= moves(state)


def test_doubles_are_played_four_times_by_the_same_player():
    state = BackgammonState.from_string("X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; X to play 3-3")
    for step in range(4):
        assert state.current_player == 0
        assert len(state.dice_left) == 4 - step
        state.apply(int(state.legal_actions()[0]))
    assert state.is_chance_node() and state.to_string().endswith("O to roll")


def test_hitting_sends_a_blot_to_the_bar_and_notation_marks_it():
    state = BackgammonState.from_string("X 24:2 13:13; O 19:1 6:14; X to play 6-1")
    assert "13/7/6*" in plays(state)
    state.apply(state.string_to_action("13/7"))
    state.apply(state.string_to_action("7/6*"))
    assert state.checkers(1)[rules.BAR] == 1 and state.checkers(1)[19] == 0


def test_gammon_and_backgammon_scoring():
    base = "X 1:1 off:14; O {o}; X to play 6-5; scoring=gammon"
    for o_side, points in (("19:14 off:1", 1), ("12:15", 2), ("bar:1 12:14", 3), ("19:1 12:14", 3)):
        state = BackgammonState.from_string(base.format(o=o_side))
        state.apply(state.string_to_action("1/off"))
        assert state.is_terminal()
        assert list(state.returns()) == [points, -points]
    single = BackgammonState.from_string("X 1:1 off:14; O bar:1 12:14; X to play 6-5")
    single.apply(single.legal_actions()[0])
    assert list(single.returns()) == [1, -1]


def test_text_round_trip_and_errors():
    for text in (
        "X 24:2 13:5 8:3 6:5; O 24:2 13:5 8:3 6:5; opening roll",
        "X bar:1 24:1 13:5 8:3 6:5; O 24:2 13:5 8:3 6:4 off:1; O to play 3-3 left 3 3",
        "X off:15; O 19:15; X won 2; scoring=gammon",
    ):
        assert BackgammonState.from_string(text).to_string() == text
    for bad in ("X 24:2; O 24:15; X to roll", "nonsense", "X 24:15; O 1:15; X to play 7-1"):
        with pytest.raises(ValueError):
            BackgammonState.from_string(bad)


def _turn_ends_by_actions(state: BackgammonState) -> set[tuple[int, ...]]:
    """End-of-turn boards reached by every sequence of legal actions (the mask)."""
    seen: set[tuple[int, ...]] = set()
    player = state.current_player

    def walk(s: BackgammonState) -> None:
        if s.current_player != player:
            seen.add(tuple(s.array[rules.BOARD :]))
            return
        for a in s.legal_actions():
            s.apply_unchecked(int(a))
            walk(s)
            s.undo()

    walk(state.clone())
    return seen


def test_random_games_conserve_checkers_and_mask_matches_afterstates():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(6):
        state = BackgammonState()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(sample_chance(state, rng))
                continue
            if rng.random() < 0.15 and checked < 60:
                rows, _ = state.afterstates()
                assert {tuple(r[rules.BOARD :]) for r in rows} == _turn_ends_by_actions(state)
                checked += 1
            actions = state.legal_actions()
            state.apply(int(actions[rng.integers(len(actions))]))
            for seat in range(2):
                assert state.checkers(seat).sum() == 15
            x, o = state.checkers(0), state.checkers(1)
            assert not any(x[i] and o[25 - i] for i in range(1, 25))
    assert checked > 20


def test_observation_and_render():
    state = BackgammonState()
    state.apply(BackgammonState.opening_outcome(3, 1))
    obs = state.observation(0)
    assert obs.shape == state.observation_shape and obs.dtype == np.float32
    assert "X" in state.render_text()
    image = state.render_rgb()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_a_play_of_steps_that_are_not_legal_is_refused_not_played():
    # the kernels index without bounds checks: a step of 10**12 once crashed the interpreter
    state = BackgammonState()
    state.apply(BackgammonState.opening_outcome(3, 1))
    legal = {int(a) for a in state.legal_actions()}
    first = next(a for a in sorted(legal) if state.action_to_string(a) == "24/21")
    assert state.play_to_string([first, -1]) == "24/21"  # a negative step ends a padded play
    before = state.to_string()
    for play in ([10**12], [999], [min(set(range(150)) - legal)], [first, first]):
        with pytest.raises(ValueError, match="of the play is not a checker move here"):
            state.play_to_string(play)
    _, paths = state.afterstates()
    over = [*[int(a) for a in paths[0] if a >= 0], first]  # a step after the turn is over
    with pytest.raises(ValueError, match="the dice are to be rolled"):
        state.play_to_string(over)
    assert state.to_string() == before  # the position itself is never touched
