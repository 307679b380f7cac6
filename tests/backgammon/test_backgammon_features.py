"""The backgammon network inputs against positions worked by hand, and the contact/race switch."""

from pathlib import Path

import numpy as np
import pytest
from bg_reference import position as _position

from plies.games.backgammon import features as F
from plies.games.backgammon import rules

SIDE_FEATURES = {name: F.RAW_PER_SIDE + k for k, name in enumerate(F.FEATURE_NAMES)}


def _feature(row, side, start):
    name = next(n for n in F.FEATURE_NAMES if n.startswith(start))
    return row[side * F.SIDE_SIZE + SIDE_FEATURES[name]]


def _encode(s):
    x, classes = F.encode(s[None])
    return x[0], int(classes[0])


def test_names_cover_every_input():
    assert len(F.INPUT_NAMES) == F.INPUT_SIZE == F.CONTACT_INPUTS + 2 * F.LATE_PER_SIDE
    assert F.CONTACT_INPUTS == F.BASE_INPUTS + 2 * F.EXTRAS_PER_SIDE
    assert F.BASE_INPUTS == 2 * F.SIDE_SIZE


def test_starting_position_by_hand():
    s = rules.initial_array(0)
    row, cls = _encode(s)
    assert cls == F.CONTACT
    for side in (0, 1):  # the start is symmetric
        assert _feature(row, side, "pips") == pytest.approx(1.67)
        assert _feature(row, side, "blots") == 0
        assert _feature(row, side, "direct shots") == 0
        assert _feature(row, side, "points made") == pytest.approx(4 / 12)  # 6, 8, 13, 24
        assert _feature(row, side, "home points") == pytest.approx(1 / 6)
        assert _feature(row, side, "anchors") == pytest.approx(1 / 3)  # the 24-point
        assert _feature(row, side, "longest prime") == pytest.approx(1 / 6)
        # the opponent's 13-, 8- and 6-points are our 12-, 17- and 19-points: 7 checkers behind
        # the 12 (five on the 13, two on the 24)
        assert _feature(row, side, "checkers behind") == pytest.approx(7 / 15)
        assert _feature(row, side, "checkers outside home") == pytest.approx(10 / 15)
        # crossovers: 3 on the 8 (1 each), 5 on the 13 (2 each), 2 on the 24 (3 each)
        assert _feature(row, side, "crossovers") == pytest.approx(19 / 45)
        assert _feature(row, side, "contact") == 1
    # the raw board: two checkers on the 24-point, five on the 6
    base = 23 * 4
    assert list(row[base:base + 4]) == [1, 1, 0, 0]
    assert list(row[5 * 4:5 * 4 + 4]) == [1, 1, 1, 1.0]


def test_shots_at_a_blot_five_pips_away():
    # our blot on our 10-point is the opponent's 15-point; its checker on its 20 is 5 away
    s = _position({10: 1}, {20: 1})
    row, _ = _encode(s)
    assert _feature(row, 0, "blots") == pytest.approx(1 / 5)
    assert _feature(row, 0, "direct shots") == pytest.approx(11 / 36)  # every roll with a 5
    assert _feature(row, 0, "shots") == pytest.approx(15 / 36)  # and 4-1, 3-2 (two ways each)
    # the opponent's checker is a blot five pips in front of ours too
    assert _feature(row, 1, "shots") == pytest.approx(15 / 36)
    # with a second checker there it is no blot: nothing to hit
    row, _ = _encode(_position({10: 1}, {20: 2}))
    assert _feature(row, 1, "shots") == 0 and _feature(row, 0, "shots") == pytest.approx(15 / 36)


def test_indirect_shots_need_an_open_landing_point():
    # our points 6..9 made block every landing of 4-1 and 3-2 (the opponent's 19..16)
    s = _position({10: 1, 9: 2, 8: 2, 7: 2, 6: 2}, {20: 1})
    row, _ = _encode(s)
    assert _feature(row, 0, "direct shots") == pytest.approx(11 / 36)
    assert _feature(row, 0, "shots") == pytest.approx(11 / 36)


def test_escaping_rolls_past_one_point():
    # our rear checker on the 24; the opponent's only point is our 18 (its 7-point)
    s = _position({24: 1, 6: 2}, {7: 2, 1: 2})
    row, _ = _encode(s)
    # every non-double of 7+ pips played small die first (18 rolls), 4-4 and 5-5; not 6-6 nor
    # the small doubles, which stop on the 18 or short of it
    assert _feature(row, 0, "rolls carrying") == pytest.approx(20 / 36)


