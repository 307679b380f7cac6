"""The Starlette application of ``plies serve``.

Pages are HTML built here with the board as server-rendered SVG; ``static/app.js`` (no build
step, nothing from a CDN) sends clicks and asks for the agents' moves one by one. Every game
lives in this process under a random id that the page's URL carries, so each browser tab has
its own game. Requests that change a game carry the game's ``version``: a stale or malformed
request gets a 4xx answer and leaves the game as it was.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from plies.agents.specs import available_agents, check_untrusted, parse_spec
from plies.evaluation.store import GameRecord, ResultStore
from plies.games.registry import game_ids, get_game
from plies.play.match import HUMAN, Match
from plies.web import clicks

STATIC = Path(__file__).parent / "static"
MAX_GAMES = 200  # games kept in memory; the oldest unused one goes first
MAX_BODY = 64 * 1024
"""Bytes a request body may have (a move or a new game takes well under 1 KB)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_LIMITS = {"depth": 6, "simulations": 20_000, "max_attacks": 8}
"""The largest value of each search parameter an agent built from a web request may have
(``plies serve --limit KEY=VALUE`` changes them)."""


def _host_name(netloc: str) -> str:
    """The host of ``host[:port]`` (IPv6 in brackets), lower case."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1:].partition("]")[0]
    return netloc.rpartition(":")[0] if netloc.count(":") == 1 else netloc


class RequestGuard:
    """ASGI middleware that refuses what a page on another site could send: a ``Host`` that is
    not one of the server's own names (DNS rebinding), an ``Origin`` other than the server's own,
    a request that changes something without ``Content-Type: application/json`` (a form or a
    ``text/plain`` post needs no permission from the browser), and bodies over ``MAX_BODY``."""

    def __init__(self, app, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = {h.lower().strip("[]") for h in hosts}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        problem = None
        if _host_name(host) not in self.hosts:
            problem = (403, f"requests for host {host!r} are refused: this server answers to "
                            f"{', '.join(sorted(self.hosts))}")
        origin = headers.get("origin")
        if problem is None and origin is not None:
            _, _, netloc = origin.partition("://")
            if netloc.lower() != host.lower():
                problem = (403, f"cross-site request from {origin!r} refused")
        if problem is None and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                problem = (415, f"requests that change a game must be application/json, not {kind or 'untyped'!r}")
            length = headers.get("content-length")
            if problem is None and length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                problem = (413, f"the request body is larger than {MAX_BODY} bytes")
        if problem is not None:
            await JSONResponse({"error": problem[1]}, status_code=problem[0])(scope, receive, send)
            return
        await self.app(scope, receive, send)


@dataclass
class WebGame:
    match: Match
    lock: threading.Lock = field(default_factory=threading.Lock)
    selected: int | None = None


class Games:
    """The games being played, by id (bounded: the least recently used is dropped)."""

    def __init__(self, limit: int = MAX_GAMES) -> None:
        self.limit = limit
        self.games: OrderedDict[str, WebGame] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, match: Match) -> str:
        game_id = secrets.token_urlsafe(9)
        with self.lock:
            self.games[game_id] = WebGame(match)
            while len(self.games) > self.limit:
                self.games.popitem(last=False)
        return game_id

    def get(self, game_id: str) -> WebGame:
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise HTTPException(404, f"no game {game_id!r} (games are kept in memory while the server runs)")
            self.games.move_to_end(game_id)
            return game


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    raw = b""
    async for chunk in request.stream():  # a body without a length is read up to the limit only
        raw += chunk
        if len(raw) > MAX_BODY:
            raise HTTPException(413, f"the request body is larger than {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"{}")
    except json.JSONDecodeError as err:
        raise HTTPException(400, f"the request body is not JSON ({err})") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the request body must be a JSON object")
    return body


def check_request_spec(spec: str, limits: dict[str, float]) -> None:
    """An agent spec from a request: a shipped or owner-registered agent with plain parameters
    (nothing that imports code or names a file), its search parameters within ``limits``."""
    check_untrusted(spec, "a web request")
    _, params = parse_spec(spec)
    for key, value in params.items():
        if key in limits:
            try:
                number = float(value)
            except ValueError:
                continue  # not a number: the agent's own check says so
            if number > limits[key]:
                raise ValueError(f"{key}={value} is above this server's limit of {limits[key]:g} for "
                                 f"agents built from a request (plies serve --limit {key}=N)")


def _int(body: dict[str, Any], key: str) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HTTPException(400, f"{key!r} must be an integer, got {value!r}")
    return value


def _check_version(game: WebGame, body: dict[str, Any]) -> None:
    version = _int(body, "version")
    if version != game.match.version:
        raise HTTPException(409, f"stale request: the game is at version {game.match.version}, "
                                 f"the request was made at version {version}; reload the page")


def game_view(game_id: str, game: WebGame) -> dict[str, Any]:
    """Everything the page shows of a game, as JSON."""
    match = game.match
    state = match.state
    human = match.human_to_move()
    viewer = state.current_player if human else match.viewer
    options = clicks.view_options(state, game.selected, viewer, match.moves)
    legal = []
    if human:
        legal = [{"action": int(a), "name": state.action_to_string(int(a))} for a in state.legal_actions()]
    can_undo = match.can_undo_turn()
    ended = bool(match.log) and match.log[-1].seat is not None and match.log[-1].seat in match.humans and (
        match.state.history[-1] == state.timeout_action())  # the person ended the turn already
    return {
        "id": game_id,
        "game": match.game,
        "version": match.version,
        "ply": match.plies,
        "svg": state.svg(**options),
        "seats": [match.label(s) for s in range(len(match.seats))],
        "log": [line.text for line in match.log[-300:]],
        "human_to_move": human,
        "over": match.over(),
        "result": match.result_text() if match.over() else None,
        "legal": legal,
        "selected": game.selected,
        "can_undo": can_undo,
        # a person's turn in a game with dice ends when they say so, so that it can be undone
        "confirm": can_undo and not human and state.game.has_chance and not ended,
        "end_turn": state.timeout_action() if human else None,
    }


# ----- pages ----------------------------------------------------------------------------------
def page(title: str, body: str, script: str = "") -> HTMLResponse:
    scripts = '<script src="/static/app.js"></script>' if script else ""
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} - plies</title>
<link rel="stylesheet" href="/static/style.css"><link rel="icon" href="data:,">
</head><body data-page="{escape(script)}"><header><a href="/">plies</a> <span>{escape(title)}</span></header>
<main>{body}</main>{scripts}</body></html>"""
    return HTMLResponse(html)


