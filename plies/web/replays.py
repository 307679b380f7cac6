"""Tournament results in the browser: a results file's table and games, and each game
replayed ply by ply (``plies serve --results FILE``)."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse

from plies.evaluation.store import GameRecord, ResultStore
from plies.games.registry import get_game
from plies.web import clicks
from plies.web.pages import page


def read_results(request: Request) -> tuple[Path, dict[str, Any], list[GameRecord]]:
    index = request.path_params["results"]
    results = request.app.state.results
    if not 0 <= index < len(results):
        raise HTTPException(404, f"no results file number {index}")
    path = results[index]
    config = ResultStore.read_config(path)
    store = ResultStore(path, config, resume=True)
    try:
        records = list(store.records())
    finally:
        store.close()
    return path, config, records


def recorded_game(request: Request) -> tuple[dict[str, Any], GameRecord]:
    """The tournament configuration and the game the URL names (404 for a game not there)."""
    path, config, records = read_results(request)
    number = request.path_params["game"]
    record = next((r for r in records if r.index == number), None)
    if record is None:
        raise HTTPException(404, f"{path} holds no game {number}")
    return config, record


def results_page(request: Request) -> HTMLResponse:
    from plies.evaluation.table import WinRateTable

    path, config, records = read_results(request)
    table = WinRateTable.from_records(records, config["agents"])
    index = request.path_params["results"]
    heat = _heatmap(table)
    games = "".join(
        f'<tr><td><a href="/replay/{index}/{r.index}">game {r.index}</a></td><td>{escape(" vs ".join(r.seats))}</td>'
        f'<td>{escape(" ".join(f"{x:g}" for x in r.returns))}</td><td>{r.plies}</td></tr>'
        for r in records[:500])
    body = f"""<h1>{escape(config['game'])}: {len(records)} games</h1>
<p class="note">{escape(str(path))}</p>
<h2>Score of the row agent against the column agent (win 1, draw 1/2)</h2>{heat}
<pre class="table">{escape(table.format())}</pre>
<h2>Games</h2><table class="games"><tr><th></th><th>seats</th><th>returns</th><th>plies</th></tr>{games}</table>"""
    return page(f"tournament {path.name}", body)


def _heatmap(table: Any) -> str:
    agents = table.ranking()
    rows = ["<table class='heatmap'><tr><th></th>" + "".join(f"<th>{escape(a)}</th>" for a in agents) + "</tr>"]
    for a in agents:
        cells = []
        for b in agents:
            tally = table.versus.get((a, b)) if a != b else None
            if tally is None or not tally.games:
                cells.append("<td class='empty'></td>")
                continue
            score = (tally.wins + tally.draws / 2) / tally.games
            red, green = int(255 * (1 - score)), int(255 * score)
            cells.append(f"<td style='background:rgb({red},{green},90)'>{score:.2f}</td>")
        rows.append(f"<tr><th>{escape(a)}</th>{''.join(cells)}</tr>")
    return "".join(rows) + "</table>"


def replay_page(request: Request) -> HTMLResponse:
    config, record = recorded_game(request)
    number = record.index
    index = request.path_params["results"]
    body = f"""
<div class="layout" id="replay" data-results="{index}" data-game="{number}" data-plies="{len(record.actions)}">
<div class="board" id="board"></div>
<aside><h2>{escape(config['game'])}, game {number}</h2><p>{escape(" vs ".join(record.seats))}</p>
<div class="buttons"><button id="first">|&lt;</button><button id="back">&lt;</button>
<button id="forward">&gt;</button><button id="last">&gt;|</button><button id="auto">Play</button></div>
<p id="status" class="status"></p><p id="move" class="status"></p></aside></div>"""
    return page(f"replay of game {number}", body, "replay")


async def replay_api(request: Request) -> JSONResponse:
    config, record = recorded_game(request)
    ply = request.path_params["ply"]
    if not 0 <= ply <= len(record.actions):
        raise HTTPException(400, f"ply must be 0 to {len(record.actions)}, got {ply}")
    state = get_game(config["game"]).new_state(record.seed, **config.get("options", {}))
    move, moves = "", []
    for action in record.actions[:ply]:
        move = state.action_to_string(action)
        if not state.is_chance_node():
            moves.append(int(action))
        state.apply(action)
    options = clicks.view_options(state, None, 0, moves)
    return JSONResponse({"svg": state.svg(**options), "ply": ply, "plies": len(record.actions), "move": move,
                         "status": state.render_text().splitlines()[-1]})
