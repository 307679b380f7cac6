"""Rating ladders: the fit, held-out predictions, placement and the shipped ladders."""

import math
from pathlib import Path

import numpy as np
import pytest

from plies.cli import main
from plies.evaluation import run_tournament
from plies.evaluation.rating import (
    LADDERS,
    Ladder,
    build_ladder,
    expected_score,
    fit_ratings,
    match_counts,
    outcome_probabilities,
    place,
)

pytest.importorskip("scipy")

RUNGS = ["random", "lookahead:depth=1", "mcts:simulations=30", "alphabeta:depth=1", "alphabeta:depth=2"]


@pytest.fixture(scope="module")
def ladder():
    return build_ladder("tictactoe", RUNGS, games_per_pair=40, seed=0, opening_plies=1, progress=False)


def test_the_fit_recovers_the_ratings_that_generated_the_games():
    truth = np.array([0.0, 250.0, 600.0, 900.0])
    nu = 0.8
    rng = np.random.default_rng(0)
    matches = []
    for i in range(4):
        for j in range(i + 1, 4):
            p = outcome_probabilities(truth[i], truth[j], nu)
            matches.append([i, j, *rng.multinomial(400, p)])
    fit = fit_ratings(matches, 4, anchor=0)
    assert fit.ratings[0] == 0.0 and fit.covariance[0, 0] == 0.0
    for k in range(1, 4):
        low, high = fit.interval(k)
        assert low <= truth[k] <= high and high - low < 200
    assert fit.nu == pytest.approx(nu, rel=0.25)


def test_ratings_predict_held_out_match_results_inside_their_intervals(ladder):
    ratings = ladder.ratings()
    fit = fit_ratings(ladder.matches, len(RUNGS), anchor=0)
    held_out = run_tournament("tictactoe", RUNGS, games=40, seed=99, opening_plies=1, workers=1, progress=False)
    for i, j, w, d, lo in match_counts(held_out.records, RUNGS):
        n = w + d + lo
        observed = (w + d / 2) / n
        diff_sd = math.sqrt(fit.covariance[i, i] + fit.covariance[j, j] - 2 * fit.covariance[i, j])
        scores = [expected_score(ratings[i] + z * diff_sd, ratings[j], ladder.nu) for z in (-1.96, 1.96)]
        noise = 1.96 * math.sqrt(0.25 / n)  # the held-out match's own sampling spread, at its widest
        assert min(scores) - noise <= observed <= max(scores) + noise, (RUNGS[i], RUNGS[j], observed, scores)


def test_a_baseline_placed_as_a_users_agent_lands_inside_its_ladder_interval(ladder):
    rung = next(r for r in ladder.rungs if r.spec == "mcts:simulations=30")
    placement = place(ladder, "mcts:simulations=30,name=mine", width=80, max_games=240, seed=5, progress=False)
    assert rung.low <= placement.rating <= rung.high
    assert placement.high - placement.low <= 160 or placement.games == 240
    assert placement.below is not None or placement.above is not None
    with pytest.raises(ValueError, match="is a rung of the ladder"):
        place(ladder, "random", progress=False)
    with pytest.raises(ValueError, match="cannot play tictactoe"):
        place(ladder, "dw_random", progress=False)
    # a budget that leaves one game over (games go in pairs) ends, where it once looped for ever
    odd = place(ladder, "random:name=odd", width=1, max_games=9, batch=2, nearest=1, seed=1, progress=False)
    assert odd.games == 8
    for budget in (float("nan"), 4.5, True):
        with pytest.raises(ValueError, match="max_games must be a whole number"):
            place(ladder, "random:name=odd", max_games=budget, progress=False)


def test_ladders_round_trip_and_bad_files_are_named(ladder, tmp_path):
    path = tmp_path / "t.json"
    ladder.save(path)
    again = Ladder.load(path)
    assert again.specs() == ladder.specs() and again.matches == ladder.matches
    assert again.command.startswith("plies rate --build --game tictactoe")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="bad.json is not a plies rating ladder"):
        Ladder.load(bad)
    with pytest.raises(ValueError, match="no rating ladder for 'chess'"):
        Ladder.load("chess")


