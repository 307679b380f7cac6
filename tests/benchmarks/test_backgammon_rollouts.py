"""The rollout diagnostics' own parts: the noise taken out of the rollouts' distance, the saved
labels and chunks read back or refused, a one-move rollout equal to the 1-ply search, and a
labelling run that goes on where it stopped and a fit that moves towards its labels."""

from __future__ import annotations

import argparse
import importlib.util
import math
import zipfile

import numpy as np
import pytest
import torch

from benchmarks.backgammon_imitation import positions
from benchmarks.backgammon_rollout_labels import (
    chunk_path,
    file_sha256,
    fit,
    label,
    label_chunk,
    load_folder,
    read_chunk,
    write_chunk,
)
from benchmarks.backgammon_rollout_truth import (
    bootstrap_gaps,
    distances,
    pooled,
    position_classes,
    read_labels,
    write_labels,
)
from benchmarks.backgammon_rollout_truth import label_chunk as truth_chunk
from plies.agents.value_net import load_value_net
from plies.games.backgammon import features

NETWORK = "plies/agents/weights/backgammon_net.pt"


def encode(rows: np.ndarray) -> np.ndarray:
    return features.encode(rows, features.next_mover(rows))[0]


def _labels(n: int, bias: float, noise: float, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.2, 0.8, (n, 5))
    noisy = lambda sd: np.clip(truth + rng.normal(0, sd, truth.shape), 0, 1)  # noqa: E731
    return {"G": truth, "V": np.clip(truth + bias * rng.choice([-1, 1], truth.shape), 0, 1), "S": noisy(0.02),
            "R_a": noisy(noise), "R_b": noisy(noise)}


def test_the_rollouts_noise_is_taken_out_of_their_distance():
    labels = _labels(200_000, bias=0.05, noise=0.1)
    d = distances(labels)
    assert d["V"] == pytest.approx(0.0025, rel=0.01)
    assert d["R_noise"] == pytest.approx(0.01 / 2, rel=0.02)  # the mean of two rollouts of variance 0.01
    assert abs(d["R"]) < 1e-4  # unbiased rollouts: nothing left once their noise is out
    raw = float(np.mean(((labels["R_a"][:, 0] + labels["R_b"][:, 0]) / 2 - labels["G"][:, 0]) ** 2))
    assert raw > 0.004  # and before, the noise alone would have put them twice as far as V


def test_saved_labels_are_read_back_and_damaged_ones_refused(tmp_path):
    labels = _labels(20, bias=0.01, noise=0.05)
    rows = np.zeros((20, 68), np.int64)
    settings = {"games": 2, "positions": 20, "horizon": 250, "trials": 1, "seed": 3, "chunk": 20,
                "position_class": "contact", "network": "abc"}
    good = tmp_path / "truth.npz"
    write_labels(good, labels, rows, settings)
    back, made = read_labels(good)
    assert made == {**settings, "luck_free": 0} and all(np.array_equal(back[k], labels[k]) for k in labels)
    write_labels(good, labels, rows, {**settings, "luck_free": 1})
    assert read_labels(good)[1]["luck_free"] == 1
    older = tmp_path / "older.npz"  # written before luck-free rollouts existed: plain ones
    np.savez(older, rows=rows, **labels, **settings)
    assert read_labels(older)[1]["luck_free"] == 0
    for name, changes in (("range", {"V": labels["V"] + 2}), ("shape", {"S": labels["S"][:, :3]}),
                          ("nan", {"G": np.full((20, 5), np.nan)}), ("missing", {"R_b": None})):
        arrays = {**labels, "rows": rows, **settings, **changes}
        np.savez(tmp_path / f"{name}.npz", **{k: v for k, v in arrays.items() if v is not None})
        with pytest.raises(ValueError):
            read_labels(tmp_path / f"{name}.npz")
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable"):
        read_labels(cut)


@pytest.fixture(scope="module")
def few_positions():
    rows = positions(load_value_net(NETWORK, "backgammon"), 1, 0.0, 5)
    return rows[:12]


def test_the_labels_share_one_view(few_positions):
    labels = truth_chunk(NETWORK, few_positions, 250, 1, (1, 2))
    # the network, its search and its rollouts all speak for the side on roll: a flipped view
    # would put them about 2 |P(win) - 0.5| apart
    assert np.mean(np.abs(labels["V"][:, 0] - labels["S"][:, 0])) < 0.05
    rollout = (labels["R_a"][:, 0] + labels["R_b"][:, 0]) / 2
    assert np.mean(np.abs(rollout - labels["V"][:, 0])) < 0.15
    assert not np.allclose(labels["R_a"], labels["R_b"])  # independent dice after the first roll
    assert ((labels["R_a"] >= -1e-9) & (labels["R_a"] <= 1 + 1e-9)).all()
    pytest.importorskip("gnubg_nn", reason="gnubg is the judge")
    from benchmarks.backgammon_imitation import gnubg_labels

    assert np.mean(np.abs(gnubg_labels(few_positions)[:, 0] - labels["S"][:, 0])) < 0.05


