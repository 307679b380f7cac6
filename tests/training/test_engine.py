"""The training engine and the compiled networks: the games' encoders worked by hand, the
compiled value against torch's, TD(lambda) targets, a tiny run that learns, exact resume, and
the checks at the boundary."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import plies  # noqa: E402
from plies.agents import make  # noqa: E402
from plies.agents.value_net import MLPValueNet, load_value_net  # noqa: E402
from plies.evaluation import run_tournament  # noqa: E402
from plies.files import DamagedFileError  # noqa: E402
from plies.games.registry import game_ids, get_game, new_state  # noqa: E402
from plies.games.value_kernels import check_flat_params  # noqa: E402
from plies.training import engine  # noqa: E402
from plies.training.common import save_weights  # noqa: E402
from tests.processes import linux_only, live_members  # noqa: E402

NET_GAMES = [g for g in game_ids() if get_game(g).net_value is not None]


def _state(game, actions):
    s = plies.get_game(game).state_class.initial(np.random.default_rng(0))
    for a in actions:
        s.apply(a)
    return s


def test_the_board_games_declare_a_compiled_network():
    assert {"tictactoe", "connect_four", "othello", "nine_mens_morris"} <= set(NET_GAMES)


def test_tictactoe_inputs_by_hand():
    s = _state("tictactoe", [4, 0])  # X centre, O corner; X to move
    x = get_game("tictactoe").encode(s.array[None])[0]
    assert np.flatnonzero(x[:9]).tolist() == [4] and np.flatnonzero(x[9:]).tolist() == [0]
    s.apply(8)  # O to move: the planes swap sides
    x = get_game("tictactoe").encode(s.array[None])[0]
    assert np.flatnonzero(x[:9]).tolist() == [0] and np.flatnonzero(x[9:]).tolist() == [4, 8]


def test_connect_four_inputs_by_hand():
    s = _state("connect_four", [3, 3, 0])  # X: d1 and a1; O: d2; O to move
    x = get_game("connect_four").encode(s.array[None])[0]
    assert len(x) == 85
    # column by column, bottom first: d1 is 3 * 6 + 0 = 18, d2 is 19, a1 is 0
    assert np.flatnonzero(x[:42]).tolist() == [19]  # the mover (O)
    assert np.flatnonzero(x[42:84]).tolist() == [0, 18]
    assert x[84] == 0.0  # the mover is not the first player


def test_othello_inputs_by_hand():
    s = _state("othello", [])
    x = get_game("othello").encode(s.array[None])[0]
    # black (to move) has e4 and d5: squares 3 * 8 + 4 and 4 * 8 + 3
    assert np.flatnonzero(x[:64]).tolist() == [28, 35]
    assert np.flatnonzero(x[64:128]).tolist() == [27, 36]
    assert x[128] == pytest.approx(4 / 20) and x[129] == pytest.approx(4 / 20)


def test_nine_mens_morris_inputs_by_hand():
    s = _state("nine_mens_morris", [0])  # White places on point 0; Black to move
    x = get_game("nine_mens_morris").encode(s.array[None])[0]
    assert len(x) == 60 and not x[:24].any() and np.flatnonzero(x[24:48]).tolist() == [0]
    np.testing.assert_allclose(x[48:53], [9 / 9, 8 / 9, 0, 1 / 9, 0], rtol=1e-6)
    # the heuristic's differences, Black's view: one stone fewer (stones count the hand too)
    assert x[53] == pytest.approx(0.0) and x[59] == pytest.approx(1 / 100)  # 1 turn of the 100 without a mill


@pytest.mark.parametrize("game", NET_GAMES)
def test_compiled_value_equals_torch(game):
    rng = np.random.default_rng(1)
    s = new_state(game, seed=0)
    for _ in range(7):
        s.apply(int(rng.choice(s.legal_actions())))
    x = get_game(game).encode(s.array[None])
    torch.manual_seed(0)
    model = MLPValueNet(game=game, inputs=x.shape[1], hidden=[16, 8])
    expected = float(model(torch.from_numpy(x))[0].detach())
    params = model.flat_params()
    mover = s.current_player
    assert get_game(game).net_value(s.array, mover, params) == pytest.approx(expected, abs=1e-6)
    assert get_game(game).net_value(s.array, 1 - mover, params) == pytest.approx(-expected, abs=1e-6)


def test_flat_params_are_checked_before_any_kernel_reads_them():
    model = MLPValueNet(game="tictactoe", inputs=18, hidden=[4])
    params = model.flat_params()
    check_flat_params(params, 18)
    with pytest.raises(ValueError, match="takes 18 inputs; this game's encoder gives 85"):
        check_flat_params(params, 85)
    with pytest.raises(ValueError, match="parameters where"):
        check_flat_params(params[:-1], 18)
    bad = params.copy()
    bad[0] = 40
    with pytest.raises(ValueError, match="layer count"):
        check_flat_params(bad, 18)


def test_lambda_targets_by_hand():
    # one game of three positions, movers 0, 1, 0; seat 0 won
    values = np.array([0.2, -0.4, 0.9])
    movers = np.array([0, 1, 0])
    game_of = np.zeros(3, np.int64)
    results = np.array([1.0])
    t = engine.lambda_targets(values, movers, game_of, results, 0.5)
    g2 = 0.5 * 0.9 + 0.5 * 1.0
    g1 = 0.5 * -0.4 + 0.5 * -g2
    g0 = 0.5 * 0.2 + 0.5 * -g1
    np.testing.assert_allclose(t, [g0, g1, g2])
    np.testing.assert_allclose(engine.lambda_targets(values, movers, game_of, results, 1.0), [1, -1, 1])
    np.testing.assert_allclose(engine.lambda_targets(values, movers, game_of, results, 0.0), values)


def test_selfplay_keeps_every_position_of_finished_games():
    model = MLPValueNet(game="connect_four", inputs=85, hidden=[8])
    out = engine.selfplay("connect_four", {}, model.flat_params(), 20, 0.1, 2, (0, 0, 0))
    assert not np.isnan(out["results"]).any() and set(np.unique(out["results"])) <= {-1.0, 0.0, 1.0}
    lengths = np.bincount(out["game_of"], minlength=20)
    assert lengths.min() >= 7 and lengths.sum() == len(out["positions"])
    # the positions are real: replaying any game's actions is not needed, each row is a legal state
    assert np.all(out["positions"][:, 0] == out["movers"])


def test_the_batched_numpy_pass_is_the_torch_network():
    from plies.games.value_kernels import mlp_forward_rows

    torch.manual_seed(2)
    model = MLPValueNet(game="othello", inputs=130, hidden=[16, 8])
    x = (np.random.default_rng(0).random((50, 130)) < 0.3).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(mlp_forward_rows(x, model.flat_params()), expected, atol=1e-6)


def test_selfplay_values_are_the_searches_network_values_and_seeded():
    # each kept value is the mover's best 1-ply value by the compiled net_value the searches run
    from plies.games.registry import get_game, state_class

    torch.manual_seed(1)
    model = MLPValueNet(game="connect_four", inputs=85, hidden=[8])
    params = model.flat_params()
    out = engine.selfplay("connect_four", {}, params, 6, 0.1, 2, (0, 1, 0))
    game, cls = get_game("connect_four"), state_class("connect_four")
    for row, value, mover in zip(out["positions"][::7], out["values"][::7], out["movers"][::7]):
        state = cls(row.copy())
        best = -2.0
        for action in state.legal_actions():
            child = state.clone()
            child.apply(int(action))
            v = child.returns()[mover] if child.is_terminal() else game.net_value(child.array, int(mover), params)
            best = max(best, v)
        assert value == pytest.approx(best, abs=1e-5)
    again = engine.selfplay("connect_four", {}, params, 6, 0.1, 2, (0, 1, 0))
    for key in out:
        np.testing.assert_array_equal(again[key], out[key])


def _args(run, rounds, *extra):
    return engine.build_parser("tictactoe").parse_args(
        ["--run", str(run), "--rounds", str(rounds), "--round-games", "100", "--hidden", "16",
         "--workers", "1", "--eval-every", "0", "--quiet", "--lr", "0.003", "--window", "2", *extra])


def test_a_tiny_run_learns(tmp_path):
    card = engine.train("tictactoe", _args(tmp_path, 25))
    rows = (tmp_path / "metrics.csv").read_text().splitlines()[1:]
    losses = [float(r.split(",")[3]) for r in rows]
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5])
    weights = tmp_path / "tictactoe_net.pt"
    assert card["self_play_games"] == 2500
    result = run_tournament("tictactoe", [f"alphabeta:depth=1,eval={weights}", "random"], 100, seed=3,
                            workers=1, progress=False)
    spec = f"alphabeta:depth=1,eval={weights}"
    points = sum(1.0 if r.returns[r.seats.index(spec)] > 0 else 0.5 if r.returns[r.seats.index(spec)] == 0
                 else 0.0 for r in result.records)
    assert points / 100 > 0.7


def test_resume_is_exact(tmp_path):
    engine.train("tictactoe", _args(tmp_path / "straight", 4))
    engine.train("tictactoe", _args(tmp_path / "split", 2))
    engine.train("tictactoe", _args(tmp_path / "split", 4, "--resume"))
    a = load_value_net(tmp_path / "straight" / "tictactoe_net.pt", "tictactoe").state_dict()
    b = load_value_net(tmp_path / "split" / "tictactoe_net.pt", "tictactoe").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="pass --resume"):
        engine.train("tictactoe", _args(tmp_path / "split", 6))
    with pytest.raises(ValueError, match="--epsilon"):
        engine.train("tictactoe", _args(tmp_path / "split", 6, "--resume", "--epsilon", "0.2"))


def test_the_engine_refuses_games_it_cannot_train(tmp_path):
    with pytest.raises(ValueError, match="two-player zero-sum games without chance"):
        engine.SelfPlayRecipe().check_args(get_game("backgammon"), _args(tmp_path, 1))
    with pytest.raises(ValueError, match="--lam"):
        engine.train("tictactoe", _args(tmp_path, 1, "--lam", "2"))
    with pytest.raises(ValueError, match="--hidden"):
        engine.train("tictactoe", _args(tmp_path, 1, "--hidden", "0"))


@pytest.fixture()
def tictactoe_net(tmp_path):
    torch.manual_seed(0)
    model = MLPValueNet(game="tictactoe", inputs=18, hidden=[8])
    path = tmp_path / "ttt.pt"
    save_weights(model, path, {"note": "test"})
    return path


@pytest.mark.parametrize("spec", ["alphabeta:depth=3", "mcts:simulations=100", "expectiminimax:depth=2"])
def test_every_search_takes_the_network(spec, tictactoe_net):
    s = _state("tictactoe", [4])
    agent = make(f"{spec},eval={tictactoe_net}", seed=0)
    assert agent.act(s) in s.legal_actions()


def test_mcts_scores_leaves_by_the_evaluation():
    # O to move must block X's row 0-1-2: MCTS with the heuristic at the leaves finds it at once
    s = _state("tictactoe", [0, 4, 1])
    agent = make("mcts:simulations=60,eval=lines", seed=0)
    assert agent.act(s) == 2


def test_a_network_of_another_game_is_refused(tictactoe_net, tmp_path):
    s = _state("connect_four", [3])
    with pytest.raises(ValueError, match="holds a tictactoe network, not one for connect_four"):
        make(f"alphabeta:depth=2,eval={tictactoe_net}", seed=0).act(s)
    damaged = tmp_path / "damaged.pt"
    damaged.write_bytes(tictactoe_net.read_bytes()[:-10])
    with pytest.raises(DamagedFileError):
        make(f"alphabeta:depth=2,eval={damaged}", seed=0)


def test_the_cli_trains_any_declared_game(tmp_path, capsys):
    from plies.cli import main

    code = main(["train", "tictactoe", "--run", str(tmp_path), "--rounds", "2", "--round-games", "20",
                 "--workers", "1", "--eval-every", "2", "--eval-games", "4", "--eval-depth", "1", "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert "40 games" in out and "depth 1 vs alphabeta:depth=1, 4 games, round 2" in out
    assert (tmp_path / "tictactoe_net.json").exists() and (tmp_path / "learning_curve.png").exists()
    assert main(["train", "chess"]) == 2


@linux_only
@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_a_stopped_training_run_says_so_ends_its_workers_and_resumes(tmp_path, stop):
    # Ctrl-C reaches the trainer and its workers (the terminal's process group); SIGTERM (`kill
    # PID`, a batch system's limit) the trainer alone, which must end its workers itself
    import os
    import signal
    import subprocess
    import sys
    import time

    from plies.cli import main

    options = ["--run", str(tmp_path), "--round-games", "20", "--eval-every", "1000", "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "plies.cli", "train", "tictactoe", "--rounds", "1000",
                             "--workers", "2", *options], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    metrics = tmp_path / "metrics.csv"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if metrics.exists() and len(metrics.read_text().splitlines()) >= 3:
            break
    assert proc.poll() is None, proc.stderr.read()
    if stop == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=60)
        deadline = time.time() + 30
        # the workers end with the trainer (stopped by it, or by their own watch on it)
        while live_members(proc.pid) and time.time() < deadline:
            time.sleep(0.1)
        assert not live_members(proc.pid), "worker processes outlived the stopped trainer"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    err = proc.stderr.read()
    assert proc.returncode == (130 if stop == "ctrl-c" else 143), err
    assert f"interrupted: the last checkpoint is in {tmp_path}" in err and "--resume" in err
    assert "Traceback" not in err, err  # nor from the workers
    # the checkpoint says how far the run got (a metrics row is written just before its checkpoint)
    from plies.training.common import load_checkpoint

    recipe = engine.recipe_of(get_game("tictactoe"))
    done = load_checkpoint(tmp_path / "checkpoint.pt", "tictactoe", recipe.arch)["progress"]["round"]
    rows = metrics.read_text().splitlines()[:done + 1]
    assert done >= 1
    assert main(["train", "tictactoe", "--rounds", str(done + 1), "--workers", "2", *options, "--resume"]) == 0
    resumed = metrics.read_text().splitlines()
    assert resumed[:done + 1] == rows and len(resumed) == done + 2
    assert resumed[-1].split(",")[0] == str(done + 1)


def test_a_damaged_replay_stops_the_resume(tmp_path):
    engine.train("tictactoe", _args(tmp_path, 2))
    (tmp_path / "replay.npz").write_bytes(b"not a replay")
    with pytest.raises(DamagedFileError, match="cannot resume exactly"):
        engine.train("tictactoe", _args(tmp_path, 3, "--resume"))


def test_a_checkpoint_whose_parts_do_not_fit_stops_the_resume_before_the_metrics_change(tmp_path):
    from plies.files import load_torch, save_torch

    engine.train("tictactoe", _args(tmp_path, 2))
    checkpoint, metrics = tmp_path / "checkpoint.pt", tmp_path / "metrics.csv"
    good, rows = load_torch(checkpoint, "checkpoint"), metrics.read_bytes()

    def progress(value):
        return lambda p: p["progress"].update({key: value for key in p["progress"] if key != "figures"})

    for change, message in (
        (progress(-5), "progress 'round' is -5"), (progress(2.5), "not a whole number"),
        (lambda p: p.update(progress={}), "no 'round' counter"),
        (lambda p: p["rng"].update(torch=torch.zeros(3, dtype=torch.uint8)), "damaged checkpoint"),
        (lambda p: p["state_dict"].update({k: v[:1] for k, v in list(p["state_dict"].items())[:1]}), "size mismatch"),
        (lambda p: next(iter(p["state_dict"].values())).fill_(float("nan")), "not all finite"),
    ):
        payload = {**good, "progress": dict(good["progress"]), "rng": dict(good["rng"]),
                   "state_dict": {k: v.clone() for k, v in good["state_dict"].items()}}
        change(payload)
        save_torch(payload, checkpoint, "checkpoint")
        with pytest.raises(DamagedFileError, match=message):
            engine.train("tictactoe", _args(tmp_path, 3, "--resume"))
        assert metrics.read_bytes() == rows  # nothing the run wrote was cut back
    save_torch(good, checkpoint, "checkpoint")
    engine.train("tictactoe", _args(tmp_path, 3, "--resume"))
    assert len(metrics.read_text().splitlines()) == 4


@pytest.mark.parametrize("game,least", [("connect_four", 7), ("othello", 7), ("nine_mens_morris", 7),
                                        ("tictactoe", 6)])  # Tic-Tac-Toe: random play draws some
def test_the_shipped_network_plays_its_game(game, least):
    from plies.agents.value_net import shipped_weights

    if not shipped_weights(game).exists():
        pytest.skip(f"no shipped {game} network")
    card = load_value_net(shipped_weights(game), game)
    assert card.arch == "mlp_value"
    spec = "alphabeta:depth=2,eval=net"
    result = run_tournament(game, [spec, "random"], 8, seed=5, workers=1, progress=False, opening_plies=2)
    wins = sum(r.returns[r.seats.index(spec)] > 0 for r in result.records)
    assert wins >= least


@pytest.mark.slow
def test_ray_and_processes_train_the_same_network(tmp_path):
    pytest.importorskip("ray")
    engine.train("tictactoe", _args(tmp_path / "processes", 2, "--workers", "2"))
    engine.train("tictactoe", _args(tmp_path / "ray", 2, "--workers", "2", "--backend", "ray"))
    a = load_value_net(tmp_path / "processes" / "tictactoe_net.pt", "tictactoe").state_dict()
    b = load_value_net(tmp_path / "ray" / "tictactoe_net.pt", "tictactoe").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_users_game_trains_in_worker_processes(tmp_path, monkeypatch):
    from plies.games import registry

    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))  # unregistered afterwards
    registry.register_game("signed_tictactoe", "tests.training.user_game:GAME")
    args = _args(tmp_path, 2, "--workers", "2", "--eval-every", "2", "--eval-games", "4", "--eval-depth", "2")
    card = engine.train("signed_tictactoe", args)
    assert card["self_play_games"] == 400 and card["arch_config"]["inputs"] == 9
    model = load_value_net(tmp_path / "signed_tictactoe_net.pt", "signed_tictactoe")
    assert model.config["game"] == "signed_tictactoe"


def test_plies_train_runs_the_recipe_a_game_declares(tmp_path, monkeypatch):
    from plies.cli import main
    from plies.games import registry
    from plies.games.game import Game
    from plies.training import backgammon, dice_wars
    from tests.training import user_game

    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))  # unregistered afterwards
    registry.register_game("own_trainer_tictactoe", "tests.training.user_game:OWN_TRAINER_GAME")
    options = ["--run", str(tmp_path), "--round-games", "10", "--workers", "1", "--eval-every", "0",
               "--hidden", "8", "--quiet"]
    assert main(["train", "own_trainer_tictactoe", "--rounds", "2", *options]) == 0
    assert main(["train", "own_trainer_tictactoe", "--rounds", "3", "--resume", *options]) == 0
    rows = (tmp_path / "metrics.csv").read_text().splitlines()
    assert rows[0].endswith(",user_rounds") and [r.split(",")[-1] for r in rows[1:]] == ["1", "2", "3"]
    assert (tmp_path / "own_trainer_tictactoe_net.pt").exists()
    # plies's two games with their own rounds are configurations of the same engine
    assert engine.recipe_of(registry.get_game("backgammon")) is backgammon.RECIPE
    assert engine.recipe_of(registry.get_game("dice_wars")) is dice_wars.RECIPE
    assert isinstance(engine.recipe_of(registry.get_game("tictactoe")), engine.SelfPlayRecipe)
    fields = {name: getattr(user_game.GAME, name) for name in Game.__dataclass_fields__}
    with pytest.raises(ValueError, match="module:NAME"):
        Game(**{**fields, "id": "bad_trainer", "trainer": "no colon here"})
    own_class = type("NotARecipeState", (user_game.SignedTicTacToe,), {"__slots__": ()})
    not_a_recipe = Game(**{**fields, "id": "not_a_recipe", "state_class": own_class,
                           "trainer": "tests.training.user_game:encode"})
    with pytest.raises(ValueError, match="is not a training Recipe"):
        engine.recipe_of(not_a_recipe)


def test_a_run_killed_during_an_evaluation_resumes_exactly(tmp_path, monkeypatch):
    # the replay window (--window 2) is written with the checkpoint, after the evaluation
    def quick(game, weights, *rest):
        return 0.5, 2

    def killed_at_round_4(game, weights, *rest):
        if "net_00004" in str(weights):
            raise KeyboardInterrupt
        return 0.5, 2

    monkeypatch.setattr(engine, "evaluate", quick)
    engine.train("tictactoe", _args(tmp_path / "straight", 6, "--eval-every", "2"))
    monkeypatch.setattr(engine, "evaluate", killed_at_round_4)
    with pytest.raises(KeyboardInterrupt):
        engine.train("tictactoe", _args(tmp_path / "split", 6, "--eval-every", "2"))
    monkeypatch.setattr(engine, "evaluate", quick)
    engine.train("tictactoe", _args(tmp_path / "split", 6, "--eval-every", "2", "--resume"))
    a = load_value_net(tmp_path / "straight" / "tictactoe_net.pt", "tictactoe").state_dict()
    b = load_value_net(tmp_path / "split" / "tictactoe_net.pt", "tictactoe").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    rounds = [r.split(",")[0] for r in (tmp_path / "split" / "metrics.csv").read_text().splitlines()[1:]]
    assert rounds == ["1", "2", "3", "4", "5", "6"]


@pytest.mark.parametrize("window", ["2", "3"])
def test_a_run_stopped_between_its_replay_and_its_checkpoint_resumes_exactly(tmp_path, monkeypatch, window):
    # the replay of round 4 is written, the checkpoint still holds round 3
    engine.train("tictactoe", _args(tmp_path / "straight", 6, "--window", window))
    save = engine.Run.save_checkpoint

    def stopped_at_round_4(run):
        if run.progress["round"] == 4:
            raise KeyboardInterrupt
        save(run)

    monkeypatch.setattr(engine.Run, "save_checkpoint", stopped_at_round_4)
    with pytest.raises(KeyboardInterrupt):
        engine.train("tictactoe", _args(tmp_path / "split", 6, "--window", window))
    monkeypatch.setattr(engine.Run, "save_checkpoint", save)
    with np.load(tmp_path / "split" / "replay.npz") as replay:
        assert int(replay["round"]) == 4
    engine.train("tictactoe", _args(tmp_path / "split", 6, "--window", window, "--resume"))
    a = load_value_net(tmp_path / "straight" / "tictactoe_net.pt", "tictactoe").state_dict()
    b = load_value_net(tmp_path / "split" / "tictactoe_net.pt", "tictactoe").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
