"""The Dice Wars course's tournament schedule: pivot, least-met second, random rest, and every
rotation of one seating on one seed; hooked into tournaments as schedule="course"."""

import random

import numpy as np
import pytest

from plies.evaluation.schedules import course_groups, course_rotations, course_schedule
from plies.evaluation.tournament import TournamentConfig, run_tournament, schedule

POOL = ["dt.rand", "dt.sdc", "dt.ste", "dt.wpm_c", "xlogin00"]


def test_groups_follow_the_pivot_and_least_met_rules():
    met = {(a, b): 0 for a in POOL for b in POOL}
    for group in course_groups(POOL, 4, 60, random.Random(3)):
        assert len(set(group)) == 4
        totals = [sum(met[a, b] for b in POOL) for a in POOL]
        pivot, second = group[0], group[1]
        assert pivot == POOL[int(np.argmin(totals))]  # fewest places so far, first listed on ties
        if met[pivot, pivot] == 0:
            assert second == POOL[(POOL.index(pivot) + 1) % len(POOL)]
        else:
            others = [b for b in POOL if b != pivot]
            assert met[pivot, second] == min(met[pivot, b] for b in others)
            assert second == min(others, key=lambda b: (met[pivot, b], POOL.index(b)))
        for a in group:
            for b in group:
                met[a, b] += 1
    places = [met[a, a] for a in POOL]
    assert max(places) - min(places) <= 2  # the pivot rule keeps the games even


def test_focus_is_always_the_pivot_and_every_group_is_everyone_when_it_can_be():
    for group in course_groups(POOL, 3, 20, random.Random(0), focus="dt.wpm_c"):
        assert group[0] == "dt.wpm_c"
    # the course's script would stop here (the pivot would be its own least-met opponent)
    groups = list(course_groups(POOL[:4], 4, 5, random.Random(0)))
    assert all(sorted(g) == sorted(POOL[:4]) for g in groups)


def test_rotations_of_one_seating():
    seats = course_rotations(["a", "b", "c", "d"], random.Random(1))
    assert len(seats) == 4
    first = seats[-1]  # the drawn seating comes last, as in the course
    for r, s in enumerate(seats):
        assert list(s) == list(first[r + 1:] + first[: r + 1])
    for seat in range(4):
        assert sorted(s[seat] for s in seats) == ["a", "b", "c", "d"]


def test_schedule_blocks_share_a_seed_and_differ_between_blocks():
    plan = course_schedule(POOL, 4, 40, seed=7)
    assert [g.index for g in plan] == list(range(40))
    blocks = [plan[i:i + 4] for i in range(0, 40, 4)]
    assert len({b[0].seed for b in blocks}) == 10
    for block in blocks:
        assert len({g.seed for g in block}) == 1
        assert len({frozenset(g.seats) for g in block}) == 1
    assert course_schedule(POOL, 4, 40, seed=7) == plan
    assert course_schedule(POOL, 4, 40, seed=8) != plan
    assert len(course_schedule(POOL, 4, 6, seed=7)) == 6


def test_schedule_errors():
    with pytest.raises(ValueError, match="at least 4 agents"):
        course_schedule(POOL[:3], 4, 8)
    with pytest.raises(ValueError, match="focus"):
        course_schedule(POOL, 4, 8, focus="nobody")
    with pytest.raises(ValueError, match="appear once"):
        course_schedule(POOL + ["dt.rand"], 4, 8)
    with pytest.raises(ValueError, match="unknown schedule"):
        schedule(TournamentConfig("dice_wars", tuple(POOL), 8, schedule="swiss"))


def test_tournament_with_the_course_schedule():
    config = TournamentConfig("dice_wars", tuple(POOL), 8, seed=2, schedule="course")
    assert schedule(config) == course_schedule(POOL, 4, 8, seed=2)
    assert config.as_dict()["schedule"] == "course"
    assert "schedule" not in TournamentConfig("dice_wars", tuple(POOL), 8).as_dict()
    result = run_tournament("dice_wars", POOL, 8, seed=2, workers=1, progress=False, schedule="course")
    assert [tuple(r.seats) for r in result.records] == [g.seats for g in schedule(config)]
    assert all(abs(sum(r.returns)) < 1e-9 or r.truncated for r in result.records)


def test_same_seatings_as_the_course_script():
    """The course's script seeded with -s 3 (its global random) and plies's course schedule
    with seed 3 play the same seatings in the same order (tests/data/dice_wars/README.md)."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent.parent / "data" / "dice_wars" / "course_schedule.json").read_text())
    agents = data["agents"]
    games = 4 * data["boards"]
    plan = course_schedule(agents, 4, games, seed=data["seed"])
    assert [list(g.seats) for g in plan] == data["seatings"]["tournament"]
    plan = course_schedule(agents, 4, games, seed=data["seed"], focus="dt.wpm_c")
    assert [list(g.seats) for g in plan] == data["seatings"]["ai_under_test=dt.wpm_c"]
