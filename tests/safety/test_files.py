"""Weights and checkpoints load without running code and a damaged file is a clear error;
files plies creates get the umask's mode."""

from __future__ import annotations

import dataclasses
import os
import pathlib

import pytest

torch = pytest.importorskip("torch")

from plies.agents.value_net import BackgammonNet, load_value_net, net_evaluator, shipped_weights  # noqa: E402
from plies.cli import main  # noqa: E402
from plies.files import DamagedFileError, atomic_write, convert_old, load_torch, save_torch  # noqa: E402
from plies.training.common import load_checkpoint, save_checkpoint, save_weights  # noqa: E402


class _Touch:
    """Unpickling this creates a marker file (what a crafted file would do)."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (self.marker,))


def _small_checkpoint(path):
    import numpy as np

    model = BackgammonNet(hidden=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    save_checkpoint(path, model, optimizer, {"lr": 0.1}, {"games": 3}, np.random.default_rng(0))
    return model


def test_a_crafted_pickle_runs_no_code_through_either_load_path(tmp_path):
    marker = tmp_path / "marker"
    crafted = {"game": "backgammon", "arch": "backgammon_td", "arch_config": {"hidden": 4},
               "state_dict": {}, "evil": _Touch(marker)}
    bare = tmp_path / "bare.pt"
    torch.save(crafted, bare)
    wrapped = tmp_path / "wrapped.pt"  # a valid plies wrapper and checksum around the same pickle
    import hashlib
    import io

    inner = io.BytesIO()
    torch.save(crafted, inner)
    data = inner.getvalue()
    torch.save({"plies_format": "plies-torch-2", "kind": "checkpoint",
                "sha256": hashlib.sha256(data).hexdigest(), "payload": data}, wrapped)
    for path in (bare, wrapped):
        with pytest.raises(DamagedFileError, match="unsafe"):
            load_value_net(path, "backgammon")  # eval=FILE.pt
        with pytest.raises(DamagedFileError, match="unsafe"):
            load_checkpoint(path, "backgammon", "backgammon_td")  # RUN/checkpoint.pt
        with pytest.raises(DamagedFileError):
            net_evaluator("backgammon", path)
    assert not marker.exists()


def test_checkpoints_round_trip_and_every_damage_is_a_clear_error(tmp_path):
    path = tmp_path / "checkpoint.pt"
    model = _small_checkpoint(path)
    payload = load_checkpoint(path, "backgammon", "backgammon_td")
    for key, value in model.state_dict().items():
        assert torch.equal(payload["state_dict"][key], value)
    good = path.read_bytes()
    silent = 0
    for offset in range(0, len(good) - 64, max(1, len(good) // 40)):
        damaged = bytearray(good)
        damaged[offset:offset + 64] = bytes(64)
        if bytes(damaged) == good:
            continue
        path.write_bytes(bytes(damaged))
        try:
            loaded = load_checkpoint(path, "backgammon", "backgammon_td")
        except DamagedFileError as err:
            assert "checkpoint.pt" in str(err)
            continue
        # the zip's alignment padding carries nothing: zeroing it may load, but never other tensors
        assert all(torch.equal(loaded["state_dict"][k], v) for k, v in payload["state_dict"].items())
        silent += 1
    assert silent <= 2
    for damaged in (b"", good[: len(good) // 2], b"not a torch file"):
        path.write_bytes(damaged)
        with pytest.raises(DamagedFileError, match="checkpoint.pt"):
            load_checkpoint(path, "backgammon", "backgammon_td")


def test_weights_are_not_a_checkpoint_and_other_kinds_are_refused(tmp_path):
    weights = tmp_path / "net.pt"
    save_weights(BackgammonNet(hidden=4), weights, {"note": "test"})
    assert load_value_net(weights, "backgammon").config == {"hidden": 4}
    with pytest.raises(DamagedFileError, match="weights file, not a checkpoint"):
        load_checkpoint(weights, "backgammon", "backgammon_td")
    save_torch({"x": 1}, tmp_path / "other.pt", "other")
    with pytest.raises(DamagedFileError, match="not a weights or checkpoint"):
        load_value_net(tmp_path / "other.pt")


def test_an_old_format_file_says_how_to_convert_and_converts(tmp_path):
    old = tmp_path / "old.pt"
    model = BackgammonNet(hidden=4)
    torch.save({"game": "backgammon", "arch": "backgammon_td", "arch_config": {"hidden": 4},
                "state_dict": model.state_dict()}, old)
    with pytest.raises(DamagedFileError, match="python -m plies.files convert"):
        load_value_net(old, "backgammon")
    convert_old(old)
    loaded = load_value_net(old, "backgammon")
    for key, value in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)


def test_shipped_weights_are_in_the_checked_format():
    for game in ("backgammon", "dice_wars"):
        payload = load_torch(shipped_weights(game), "weights")
        assert payload["game"] == game and "card" in payload


def test_the_cli_reports_damaged_files_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"\x80\x02garbage")
    rc = main(["tournament", "--game", "backgammon", "--agents", f"expectiminimax:depth=1,eval={bad}",
               "random", "--games", "1", "--workers", "1", "--quiet"])
    assert rc == 2
    assert "bad.pt" in capsys.readouterr().err
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.pt").write_bytes(b"")
    rc = main(["train", "backgammon", "--run", str(run), "--games", "2", "--hidden", "8",
               "--eval-every", "0", "--quiet", "--resume"])
    assert rc == 2
    assert "checkpoint.pt" in capsys.readouterr().err


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_created_files_get_the_umask_mode(tmp_path, umask):
    old = os.umask(umask)
    try:
        atomic_write(tmp_path / "a.txt", lambda f: f.write("x"), text=True)
        save_torch({"x": torch.zeros(1)}, tmp_path / "b.pt", "weights")
        from plies.evaluation import WinRateTable
        from plies.evaluation.report import export_json

        export_json(WinRateTable.from_records([], ["a", "b"]), [], tmp_path / "c.json")
    finally:
        os.umask(old)
    for name in ("a.txt", "b.pt", "c.json"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask, name


def test_damaged_self_play_records_name_the_file(tmp_path):
    from plies.evaluation.store import GameRecord
    from plies.training.records import load_records, save_records

    path = tmp_path / "games.npz"
    record = GameRecord(0, 1, ["a", "b"], [1.0, -1.0], 3, False, [0.0, 0.0], [1, 1], [4, 0, 3])
    save_records([record], path)
    assert load_records(path)[0].actions == [4, 0, 3]
    data = path.read_bytes()
    for damaged in (data[: len(data) // 2], b"", b"PK\x03\x04" + bytes(60)):
        path.write_bytes(damaged)
        with pytest.raises(DamagedFileError, match="games.npz"):
            load_records(path)


def test_self_play_records_whose_actions_are_not_legal_are_refused_not_played(tmp_path):
    # the kernels index without bounds checks: an action read from a file that reached them
    # unchecked crashed the interpreter (a segmentation fault)
    from plies.training.dw_data import positions
    from plies.training.records import save_records
    from plies.training.selfplay import generate

    path = tmp_path / "games.npz"
    records = generate("dice_wars", [("dw_random",) * 4], seed=3)
    save_records(records, path)
    assert len(positions([path], 1.0, 0)["states"]) > 0
    for ply, action in ((5, 10**9), (0, -1), (len(records[0].actions) - 1, 10**6)):
        bad = [dataclasses.replace(records[0], actions=[*records[0].actions])]
        bad[0].actions[ply] = action
        save_records(bad, path)
        with pytest.raises(DamagedFileError, match=f"games.npz: game 0: action {action} at ply {ply} is not legal"):
            positions([path], 1.0, 0)
    longer = [dataclasses.replace(records[0], actions=[*records[0].actions, 0])]
    save_records(longer, path)
    with pytest.raises(DamagedFileError, match="after the game ended"):
        positions([path], 1.0, 0)


def test_a_damaged_metrics_file_names_the_file_and_line(tmp_path):
    from plies.training.common import MetricsLog

    path = tmp_path / "metrics.csv"
    log = MetricsLog(path, ["step", "loss"])
    log.add(step=1, loss=0.5)
    log.add(step=2, loss=0.4)
    assert len(MetricsLog(path, ["step", "loss"], resume_step=1).rows()) == 1
    path.write_text("step,loss\n1,0.5\nabc,0.4\n")
    with pytest.raises(DamagedFileError, match="metrics.csv: line 3"):
        MetricsLog(path, ["step", "loss"], resume_step=1)


def test_the_payload_is_stored_compactly_and_older_bytes_payloads_still_load(tmp_path):
    import hashlib
    import io

    x = torch.rand(100_000)  # 400,000 bytes of float32
    path = tmp_path / "new.pt"
    save_torch({"x": x}, path, "other")
    assert path.stat().st_size < 440_000  # as bytes, torch would pickle them as text, half again as large
    assert torch.equal(load_torch(path, "other")["x"], x)
    inner = io.BytesIO()
    torch.save({"x": x}, inner)
    data = inner.getvalue()
    older = tmp_path / "older.pt"
    torch.save({"plies_format": "plies-torch-2", "kind": "other", "sha256": hashlib.sha256(data).hexdigest(),
                "payload": data}, older)
    assert older.stat().st_size > 500_000
    assert torch.equal(load_torch(older, "other")["x"], x)
    torch.save({"plies_format": "plies-torch-2", "kind": "other", "sha256": hashlib.sha256(data).hexdigest(),
                "payload": torch.zeros(3, dtype=torch.float32)}, older)
    with pytest.raises(DamagedFileError, match="checksum"):
        load_torch(older, "other")


@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_a_stop_during_a_write_is_taken_once_the_file_is_whole(tmp_path, stop):
    # torch.save or np.savez stopped halfway raise their own errors (a traceback, exit 1) instead
    # of the stop; the stop waits for the file and is then raised by the handler before it
    import signal

    from plies.evaluation.interrupts import Terminated, sigterm_as_interrupt
    from plies.files import stops_held

    signum = signal.SIGINT if stop == "ctrl-c" else signal.SIGTERM

    def write(handle):
        handle.write(b"first half ")
        signal.raise_signal(signum)
        handle.write(b"second half")

    target = tmp_path / "w.bin"
    # a library imported earlier in the suite may have put its own SIGTERM handler in place, and a
    # test run started in the background (nohup ... &) ignores SIGINT: both get Python's defaults
    outer_sigterm = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    outer_sigint = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with sigterm_as_interrupt(), pytest.raises(Terminated if stop == "sigterm" else KeyboardInterrupt):
            atomic_write(target, write)
        assert target.read_bytes() == b"first half second half"
        assert [p.name for p in tmp_path.iterdir()] == ["w.bin"]  # no temporary file left
        # the handlers are back: a stop outside the block is taken at once
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        # a block without a stop leaves everything as it was
        before = signal.getsignal(signal.SIGINT)
        with stops_held():
            save_torch({"x": torch.ones(2)}, tmp_path / "n.pt", "weights")
        assert signal.getsignal(signal.SIGINT) is before
    finally:
        signal.signal(signal.SIGTERM, outer_sigterm)
        signal.signal(signal.SIGINT, outer_sigint)
    assert torch.equal(load_torch(tmp_path / "n.pt", "weights")["x"], torch.ones(2))


def test_a_stop_held_during_a_write_stays_ignored_where_it_was_ignored(tmp_path):
    # a process that ignores Ctrl-C (started with nohup ... &) keeps ignoring it during a write
    import signal

    from plies.files import stops_held

    def write(handle):
        handle.write(b"first half ")
        signal.raise_signal(signal.SIGINT)
        handle.write(b"second half")

    outer_sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        atomic_write(tmp_path / "w.bin", write)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        with stops_held():
            signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, outer_sigint)
    assert (tmp_path / "w.bin").read_bytes() == b"first half second half"


@pytest.fixture(scope="module")
def sb3_model(tmp_path_factory):
    """A small MaskablePPO model of Tic-Tac-Toe, saved by Stable-Baselines3."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from plies.envs.vector.sb3 import VecEnv

    torch.set_num_threads(1)
    env = VecEnv("tictactoe", 4, seat=-1, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, n_epochs=1, seed=0,
                                    device="cpu", policy_kwargs={"net_arch": [16]})
    model.learn(64)
    path = tmp_path_factory.mktemp("sb3") / "model.zip"
    model.save(path)
    return path


