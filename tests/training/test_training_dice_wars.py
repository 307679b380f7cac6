"""Dice Wars training in rounds: the pools, game chunks, positions, fitting, evaluation, exact resume."""

from __future__ import annotations

import csv
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from plies.agents import make  # noqa: E402
from plies.files import load_torch  # noqa: E402
from plies.games.dice_wars import rules as dw_rules  # noqa: E402
from plies.training import dice_wars as dw_train  # noqa: E402
from plies.training import engine  # noqa: E402
from plies.training.dw_data import COURSE_BOTS, DEFAULT_POOL, seat_player  # noqa: E402
from plies.training.records import load_records  # noqa: E402

COURSE_NAMES = {"dt.rand", "dt.sdc", "dt.ste", "dt.wpm_c", "xlogin00"}


def _args(run, n_rounds, **extra):
    argv = ["--run", str(run), "--rounds", str(n_rounds), "--round-games", "4", "--chunk", "2",
            "--keep", "0.3", "--epochs", "2", "--hidden", "8", "--layers", "1", "--workers", "1",
            "--val", "0.3", "--eval-games", "4", "--eval-agent", "dw_expectiminimax:depth=1",
            "--quiet"]
    for k, v in extra.items():
        argv += [f"--{k.replace('_', '-')}"] if v is True else [f"--{k.replace('_', '-')}", str(v)]
    return engine.build_parser("dice_wars").parse_args(argv)


def _weights(path):
    return load_torch(path, "weights")["state_dict"]


def _same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def test_pools_hold_the_course_bots_under_their_course_names():
    assert set(COURSE_BOTS) == COURSE_NAMES
    assert set(dw_train.EVAL_POOLS["course"]) == COURSE_NAMES
    assert dw_train.EVAL_POOL == dw_train.EVAL_POOLS["course"]
    strong = set(dw_train.EVAL_POOLS["strong"])
    assert strong == COURSE_NAMES | {"dw_expectiminimax", "win_prob"}
    # the training pool: the course bots and plies's own players, every seat weight positive
    assert set(DEFAULT_POOL) == COURSE_NAMES | {"dw_expectiminimax", "win_prob"}
    assert all(w > 0 for w in DEFAULT_POOL.values())
    for name in set(DEFAULT_POOL) | strong:
        assert make(name, game="dice_wars") is not None
    # the course names are the course's bots (dt.wpm_c is the framework's move picker)
    assert type(make("dt.wpm_c")).__name__ == "WpmCAgent"
    assert type(make("dt.sdc")).__name__ == "StrengthDiffAgent"


def test_the_network_player_takes_the_asked_seats():
    rng = np.random.default_rng(0)
    lineups = [("a", "b", "c", "d")] * 50
    for seats in (1, 2, 4):
        out = seat_player(lineups, "NET", seats, rng)
        assert all(row.count("NET") == seats and len(row) == 4 for row in out)
    where = {row.index("NET") for row in seat_player(lineups, "NET", 1, rng)}
    assert len(where) > 1  # not always the same seat
    with pytest.raises(ValueError, match="player_seats=5"):
        seat_player(lineups, "NET", 5, rng)


@pytest.mark.parametrize(("option", "value", "message"), [
    ("rounds", 0, "--rounds must be at least 1"),
    ("round_games", 1, "--round-games must be at least 2"),
    ("keep", 0, r"--keep is a share of positions in \(0, 1\]"),
    ("keep", 1.5, r"--keep is a share"),
    ("player_seats", 5, "--player-seats must be 1-4"),
    ("player_depth", 0, "--player-depth must be 1-16"),
    ("eval_games", 10, "--eval-games must be 0 or a positive multiple of 4"),
    ("eval_games", -4, "--eval-games must be 0"),
    ("val", 1, r"--val is a share of games in \(0, 1\)"),
    ("window", -1, "--window must be 0"),
    ("per_game", -1, "--per-game must be 0"),
    ("lam", 1.5, r"--lam is a weight in \[0, 1\]"),
    ("average", 0, r"--average must be 1 to --rounds \(1\), got 0"),
    ("average", 2, r"--average must be 1 to --rounds \(1\), got 2"),
    ("pool_games", 1, "--pool-games must be 0"),
    ("eval_agent", "dt.sdc", "the network player is a search"),
    ("eval_agent", "dw_expectiminimax:depth=2,eval=net", "leave out eval="),
    ("eval_agent", "dw_expectiminimax:depth=0", "depth"),
    ("player_options", "eval=net", "depth= is --player-depth and eval= the round's network"),
    ("player_options", "depth=2", "depth= is --player-depth"),
    ("player_options", "leaves=sideways", "as_is or turn_end"),
    ("player_options", "max_attacks=-1", "max_attacks"),
])
def test_bad_options_are_refused_before_any_game(tmp_path, option, value, message):
    args = _args(tmp_path / "run", 1, **{option: value})
    with pytest.raises(ValueError, match=message):
        engine.train("dice_wars", args)
    assert not (tmp_path / "run" / "games").exists()


