"""The backgammon diagnostics' own parts: the candidate inputs on positions worked by hand, and
the bookkeeping of the 2-ply labels' decisions (numbering across workers, each decision's pick,
the ranking term over each decision's plays, gnubg's labels at 0 and 1 plies and their file)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.backgammon_imitation import (
    DEEP_KIND,
    DeepEvaluator,
    deep_nets,
    gnubg_labels,
    label_settings,
    read_labels,
    write_labels,
)
from benchmarks.backgammon_imitation import main as imitation_main
from benchmarks.backgammon_input_candidates import PER_SIDE, candidate_inputs
from benchmarks.backgammon_label_files import file_sha256
from benchmarks.backgammon_own_2ply import (
    decision_table,
    first_of_each,
    listwise_loss,
    merge,
    picks,
    read_decisions,
    write_decisions,
)
from plies.agents.gnubg_agents import from_gnubg
from plies.agents.value_net import shipped_weights
from plies.files import DamagedFileError, save_torch
from plies.games.backgammon import rules

START = {6: 5, 8: 3, 13: 5, 24: 2}
# forward anchor 24 -> 1/6; checkers behind the mean 167/15 on 24 and 13; timing: 3 spares on the
# 6 (5 pips each), 3 on the 8 (7), 5 on the 13 (12), the 24's anchor kept; free pips: beyond two on
# each point (3 x 6 + 1 x 8 + 3 x 13); one anchor with 2 checkers back; 3 spares at home; 3 builders
START_VALUES = [1 / 6, (2 * (24 - 167 / 15) ** 2 + 5 * (13 - 167 / 15) ** 2) / 400, 0.96, 0.0, 2 / 8, 0.65,
                0.0, 0.0, 0.0, 0.3, 0.3]


def _state(me: dict[int, int], them: dict[int, int], mover: int) -> np.ndarray:
    """``me`` (seat ``mover``) and ``them``: point -> checkers in each side's numbering (25: bar);
    the rest borne off."""
    side = lambda points: [points.get(i, 0) for i in range(1, 26)]  # noqa: E731
    return from_gnubg([side(them), side(me)], mover, rules.initial_array(0))


def test_the_candidates_of_the_starting_position_worked_by_hand():
    values = candidate_inputs(_state(START, START, 0)[None], np.array([0]))[0]
    np.testing.assert_allclose(values, START_VALUES * 2, rtol=1e-6)


@pytest.mark.parametrize("mover", [0, 1])
def test_a_back_game_with_a_checker_on_the_bar_worked_by_hand(mover):
    me = {25: 1, 22: 2, 20: 3, 8: 2, 6: 5}  # 13 checkers, 2 borne off
    pips = 25 + 2 * 22 + 3 * 20 + 2 * 8 + 5 * 6
    mean = pips / 13
    moment = ((25 - mean) ** 2 + 2 * (22 - mean) ** 2 + 3 * (20 - mean) ** 2) / 400
    # timing: 3 spares on the 6 (5 pips), both on the 8 (7), one beyond the 20's anchor (19), the bar (24)
    timing = (3 * 5 + 2 * 7 + 19 + 24) / 100
    free = (3 * 6 + 20 + 25) / 100  # beyond two on the 6 and the 20, and the bar
    expected = [5 / 6, moment, timing, 6 / 8, 0.0, free, 2 / 5, 0.0, 0.0, 0.3, 0.2]
    values = candidate_inputs(_state(me, START, mover)[None], np.array([mover]))[0]
    np.testing.assert_allclose(values[:PER_SIDE], expected, rtol=1e-6)
    np.testing.assert_allclose(values[PER_SIDE:], START_VALUES, rtol=1e-6)


def test_a_late_bear_off_splits_the_borne_off_checkers():
    values = candidate_inputs(_state({1: 2, 2: 1}, START, 0)[None], np.array([0]))[0]
    np.testing.assert_allclose(values[6:9], [1.0, 1.0, 2 / 5])


def test_the_candidates_refuse_bad_input():
    state = _state(START, START, 0)[None]
    with pytest.raises(ValueError, match="seats"):
        candidate_inputs(state, np.array([2]))
    with pytest.raises(ValueError, match="whole seats"):
        candidate_inputs(state, np.array([0.5]))
    with pytest.raises(ValueError, match="one mover a state"):
        candidate_inputs(state, np.array([0, 1]))
    with pytest.raises(ValueError, match="STATE_SIZE"):
        candidate_inputs(state[:, :-1], np.array([0]))


def test_the_workers_decisions_keep_numbers_of_their_own():
    part = lambda ids: {"rows": np.zeros((len(ids), 2)), "labels": np.zeros((len(ids), 5)),  # noqa: E731
                        "ids": np.array(ids)}
    merged = merge([part([0, 0, 1, 2, 3, 4, 4]), part([0, 1, 1, 2]), part([0])])
    assert merged["ids"].tolist() == [0, 0, 1, 2, 3, 4, 4, 5, 6, 6, 7, 8]
    assert len(merged["rows"]) == len(merged["labels"]) == 12


def test_each_decision_picks_its_lowest_value():
    ids = np.array([7, 7, 7, 3, 3, 9])
    starts = first_of_each(ids)
    assert starts.tolist() == [0, 3, 5]
    assert picks(np.array([0.2, -0.1, 0.4, 0.5, 0.6, 0.0]), starts).tolist() == [1, 3, 5]


def test_the_decision_table_lists_each_decisions_rows():
    table = decision_table(np.array([4, 4, 1, 1, 1, 8]))
    assert table.tolist() == [[0, 1, -1], [2, 3, 4], [5, -1, -1]]


def test_the_ranking_term_prefers_the_labels_order_and_ignores_padding():
    torch = pytest.importorskip("torch")
    table = torch.from_numpy(decision_table(np.array([0, 0, 0, 1])))
    labels = torch.tensor([0.40, 0.30, 0.50, 0.9])  # the opponent's P(win): the mover wants row 1
    same = torch.logit(torch.tensor([0.41, 0.31, 0.49, 0.2]))
    reversed_ = torch.logit(torch.tensor([0.41, 0.49, 0.31, 0.2]))
    assert listwise_loss(same, labels, table, 0.01) < listwise_loss(reversed_, labels, table, 0.01)
    # a decision with one play adds nothing, whatever its values: the loss is its mean over two
    alone = torch.logit(torch.tensor([0.41, 0.31, 0.49, 0.7]))
    assert torch.isclose(listwise_loss(same, labels, table, 0.01), listwise_loss(alone, labels, table, 0.01))
    # the weight is on the lowest values: swapping the two best plays costs more than the two worst
    one = torch.from_numpy(decision_table(np.zeros(4, dtype=np.int64)))
    four = torch.tensor([0.1, 0.2, 0.8, 0.9])
    best_swapped = listwise_loss(torch.logit(torch.tensor([0.2, 0.1, 0.8, 0.9])), four, one, 0.05)
    worst_swapped = listwise_loss(torch.logit(torch.tensor([0.1, 0.2, 0.9, 0.8])), four, one, 0.05)
    assert best_swapped > worst_swapped
    # a step down the gradient lowers the opponent's chance after play 1 (the labels' best) and
    # raises it after play 2 (the network's best)
    logits = reversed_.clone().requires_grad_(True)
    listwise_loss(logits, labels, table, 0.01).backward()
    assert logits.grad[2] < 0 < logits.grad[1]


def test_saved_decisions_are_read_back_and_damaged_ones_refused(tmp_path):
    network = tmp_path / "net.pt"
    network.write_bytes(b"weights")
    rows = np.stack([rules.initial_array(1)] * 3).astype(np.int64)
    saved = {"rows": rows, "ids": np.array([0, 0, 0]), "labels": np.full((3, 5), 0.25, dtype=np.float32)}
    good = tmp_path / "decisions.npz"
    write_decisions(good, saved, str(network), 10, 3, 21)
    back, network_hash, made = read_decisions(good)
    assert all(np.array_equal(back[key], saved[key]) for key in saved)
    assert network_hash == file_sha256(network) and made.tolist() == [10, 3, 21]

    def refused(name: str, match: str, **changes) -> None:
        bad = tmp_path / name
        np.savez(bad, **{**saved, "network_sha256": np.array("x"), "games_top_seed": np.array([1, 2, 3]), **changes})
        with pytest.raises(SystemExit, match=match):
            read_decisions(bad)

    refused("probabilities.npz", "probabilities", labels=np.full((3, 5), 1.5, dtype=np.float32))
    refused("floats.npz", "integers", ids=np.array([0.0, 0.5, 0.9]))
    refused("apart.npz", "together", ids=np.array([0, 1, 0]))
    refused("alone.npz", "two or more", ids=np.array([0, 0, 1]))
    refused("checkers.npz", "15 checkers", rows=rows + np.eye(1, rows.shape[1], rules.BOARD + 5, dtype=np.int64))
    refused("objects.npz", "damaged", ids=np.array([0, 0, None], dtype=object))
    refused("hash.npz", "network_sha256 must be a single text", network_sha256=np.array([1, 2]))
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(SystemExit, match="damaged"):
        read_decisions(cut)
    single = tmp_path / "single.npy"
    np.save(single, rows)
    with pytest.raises(SystemExit, match="single array"):
        read_decisions(single)


def _on_roll(me: dict[int, int], them: dict[int, int], mover: int) -> np.ndarray:
    """``_state`` before the roll of ``mover``, as the imitation script's positions are."""
    row = _state(me, them, mover)
    row[rules.ROLLER] = mover
    return row