def home(request: Request) -> HTMLResponse:
    app_state = request.app.state
    agents = ", ".join(a for a in available_agents() if a != HUMAN)
    game_options = "".join(f'<option value="{g}">{g}</option>' for g in game_ids())
    # per game: the seats offered, and how many seats it may take (the page's "+ seat")
    defaults = {}
    for g in game_ids():
        declared = get_game(g)
        defaults[g] = {"seats": declared.default_seats(), "max_seats": declared.player_range[1],
                       "more": declared.default_opponent}
    results = ""
    for index, path in enumerate(app_state.results):
        results += f'<li><a href="/results/{index}">{escape(str(path))}</a></li>'
    results = f"<h2>Tournaments</h2><ul>{results}</ul>" if results else (
        "<p class=note>Start with <code>plies serve --results FILE.sqlite</code> to replay a tournament's games "
        "and see its table.</p>")
    body = f"""
<h1>Play a game</h1>
<form id="new-game" data-defaults='{escape(json.dumps(defaults))}'>
<label>Game <select name="game" id="game">{game_options}</select></label>
<div id="seats"></div>
<p class="note">Each seat is <code>human</code> (you, by clicking) or an agent spec, e.g.
<code>alphabeta:depth=4</code>. Agents: {escape(agents)}.</p>
<label>Seed <input name="seed" id="seed" type="number" placeholder="random"></label>
<button type="submit" id="start">Start</button>
<p id="error" class="error"></p>
</form>
{results}"""
    return page("play, watch, replay", body, "home")


