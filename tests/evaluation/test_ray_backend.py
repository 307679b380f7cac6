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


@pytest.mark.slow
def test_starting_ray_keeps_the_cli_s_sigterm_handler():
    # ray.init installs its own SIGTERM handler (sys.exit); the CLI's, which stops a command as
    # Ctrl-C does (message, exit status 143), must survive it
    import signal

    from plies.evaluation.interrupts import sigterm_as_interrupt
    from plies.evaluation.ray_watchdog import start_ray

    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with sigterm_as_interrupt():
            ours = signal.getsignal(signal.SIGTERM)
            try:
                start_ray(1)
                assert signal.getsignal(signal.SIGTERM) is ours
            finally:
                ray.shutdown()
    finally:
        signal.signal(signal.SIGTERM, previous)
