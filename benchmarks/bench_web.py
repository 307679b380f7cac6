"""plies serve and the drawings: how long a move, a page and a picture take.

Serves Connect Four moves of ``alphabeta:depth=4`` through the web app's API in this process
(Starlette's test client: the agent's search, the SVG drawing and the JSON, without a network
or a browser), next to the bare agent's decision in the same positions; then each game's page,
``svg()`` and ``render_rgb()``. The browser's own figures (page load, move round trip) are printed
by ``tests/web/test_browser.py``. Run: ``python benchmarks/bench_web.py``.
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np

from benchmarks.timing import machine
from plies.agents.specs import make as make_agent
from plies.games.registry import game_ids, new_state
from plies.web.app import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def ms(values: list[float]) -> str:
    return f"median {1000 * statistics.median(values):.1f} ms, max {1000 * max(values):.1f} ms"


def serve_connect_four(client: TestClient, games: int = 4) -> tuple[list[float], list[float]]:
    served, bare = [], []
    rng = np.random.default_rng(0)
    for seed in range(games):
        game_id = client.post("/api/games", json={"game": "connect_four", "seats": ["human", "alphabeta:depth=4"],
                                                  "seed": seed}).json()["id"]
        view = client.get(f"/api/games/{game_id}").json()
        agent = make_agent("alphabeta:depth=4", seed=seed)
        while not view["over"]:
            if view["human_to_move"]:
                column = int(rng.choice([m["action"] for m in view["legal"]]))
                view = client.post(f"/api/games/{game_id}/click", json={"version": view["version"], "value": column}).json()
                continue
            match = client.app.state.games.get(game_id).match
            start = time.perf_counter()
            agent.act(match.state.clone())
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            view = client.post(f"/api/games/{game_id}/step", json={"version": view["version"]}).json()
            served.append(time.perf_counter() - start)
    return served, bare


def main() -> None:
    print(f"machine: {machine()}")
    app = create_app()
    with TestClient(app, base_url="http://127.0.0.1") as client:
        client.app = app
        serve_connect_four(client, 1)  # warm-up: numba compiles the search on first use
        served, bare = serve_connect_four(client)
        print(f"Connect Four alphabeta:depth=4 move served (API, in process): {ms(served)} over {len(served)} moves")
        print(f"  the same agent's decision alone: {ms(bare)}; serving adds {ms([s - b for s, b in zip(served, bare)])}")
        for game in game_ids():
            seats = ["random"] * (4 if game == "dice_wars" else 2)
            game_id = client.post("/api/games", json={"game": game, "seats": seats, "seed": 0}).json()["id"]
            times = []
            for _ in range(10):
                start = time.perf_counter()
                assert client.get(f"/play/{game_id}").status_code == 200
                times.append(time.perf_counter() - start)
            state = new_state(game, seed=0)
            draw, raster = [], []
            for _ in range(10):
                start = time.perf_counter()
                state.svg()
                draw.append(time.perf_counter() - start)
                start = time.perf_counter()
                state.render_rgb()
                raster.append(time.perf_counter() - start)
            print(f"{game:17s} page {ms(times)}; svg() {ms(draw)}; render_rgb() {ms(raster)}")


if __name__ == "__main__":
    main()