def play_page(request: Request) -> HTMLResponse:
    game_id = request.path_params["game_id"]
    game = request.app.state.games.get(game_id)
    view = game_view(game_id, game)
    seats = " vs ".join(escape(s) for s in view["seats"])
    body = f"""
<div class="layout" id="play" data-id="{escape(game_id)}" data-version="{view['version']}">
<div class="board" id="board">{view['svg']}</div>
<aside>
<h2>{escape(game.match.game)}</h2><p class="seats">{seats}</p>
<p id="status" class="status"></p>
<div class="buttons">
<button id="undo" hidden>Undo</button><button id="confirm" hidden>End turn</button>
<button id="end-turn" hidden>End turn</button><button id="hint" hidden>Hint</button>
</div>
<label>Move <select id="moves"></select></label> <button id="play-move">Play</button>
<label>Agent speed <select id="speed">
<option value="0">instant</option><option value="250">fast</option><option value="700" selected>normal</option>
<option value="1500">slow</option></select></label>
<p id="error" class="error"></p>
<ol id="log" class="log"></ol>
</aside></div>"""
    return page(f"{game.match.game} game", body, "play")


def _store(request: Request) -> tuple[Path, dict[str, Any], list[GameRecord]]:
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


def results_page(request: Request) -> HTMLResponse:
    from plies.evaluation.table import WinRateTable

    path, config, records = _store(request)
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
    path, config, records = _store(request)
    number = request.path_params["game"]
    record = next((r for r in records if r.index == number), None)
    if record is None:
        raise HTTPException(404, f"{path} holds no game {number}")
    index = request.path_params["results"]
    body = f"""
<div class="layout" id="replay" data-results="{index}" data-game="{number}" data-plies="{len(record.actions)}">
<div class="board" id="board"></div>
<aside><h2>{escape(config['game'])}, game {number}</h2><p>{escape(" vs ".join(record.seats))}</p>
<div class="buttons"><button id="first">|&lt;</button><button id="back">&lt;</button>
<button id="forward">&gt;</button><button id="last">&gt;|</button><button id="auto">Play</button></div>
<p id="status" class="status"></p><p id="move" class="status"></p></aside></div>"""
    return page(f"replay of game {number}", body, "replay")


# ----- the JSON API ---------------------------------------------------------------------------
async def new_game(request: Request) -> JSONResponse:
    body = await _body(request)
    game = body.get("game")
    seats = body.get("seats")
    if game not in game_ids():
        return _error(400, f"unknown game {game!r}; games: {', '.join(game_ids())}")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        return _error(400, "seats must be a list of agent specs (human for a person)")
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        return _error(400, f"seed must be a non-negative integer, got {seed!r}")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        return _error(400, "options must be an object")
    try:
        for seat in seats:
            if seat.strip() != HUMAN:
                check_request_spec(seat, request.app.state.limits)
        match = Match(game, seats, seed=seed, options=options)
    except (ValueError, TypeError) as err:
        return _error(400, str(err))
    game_id = request.app.state.games.add(match)
    return JSONResponse({"id": game_id, "url": f"/play/{game_id}"}, status_code=201)


def _locked(handler):
    """Run ``handler(game, body)`` on the game under its lock; errors leave the game unchanged."""

    async def endpoint(request: Request) -> JSONResponse:
        game_id = request.path_params["game_id"]
        game = request.app.state.games.get(game_id)
        body = await _body(request) if request.method == "POST" else {}

        def run() -> JSONResponse:
            with game.lock:
                if request.method == "POST":
                    _check_version(game, body)
                try:
                    extra = handler(game, body) or {}
                except HTTPException:
                    raise
                except clicks.ClickError as err:
                    return _error(422, str(err))
                except ValueError as err:
                    return _error(409, str(err))
                except Exception as err:  # an agent that fails: say so; nothing was played
                    return _error(500, f"{type(err).__name__}: {err}")
                return JSONResponse({**game_view(game_id, game), **extra})

        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(run)

    return endpoint