def with_data(source, target, change):
    """A copy of a model file with ``change`` applied to its JSON data."""
    import json
    import zipfile

    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            content = old.read(name)
            if name == "data":
                data = json.loads(content)
                change(data)
                content = json.dumps(data).encode()
            new.writestr(name, content)
    return target


def test_an_sb3_model_file_is_read_without_running_code_from_it(tmp_path, sb3_model):
    """Stable-Baselines3's own load unpickles the file's stored objects; plies reads only its
    JSON and weights, so a crafted file cannot run code (here: create a marker file)."""
    import base64
    import pickle

    from plies.agents.specs import make

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    crafted = {":serialized:": base64.b64encode(pickle.dumps(Payload())).decode()}
    for key in ("policy_class", "observation_space", "lr_schedule", "policy_kwargs"):
        evil = with_data(sb3_model, tmp_path / f"{key}.zip", lambda data, key=key: data.update({key: dict(crafted)}))
        try:  # the weights are real, so only what the JSON holds decides
            make(f"sb3:path={evil}", game="tictactoe")
        except ValueError as err:
            assert "not a MaskablePPO model" in str(err)
        assert not marker.exists(), key


def test_an_sb3_model_plays_as_stable_baselines3_loads_it(tmp_path, sb3_model):
    sb3_contrib = pytest.importorskip("sb3_contrib")

    import plies
    from plies.agents.sb3_policy import SB3PolicyAgent

    ours = SB3PolicyAgent(path=str(sb3_model))
    theirs = SB3PolicyAgent(model=sb3_contrib.MaskablePPO.load(sb3_model, device="cpu"))
    state = plies.new_state("tictactoe")
    while not state.is_terminal():
        action = ours.act(state)
        assert action == theirs.act(state)
        state.apply(action)
    for change, message in (
        (lambda d: d.update(policy_kwargs={"net_arch": [17]}), "do not fit"),
        (lambda d: d.update(policy_kwargs={"activation_fn": "relu"}), "policy_kwargs may hold only"),
        (lambda d: d["observation_space"].update(_shape=[10**6, 10**6]), "more than 1,000,000 inputs"),
        (lambda d: d.update(policy_kwargs={"net_arch": [4096] * 16}), "50,000,000 weights"),
    ):
        with pytest.raises(ValueError, match=message):
            SB3PolicyAgent(path=str(with_data(sb3_model, tmp_path / "changed.zip", change)))