def test_a_ladder_stopped_while_it_is_saved_leaves_the_old_file_and_no_other(ladder, tmp_path, monkeypatch):
    # the default place is the shipped ladders/ folder, whose *.json files are the ladders
    import json

    path = tmp_path / "t.json"
    ladder.save(path)
    before = path.read_bytes()

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(json, "dumps", stopped)
    with pytest.raises(KeyboardInterrupt):
        ladder.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def rate_on(ladder, tmp_path) -> tuple[int, Path]:
    """``plies rate`` of lookahead:depth=2 on ``ladder`` (saved under ``tmp_path``): exit status, plot path."""
    path = tmp_path / "t.json"
    ladder.save(path)
    png = tmp_path / "r.png"
    code = main(["rate", "--game", "tictactoe", "--agent", "lookahead:depth=2", "--ladder", str(path),
                 "--max-games", "32", "--plot", str(png), "--quiet"])
    return code, png


def test_cli_rate_prints_the_rating_and_writes_a_plot(ladder, tmp_path, capsys):
    code, png = rate_on(ladder, tmp_path)
    assert code == 0
    out = capsys.readouterr().out
    assert "lookahead:depth=2 on the tictactoe ladder:" in out and "95% interval" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ctrl_c_during_a_placement_stops_it_with_a_line_not_a_traceback(ladder, tmp_path, capsys, monkeypatch):
    import plies.evaluation.rating as rating

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(rating, "play_games", interrupted)
    code, png = rate_on(ladder, tmp_path)
    assert code == 130
    assert capsys.readouterr().err.strip() == "plies rate: interrupted"
    assert not png.exists()


@pytest.mark.parametrize("path", sorted(LADDERS.glob("*.json")), ids=lambda p: p.stem)
def test_shipped_ladders_are_anchored_and_ordered_as_their_games_say(path):
    shipped = Ladder.load(path)
    assert shipped.game == path.stem and shipped.command.startswith(f"plies rate --build --game {shipped.game}")
    rating = {r.spec: r for r in shipped.rungs}
    assert rating["random"].rating == 0.0
    anchor = shipped.specs().index("random")
    if shipped.players == 2:
        fit = fit_ratings(shipped.matches, len(shipped.rungs), anchor=anchor)
    else:
        from plies.evaluation.rating import fit_luce

        fit = fit_luce(shipped.finishes, len(shipped.rungs), anchor=anchor)
    assert np.allclose(fit.ratings, shipped.ratings(), atol=0.2)  # the data reproduces the ratings
    for r in shipped.rungs:
        assert r.low <= r.rating <= r.high


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["lookahead:depth=2", "mcts:simulations=50", "alphabeta:depth=1"])
def test_shipped_tictactoe_baselines_replaced_as_users_agents_land_in_their_intervals(spec):
    shipped = Ladder.load("tictactoe")
    rung = next(r for r in shipped.rungs if r.spec == spec)
    placement = place(shipped, f"{spec},name=user", width=50, max_games=400, seed=11, progress=False)
    assert rung.low <= placement.rating <= rung.high, (placement.rating, rung)


def test_the_multi_player_fit_recovers_the_ratings_that_generated_the_winners():
    from plies.evaluation.rating import fit_luce

    truth = np.array([0.0, 300.0, 500.0, 800.0, 200.0])
    rng = np.random.default_rng(0)  # over seeds 0-9, 39 of the 40 intervals hold the truth
    rows = []
    for _ in range(3000):
        seats = list(rng.choice(5, size=4, replace=False))
        strength = 10 ** (truth[seats] / 400)
        rows.append(seats + [int(rng.choice(4, p=strength / strength.sum()))])
    fit = fit_luce(rows, 5, anchor=0)
    for k in range(1, 5):
        low, high = fit.interval(k)
        assert low <= truth[k] <= high and high - low < 250


