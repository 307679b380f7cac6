"""The HTML pages of ``plies serve``: the home page (a new game) and a game's page.

Pages are HTML built here with the board as server-rendered SVG; ``static/app.js`` (no build
step, nothing from a CDN) sends clicks and asks for the agents' moves one by one."""

from __future__ import annotations

import json
from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse

from plies.agents.specs import available_agents
from plies.games.registry import game_ids, get_game
from plies.play.match import HUMAN
from plies.web.api import find_game, game_view


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
    game = find_game(request.app.state.games, game_id)
    view = game_view(game)
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
