"""MCTS with a policy network's priors (``mcts:policy=``)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import plies  # noqa: E402
from plies.agents import make  # noqa: E402
from plies.agents.value_net import MLPPolicyNet, MLPValueNet  # noqa: E402
from plies.games.tictactoe import TicTacToeState  # noqa: E402
from plies.games.value_kernels import mlp_forward  # noqa: E402
from plies.training.common import save_weights  # noqa: E402


def _policy_file(tmp_path, game, favourite=None, hidden=8, seed=0, name="policy.pt"):
    """A policy network of ``game``; with ``favourite``, one whose logits put nearly all the
    mass on that action whatever the position."""
    state = plies.new_state(game)
    inputs = int(state.game.encode(state.array[None]).shape[1])
    torch.manual_seed(seed)
    model = MLPPolicyNet(game=game, inputs=inputs, actions=state.num_actions, hidden=[hidden])
    if favourite is not None:
        with torch.no_grad():
            model.layers[-1].weight.zero_()
            model.layers[-1].bias.zero_()
            model.layers[-1].bias[favourite] = 12.0
    path = tmp_path / name
    save_weights(model, path, {"test": True})
    return path, model


def test_the_compiled_logits_are_the_torch_logits(tmp_path):
    _, model = _policy_file(tmp_path, "connect_four", hidden=16, seed=3)
    game = plies.get_game("connect_four")
    rng = np.random.default_rng(0)
    params = model.flat_params()
    for _ in range(20):
        state = plies.new_state("connect_four")
        for _ in range(rng.integers(0, 20)):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_actions())))
        x = np.zeros(game.encode(state.array[None]).shape[1])
        game.features_into(state.array, x)
        with torch.no_grad():
            expected = model(torch.from_numpy(x[None].astype(np.float32)))[0].numpy()
        np.testing.assert_allclose(mlp_forward(x, params), expected, atol=1e-5)


def test_the_policy_steers_the_visits(tmp_path):
    # the empty board; a policy that wants the corner 8 sends most visits there, where the
    # plain search spreads them
    path, _ = _policy_file(tmp_path, "tictactoe", favourite=8)
    state = TicTacToeState()
    steered = make(f"mcts:simulations=200,eval=lines,policy={path}", seed=0).visit_counts(state)
    plain = make("mcts:simulations=200,eval=lines", seed=0).visit_counts(state)
    assert sum(steered.values()) == 200
    assert steered[8] > 100 and steered[8] > 2 * plain[8]
    again = make(f"mcts:simulations=200,eval=lines,policy={path}", seed=0).visit_counts(state)
    assert again == steered  # seeded
    # a policy that wants a taken square gives it no visit: priors are over the legal actions
    taken, _ = _policy_file(tmp_path, "tictactoe", favourite=4, name="taken.pt")
    state.apply(4)
    counts = make(f"mcts:simulations=100,eval=lines,policy={taken}", seed=0).visit_counts(state)
    assert 4 not in counts and sum(counts.values()) == 100


def test_a_bad_policy_is_refused(tmp_path):
    path, _ = _policy_file(tmp_path, "connect_four")
    with pytest.raises(ValueError, match="policy= needs eval"):
        make(f"mcts:policy={path}")
    with pytest.raises(ValueError, match="take one"):
        make(f"mcts:eval=net,prior_temperature=0.1,policy={path}")
    with pytest.raises(ValueError, match="net"):
        make("mcts:eval=net,policy=lines").act(plies.new_state("connect_four"))
    # a value network is not a policy
    value = MLPValueNet(game="connect_four", inputs=85, hidden=[4])
    save_weights(value, tmp_path / "value.pt", {})
    with pytest.raises(ValueError, match="mlp_policy"):
        make(f"mcts:eval=net,policy={tmp_path / 'value.pt'}").act(plies.new_state("connect_four"))
    # another game's policy, another board size
    with pytest.raises(ValueError, match="tictactoe"):
        make(f"mcts:eval=lines,policy={path}").act(TicTacToeState())
    wide = plies.new_state("connect_four", width=8)
    with pytest.raises(ValueError, match="inputs|actions"):
        make(f"mcts:eval=threats,policy={path}").act(wide)
    state = plies.new_state("backgammon", seed=1)
    while state.is_chance_node():
        state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="without chance nodes"):
        make(f"mcts:simulations=10,eval=singleton,policy={path}", seed=0).act(state)


def test_the_shipped_othello_policy_plays_and_other_games_name_theirs_missing():
    state = plies.new_state("othello")
    counts = make("mcts:simulations=100,eval=net,policy=net", seed=0).visit_counts(state)
    assert sum(counts.values()) == 100 and set(counts) <= set(state.legal_actions())
    with pytest.raises(FileNotFoundError, match="train-policy connect_four"):
        make("mcts:simulations=10,eval=net,policy=net", seed=0).act(plies.new_state("connect_four"))


def test_a_policy_file_from_a_request_or_a_ladder_file_is_refused():
    from plies.agents.specs import UntrustedSpecError, check_untrusted

    with pytest.raises(UntrustedSpecError, match="names a file"):
        check_untrusted("mcts:eval=net,policy=evil.pt", "a web request")
    check_untrusted("mcts:eval=net,policy=net", "a web request")  # the shipped one is fine
