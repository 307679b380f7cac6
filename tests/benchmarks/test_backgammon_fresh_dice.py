"""The fresh-dice table of the backgammon TD run: reading it back (and refusing rows that do not
add up), the slope and its two standard errors, and a new point from tournament results files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from benchmarks.backgammon_fresh_dice import (
    COLUMNS,
    POINTS,
    Point,
    main,
    point_from_tournaments,
    read_points,
    slope,
    write_points,
)


def _table(tmp_path, rows: list[str]):
    path = tmp_path / "points.csv"
    path.write_text("\n".join([",".join(COLUMNS), *rows]) + "\n")
    return path


def _results(tmp_path, seed: int, wins: int, games: int = 10_000, opponent: str = "gnubg:depth=0",
             player: str = "expectiminimax:depth=1,eval=net_26400000.pt"):
    """A results file as ``plies tournament --json`` writes it (its config and summary)."""
    path = tmp_path / f"results_{len(list(tmp_path.glob('results_*.json')))}.json"
    summary = [{"agent": opponent, "games": games, "wins": games - wins},
               {"agent": player, "games": games, "wins": wins}]
    config = {"clock": None, "game": "backgammon", "agents": [player, opponent], "games": games, "seed": seed,
              "opening_plies": 0, "focus": None, "options": {}}
    path.write_text(json.dumps({"config": config, "summary": summary, "games": []}))
    return path


def test_the_committed_table_reads_back_and_each_row_adds_up():
    points = read_points(POINTS)
    assert len(points) >= 17
    assert [p.network_games for p in points] == sorted({p.network_games for p in points})
    for p in points:
        assert p.games == 20_000
        assert p.seed_wins is None or sum(p.seed_wins) == p.wins


def test_the_slope_of_points_on_a_line_and_its_two_standard_errors():
    # rates exactly on 48% + 0.05 points a million games: no scatter; the binomial error is
    # sqrt(p(1-p)/n) / sqrt(Sxx) at the pooled rate when every point has the same games
    xs = [1.0, 3.0, 6.0, 10.0]
    points = [Point(int(x * 1e6), 1, "2026-12-07", None, round(200 * (48 + 0.05 * x)), 20_000) for x in xs]
    line = slope(points)
    assert line.per_million == pytest.approx(0.05, abs=1e-9)
    assert line.intercept == pytest.approx(48.0, abs=1e-9)
    assert line.se_scatter == pytest.approx(0.0, abs=1e-9)
    pooled = sum(p.wins for p in points) / 80_000
    sxx = sum((x - np.mean(xs)) ** 2 for x in xs)
    assert line.se_binomial == pytest.approx(100 * math.sqrt(pooled * (1 - pooled) / 20_000 / sxx))
    assert line.mean_rate == pytest.approx(pooled)


def test_the_slope_agrees_with_numpy_on_the_committed_points():
    points = read_points(POINTS)
    x = np.array([p.network_games / 1e6 for p in points])
    y = np.array([100 * p.rate for p in points])
    fitted, _ = np.polyfit(x, y, 1)
    assert slope(points).per_million == pytest.approx(fitted)
    with pytest.raises(ValueError, match="three points"):
        slope(points[:2])


@pytest.mark.parametrize("row, message", [
    ("100,1,2026-12-07,4900,4901,9800,20000", "do not add up"),
    ("100,1,2026-12-07,4900,,9800,20000", "both seeds or of neither"),
    ("100,1,2026-12-07,,,20001,20000", "between 0 and the games"),
    ("100,1,yesterday,,,9800,20000", "not a point"),
    ("100,1,2026-12-07,,,many,20000", "not a point"),
])
def test_a_row_that_does_not_add_up_is_refused(tmp_path, row, message):
    with pytest.raises(ValueError, match=message):
        read_points(_table(tmp_path, [row]))


def test_a_network_measured_twice_or_other_columns_are_refused(tmp_path):
    twice = ["100,1,2026-12-07,,,9800,20000", "100,2,2026-12-07,,,9801,20000"]
    with pytest.raises(ValueError, match="measured twice"):
        read_points(_table(tmp_path, twice))
    other = tmp_path / "other.csv"
    other.write_text("games,wins\n100,9800\n")
    with pytest.raises(ValueError, match="columns must be"):
        read_points(other)
    with pytest.raises(ValueError, match="cannot read"):
        read_points(tmp_path / "missing.csv")


def test_a_point_from_the_tournament_files_of_the_pair(tmp_path):
    files = [_results(tmp_path, 2147, 4950), _results(tmp_path, 2141, 4900)]  # either order
    point = point_from_tournaments(26_400_000, 54, files, "2026-12-07")
    assert point == Point(26_400_000, 54, "2026-12-07", (4900, 4950), 9850, 20_000)
    with pytest.raises(ValueError, match="fresh-dice pair"):
        point_from_tournaments(1, 54, [_results(tmp_path, 2141, 1), _results(tmp_path, 2163, 1)])
    with pytest.raises(ValueError, match="fresh-dice pair"):
        point_from_tournaments(1, 54, [files[1], files[1]])
    with pytest.raises(ValueError, match="against gnubg:depth=0"):
        point_from_tournaments(1, 54, [files[1], _results(tmp_path, 2147, 1, opponent="pubeval")])
    with pytest.raises(ValueError, match="against gnubg:depth=0"):
        point_from_tournaments(1, 54, [files[1], _results(tmp_path, 2147, 1, player="expectiminimax:depth=2,eval=net")])
    with pytest.raises(ValueError, match="different players"):
        point_from_tournaments(1, 54, [files[1], _results(tmp_path, 2147, 1, player="expectiminimax:depth=1,eval=td80")])
    with pytest.raises(ValueError, match="10,000 games"):
        point_from_tournaments(1, 54, [files[1], _results(tmp_path, 2147, 1, games=3)])
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        point_from_tournaments(1, 54, files, "yesterday")
    with pytest.raises(ValueError, match="0 or more"):
        point_from_tournaments(-5, 54, files)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ValueError, match="not a plies tournament results file"):
        point_from_tournaments(1, 54, [files[1], broken])


def test_add_writes_the_table_back_with_the_new_point_in_order(tmp_path, capsys):
    table = tmp_path / "points.csv"
    write_points(read_points(POINTS), table)
    before = read_points(table)
    files = [str(_results(tmp_path, 2141, 4900)), str(_results(tmp_path, 2147, 4950))]
    assert main(["--points", str(table), "--add", "1000", "54", *files, "--date", "2026-12-07"]) == 0
    after = read_points(table)
    assert after[0] == Point(1000, 54, "2026-12-07", (4900, 4950), 9850, 20_000)
    assert after[1:] == before
    assert "points a million games" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # the same network again
        main(["--points", str(table), "--add", "1000", "55", *files])
    with pytest.raises(SystemExit):  # a date the table could not read back
        main(["--points", str(table), "--add", "2000", "55", *files, "--date", "yesterday"])
    assert read_points(table) == after


def test_the_plot_is_a_picture_of_the_points(tmp_path):
    pytest.importorskip("matplotlib")
    image = pytest.importorskip("PIL.Image")
    out = tmp_path / "fresh.png"
    assert main(["--plot", str(out)]) == 0
    with image.open(out) as picture:
        assert picture.format == "PNG" and picture.size[0] > 400
