"""Results files are recognised before anything is written; command-line values are checked."""

from __future__ import annotations

import json
import sqlite3

import pytest

from plies.cli import main
from plies.evaluation import run_tournament
from plies.games.registry import new_state

ARGS = ["tournament", "--game", "tictactoe", "--agents", "random", "perfect", "--games", "4",
        "--workers", "1", "--quiet"]


def _foreign(path, statements):
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("statements", [
    ["CREATE TABLE users (id INTEGER, name TEXT)", "INSERT INTO users VALUES (1, 'ann')"],
    ["CREATE TABLE games (id INTEGER, title TEXT)", "INSERT INTO games VALUES (1, 'chess')"],
    ["CREATE TABLE games (id INTEGER, title TEXT)"],
    ["CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
     "CREATE TABLE games (idx INTEGER PRIMARY KEY, record TEXT NOT NULL)"],
])
def test_a_foreign_sqlite_file_is_refused_and_left_byte_identical(tmp_path, capsys, statements):
    path = tmp_path / "myapp.db"
    before = _foreign(path, statements)
    assert main([*ARGS, "--results", str(path)]) == 2
    assert "not a plies results file" in capsys.readouterr().err
    assert main([*ARGS, "--results", str(path), "--resume"]) == 2
    assert main(["report", str(path)]) == 2
    assert "not a plies results file" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert not (tmp_path / "myapp.db-wal").exists()


def test_a_text_file_is_refused_unchanged(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    with pytest.raises(ValueError, match="not an SQLite database"):
        run_tournament("tictactoe", ["random", "perfect"], 2, workers=1, results=path, progress=False)
    assert path.read_text() == "my notes\n"


def test_hand_edited_rows_name_the_file_and_row(tmp_path, capsys):
    path = tmp_path / "r.sqlite"
    assert main([*ARGS, "--results", str(path)]) == 0
    capsys.readouterr()
    db = sqlite3.connect(path)
    good = json.loads(db.execute("SELECT record FROM games WHERE idx = 2").fetchone()[0])
    for bad in ("{not json", json.dumps({**good, "returns": "abc"}), json.dumps({"index": 2}), "[]"):
        db.execute("UPDATE games SET record = ? WHERE idx = 2", (bad,))
        db.commit()
        assert main(["report", str(path)]) == 2
        err = capsys.readouterr().err
        assert "r.sqlite: row 2 is not a plies game record" in err and len(err.strip().splitlines()) == 1
    db.close()


def test_a_full_disk_is_reported_as_such(tmp_path, capsys, monkeypatch):
    connect = sqlite3.connect

    class FullDisk:
        """A connection whose writes of games fail as on a full disk."""

        def __init__(self, *args, **kwargs) -> None:
            self.db = connect(*args, **kwargs)

        def execute(self, sql, *args):
            if sql.startswith("INSERT OR IGNORE INTO games"):
                raise sqlite3.OperationalError("database or disk is full")
            return self.db.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.db, name)

        def __enter__(self):
            return self.db.__enter__()

        def __exit__(self, *exc):
            return self.db.__exit__(*exc)

    monkeypatch.setattr("plies.evaluation.store.sqlite3.connect", FullDisk)
    assert main([*ARGS, "--results", str(tmp_path / "r.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "cannot write results file" in err and "database or disk is full" in err
    assert "not a plies results file" not in err


def test_resume_uses_the_stored_configuration_and_report_flags_incomplete_runs(tmp_path, capsys):
    path = tmp_path / "r.sqlite"
    args = ["tournament", "--game", "tictactoe", "--agents", "random", "alphabeta:depth=1", "perfect",
            "--games", "4", "--seed", "3", "--opening-plies", "1", "--workers", "1", "--quiet"]
    assert main([*args, "--results", str(path)]) == 0
    full = capsys.readouterr().out
    db = sqlite3.connect(path)
    db.execute("DELETE FROM games WHERE idx >= 5")
    db.commit()
    db.close()
    assert main(["report", str(path)]) == 0
    assert "INCOMPLETE: 5 of 12 games" in capsys.readouterr().out
    assert main(["tournament", "--results", str(path), "--resume", "--workers", "1", "--quiet"]) == 0
    assert capsys.readouterr().out == full
    assert main(["report", str(path)]) == 0
    assert "INCOMPLETE" not in capsys.readouterr().out
    assert main(["tournament", "--resume", "--quiet"]) == 2
    assert "--results" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--workers", "0"], "--workers must be an integer >= 1, not 0"),
    (["--games", "0"], "--games must be an integer >= 1, not 0"),
    (["--opening-plies", "-1"], "--opening-plies must be an integer >= 0, not -1"),
    (["--clock", "nan+nan"], "malformed --clock 'nan+nan'"),
    (["--clock=-1+0"], "malformed --clock '-1+0'"),
    (["--clock", "0+0"], "malformed --clock '0+0'"),
])
def test_cli_values_are_checked(capsys, extra, message):
    assert main([*ARGS, *extra]) == 2
    assert message in capsys.readouterr().err


def test_game_options_are_converted_by_their_type(capsys):
    assert main(["tournament", "--game", "connect_four", "--agents", "random", "mcts", "--games", "1",
                 "--quiet", "--workers", "1", "--option", "width=abc"]) == 2
    assert "option width of connect_four is an integer from 1 to 63, not 'abc'" in capsys.readouterr().err
    assert main(["play", "nine_mens_morris", "--players", "random", "random", "--option", "flying=no",
                 "--option", "flying=yes"]) == 2
    assert "--option flying is given twice" in capsys.readouterr().err
    for text, flying in (("no", 0), ("false", 0), ("0", 0), ("yes", 1), ("true", 1), ("1", 1)):
        state = new_state("nine_mens_morris", flying=text)
        assert state.to_string() == new_state("nine_mens_morris", flying=bool(flying)).to_string()
    with pytest.raises(ValueError, match="option flying of nine_mens_morris is a boolean"):
        new_state("nine_mens_morris", flying="maybe")
    with pytest.raises(ValueError, match="option num_players of dice_wars must be an integer from 2 to 8"):
        new_state("dice_wars", num_players=9)
    with pytest.raises(ValueError, match="option turn_cap of nine_mens_morris is an integer"):
        new_state("nine_mens_morris", turn_cap=1.5)
