"""The exact solver against Pascal Pons's benchmark sets (tests/data/connect4/)."""

import random
from pathlib import Path

import pytest

from plies.games.connect_four import ConnectFourState, solve
from plies.games.connect_four.solver import Solver, get_solver
from plies.games.connect_four.state import state_from_moves

DATA = Path(__file__).resolve().parents[1] / "data" / "connect4"


def load(name: str) -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            rows.append((moves, int(score)))
    return rows


def sample(name: str, k: int, seed: int = 2024) -> list[tuple[str, int]]:
    return random.Random(seed).sample(load(name), k)


def check_scores(rows: list[tuple[str, int]]) -> None:
    solver = get_solver()
    wrong = []
    for moves, expected in rows:
        got = solver.score(state_from_moves(moves))
        if got != expected:
            wrong.append((moves, expected, got))
    assert not wrong, f"{len(wrong)} wrong scores, first: {wrong[:3]}"


def test_data_files_are_complete():
    for name in ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"):
        assert len(load(name)) == 1000


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1"])
def test_sample_of_easy_sets(name):
    check_scores(sample(name, 100))


def test_solve_returns_best_moves_that_keep_the_score():
    for moves, expected in sample("Test_L2_R1", 15, seed=7):
        score, best = solve(moves)
        assert score == expected
        assert best and all(1 <= c <= 7 for c in best)
        for column in best:  # playing a best move leaves the opponent exactly -score
            child = state_from_moves(moves + str(column))
            if child.is_terminal():
                assert child.winner is not None and score > 0
            else:
                assert get_solver().score(child) == -score
        # and every other move is worse
        for column in set(range(1, 8)) - set(best):
            child = ConnectFourState.from_string(moves)
            if child.is_legal(column - 1):
                child.apply(column - 1)
                if not child.is_terminal():
                    assert -get_solver().score(child) < score


def test_score_convention():
    # X to move wins at once with its 4th stone: 22 - 4 = 18
    assert solve("121212") == (18, [1])
    # X (4, 5, 6 on the bottom row, 3 stones) wins next move with its 4th stone whatever O
    # plays, so O scores -(22 - 4)
    assert solve("44556") == (-18, [1, 2, 3, 4, 5, 6, 7])
    assert solve("44556", weak=True)[0] == -1


def test_malformed_input():
    with pytest.raises(ValueError, match="columns are numbered"):
        solve("48")
    with pytest.raises(ValueError, match="already over"):
        solve("12121212")
    with pytest.raises(ValueError, match="over"):
        solve("1212121")


def test_node_limit_aborts_cleanly():
    solver = Solver(table_log_size=16)
    hard = load("Test_L1_R3")[0][0]
    assert solver.score(state_from_moves(hard), node_limit=1000) is None
    assert solver.aborted
    # the table holds only valid bounds afterwards: an easy position still solves exactly
    moves, expected = load("Test_L3_R1")[0]
    assert solver.score(state_from_moves(moves)) == expected


def reference_score(state: ConnectFourState, memo: dict) -> int:
    """Plain negamax over the GameState with the same score convention (small boards only)."""
    key = state.to_string()
    if key not in memo:
        cells, moves = state.max_game_length, state.num_moves
        best = None
        for action in state.legal_actions():
            state.apply(int(action))
            if state.is_terminal():
                value = (cells + 1 - moves) // 2 if state.winner is not None else 0
            else:
                value = -reference_score(state, memo)
            state.undo()
            best = value if best is None else max(best, value)
        memo[key] = best
    return memo[key]


@pytest.mark.parametrize("width, height, stones", [(4, 4, 4), (5, 4, 9), (4, 5, 9), (6, 3, 8)])
def test_other_board_sizes_match_plain_negamax(width, height, stones):
    import numpy as np

    rng = np.random.default_rng(width * 10 + height)
    solver = Solver(width, height, table_log_size=16)
    memo: dict = {}
    for _ in range(6):
        state = ConnectFourState(width=width, height=height)
        for _ in range(stones):
            state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                state.undo()
                break
        assert solver.score(state) == reference_score(state, memo)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1", "Test_L2_R2"])
def test_full_sets(name):
    check_scores(load(name))


@pytest.mark.slow
def test_sample_of_hard_opening_set():
    # Test_L1_R2 takes ~0.2-0.4 s a position: 40 of its 1000 keep this under ~15 s
    check_scores(sample("Test_L1_R2", 40))
