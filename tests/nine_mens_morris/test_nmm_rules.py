"""Nine Men's Morris rules, each set up from a diagram and checked directly.

Point numbers in the diagrams (7-row form of ``to_string``)::

    0-----1-----2
    | 3---4---5 |
    | | 6-7-8 | |
    9-10-11 12-13-14
    | | 15-16-17| |
    | 18--19--20 |
    21---22----23
"""

import numpy as np
import pytest

import plies
from plies.games.kernels import TERMINAL
from plies.games.nine_mens_morris import NineMensMorrisState as S
from plies.games.nine_mens_morris import rules


def move(state: S, text: str) -> None:
    state.apply(state.string_to_action(text))


def test_opening_position():
    state = S()
    assert state.current_player == 0
    assert list(state.legal_actions()) == list(range(24))
    assert (state.in_hand(0), state.in_hand(1)) == (9, 9)
    assert not state.removing and not state.is_terminal()


def test_mill_on_the_last_placement_then_moving_phase():
    state = S.from_string(
        """
        B-----B-----.
        | W---W---. |
        | | W-.-. | |
        W-.-W   .-.-.
        | | .-.-. | |
        | W---.---W |
        .-----W-----.
        B to move, in hand W 0 B 1
        """
    )
    move(state, "g7")  # point 2 closes 0-1-2 with Black's last stone
    assert state.current_player == 1 and state.removing
    white = [3, 4, 6, 9, 11, 18, 20, 22]
    assert sorted(state.legal_actions()) == white
    move(state, "xb6")  # remove the stone on point 3
    assert state.current_player == 0 and not state.removing
    assert state.points[3] == 0 and state.on_board(0) == 7 and state.in_hand(1) == 0
    # no stones in hand: White now slides along the lines
    legal = state.legal_actions()
    assert len(legal) > 0 and min(legal) >= 24
    assert state.action_to_string(24 + 4 * 24 + 3) == "d6-b6"


def test_two_mills_at_once_remove_one_stone():
    state = S.from_string(
        """
        B-----.-----W
        | .---B---. |
        | | .-.-. | |
        .-B-.   .-.-W
        | | .-B-. | |
        | .---.---. |
        W-----W-----.
        W to move, in hand W 5 B 5
        """
    )
    move(state, "g1")  # point 23 closes 21-22-23 and 2-14-23
    assert state.removing and state.current_player == 0
    assert sorted(state.legal_actions()) == [0, 4, 10, 16]
    move(state, "xa7")
    assert state.current_player == 1 and not state.removing
    assert state.on_board(1) == 3 and state.in_hand(1) == 5


def test_stones_in_mills_are_protected():
    state = S.from_string(
        """
        B-----B-----B
        | W---W---W |
        | | .-.-. | |
        W-B-.   .-.-.
        | | .-B-. | |
        | .---.---. |
        .-----.-----.
        W to remove
        """
    )
    assert sorted(state.legal_actions()) == [10, 16]


def test_stones_in_mills_are_taken_when_all_are_in_mills():
    state = S.from_string(
        """
        B-----B-----B
        | W---W---W |
        | | .-.-. | |
        W-.-.   .-.-.
        | | .-.-. | |
        | .---.---. |
        B-----B-----B
        W to remove
        """
    )
    assert sorted(state.legal_actions()) == [0, 1, 2, 21, 22, 23]
    move(state, "xa7")
    assert state.points[0] == 0 and state.current_player == 1


FLYING = """
W-----W-----.
| .---.---. |
| | B-B-B | |
W-.-.   .-.-.
| | B-.-B | |
| .---.---. |
.-----.-----.
W to move
"""


def test_flying_with_three_stones():
    state = S.from_string(FLYING)
    legal = state.legal_actions()
    assert len(legal) == 3 * 16  # every stone to every empty point
    assert state.string_to_action("a7-g1") in legal


def test_flying_can_be_switched_off():
    state = S.from_string(FLYING, flying=False)
    names = sorted(state.action_to_string(a) for a in state.legal_actions())
    assert names == ["a4-a1", "a4-b4", "d7-d6", "d7-g7"]


def test_flying_player_moves_anywhere_but_four_stones_slide():
    state = S.from_string(FLYING)
    move(state, "a7-g1")
    assert state.current_player == 1
    assert len(state.legal_actions()) < 5 * 16  # Black has 5 stones: no flying


BLOCKING = """
B-----W-----B
| .---.---. |
| | .-.-. | |
W-.-.   .-.-W
| | .-.-. | |
| .---W---. |
B-----.-----B
W to move
"""


