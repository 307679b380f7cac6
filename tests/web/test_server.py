"""The web app's JSON API without a browser: games per id, clicks, agents' steps, undo, and
clear 4xx answers for bad or stale requests that leave the game as it was."""

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2, which its test client also takes
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from plies.web.app import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def client():
    app = create_app()
    with TestClient(app, base_url=LOCAL) as c:
        c.app_state = app.state
        yield c


def new(client, game, seats, seed=0, **extra):
    answer = client.post("/api/games", json={"game": game, "seats": seats, "seed": seed, **extra})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def view(client, game_id):
    answer = client.get(f"/api/games/{game_id}")
    assert answer.status_code == 200
    return answer.json()


def test_pages_and_static_files(client):
    home = client.get("/")
    assert home.status_code == 200 and "connect_four" in home.text and "/static/app.js" in home.text
    assert client.get("/static/app.js").status_code == 200
    game_id = new(client, "tictactoe", ["human", "random"])
    page = client.get(f"/play/{game_id}")
    assert page.status_code == 200 and "<svg" in page.text
    assert client.get("/play/nothing").status_code == 404


def test_each_tab_has_its_own_game(client):
    a = new(client, "connect_four", ["human", "random"])
    b = new(client, "connect_four", ["human", "random"])
    assert a != b
    client.post(f"/api/games/{a}/click", json={"version": 0, "value": 2})
    assert view(client, a)["ply"] == 1 and view(client, b)["ply"] == 0


def test_click_plays_and_agents_answer_one_step_at_a_time(client):
    game_id = new(client, "connect_four", ["human", "alphabeta:depth=4"])
    v = client.post(f"/api/games/{game_id}/click", json={"version": 0, "value": 3}).json()
    assert v["log"] == ["X (you) played 4"] and not v["human_to_move"] and v["version"] == 1
    v = client.post(f"/api/games/{game_id}/step", json={"version": 1}).json()
    assert v["human_to_move"] and v["log"][-1].startswith("O (alphabeta:depth=4) played ")
    assert [m["name"] for m in v["legal"]] == [str(c) for c in range(1, 8)]


@pytest.mark.parametrize("body,status,message", [
    ({"version": 0, "value": 9}, 422, "column 10 cannot be played"),
    ({"version": 5, "value": 1}, 409, "stale request"),
    ({"value": 1}, 400, "'version' must be an integer"),
    ({"version": 0, "value": "1"}, 400, "'value' must be an integer"),
])
def test_bad_requests_leave_the_game_alone(client, body, status, message):
    game_id = new(client, "connect_four", ["human", "random"])
    before = view(client, game_id)
    answer = client.post(f"/api/games/{game_id}/click", json=body)
    assert answer.status_code == status and message in answer.json()["error"]
    assert view(client, game_id) == before


def test_more_bad_requests(client):
    game_id = new(client, "connect_four", ["human", "random"])
    json_type = {"Content-Type": "application/json"}
    assert client.post(f"/api/games/{game_id}/click", content=b"{", headers=json_type).status_code == 400
    assert client.post(f"/api/games/{game_id}/click", content=b"{").status_code == 415  # untyped
    assert client.post(f"/api/games/{game_id}/step", json={"version": 0}).json()["error"] == "a person is to move"
    client.post(f"/api/games/{game_id}/click", json={"version": 0, "value": 0})
    late = client.post(f"/api/games/{game_id}/click", json={"version": 1, "value": 0})
    assert late.status_code == 409 and "not your turn" in late.json()["error"]
    assert client.post("/api/games/unknown/step", json={"version": 0}).status_code == 404
    for body, message in [({"game": "chess", "seats": []}, "unknown game"),
                          ({"game": "connect_four", "seats": ["human"]}, "takes 2 players"),
                          ({"game": "connect_four", "seats": ["human", "nobody"]}, "unknown agent"),
                          ({"game": "connect_four", "seats": ["human", "random"], "seed": -1}, "seed")]:
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 400 and message in answer.json()["error"]


def test_backgammon_pick_then_drop_and_undo_inside_the_turn(client):
    game_id = new(client, "backgammon", ["human", "random"], seed=3)
    v = view(client, game_id)
    while not v["human_to_move"]:
        v = client.post(f"/api/games/{game_id}/step", json={"version": v["version"]}).json()
    match = client.app_state.games.get(game_id).match
    start = match.state.clone()
    legal = [int(a) for a in match.state.legal_actions()]
    source = legal[0] // 6 + 1
    picked = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": source}).json()
    assert picked["selected"] == source and picked["version"] == v["version"]
    assert 'stroke="#1e90ff"' in picked["svg"]  # the picked checker and where it can go
    bad = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": 26})
    assert bad.status_code == 422
    target = max(0, source - (legal[0] % 6 + 1))
    moved = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": target}).json()
    assert moved["ply"] == v["ply"] + 1 and moved["can_undo"]
    undone = client.post(f"/api/games/{game_id}/undo", json={"version": moved["version"]}).json()
    assert undone["ply"] == v["ply"] and not undone["can_undo"] and match.state == start
    nothing = client.post(f"/api/games/{game_id}/undo", json={"version": undone["version"]})
    assert nothing.status_code == 409


