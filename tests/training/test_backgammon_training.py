"""The contact/race trainer: targets, the networks' routing, exact resume, a tiny run that learns."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from plies.agents.value_net import ContactRaceNet, contact_race_equity, load_value_net  # noqa: E402
from plies.games.backgammon import features, rules  # noqa: E402
from plies.games.backgammon.state import BackgammonState  # noqa: E402
from plies.games.kernels import CHANCE, TERMINAL  # noqa: E402
from plies.training import backgammon as T  # noqa: E402
from plies.training import engine  # noqa: E402
from plies.training.common import atomic_save, load_checkpoint  # noqa: E402


def _args(run, games, *extra):
    return engine.build_parser("backgammon").parse_args(
        ["--run", str(run), "--games", str(games), "--hidden", "8", "--workers", "1", "--round-games", "4",
         "--checkpoint-every", "4", "--eval-every", "0", "--quiet", *extra])


def test_flip_swaps_wins_and_losses():
    v = np.array([0.7, 0.2, 0.05, 0.1, 0.01])
    np.testing.assert_allclose(T.flip(v), [0.3, 0.1, 0.01, 0.2, 0.05])
    np.testing.assert_allclose(T.flip(T.flip(v)), v)


def test_outcome_vector_counts_gammons_and_backgammons():
    s = rules.initial_array(1)
    s[rules.WINNER] = 1
    s[rules.POINTS] = 3
    np.testing.assert_allclose(T.outcome_vector(s, 1), [1, 1, 1, 0, 0])
    np.testing.assert_allclose(T.outcome_vector(s, 0), [0, 0, 0, 1, 1])
    s[rules.POINTS] = 1
    np.testing.assert_allclose(T.outcome_vector(s, 0), [0, 0, 0, 0, 0])


def test_lambda_returns_by_hand():
    # three positions, the sides alternating; the last side went on to win a single game
    values = np.array([[0.6, 0.1, 0.0, 0.2, 0.0],
                       [0.5, 0.1, 0.0, 0.1, 0.0],
                       [0.9, 0.3, 0.0, 0.0, 0.0]])
    sides = np.array([0, 1, 0])
    final = np.array([1.0, 0, 0, 0, 0])
    td0 = T.lambda_returns(values, sides, final, 0.0)
    np.testing.assert_allclose(td0[2], final)
    np.testing.assert_allclose(td0[1], T.flip(values[2]))  # the next position, seen from side 1
    np.testing.assert_allclose(td0[0], T.flip(values[1]))
    mc = T.lambda_returns(values, sides, final, 1.0)
    np.testing.assert_allclose(mc[0], final)  # side 0 won
    np.testing.assert_allclose(mc[1], T.flip(final))
    half = T.lambda_returns(values, sides, final, 0.5)
    np.testing.assert_allclose(half[1], 0.5 * T.flip(values[2]) + 0.5 * T.flip(final))


@pytest.mark.parametrize("inputs, hidden2, count", [(features.BASE_INPUTS, 0, 2), (features.INPUT_SIZE, 0, 2),
                                                    (features.INPUT_SIZE, 3, 2), (features.INPUT_SIZE, 3, 3)])
def test_each_position_goes_through_its_class_network(inputs, hidden2, count):
    torch.manual_seed(0)
    model = ContactRaceNet(hidden=4, inputs=inputs, hidden2=hidden2, classes=count)
    if hidden2:  # output weights away from their zero start, so that the second layer counts
        for layer in model.second:
            torch.nn.init.normal_(layer[2].weight)
    x = torch.rand(8, features.INPUT_SIZE)
    classes = torch.tensor([0, 1, 0, 1, 1, 0, 2, 2])
    out = model.logits(x, classes)
    read = x[:, :inputs]  # a network from before the contact inputs reads the first ones only
    for k in (0, 1, 2):
        net = k if k < count else features.CONTACT  # two classes: crashed positions are contact ones
        want = model.nets[net](read[classes == k])
        if hidden2:  # the second layer reads the first layer's sigmoid units
            want = want + model.second[net](model.nets[net][1](model.nets[net][0](read[classes == k])))
        torch.testing.assert_close(out[classes == k], want)
    # the workers' forward, from the numpy weights they are sent, agrees with the module's
    np_out = T._forward(T.numpy_weights(model), x.numpy(), classes.numpy())
    np.testing.assert_allclose(np_out, torch.sigmoid(out).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_forward_saturates_without_warnings():
    # a hidden unit driven far below zero overflows exp: its sigmoid is 0, silently, as in torch
    model = ContactRaceNet(hidden=4)
    with torch.no_grad():
        for net in model.nets:
            net[0].weight.fill_(-50.0)
    x = torch.ones(2, features.INPUT_SIZE)
    classes = torch.tensor([0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np_out = T._forward(T.numpy_weights(model), x.numpy(), classes.numpy())
    np.testing.assert_allclose(np_out, torch.sigmoid(model.logits(x, classes)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_equity_is_made_consistent_and_scored_by_the_rules():
    p = np.array([[0.6, 0.7, 0.1, 0.1, 0.0]])  # a gammon chance above the win chance is cut to it
    np.testing.assert_allclose(contact_race_equity(p, 0), [0.2])
    np.testing.assert_allclose(contact_race_equity(p, 1), [(0.2 + 0.6 - 0.1 + 0.1) / 3])


def test_self_play_games_end_with_their_results():
    model = ContactRaceNet(hidden=4)
    data = T.play_games(T.numpy_weights(model), 6, seed=3, lam=0.7, parallel=4)
    assert len(data["lengths"]) == 6 and data["lengths"].sum() == len(data["x"])
    assert set(data["points"]) <= {1, 2, 3}
    assert data["x"].shape[1] == features.INPUT_SIZE
    assert ((data["targets"] >= 0) & (data["targets"] <= 1)).all()
    # the last target of every game is a result: 0s and 1s only
    ends = np.cumsum(data["lengths"]) - 1
    assert set(np.unique(data["targets"][ends])) <= {0.0, 1.0}
    again = T.play_games(T.numpy_weights(model), 6, seed=3, lam=0.7, parallel=4)
    np.testing.assert_array_equal(again["x"], data["x"])  # seeded


def _weights(path):
    return {k: v for k, v in load_value_net(path, "backgammon").state_dict().items()}


def test_resume_is_exact(tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    engine.train("backgammon", _args(straight, 12))
    engine.train("backgammon", _args(split, 8))
    engine.train("backgammon", _args(split, 12, "--resume"))
    a, b = _weights(straight / "backgammon_net.pt"), _weights(split / "backgammon_net.pt")
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)
    rows = (split / "metrics.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["4", "8", "12"]


def test_resume_refuses_other_settings_and_fresh_runs_refuse_a_checkpoint(tmp_path):
    engine.train("backgammon", _args(tmp_path, 4))
    with pytest.raises(ValueError, match="--resume"):
        engine.train("backgammon", _args(tmp_path, 8))
    with pytest.raises(ValueError, match="lam"):
        engine.train("backgammon", _args(tmp_path, 8, "--resume", "--lam", "0.3"))
    with pytest.raises(ValueError, match="hidden"):
        engine.train("backgammon", _args(tmp_path, 8, "--resume", "--hidden", "9"))


@pytest.mark.parametrize("flag,value", [("--games", "0"), ("--lam", "1.5"), ("--workers", "0"), ("--lr", "2"),
                                        ("--label-share", "0"), ("--horizon", "0"), ("--epochs", "0")])
def test_bad_settings_are_refused(tmp_path, flag, value):
    with pytest.raises(ValueError, match=flag):
        engine.train("backgammon", _args(tmp_path, 4, flag, value))


@pytest.mark.slow
def test_a_short_run_learns_the_race(tmp_path):
    """After a few hundred games the loss has fallen and the race network has learnt that a side
    about to bear off its last checkers is winning (600 games: after 300 the value still
    depends much on the first weights, 0.1 to 0.7 over four seeds)."""
    args = engine.build_parser("backgammon").parse_args(
        ["--run", str(tmp_path), "--games", "600", "--hidden", "16", "--workers", "1", "--round-games", "50",
         "--checkpoint-every", "100", "--eval-every", "0", "--quiet", "--lr", "0.003", "--seed", "2"])
    torch.manual_seed(2)  # the run's own seed: the same first weights
    untrained = ContactRaceNet(hidden=16, inputs=features.INPUT_SIZE)
    engine.train("backgammon", args)
    model = load_value_net(tmp_path / "backgammon_net.pt", "backgammon")
    losses = [float(r.split(",")[3]) for r in (tmp_path / "metrics.csv").read_text().splitlines()[1:]]
    assert losses[-1] < losses[0]
    s = rules.initial_array(0)
    s[rules.BOARD:rules.BOARD + 2 * rules.SIDE] = 0
    s[rules.BOARD + rules.OFF] = 13
    s[rules.BOARD + 1] = 2  # seat 0: two checkers on its 1-point, to roll
    s[rules.BOARD + rules.SIDE + 6] = 15  # seat 1: all fifteen on its 6-point
    s[rules.PLAYER] = -1
    s[rules.ROLLER] = 0
    s[rules.ROLLS] = 1
    before = untrained.seat_values(s[None], 2, "cpu")[0]
    values = model.seat_values(s[None], 2, "cpu")[0]
    assert values[0] > 0.2 and values[0] > before[0] + 0.2


def test_the_shipped_network_beats_pubeval_in_a_short_seeded_match():
    pytest.importorskip("gnubg_nn")
    from plies.agents.value_net import shipped_weights
    from plies.evaluation import run_tournament

    if not shipped_weights("backgammon").exists():
        pytest.skip("no shipped contact/race network yet")
    spec = "expectiminimax:depth=1,eval=net"
    result = run_tournament("backgammon", [spec, "pubeval"], 60, seed=11, workers=1, progress=False)
    wins = sum(1 for r in result.records if r.returns[r.seats.index(spec)] > 0)
    assert len(result.records) == 60 and wins > 30


def test_a_new_step_size_on_resume_is_recorded_in_the_command(tmp_path):
    engine.train("backgammon", _args(tmp_path, 4))
    card = engine.train("backgammon", _args(tmp_path, 8, "--resume", "--lr", "0.0005"))
    first, second = card["command"].split(" && ")
    assert "--games 4 " in first and "--lr 0.001 " in first and "--resume" not in first
    assert "--games 8 " in second and "--lr 0.0005 " in second and second.endswith("--resume")


def test_a_change_to_search_targets_on_resume_is_recorded_in_the_command(tmp_path):
    engine.train("backgammon", _args(tmp_path, 4))
    with pytest.raises(ValueError, match="label-share"):  # a share means nothing to TD targets
        engine.train("backgammon", _args(tmp_path, 8, "--resume", "--label-share", "0.5"))
    engine.train("backgammon", _args(tmp_path, 8, "--resume", "--targets", "search", "--label-share", "0.5"))
    engine.train("backgammon", _args(tmp_path, 12, "--resume", "--targets", "search"))
    card = engine.train("backgammon", _args(tmp_path, 16, "--resume"))
    stages = card["command"].split(" && ")
    assert len(stages) == 4 and "--targets" not in stages[0] and "--games 4 " in stages[0]
    assert "--games 8 " in stages[1] and "--targets search --label-share 0.5 --resume" in stages[1]
    assert "--games 12 " in stages[2] and "--targets search --label-share 1.0 --resume" in stages[2]
    assert "--games 16 " in stages[3] and "--targets" not in stages[3]


def test_search_targets_refuse_the_opening_and_take_an_empty_batch():
    weights = T.numpy_weights(ContactRaceNet(hidden=4))
    assert T.search_targets(weights, np.zeros((0, rules.STATE_SIZE), np.int64)).shape == (0, 5)
    with pytest.raises(ValueError, match="opening"):
        T.search_targets(weights, rules.initial_array(1)[None])


def _waiting_for_roll(checkers_0: dict[int, int], checkers_1: dict[int, int], roller: int) -> np.ndarray:
    """A position after a move: ``roller`` rolls next; checkers as {point: count} per seat, the
    rest borne off."""
    s = rules.initial_array(1)
    s[rules.BOARD:] = 0
    for seat, checkers in enumerate((checkers_0, checkers_1)):
        for point, count in checkers.items():
            s[rules.BOARD + rules.SIDE * seat + point] = count
        s[rules.BOARD + rules.SIDE * seat + rules.OFF] = 15 - sum(checkers.values())
    s[rules.PLAYER] = CHANCE
    s[rules.ROLLER] = roller
    s[rules.ROLLS] = 1
    return s


def test_search_targets_are_exact_where_every_roll_wins():
    # seat 0 rolls with one checker left on its 1-point; seat 1 has borne off none and has no
    # checker in seat 0's home: every roll wins seat 0 a gammon, whatever the network says
    s = _waiting_for_roll({1: 1}, {6: 15}, roller=0)
    model = ContactRaceNet(hidden=4)
    target = T.search_targets(T.numpy_weights(model), s[None])
    np.testing.assert_allclose(target[0], [1, 1, 0, 0, 0], atol=1e-12)
    # the same position with seat 1 to roll and seat 1 bearing its last checker off: a loss
    # for seat 0 seen from seat 1's side is a win there
    s2 = _waiting_for_roll({6: 15}, {1: 1}, roller=1)
    np.testing.assert_allclose(T.search_targets(T.numpy_weights(model), s2[None])[0], [1, 1, 0, 0, 0], atol=1e-12)


def test_search_targets_average_the_replies_over_the_rolls():
    # seat 0 to roll, two checkers on its 6-point, the race otherwise lost: only 6-6 bears both
    # off (probability 1/36); every other roll leaves a position the network values
    torch.manual_seed(1)
    model = ContactRaceNet(hidden=4)
    weights = T.numpy_weights(model)
    s = _waiting_for_roll({6: 2}, {1: 1}, roller=0)
    target = T.search_targets(weights, s[None])[0]
    # worked here through the GameState: each roll, each reply, the network's view
    expected = np.zeros(5)
    outcomes, probs = BackgammonState(s.copy()).chance_outcomes()
    for outcome, prob in zip(outcomes, probs):
        rolled = BackgammonState(s.copy())
        rolled.apply(int(outcome))
        out = np.zeros((rules.MAX_AFTERSTATES, rules.STATE_SIZE), np.int64)
        paths = np.zeros((rules.MAX_AFTERSTATES, 4), np.int64)
        n = rules.afterstates(rolled.array, out, paths)
        best_equity, best_value = None, None
        for row in out[:n]:
            if row[0] == TERMINAL:
                value = T.flip(T.outcome_vector(row, 1))
                best_equity, best_value = np.inf, value
                break
            x, classes = features.encode(row[None], np.array([1]))
            p = T._forward(weights, x, classes)[0].astype(np.float64)
            equity = -float(T.mover_equity(p[None])[0])
            if best_equity is None or equity > best_equity:
                best_equity, best_value = equity, T.flip(p)
        expected += prob * best_value
    np.testing.assert_allclose(target, expected, atol=1e-6)
    assert target[0] > 1 / 36 - 1e-9  # 6-6 alone wins


def test_search_labelled_self_play_keeps_a_share_of_the_positions():
    model = ContactRaceNet(hidden=4)
    weights = T.numpy_weights(model)
    full = T.play_games(weights, 4, seed=5, lam=0.7, parallel=4, targets="search")
    half = T.play_games(weights, 4, seed=5, lam=0.7, parallel=4, targets="search", label_share=0.5)
    assert len(full["x"]) == full["lengths"].sum()
    assert 0.3 * half["lengths"].sum() < len(half["x"]) < 0.7 * half["lengths"].sum()
    assert ((full["targets"] >= 0) & (full["targets"] <= 1)).all()
    again = T.play_games(weights, 4, seed=5, lam=0.7, parallel=4, targets="search", label_share=0.5)
    np.testing.assert_array_equal(again["targets"], half["targets"])  # seeded


def _contact_positions(weights, count: int) -> np.ndarray:
    """Positions waiting for a roll from a few games of the greedy network."""
    rng = np.random.default_rng(0)
    states = np.stack([rules.initial_array(1) for _ in range(8)])
    mover, found = T._Mover(weights), []
    while len(found) < count:
        T.roll(states, rng.random(len(states)), mover.undo)
        mover.move(states)
        found += [s.copy() for s in states if s[rules.PLAYER] == CHANCE and s[rules.ROLLS] > 0]
    return np.array(found[:count])


def test_single_scoring_self_play_moves_by_the_win_chance_alone():
    torch.manual_seed(5)
    weights = T.numpy_weights(ContactRaceNet(hidden=6))
    p = np.array([[0.6, 0.3, 0.1, 0.2, 0.05]])
    np.testing.assert_allclose(T.mover_equity(p), [0.2 + 0.3 - 0.2 + 0.1 - 0.05])
    np.testing.assert_allclose(T.mover_equity(p, "single"), [0.2])
    rng = np.random.default_rng(1)
    positions = _contact_positions(weights, 30)
    T.roll(positions, rng.random(len(positions)), np.zeros(rules.STATE_SIZE, np.int64))
    differ = 0
    for scoring in ("money", "single"):
        mover = T._Mover(weights, scoring=scoring)
        states = positions.copy()
        step = mover.move(states)
        equity = T.mover_equity(step["p"].astype(np.float64), scoring)
        for g in range(len(states)):
            rows = np.flatnonzero(mover.owner[:len(step["rows"])] == g)
            if (step["terminal"][rows] > 0).any():
                continue
            # the mover leaves the other side its lowest equity of this scoring
            assert equity[step["best"][g]] == equity[rows].min()
            if scoring == "single":
                money = T.mover_equity(step["p"][rows].astype(np.float64))
                differ += int(rows[np.argmin(money)] != step["best"][g])
    assert differ > 0  # the two scorings choose differently somewhere
    with pytest.raises(ValueError, match="scoring"):
        T._Mover(weights, scoring="match")


def test_the_self_play_scoring_is_kept_on_resume_and_in_the_command(tmp_path):
    card = engine.train("backgammon", _args(tmp_path, 4, "--play-scoring", "single"))
    assert "--play-scoring single" in card["command"]
    with pytest.raises(ValueError, match="play-scoring"):
        engine.train("backgammon", _args(tmp_path, 8, "--resume"))
    card = engine.train("backgammon", _args(tmp_path, 8, "--resume", "--play-scoring", "single"))
    assert "--games 8 " in card["command"] and card["command"].endswith("--play-scoring single")
    money = engine.train("backgammon", _args(tmp_path / "money", 4))
    assert "--play-scoring" not in money["command"]


def test_an_exploring_move_takes_one_of_the_next_best_plays():
    torch.manual_seed(6)
    weights = T.numpy_weights(ContactRaceNet(hidden=6))
    rng = np.random.default_rng(2)
    positions = _contact_positions(weights, 40)
    T.roll(positions, rng.random(len(positions)), np.zeros(rules.STATE_SIZE, np.int64))
    step = T._Mover(weights).move(positions.copy())
    best = step["best"].copy()
    owner, equity, terminal = step["owner"], step["equity"], step["terminal"]
    np.testing.assert_array_equal(T.explore(step, rng, 0.0), best)
    explored = 0
    for _ in range(5):
        taken = T.explore(step, rng, 1.0)
        for g in range(len(positions)):
            others = np.flatnonzero((owner == g) & (terminal == 0))
            others = others[others != best[g]]
            if terminal[best[g]] > 0 or not len(others):
                assert taken[g] == best[g]  # a winning play, or nothing else to take
                continue
            # one of the EXPLORE_TOP next-best plays that do not end the game, never the best
            assert owner[taken[g]] == g and terminal[taken[g]] == 0 and taken[g] != best[g]
            assert (equity[others] < equity[taken[g]]).sum() < T.EXPLORE_TOP
            explored += 1
    assert explored > 0
    np.testing.assert_array_equal(step["best"], best)  # the step's greedy play is left as it was


def test_exploring_self_play_keeps_the_greedy_value_as_the_previous_target(monkeypatch):
    torch.manual_seed(7)
    weights = T.numpy_weights(ContactRaceNet(hidden=6))
    seen = []

    def spy(step, rng, share):
        taken = explore(step, rng, share)
        k, b = taken[0], step["best"][0]
        seen.append({"greedy": step["p"][b].astype(np.float64), "taken": step["p"][k].astype(np.float64),
                     "side": int(step["mover"][k]), "row": step["rows"][k].copy(),
                     "over": step["terminal"][k] > 0, "explored": k != b})
        return taken

    explore = T.explore
    monkeypatch.setattr(T, "explore", spy)
    T.play_games(weights, 2, 3, 0.0, parallel=1)
    assert not seen  # without exploring the moves are the greedy ones, with no draws of their own
    out = T.play_games(weights, 1, 3, 0.0, parallel=1, explore_share=0.3)
    kept = [s for s in seen if not s["over"]]
    assert seen[-1]["over"] and len(kept) == len(seen) - 1 == len(out["x"])
    assert any(s["explored"] for s in kept)
    sides = np.array([s["side"] for s in kept])
    final = T.outcome_vector(seen[-1]["row"], int(sides[-1]))
    greedy = T.lambda_returns(np.stack([s["greedy"] for s in kept]), sides, final, 0.0)
    as_taken = T.lambda_returns(np.stack([s["taken"] for s in kept]), sides, final, 0.0)
    # each position learns the greedy value of the next move, not that of the play explored there
    np.testing.assert_allclose(out["targets"], greedy, atol=1e-6)
    assert not np.allclose(out["targets"], as_taken, atol=1e-6)
    with pytest.raises(ValueError, match="TD\\(0\\)"):
        T.play_games(weights, 2, 3, 0.7, explore_share=0.1)


def test_the_exploring_share_is_checked_and_kept_on_resume(tmp_path):
    with pytest.raises(ValueError, match="--explore needs"):
        engine.train("backgammon", _args(tmp_path / "lam", 4, "--explore", "0.1", "--lam", "0.7"))
    with pytest.raises(ValueError, match="--explore must lie"):
        engine.train("backgammon", _args(tmp_path / "big", 4, "--explore", "1", "--lam", "0"))
    card = engine.train("backgammon", _args(tmp_path / "run", 4, "--explore", "0.1", "--lam", "0"))
    assert card["command"].endswith("--explore 0.1")
    with pytest.raises(ValueError, match="explore"):  # kept on resume: it decides the games
        engine.train("backgammon", _args(tmp_path / "run", 8, "--lam", "0", "--resume"))
    card = engine.train("backgammon", _args(tmp_path / "run", 8, "--lam", "0", "--explore", "0.1", "--resume"))
    assert "--games 8 " in card["command"]
    # a checkpoint from before the setting existed resumes as greedy self-play
    path = tmp_path / "old" / "checkpoint.pt"
    engine.train("backgammon", _args(tmp_path / "old", 4, "--lam", "0"))
    payload = load_checkpoint(path, "backgammon", "backgammon_contact_race")
    del payload["config"]["explore"]
    atomic_save(payload, path)
    card = engine.train("backgammon", _args(tmp_path / "old", 8, "--lam", "0", "--resume"))
    assert "--explore" not in card["command"]
    with pytest.raises(ValueError, match="explore"):
        engine.train("backgammon", _args(tmp_path / "old", 12, "--lam", "0", "--explore", "0.1", "--resume"))


def test_a_one_move_rollout_is_the_one_ply_search():
    # a rollout of one move plays the first roll's best reply and scores it: the 1-ply search
    torch.manual_seed(3)
    weights = T.numpy_weights(ContactRaceNet(hidden=6))
    positions = np.concatenate([_contact_positions(weights, 12),
                                _waiting_for_roll({6: 2}, {1: 1}, roller=0)[None],
                                _waiting_for_roll({6: 15}, {1: 1}, roller=1)[None]])
    for trials in (1, 3):  # every trial of a one-move rollout is the same
        rollout = T.rollout_targets(weights, positions, 1, trials, np.random.default_rng(0))
        np.testing.assert_allclose(rollout, T.search_targets(weights, positions), atol=1e-6)


def test_rollouts_are_exact_where_every_roll_wins_and_seeded_otherwise():
    weights = T.numpy_weights(ContactRaceNet(hidden=4))
    won = _waiting_for_roll({1: 1}, {6: 15}, roller=0)
    np.testing.assert_allclose(T.rollout_targets(weights, won[None], 10, 2, np.random.default_rng(0))[0],
                               [1, 1, 0, 0, 0], atol=1e-12)
    positions = _contact_positions(weights, 6)
    a = T.rollout_targets(weights, positions, 6, 2, np.random.default_rng(7))
    b = T.rollout_targets(weights, positions, 6, 2, np.random.default_rng(7))
    c = T.rollout_targets(weights, positions, 6, 2, np.random.default_rng(8))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)  # later rolls are drawn: another seed, other games
    assert ((a >= 0) & (a <= 1)).all()
    with pytest.raises(ValueError, match="opening"):
        T.rollout_targets(weights, rules.initial_array(1)[None], 6, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="horizon"):
        T.rollout_targets(weights, positions, 0, 1, np.random.default_rng(0))


def test_luck_free_rollouts_of_one_and_two_moves_are_the_one_and_two_ply_searches():
    torch.manual_seed(4)
    weights = T.numpy_weights(ContactRaceNet(hidden=6))
    positions = np.concatenate([_contact_positions(weights, 10),
                                _waiting_for_roll({6: 2}, {1: 1}, roller=0)[None],
                                _waiting_for_roll({1: 3}, {2: 2}, roller=1)[None]])
    one = T.rollout_targets(weights, positions, 1, 2, np.random.default_rng(0), luck_free=True)
    np.testing.assert_allclose(one, T.search_targets(weights, positions), atol=1e-6)
    # two moves: the second roll's luck taken out leaves the 1-ply search of the position the
    # first roll's move reached, whatever the dice, averaged over the first rolls (2 ply)
    two = T.rollout_targets(weights, positions, 2, 1, np.random.default_rng(1), luck_free=True)
    again = T.rollout_targets(weights, positions, 2, 3, np.random.default_rng(2), luck_free=True)
    np.testing.assert_allclose(two, again, atol=1e-9)
    expected = np.zeros((len(positions), 5))
    undo = np.zeros(max(rules.STATE_SIZE, 64), np.int64)
    for i, s in enumerate(positions):
        outcomes, probs = BackgammonState(s.copy()).chance_outcomes()
        for outcome, prob in zip(outcomes, probs):
            rolled = s.copy()
            rules.apply_action(rolled, int(outcome), undo)
            reached = rolled[None].copy()
            T._Mover(weights).move(reached)
            if reached[0, 0] == TERMINAL:
                value = T.outcome_vector(reached[0], int(s[rules.ROLLER]))
            else:  # the next roller's search, seen from the side that rolled first
                value = T.flip(T.search_targets(weights, reached)[0])
            expected[i] += prob * value
    np.testing.assert_allclose(two, expected, atol=1e-6)
    assert not np.allclose(two, T.rollout_targets(weights, positions, 2, 1, np.random.default_rng(1)))


@pytest.mark.slow
def test_luck_free_rollouts_vary_far_less_with_the_dice():
    # the shipped network's rollouts of a few contact positions, six moves deep, on several dice:
    # with each roll's luck taken out the labels move far less from one seed to the next
    network = load_value_net(Path(__file__).resolve().parents[2] / "plies/agents/weights/backgammon_net.pt",
                             "backgammon")
    weights = T.numpy_weights(network)
    positions = _contact_positions(weights, 40)[::10]
    plain = np.stack([T.rollout_targets(weights, positions, 6, 1, np.random.default_rng(seed))[:, 0]
                      for seed in range(4)])
    free = np.stack([T.rollout_targets(weights, positions, 6, 1, np.random.default_rng(seed), luck_free=True)[:, 0]
                     for seed in range(4)])
    assert free.var(axis=0).mean() * 4 < plain.var(axis=0).mean()
    assert ((free >= 0) & (free <= 1)).all()


def test_a_run_on_rollout_labels_resumes_exactly_and_keeps_its_rollouts(tmp_path):
    rollout = ("--targets", "rollout", "--label-share", "0.1", "--horizon", "3", "--trials", "1", "--epochs", "2")
    engine.train("backgammon", _args(tmp_path / "straight", 8, *rollout))
    engine.train("backgammon", _args(tmp_path / "split", 4, *rollout))
    with pytest.raises(ValueError, match="horizon"):
        engine.train("backgammon", _args(tmp_path / "split", 8, "--resume", *rollout[:-5], "4", *rollout[-4:]))
    card = engine.train("backgammon", _args(tmp_path / "split", 8, "--resume", *rollout))
    a = _weights(tmp_path / "straight" / "backgammon_net.pt")
    b = _weights(tmp_path / "split" / "backgammon_net.pt")
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)
    assert card["command"].endswith("--epochs 2 --targets rollout --label-share 0.1 --horizon 3 --trials 1")


def test_luck_free_returns_by_hand():
    # three positions, the side to move next alternating: values V, searches S (each in its own
    # side's view); G(2) = S(2), G(t) = S(t) + lambda (flip(G(t + 1)) - flip(V(t + 1)))
    rng = np.random.default_rng(4)
    values, searched = rng.uniform(0.1, 0.4, (3, 5)), rng.uniform(0.1, 0.4, (3, 5))
    sides = np.array([0, 1, 0])
    for lam in (0.0, 0.5, 1.0):
        g2 = searched[2]
        g1 = searched[1] + lam * (T.flip(g2) - T.flip(values[2]))
        g0 = searched[0] + lam * (T.flip(g1) - T.flip(values[1]))
        np.testing.assert_allclose(T.luck_free_returns(values, searched, sides, lam),
                                   np.clip([g0, g1, g2], 0, 1), atol=1e-12)
    # lambda 0: the search labels themselves
    np.testing.assert_allclose(T.luck_free_returns(values, searched, sides, 0.0), searched)
    # a network whose values agree with its own searches: every move's luck cancels, whatever lambda
    for lam in (0.5, 1.0):
        np.testing.assert_allclose(T.luck_free_returns(searched, searched, sides, lam), searched, atol=1e-12)
    # a move that keeps the side to move (the opponent could not move): no flip
    same = np.array([0, 0, 1])
    got = T.luck_free_returns(values, searched, same, 1.0)
    g1 = searched[1] + T.flip(searched[2]) - T.flip(values[2])
    np.testing.assert_allclose(got[1], g1)
    np.testing.assert_allclose(got[0], np.clip(searched[0] + g1 - values[1], 0, 1))
    # clipped to what the network's outputs can be
    assert T.luck_free_returns(np.zeros((2, 5)), np.full((2, 5), 0.9), np.array([0, 1]), 1.0).max() <= 1.0


def test_variance_reduced_self_play_targets_have_little_noise():
    """On the shipped network's own games, the luck-free Monte Carlo returns (lambda 1) stay far
    closer to the network's values than the plain Monte Carlo returns of the same games: the
    dice's luck is what they take out."""
    net = load_value_net(Path(T.__file__).parents[1] / "agents" / "weights" / "backgammon_net.pt", "backgammon")
    weights = T.numpy_weights(net)
    plain = T.play_games(weights, 6, seed=9, lam=1.0, parallel=6)
    reduced = T.play_games(weights, 6, seed=9, lam=1.0, parallel=6, targets="variance-reduced")
    np.testing.assert_array_equal(plain["x"], reduced["x"])  # the same games: the searches draw no dice
    x, classes = torch.from_numpy(plain["x"]), torch.from_numpy(plain["classes"].astype(np.int64))
    with torch.no_grad():
        win = torch.sigmoid(net.logits(x, classes))[:, 0].numpy()
    plain_gap = np.abs(plain["targets"][:, 0] - win).mean()
    reduced_gap = np.abs(reduced["targets"][:, 0] - win).mean()
    assert reduced_gap < plain_gap / 3, (reduced_gap, plain_gap)
    assert ((reduced["targets"] >= 0) & (reduced["targets"] <= 1)).all()


