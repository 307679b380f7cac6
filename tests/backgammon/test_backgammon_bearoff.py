"""The one-sided bear-off database: distributions worked by hand and against gnubg's own, the
two-sided outcomes it gives, its cache file, and the network evaluator using it."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from bg_reference import position as _position

from plies.games.backgammon import bearoff, rules
from plies.games.kernels import TERMINAL


def _index(points: dict[int, int]) -> int:
    return bearoff.position_index([points.get(point, 0) for point in range(1, 7)])


def test_positions_are_ranked_one_to_one():
    positions = bearoff.all_positions()
    assert len(positions) == bearoff.POSITIONS == 54264
    assert positions[:, 1:].sum(1).max() == 15
    ranks = [bearoff.position_index(p[1:]) for p in positions]
    assert ranks == list(range(bearoff.POSITIONS))
    wraps = np.array([2**62] * 4 + [15, 0], np.int64)  # sums to 15 in int64
    for bad in ([0] * 5, [16, 0, 0, 0, 0, 0], [8, 8, 0, 0, 0, 0], [-1, 0, 0, 0, 0, 0], [0.5] * 6, wraps):
        with pytest.raises(ValueError, match="home board"):
            bearoff.position_index(bad)


def test_distributions_worked_by_hand():
    dist, first = bearoff.tables()
    assert np.allclose(dist.sum(1), 1.0) and np.allclose(first.sum(1), 1.0)
    assert dist[_index({}), 0] == 1.0
    # one checker: off in one roll unless the roll's pips (doubles count four times) fall short
    short = {4: 2, 5: 2 + 2 + 1, 6: 2 + 2 + 2 + 2 + 1}  # 2-1; 2-1, 3-1, 1-1; 2-1, 3-1, 4-1, 3-2, 1-1
    for point in range(1, 7):
        miss = short.get(point, 0) / 36
        assert dist[_index({point: 1}), 1] == pytest.approx(1 - miss)
        assert dist[_index({point: 1}), 2] == pytest.approx(miss)
    # two checkers on the one point: off in one roll, always
    assert dist[_index({1: 2}), 1] == pytest.approx(1.0)
    # first checker off from fifteen on the six point: a 6, or dice that add up to six with
    # one checker (5-1, 4-2, 3-3, 2-2): 11 + 2 + 2 + 1 + 1 = 17 of 36
    assert first[_index({6: 15}), 1] == pytest.approx(17 / 36)
    # a side with a checker already off has its first checker off in no rolls
    assert first[_index({6: 14}), 0] == 1.0


def test_distributions_equal_gnubgs_database():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    dist, _ = bearoff.tables()
    positions = bearoff.all_positions()
    rng = np.random.default_rng(3)
    for k in rng.choice(bearoff.POSITIONS, 300, replace=False):
        if k == _index({}):
            continue
        theirs = np.array(gnubg_nn.bearoff_probabilities(tuple(int(c) for c in positions[k, 1:])))
        ours = dist[k, 1:1 + len(theirs)]  # gnubg's entry i: done in i + 1 rolls
        assert dist[k, 1 + len(theirs):].sum() < 1e-4
        # gnubg stores its distributions in 16 bits, and where two plays tie on the mean the
        # distributions may differ a little; the means agree closely
        rolls = np.arange(1, len(theirs) + 1)
        assert ours @ rolls == pytest.approx(theirs @ rolls / theirs.sum(), abs=5e-4), positions[k]
        assert np.abs(ours - theirs).max() < 5e-3, positions[k]


def test_outcomes_of_races_worked_by_hand():
    states = np.array([
        _position({6: 1}, {1: 1}),           # on roll: 27 of 36 rolls bear the checker off
        _position({1: 1}, {6: 15}),          # on roll and off at once: a gammon
        _position({6: 15}, {1: 1}, mover=1),  # 17 of 36 save the gammon; the other wins next roll
    ])
    movers = np.array([0, 0, 1])
    found, p = bearoff.outcomes(states, movers)
    assert found.all()
    assert p[0] == pytest.approx([27 / 36, 0, 0, 0, 0])
    assert p[1] == pytest.approx([1, 1, 0, 0, 0])
    assert p[2] == pytest.approx([0, 0, 0, 19 / 36, 0])


def test_only_positions_with_both_sides_home_are_looked_up():
    home = _position({6: 3}, {2: 4})
    contact = _position({6: 3, 13: 1}, {2: 4})
    barred = _position({6: 3}, {2: 4, 25: 1})
    over = home.copy()
    over[rules.PLAYER] = TERMINAL
    found, p = bearoff.outcomes(np.array([home, contact, barred, over]), np.zeros(4, np.int64))
    assert found.tolist() == [True, False, False, False]
    assert not p[1:].any()


def test_bad_input_is_refused():
    good = _position({6: 1}, {1: 1})
    with pytest.raises(ValueError, match="rows of"):
        bearoff.outcomes(good[:10][None], np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="one seat"):
        bearoff.outcomes(good[None], np.array([2]))
    with pytest.raises(ValueError, match="one seat"):
        bearoff.outcomes(good[None], np.zeros(2, np.int64))
    for point, count in ((1, 20), (6, -3)):
        bad = good.copy()
        bad[rules.BOARD + point] = count
        with pytest.raises(ValueError, match="15 checkers"):
            bearoff.outcomes(bad[None], np.zeros(1, np.int64))
    bad = good.copy()
    bad[rules.BOARD + 1:rules.BOARD + 5] = 2**62  # the side's sum wraps around to 15
    with pytest.raises(ValueError, match="15 checkers"):
        bearoff.outcomes(bad[None], np.zeros(1, np.int64))


def test_a_damaged_cache_file_is_rebuilt(tmp_path, monkeypatch):
    path = bearoff.cache_path(tmp_path)
    tables = bearoff.tables()
    bearoff.save(path, *tables)
    loaded = bearoff.load(path)
    assert loaded is not None and all(np.array_equal(a, b) for a, b in zip(loaded, tables))
    # flip one probability: the checksum no longer matches
    dist, first = (t.copy() for t in tables)
    dist[100, 3] += 1e-3
    dist[100, 4] -= 1e-3
    with np.load(path) as data:
        checksum = data["checksum"]
    np.savez_compressed(path, dist=dist, first=first, checksum=checksum)
    assert bearoff.load(path) is None
    path.write_bytes(b"not a table")
    assert bearoff.load(path) is None
    # a damaged deflate stream raises zlib.error, which is no OSError or ValueError
    with monkeypatch.context() as patched:
        patched.setattr(np, "load", lambda *a, **k: zlib.decompress(b"damaged"))
        assert bearoff.load(path) is None
    # tables() builds again over a damaged file and replaces it
    monkeypatch.setattr(bearoff, "_TABLES", None)
    monkeypatch.setattr(bearoff, "build", lambda: tables)
    assert bearoff.tables(tmp_path) is tables
    assert bearoff.load(path) is not None


def _random_bearoff(rng: np.random.Generator, seat: int) -> np.ndarray:
    sides = []
    for _ in range(2):
        points: dict[int, int] = {}
        for _ in range(rng.integers(1, 16)):
            point = int(rng.integers(1, 7))
            points[point] = points.get(point, 0) + 1
        sides.append(points)
    return _position(sides[0], sides[1], seat)


def test_shipped_network_bears_off_almost_exactly():
    """The shipped network's bear-off plays lose almost no equity by the database's exact
    values (which is why play does not consult the database: it won 9 games more of 20,000)."""
    pytest.importorskip("torch")
    from plies.agents.value_net import cached_network
    from plies.games.backgammon import BackgammonState

    net = cached_network("backgammon")
    rng = np.random.default_rng(11)
    net_loss = random_loss = 0.0
    decisions = 0
    while decisions < 150:
        seat = int(rng.integers(2))
        s = _random_bearoff(rng, seat)
        hi, lo = sorted(rng.integers(1, 7, 2))[::-1]
        state = BackgammonState(s)
        state.apply(int((hi - 1) * 6 + lo - 1))
        rows, _ = state.afterstates()
        if len(rows) < 2 or (rows[:, rules.PLAYER] == TERMINAL).any():
            continue
        found, p = bearoff.outcomes(rows, np.full(len(rows), 1 - seat))
        assert found.all()
        exact = 1.0 - 2.0 * p[:, 0]  # the mover's 2 P(win) - 1 (the other side rolls next)
        chosen = int(np.argmax(net.seat_values(rows, 2, "cpu")[:, seat]))
        net_loss += exact.max() - exact[chosen]
        random_loss += exact.max() - exact.mean()
        decisions += 1
    # measured on 2,000 decisions: 0.0005 a decision, the best play 93% of the time; random 0.058
    assert net_loss / decisions < 0.003
    assert net_loss < random_loss / 20