def test_a_dice_wars_ladder_places_an_agent_between_its_rungs():
    rungs = ["random", "dw_random", "strength_diff", "win_prob"]
    ladder = build_ladder("dice_wars", rungs, games_per_pair=10, seed=0, progress=False)
    assert ladder.players == 4 and ladder.finishes and not ladder.matches
    assert ladder.command.endswith("--rungs random dw_random strength_diff win_prob")
    rating = {r.spec: r.rating for r in ladder.rungs}
    assert rating["random"] == 0 and rating["win_prob"] > rating["dw_random"]
    placement = place(ladder, "strength_diff:name=user", width=300, max_games=80, seed=3, progress=False)
    rung = next(r for r in ladder.rungs if r.spec == "strength_diff")
    assert rung.low <= placement.rating <= rung.high
    assert placement.games <= 80 and "user" not in placement.record


@pytest.mark.slow
def test_the_shipped_connect_four_ladder_predicts_held_out_matches():
    shipped = Ladder.load("connect_four")
    specs = shipped.specs()
    fit = fit_ratings(shipped.matches, len(specs), anchor=specs.index("random"))
    chosen = ["mcts:simulations=30", "lookahead:depth=2", "mcts:simulations=100", "alphabeta:depth=2"]
    held_out = run_tournament("connect_four", chosen, games=30, seed=1234, opening_plies=shipped.opening_plies,
                              workers=1, progress=False)
    for a, b, w, d, lo in match_counts(held_out.records, chosen):
        i, j = specs.index(chosen[a]), specs.index(chosen[b])
        n = w + d + lo
        observed = (w + d / 2) / n
        diff_sd = math.sqrt(fit.covariance[i, i] + fit.covariance[j, j] - 2 * fit.covariance[i, j])
        scores = [expected_score(fit.ratings[i] + z * diff_sd, fit.ratings[j], shipped.nu) for z in (-1.96, 1.96)]
        noise = 1.96 * math.sqrt(0.25 / n)
        assert min(scores) - noise <= observed <= max(scores) + noise, (chosen[a], chosen[b], observed, scores)


@pytest.mark.parametrize("game", __import__("plies").game_ids())
def test_every_registered_game_ships_a_ladder_anchored_at_random(game):
    ladder = Ladder.load(game)
    assert "random" in ladder.specs() and len(ladder.rungs) >= 4
    assert ladder.ratings()[ladder.specs().index("random")] == 0.0
    assert ladder.command.startswith(f"plies rate --build --game {game}")


def test_the_fits_refuse_rungs_counts_and_parameters_outside_their_ranges():
    from plies.evaluation.rating import fit_luce, fit_one, fit_ratings, outcome_probabilities

    good = [(0, 1, 3, 1, 2), (1, 2, 2, 0, 2)]
    assert len(fit_ratings(good, 3).ratings) == 3
    for matches, n, anchor, message in (([(0, -1, 3, 1, 2)], 3, 0, "rungs are whole numbers 0..2"),
                                        ([(0, 1.5, 3, 1, 2)], 3, 0, "rungs are whole numbers"),
                                        (good, 3, 5, "anchor one of its rungs"),
                                        ([(0, 1, -3, 1, 2)], 3, 0, "counts .* >= 0")):
        with pytest.raises(ValueError, match=message):
            fit_ratings(matches, n, anchor)
    with pytest.raises(ValueError, match="winner is one of its 3 seats"):
        fit_luce([(0, 1, 2, -1)], 3)
    with pytest.raises(ValueError, match="nu a finite number >= 0"):
        outcome_probabilities(0.0, 0.0, -1.5)
    with pytest.raises(ValueError, match="counts must be finite and >= 0"):
        fit_one(np.array([0.0]), np.array([-1.0]), np.array([0.0]), np.array([1.0]), 0.5)
