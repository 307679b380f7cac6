"""Value networks: encodings, the batched Evaluator inside expectiminimax, the eval=net hook."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from plies.agents import value_net  # noqa: E402
from plies.agents.expectiminimax import ExpectiminimaxAgent, analyse  # noqa: E402
from plies.agents.value_net import (  # noqa: E402
    BackgammonNet,
    DiceWarsNet,
    NetEvaluator,
    load_value_net,
)
from plies.files import DamagedFileError, save_torch  # noqa: E402
from plies.games.backgammon import rules as bg_rules  # noqa: E402
from plies.games.backgammon.features import td_gammon_encode  # noqa: E402
from plies.games.backgammon.state import BackgammonState  # noqa: E402
from plies.games.dice_wars import rules as dw_rules  # noqa: E402
from plies.games.dice_wars.probabilities import ATTACK_WIN  # noqa: E402
from plies.games.dice_wars.state import DiceWarsState  # noqa: E402
from plies.games.state import sample_chance  # noqa: E402
from plies.training.common import save_checkpoint, save_weights  # noqa: E402


def counting(model):
    """Counts forward passes and the rows they were given."""
    seen = []
    model.register_forward_hook(lambda module, args, out: seen.append(args[0].shape[0]))
    return seen


def bg_position(seed: int = 0) -> BackgammonState:
    rng = np.random.default_rng(seed)
    state = BackgammonState()
    while state.is_chance_node():
        state.apply(sample_chance(state, rng))
    return state


def test_dice_wars_search_scores_all_leaves_in_one_forward_pass():
    torch.manual_seed(0)
    model = DiceWarsNet(hidden=8, layers=1)
    seen = counting(model)
    evaluator = NetEvaluator(model)
    state = DiceWarsState.initial(np.random.default_rng(1))
    stats = np.zeros(3, np.int64)
    values, actions, _, _ = analyse(state, depth=2, evaluator=evaluator, limit=3, chance_limit=1,
                                    stats=stats)
    assert len(seen) == 1 and evaluator.calls == 1
    assert seen[0] == stats[2] > len(actions)  # every leaf of the search, in that one batch
    assert values.shape == (len(actions), 4) and np.all(np.abs(values) < 1)


def test_backgammon_one_ply_values_are_the_nets_values_of_the_afterstates():
    torch.manual_seed(0)
    model = BackgammonNet(hidden=16)
    seen = counting(model)
    state = bg_position(3)
    values, _, paths, use_turns = analyse(state, depth=1, evaluator=NetEvaluator(model))
    assert use_turns and len(seen) == 1
    rows, _ = state.afterstates()
    mover = state.current_player
    x = td_gammon_encode(rows, np.full(len(rows), 1 - mover))
    with torch.no_grad():
        p = model(torch.from_numpy(x)).numpy()
    expected = -(2.0 * p[:, 0] - 1.0)  # the roller's equity, turned to the mover's view
    # the search lists the same afterstates; compare as sets of (value) per board
    np.testing.assert_allclose(np.sort(values[:, mover]), np.sort(expected), atol=1e-5)


def test_dice_wars_probabilities_cover_the_seats_alive_and_follow_relabelling():
    torch.manual_seed(1)
    model = DiceWarsNet(hidden=8, layers=2).eval()
    state = DiceWarsState.initial(np.random.default_rng(5))
    s = state.array.copy()
    n = s[dw_rules.NUM_AREAS]
    s[dw_rules.AREAS:dw_rules.AREAS + n][s[dw_rules.AREAS:dw_rules.AREAS + n] == 2] = 1  # seat 2 out
    values = model.seat_values(s[None], 4, "cpu")[0]
    p = (values + 1) / 2
    assert p[2] == pytest.approx(0.0, abs=1e-6) and p.sum() == pytest.approx(1.0, abs=1e-5)
    # rotating every seat label (owners and the turn) rotates the predictions
    r = state.array.copy()
    r[dw_rules.AREAS:dw_rules.AREAS + n] = (r[dw_rules.AREAS:dw_rules.AREAS + n] + 1) % 4
    r[dw_rules.TURN] = (r[dw_rules.TURN] + 1) % 4
    r[0] = r[dw_rules.TURN]
    a = model.seat_values(state.array[None], 4, "cpu")[0]
    b = model.seat_values(r[None], 4, "cpu")[0]
    np.testing.assert_allclose(np.roll(a, 1), b, atol=1e-5)


def test_pending_battle_is_the_expectation_over_its_outcomes():
    torch.manual_seed(2)
    model = DiceWarsNet(hidden=8, layers=1).eval()
    state = DiceWarsState.initial(np.random.default_rng(7))
    attack = next(a for a in state.legal_actions() if a != state.end_turn_action)
    src, tgt = divmod(int(attack), state.num_areas)
    before = state.array.copy()
    state.apply(int(attack))
    assert state.is_chance_node()
    n = state.num_areas
    won, lost = before.copy(), before.copy()
    won[dw_rules.AREAS + n + src] = lost[dw_rules.AREAS + n + src] = 1
    won[dw_rules.AREAS + tgt] = before[dw_rules.TURN]
    won[dw_rules.AREAS + n + tgt] = before[dw_rules.AREAS + n + src] - 1
    p = ATTACK_WIN[before[dw_rules.AREAS + n + src], before[dw_rules.AREAS + n + tgt]]
    rows = np.stack([state.array, before, won, lost])
    v = model.seat_values(rows, 4, "cpu")
    np.testing.assert_allclose(v[0], p * v[2] + (1 - p) * v[3], atol=1e-5)


def test_td_gammon_inputs_decode_to_the_board():
    state = bg_position(0)
    x = td_gammon_encode(state.array[None])[0]
    mover = state.current_player
    for side, seat in enumerate((mover, 1 - mover)):
        units = x[side * 98: side * 98 + 96].reshape(24, 4)
        counts = units[:, 0] + units[:, 1] + units[:, 2] + 2 * units[:, 3]
        np.testing.assert_allclose(counts, state.checkers(seat)[1:25])
    assert x[196] == 1.0 and x.shape == (198,)


def test_eval_net_specs_load_a_weights_file(tmp_path):
    from plies.agents.specs import make

    torch.manual_seed(0)
    path = tmp_path / "bg.pt"
    save_weights(BackgammonNet(hidden=8), path, {"note": "test"})
    agent = make(f"expectiminimax:depth=1,eval={path}", seed=0)
    state = bg_position(1)
    assert agent.act(state) in state.legal_actions()
    # the same file is not a Dice Wars network
    with pytest.raises(ValueError, match="backgammon network, not one for dice_wars"):
        load_value_net(path, "dice_wars")
    dw = make(f"dw_expectiminimax:depth=1,eval={path}", seed=0)
    with pytest.raises(ValueError, match="not one for dice_wars"):
        dw.act(DiceWarsState.initial(np.random.default_rng(0)))
    # a training checkpoint plays as its network; a plies file of another kind is refused
    model = BackgammonNet(hidden=8)
    save_checkpoint(tmp_path / "checkpoint.pt", model, None, {}, {"games": 0}, np.random.default_rng(0))
    from_checkpoint = make(f"expectiminimax:depth=1,eval={tmp_path / 'checkpoint.pt'}", seed=0)
    assert from_checkpoint.act(state) in state.legal_actions()
    save_torch({"x": 1}, tmp_path / "other.pt", "other")
    with pytest.raises(DamagedFileError, match="not a weights or checkpoint"):
        make(f"expectiminimax:depth=1,eval={tmp_path / 'other.pt'}", seed=0)


def test_missing_weights_and_missing_torch_say_what_to_do(monkeypatch, tmp_path):
    with pytest.raises(FileNotFoundError, match="no network weights"):
        value_net.net_evaluator("backgammon", tmp_path / "none.pt")
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r'pip install "plies\[nn\]"'):
        value_net.require_torch()


def test_shipped_networks_load_when_present():
    for game in ("backgammon", "dice_wars"):
        path = value_net.shipped_weights(game)
        if not path.exists():
            continue
        model = load_value_net(path, game)
        assert model.game == game
        assert path.stat().st_size < 2_000_000  # a shipped network stays under 2 MB (issue 25: the contact and race networks together)
        assert path.with_suffix(".json").exists()  # its card: command, games, time


def test_each_shipped_backgammon_card_describes_its_network():
    for name in value_net.shipped_names("backgammon"):
        path = value_net.shipped_weights("backgammon", name)
        card = json.loads(path.with_suffix(".json").read_text())
        model = load_value_net(path, "backgammon")
        assert (card["arch"], card["arch_config"]) == (model.arch, model.config), name


def test_shipped_backgammon_weights_stay_under_two_megabytes_in_all():
    sizes = [value_net.shipped_weights("backgammon", name).stat().st_size
             for name in value_net.shipped_names("backgammon")]
    assert len(sizes) >= 4 and sum(sizes) < 2_000_000


def test_shipped_dice_wars_net_favours_the_seat_that_owns_the_map():
    path = value_net.shipped_weights("dice_wars")
    if not path.exists():
        pytest.skip("no shipped Dice Wars network")
    model = load_value_net(path, "dice_wars")
    state = DiceWarsState.initial(np.random.default_rng(11))
    s = state.array.copy()
    n = s[dw_rules.NUM_AREAS]
    owners = s[dw_rules.AREAS:dw_rules.AREAS + n]
    owners[:] = 2
    owners[:3] = [0, 1, 3]  # the other seats keep one area each
    p = (model.seat_values(s[None], 4, "cpu")[0] + 1) / 2
    assert p[2] > 0.8 and p.argmax() == 2


@pytest.mark.parametrize("name", ["net", "cr2240k", "cr600k", "cr400k", "td80"])
def test_shipped_backgammon_net_knows_a_won_race(name):
    path = value_net.shipped_weights("backgammon", name)
    if not path.exists():
        pytest.skip(f"no shipped backgammon network {name!r}")
    model = load_value_net(path, "backgammon")
    s = bg_rules.initial_array(0)
    s[bg_rules.BOARD:bg_rules.BOARD + 2 * bg_rules.SIDE] = 0
    s[bg_rules.BOARD + bg_rules.OFF] = 13  # seat 0: two checkers left on its 1-point
    s[bg_rules.BOARD + 1] = 2
    s[bg_rules.BOARD + bg_rules.SIDE + 6] = 15  # seat 1: all fifteen on its 6-point
    s[bg_rules.PLAYER] = -1
    s[bg_rules.ROLLER] = 0
    s[bg_rules.ROLLS] = 1
    values = model.seat_values(s[None], 2, "cpu")[0]
    assert values[0] > 0.8 and values[1] < -0.8


def test_earlier_shipped_networks_are_named_in_specs():
    assert {"td80", "cr400k", "cr600k", "cr2240k"} <= set(value_net.shipped_names("backgammon"))
    state = BackgammonState()
    agent = ExpectiminimaxAgent(depth=1, eval="td80")
    state.apply(sample_chance(state, np.random.default_rng(0)))
    assert agent.act(state) in state.legal_actions()
    with pytest.raises(ValueError, match="shipped networks: .*td80"):
        ExpectiminimaxAgent(depth=1, eval="td81").act(state)


def test_an_evaluator_on_another_device_leaves_the_callers_model_in_place():
    model = BackgammonNet(hidden=8)
    on_cpu = NetEvaluator(model)
    elsewhere = NetEvaluator(model, "meta")  # a device without data: no GPU needed
    assert next(elsewhere.model.parameters()).device.type == "meta"
    assert next(model.parameters()).device.type == "cpu" and on_cpu.model is model
    state = bg_position(2)
    analyse(state, depth=1, evaluator=on_cpu)  # still runs where it was built
    assert on_cpu.calls == 1


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_net_evaluator_on_cuda():
    model = BackgammonNet(hidden=8)
    state = bg_position(2)
    cpu = analyse(state, depth=1, evaluator=NetEvaluator(model, "cpu"))[0]
    gpu = analyse(state, depth=1, evaluator=NetEvaluator(model, "cuda"))[0]
    np.testing.assert_allclose(cpu, gpu, atol=1e-4)


def test_agent_with_an_evaluator_object_plays_backgammon():
    model = BackgammonNet(hidden=8)
    agent = ExpectiminimaxAgent(depth=1, evaluator=NetEvaluator(model), seed=0)
    state = bg_position(4)
    rows, paths = state.afterstates()
    first = agent.act(state)
    assert first in {int(p[0]) for p in paths}
    assert bg_rules.STATE_SIZE == state.array.shape[0]


def test_generic_agent_filters_a_network_search_by_a_heuristic():
    torch.manual_seed(0)
    model = BackgammonNet(hidden=16)
    state = bg_position(5)
    full = ExpectiminimaxAgent(depth=2, evaluator=NetEvaluator(model), seed=0)
    full.act(state)
    filtered = ExpectiminimaxAgent(depth=2, evaluator=NetEvaluator(model), filter=3,
                                   filter_eval="pips", seed=0)
    seen = counting(model)
    action = filtered.act(state)
    assert action in list(state.legal_actions())
    assert len(seen) == 1  # still one forward pass, over fewer leaves
    assert 0 < filtered.stats[2] < full.stats[2]


def test_the_games_declare_the_encoders_their_networks_read():
    from plies.games.registry import game_ids, get_game

    declared = {g: get_game(g).encode for g in game_ids() if get_game(g).encode is not None}
    assert set(declared) == set(game_ids())  # the board games' MLPs: tests/training/test_engine.py
    for game in ("backgammon", "dice_wars"):
        encode = declared[game]
        state, rng, rows = get_game(game).new_state(4), np.random.default_rng(4), []
        while len(rows) < 3:  # three positions of one game (one map)
            rows.append(state.array.copy())
            state.apply(sample_chance(state, rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
        states = np.stack(rows)
        model = value_net.build({"backgammon": "backgammon_contact_race", "dice_wars": "dice_wars_net"}[game], {})
        encoded = encode(states)
        arrays = list(encoded.values()) if isinstance(encoded, dict) else list(encoded)
        tensors = model.tensors(states, "cpu")
        assert len(arrays) == len(tensors)
        for array, tensor in zip(arrays, tensors):  # the network reads exactly the declared encoding
            assert np.array_equal(array, tensor.numpy()) and len(array) == 3