def test_loss_on_no_legal_move():
    state = S.from_string(BLOCKING)
    assert not state.is_terminal()
    move(state, "d2-d1")  # point 19 -> 22 shuts in all four black corners
    assert state.is_terminal()
    assert list(state.returns()) == [1.0, -1.0]
    assert len(state.legal_actions()) == 0


def test_blocked_position_read_from_a_diagram_is_over():
    blocked = BLOCKING.replace("| .---W---. |\nB-----.-----B", "| .---.---. |\nB-----W-----B")
    state = S.from_string(blocked.replace("W to move", "B to move"))
    assert state.is_terminal() and list(state.returns()) == [1.0, -1.0]


def test_loss_below_three_stones_counts_stones_in_hand():
    text = """
        W-----W-----W
        | .---B---. |
        | | .-.-. | |
        .-.-.   .-.-.
        | | .-.-. | |
        | .---B---. |
        .-----.-----.
        W to remove, in hand W 3 B {hand}
        """
    lost = S.from_string(text.format(hand=1))
    move(lost, "xd6")
    assert lost.is_terminal() and list(lost.returns()) == [1.0, -1.0]
    alive = S.from_string(text.format(hand=2))
    move(alive, "xd6")
    assert not alive.is_terminal() and alive.current_player == 1


REPEATING = """
W-----.-----B
| W---.---B |
| | .-.-. | |
W-.-.   .-.-B
| | .-.-. | |
| W---.---B |
.-----.-----.
W to move
"""
SHUFFLE = ["b6-d6", "f6-f4", "d6-b6", "f4-f6"]


def test_threefold_repetition_is_a_draw():
    state = S.from_string(REPEATING)
    for i, text in enumerate(SHUFFLE * 2):
        assert not state.is_terminal(), i
        move(state, text)
    # the start position is on the board for the third time
    assert state.is_terminal() and list(state.returns()) == [0.0, 0.0]
    assert state.result == rules.DRAW


def test_repetition_rule_can_be_switched_off_or_changed():
    state = S.from_string(REPEATING, repetition=0)
    for text in SHUFFLE * 5:
        move(state, text)
    assert not state.is_terminal()
    twofold = S.from_string(REPEATING, repetition=2)
    for text in SHUFFLE:
        move(twofold, text)
    assert twofold.is_terminal()


def test_undoing_keeps_the_repetition_count_right():
    state = S.from_string(REPEATING)
    for text in SHUFFLE * 2:
        move(state, text)
    assert state.is_terminal()
    state.undo()
    state.undo()
    assert not state.is_terminal()
    move(state, "d6-b6")
    assert not state.is_terminal()
    move(state, "f4-f6")  # the start position a third time again
    assert state.is_terminal() and state.result == rules.DRAW


def test_a_removal_starts_the_repetition_count_afresh():
    state = S.from_string(REPEATING.replace("W to move", "W to move, quiet 5"))
    for text in SHUFFLE:
        move(state, text)
    assert state.quiet_turns == 9  # 5 + 4 turns without a removal


def test_no_mill_rule_draws_after_100_quiet_turns():
    state = S.from_string(REPEATING.replace("W to move", "W to move, quiet 99"))
    move(state, "b6-d6")
    assert state.is_terminal() and state.result == rules.DRAW
    off = S.from_string(REPEATING.replace("W to move", "W to move, quiet 99"), no_mill=0)
    move(off, "b6-d6")
    assert not off.is_terminal()


def test_a_mill_resets_the_no_mill_counter():
    state = S.from_string(
        """
        W-----.-----B
        | W---.---B |
        | | .-.-. | |
        W-.-.   .-.-B
        | | .-.-. | |
        | .---.---B |
        .-----W-----.
        W to move, quiet 99
        """
    )
    move(state, "b6-d6")  # no mill on the 100th quiet turn: a draw
    assert state.is_terminal() and state.result == rules.DRAW
    state.undo()
    move(state, "d1-a1")  # 22 -> 21 closes 0-9-21
    assert state.removing and not state.is_terminal()
    move(state, "xg7")
    assert not state.is_terminal() and state.quiet_turns == 0


def test_turn_cap_is_a_draw_unless_the_last_turn_wins():
    state = S.from_string(REPEATING.replace("W to move", "W to move, turn 9"), turn_cap=10)
    move(state, "b6-d6")
    assert state.is_terminal() and state.result == rules.DRAW
    # a loss for the player to move takes precedence over the cap, as in OpenSpiel
    win = S.from_string(BLOCKING.replace("W to move", "W to move, turn 9"), turn_cap=10)
    move(win, "d2-d1")
    assert win.is_terminal() and list(win.returns()) == [1.0, -1.0]


