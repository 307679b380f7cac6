"""benchmarks/run.py times a game against OpenSpiel and lays out its tables: the rows and
columns are checked here, never the timings."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")

from benchmarks import run  # noqa: E402
from benchmarks.subject import CALLS, PLAYOUT_VARIANTS  # noqa: E402


@pytest.mark.slow
def test_runner_tables_on_tictactoe_against_openspiel():
    printed: list[str] = []
    tables = run.run(["--games", "tictactoe", "--peers", "openspiel", "--what", "playout,vector,calls",
                      "--seconds", "0.01", "--batches", "1,8"], out=printed.append)
    playout, vector, calls = tables
    assert playout.header == ["game", "what", "plies", "OpenSpiel", "plies/OpenSpiel"]
    assert [row[:2] for row in playout.rows] == [["tictactoe", v] for v in PLAYOUT_VARIANTS]
    assert [row[1] for row in vector.rows] == ["1", "8"]
    assert [row[1] for row in calls.rows] == list(CALLS)
    for table in tables:
        assert all(len(row) == len(table.header) for row in table.rows)
        assert all(row[-1].endswith("x") for row in table.rows)  # every row has its ratio
        assert table.markdown() in "\n".join(printed)
