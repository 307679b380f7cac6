"""The write-up's player (alpha-beta with rote learning) and the strength of alpha-beta."""

import numpy as np
import pytest

from plies.agents.transposition import TranspositionTable
from plies.classroom.nine_mens_morris import (
    AlphaBetaPruningRoteLearning,
    BestMoves,
    CacheRoteLearning,
    HeuristicWeights,
    findSymmetries,
)
from plies.games.nine_mens_morris import NineMensMorrisState as S
from plies.games.nine_mens_morris import rules

MIDGAME = """
W-----B-----.
| W---.---B |
| | .-B-W | |
W-.-B   .-W-B
| | .-W-. | |
| B---.---W |
.-----B-----.
W to move
"""


def test_heuristic_features_by_name():
    state = S.from_string(
        """
        W-----W-----W
        | .---B---. |
        | | .-.-. | |
        .-.-.   .-.-.
        | | .-.-. | |
        | .---B---. |
        .-----.-----.
        B to move
        """
    )
    f = state.features(0)
    assert f["stones"] == 1 and f["mills"] == 1
    assert state.features(1)["mills"] == -1
    assert list(f) == list(rules.FEATURES) == list(HeuristicWeights().as_dict())
    weighted = state.game.heuristics["weighted"].kernel
    value = weighted(state.array, 0, np.array(rules.DEFAULT_WEIGHTS))
    assert 0 < value < 1


def test_double_mill_feature_counts_a_swinging_stone():
    # White's d6 (4) sits in the closed mill 3-4-5 and can swing to d5 (7) closing 6-7-8
    swing = S.from_string(
        """
        .-----.-----.
        | W---W---W |
        | | W-.-W | |
        .-.-.   .-.-.
        | | .-B-. | |
        | B---B---. |
        .-----.-----.
        B to move
        """
    )
    assert swing.features(0)["double_mills"] == 1
    assert swing.features(1)["double_mills"] == -1


def test_best_moves_take_a_free_mill():
    # sliding d6 -> d7 (4 -> 1) closes 0-1-2; no other move closes a mill
    state = S.from_string(
        """
        W-----.-----W
        | .---W---. |
        | | .-.-. | |
        B-B-.   .-.-B
        | | .-.-. | |
        | B---.---. |
        .-----.-----.
        W to move
        """
    )
    player = AlphaBetaPruningRoteLearning(limit=2, symmetry=False)
    best = player.bestMoves(state, 0)
    assert isinstance(best, BestMoves)
    assert best.moves == [state.string_to_action("d6-d7")]
    assert best.states[0].removing
    assert best.limit == 2 and best.visited > 0 and best.cache_size > 0
    assert best.runtime >= 0 and best.cache_hit + best.cache_miss <= best.visited


def test_second_search_visits_far_fewer_nodes_and_agrees():
    state = S.from_string(MIDGAME)
    player = AlphaBetaPruningRoteLearning(limit=5, symmetry=True)
    first = player.bestMoves(state, 0)
    second = player.bestMoves(state, 0)
    assert second.moves == first.moves
    assert second.value == pytest.approx(first.value)
    assert second.visited * 10 < first.visited
    assert second.cache_hit > 0 and second.cache_size >= first.cache_size


def test_symmetric_position_is_answered_from_the_cache():
    state = S.from_string(MIDGAME)
    player = AlphaBetaPruningRoteLearning(limit=4, symmetry=True)
    first = player.bestMoves(state, 0)
    mirrored = findSymmetries(state)[5]
    again = player.bestMoves(mirrored, 0)
    assert again.value == pytest.approx(first.value)
    assert len(again.moves) == len(first.moves)
    # (less saving than for the same position: root moves are tried in another order, and
    # with symmetric keys the table's best moves are not used for ordering)
    assert again.visited * 2 < first.visited


def test_cache_persists_across_processes_atomically(tmp_path):
    state = S.from_string(MIDGAME)
    cache = CacheRoteLearning(bits=16)
    first = AlphaBetaPruningRoteLearning(limit=4, cache=cache).bestMoves(state, 0)
    path = tmp_path / "nmm.table"
    cache.save(path)
    loaded = CacheRoteLearning.load(path)
    assert len(loaded) == len(cache)
    again = AlphaBetaPruningRoteLearning(limit=4, cache=loaded).bestMoves(state, 0)
    assert again.moves == first.moves and again.visited * 10 < first.visited
    # a child searched before is read from the cache with its exact value
    child = first.states[0]
    assert loaded.read(child) is not None
    # a foreign or corrupt file is refused with a clear error
    (tmp_path / "junk.table").write_bytes(b"not a table")
    with pytest.raises(ValueError, match="not a readable"):
        CacheRoteLearning.load(tmp_path / "junk.table")
    TranspositionTable(8, "connect_four").save(tmp_path / "c4.table")
    with pytest.raises(ValueError, match="connect_four"):
        CacheRoteLearning.load(tmp_path / "c4.table")


def test_cache_key_kind_must_match_the_symmetry_setting():
    cache = CacheRoteLearning(bits=8)
    AlphaBetaPruningRoteLearning(limit=1, symmetry=True, cache=cache)
    with pytest.raises(ValueError, match="symmetry=False"):
        AlphaBetaPruningRoteLearning(limit=1, symmetry=False, cache=cache)


def test_weights_change_the_player_and_wrong_player_is_refused():
    state = S.from_string(MIDGAME)
    stones_only = HeuristicWeights(
        stones=1, mills=0, blocked=0, open_mills=0, double_mills=0, mobility=0
    )
    greedy = AlphaBetaPruningRoteLearning(limit=1, weights=stones_only)
    default = AlphaBetaPruningRoteLearning(limit=1)
    assert greedy.bestMoves(state, 0).value != pytest.approx(default.bestMoves(state, 0).value)
    assert "limit=1" in repr(greedy)
    with pytest.raises(ValueError, match="not to move"):
        greedy.bestMoves(state, 1)


@pytest.mark.slow
def test_depth_4_beats_random():
    from plies.evaluation import run_tournament

    result = run_tournament(
        "nine_mens_morris", ["alphabeta:depth=4", "random"], games=200, seed=11,
        workers=1, opening_plies=2, progress=False,
    )
    wins = sum(r.returns[r.seats.index("alphabeta:depth=4")] > 0 for r in result.records)
    assert len(result.records) == 200
    assert wins >= 198


@pytest.mark.slow
def test_depth_6_beats_depth_2():
    from plies.evaluation import run_tournament

    deep, shallow = "alphabeta:depth=6", "alphabeta:depth=2"
    result = run_tournament(
        "nine_mens_morris", [deep, shallow], games=100, seed=12, workers=2, opening_plies=4,
        progress=False,
    )
    records = result.records
    assert len(records) == 100
    assert sum(r.seats[0] == deep for r in records) == 50  # seats swapped game by game
    assert len({tuple(r.seats) + (r.plies,) for r in records}) > 20  # the games differ
    wins = sum(r.returns[r.seats.index(deep)] > 0 for r in records)
    losses = sum(r.returns[r.seats.index(deep)] < 0 for r in records)
    assert wins >= 60 and wins >= 4 * losses
