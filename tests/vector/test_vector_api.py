"""The batch API: shapes, seeding, illegal actions, sitting out, torch views, Gymnasium view."""

from __future__ import annotations

import numpy as np
import pytest

import plies.envs.vector as pv


def test_shapes_and_dtypes():
    batch = pv.make("connect_four", 5, seed=0)
    obs, infos = batch.reset()
    assert obs.shape == (5, 6, 7, 2) and obs.dtype == np.float32
    assert batch.rewards.shape == (5, 2) and batch.rewards.dtype == np.float32
    assert infos["action_mask"].shape == (5, 7) and infos["action_mask"].dtype == bool
    assert infos["current_player"].tolist() == [0] * 5
    assert batch.action_mask.all()  # empty boards: every column is open


def test_sample_actions_are_legal_and_cover_the_moves():
    batch = pv.make("nine_mens_morris", 64, seed=1)
    seen = set()
    for _ in range(40):
        actions = batch.sample_actions()
        assert batch.action_mask[np.arange(64), actions].all()
        seen.update(actions.tolist())
        batch.step(actions)
    assert len(seen) > 24  # placements and slides


def test_same_seed_same_run_other_seed_other_run():
    def run(seed):
        batch = pv.make("tictactoe", 32, seed=seed)
        for _ in range(12):
            batch.step(batch.sample_actions())
        return batch.states.copy()

    np.testing.assert_array_equal(run(4), run(4))
    assert not np.array_equal(run(4), run(5))


def test_reset_with_seed_restarts_the_generators():
    batch = pv.make("dice_wars", 4, seed=0, maps=2)
    batch.reset(seed=9)
    first = [batch.step(batch.sample_actions())[0].copy() for _ in range(5)]
    batch.reset(seed=9)
    again = [batch.step(batch.sample_actions())[0].copy() for _ in range(5)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_illegal_action_raises_and_changes_nothing():
    batch = pv.make("tictactoe", 3, seed=0)
    batch.step([4, 4, 4])
    before = batch.states.copy()
    with pytest.raises(ValueError, match="illegal in game 1"):
        batch.step([0, 4, 0])  # cell 4 is taken in game 1
    np.testing.assert_array_equal(batch.states, before)
    with pytest.raises(ValueError, match="illegal"):
        batch.step([9, 0, 0])  # out of range
    with pytest.raises(ValueError, match="need 3 actions"):
        batch.step([0, 1])


def test_minus_one_sits_a_game_out():
    batch = pv.make("connect_four", 3, seed=0)
    batch.step([3, -1, 3])
    assert batch.current_player.tolist() == [1, 0, 1]
    assert batch.episode_lengths.tolist() == [1, 0, 1]


def test_finished_games_report_returns_and_restart():
    batch = pv.make("tictactoe", 2, seed=0)
    # X takes the top row in game 0; game 1 plays elsewhere
    for x, o in ((0, 3), (1, 4)):
        batch.step([x, x + 6])
        batch.step([o, o - 1])
    _, rewards, terminations, truncations, _ = batch.step([2, 5])
    assert terminations.tolist() == [True, False] and not truncations.any()
    assert rewards[0].tolist() == [1.0, -1.0] and rewards[1].tolist() == [0.0, 0.0]
    assert batch.episode_lengths[0] == 0 and batch.states[0, 1:10].sum() == 0  # a new game
    assert batch.current_player[0] == 0


def test_observe_other_seat():
    batch = pv.make("tictactoe", 2, seed=0)
    batch.step([4, 0])
    mine = batch.observe(0)
    theirs = batch.observe(1)
    np.testing.assert_array_equal(mine[..., 0], theirs[..., 1])
    assert mine[0, 1, 1, 0] == 1.0  # X's stone in the centre of game 0


def test_torch_views_share_memory():
    torch = pytest.importorskip("torch")
    batch = pv.make("connect_four", 4, seed=0)
    tensors = batch.as_torch()
    batch.step(batch.sample_actions())
    assert torch.equal(tensors["observations"], torch.from_numpy(batch.observations.copy()))
    assert tensors["observations"].data_ptr() == batch.observations.ctypes.data
    batch.step(torch.tensor(batch.sample_actions().copy()))  # tensors are accepted as actions


def test_game_state_of_a_slot():
    batch = pv.make("connect_four", 2, seed=0)
    batch.step([3, 0])
    state = batch.game_state(0)
    assert state.to_string().endswith("...X...")
    state.apply(2)
    assert batch.states[0].tolist() != state.array.tolist()  # a copy


@pytest.mark.parametrize("seat", [0, 1])
def test_gym_vector_env_random_opponent(seat):
    from gymnasium.vector import VectorEnv

    env = pv.GymVectorEnv("tictactoe", 16, seat=seat, seed=3)
    assert isinstance(env, VectorEnv)
    obs, infos = env.reset(seed=3)
    assert obs.shape == (16, 3, 3, 2) and env.observation_space.contains(obs)
    assert (env.batch.current_player == seat).all()
    finished = 0
    total = 0.0
    for _ in range(60):
        mask = env.action_masks()
        actions = np.array([np.flatnonzero(row)[0] for row in mask])  # first legal cell
        obs, rewards, terminations, truncations, infos = env.step(actions)
        assert (env.batch.current_player == seat).all()
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        assert not rewards[~terminations].any()
        finished += int(terminations.sum())
        total += float(rewards.sum())
    assert finished > 40
    # playing the first free cell against random, seat 0 still wins more than it loses
    if seat == 0:
        assert total > 0


def test_gym_vector_env_with_a_policy_opponent():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(18, 9))
    calls = []

    policy = pv.torch_policy(model)

    def counted(obs, mask):
        calls.append(len(obs))
        actions = policy(obs, mask)
        assert mask[np.arange(len(mask)), actions].all()
        return actions

    env = pv.GymVectorEnv("tictactoe", 8, seat=1, opponent=counted, seed=0)
    env.reset()
    assert calls and calls[0] == 8  # every game starts with the opponent (X) to move
    for _ in range(20):
        env.step(env.batch.sample_actions().copy())
    assert (env.batch.current_player == 1).all()