def test_pooled_sets_and_their_bootstrap():
    one, two = _labels(4000, bias=0.05, noise=0.1, seed=1), _labels(2000, bias=0.05, noise=0.05, seed=2)
    both = pooled([one, two])
    assert both["V"] == pytest.approx((4000 * distances(one)["V"] + 2000 * distances(two)["V"]) / 6000)
    gaps = bootstrap_gaps([one, two], rounds=200)
    low, high = gaps["R - V"]
    assert low < -0.0025 + 3e-4 and high > -0.0025 - 3e-4 and high < 0  # the rollouts are the closer
    assert gaps["S - V"][1] < 0


def test_files_that_are_not_labels_are_refused(tmp_path):
    np.save(tmp_path / "single.npy", np.zeros(3))
    with pytest.raises(ValueError, match="not a readable"):
        read_labels(tmp_path / "single.npy")
    labels = _labels(5, bias=0.01, noise=0.05)
    settings = {"games": 2, "positions": 5, "horizon": 250, "trials": 1, "seed": 3, "chunk": 5,
                "position_class": "contact", "network": "abc"}
    np.savez(tmp_path / "vector.npz", rows=np.zeros((5, 68), np.int64), **labels,
             **{**settings, "seed": np.array([1, 2])})
    with pytest.raises(ValueError, match="seed must be a single integer"):
        read_labels(tmp_path / "vector.npz")
    np.savez(tmp_path / "scalar.npz", rows=np.int64(5), **labels, **settings)
    with pytest.raises(ValueError, match="table of positions"):
        read_labels(tmp_path / "scalar.npz")
    np.savez(tmp_path / "luck.npz", rows=np.zeros((5, 68), np.int64), **labels, **settings, luck_free=2)
    with pytest.raises(ValueError, match="luck_free must be 0 or 1"):
        read_labels(tmp_path / "luck.npz")
    # a zip whose member is not an .npy: numpy would hand its bytes back as they are
    with zipfile.ZipFile(tmp_path / "raw.npz", "w") as archive:
        archive.writestr("rows", b"not an array")
    with pytest.raises(ValueError, match="rows not arrays"):
        read_labels(tmp_path / "raw.npz")


def _label_args(folder, chunks: int) -> argparse.Namespace:
    return argparse.Namespace(folder=str(folder), network=NETWORK, chunks=chunks, seed=4, games=1, horizon=3,
                              trials=1, candidate_share=0.0, workers=1, luck_free=False)


def test_labelling_goes_on_where_it_stopped_and_labels_a_damaged_chunk_again(tmp_path):
    label(_label_args(tmp_path, 2))
    first = chunk_path(tmp_path, 0).read_bytes()
    second = read_chunk(chunk_path(tmp_path, 1))
    assert len(second["rows"]) == len(second["labels"]) > 0
    chunk_path(tmp_path, 1).write_bytes(b"not a zip file")
    label(_label_args(tmp_path, 3))
    assert chunk_path(tmp_path, 0).read_bytes() == first  # kept as it was
    again = read_chunk(chunk_path(tmp_path, 1))  # the same dice give the same labels
    assert np.array_equal(again["rows"], second["rows"]) and np.array_equal(again["labels"], second["labels"])
    assert chunk_path(tmp_path, 2).exists()
    with pytest.raises(SystemExit, match="other settings"):
        label(argparse.Namespace(**{**vars(_label_args(tmp_path, 3)), "horizon": 4}))


def test_luck_free_chunks_say_so_and_do_not_mix_with_plain_ones(tmp_path):
    plain_folder, lucky_folder = tmp_path / "plain", tmp_path / "luck_free"
    label(_label_args(plain_folder, 1))
    label(argparse.Namespace(**{**vars(_label_args(lucky_folder, 1)), "luck_free": True}))
    plain, luck_free = read_chunk(chunk_path(plain_folder, 0)), read_chunk(chunk_path(lucky_folder, 0))
    assert int(plain["luck_free"]) == 0 and int(luck_free["luck_free"]) == 1
    assert np.array_equal(plain["rows"], luck_free["rows"])  # the same self-play game
    assert not np.allclose(plain["labels"], luck_free["labels"])  # labelled the other way
    with pytest.raises(SystemExit, match="other settings"):  # a resume cannot switch it
        label(_label_args(lucky_folder, 2))
    # a chunk written before the setting existed reads as plain, and a plain resume keeps it
    older = {k: v for k, v in plain.items() if k != "luck_free"}
    np.savez(chunk_path(plain_folder, 0), **older)
    assert int(read_chunk(chunk_path(plain_folder, 0))["luck_free"]) == 0
    before = chunk_path(plain_folder, 0).read_bytes()
    label(_label_args(plain_folder, 1))
    assert chunk_path(plain_folder, 0).read_bytes() == before
    np.savez(chunk_path(plain_folder, 0), **{**older, "luck_free": np.int64(2)})
    with pytest.raises(ValueError, match="luck_free must be 0 or 1"):
        read_chunk(chunk_path(plain_folder, 0))
    # and the fit refuses a folder that holds both kinds
    np.savez(chunk_path(plain_folder, 0), **older)
    settings = {"seed": 4, "games": 1, "horizon": 3, "trials": 1, "candidate_share": 0.0, "luck_free": 1}
    write_chunk(chunk_path(plain_folder, 1), {"rows": luck_free["rows"], "labels": luck_free["labels"]},
                file_sha256(NETWORK), settings, 1)
    with pytest.raises(SystemExit, match="other settings"):
        load_folder(plain_folder, file_sha256(NETWORK))


