"""The compiled forms of the dice games' torch networks (``Game.net_kernels``): the same values
as the torch forward pass, checked parameters, and MCTS scoring its leaves with them."""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("torch")

from plies.agents.evaluator_specs import compiled_evaluator_for  # noqa: E402
from plies.agents.mcts import MCTSAgent  # noqa: E402
from plies.agents.value_net import build, cached_network  # noqa: E402
from plies.games.backgammon import features as bg_features  # noqa: E402
from plies.games.dice_wars import features as dw_features  # noqa: E402
from plies.games.registry import get_game  # noqa: E402


def positions(game_id: str, games: int, seed: int, every: int = 1) -> np.ndarray:
    """State arrays of random games, chance nodes included."""
    game = get_game(game_id)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(games):
        state = game.new_state(seed=int(rng.integers(2**30)))
        while not state.is_terminal():
            rows.append(state.array.copy())
            if state.is_chance_node():
                outcomes, probs = state.chance_outcomes()
                state.apply(int(rng.choice(outcomes, p=probs)))
            else:
                state.apply(int(rng.choice(state.legal_actions())))
    return np.array(rows[::every])


def compiled_values(kernel, states: np.ndarray, seats: int, params: np.ndarray) -> np.ndarray:
    return np.array([[kernel(row, seat, params) for seat in range(seats)] for row in states])


def float64_values(model, states: np.ndarray, seats: int) -> np.ndarray:
    """torch's values from a float64 copy of ``model``: the kernels compute in float64, so a
    float32 forward pass would only measure torch's rounding (on the shipped Dice Wars network
    usually 4e-6, but once 2e-4 in a fresh-clone CI run, cause not found)."""
    return copy.deepcopy(model).double().seat_values(states, seats, "cpu")


def small_network(arch: str, seed: int, **config):
    import torch

    torch.manual_seed(seed)
    model = build(arch, config)
    with torch.no_grad():  # weights far from the initial ones, so that every unit matters
        for tensor in model.parameters():
            tensor.normal_(0.0, 0.5)
    return model.eval()


@pytest.mark.parametrize("model", [
    "shipped", ("backgammon_contact_race", {"hidden": 7}),
    ("backgammon_contact_race", {"hidden": 5, "inputs": bg_features.INPUT_SIZE}),
    ("backgammon_contact_race", {"hidden": 6, "inputs": bg_features.INPUT_SIZE, "hidden2": 4}),
    ("backgammon_contact_race", {"hidden": 5, "inputs": bg_features.INPUT_SIZE, "hidden2": 3, "classes": 3}),
])
def test_backgammon_kernel_gives_the_torch_networks_values(model):
    model = cached_network("backgammon") if model == "shipped" else small_network(model[0], 3, **model[1])
    params = model.flat_params()
    bg_features.check_contact_race_params(params)
    states = positions("backgammon", 6, seed=1)
    assert (states[:, 0] == -1).any() and (states[:, 0] >= 0).any()  # rolls and moves both
    classes = bg_features.encode(states)[1]
    assert all((classes == k).any() for k in range(len(bg_features.CLASS_NAMES)))
    for scoring in (0, 1):  # single games, then gammons and backgammons counted
        states[:, 1] = scoring
        want = float64_values(model, states, 2)
        got = compiled_values(bg_features.contact_race_value, states, 2, params)
        np.testing.assert_allclose(got, want, atol=1e-6)
        np.testing.assert_allclose(model.seat_values(states, 2, "cpu"), want, atol=1e-3)  # float32 batches


@pytest.mark.parametrize("model", [
    "shipped", ("dice_wars_net", {"hidden": 6, "layers": 1}), ("dice_wars_net", {"hidden": 5, "layers": 0}),
])
def test_dice_wars_kernel_gives_the_torch_networks_values(model):
    model = cached_network("dice_wars") if model == "shipped" else small_network(model[0], 4, **model[1])
    params = model.flat_params()
    dw_features.check_gnn_params(params)
    states = positions("dice_wars", 1, seed=2, every=5)
    assert (states[:, 0] == -1).any()  # pending battles: scored as the expectation of both outcomes
    want = float64_values(model, states, 4)
    got = compiled_values(dw_features.gnn_value, states, 4, params)
    np.testing.assert_allclose(got, want, atol=1e-6)
    np.testing.assert_allclose(model.seat_values(states, 4, "cpu"), want, atol=1e-3)  # float32 batches