def test_undo_restores_every_position_of_random_games():
    rng = np.random.default_rng(0)
    for _ in range(10):
        state = S()
        arrays = []
        while not state.is_terminal():
            arrays.append(state.array.copy())
            assert state.array[rules.BOARD_HASH] == rules.board_key(state.array)
            state.apply(int(rng.choice(state.legal_actions())))
        while arrays:
            state.undo()
            expected = arrays.pop()
            live = rules.HISTORY + int(expected[rules.HIST_LEN])
            np.testing.assert_array_equal(state.array[:live], expected[:live])


def test_text_round_trip():
    rng = np.random.default_rng(3)
    state = S()
    for _ in range(40):
        if state.is_terminal():
            break
        copy = S.from_string(state.to_string())
        np.testing.assert_array_equal(copy.points, state.points)
        assert copy.current_player == state.current_player
        assert copy.removing == state.removing
        assert copy.to_string() == state.to_string()
        np.testing.assert_array_equal(copy.legal_actions(), state.legal_actions())
        state.apply(int(rng.choice(state.legal_actions())))


def test_one_line_board_and_action_names():
    state = S.from_string("W.B" + "." * 21 + "\nB to move, in hand W 8 B 8")
    assert state.points[0] == 1 and state.points[2] == 2 and state.current_player == 1
    for action in state.legal_actions():
        assert state.string_to_action(state.action_to_string(int(action))) == action
    assert state.string_to_action("Point 5") == 5
    assert state.action_to_string(21) == "a1" and state.action_to_string(0) == "a7"


@pytest.mark.parametrize(
    "text, message",
    [
        ("W.B", "found 3 points"),
        ("W" * 10 + "." * 14, "at most 9"),
        ("." * 24 + "\nW to fly", "cannot read"),
        ("." * 24 + "\nW to remove", "has none on the board"),
        ("." * 24 + "\nin hand W 12 B 0", "0-9"),
    ],
)
def test_malformed_positions_are_explained(text, message):
    with pytest.raises(ValueError, match=message):
        S.from_string(text)


def test_bad_options_and_moves_are_explained():
    with pytest.raises(ValueError, match="unknown option"):
        S(flyng=True)
    with pytest.raises(ValueError, match="repetition"):
        S(repetition=-1)
    with pytest.raises(ValueError, match="legal moves"):
        S().string_to_action("a7-d7")
    with pytest.raises(ValueError, match="illegal"):
        S().apply(30)


def test_observation_and_rendering():
    state = S.from_string(FLYING)
    obs = state.observation(0)
    assert obs.shape == state.observation_shape and obs.dtype == np.float32
    assert obs[:24].sum() == 3 and obs[24:48].sum() == 5
    assert state.observation(1)[:24].sum() == 5
    image = state.render_rgb()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert "W to move" in state.render_text()


def test_terminal_state_has_no_moves():
    state = S.from_string(BLOCKING)
    move(state, "d2-d1")
    assert state.current_player == TERMINAL
    with pytest.raises(ValueError, match="over"):
        state.apply(0)


def test_hash_changes_when_history_can_change_the_value():
    state = S.from_string(REPEATING)
    fresh = state.hash()
    for text in SHUFFLE:
        move(state, text)
    # same stones, same side to move; but the next repetition now draws
    assert state.array[rules.BOARD_HASH] == S.from_string(REPEATING).array[rules.BOARD_HASH]
    assert state.hash() != fresh
    assert state.canonical_hash() != S.from_string(REPEATING).canonical_hash()
    state.undo()
    move(state, "f4-f6")
    assert state.hash() != fresh
    # far from the no-mill limit the counter does not matter; close to it, it does
    at = {q: S.from_string(REPEATING.replace("W to move", f"W to move, quiet {q}")).hash()
          for q in (10, 20, 90, 95)}
    assert at[10] == at[20] == fresh and at[90] != at[95] and at[90] != fresh


@pytest.mark.parametrize("options", [dict(repetition=2, turn_cap=30), dict(repetition=4, no_mill=20, flying=False)])
def test_the_contract_holds_under_other_draw_rules_and_the_text_keeps_them(options):
    from plies.testing import check_game

    assert check_game("nine_mens_morris", games=4, seed=11, max_plies=400, batch_steps=10, **options)["games"] == 4
    state = plies.new_state("nine_mens_morris", **options)
    text = state.to_string()
    assert "options " in text.splitlines()[-1]
    read = S.from_string(text)
    assert read.options == state.options and np.array_equal(read.encode(), state.encode())
    assert "options" not in plies.new_state("nine_mens_morris").to_string()  # the defaults: no item
    with pytest.raises(ValueError, match="disagree with the options given"):
        S.from_string(text, turn_cap=7)
    with pytest.raises(ValueError, match="unknown option"):
        S.from_string(text.replace("options ", "options wizard=2 "))
