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