def test_unknown_game_and_options():
    with pytest.raises(ValueError, match="unknown game"):
        pv.make("chess", 2)
    with pytest.raises(ValueError, match="num_envs"):
        pv.make("tictactoe", 0)


def test_parallel_default_depends_on_batch_size_and_threads():
    import numba

    from plies.envs.vector.batch import PARALLEL_MIN_ENVS

    several_threads = numba.get_num_threads() > 1
    assert pv.make("tictactoe", PARALLEL_MIN_ENVS, seed=0).parallel is several_threads
    assert pv.make("tictactoe", PARALLEL_MIN_ENVS - 1, seed=0).parallel is False
    assert pv.make("tictactoe", PARALLEL_MIN_ENVS, seed=0, parallel=False).parallel is False


def test_make_vec_gives_the_compiled_batch_and_sync_mode_the_python_envs():
    import gymnasium

    import plies  # noqa: F401  (registers the ids)

    env = gymnasium.make_vec("plies/ConnectFour-v0", num_envs=8, seat=1)
    assert isinstance(env, pv.GymVectorEnv) and env.spec.id == "plies/ConnectFour-v0"
    obs, _ = env.reset(seed=0)
    assert obs.shape == (8, 6, 7, 2) and (env.batch.current_player == 1).all()
    sync = gymnasium.make_vec("plies/TicTacToe-v0", num_envs=2, vectorization_mode="sync",
                              opponent="alphabeta:depth=2")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    # agent specs play inside the batch too (asked per game), one per other seat if given so
    searched = gymnasium.make_vec("plies/TicTacToe-v0", num_envs=2, opponent="alphabeta:depth=2")
    assert isinstance(searched, pv.GymVectorEnv)
    dice_wars = gymnasium.make_vec("plies/DiceWars-v0", num_envs=2, opponents=["random"] * 3)
    assert len(dice_wars.opponents) == 3


def test_gymnasium_episode_statistics_wrapper_counts_the_learners_episodes():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(pv.GymVectorEnv("connect_four", 16, seat=0, seed=2))
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    returns = np.zeros(16)
    lengths = np.zeros(16, np.int64)
    recorded = 0
    for _ in range(80):
        mask = env.unwrapped.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        _, rewards, terminations, truncations, infos = env.step(actions)
        returns += rewards
        lengths += 1
        done = terminations | truncations
        if done.any():
            assert infos["_episode"].tolist() == done.tolist()
            np.testing.assert_array_equal(infos["episode"]["r"][done], returns[done])
            np.testing.assert_array_equal(infos["episode"]["l"][done], lengths[done])
            recorded += int(done.sum())
            returns[done] = 0
            lengths[done] = 0
    assert recorded > 50
