"""Impossible positions are refused by from_string; encode()/hash() are canonical; undo
restores the exact array."""

from __future__ import annotations

import numpy as np
import pytest

import plies
from plies.games.registry import state_class
from plies.games.state import sample_chance

BG = state_class("backgammon")


@pytest.mark.parametrize("text, message", [
    ("X 24:15; O 24:15; X to play 12-3", "bad status"),
    ("X 24:15; O 24:15; X to play 6-5 left 66", "bad status"),
    ("X off:15; O 24:15; X won 123", "bad status"),
    ("X 24:9223372036854775808; O 24:15; X to roll", "bad entry"),
    ("X 24:10 24:10; O 24:15; X to roll", "more than 15 checkers"),
    ("X 24:²; O 24:15; X to roll", "bad entry"),
    ("X off:15; O off:15; X to play 6-5", "both sides have borne off"),
    ("X off:15; O 24:15; X to play 6-5", "the game is over"),
    ("X off:15; O 24:15; O to roll", "the game is over"),
    ("X 24:15; O 24:15; X won 1", "X won but has 0 checkers off"),
    ("X off:15; O 24:15; X won 2", "without scoring=gammon a win scores 1"),
    ("X off:15; O 24:14 off:1; X won 2; scoring=gammon", "no gammon"),
    ("X 24:15; O 24:15; opening roll", "opening roll comes at the start"),
])
def test_impossible_backgammon_positions_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        BG.from_string(text)


def test_backgammon_text_round_trip_is_equal_in_encode_and_hash():
    rng = np.random.default_rng(1)
    state = plies.new_state("backgammon")
    kinds = set()
    for _ in range(2000):
        if state.is_terminal():
            state = plies.new_state("backgammon")
        state.apply(sample_chance(state, rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
        again = BG.from_string(state.to_string())
        assert np.array_equal(again.encode(), state.encode()), state.to_string()
        assert again.hash() == state.hash() and again == state
        kinds.add(state.current_player)
    assert kinds == {0, 1, -1, -4}


@pytest.mark.parametrize("board, message", [
    ("XXX/OOO/...", "both X and O have a line"),
    ("XXX/OO./O..", "X has a line, so X moved last"),
    ("OOO/XX./XX.", "O has a line, so O moved last"),
])
def test_impossible_tictactoe_boards_are_refused(board, message):
    with pytest.raises(ValueError, match=message):
        state_class("tictactoe").from_string(board)
    assert state_class("tictactoe").from_string("XXX/OO./...").is_terminal()


def _dice_wars_text():
    return plies.new_state("dice_wars", seed=0, num_players=2).to_string()


def _areas(text, owner=None, dice=None):
    fields = dict(item.split("=", 1) for item in text.split())
    pairs = [p.split(":") for p in fields["areas"].split(",")]
    fields["areas"] = ",".join(f"{owner if owner is not None else o}:{dice if dice is not None else d}"
                               for o, d in pairs)
    return " ".join(f"{k}={v}" for k, v in fields.items())


def test_impossible_dice_wars_positions_are_refused():
    DW = state_class("dice_wars")
    text = _dice_wars_text()
    assert DW.from_string(text) == plies.new_state("dice_wars", seed=0, num_players=2)
    with pytest.raises(ValueError, match="seat 0 owns every area, so the game is over"):
        DW.from_string(_areas(text, owner=0))
    with pytest.raises(ValueError, match=r"chance node \(reinforce\) has no outcomes"):
        DW.from_string(_areas(text, dice=8).replace("phase=move", "phase=reinforce:3"))
    with pytest.raises(ValueError, match="over:1 needs seat 1 to own every area"):
        DW.from_string(text.replace("phase=move", "phase=over:1"))
    with pytest.raises(ValueError, match="battles='99999999999999999999'"):
        DW.from_string(text.replace("battles=0", "battles=99999999999999999999"))
    with pytest.raises(ValueError, match="malformed Dice Wars position"):
        DW.from_string(_areas(text, dice=2**70))
    assert DW.from_string(_areas(text, owner=1).replace("phase=move", "phase=over:1")).is_terminal()


@pytest.mark.parametrize("game", ["tictactoe", "connect_four", "nine_mens_morris", "backgammon", "dice_wars"])
def test_undo_to_the_root_restores_encode_and_hash(game):
    rng = np.random.default_rng(3)
    for seed in range(3):
        state = plies.new_state(game, seed=seed) if game == "dice_wars" else plies.new_state(game)
        root, key = state.encode().copy(), state.hash()
        plies_played = 0
        while not state.is_terminal() and plies_played < 300:
            state.apply(sample_chance(state, rng) if state.is_chance_node()
                        else int(rng.choice(state.legal_actions())))
            plies_played += 1
        while state.history:
            state.undo()
        assert np.array_equal(state.encode(), root) and state.hash() == key


NMM_BOARD = ".-----.-----.\n| .---.---. |\n| | .-.-. | |\n.-.-.   .-.-.\n| | .-.-. | |\n| .---.---. |\n.-----.-----.\n"


@pytest.mark.parametrize("status, message", [
    ("W to move, in hand W 9 B 9, turn 99999999999999999999999, quiet 0", "beyond any game"),
    ("W to move, in hand W 9 B 9, turn 5, quiet 99999999999999999999", "beyond any game"),
    ("W to move, in hand W 9 B 9, turn 2, quiet 5", "cannot exceed turn 2"),
    ("W to move, in hand W ٩ B 9, turn 0, quiet 0", "plain ASCII"),
])
def test_impossible_nine_mens_morris_counters_are_refused(status, message):
    with pytest.raises(ValueError, match=message):
        state_class("nine_mens_morris").from_string(NMM_BOARD + status)
    state_class("nine_mens_morris").from_string(NMM_BOARD + "W to move, in hand W 9 B 9, turn 4, quiet 4")