def gnn_sizes(hidden: float, layers: float, length: int) -> np.ndarray:
    params = np.zeros(length)
    params[:2] = hidden, layers
    return params


@pytest.mark.parametrize("check, params, message", [
    (bg_features.check_contact_race_params, np.full(10, 3.0), "parameters where"),
    (bg_features.check_contact_race_params, np.array([0.5, 3.0, 0.0, 2.0]), "hidden units"),
    (bg_features.check_contact_race_params, np.array([3.0, bg_features.INPUT_SIZE + 1.0, 0.0, 2.0]), "inputs"),
    (bg_features.check_contact_race_params, np.array([3.0, 4.0, -1.0, 2.0]), "second-layer units"),
    (bg_features.check_contact_race_params, np.array([3.0, 4.0, 2.5, 2.0]), "second-layer units"),
    (bg_features.check_contact_race_params, np.array([3.0, 4.0, 0.0, 4.0]), "classes"),
    (bg_features.check_contact_race_params,  # a one-layer length under a second layer's header
     np.r_[3.0, 4.0, 2.0, 2.0, np.zeros(bg_features.contact_race_param_count(3, 4) - 4)], "parameters where"),
    (bg_features.check_contact_race_params,  # two classes' length under a header of three
     np.r_[3.0, 4.0, 0.0, 3.0, np.zeros(bg_features.contact_race_param_count(3, 4) - 4)], "parameters where"),
    (bg_features.check_contact_race_params, np.zeros(5, np.float32), "float64"),
    (bg_features.check_contact_race_params, np.array([np.inf, 3.0, 0.0, 2.0]), "not finite"),
    (dw_features.check_gnn_params, gnn_sizes(np.inf, 1, 10), "not finite"),
    (dw_features.check_gnn_params, gnn_sizes(4, 99, 10), "rounds"),
    (dw_features.check_gnn_params, gnn_sizes(4, 1, dw_features.gnn_param_count(4, 1) + 1), "parameters where"),
])
def test_malformed_parameters_are_refused_before_a_kernel_reads_them(check, params, message):
    with pytest.raises(ValueError, match=message):
        check(params)


def test_non_finite_weights_are_refused():
    params = small_network("dice_wars_net", 0, hidden=3, layers=1).flat_params()
    params[-1] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        dw_features.check_gnn_params(params)


@pytest.mark.parametrize("game_id", ["backgammon", "dice_wars"])
def test_mcts_scores_its_leaves_with_the_shipped_network(game_id):
    state = get_game(game_id).new_state(seed=5)
    while state.is_chance_node():
        state.apply(int(state.chance_outcomes()[0][0]))
    evaluator = compiled_evaluator_for(state, "net")
    assert evaluator.kernel is next(iter(state.game.net_kernels.values())).kernel
    searched = MCTSAgent(simulations=60, eval="net", seed=3)
    counts = searched.visit_counts(state)
    assert sum(counts.values()) >= 59 and set(counts) <= set(state.legal_actions())
    again = MCTSAgent(simulations=60, eval="net", seed=3).visit_counts(state)
    rollouts = MCTSAgent(simulations=60, seed=3).visit_counts(state)
    assert again == counts and rollouts != counts  # the network, not random rollouts, scored them


def test_a_network_without_a_compiled_form_is_refused_with_the_way_out():
    state = get_game("backgammon").new_state(seed=1)
    while state.is_chance_node():
        state.apply(int(state.chance_outcomes()[0][0]))
    with pytest.raises(ValueError, match="no compiled form.*expectiminimax"):
        MCTSAgent(simulations=10, eval="td80").act(state)
