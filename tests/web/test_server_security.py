"""No request runs code or names a file; cross-site and oversized requests are refused."""

import json
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from plies.agents import specs  # noqa: E402
from plies.web.app import MAX_BODY, create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command that ran would leave its file here
    with TestClient(create_app(), base_url=LOCAL) as c:
        yield c


def _created(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir())


def test_the_issues_request_runs_no_command(client, tmp_path):
    body = {"game": "tictactoe", "seats": ["human", "os:system:command=touch pwned"]}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 400 and "would import code" in answer.json()["error"]
    # the same as text/plain, as a page on another site would send it without asking
    answer = client.post("/api/games", content=json.dumps(body), headers={"Content-Type": "text/plain"})
    assert answer.status_code == 415
    answer = client.post("/api/games", json=body, headers={"Origin": "http://evil.example"})
    assert answer.status_code == 403
    assert _created(tmp_path) == []


def test_a_request_cannot_name_a_file(client, tmp_path):
    for seat in ("alphabeta:depth=1,table=" + str(tmp_path / "written.npz"),
                 "alphabeta:depth=1,table=t", "expectiminimax:depth=1,eval=../x.pt"):
        answer = client.post("/api/games", json={"game": "tictactoe", "seats": ["human", seat]})
        assert answer.status_code == 400 and "names a file" in answer.json()["error"], seat
    assert _created(tmp_path) == []


def test_search_limits_for_request_agents(client):
    answer = client.post("/api/games", json={"game": "tictactoe", "seats": ["human", "alphabeta:depth=40"]})
    assert answer.status_code == 400 and "limit" in answer.json()["error"]
    answer = client.post("/api/games", json={"game": "tictactoe", "seats": ["human", "alphabeta:depth=2"]})
    assert answer.status_code == 201
    for costly in ("alphabeta:depth=1,tt_bits=29", "alphabeta:depth=1,time_limit=3600",
                   "solver:budget=600"):  # 24 GiB of table; an hour a move
        answer = client.post("/api/games", json={"game": "connect_four", "seats": ["human", costly]})
        assert answer.status_code == 400 and "limit" in answer.json()["error"], costly


def test_foreign_hosts_and_large_bodies_are_refused(client):
    answer = client.get("/", headers={"Host": "attacker.example:8000"})  # DNS rebinding
    assert answer.status_code == 403
    big = b'{"game": "tictactoe", "seats": ["human", "random"], "pad": "' + b"x" * (MAX_BODY + 10) + b'"}'
    answer = client.post("/api/games", content=big, headers={"Content-Type": "application/json"})
    assert answer.status_code == 413
    # the server's own page may post (same origin)
    answer = client.post("/api/games", json={"game": "tictactoe", "seats": ["human", "random"]},
                         headers={"Origin": LOCAL})
    assert answer.status_code == 201


def test_owner_registered_agents_are_offered(tmp_path):
    specs.register("house_random", "plies.agents.random_agent:RandomAgent", replace=True)
    try:
        with TestClient(create_app(), base_url=LOCAL) as c:
            answer = c.post("/api/games", json={"game": "tictactoe", "seats": ["human", "house_random"]})
            assert answer.status_code == 201, answer.text
    finally:
        specs.unregister("house_random")