def test_dice_wars_attack_rolls_the_battle_at_once(client):
    game_id = new(client, "dice_wars", ["human", "random"], seed=1)
    v = view(client, game_id)
    match = client.app_state.games.get(game_id).match
    n = match.state.num_areas
    attack = next(int(a) for a in match.state.legal_actions() if a < n * n)
    source, target = divmod(attack, n)
    v = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": source}).json()
    v = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": target}).json()
    assert v["log"][-2] == f"seat 0 (you) played {source}->{target}" and v["log"][-1] in ("chance: won",
                                                                                             "chance: lost")
    assert v["human_to_move"] and 'class="last-battle"' in v["svg"]
    ended = client.post(f"/api/games/{game_id}/move", json={"version": v["version"], "action": v["end_turn"]}).json()
    assert not ended["human_to_move"] and not ended["confirm"]


def test_hint_names_a_legal_move(client):
    game_id = new(client, "connect_four", ["human", "random"])
    answer = client.post(f"/api/games/{game_id}/hint", json={"version": 0}).json()
    assert answer["hint"]["action"] == 3 and answer["hint"]["name"] == "4"  # the centre opens best


def test_replay_and_table(tmp_path):
    from plies.evaluation import run_tournament

    path = tmp_path / "r.sqlite"
    run_tournament("connect_four", ["random", "alphabeta:depth=2"], 2, seed=0, workers=1, results=path,
                   progress=False)
    with TestClient(create_app([path]), base_url=LOCAL) as client:
        table = client.get("/results/0")
        assert table.status_code == 200 and "heatmap" in table.text and "/replay/0/1" in table.text
        assert client.get("/replay/0/0").status_code == 200
        first = client.get("/api/replays/0/0/0").json()
        second = client.get("/api/replays/0/0/1").json()
        assert first["ply"] == 0 and second["move"] and first["svg"] != second["svg"]
        assert client.get("/api/replays/0/0/9999").status_code == 400
        assert client.get("/api/replays/0/7/0").status_code == 404
        assert client.get("/api/replays/3/0/0").status_code == 404
    with pytest.raises(FileNotFoundError):
        create_app([tmp_path / "missing.sqlite"])


def test_serve_command_binds_to_this_machine_and_checks_its_files(tmp_path, capsys):
    from plies.cli import build_parser, main

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.results == []
    assert main(["serve", "--results", str(tmp_path / "missing.sqlite"), "--games", str(tmp_path / "g.sqlite")]) == 2
    assert "no results file" in capsys.readouterr().err and not (tmp_path / "g.sqlite").exists()
    assert main(["serve", "--move-seconds", "0"]) == 2 and "--move-seconds" in capsys.readouterr().err


def test_dice_wars_replay_marks_the_last_battle(tmp_path):
    from plies.evaluation import run_tournament
    from plies.evaluation.store import ResultStore

    path = tmp_path / "dw.sqlite"
    run_tournament("dice_wars", ["strength_diff", "dw_random"], 1, seed=0, workers=1, results=path,
                   progress=False, options={"num_players": 2})
    store = ResultStore(path, ResultStore.read_config(path), resume=True)
    record = next(store.records())
    store.close()
    with TestClient(create_app([path]), base_url=LOCAL) as client:
        start = client.get(f"/api/replays/0/{record.index}/0").json()
        assert 'class="last-battle"' not in start["svg"]
        later = client.get(f"/api/replays/0/{record.index}/{len(record.actions)}").json()
        assert 'class="last-battle"' in later["svg"] and "wins" in later["status"]


def test_home_offers_each_game_its_declared_seats(client):
    import html
    import json
    import re

    defaults = json.loads(html.unescape(re.search(r"data-defaults='([^']*)'", client.get("/").text).group(1)))
    assert defaults["othello"]["seats"] == ["human", "alphabeta:depth=4"]
    assert defaults["tictactoe"]["seats"] == ["human", "perfect"]
    assert defaults["dice_wars"]["seats"] == ["human"] + ["strength_diff"] * 3
    assert defaults["dice_wars"]["max_seats"] == 8 and defaults["connect_four"]["max_seats"] == 2


