import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter

import pytest

from plies.cli import main
from plies.evaluation import ResultStore, TournamentConfig, WinRateTable, run_tournament, schedule
from tests.processes import linux_only, live_members

AGENTS = ["random", "lookahead:depth=1", "alphabeta:depth=2"]


def test_two_player_schedule_swaps_seats_within_seed_pairs():
    plan = schedule(TournamentConfig("tictactoe", tuple(AGENTS), games=4, seed=3))
    assert len(plan) == 3 * 4
    pairs = Counter(frozenset(g.seats) for g in plan)
    assert set(pairs.values()) == {4}
    for first, second in zip(plan[::2], plan[1::2]):
        assert first.seed == second.seed
        assert first.seats == second.seats[::-1]
    assert len({g.seed for g in plan}) == 3 * 2


def test_n_player_schedule_plays_every_rotation():
    plan = schedule(TournamentConfig("tictactoe", ("random", "perfect"), games=2))
    assert [g.seats for g in plan] == [("random", "perfect"), ("perfect", "random")]


def table_text(result) -> str:
    return result.table().format()


def test_same_seed_same_tournament_and_workers_do_not_change_it():
    one = run_tournament("tictactoe", AGENTS, 6, seed=5, workers=1, opening_plies=2, progress=False)
    again = run_tournament("tictactoe", AGENTS, 6, seed=5, workers=1, opening_plies=2, progress=False)
    parallel = run_tournament("tictactoe", AGENTS, 6, seed=5, workers=2, opening_plies=2, progress=False)
    assert [r.returns for r in one.records] == [r.returns for r in again.records]
    assert table_text(one) == table_text(again) == table_text(parallel)
    other = run_tournament("tictactoe", AGENTS, 6, seed=6, workers=1, opening_plies=2, progress=False)
    assert [r.seed for r in other.records] != [r.seed for r in one.records]


def test_opening_plies_make_deterministic_agents_meet_varied_positions():
    result = run_tournament("tictactoe", ["perfect", "alphabeta:depth=3"], 10, seed=1,
                            workers=1, opening_plies=2, progress=False)
    openings = [tuple(r.actions[:2]) for r in result.records]
    assert openings[0::2] == openings[1::2]  # both games of a pair start alike
    assert len(set(openings)) >= 3  # pairs start differently


def test_table_counts_wins_draws_losses():
    result = run_tournament("tictactoe", ["random", "perfect"], 20, seed=0, workers=1, progress=False)
    table = result.table()
    perfect, rnd = table.totals["perfect"], table.totals["random"]
    assert perfect.losses == 0
    assert perfect.wins == rnd.losses and perfect.draws == rnd.draws
    assert perfect.games == rnd.games == 20
    assert table.ranking()[0] == "perfect"
    assert "perfect" in table.format().splitlines()[2]


def test_results_are_stored_and_resume_skips_finished_games(tmp_path):
    path = tmp_path / "results.sqlite"
    full = run_tournament("tictactoe", AGENTS, 4, seed=2, workers=1, results=path, progress=False)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM games WHERE idx >= 7")
    db.commit()
    db.close()
    with pytest.raises(ValueError, match="--resume"):
        run_tournament("tictactoe", AGENTS, 4, seed=2, workers=1, results=path, progress=False)
    resumed = run_tournament("tictactoe", AGENTS, 4, seed=2, workers=1, results=path, resume=True, progress=False)
    assert table_text(resumed) == table_text(full)
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament("tictactoe", AGENTS, 5, seed=2, workers=1, results=path, resume=True, progress=False)


def test_rename_agent_renames_it_everywhere_or_nowhere(tmp_path):
    from plies.evaluation.store import rename_agent

    path = tmp_path / "results.sqlite"
    run_tournament("tictactoe", AGENTS, 4, seed=2, workers=1, results=path, progress=False)
    held = path.read_bytes()
    with pytest.raises(ValueError, match="no agent 'minimax'"):
        rename_agent(path, "minimax", "minimax:depth=2")
    with pytest.raises(ValueError, match="renamed to itself"):
        rename_agent(path, "random", "random")
    with pytest.raises(ValueError, match="already one of its agents"):
        rename_agent(path, "random", "lookahead:depth=1")
    assert path.read_bytes() == held
    renamed = rename_agent(path, "lookahead:depth=1", "lookahead")
    config = ResultStore.read_config(path)
    assert config["agents"] == ["random", "lookahead", "alphabeta:depth=2"]
    store = ResultStore(path, config, resume=True)
    records = list(store.records())
    store.close()
    assert renamed == sum("lookahead" in r.seats for r in records) > 0
    assert not any("lookahead:depth=1" in r.seats for r in records)
    # the renamed file resumes under the new name, not under the old one
    run_tournament("tictactoe", config["agents"], 4, seed=2, workers=1, results=path, resume=True, progress=False)
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament("tictactoe", AGENTS, 4, seed=2, workers=1, results=path, resume=True, progress=False)


