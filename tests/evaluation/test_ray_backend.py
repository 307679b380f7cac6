import pytest

from plies.evaluation import run_tournament

ray = pytest.importorskip("ray", reason="the ray extra is not installed")


@pytest.mark.slow
def test_ray_backend_gives_the_process_backend_s_table():
    agents = ["random", "lookahead:depth=1", "alphabeta:depth=2"]
    local = run_tournament("tictactoe", agents, 4, seed=9, workers=2, opening_plies=1, progress=False)
    try:
        remote = run_tournament("tictactoe", agents, 4, seed=9, workers=2, opening_plies=1,
                                progress=False, backend="ray")
    finally:
        ray.shutdown()
    assert remote.table().format() == local.table().format()
    assert [r.actions for r in remote.records] == [r.actions for r in local.records]


@pytest.mark.slow
def test_self_play_on_ray_gives_the_process_backend_s_games():
    from plies.training.selfplay import generate

    lineups = [("dw_random", "strength_diff", "single_turn", "win_prob")] * 3 + [
        ("win_prob", "win_prob", "dw_random", "strength_diff")]
    options = {"num_players": 4}
    local = generate("dice_wars", lineups, seed=3, workers=2, options=options)
    try:
        remote = generate("dice_wars", lineups, seed=3, workers=2, backend="ray", options=options)
    finally:
        ray.shutdown()
    assert [r.actions for r in remote] == [r.actions for r in local]
    assert [r.returns for r in remote] == [r.returns for r in local]
    assert len({tuple(r.actions) for r in local}) == len(lineups)  # the games differ


@pytest.mark.slow
def test_registered_users_agents_reach_ray_workers():
    from plies.agents import from_policy, register, unregister
    from tests.agents.sample_agents import last_legal_policy

    register("lasts", from_policy(last_legal_policy))
    try:
        local = run_tournament("tictactoe", ["lasts", "random"], 2, seed=1, workers=1, progress=False)
        remote = run_tournament("tictactoe", ["lasts", "random"], 2, seed=1, workers=1, progress=False,
                                backend="ray")
    finally:
        ray.shutdown()
        unregister("lasts")
    assert [r.actions for r in remote.records] == [r.actions for r in local.records]
    assert not any(e for r in remote.records for e in r.errors)
