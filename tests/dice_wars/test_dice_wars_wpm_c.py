"""dt.wpm_c as the course wrote it: values worked by hand from the course's wpm_c.py on small
maps, its quirks, and its decisions on positions where the course's own code decided."""

import json
from math import exp, log
from pathlib import Path

import numpy as np
import pytest

from plies.agents import make
from plies.agents.dice_wars_bots import WPM_C_WEIGHTS, wpm_c_improvements
from plies.games.dice_wars import DiceWarsState, rules

DECISIONS = Path(__file__).parent.parent / "data" / "dice_wars" / "wpm_c_decisions.json"
W2 = (1.30214778, 2.25563871)  # the course's 2-player weights are (a, b, -a, -b)
W4 = (1.04279419, 0.25416893, -0.64830571, -0.15321224, -0.64217824, -0.11354054,
      -0.59113493, -0.19902261)


def sig(z):
    return 1 / (1 + exp(-z))


def values(text):
    """(end-turn improvement, {(source, target): improvement}) from the port."""
    state = DiceWarsState.from_string(text)
    buf = np.empty(state.max_legal_actions, np.int64)
    count = rules.legal_actions(state.array, buf) - 1
    out = np.empty(count)
    end = wpm_c_improvements(state.array, buf, count, out)
    n = state.num_areas
    return end, {(int(b) // n, int(b) % n): float(v) for b, v in zip(buf[:count], out)}


def test_weights_are_the_courses():
    assert tuple(WPM_C_WEIGHTS[4, :8]) == W4 and not WPM_C_WEIGHTS[4, 8:].any()
    assert tuple(WPM_C_WEIGHTS[2, :4]) == (W2[0], W2[1], -W2[0], -W2[1])
    for players in range(2, 9):
        assert np.count_nonzero(WPM_C_WEIGHTS[players]) == 2 * players


def test_two_players_by_hand():
    """Seat 0 holds area 0 (3 dice, largest region 1); seat 1 holds areas 1-3 (6 dice,
    region 3). The score features are the bot's own region for both seats, so with the
    2-player weights (a, b, -a, -b) they cancel: z = b (log(own dice + 1) - log(6 + 1))."""
    a, b = W2
    start = log(sig(a * log(2) + b * log(4) - a * log(2) - b * log(7)))
    end = log(sig(b * log(3 + 1 + 1) - b * log(7))) - start  # its region (1) joins its dice
    p = 0.77854938  # the course's table: 3 dice against 2
    win = sig(b * log(3 + 1 + 1) - b * log(6 - 2 + 1))
    loss = sig(b * log(3 + 1 - 3 + 1 + 1) - b * log(7))
    got_end, got = values("players=2 turn=0 areas=0:3,1:2,1:2,1:2 adjacency=1/0,2/1,3/2")
    assert got_end == pytest.approx(end, abs=1e-12)
    assert got == {(0, 1): pytest.approx(log(p * win + (1 - p) * loss) - start, abs=1e-12)}


def test_four_players_by_hand_with_every_score_its_own():
    """4 players, seat 2 to move: features in turn order 2, 3, 0, 1; every seat's score is
    seat 2's largest region (2 areas), not the seat's own."""
    text = ("players=4 turn=2 areas=2:4,2:2,3:3,0:5,0:5,0:5,1:1 "
            "adjacency=1,2/0,3/0,4/1,5/2,6/3/4")
    s = log(2 + 1)
    dice = {2: 6, 3: 3, 0: 15, 1: 1}
    f = [s, log(dice[2] + 1), s, log(dice[3] + 1), s, log(dice[0] + 1), s, log(dice[1] + 1)]
    z = sum(w * x for w, x in zip(W4, f))
    start = log(sig(z))
    end = log(sig(z + W4[1] * (log(6 + 2 + 1) - log(7))))
    got_end, got = values(text)
    assert got_end == pytest.approx(end - start, abs=1e-12)
    # 4 dice against seat 3's 3 dice (slot 3), and 2 dice against seat 0's 5 (slot 5)
    for (src, tgt), (a_dice, d_dice, slot, opp_total), p in [
        ((0, 2), (4, 3, 3, 3), 0.74283050),
        ((1, 3), (2, 5, 5, 15), 0.00610497),
    ]:
        win_f, loss_f = list(f), list(f)
        win_f[1] = log(6 + 2 + 1)
        win_f[slot] = log(opp_total - d_dice + 1)
        loss_f[1] = log(6 + 2 - a_dice + 1 + 1)
        expected = log(p * sig(sum(w * x for w, x in zip(W4, win_f)))
                       + (1 - p) * sig(sum(w * x for w, x in zip(W4, loss_f)))) - start
        assert got[(src, tgt)] == pytest.approx(expected, abs=1e-12)
    # the opponents' own regions do not enter: joining seat 0's two pieces into one region
    # changes nothing
    joined = text.replace("adjacency=1,2/0,3/0,4/1,5/2,6/3/4", "adjacency=1,2/0,3/0,4/1,5,4/2,6,3/3,4/4")
    assert values(joined)[0] == pytest.approx(got_end, abs=1e-12)


def test_region_features_do_not_change_with_the_move():
    """Capturing area 1 would join seat 0's two areas (region 1 -> 3), but the course never
    fills its record of the largest region, so a win is scored with the old region."""
    a, b = W2
    text = "players=2 turn=0 areas=0:6,1:1,0:1,1:5 adjacency=1/0,2/1,3/2"
    start = log(sig(b * log(7 + 1) - b * log(6 + 1)))
    win = sig(b * log(7 + 1 + 1) - b * log(6 - 1 + 1))
    loss = sig(b * log(7 + 1 - 6 + 1 + 1) - b * log(6 + 1))
    p = 0.99999643  # the course's table: 6 dice against 1
    got_end, got = values(text)
    assert got[(0, 1)] == pytest.approx(log(p * win + (1 - p) * loss) - start, abs=1e-12)


def test_attacks_from_eight_dice_even_when_ending_looks_best():
    eight = "players=2 turn=0 areas=0:8,1:8,0:1,0:1 adjacency=1,2/0/0,3/2"
    end, got = values(eight)
    assert end > got[(0, 1)]  # ending the turn is the better move by its own estimate
    state = DiceWarsState.from_string(eight)
    assert make("dt.wpm_c").act(state) == state.attack_action(0, 1)
    seven = DiceWarsState.from_string(eight.replace("0:8,1:8", "0:7,1:8"))
    assert make("dt.wpm_c").act(seven) == seven.end_turn_action


def test_attacks_when_an_attack_beats_ending_the_turn():
    state = DiceWarsState.from_string("players=2 turn=0 areas=0:3,1:2,1:2,1:2 adjacency=1/0,2/1,3/2")
    assert make("dt.wpm_c").act(state) == state.attack_action(0, 1)


def test_decisions_match_the_course_code():
    """Positions of 2-8 player games, each with the move the course's own wpm_c.py made."""
    data = json.loads(DECISIONS.read_text())["positions"]
    assert len(data) > 100
    bot = make("dt.wpm_c", seed=0)
    for item in data:
        state = DiceWarsState.from_string(item["position"])
        move = item["course_move"]
        expected = state.end_turn_action if move == "end" else state.attack_action(*map(int, move.split(">")))
        assert bot.act(state) == expected, item["position"]