def test_contact_and_race():
    race = _position({6: 5, 3: 5}, {5: 5, 2: 5})
    row, cls = _encode(race)
    assert cls == F.RACE
    assert _feature(row, 0, "contact") == 0 and _feature(row, 1, "contact") == 0
    # one checker of ours still on the opponent's side: contact (crashed: we have five in play)
    contact = _position({22: 1, 6: 4}, {5: 5, 2: 5})
    assert _encode(contact)[1] == F.CRASHED
    # a checker on the bar is always in contact
    assert _encode(_position({25: 1, 6: 4}, {5: 5}))[1] == F.CRASHED
    # the two back checkers exactly level (our 13 is their 12): passed once the next moves
    assert _encode(_position({12: 1}, {12: 1}))[1] == F.RACE
    assert F.is_contact(contact) and not F.is_contact(race)


def test_views_swap_the_sides():
    s = _position({10: 1, 6: 4}, {20: 3, 1: 2})
    x0, _ = F.encode(s[None], np.array([0]))
    x1, _ = F.encode(s[None], np.array([1]))
    base, extras = F.BASE_INPUTS, F.EXTRAS_PER_SIDE
    np.testing.assert_array_equal(x0[0, :F.SIDE_SIZE], x1[0, F.SIDE_SIZE:base])
    np.testing.assert_array_equal(x0[0, F.SIDE_SIZE:base], x1[0, :F.SIDE_SIZE])
    np.testing.assert_array_equal(x0[0, base:base + extras], x1[0, base + extras:F.CONTACT_INPUTS])
    np.testing.assert_array_equal(x0[0, base + extras:F.CONTACT_INPUTS], x1[0, base:base + extras])
    late, late_count = F.CONTACT_INPUTS, F.LATE_PER_SIDE
    np.testing.assert_array_equal(x0[0, late:late + late_count], x1[0, late + late_count:])
    np.testing.assert_array_equal(x0[0, late + late_count:], x1[0, late:late + late_count])
    assert x0[0, base:].any()  # a contact position: the contact inputs are in use


def test_encode_checks_its_input():
    with pytest.raises(ValueError, match="shape"):
        F.encode(np.zeros((2, 5), np.int64))
    with pytest.raises(ValueError, match="mover"):
        F.encode(rules.initial_array(0)[None], np.array([2]))


def _extra(row, side, start):
    k = next(k for k, n in enumerate(F.EXTRA_NAMES) if n.startswith(start))
    return row[F.BASE_INPUTS + side * F.EXTRAS_PER_SIDE + k]


def test_contact_inputs_by_hand():
    # me: two on my 20 (an anchor), blots on my 10 and 8, my 2, 4 and 6 made (5 borne off);
    # them, in my numbering: points made on my 9 and 3, single checkers on my 5 and my 1 (their
    # rear checker)
    me = {20: 2, 10: 1, 8: 1, 2: 2, 4: 2, 6: 2}
    them = {25 - 9: 2, 25 - 3: 2, 25 - 5: 1, 25 - 1: 1}
    row, cls = _encode(_position(me, them))
    assert cls == F.CRASHED  # the opponent has six checkers left: a crashed contact position
    # bar entry: three home points made: the opponent fails with 3 x 3 of 36 rolls
    assert _extra(row, 0, "bar entry") == pytest.approx(9 / 36)
    assert _extra(row, 0, "back anchor") == pytest.approx(20 / 24)
    # pips to pass their rear checker on my 1: 2 x 19 + 9 + 7 + 2 x 1 + 2 x 3 + 2 x 5
    assert _extra(row, 0, "pips still") == pytest.approx(72 / 100)
    # mobility, single dice onto open points (their 9 and 3 blocked): the 20s 2 x 6, the 10
    # five (not 9), the 8 five (not 3), the 6s 2 x 4 (not 3, not off), the 4s 2 x 2, the 2s 2 x 1
    assert _extra(row, 0, "mobility") == pytest.approx(36 / 90)
    # blockade: from my 20 their 9 is the block within 12 pips: landing below it takes 12 pips
    # or more: 3-3 (17 14 11 8), 4-4 (16 12 8), 5-5 (15 10 5), 6-6 (14 8)
    assert _extra(row, 0, "blockade") == pytest.approx(1 - 4 / 36)
    # pip loss: each roll priced by the farthest-travelled blot it hits (my 10: 15 pips back,
    # my 8: 17), worked out move by move below
    loss = 0
    for hi in range(1, 7):
        for lo in range(1, hi + 1):
            hit = [blot for blot in (10, 8) if _hit_by_hand(blot, hi, lo, starts=(9, 3, 5, 1), made={2, 4, 6, 20})]
            if hit:
                loss += (1 if hi == lo else 2) * max(25 - blot for blot in hit)
    assert loss > 0
    assert _extra(row, 0, "pip loss") == pytest.approx(loss / 36 / 24)