def test_a_chunk_of_other_shapes_is_refused(tmp_path):
    chunk = label_chunk(NETWORK, 0, {"seed": 1, "games": 1, "horizon": 2, "trials": 1, "candidate_share": 0.0})
    settings = {"seed": 1, "games": 1, "horizon": 2, "trials": 1, "candidate_share": 0.0}
    write_chunk(tmp_path / "ok.npz", chunk, "abc", settings, 0)
    assert str(read_chunk(tmp_path / "ok.npz")["network"]) == "abc"
    for name, bad in (("wide", {"rows": chunk["rows"][:, :10]}), ("labels", {"labels": chunk["labels"][:-1]}),
                      ("probabilities", {"labels": chunk["labels"] * 3})):
        write_chunk(tmp_path / f"{name}.npz", {**chunk, **bad}, "abc", settings, 0)
        with pytest.raises(ValueError):
            read_chunk(tmp_path / f"{name}.npz")


def test_the_fit_moves_towards_its_labels_and_holds_out_unseen_boards(tmp_path, few_positions):
    settings = {"seed": 1, "games": 1, "horizon": 2, "trials": 1, "candidate_share": 0.0}
    other_game = positions(load_value_net(NETWORK, "backgammon"), 1, 0.0, 6)
    other_game = other_game[[row.tobytes() not in {r.tobytes() for r in few_positions} for row in other_game]][:12]
    fitted_label = np.array([0.9, 0.3, 0.02, 0.02, 0.0], np.float32)
    held_label = np.array([0.1, 0.0, 0.0, 0.3, 0.02], np.float32)  # contradicts the fitted chunks
    for i in range(10):  # every tenth chunk is held out: chunk 9
        rows, label_row = (other_game, held_label) if i == 9 else (few_positions, fitted_label)
        write_chunk(chunk_path(tmp_path, i), {"rows": rows.astype(np.int16), "labels": np.tile(label_row, (len(rows), 1))},
                    file_sha256(NETWORK), settings, i)
    judge = 5 if importlib.util.find_spec("gnubg_nn") else 0
    figures = fit(argparse.Namespace(network=NETWORK, folder=str(tmp_path), seed=0, threads=1, judge=judge, lr=0.01,
                                     epochs=3, batch=16, out=str(tmp_path / "fitted.pt")))
    assert [f[0] for f in figures] == ["the network as it is", "after epoch 1", "after epoch 2", "after epoch 3"]
    # fitted on chunks 0-8 only: the held-out chunk's own labels get further away, not closer
    assert figures[-1][1] > figures[0][1]
    assert math.isfinite(figures[-1][2]) == bool(judge)
    fitted = load_value_net(tmp_path / "fitted.pt", "backgammon")
    x = torch.from_numpy(encode(few_positions))
    classes = torch.from_numpy(position_classes(few_positions).astype(np.int64))
    with torch.no_grad():
        p = torch.sigmoid(fitted.logits(x, classes)).numpy()[:, 0]
    assert np.mean(np.abs(p - 0.9)) < 0.1  # it learnt the fitted chunks' labels


def test_a_held_out_chunk_that_only_repeats_fitted_boards_leaves_nothing_to_judge(tmp_path, few_positions):
    settings = {"seed": 1, "games": 1, "horizon": 2, "trials": 1, "candidate_share": 0.0}
    for i in range(10):
        write_chunk(chunk_path(tmp_path, i), {"rows": few_positions.astype(np.int16),
                                              "labels": np.full((len(few_positions), 5), 0.5, np.float32)},
                    file_sha256(NETWORK), settings, i)
    with pytest.raises(SystemExit, match="at least ten chunks"):
        fit(argparse.Namespace(network=NETWORK, folder=str(tmp_path), seed=0, threads=1, judge=0, lr=0.01,
                               epochs=1, batch=16, out=""))