def test_othello_by_clicks_with_its_seat_names(client):
    game_id = new(client, "othello", ["human", "alphabeta:depth=2"])
    assert client.get(f"/play/{game_id}").status_code == 200
    v = view(client, game_id)
    assert v["seats"] == ["black (you)", "white (alphabeta:depth=2)"] and 'data-cell="19"' in v["svg"]
    bad = client.post(f"/api/games/{game_id}/click", json={"version": 0, "value": 0})
    assert bad.status_code == 422 and "a1 cannot be played" in bad.json()["error"]
    v = client.post(f"/api/games/{game_id}/click", json={"version": 0, "value": 19}).json()  # d3
    assert v["log"] == ["black (you) played d3"] and not v["human_to_move"]
    v = client.post(f"/api/games/{game_id}/step", json={"version": v["version"]}).json()
    assert v["human_to_move"] and v["log"][-1].startswith("white (alphabeta:depth=2) played ")
    hint = client.post(f"/api/games/{game_id}/hint", json={"version": v["version"]}).json()["hint"]
    assert hint["action"] in [m["action"] for m in v["legal"]]


def test_othello_pass_is_clicked_on_its_bar(client):
    import numpy as np

    rng = np.random.default_rng(0)
    for _ in range(10):  # random games by clicks until a side must pass (the third does, seed 0)
        game_id = new(client, "othello", ["human", "human"])
        v = view(client, game_id)
        while not v["over"] and [m["name"] for m in v["legal"]] != ["pass"]:
            action = int(rng.choice([m["action"] for m in v["legal"]]))
            v = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": action}).json()
        if not v["over"]:
            break
    assert [m["name"] for m in v["legal"]] == ["pass"] and 'data-cell="64"' in v["svg"]
    match = client.app_state.games.get(game_id).match
    seat = match.state.current_player
    v = client.post(f"/api/games/{game_id}/click", json={"version": v["version"], "value": 64}).json()
    assert v["log"][-1] == f"{('black', 'white')[seat]} (human) played pass"
    assert match.state.current_player == 1 - seat and 'data-cell="64"' not in v["svg"]


def test_a_game_goes_on_where_it_was_after_a_restart(tmp_path):
    path = tmp_path / "games.sqlite"
    with TestClient(create_app(games=path), base_url=LOCAL) as client:
        game_id = new(client, "backgammon", ["human", "random"], seed=5)
        v = view(client, game_id)
        while not v["human_to_move"]:
            v = client.post(f"/api/games/{game_id}/step", json={"version": v["version"]}).json()
        first = v["legal"][0]["action"]
        v = client.post(f"/api/games/{game_id}/move", json={"version": v["version"], "action": first}).json()
        before = view(client, game_id)
    with TestClient(create_app(games=path), base_url=LOCAL) as client:  # a new server, the same file
        after = view(client, game_id)
        assert after == before and client.get(f"/play/{game_id}").status_code == 200
        undone = client.post(f"/api/games/{game_id}/undo", json={"version": after["version"]})
        assert undone.status_code == 200 and undone.json()["ply"] == before["ply"] - 1


def test_agents_think_in_worker_processes_and_a_long_search_is_cut(tmp_path):
    # 10 s: the fresh worker's first hint (loading the compiled search, an Othello depth-4
    # search) must fit in it on a loaded 2-core machine; depth 30 never does
    app = create_app(move_workers=1, move_seconds=10, limits={"depth": 30})
    with TestClient(app, base_url=LOCAL) as client:
        quick = new(client, "othello", ["random", "human"], seed=0)
        v = client.post(f"/api/games/{quick}/step", json={"version": 0}).json()
        assert v["ply"] == 1 and v["human_to_move"]
        assert not app.state.moves.agents  # built in the worker, not in the server's process
        slow = new(client, "othello", ["alphabeta:depth=30", "human"], seed=0)
        cut = client.post(f"/api/games/{slow}/step", json={"version": 0})
        assert cut.status_code == 503 and "did not move within 10 s" in cut.json()["error"]
        assert view(client, slow)["ply"] == 0  # unchanged
        again = client.post(f"/api/games/{quick}/hint", json={"version": v["version"]})  # a fresh worker answers
        assert again.status_code == 200 and again.json()["hint"]["action"] in [m["action"] for m in v["legal"]]
        wrong = client.post("/api/games", json={"game": "othello", "seats": ["alphabeta:depth=x", "human"]})
        assert wrong.status_code == 400 and "depth" in wrong.json()["error"]
