"""Dice Wars training: self-play chunks, positions, fitting, exact resume."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from plies.files import load_torch  # noqa: E402
from plies.training import dice_wars as dw_train  # noqa: E402


def _args(run, epochs, **extra):
    argv = ["--run", str(run), "--games", "6", "--chunk", "3", "--keep", "0.2", "--epochs",
            str(epochs), "--hidden", "8", "--layers", "1", "--workers", "1", "--val", "0.34",
            "--quiet"]
    for k, v in extra.items():
        argv += [f"--{k}", str(v)]
    return dw_train.build_parser().parse_args(argv)


@pytest.mark.slow
def test_dice_wars_training_resumes_exactly(tmp_path):
    straight, split = tmp_path / "a", tmp_path / "b"
    card = dw_train.train(_args(straight, 2))
    assert card["epochs"] == 2 and card["positions"] > 50
    # the second run reuses the stored games (same seeds, same chunks)
    (split / "games").mkdir(parents=True)
    for chunk in (straight / "games").iterdir():
        (split / "games" / chunk.name).write_bytes(chunk.read_bytes())
    dw_train.train(_args(split, 1))
    args = _args(split, 2)
    args.resume = True
    dw_train.train(args)
    a = load_torch(straight / "dice_wars_net.pt", "weights")["state_dict"]
    b = load_torch(split / "dice_wars_net.pt", "weights")["state_dict"]
    for key in a:
        assert torch.equal(a[key], b[key]), key
    rows = (straight / "metrics.csv").read_text().splitlines()
    assert len(rows) == 3 and (straight / "learning_curve.png").exists()
    # a checkpoint of another architecture is refused with what differs
    args = _args(split, 3, layers=2)
    args.resume = True
    with pytest.raises(ValueError, match="'layers': 1"):
        dw_train.train(args)


def test_split_keeps_games_apart():
    import numpy as np

    data = {"games": np.repeat(np.arange(20), 5)}
    train, val = dw_train.split(data, 0.25, 0)
    assert not set(data["games"][train]) & set(data["games"][val])
    assert len(set(data["games"][val])) == 5
