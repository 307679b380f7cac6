"""The position-sources diagnostic's replay of a results file: the end-of-turn positions split by
who has just moved, each action checked, and files that are not such a match refused."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from benchmarks.backgammon_position_sources import OPPONENT, game_positions
from plies.games.backgammon import features
from plies.games.backgammon import rules as bg_rules
from plies.games.backgammon.state import GAME
from plies.games.state import sample_chance

NETWORK = "expectiminimax:depth=1,eval=net"


def _results(games: int = 3) -> tuple[dict, dict[str, set[bytes]]]:
    """Random games written as ``plies tournament --json`` writes them, and the boards after
    each side's moves found while playing them."""
    rng = np.random.default_rng(5)
    records, boards = [], {NETWORK: set(), OPPONENT: set()}
    for index in range(games):
        seats = [NETWORK, OPPONENT] if index % 2 == 0 else [OPPONENT, NETWORK]
        state = GAME.new_state(seed=index)
        actions = []
        while not state.is_terminal():
            mover = state.current_player
            action = sample_chance(state, rng) if state.is_chance_node() else int(rng.choice(state.legal_actions()))
            state.apply(action)
            actions.append(action)
            row = np.array(state.array, np.int64)
            if mover >= 0 and row[0] != bg_rules.TERMINAL and row[bg_rules.PLAYER] == bg_rules.CHANCE:
                row[[bg_rules.DIE_HI, bg_rules.DIE_LO]] = 0
                boards[seats[mover]].add(row.tobytes())
        records.append({"index": index, "seed": index, "seats": seats, "actions": actions})
    config = {"game": "backgammon", "agents": [NETWORK, OPPONENT], "options": {}}
    return {"config": config, "summary": [], "games": records}, boards


def test_the_positions_after_each_sides_moves_are_the_ones_the_games_passed():
    results, boards = _results()
    ours, theirs = game_positions(results, 10)
    assert {r.tobytes() for r in ours} == boards[NETWORK]
    assert {r.tobytes() for r in theirs} == boards[OPPONENT]
    # after the network's move gnubg is on roll, and the other way round
    seat_of_gnubg = {g["index"]: g["seats"].index(OPPONENT) for g in results["games"]}
    assert set(seat_of_gnubg.values()) == {0, 1}
    assert len(ours) > 10 and len(theirs) > 10
    assert (features.next_mover(ours) >= 0).all() and (features.next_mover(theirs) >= 0).all()
    first_only = game_positions(results, 1)
    assert len(first_only[0]) < len(ours)


def test_a_file_that_is_not_such_a_match_or_has_an_illegal_action_is_refused():
    results, _ = _results(1)
    bad = copy.deepcopy(results)
    bad["games"][0]["actions"][3] = 10**12
    with pytest.raises(ValueError, match="game 0 cannot be replayed"):
        game_positions(bad, 1)
    other = copy.deepcopy(results)
    other["config"]["agents"] = [NETWORK, "pubeval"]
    with pytest.raises(ValueError, match="not a backgammon match against gnubg:depth=0"):
        game_positions(other, 1)
    options = copy.deepcopy(results)
    options["config"]["options"] = {"scoring": "money"}
    with pytest.raises(ValueError, match="options"):
        game_positions(options, 1)
    with pytest.raises(ValueError, match="not a plies tournament results file"):
        game_positions({"games": []}, 1)