def test_options_that_only_contain_eval_or_depth_in_their_names_are_accepted(tmp_path):
    args = _args(tmp_path / "run", 1, player_options="filter_eval=score,filter_leaves=true",
                 eval_agent="dw_expectiminimax:depth=1,filter_eval=score")
    dw_train.check_args(args)  # filter_eval= is not eval=


def test_bad_options_on_the_command_line_are_usage_errors(tmp_path, capsys):
    assert engine.main(["dice_wars", "--run", str(tmp_path / "r"), "--eval-games", "6"]) == 2
    assert "--eval-games must be 0 or a positive multiple of 4" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        engine.main(["dice_wars", "--eval-pool", "everyone"])


def test_player_options_go_into_the_network_players_spec(tmp_path):
    import shutil

    from plies.agents import make
    from plies.agents.value_net import shipped_weights

    pytest.importorskip("torch")
    shutil.copy(shipped_weights("dice_wars"), tmp_path / "round_0.pt")
    spec = dw_train.player_spec(2, tmp_path / "round_0.pt", "leaves=turn_end,end_turn=true")
    assert spec.startswith("dw_expectiminimax:depth=2,leaves=turn_end,end_turn=true,eval=")
    agent = make(spec, game="dice_wars")
    assert (agent.depth, agent.leaves, agent.end_turn) == (2, "turn_end", True)
    assert dw_train.player_spec(1, tmp_path / "round_0.pt") == f"dw_expectiminimax:depth=1,eval={(tmp_path / 'round_0.pt').resolve()}"


def test_a_run_folder_with_a_comma_is_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot hold a comma"):
        engine.train("dice_wars", _args(tmp_path / "a,b", 1))


def test_split_keeps_games_apart():
    data = {"games": np.repeat(np.arange(20), 5)}
    train, val = dw_train.split(data, 0.25, 0)
    assert not set(data["games"][train]) & set(data["games"][val])
    assert len(set(data["games"][val])) == 5


