"""Specs from files are checked before anything is imported: a shared ladder or results file
cannot run code."""

import json

import pytest

from plies.agents.specs import UntrustedSpecError, check_untrusted, make
from plies.cli import main
from plies.evaluation import ResultStore, TournamentConfig
from plies.evaluation.rating import Ladder, ladder_path, renamed_spec


def _ladder_file(tmp_path, spec):
    data = json.loads(ladder_path("tictactoe").read_text())
    data["rungs"][-1]["spec"] = spec
    path = tmp_path / "shared_ladder.json"
    path.write_text(json.dumps(data))
    return path


def test_a_ladder_file_with_an_importing_spec_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _ladder_file(tmp_path, "os:system:command=touch pwned")
    with pytest.raises(UntrustedSpecError, match="would import code"):
        Ladder.load(path)
    path = _ladder_file(tmp_path, "alphabeta:depth=1,table=written.npz")
    with pytest.raises(UntrustedSpecError, match="names a file"):
        Ladder.load(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared_ladder.json"]


def _results_file(tmp_path, *agents):
    """A results file of a tournament between ``agents``, written directly (nothing is played)."""
    path = tmp_path / "shared_results.sqlite"
    ResultStore(path, TournamentConfig("tictactoe", agents, 2).as_dict(), resume=False).close()
    return path


@pytest.mark.parametrize("spec, message", [("os:system:command=touch PWNED", "would import code"),
                                           ("alphabeta:depth=1,table=written.npz", "names a file")])
def test_resuming_a_results_file_with_an_importing_spec_runs_nothing(tmp_path, monkeypatch, capsys, spec, message):
    monkeypatch.chdir(tmp_path)
    path = _results_file(tmp_path, "random", spec)
    assert main(["tournament", "--results", str(path), "--resume", "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"the results file {path}" in err and message in err
    assert "give its agents on the command line instead: --agents" in err
    made = [p.name for p in tmp_path.iterdir() if not p.name.startswith("shared_results.sqlite")]
    assert made == []  # no PWNED, no table file


def test_resuming_a_results_file_of_plain_specs_plays_its_tournament(tmp_path, capsys):
    path = _results_file(tmp_path, "random", "alphabeta:depth=1")
    assert main(["tournament", "--results", str(path), "--resume", "--workers", "1", "--quiet"]) == 0
    assert "alphabeta:depth=1" in capsys.readouterr().out
    assert main(["report", str(path)]) == 0
    assert "tictactoe: 2 games stored" in capsys.readouterr().out


def test_the_shipped_ladders_pass_the_check():
    from plies.games.registry import game_ids

    for game in game_ids():
        assert Ladder.load(game).specs()


@pytest.mark.parametrize("spec", ["random", "alphabeta:depth=2", "mcts:simulations=50,name=m",
                                  "expectiminimax:depth=1,eval=td80"])
def test_plain_specs_are_accepted(spec):
    check_untrusted(spec, "a test")


@pytest.mark.parametrize("spec", ["os:system", "pkg.mod:Name:x=1", "nosuchagent", "alphabeta:table=/tmp/t",
                                  "mcts:name=../../x", "expectiminimax:eval=~/net.pt"])
def test_importing_unknown_and_file_specs_are_refused(spec):
    with pytest.raises(UntrustedSpecError):
        check_untrusted(spec, "a test")


@pytest.mark.parametrize("spec", ["random", "alphabeta:depth=1"])
def test_the_suggested_rename_is_a_spec_that_works(spec):
    renamed = renamed_spec(spec, "mine")
    agent = make(renamed, game="tictactoe")
    assert agent.name == "mine"


@pytest.mark.parametrize("text", ["{not json", '{"coefficients": {"bias": 1}}', '{"coefficients": {"bias": "x", '
                                  '"region": 1, "dice": 1}}', '{"coefficients": {"bias": NaN, "region": 1, "dice": 1}}'])
def test_a_damaged_win_prob_file_is_an_error_naming_it(tmp_path, text):
    from plies.files import DamagedFileError
    from plies.games.dice_wars.state import WIN_PROB_FILE, load_win_prob_coefficients

    path = tmp_path / "win_prob.json"
    path.write_text(text)
    with pytest.raises(DamagedFileError, match="win_prob.json"):
        load_win_prob_coefficients(path)
    assert set(load_win_prob_coefficients(WIN_PROB_FILE)) == {"bias", "region", "dice"}
