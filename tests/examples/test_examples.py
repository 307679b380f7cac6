import pytest

from examples import self_play_aec


def test_self_play_keeps_and_reuses_a_checkpoint_pool(tmp_path):
    pool = tmp_path / "pool"
    rate = self_play_aec.main(["--iterations", "2", "--games-per-iteration", "4", "--snapshot-every", "1",
                               "--pool-dir", str(pool)])
    first = sorted(p.name for p in pool.glob("checkpoint_*.pt"))
    assert first == ["checkpoint_0000.pt", "checkpoint_0001.pt", "checkpoint_0002.pt"]
    assert 0.0 <= rate <= 1.0
    self_play_aec.main(["--iterations", "1", "--games-per-iteration", "2", "--snapshot-every", "1",
                        "--pool-dir", str(pool)])
    assert len(list(pool.glob("checkpoint_*.pt"))) == 3  # iteration 1 again: same name, replaced
    assert not list(pool.glob("*.tmp"))


@pytest.mark.slow
def test_maskable_ppo_beats_random_at_connect_four(tmp_path):
    pytest.importorskip("sb3_contrib")
    from examples import maskable_ppo_connect_four as example

    path = str(tmp_path / "ppo.zip")
    example.train(40000, path, seed=0)
    table = example.evaluate(path, games=100, seed=3).table()
    tally = table.totals[f"sb3:path={path}"]
    assert tally.games == 100
    assert tally.win_rate >= 0.9


@pytest.mark.slow
def test_maskable_ppo_on_the_batched_env_beats_random(tmp_path):
    pytest.importorskip("sb3_contrib")
    from examples import maskable_ppo_vector as example

    path = str(tmp_path / "ppo_vector.zip")
    example.train(200_000, path, num_envs=256, seed=0)
    table = example.evaluate(path, games=100, seed=3).table()
    assert table.totals[f"sb3:path={path}"].win_rate >= 0.9


@pytest.mark.slow
def test_torchrl_ppo_learns_against_random_with_masks():
    pytest.importorskip("torchrl")
    from examples import torchrl_env as example

    # the env raises on an illegal action (the default policy): every masked sample was legal
    rewards = example.train("plies/TicTacToe-v0", iterations=10, frames=512, seed=0)
    assert len(rewards) == 10
    assert sum(rewards[-3:]) / 3 > max(0.15, rewards[0])  # wins more than it loses by the end


@pytest.mark.slow
def test_rllib_ppo_trains_one_masked_policy_per_seat():
    pytest.importorskip("ray.rllib")
    import math

    from examples import rllib_env as example

    # the env raises on an illegal action (the default policy): every masked sample was legal
    results = example.train("tictactoe", iterations=2, seed=0)
    runners = results[-1]["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 1024
    assert runners["num_episodes_lifetime"] > 20
    learners = results[-1]["learners"]
    for seat in ("player_0", "player_1"):
        assert math.isfinite(learners[seat]["policy_loss"])