def test_a_variance_reduced_run_records_its_targets(tmp_path):
    card = engine.train("backgammon", _args(tmp_path / "vr", 4, "--targets", "variance-reduced", "--lam", "1"))
    assert card["command"].endswith("--targets variance-reduced")
    with pytest.raises(ValueError, match="label-share"):
        engine.train("backgammon", _args(tmp_path / "bad", 4, "--targets", "variance-reduced", "--label-share", "0.5"))


@pytest.mark.slow
def test_ray_and_processes_train_the_same_backgammon_network(tmp_path):
    pytest.importorskip("ray")
    engine.train("backgammon", _args(tmp_path / "processes", 8, "--workers", "2"))
    engine.train("backgammon", _args(tmp_path / "ray", 8, "--workers", "2", "--backend", "ray"))
    a, b = _weights(tmp_path / "processes" / "backgammon_net.pt"), _weights(tmp_path / "ray" / "backgammon_net.pt")
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)


def test_the_round_runner_refuses_an_unknown_backend():
    from plies.training.common import RoundRunner

    with pytest.raises(ValueError, match="'process' or 'ray'"):
        RoundRunner(T._worker_round, "threads", 2)


def test_a_wider_network_starts_as_the_one_it_grows_from(tmp_path):
    """--init-from copies a network's hidden units into a wider one whose extra units have zero
    outgoing weights, or under a second layer with zero output weights: the same outputs on any
    position, and training goes on from there."""
    engine.train("backgammon", _args(tmp_path / "small", 4))
    small = load_value_net(tmp_path / "small" / "backgammon_net.pt", "backgammon")
    wide = ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE)
    T.widen_into(wide, small)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.random((50, features.INPUT_SIZE)).astype(np.float32))
    classes = torch.from_numpy(rng.integers(0, len(features.CLASS_NAMES), 50))
    torch.testing.assert_close(wide(x, classes), small(x, classes), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="more than --hidden"):
        T.widen_into(ContactRaceNet(hidden=4, inputs=features.INPUT_SIZE), small)
    # a network from before the contact inputs into one that reads them: the new inputs start
    # with zero weights, so the outputs stay the same
    old = ContactRaceNet(hidden=3)
    for net in old.nets:
        torch.nn.init.normal_(net[0].weight)
    reading_all = ContactRaceNet(hidden=5, inputs=features.INPUT_SIZE)
    T.widen_into(reading_all, old)
    torch.testing.assert_close(reading_all(x, classes), old(x, classes), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="more than --inputs"):
        T.widen_into(ContactRaceNet(hidden=5), reading_all)
    engine.train("backgammon", _args(tmp_path / "wide", 4, "--hidden", "12", "--init-from", str(tmp_path / "small" / "backgammon_net.pt")))
    card = (tmp_path / "wide" / "backgammon_net.json").read_text()
    assert "--init-from" in card
    trained = load_value_net(tmp_path / "wide" / "backgammon_net.pt", "backgammon")
    assert trained.config == {"hidden": 12, "inputs": features.INPUT_SIZE}
    assert not torch.equal(trained(x, classes), small(x, classes))  # it learnt from its games
    # a second layer grown onto it starts with zero output weights: the same outputs again
    deep = ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(deep, small)
    torch.testing.assert_close(deep(x, classes), small(x, classes), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="second layer of 5"):
        T.widen_into(ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE, hidden2=6), deep)
    engine.train("backgammon", _args(tmp_path / "deep", 4, "--hidden", "12", "--hidden2", "5",
                                     "--init-from", str(tmp_path / "small" / "backgammon_net.pt")))
    assert "--hidden2 5" in (tmp_path / "deep" / "backgammon_net.json").read_text()
    assert "--widen" not in (tmp_path / "deep" / "backgammon_net.json").read_text()
    trained = load_value_net(tmp_path / "deep" / "backgammon_net.pt", "backgammon")
    assert trained.config == {"hidden": 12, "inputs": features.INPUT_SIZE, "hidden2": 5}
    for layer in trained.second:  # the second layer's output weights left zero: it learns
        assert layer[2].weight.abs().sum() > 0
    # a deep network into the same shape is copied whole
    copy = ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(copy, trained)
    torch.testing.assert_close(copy(x, classes), trained(x, classes), rtol=0, atol=1e-6)
    # with a crashed network: it starts as the contact network, so the outputs stay the same
    crashed = ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE, hidden2=5, classes=3)
    T.widen_into(crashed, trained)
    torch.testing.assert_close(crashed(x, classes), trained(x, classes), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="more than --classes"):
        T.widen_into(ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE, hidden2=5), crashed)
    # more hidden units under the same second layer: the new units feed it nothing at first
    wider = ContactRaceNet(hidden=20, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(wider, trained)
    torch.testing.assert_close(wider(x, classes), trained(x, classes), rtol=0, atol=1e-6)
    assert wider.second[0][0].weight[:, 12:].abs().sum() == 0

    # split widening: each new unit a copy of an old one that shares its outgoing weights; without
    # noise the outputs are the same, with it the copies differ and the outputs move only a little
    exact = ContactRaceNet(hidden=30, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(exact, trained, "split", noise=0.0)
    torch.testing.assert_close(exact(x, classes), trained(x, classes), rtol=0, atol=1e-5)
    torch.testing.assert_close(exact.nets[0][0].weight[24:30], exact.nets[0][0].weight[:6])
    split = ContactRaceNet(hidden=30, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(split, trained, "split", seed=3)
    assert not torch.equal(split.nets[0][0].weight[12:24], split.nets[0][0].weight[:12])
    assert (split(x, classes) - trained(x, classes)).abs().max() < 0.05
    assert split.nets[1][2].weight[:, 12:].abs().sum() > 0  # the new units feed the outputs at once
    with pytest.raises(ValueError, match="--widen is one of"):
        T.widen_into(split, trained, "grow")
    with pytest.raises(ValueError, match="needs more --hidden than the 12 units"):
        T.widen_into(ContactRaceNet(hidden=12, inputs=features.INPUT_SIZE, hidden2=5), trained, "split")
    engine.train("backgammon", _args(tmp_path / "split", 4, "--hidden", "24", "--hidden2", "5", "--widen", "split",
                                     "--init-from", str(tmp_path / "deep" / "backgammon_net.pt")))
    assert "--widen split" in (tmp_path / "split" / "backgammon_net.json").read_text()
    with pytest.raises(ValueError, match="--widen applies"):
        engine.train("backgammon", _args(tmp_path / "alone", 4, "--widen", "split"))


def test_new_units_drawn_at_random_and_stepping_faster(tmp_path):
    """--widen random gives the new units input weights at the old units' spread and zero outgoing
    weights (the same outputs); --new-unit-step K makes each optimiser step move exactly those
    units' weights K times as far as plain Adam would, and leaves the old units' steps alone."""
    engine.train("backgammon", _args(tmp_path / "small", 4, "--hidden2", "5"))
    small_path = tmp_path / "small" / "backgammon_net.pt"
    small = load_value_net(small_path, "backgammon")
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.random((40, features.INPUT_SIZE)).astype(np.float32))
    classes = torch.from_numpy(rng.integers(0, 2, 40))
    drawn = ContactRaceNet(hidden=20, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(drawn, small, "random", seed=2)
    torch.testing.assert_close(drawn(x, classes), small(x, classes), rtol=0, atol=1e-6)
    for net in drawn.nets:
        old, new = net[0].weight[:8], net[0].weight[8:]
        assert net[2].weight[:, 8:].abs().sum() == 0
        ratio = float(new.detach().std() / old.detach().std())
        assert 0.5 < ratio < 2.0, ratio  # the old units' spread, not the tiny default
        assert set(net[0].bias[8:].tolist()) <= set(net[0].bias[:8].tolist())
    assert drawn.second[0][0].weight[:, 8:].abs().sum() == 0

    # one step of plain Adam and one of the scaled steps, from the same weights and gradients
    targets = torch.from_numpy(rng.random((40, 5)).astype(np.float32))
    plain = ContactRaceNet(hidden=20, inputs=features.INPUT_SIZE, hidden2=5)
    scaled = ContactRaceNet(hidden=20, inputs=features.INPUT_SIZE, hidden2=5)
    T.widen_into(plain, small, "random", seed=2)
    T.widen_into(scaled, small, "random", seed=2)
    steps = []
    for model, scale in ((plain, 1.0), (scaled, 7.0)):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        unit_steps = T.ScaledUnitSteps(model, 8, scale)  # made before the weights change, as in a run
        for plain_step in (True, False):  # a plain first step (the same in both), then the compared one
            before = {k: v.clone() for k, v in model.state_dict().items()}
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model.logits(x, classes), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step() if plain_step else unit_steps.step(optimizer)
        steps.append({k: model.state_dict()[k] - before[k] for k in before})
    base, fast = steps
    for k in range(2):
        w = f"nets.{k}.0.weight"
        torch.testing.assert_close(fast[w][8:], 7.0 * base[w][8:], rtol=1e-4, atol=1e-7)
        torch.testing.assert_close(fast[w][:8], base[w][:8], rtol=0, atol=0)
        torch.testing.assert_close(fast[f"nets.{k}.0.bias"][8:], 7.0 * base[f"nets.{k}.0.bias"][8:],
                                   rtol=1e-4, atol=1e-7)
        out = f"nets.{k}.2.weight"
        torch.testing.assert_close(fast[out][:, 8:], 7.0 * base[out][:, 8:], rtol=1e-4, atol=1e-7)
        torch.testing.assert_close(fast[out][:, :8], base[out][:, :8], rtol=0, atol=0)
        assert base[out][:, 8:].abs().sum() > 0  # the new units' outgoing weights did move
        second = f"second.{k}.0.weight"
        torch.testing.assert_close(fast[second][:, 8:], 7.0 * base[second][:, 8:], rtol=1e-4, atol=1e-7)
        torch.testing.assert_close(fast[second][:, :8], base[second][:, :8], rtol=0, atol=0)

    # the option in a run: recorded, kept on resume, in every stage of the card's command
    grow = ("--hidden", "20", "--hidden2", "5", "--init-from", str(small_path), "--widen", "random",
            "--new-unit-step", "10")
    engine.train("backgammon", _args(tmp_path / "fast", 4, *grow))
    engine.train("backgammon", _args(tmp_path / "fast", 8, "--hidden", "20", "--hidden2", "5", "--new-unit-step",
                                     "10", "--lr", "0.0005", "--resume"))
    command = json.loads((tmp_path / "fast" / "backgammon_net.json").read_text())["command"]
    first, second = command.split(" && ")
    assert "--widen random" in first and "--new-unit-step 10" in first and "--new-unit-step 10" in second
    with pytest.raises(ValueError, match="--new-unit-step"):
        engine.train("backgammon", _args(tmp_path / "fast", 12, "--hidden", "20", "--hidden2", "5", "--resume"))
    with pytest.raises(ValueError, match="--new-unit-step applies"):
        engine.train("backgammon", _args(tmp_path / "alone", 4, "--new-unit-step", "10"))
    with pytest.raises(ValueError, match="--new-unit-step applies"):  # --resume, but nothing to resume
        engine.train("backgammon", _args(tmp_path / "nothing", 4, "--new-unit-step", "10", "--resume"))
    with pytest.raises(ValueError, match="needs more --hidden than the 8 units"):
        engine.train("backgammon", _args(tmp_path / "same", 4, "--hidden2", "5", "--init-from", str(small_path),
                                         "--new-unit-step", "10"))
    with pytest.raises(ValueError, match=r"--new-unit-step must lie in \(0, 1000\]"):
        engine.train("backgammon", _args(tmp_path / "zero", 4, "--new-unit-step", "0"))


def test_a_crashed_network_learns_its_own_positions(tmp_path):
    """--classes 3 grows a crashed network from a two-class one; training then moves it away
    from the contact network, and the run's card and command say so."""
    engine.train("backgammon", _args(tmp_path / "small", 4))
    small_path = tmp_path / "small" / "backgammon_net.pt"
    engine.train("backgammon", _args(tmp_path / "crashed", 20, "--classes", "3", "--init-from", str(small_path)))
    assert "--classes 3" in (tmp_path / "crashed" / "backgammon_net.json").read_text()
    trained = load_value_net(tmp_path / "crashed" / "backgammon_net.pt", "backgammon")
    assert trained.config["classes"] == 3 and len(trained.nets) == 3
    contact, crashed = trained.nets[features.CONTACT], trained.nets[features.CRASHED]
    assert not torch.equal(contact[0].weight, crashed[0].weight)
    # resuming needs the same classes
    with pytest.raises(ValueError, match="'classes': 3"):
        engine.train("backgammon", _args(tmp_path / "crashed", 24, "--resume"))
