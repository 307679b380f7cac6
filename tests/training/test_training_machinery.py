"""Training machinery: checkpoints, exact resume, mismatched checkpoints, TD targets, records."""

from __future__ import annotations

import csv

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from plies.files import load_torch  # noqa: E402
from plies.training import backgammon_td80 as bg_train  # noqa: E402
from plies.training.common import MetricsLog, plot_curve, wilson  # noqa: E402
from plies.training.records import load_records, save_records  # noqa: E402
from plies.training.selfplay import generate, replay  # noqa: E402


def _bg_args(run, games, **extra):
    argv = ["--run", str(run), "--games", str(games), "--hidden", "8", "--checkpoint-every", "2",
            "--eval-every", "0", "--quiet"]
    for k, v in extra.items():
        argv += [f"--{k}", str(v)]
    return bg_train.build_parser().parse_args(argv)


def _weights(path):
    return load_torch(path, ("weights", "checkpoint"))["state_dict"]


def _metrics(run):
    with open(run / "metrics.csv") as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


def test_backgammon_resume_continues_exactly(tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    bg_train.train(_bg_args(straight, 4))
    bg_train.train(_bg_args(split, 2))
    args = _bg_args(split, 4)
    args.resume = True
    bg_train.train(args)
    a, b = _weights(straight / "backgammon_net.pt"), _weights(split / "backgammon_net.pt")
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert _metrics(straight) == _metrics(split)
    card = (straight / "backgammon_net.json").read_text()
    assert "python -m plies.training.backgammon_td80 --games 4" in card


def test_checkpoint_of_another_architecture_or_game_is_refused(tmp_path):
    bg_train.train(_bg_args(tmp_path, 2))
    args = _bg_args(tmp_path, 4, hidden=16)
    args.resume = True
    with pytest.raises(ValueError, match="'hidden': 8"):
        bg_train.train(args)
    from plies.training.common import load_checkpoint

    with pytest.raises(ValueError, match="backgammon network, not one for dice_wars"):
        load_checkpoint(tmp_path / "checkpoint.pt", "dice_wars", "dice_wars_net")
    with pytest.raises(ValueError, match="pass --resume"):
        bg_train.train(_bg_args(tmp_path, 4))


def test_lambda_returns():
    values = np.array([[0.6, 0.1, 0.2], [0.3, 0.05, 0.1], [0.8, 0.3, 0.0]])
    sides = np.array([1, 0, 1])
    final = np.array([0.0, 0.0, 1.0])  # side 1 lost a gammon
    # lambda = 0: one-step TD, the next value seen from this side
    t0 = bg_train.lambda_returns(values, sides, final, 0.0)
    np.testing.assert_allclose(t0[0], [0.7, 0.1, 0.05])
    np.testing.assert_allclose(t0[1], [0.2, 0.0, 0.3])
    np.testing.assert_allclose(t0[2], final)
    # lambda = 1: Monte Carlo, every target is the result from that side's view
    t1 = bg_train.lambda_returns(values, sides, final, 1.0)
    np.testing.assert_allclose(t1[0], final)
    np.testing.assert_allclose(t1[1], [1.0, 1.0, 0.0])
    # a side that passes: two afterstates in a row from the same side are not flipped
    t = bg_train.lambda_returns(values[:2], np.array([0, 0]), final, 0.0)
    np.testing.assert_allclose(t[0], values[1])


def test_outcome_counts_gammons():
    from plies.games.backgammon import rules

    s = rules.initial_array(0)
    s[rules.WINNER] = 0
    s[rules.BOARD + rules.OFF] = 15
    np.testing.assert_allclose(bg_train._outcome(s, 0), [1, 1, 0])
    np.testing.assert_allclose(bg_train._outcome(s, 1), [0, 0, 1])
    s[rules.BOARD + rules.SIDE + rules.OFF] = 3
    np.testing.assert_allclose(bg_train._outcome(s, 1), [0, 0, 0])


def test_records_round_trip_and_replay(tmp_path):
    lineups = [("strength_diff", "single_turn", "dw_random", "win_prob"),
               ("win_prob", "win_prob", "strength_diff", "dw_all_random")]
    records = generate("dice_wars", lineups, seed=3)
    assert [r.seats for r in records] == [list(x) for x in lineups]
    save_records(records, tmp_path / "g.npz")
    loaded = load_records(tmp_path / "g.npz")
    for a, b in zip(records, loaded):
        assert a.actions == b.actions and a.seed == b.seed and a.returns == b.returns
        *_, last = replay("dice_wars", b)
        np.testing.assert_allclose(last.returns(), a.returns)


def test_metrics_log_drops_rows_after_the_checkpoint(tmp_path):
    log = MetricsLog(tmp_path / "m.csv", ["step", "loss"])
    for step in range(1, 5):
        log.add(step=step, loss=1.0 / step)
    again = MetricsLog(tmp_path / "m.csv", ["step", "loss"], resume_step=2)
    assert [r["step"] for r in again.rows()] == ["1", "2"]
    assert plot_curve(tmp_path / "m.csv", tmp_path / "m.png", "step", {"loss": "loss"}, "t")
    assert (tmp_path / "m.png").stat().st_size > 1000


def test_a_stop_while_the_metrics_are_trimmed_on_resume_loses_no_row(tmp_path, monkeypatch):
    import csv

    path = tmp_path / "m.csv"
    log = MetricsLog(path, ["step", "loss"])
    for step in range(1, 51):
        log.add(step=step, loss=1.0 / step)
    before = path.read_bytes()
    written = []

    def writerow(self, row):  # Ctrl-C (or SIGTERM, raised the same way) at the tenth kept row
        written.append(row)
        if len(written) == 10:
            raise KeyboardInterrupt

    monkeypatch.setattr(csv.DictWriter, "writerow", writerow)
    with pytest.raises(KeyboardInterrupt):
        MetricsLog(path, ["step", "loss"], resume_step=40)
    assert path.read_bytes() == before  # the file is whole: trimmed later, or not at all
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"]  # and no temporary file is left


def test_wilson_interval():
    lo, hi = wilson(60, 100)
    assert lo == pytest.approx(0.502, abs=1e-3) and hi == pytest.approx(0.691, abs=1e-3)
    assert wilson(0, 10)[0] == pytest.approx(0.0, abs=1e-12)


def test_cli_train_backgammon(tmp_path, capsys):
    from plies.cli import main

    rc = main(["train", "backgammon", "--run", str(tmp_path), "--games", "2", "--hidden", "8",
               "--workers", "1", "--round-games", "2", "--eval-every", "0", "--quiet"])
    assert rc == 0
    assert (tmp_path / "backgammon_net.pt").exists() and (tmp_path / "checkpoint.pt").exists()
    assert '"self_play_games": 2' in capsys.readouterr().out


def test_a_new_step_size_on_resume_is_applied_and_recorded(tmp_path):
    bg_train.train(_bg_args(tmp_path, 2))
    args = _bg_args(tmp_path, 4, lr=0.0005)
    args.resume = True
    card = bg_train.train(args)
    payload = load_torch(tmp_path / "checkpoint.pt", "checkpoint")
    assert payload["optimizer"]["param_groups"][0]["lr"] == 0.0005
    assert payload["config"]["lr_changes"] == [[2, 0.0005]]
    assert card["command"].startswith("python -m plies.training.backgammon_td80 --games 2 ")
    assert card["command"].endswith("--lr 0.0005 --lam 0.7 --seed 0 --eval-every 0 --eval-games 200 --resume")
