"""``plies train-policy``: children's values, prior targets, a short distillation that learns."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import plies  # noqa: E402
from plies.agents.value_net import MLPValueNet, load_value_net  # noqa: E402
from plies.games.tictactoe import TicTacToeState  # noqa: E402
from plies.training import policy  # noqa: E402
from plies.training.common import save_weights  # noqa: E402


def _value_file(tmp_path, game="tictactoe", seed=0):
    state = plies.new_state(game)
    torch.manual_seed(seed)
    model = MLPValueNet(game=game, inputs=int(state.game.encode(state.array[None]).shape[1]), hidden=[8])
    path = tmp_path / "value.pt"
    save_weights(model, path, {})
    return path, model


def test_prior_targets_by_hand():
    values = np.array([[0.0, np.nan, np.log(3) * 0.5], [np.nan, 0.2, np.nan]])
    targets = policy.prior_targets(values, 0.5)
    np.testing.assert_allclose(targets[0], [0.25, 0.0, 0.75])
    np.testing.assert_allclose(targets[1], [0.0, 1.0, 0.0])
    tiny = policy.prior_targets(np.array([[0.5, 0.4, np.nan]]), 1e-300)  # the best alone, no NaN
    np.testing.assert_array_equal(tiny, [[1.0, 0.0, 0.0]])


def test_child_values_score_each_legal_action_for_the_mover(tmp_path):
    _, model = _value_file(tmp_path)
    game = plies.get_game("tictactoe")
    state = TicTacToeState.from_string("XX./OO./...")  # X to move: 2 wins at once
    params = model.flat_params()
    values = policy.child_values(game, state.array[None].copy(), params, 9, 9)
    legal = list(state.legal_actions())
    assert np.isnan(values[0, [0, 1, 3, 4]]).all() and not np.isnan(values[0, legal]).any()
    assert values[0, 2] == 1.0
    for action in legal:
        if action == 2:
            continue
        child = state.clone()
        child.apply(action)
        with torch.no_grad():  # the network's value for O, the side to move there, negated for X
            v = float(model(torch.from_numpy(game.encode(child.array[None])))[0])
        assert values[0, action] == pytest.approx(-v, abs=1e-5)


def test_a_short_distillation_learns_the_priors(tmp_path):
    value, _ = _value_file(tmp_path, seed=1)
    game = plies.get_game("tictactoe")
    data = policy.policy_data(game, str(value), 400, 0.1, 0.2, 2, seed=0)
    assert len(data["x"]) > 1000
    np.testing.assert_allclose(data["targets"].sum(axis=1), 1.0, atol=1e-5)
    assert (data["targets"][~data["legal"]] == 0).all()
    untrained, before = policy.fit_policy(data, game, [32], 0, 64, 3e-3, seed=0)
    trained, after = policy.fit_policy(data, game, [32], 15, 64, 3e-3, seed=0)
    assert after["kl"] < 0.5 * before["kl"]
    assert after["top1"] > 0.7 and after["top1"] > before["top1"] + 0.2


def test_the_command_writes_weights_mcts_can_take(tmp_path):
    value, _ = _value_file(tmp_path)
    out = tmp_path / "p.pt"
    argv = ["tictactoe", "--value", str(value), "--games", "60", "--epochs", "2", "--out", str(out), "--quiet"]
    assert policy.main(argv) == 0
    card = load_value_net(out, "tictactoe")
    assert card.arch == "mlp_policy" and card.config["actions"] == 9
    from plies.agents import make
    assert make(f"mcts:simulations=50,eval=lines,policy={out}", seed=0).act(TicTacToeState()) in range(9)
    again = tmp_path / "q.pt"
    assert policy.main([*argv[:-2], str(again), "--quiet"]) == 0  # a function of its seed
    a, b = load_value_net(out, "tictactoe"), load_value_net(again, "tictactoe")
    for key, tensor in a.state_dict().items():
        torch.testing.assert_close(tensor, b.state_dict()[key], rtol=0, atol=0)


@pytest.mark.parametrize("argv,match", [(["backgammon"], "chance"), (["tictactoe", "--games", "0"], "--games"),
                                        (["tictactoe", "--temperature", "0"], "--temperature"),
                                        (["tictactoe", "--value", "lines"], "--value")])
def test_bad_requests_are_refused(argv, match, capsys):
    assert policy.main([*argv, "--quiet"]) == 2
    assert match in capsys.readouterr().err