def _hit_by_hand(blot, hi, lo, starts, made):
    """Whether a checker of theirs on one of ``starts`` (my numbering: they move up) hits my
    blot with the roll hi-lo; my points ``made`` block them."""
    for start in starts:
        if hi == lo:
            p = start
            for _ in range(4):
                p += hi
                if p in made or p > 24:
                    break
                if p == blot:
                    return True
        elif blot in (start + hi, start + lo):
            return True
        elif start + hi + lo == blot and (start + hi not in made or start + lo not in made):
            return True
    return False


def test_contact_inputs_are_zero_in_a_race():
    row, cls = _encode(_position({5: 3, 2: 2}, {6: 2, 1: 4}))
    assert cls == F.RACE
    assert not row[F.BASE_INPUTS:].any()


def _late(row, side, start):
    k = next(k for k, n in enumerate(F.LATE_NAMES) if n.startswith(start))
    return row[F.CONTACT_INPUTS + side * F.LATE_PER_SIDE + k]


def test_double_shots_and_containment_by_hand():
    # my blots on my 8 and 10, the rest on my 6; their one checker near them is on my 5, the
    # others on my 19 (their 6), past both blots
    me = {10: 1, 8: 1, 6: 13}
    row, _ = _encode(_position(me, {20: 1, 6: 14}))
    # one checker hits both only with 3-2: 3 to my 8, then 2 to my 10 (the other order hits
    # once); 5-3 and 5-2 hit once, 3-3 and 5-5 pass the second blot, 1-1 is stopped by my 6
    assert _late(row, 0, "double shots") == pytest.approx(2 / 36)
    assert _late(row, 1, "double shots") == 0  # they have one blot only
    # two checkers on my 5: 5-3 also hits both (one checker each); 3-3 and 5-5 still do not
    row, _ = _encode(_position(me, {20: 2, 6: 13}))
    assert _late(row, 0, "double shots") == pytest.approx(4 / 36)


def test_containment_by_hand():
    # their points on my 9 and 3; the worst point for a checker of mine is my 21: only 5-5
    # (16, 11, 6) lands below my 9 (4-4 and 6-6 stop on it, 3-3 too; no other roll goes 13 pips);
    # from my 20 four rolls do (the blockade's figure, for the checkers I have there)
    me = {20: 2, 10: 1, 8: 1, 2: 2, 4: 2, 6: 2}
    them = {25 - 9: 2, 25 - 3: 2, 25 - 5: 1, 25 - 1: 1}
    row, _ = _encode(_position(me, them))
    assert _extra(row, 0, "blockade") == pytest.approx(1 - 4 / 36)
    assert _late(row, 0, "containment") == pytest.approx(1 - 1 / 36)


def _most_hits(theirs, blots, made, dice):
    """The most of my blots their checkers (my numbering, 0 = bar, moving up) can hit with
    ``dice``, trying every order of every checker's steps: bar checkers enter first, my made
    points block, a checker that would bear off stops."""
    best = 0

    def walk(positions, blots, dice, hits):
        nonlocal best
        best = max(best, hits)
        if not dice or best >= 2:
            return
        starts = [0] if 0 in positions else sorted(set(positions))  # checkers on one point are alike
        for k, die in enumerate(dice[:1] if len(set(dice)) == 1 else dice):
            for start in starts:
                land = start + die
                if land > 24 or land in made:
                    continue
                moved = list(positions)
                moved[moved.index(start)] = land
                walk(moved, blots - {land}, dice[:k] + dice[k + 1:], hits + (land in blots))

    walk(list(theirs), set(blots), list(dice), 0)
    return best


