import json

import numpy as np
import pytest
from scipy.stats import binomtest

from plies.cli import main
from plies.evaluation import run_tournament
from plies.evaluation.report import (
    export_csv,
    export_json,
    plot_heatmap,
    ratings,
    summary_rows,
    wilson_interval,
)
from plies.evaluation.store import GameRecord
from plies.evaluation.table import WinRateTable


@pytest.fixture(scope="module")
def result():
    return run_tournament("tictactoe", ["random", "lookahead:depth=2", "perfect"], 12, seed=2,
                          workers=1, progress=False)


def test_wilson_interval_is_scipy_s_and_contains_the_rate():
    low, high = wilson_interval(30, 100)
    ci = binomtest(30, 100).proportion_ci(method="wilson")
    assert (low, high) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert low < 0.3 < high
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_ratings_order_a_dominant_agent_first():
    records = [GameRecord(i, i, ["a", "b", "c"][i % 3:] + ["a", "b", "c"][: i % 3],
                          [0.0, 0.0, 0.0], 5, False, [0, 0, 0], [1, 1, 1], []) for i in range(30)]
    for r in records:  # "a" always wins, "c" always last
        r.returns = [{"a": 1.0, "b": 0.0, "c": -1.0}[s] for s in r.seats]
    rated = ratings(records, ["a", "b", "c"])
    assert rated["a"]["ordinal"] > rated["b"]["ordinal"] > rated["c"]["ordinal"]


def test_summary_has_intervals_ratings_and_per_opponent_cells(result):
    rows = summary_rows(result.table(), result.records)
    assert [r["agent"] for r in rows] == result.table().ranking()
    for row in rows:
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
        assert row["wins"] + row["draws"] + row["losses"] == row["games"] == 24
    assert rows[0]["vs random"].endswith("/12")


def test_exports_and_heatmap(result, tmp_path):
    export_csv(result.table(), result.records, tmp_path / "t.csv")
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert lines[0].startswith("agent,games,wins,draws,losses,win_rate,ci_low,ci_high,rating")
    assert len(lines) == 4
    export_json(result.table(), result.records, tmp_path / "t.json", result.config.as_dict())
    payload = json.loads((tmp_path / "t.json").read_text())
    assert len(payload["games"]) == 36 and payload["config"]["game"] == "tictactoe"
    plot_heatmap(result.table(), tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_command_reprints_and_replots(tmp_path, capsys):
    path = tmp_path / "r.sqlite"
    main(["tournament", "--game", "tictactoe", "--agents", "random", "perfect", "--games", "6",
          "--workers", "1", "--results", str(path), "--quiet"])
    first = capsys.readouterr().out
    assert main(["report", str(path), "--plot", str(tmp_path / "p.png"), "--csv", str(tmp_path / "c.csv")]) == 0
    again = capsys.readouterr().out
    assert first.split("agent  win%")[1] in again  # the same intervals and ratings
    assert (tmp_path / "p.png").exists() and (tmp_path / "c.csv").exists()


def test_clock_forfeits_a_slow_agent_in_games_without_a_turn_rule():
    fast = run_tournament("tictactoe", ["perfect", "random"], 2, seed=0, workers=1, progress=False,
                          clock=(0.0, 0.0))
    for record in fast.records:
        # with no time at all, the first agent to decide runs over and forfeits
        assert sum(record.timeouts) == 1
        loser = record.timeouts.index(1)
        assert record.returns[loser] == -1.0 and record.returns[1 - loser] == 1.0
    roomy = run_tournament("tictactoe", ["perfect", "random"], 2, seed=0, workers=1, progress=False,
                           clock=(60.0, 1.0))
    assert all(sum(r.timeouts) == 0 for r in roomy.records)


def test_table_from_records_is_what_the_tournament_reports(result):
    again = WinRateTable.from_records(result.records, list(result.config.agents))
    assert again.format() == result.table().format()
    assert np.isclose(sum(t.win_rate * t.games for t in again.totals.values()),
                      sum(t.wins for t in again.totals.values()))


def test_dice_wars_clock_ends_the_turn_instead_of_forfeiting():
    result = run_tournament("dice_wars", ["random", "strength_diff", "dw_random", "single_turn"], 4,
                            seed=0, workers=1, progress=False, clock=(0.0, 0.0))
    for record in result.records:
        assert sum(record.timeouts) > 0
        # every turn is ended at once: nobody attacks, so the game is cancelled, not forfeited
        assert record.returns == [0.0, 0.0, 0.0, 0.0]