@pytest.mark.slow
def test_two_rounds_run_end_to_end_and_resume_exactly(tmp_path, monkeypatch):
    straight, split = tmp_path / "a", tmp_path / "b"
    card = engine.train("dice_wars", _args(straight, 2))
    assert card["rounds"] == 2 and card["games"] == 8 and card["positions"] > 50
    assert "cpu_hours" in card and "machine" in card and len(card["per_round"]) == 2
    # round 1's games seat round 0's network at every table, among pool bots
    player = dw_train.player_spec(1, straight / "round_0.pt")
    for chunk in sorted((straight / "games" / "round_1").glob("games_*.npz")):
        for record in load_records(chunk):
            assert record.seats.count(player) == 1
            assert all(s in DEFAULT_POOL for s in record.seats if s != player)
    for chunk in sorted((straight / "games" / "round_0").glob("games_*.npz")):
        assert all(s in DEFAULT_POOL for r in load_records(chunk) for s in r.seats)
    # per-round metrics: win rate with its 95% interval, and the learning curve
    with open(straight / "metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["round"] for r in rows] == ["0", "1"] and [r["games"] for r in rows] == ["4", "8"]
    for r in rows:
        assert r["eval_games"] == "4"
        assert float(r["eval_low"]) <= float(r["eval_win_rate"]) <= float(r["eval_high"])
        assert float(r["eval_win_rate"]) == int(r["eval_wins"]) / 4
    assert (straight / "learning_curve.png").stat().st_size > 1000
    assert len((straight / "epochs.csv").read_text().splitlines()) == 1 + 2 * 2
    _same(_weights(straight / "round_1.pt"), _weights(straight / "dice_wars_net.pt"))

    # the same run stopped after round 0, then killed in round 1's evaluation, then resumed
    shutil.copytree(straight / "games" / "round_0", split / "games" / "round_0")
    engine.train("dice_wars", _args(split, 1))
    _same(_weights(straight / "round_0.pt"), _weights(split / "round_0.pt"))
    real = dw_train.evaluate_games

    def killed(weights, *a, **k):
        if weights.name == "round_1.pt":
            raise KeyboardInterrupt
        return real(weights, *a, **k)

    monkeypatch.setattr(dw_train, "evaluate_games", killed)
    with pytest.raises(KeyboardInterrupt):
        engine.train("dice_wars", _args(split, 2, resume=True))
    monkeypatch.setattr(dw_train, "evaluate_games", real)
    engine.train("dice_wars", _args(split, 2, resume=True))
    _same(_weights(straight / "dice_wars_net.pt"), _weights(split / "dice_wars_net.pt"))
    assert (split / "metrics.csv").read_text().count("\n") == 3  # no round logged twice
    a = [line.split(",")[:8] for line in (straight / "epochs.csv").read_text().splitlines()]
    b = [line.split(",")[:8] for line in (split / "epochs.csv").read_text().splitlines()]
    assert [r[:7] for r in a] == [r[:7] for r in b]  # the same losses, epoch for epoch

    # a cache of positions holding a row the encoders could not read is rebuilt from the games
    cache = straight / "positions" / "round_0.npz"
    with np.load(cache) as data:
        kept = {name: data[name] for name in data.files}
    damaged = {**kept, "states": kept["states"].copy()}
    damaged["states"][0, dw_rules.AREAS] = 10_000  # an owner no game has
    np.savez(cache, **damaged)
    again = dw_train.round_positions(_args(straight, 2), 0)
    for name in ("states", "winners", "games", "val"):
        np.testing.assert_array_equal(again[name], kept[name])

    # a run is not restarted over its checkpoint, and resumed only with its own settings
    with pytest.raises(ValueError, match="pass --resume"):
        engine.train("dice_wars", _args(split, 2))
    with pytest.raises(ValueError, match=r"--keep 0.3 \(now 0.5\)"):
        engine.train("dice_wars", _args(split, 3, resume=True, keep=0.5))
    with pytest.raises(ValueError, match="'layers': 1"):
        engine.train("dice_wars", _args(split, 3, resume=True, layers=2))


def test_the_old_network_stays_loadable_by_its_name_and_net_is_the_new_one():
    from plies.agents import value_net
    from plies.games.dice_wars import DiceWarsState

    assert {"net", "short6k", "oldmaps", "lam_round5"} <= set(value_net.shipped_names("dice_wars"))
    new = load_torch(value_net.shipped_weights("dice_wars"), "weights")
    for name in ("oldmaps", "short6k", "lam_round5"):
        old = load_torch(value_net.shipped_weights("dice_wars", name), "weights")
        assert old["state_dict"].keys() == new["state_dict"].keys()
        assert any(not torch.equal(old["state_dict"][k], new["state_dict"][k]) for k in old["state_dict"])
    short = load_torch(value_net.shipped_weights("dice_wars", "short6k"), "weights")
    assert short["card"]["games"] == 6000 and "short run" in short["card"]["notes"].lower()
    # the shipped network: rounds of lambda-return targets, its card says so
    assert new["card"]["rounds"] >= 2 and "--lam 0.5" in new["card"]["command"]
    assert "lambda-returns" in new["card"]["targets"] and new["card"]["per_round"]
    # it is the mean of the run's last three rounds; round 5, shipped before it, keeps its name
    assert new["card"]["command"].endswith("--average 3") and new["card"]["weights"].endswith("rounds 4, 5, 6")
    round5 = load_torch(value_net.shipped_weights("dice_wars", "lam_round5"), "weights")
    assert round5["card"]["games"] == 35000 and "eval=lam_round5" in round5["card"]["notes"]
    state = DiceWarsState.initial(np.random.default_rng(3))
    for name in ("oldmaps", "short6k", "lam_round5", "net"):  # a shipped name is a network inside the search (filtered)
        agent = make(f"dw_expectiminimax:depth=2,eval={name}", seed=0)
        assert agent.act(state) in list(state.legal_actions())


def test_turn_end_positions_are_the_positions_right_after_a_turn_ends(tmp_path):
    from plies.agents.dice_wars_bots import end_turn_rows
    from plies.games.dice_wars import rules
    from plies.training.dw_data import ensure_games, positions
    from plies.training.selfplay import replay

    paths = ensure_games(tmp_path, 2, 2, 5, 1, {"dt.sdc": 1.0, "dt.ste": 1.0}, progress=False)
    ends = positions(paths, 1.0, 0, kind="turn_end")
    # worked out another way: every running move-phase position before a player's end of turn,
    # ended by the search's own kernel (end_turn_rows)
    expected = []
    for record in load_records(paths[0]):
        for i, state in enumerate(replay("dice_wars", record)):
            s = state.array
            if (i < len(record.actions) and s[0] >= 0 and s[rules.PHASE] == rules.PHASE_MOVE
                    and record.actions[i] == s[rules.NUM_AREAS] ** 2):
                row = s.astype(np.int64).copy()[None]
                end_turn_rows(row)
                if row[0, rules.RESULT] == rules.ONGOING:
                    expected.append(row[0])
    assert len(expected) == len(ends["states"]) > 20
    for got, want in zip(ends["states"], expected):
        np.testing.assert_array_equal(got[: len(want)], want)
        assert got[rules.PHASE] == rules.PHASE_REINFORCE
    every = positions(paths, 1.0, 0)
    assert len(every["states"]) > 3 * len(ends["states"])
    with pytest.raises(ValueError, match="position kind 'middle'"):
        positions(paths, 1.0, 0, kind="middle")


def test_epoch_rows_take_at_most_k_positions_of_each_game_drawn_anew():
    games = np.repeat(np.arange(10), 7)
    rows = np.flatnonzero(games != 3)  # game 3 is a validation game
    rng = np.random.default_rng(0)
    first, second = (dw_train.epoch_rows(rows, games, 2, rng) for _ in range(2))
    for picked in (first, second):
        assert set(picked) <= set(rows)
        assert np.bincount(games[picked], minlength=10).tolist() == [2, 2, 2, 0, 2, 2, 2, 2, 2, 2]
    assert set(first) != set(second)
    np.testing.assert_array_equal(dw_train.epoch_rows(rows, games, 0, rng), rows)
    assert len(dw_train.epoch_rows(rows, games, 50, rng)) == len(rows)


def test_a_run_fits_on_turn_end_positions_a_few_of_each_game_per_epoch(tmp_path):
    run = tmp_path / "run"
    card = engine.train("dice_wars", _args(run, 1, positions="turn_end", per_game=3, keep=1.0, eval_games=0,
                                            batch=4, pool_games=6))
    assert card["games"] == 6 and len(list((run / "games" / "round_0").glob("games_*.npz"))) == 3
    with np.load(run / "positions" / "round_0.npz") as data:
        train_games = np.unique(data["games"][~data["val"]])
        assert card["positions"] == int((~data["val"]).sum()) > 3 * len(train_games)
    with open(run / "epochs.csv", newline="") as f:
        epochs = list(csv.DictReader(f))
    # each epoch made one step per batch of at most 3 positions per training game
    steps = [int(e["step"]) for e in epochs]
    assert len(train_games) == 5 and steps == [4, 8]  # 15 positions an epoch, batches of 4
    assert "--positions turn_end --per-game 3" in card["command"]


def test_lambda_targets_blend_the_next_positions_probabilities_back_from_the_winner():
    from plies.training.dw_data import lambda_targets

    probs = np.array([[.25, .25, .25, .25], [.5, .2, .2, .1], [.1, .7, .1, .1],
                      [.3, .3, .2, .2], [.4, .4, .1, .1]], np.float32)
    games, winners = np.array([1, 1, 1, 2, 2]), np.array([1, 1, 1, 0, 0])
    got = lambda_targets(probs, games, winners, 0.5)
    # worked by hand: each game's last position is its winner, then 0.5 next probs + 0.5 next target
    want = np.array([[.275, .525, .125, .075], [.05, .85, .05, .05], [0, 1, 0, 0],
                     [.7, .2, .05, .05], [1, 0, 0, 0]])
    np.testing.assert_allclose(got, want, atol=1e-6)
    np.testing.assert_allclose(lambda_targets(probs, games, winners, 1.0), np.eye(4)[winners])
    td0 = lambda_targets(probs, games, winners, 0.0)  # the next position's probabilities
    np.testing.assert_allclose(td0[[0, 1, 3]], probs[[1, 2, 4]])
    with pytest.raises(ValueError, match="stand together"):
        lambda_targets(probs, np.array([1, 2, 1, 2, 2]), winners, 0.5)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        lambda_targets(probs, games, winners, -0.1)
    with pytest.raises(ValueError, match="not a seat"):
        lambda_targets(probs, games, np.array([1, 1, 1, 0, 4]), 0.5)


def test_rounds_after_the_first_fit_on_lambda_returns_of_the_previous_network(tmp_path):
    run = tmp_path / "run"
    card = engine.train("dice_wars", _args(run, 2, lam=0.5, eval_games=0))
    assert "--lam 0.5" in card["command"] and "lambda-returns (lambda 0.5)" in card["targets"]
    args = _args(run, 2, lam=0.5, eval_games=0)
    data = dw_train.window_data(args, 1)
    assert dw_train.round_targets(args, 0, data, torch) is None  # round 0: the winners
    targets = dw_train.round_targets(args, 1, data, torch)
    # by hand: round 0's network's probabilities, blended back from each game's winner
    teacher = dw_train.DiceWarsNet(hidden=8, layers=1)
    teacher.load_state_dict(_weights(run / "round_0.pt"))
    teacher.eval()
    with torch.no_grad():
        probs = teacher(*teacher.tensors(data["states"].astype(np.int64), "cpu")).exp().numpy()[:, :4]
    for game in np.unique(data["games"])[:3]:
        rows = np.flatnonzero(data["games"] == game)
        want = np.eye(4)[data["winners"][rows[-1]]]
        np.testing.assert_allclose(targets[rows[-1]], want)
        for row, after in zip(rows[-2::-1], rows[:0:-1]):
            want = 0.5 * probs[after] + 0.5 * want
            np.testing.assert_allclose(targets[row], want, atol=1e-5)
    assert np.abs(targets - np.eye(4)[data["winners"]]).max() > 0.1  # not the winners
    np.testing.assert_allclose(targets.sum(1), 1.0, atol=1e-5)
    # the soft targets change round 1's network; stopped after round 0 and resumed, the same one
    plain = engine.train("dice_wars", _args(tmp_path / "plain", 2, eval_games=0))
    assert "--lam 1.0" in plain["command"]
    with pytest.raises(AssertionError):
        _same(_weights(run / "round_1.pt"), _weights(tmp_path / "plain" / "round_1.pt"))
    _same(_weights(run / "round_0.pt"), _weights(tmp_path / "plain" / "round_0.pt"))
    split = tmp_path / "split"
    engine.train("dice_wars", _args(split, 1, lam=0.5, eval_games=0))
    engine.train("dice_wars", _args(split, 2, lam=0.5, eval_games=0, resume=True))
    _same(_weights(run / "round_1.pt"), _weights(split / "round_1.pt"))


def test_the_final_weights_can_average_the_last_rounds_networks(tmp_path):
    run = tmp_path / "run"
    last = engine.train("dice_wars", _args(run, 3, eval_games=0))
    assert "--average" not in last["command"] and "round 2" in last["weights"]
    _same(_weights(run / "dice_wars_net.pt"), _weights(run / "round_2.pt"))
    # a resume of the finished run writes the average of rounds 1 and 2, playing and fitting nothing
    games = sorted(p.name for p in run.rglob("*.npz"))
    one, two = _weights(run / "round_1.pt"), _weights(run / "round_2.pt")
    epochs = (run / "epochs.csv").read_bytes()
    card = engine.train("dice_wars", _args(run, 3, eval_games=0, resume=True, average=2, out=tmp_path / "avg.pt"))
    assert card["command"].endswith(" --average 2") and card["weights"].endswith("rounds 1, 2")
    assert sorted(p.name for p in run.rglob("*.npz")) == games
    assert (run / "epochs.csv").read_bytes() == epochs
    _same(_weights(run / "round_1.pt"), one)
    _same(_weights(run / "round_2.pt"), two)
    mean = _weights(tmp_path / "avg.pt")
    assert mean.keys() == one.keys()
    for key in mean:
        torch.testing.assert_close(mean[key], (one[key] + two[key]) / 2)
    assert any(not torch.equal(mean[key], two[key]) for key in mean)
    # the average is a network like any other: the search player loads it
    from plies.games.dice_wars import DiceWarsState

    state = DiceWarsState.initial(np.random.default_rng(3))
    agent = make(f"dw_expectiminimax:depth=1,eval={tmp_path / 'avg.pt'}", seed=0)
    assert agent.act(state) in list(state.legal_actions())
    # fewer rounds than the run has done would average (and label) other rounds: refused
    with pytest.raises(ValueError, match="the run has done 3 rounds; resume with --rounds 3 or more, not 2"):
        engine.train("dice_wars", _args(run, 2, eval_games=0, resume=True, out=tmp_path / "other.pt"))
    assert not (tmp_path / "other.pt").exists()


def test_an_evaluation_resumes_in_a_moved_run_folder(tmp_path):
    """A round's results file names the network by its path; a run folder moved (or copied)
    since then still resumes its evaluation, without playing its stored games again."""
    import sqlite3

    from plies.agents import value_net
    from plies.evaluation.store import ResultStore

    old = tmp_path / "old"
    (old / "eval").mkdir(parents=True)
    shutil.copy(value_net.shipped_weights("dice_wars", "short6k"), old / "round_0.pt")
    agent = "dw_expectiminimax:depth=1"

    def results(run):
        return run / "eval" / "round_0.sqlite"

    def evaluate(run, games=4):
        return dw_train.evaluate_games(run / "round_0.pt", agent, games, 5, 1, "process", False,
                                       results=results(run))

    def stored(run):
        store = ResultStore(results(run), ResultStore.read_config(results(run)), resume=True)
        try:
            return list(store.records())
        finally:
            store.close()

    def spec(run):
        return f"{agent},eval={(run / 'round_0.pt').resolve()}"

    first = evaluate(old)
    before = stored(old)
    # copied while its evaluation ran (two games stored), the old folder still there
    copied = tmp_path / "copied"
    shutil.copytree(old, copied)
    db = sqlite3.connect(results(copied))
    with db:
        db.execute("DELETE FROM games WHERE idx >= 2")
    db.close()
    assert evaluate(copied) == first
    after = stored(copied)
    assert ResultStore.read_config(results(copied))["focus"] == spec(copied)
    assert [r.seats.count(spec(copied)) for r in after] == [1] * 4
    # the stored games were not played again (their clocks would differ), the others were
    assert [r.decision_seconds for r in after[:2]] == [r.decision_seconds for r in before[:2]]
    assert [r.actions for r in after] == [r.actions for r in before]
    # moved: the old folder gone
    moved = tmp_path / "moved"
    shutil.copytree(old, moved)
    shutil.rmtree(old)
    assert evaluate(moved) == first
    assert [r.decision_seconds for r in stored(moved)] == [r.decision_seconds for r in before]
    # another evaluation (more games) of a moved folder is refused, the file left as it was
    again = tmp_path / "again"
    shutil.copytree(copied, again)
    held = results(again).read_bytes()
    with pytest.raises(ValueError, match="another tournament"):
        evaluate(again, games=6)
    assert results(again).read_bytes() == held
    # a network of other bytes at the stored path is another tournament too
    shutil.copy(value_net.shipped_weights("dice_wars", "oldmaps"), copied / "round_0.pt")
    with pytest.raises(ValueError, match="another tournament"):
        evaluate(again)
    assert results(again).read_bytes() == held