KILLED_AGENTS = ["random", "alphabeta:depth=3", "lookahead:depth=2"]


def start_and_stop_a_tournament(path, sig: int, workers: int = 1, again_after: float | None = None,
                                group: bool | None = None) -> subprocess.Popen:
    """A CLI tournament stopped by ``sig`` once it has stored ten games; returns the process.

    With ``group`` (by default: with ``again_after``), ``sig`` goes to the whole process group
    (workers too, as a terminal's Ctrl-C does), else to the tournament's process alone; with
    ``again_after``, that many seconds later to the tournament's process once more."""
    group = again_after is not None if group is None else group
    # enough games (300 of Connect Four) that the signal lands well before the end
    args = ["tournament", "--game", "connect_four", "--agents", *KILLED_AGENTS, "--games", "100",
            "--seed", "4", "--workers", str(workers), "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "plies.cli", *args, "--results", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            # Ctrl-C as a terminal gives it, even when these tests run where it is ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    stored = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
        if path.exists():
            try:
                stored = sqlite3.connect(path).execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if stored >= 10:
                break
    assert proc.poll() is None, "the tournament finished before it could be stopped"
    (os.killpg if group else os.kill)(proc.pid, sig)
    if again_after is not None:
        time.sleep(again_after)
        os.kill(proc.pid, sig)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError("the stopped tournament did not end within 60 s") from None
    return proc


def test_a_killed_tournament_resumes_without_losing_or_repeating_games(tmp_path):
    path = tmp_path / "killed.sqlite"
    agents = KILLED_AGENTS
    start_and_stop_a_tournament(path, signal.SIGKILL)
    config = ResultStore.read_config(path)
    assert 10 <= ResultStore(path, config, resume=True).count() < 300
    resumed = run_tournament("connect_four", agents, 100, seed=4, workers=1, results=path,
                             resume=True, progress=False)
    straight = run_tournament("connect_four", agents, 100, seed=4, workers=1, progress=False)
    assert len(resumed.records) == 300
    assert table_text(resumed) == table_text(straight)


def test_ctrl_c_stops_a_tournament_with_a_message_and_keeps_its_games(tmp_path):
    path = tmp_path / "interrupted.sqlite"
    proc = start_and_stop_a_tournament(path, signal.SIGINT)
    err = proc.stderr.read()
    assert proc.returncode == 130
    assert f"interrupted: the finished games are in {path}" in err and "--resume" in err
    assert "Traceback" not in err
    config = ResultStore.read_config(path)
    assert 10 <= ResultStore(path, config, resume=True).count() < 300


def test_a_second_ctrl_c_while_the_workers_stop_neither_hangs_nor_loses_games(tmp_path):
    # a double Ctrl-C, or `timeout --signal=INT` (the process, then its group): the second signal
    # used to land inside the pool's shutdown, before the workers were told to end, and the
    # tournament then hung for ever at exit
    path = tmp_path / "twice.sqlite"
    proc = start_and_stop_a_tournament(path, signal.SIGINT, workers=2, again_after=0.1)
    err = proc.stderr.read()
    # 130, or killed by the second SIGINT once Python had begun to exit (a shell says 130 for both)
    assert proc.returncode in (130, -signal.SIGINT), err
    assert f"interrupted: the finished games are in {path}" in err and "Traceback" not in err
    config = ResultStore.read_config(path)
    assert 10 <= ResultStore(path, config, resume=True).count() < 300


@linux_only
def test_sigterm_stops_a_tournament_as_ctrl_c_does_and_ends_its_workers(tmp_path):
    # `kill PID`, a batch system's time limit, or a background job started with Ctrl-C ignored:
    # the signal reaches the tournament's process alone, which must end its workers itself
    path = tmp_path / "terminated.sqlite"
    proc = start_and_stop_a_tournament(path, signal.SIGTERM, workers=2)
    err = proc.stderr.read()
    assert proc.returncode == 143, err
    assert f"interrupted: the finished games are in {path}" in err and "Traceback" not in err
    # the workers end with it (stopped by it, or by their own watch on it)
    deadline = time.time() + 30
    while live_members(proc.pid) and time.time() < deadline:
        time.sleep(0.1)
    assert not live_members(proc.pid), "worker processes outlived the stopped tournament"
    config = ResultStore.read_config(path)
    assert 10 <= ResultStore(path, config, resume=True).count() < 300


@linux_only
def test_a_second_sigterm_while_the_workers_stop_ends_the_tournament_and_keeps_its_games(tmp_path):
    # `kill PID` twice: the first is taken as Ctrl-C; the second is not caught (SIGTERM's
    # default again), so it ends the process at once; the stored games stay readable and resume
    path = tmp_path / "twice_terminated.sqlite"
    proc = start_and_stop_a_tournament(path, signal.SIGTERM, workers=2, again_after=0.1, group=False)
    err = proc.stderr.read()
    assert proc.returncode in (143, -signal.SIGTERM), err
    deadline = time.time() + 30
    while live_members(proc.pid) and time.time() < deadline:
        time.sleep(0.1)
    assert not live_members(proc.pid), "worker processes outlived the stopped tournament"
    config = ResultStore.read_config(path)
    done = ResultStore(path, config, resume=True).count()
    assert 10 <= done < 300
    resumed = run_tournament("connect_four", KILLED_AGENTS, 100, seed=4, workers=1, results=path,
                             resume=True, progress=False)
    assert len(resumed.records) == 300


def test_cli_tournament_report_and_errors(tmp_path, capsys):
    path = tmp_path / "cli.sqlite"
    assert main(["tournament", "--game", "tictactoe", "--agents", "random", "perfect", "--games", "4",
                 "--workers", "1", "--results", str(path), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "perfect" in printed and "win%" in printed
    assert main(["report", str(path)]) == 0
    report = capsys.readouterr().out
    assert printed.strip().splitlines()[-1] in report
    assert main(["tournament", "--game", "chess", "--agents", "random", "random"]) == 2
    assert "unknown game 'chess'; games: tictactoe" in capsys.readouterr().err
    assert main(["tournament", "--game", "tictactoe", "--agents", "random", "wizard"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'wizard'; agents:" in err and len(err.strip().splitlines()) == 1
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_text("not a database at all" * 100)
    assert main(["report", str(bogus)]) == 2
    assert "not a plies results file" in capsys.readouterr().err


def test_cli_help_explains_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = capsys.readouterr().out
    for option in ("--game", "--agents", "--games", "--seed", "--workers", "--results", "--resume",
                   "--opening-plies"):
        assert option in text


def test_win_rate_table_from_n_player_records():
    from plies.evaluation.store import GameRecord

    records = [
        GameRecord(0, 1, ["a", "b", "c"], [1.0, -0.5, -0.5], 10, False, [0, 0, 0], [1, 1, 1], []),
        GameRecord(1, 1, ["b", "c", "a"], [0.0, 0.0, 0.0], 10, False, [0, 0, 0], [1, 1, 1], []),
    ]
    table = WinRateTable.from_records(records, ["a", "b", "c"])
    assert (table.totals["a"].wins, table.totals["a"].draws) == (1, 1)
    assert table.versus["b", "a"].losses == 1 and table.versus["b", "a"].games == 2


def test_self_play_records_replay_to_their_results():
    from plies.evaluation import self_play
    from plies.games.registry import new_state

    records = self_play("tictactoe", ["alphabeta:depth=2", "alphabeta:depth=2"], 6, seed=1, opening_plies=2)
    assert [r.index for r in records] == list(range(6))
    assert len({tuple(r.actions) for r in records}) > 1
    for record in records:
        state = new_state("tictactoe")
        for action in record.actions:
            state.apply(action)
        assert state.returns().tolist() == record.returns
    again = self_play("tictactoe", ["alphabeta:depth=2", "alphabeta:depth=2"], 6, seed=1, opening_plies=2,
                      workers=2)
    assert [r.actions for r in again] == [r.actions for r in records]


def test_a_lineup_of_the_wrong_number_of_seats_is_refused_before_play():
    from plies.training.selfplay import generate

    with pytest.raises(ValueError, match="dice_wars here has 4 seats, but its lineup names 2 agents"):
        generate("dice_wars", [("dw_random", "dw_random")], seed=3)
    with pytest.raises(ValueError, match="tictactoe here has 2 seats, but its lineup names 3 agents"):
        generate("tictactoe", [("random", "random", "random")], seed=3)