@pytest.mark.parametrize("mover", [0, 1])
def test_gnubg_labels_look_one_roll_deeper_and_agree_where_the_game_is_exact(mover):
    pytest.importorskip("gnubg_nn")
    # two checkers on the 6 point against one on the opponent's 1 point: only 3-3 to 6-6 (4/36) win
    exact = _on_roll({6: 2}, {1: 1}, mover)
    contact = _on_roll({6: 5, 8: 3, 13: 5, 24: 1, 2: 1}, START, mover)
    rows = np.stack([exact, contact])
    static, deeper = gnubg_labels(rows, 0), gnubg_labels(rows, 1)
    assert static.shape == deeper.shape == (2, 5)
    assert static[0, 0] == pytest.approx(4 / 36, abs=1e-3) and deeper[0, 0] == pytest.approx(4 / 36, abs=1e-3)
    assert abs(static[1, 0] - deeper[1, 0]) > 1e-4  # the lookahead changed the contact position's value
    assert ((deeper >= 0) & (deeper <= 1)).all()
    with pytest.raises(ValueError, match="0 or 1 plies"):
        gnubg_labels(rows, 2)


def test_saved_labels_are_read_back_only_for_their_settings_and_damaged_ones_refused(tmp_path):
    network = tmp_path / "net.pt"
    network.write_bytes(b"weights")
    rows = np.stack([_on_roll({6: 2}, {1: 1}, 0), rules.initial_array(0)]).astype(np.int64)
    targets = np.full((2, 5), 0.25, dtype=np.float32)
    settings = label_settings(str(network), 100, 0.2, 12, 1)
    path = tmp_path / "labels.npz"
    write_labels(path, rows, targets, settings)
    back_rows, back_targets = read_labels(path, settings)
    assert np.array_equal(back_rows, rows) and np.array_equal(back_targets, targets)
    assert read_labels(path, label_settings(str(network), 100, 0.2, 12, 0)) is None  # other plies: not these
    network.write_bytes(b"other weights")
    assert read_labels(path, label_settings(str(network), 100, 0.2, 12, 1)) is None  # another network

    def refused(match: str, **changes) -> None:
        bad = tmp_path / "bad.npz"
        np.savez(bad, **{"rows": rows, "targets": targets, "settings": settings, **changes})
        with pytest.raises(SystemExit, match=match):
            read_labels(bad, settings)

    refused("probabilities", targets=np.full((2, 5), 1.5, dtype=np.float32))
    refused("rows of 5 probabilities", targets=targets[:, :4])
    refused("15 checkers", rows=rows + np.eye(1, rows.shape[1], rules.BOARD + 5, dtype=np.int64))
    refused("not a readable", rows=np.array([[0, None]], dtype=object))
    np.savez(tmp_path / "no_targets.npz", rows=rows, settings=settings)
    with pytest.raises(SystemExit, match="lacks targets"):
        read_labels(tmp_path / "no_targets.npz", settings)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(SystemExit, match="not a readable"):
        read_labels(path, settings)


