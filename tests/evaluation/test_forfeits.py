"""Bad agents forfeit their games with a clear reason; the tournament goes on."""

import re

import pytest

from plies.evaluation import run_tournament
from plies.evaluation.tournament import ScheduledGame, TournamentConfig, play_game

M = "tests.agents.sample_agents"


@pytest.mark.parametrize(
    "spec, reason",
    [
        (f"{M}:Illegal", "returned the illegal action 10000"),
        (f"{M}:NotAnInteger", r"returned 1.5 \(float\), not an integer action"),
        (f"{M}:Crashes", "KeyError: 'lost my table'"),
    ],
)
def test_a_misbehaving_agent_forfeits_and_the_tournament_goes_on(spec, reason, tmp_path):
    results = tmp_path / "t.db"
    result = run_tournament("tictactoe", [spec, "random"], games=4, workers=1, progress=False, results=results)
    assert len(result.records) == 4
    for record in result.records:
        seat = record.seats.index(spec)
        assert record.returns[seat] == -1.0 and record.returns[1 - seat] == 1.0
        assert re.search(reason, record.errors[seat])
        assert record.errors[1 - seat] == ""
    from plies.evaluation import ResultStore

    store = ResultStore(results, result.config.as_dict(), resume=True)
    assert [r.errors for r in store.records()] == [r.errors for r in result.records]
    store.close()


def test_a_hanging_agent_is_stopped_by_the_clock():
    config = TournamentConfig("tictactoe", (f"{M}:Sleeper", "random"), 1, clock=(0.2, 0.0))
    record = play_game(config, ScheduledGame(0, 1, (f"{M}:Sleeper", "random")))
    assert record.returns == [-1.0, 1.0] and record.errors[0] == "ran past its clock"
    assert sum(record.decision_seconds) < 5


def test_a_hanging_agent_in_worker_processes_forfeits_and_the_others_finish():
    result = run_tournament("tictactoe", [f"{M}:Sleeper", "random", "lookahead:depth=1"], games=2, workers=2,
                            progress=False, clock=(0.2, 0.0))
    assert len(result.records) == 6
    for record in result.records:
        if f"{M}:Sleeper" in record.seats:
            assert record.errors[record.seats.index(f"{M}:Sleeper")] == "ran past its clock"
        else:
            assert record.errors == ["", ""]


def test_cli_tournament_reports_forfeits(capsys):
    from plies.cli import main

    assert main(["tournament", "--game", "tictactoe", "--agents", f"{M}:NotAnInteger", "random", "--games", "2",
                 "--workers", "1", "--quiet"]) == 0
    assert f"{M}:NotAnInteger forfeited 2 game(s); first: ValueError:" in capsys.readouterr().out


def test_self_play_refuses_to_return_forfeited_games():
    from plies.evaluation import self_play

    with pytest.raises(RuntimeError, match="forfeited: KeyError"):
        self_play("tictactoe", [f"{M}:Crashes", "random"], games=1)
