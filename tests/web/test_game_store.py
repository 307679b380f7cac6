"""The server's games file: every game survives a restart where it was (dice to come included),
old games go by the documented rule, and a file that is not ours, or is damaged, is refused."""

import sqlite3

import numpy as np
import pytest

from plies.files import DamagedFileError
from plies.games.registry import game_ids
from plies.play.match import Match
from plies.web.store import DAY, GameStore, UnknownGame


def played(game: str, seed: int, plies: int) -> Match:
    """A match of random agents ``plies`` steps in (an agent's move or a run of dice each)."""
    seats = ["random"] * (3 if game == "dice_wars" else 2)
    match = Match(game, seats, seed=seed)
    for _ in range(plies):
        if match.over():
            break
        match.step()
    return match


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("game", game_ids())
def test_a_match_is_rebuilt_from_its_record_and_plays_on_the_same(game):
    match = played(game, seed=3, plies=25)
    copy = Match.from_record(match.to_record())
    assert copy.state.history == match.state.history and copy.version == match.version
    assert [line.text for line in copy.log] == [line.text for line in match.log]
    for _ in range(15):  # the same dice from here on (the agents' moves given to both)
        if match.over():
            break
        seat = match.agent_to_move()
        action = None if seat is None else match.agent(seat).act(match.state.clone())
        match.step(action)
        copy.step(action)
    assert copy.state.history == match.state.history


def test_a_record_with_an_illegal_move_is_refused():
    record = played("connect_four", seed=1, plies=4).to_record()
    record["moves"][2][1] = 99
    with pytest.raises(ValueError, match="not legal"):
        Match.from_record(record)


def test_games_survive_a_restart(tmp_path):
    path = tmp_path / "games.sqlite"
    store = GameStore(path)
    ids = {}
    for seed, game in enumerate(game_ids()):
        match = played(game, seed, 10)
        stored = store.add(match)
        with store.use(stored.id) as held:
            if not held.match.over():
                held.match.step()
                store.save(held)
        ids[stored.id] = (list(match.state.history), match.version)
    store.close()
    again = GameStore(path)
    assert again.count() == len(ids)
    for game_id, (history, version) in ids.items():
        game = again.get(game_id)
        assert game.match.state.history == history and game.match.version == version
    again.close()


def test_the_cache_forgets_objects_not_games(tmp_path):
    store = GameStore(tmp_path / "g.sqlite", cache=2)
    added = [store.add(played("tictactoe", seed, 3)).id for seed in range(6)]
    assert len(store.cache) == 2
    for game_id in added:
        assert store.get(game_id).match.plies == 3
    with store.use(added[0]) as first:  # a game in use stays while others come and go
        for game_id in added[1:]:
            store.get(game_id)
        assert added[0] in store.cache and store.cache[added[0]] is first
    store.close()


def test_old_games_expire_by_the_rule():
    clock = Clock()
    store = GameStore(None, keep_finished_days=1, keep_idle_days=5, clock=clock)
    finished = played("tictactoe", seed=0, plies=20)
    assert finished.over()
    done = store.add(finished).id
    going = store.add(played("tictactoe", seed=1, plies=2)).id
    clock.now += 0.9 * DAY
    assert store.expire() == 0
    clock.now += 0.2 * DAY
    assert store.expire() == 1
    with pytest.raises(UnknownGame):
        store.get(done)
    clock.now += 3.5 * DAY
    with store.use(going) as game:  # a move resets the idle clock
        game.match.step()
        store.save(game)
    clock.now += 4.9 * DAY
    assert store.expire() == 0 and store.get(going).match.plies == 3
    clock.now += 0.2 * DAY
    assert store.expire() == 1 and store.count() == 0


def test_one_server_per_file(tmp_path):
    path = tmp_path / "g.sqlite"
    first = GameStore(path)
    with pytest.raises((RuntimeError, OSError), match="in use|locked"):
        GameStore(path)
    first.close()
    GameStore(path).close()


def test_other_files_are_refused_and_left_unchanged(tmp_path):
    text = tmp_path / "notes.sqlite"
    text.write_text("my notes")
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE games (id TEXT, score INTEGER)")
    db.commit()
    db.close()
    for path in (text, other):
        before = path.read_bytes()
        with pytest.raises(DamagedFileError, match="not a plies games file"):
            GameStore(path)
        assert path.read_bytes() == before


def test_a_damaged_file_is_recognised(tmp_path):
    path = tmp_path / "g.sqlite"
    store = GameStore(path)
    for seed in range(30):
        store.add(played("othello", seed, 10))
    store.close()
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(0)
    for offset in rng.integers(4096, len(data), 200):  # scribble over the pages after the first
        data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFileError, match="not a plies games file"):
        GameStore(path)


def test_a_damaged_row_names_the_game_and_the_file(tmp_path):
    path = tmp_path / "g.sqlite"
    store = GameStore(path)
    game_id = store.add(played("connect_four", 0, 4)).id
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET record = ? WHERE id = ?", ('{"game": "connect_four"}', game_id))
    db.commit()
    db.close()
    store = GameStore(path)
    with pytest.raises(DamagedFileError, match=f"{game_id}.*g.sqlite"):
        store.get(game_id)
    store.close()