def test_the_imitation_script_refuses_labels_of_other_settings_and_bad_paths_before_labelling(tmp_path, capsys):
    pytest.importorskip("torch")
    network = str(shipped_weights("backgammon"))
    labels = tmp_path / "labels.npz"
    rows = np.stack([rules.initial_array(0)] * 2).astype(np.int64)
    write_labels(labels, rows, np.full((2, 5), 0.25, dtype=np.float32), np.array("made with other settings"))
    before = labels.read_bytes()
    for extra, message in (([ "--labels", str(labels)], "other settings"),
                           (["--labels", str(tmp_path / "nowhere" / "labels.npz")], "no folder"),
                           (["--keep", str(labels)], "is a file, not a folder")):
        with pytest.raises(SystemExit):
            imitation_main(["--network", network, "--games", "1", "--match-games", "0", *extra])
        assert message in capsys.readouterr().err
    assert labels.read_bytes() == before  # kept, not labelled again over it


def test_the_two_layer_networks_are_kept_in_a_checked_file(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    nets = deep_nets(torch, 8, 4)
    path = tmp_path / "deep.pth"
    save_torch({"h1": 8, "h2": 4, "state_dict": nets.state_dict()}, path, DEEP_KIND)
    evaluator = DeepEvaluator(str(path))
    for (name, kept), mine in zip(evaluator.nets.state_dict().items(), nets.state_dict().values()):
        assert torch.equal(kept, mine), name
    states = np.stack([rules.initial_array(0), _on_roll({6: 2}, {1: 1}, 1)]).astype(np.int64)
    values = evaluator.evaluate_all(states, 0, 2, True)
    assert np.allclose(values[:, 0], -values[:, 1]) and (np.abs(values) <= 1).all()
    save_torch({"h1": 16, "h2": 4, "state_dict": nets.state_dict()}, tmp_path / "other.pth", DEEP_KIND)
    with pytest.raises(DamagedFileError, match="does not hold the two-layer networks"):
        DeepEvaluator(str(tmp_path / "other.pth"))
    torch.save({"h1": 8, "h2": 4, "state_dict": nets.state_dict()}, tmp_path / "plain.pth")
    with pytest.raises(DamagedFileError, match="not a plies"):
        DeepEvaluator(str(tmp_path / "plain.pth"))
