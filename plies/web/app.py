"""The Starlette application of ``plies serve``: the routes, and the services they share.

Each concern has its module: ``guard`` (what a request may do), ``store`` (where games live:
an SQLite file), ``moves`` (where agents think: worker processes), ``api`` (the JSON API of a
game), ``pages`` (the HTML pages) and ``replays`` (tournament results and their games).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from html import escape
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from plies.evaluation.store import ResultStore
from plies.web import api, pages, replays
from plies.web.guard import DEFAULT_LIMITS, LOOPBACK, MAX_BODY, RequestGuard
from plies.web.moves import MOVE_SECONDS, MoveService
from plies.web.store import CACHE, KEEP_FINISHED_DAYS, KEEP_IDLE_DAYS, GameStore

STATIC = Path(__file__).parent / "static"
__all__ = ["DEFAULT_LIMITS", "LOOPBACK", "MAX_BODY", "create_app"]


async def http_error(request: Request, exc: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return api.error(exc.status_code, exc.detail)
    return HTMLResponse(f"<!doctype html><title>{exc.status_code}</title><p>{escape(str(exc.detail))}</p>"
                        "<p><a href='/'>plies</a></p>", status_code=exc.status_code)


def create_app(results: list[str | Path] | None = None, games: str | Path | None = None,
               hosts: tuple[str, ...] = LOOPBACK, limits: dict[str, float] | None = None,
               move_workers: int = 0, move_seconds: float = MOVE_SECONDS, cache: int = CACHE,
               keep_finished_days: float = KEEP_FINISHED_DAYS, keep_idle_days: float = KEEP_IDLE_DAYS):
    """The web app. ``results``: tournament results files whose games can be replayed;
    ``games``: the SQLite file that keeps the games (None: in memory only); ``hosts``: the
    names the server answers to; ``limits``: the largest search parameters of agents built from
    requests (``DEFAULT_LIMITS`` where not given); ``move_workers``: processes that compute the
    agents' moves (0: in the request's thread); ``move_seconds``: the longest one move may take."""
    paths = [Path(p) for p in results or []]
    for path in paths:
        ResultStore.read_config(path)  # fails now, clearly, for a file that is no results file
    store = GameStore(games, cache=cache, keep_finished_days=keep_finished_days, keep_idle_days=keep_idle_days)
    try:
        moves = MoveService(move_workers, move_seconds)
    except BaseException:
        store.close()
        raise

    @asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        moves.close()
        store.close()

    routes = [
        Route("/", pages.home),
        Route("/play/{game_id}", pages.play_page),
        Route("/results/{results:int}", replays.results_page),
        Route("/replay/{results:int}/{game:int}", replays.replay_page),
        Route("/api/games", api.new_game, methods=["POST"]),
        Route("/api/games/{game_id}", api.game_endpoint(api.view), methods=["GET"]),
        Route("/api/games/{game_id}/click", api.game_endpoint(api.click), methods=["POST"]),
        Route("/api/games/{game_id}/move", api.game_endpoint(api.move), methods=["POST"]),
        Route("/api/games/{game_id}/step", api.game_endpoint(api.step), methods=["POST"]),
        Route("/api/games/{game_id}/undo", api.game_endpoint(api.undo), methods=["POST"]),
        Route("/api/games/{game_id}/hint", api.game_endpoint(api.hint), methods=["POST"]),
        Route("/api/replays/{results:int}/{game:int}/{ply:int}", replays.replay_api),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error}, lifespan=lifespan)
    app.state.games = store
    app.state.moves = moves
    app.state.results = paths
    app.state.limits = {**DEFAULT_LIMITS, **(limits or {})}
    guarded = RequestGuard(app, hosts)
    guarded.state = app.state  # tests and serve reach the app's state through the guard too
    return guarded