def _view(game: WebGame, body: dict[str, Any]) -> None:
    return None


def _click(game: WebGame, body: dict[str, Any]) -> None:
    match = game.match
    value = _int(body, "value")
    if not match.human_to_move():
        raise ValueError("it is not your turn")
    result = clicks.interpret(match.state, game.selected, value)
    game.selected = result.selected
    if result.action is not None:
        match.play(result.action)


def _move(game: WebGame, body: dict[str, Any]) -> None:
    action = _int(body, "action")
    if not game.match.human_to_move():
        raise ValueError("it is not your turn")
    if not game.match.state.is_legal(action):
        raise clicks.ClickError(f"move {action} is not legal here")
    game.selected = None
    game.match.play(action)


def _step(game: WebGame, body: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    game.selected = None
    game.match.step()
    return {"seconds": time.perf_counter() - start}


def _undo(game: WebGame, body: dict[str, Any]) -> None:
    game.selected = None
    game.match.undo_turn()


def _hint(game: WebGame, body: dict[str, Any]) -> dict[str, Any]:
    match = game.match
    action = match.hint()
    return {"hint": {"action": action, "name": match.state.action_to_string(action)}}


async def replay_api(request: Request) -> JSONResponse:
    path, config, records = _store(request)
    number = request.path_params["game"]
    record = next((r for r in records if r.index == number), None)
    if record is None:
        return _error(404, f"{path} holds no game {number}")
    ply = request.path_params["ply"]
    if not 0 <= ply <= len(record.actions):
        return _error(400, f"ply must be 0 to {len(record.actions)}, got {ply}")
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


async def http_error(request: Request, exc: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return _error(exc.status_code, exc.detail)
    return HTMLResponse(f"<!doctype html><title>{exc.status_code}</title><p>{escape(str(exc.detail))}</p>"
                        "<p><a href='/'>plies</a></p>", status_code=exc.status_code)


def create_app(results: list[str | Path] | None = None, max_games: int = MAX_GAMES,
               hosts: tuple[str, ...] = LOOPBACK, limits: dict[str, float] | None = None):
    """The web app; ``results``: tournament results files whose games can be replayed;
    ``hosts``: the names the server answers to; ``limits``: the largest search parameters of
    agents built from requests (``DEFAULT_LIMITS`` where not given)."""
    paths = [Path(p) for p in results or []]
    for path in paths:
        ResultStore.read_config(path)  # fails now, clearly, for a file that is no results file
    routes = [
        Route("/", home),
        Route("/play/{game_id}", play_page),
        Route("/results/{results:int}", results_page),
        Route("/replay/{results:int}/{game:int}", replay_page),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", _locked(_view), methods=["GET"]),
        Route("/api/games/{game_id}/click", _locked(_click), methods=["POST"]),
        Route("/api/games/{game_id}/move", _locked(_move), methods=["POST"]),
        Route("/api/games/{game_id}/step", _locked(_step), methods=["POST"]),
        Route("/api/games/{game_id}/undo", _locked(_undo), methods=["POST"]),
        Route("/api/games/{game_id}/hint", _locked(_hint), methods=["POST"]),
        Route("/api/replays/{results:int}/{game:int}/{ply:int}", replay_api),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.games = Games(max_games)
    app.state.results = paths
    app.state.limits = {**DEFAULT_LIMITS, **(limits or {})}
    guarded = RequestGuard(app, hosts)
    guarded.state = app.state  # tests and serve reach the app's state through the guard too
    return guarded