def test_double_shots_match_a_search_of_every_play():
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 120:
        me, them = {}, {}
        for side, other in ((me, None), (them, me)):
            left = 15
            while left:
                point = int(rng.integers(1, 26))
                if other is not None and point != 25 and other.get(25 - point, 0):
                    continue  # a point cannot hold checkers of both sides
                n = int(min(left, rng.choice([1, 1, 2, 3])))
                side[point] = side.get(point, 0) + n
                left -= n
        if rng.random() < 0.6:
            them.pop(25, None)
        row, cls = _encode(_position(me, {p: n for p, n in them.items()}))
        if cls == F.RACE:
            continue
        theirs = [0 if p == 25 else 25 - p for p, n in them.items() for _ in range(n)]
        blots = {p for p, n in me.items() if n == 1 and p <= 24}
        made = {p for p, n in me.items() if n >= 2 and p <= 24}
        expected = sum((1 if hi == lo else 2) for hi in range(1, 7) for lo in range(1, hi + 1)
                       if _most_hits(theirs, blots, made, [hi] * 4 if hi == lo else [hi, lo]) >= 2)
        assert _late(row, 0, "double shots") == pytest.approx(expected / 36), (me, them)
        checked += 1


def test_crashed_positions_by_hand():
    # a side has crashed with at most six checkers in play: borne-off checkers, a stack of two
    # or more on its 1-point and all but one of a stack on its 2-point are out of play
    full = {24: 2, 13: 5, 8: 3, 6: 5}  # fifteen in play
    assert _encode(_position(full, full))[1] == F.CONTACT
    assert _encode(_position({24: 2, 6: 4}, full))[1] == F.CRASHED  # six in play, nine off
    assert _encode(_position({24: 2, 6: 5}, full))[1] == F.CONTACT  # seven
    assert _encode(_position(full, {24: 2, 6: 4}))[1] == F.CRASHED  # the opponent's crash counts too
    # nine on the board, three of them stacked on the 1-point: six in play
    assert _encode(_position({24: 2, 6: 4, 1: 3}, full))[1] == F.CRASHED
    assert _encode(_position({24: 2, 6: 5, 1: 1}, full))[1] == F.CONTACT  # one checker on the 1-point plays
    # a stack of four on the 2-point keeps one in play: 2 + 4 + 1 = 7, then 6 with three
    assert _encode(_position({24: 2, 6: 4, 2: 4}, full))[1] == F.CONTACT
    assert _encode(_position({24: 2, 6: 3, 2: 4}, full))[1] == F.CRASHED
    # crashed only while there is contact
    assert _encode(_position({6: 2}, {6: 2}))[1] == F.RACE


def test_crashed_class_agrees_with_gnubg():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from plies.agents.gnubg_agents import to_gnubg

    recorded = np.load(Path(__file__).parents[1] / "data" / "backgammon_inputs.npz")
    states, movers = recorded["states"], recorded["mover"]
    _, classes = F.encode(states, movers)
    theirs = np.array([gnubg_nn.classify(to_gnubg(s, int(m))) for s, m in zip(states, movers)])
    in_contact = np.isin(theirs, (gnubg_nn.c_contact, gnubg_nn.c_crashed))
    assert in_contact.sum() > 1000 and (theirs == gnubg_nn.c_crashed).sum() > 50
    np.testing.assert_array_equal(classes[in_contact] == F.CRASHED, theirs[in_contact] == gnubg_nn.c_crashed)
    assert not np.isin(classes[~in_contact], (F.CONTACT, F.CRASHED)).any()


def test_inputs_are_those_the_shipped_networks_were_trained_on():
    # 2,000 positions of random games (a third with a checker on the bar), recorded with the
    # inputs computed before the shot searches were rewritten for speed (tests/data/README.md):
    # the shipped weights read exactly these, so every input of every position must be unchanged
    recorded = np.load(Path(__file__).parents[1] / "data" / "backgammon_inputs.npz")
    x, classes = F.encode(recorded["states"], recorded["mover"])
    # recorded before the crashed class: two-class networks read crashed positions as contact
    np.testing.assert_array_equal(F.network_classes(classes, 2), F.network_classes(recorded["classes"], 2))
    assert (classes == F.CRASHED).any() and (classes == F.CONTACT).any()
    differ = np.argwhere(x != recorded["inputs"])
    assert not len(differ), [(int(r), F.INPUT_NAMES[c]) for r, c in differ[:5]]
