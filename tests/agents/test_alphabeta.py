import os

import numpy as np
import pytest

from plies.agents import make
from plies.agents.alphabeta import WIN, AlphaBetaSearch
from plies.agents.transposition import TranspositionTable
from plies.games.tictactoe import TicTacToeState
from tests.tictactoe import ttt_reference as ref


def random_position(rng, max_moves=6) -> TicTacToeState:
    while True:
        s = TicTacToeState()
        for _ in range(int(rng.integers(0, max_moves + 1))):
            if s.is_terminal():
                break
            s.apply(int(rng.choice(s.legal_actions())))
        if not s.is_terminal():
            return s


def test_full_depth_values_and_best_moves_match_plain_minimax(rng):
    search = AlphaBetaSearch(eval="none")
    for _ in range(60):
        s = random_position(rng)
        board = s.to_string().replace("/", "")
        result = search.search(s, 9)
        child_values = {m: -ref.distance_minimax(ref.play(board, m), 1) for m in ref.moves(board)}
        best = max(child_values.values())
        assert result.best_moves == sorted(m for m, v in child_values.items() if v == best)
        assert np.sign(result.value) == np.sign(best)
        if best:
            assert WIN - abs(result.value) == 100 - abs(best)  # same distance to the end


def test_quicker_wins_score_higher():
    # X can win at once (top row) or later; the immediate win must be preferred
    s = TicTacToeState.from_string("XX./OO./...")
    result = AlphaBetaSearch(eval="none").search(s, 9)
    assert result.best_moves == [2]
    assert result.value == WIN - 1


def perfect_never_loses(seat: int) -> int:
    """Walk every opponent strategy against the perfect player; return the games checked."""
    agent = make("perfect", seed=0)
    games = 0

    def walk(state: TicTacToeState) -> None:
        nonlocal games
        if state.is_terminal():
            assert state.returns()[seat] >= 0, f"perfect player lost: {state.to_string()}"
            games += 1
            return
        if state.current_player == seat:
            # every best move must be safe, not just the one the seeded tie-break picks
            for move in agent.search(state).best_moves:
                child = state.clone()
                child.apply(move)
                walk(child)
        else:
            for move in state.legal_actions():
                child = state.clone()
                child.apply(int(move))
                walk(child)

    walk(TicTacToeState())
    return games


@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_player_never_loses_against_any_strategy(seat):
    assert perfect_never_loses(seat) > 100


def test_rote_learning_second_search_visits_fewer_nodes():
    search = AlphaBetaSearch(eval="lines")
    s = TicTacToeState.from_string("X../.../...")
    first = search.search(s, 6)
    second = search.search(s, 6)
    assert second.best_moves == first.best_moves
    assert second.value == first.value
    assert second.stats["visited"] < first.stats["visited"] / 10


def test_table_saves_and_loads_atomically(tmp_path, monkeypatch):
    path = tmp_path / "ttt.table"
    agent = make(f"alphabeta:depth=9,eval=none,table={path},tt_bits=12")
    agent.search(TicTacToeState())
    agent.save_table()
    fresh = make(f"alphabeta:depth=9,eval=none,table={path},tt_bits=12")
    assert len(fresh.searcher.table) == len(agent.searcher.table) > 0
    cold = make("alphabeta:depth=9,eval=none,tt_bits=12").search(TicTacToeState())
    warm = fresh.search(TicTacToeState())
    assert warm.best_moves == cold.best_moves
    assert warm.stats["visited"] < cold.stats["visited"] / 10
    # a failed save leaves the old file as it was
    before = path.read_bytes()
    table = fresh.searcher.table

    def disk_full(handle, **arrays):
        handle.write(b"half a table")
        raise OSError("disk full")

    monkeypatch.setattr("plies.agents.transposition.np.savez_compressed", disk_full)
    with pytest.raises(OSError, match="disk full"):
        table.save(path)
    assert path.read_bytes() == before
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_corrupt_or_foreign_table_files_are_refused(tmp_path):
    bad = tmp_path / "bad.table"
    bad.write_bytes(b"this is not a table")
    with pytest.raises(ValueError, match="not a readable plies transposition table"):
        TranspositionTable.load(bad)
    table = TranspositionTable(8, "connect_four")
    table.save(tmp_path / "c4.table")
    with pytest.raises(ValueError, match="table for 'connect_four', not for 'tictactoe'"):
        TranspositionTable.load(tmp_path / "c4.table", game="tictactoe")
    with pytest.raises(ValueError, match="symmetric keys|symmetry"):
        TranspositionTable.load(tmp_path / "c4.table", key_kind="symmetric")
    # a header or arrays that are not what save writes: a ValueError, not an AttributeError
    import json

    with np.load(tmp_path / "c4.table") as data:
        arrays = {k: data[k] for k in data.files}
    header = json.loads(bytes(arrays["header"]).decode())
    for change, message in (({"header": [1]}, "header is not a JSON object"),
                            ({"header": {**header, "bits": 40}}, "bits"),
                            ({"header": {**header, "bits": "8"}}, "bits"),
                            ({"values": np.full(256, np.nan)}, "not finite"),
                            ({"keys": arrays["keys"].astype(float)}, "not integers")):
        edited = dict(arrays)
        for key, value in change.items():
            edited[key] = np.frombuffer(json.dumps(value).encode(), np.uint8) if key == "header" else value
        with open(bad, "wb") as handle:
            np.savez(handle, **edited)
        with pytest.raises(ValueError, match=message):
            TranspositionTable.load(bad)


def test_seeded_tie_breaks_vary_with_the_seed_and_repeat_with_it():
    state = TicTacToeState()  # every first move draws: nine equally good moves
    picks = {make("perfect", seed=s).act(state) for s in range(30)}
    assert len(picks) > 3
    assert make("perfect", seed=5).act(state) == make("perfect", seed=5).act(state)


def test_node_limit_and_bad_arguments():
    search = AlphaBetaSearch(eval="none")
    with pytest.raises(TimeoutError):
        search.search(TicTacToeState(), 9, node_limit=3)
    with pytest.raises(ValueError, match="finished game"):
        search.search(TicTacToeState.from_string("XXX/OO./..."), 3)
    with pytest.raises(ValueError, match="unknown evaluation 'nope'.*evaluations: lines, none"):
        make("alphabeta:eval=nope").act(TicTacToeState())
