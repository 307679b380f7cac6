"""The JSON API of ``plies serve``: create a game, then click, move, step an agent, undo or ask
for a hint. Requests that change a game carry the game's ``version``: a stale or malformed
request gets a 4xx answer and leaves the game as it was; a change is saved before it is answered.
Agents' moves come from the server's ``MoveService`` (worker processes), never from the thread
that would answer other clients."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from plies.files import DamagedFileError
from plies.games.registry import game_ids
from plies.play.match import HUMAN, Match
from plies.web import clicks
from plies.web.guard import check_request_spec, read_json_body
from plies.web.moves import AgentError, MoveTimeout
from plies.web.store import GameStore, UnknownGame, WebGame


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def not_found(store: GameStore, game_id: str) -> HTTPException:
    return HTTPException(404, f"no game {game_id!r} (finished games are kept {store.keep_finished / 86400:g} "
                              f"days, others {store.keep_idle / 86400:g} days after their last move)")


def find_game(store: GameStore, game_id: str) -> WebGame:
    """The game to show (without its lock: a page only reads it)."""
    try:
        return store.get(game_id)
    except UnknownGame:
        raise not_found(store, game_id) from None


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


def game_view(game: WebGame) -> dict[str, Any]:
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
        "id": game.id,
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


async def new_game(request: Request) -> JSONResponse:
    body = await read_json_body(request)
    game = body.get("game")
    seats = body.get("seats")
    if game not in game_ids():
        return error(400, f"unknown game {game!r}; games: {', '.join(game_ids())}")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        return error(400, "seats must be a list of agent specs (human for a person)")
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        return error(400, f"seed must be an integer from 0 to 2**63-1, got {seed!r}")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        return error(400, "options must be an object")
    services = request.app.state

    def create() -> JSONResponse:
        try:
            agents = sorted({s.strip() for s in seats if s.strip() != HUMAN})
            for spec in agents:
                check_request_spec(spec, services.limits)
            for spec in agents:  # a wrong name or parameter: 400 before the game exists
                services.moves.check(game, spec)
            match = Match(game, seats, seed=seed, options=options, build_agents=False)
        except (ValueError, TypeError) as err:
            return error(400, str(err))
        except (MoveTimeout, AgentError) as err:
            return error(503, str(err))
        stored = services.games.add(match)
        return JSONResponse({"id": stored.id, "url": f"/play/{stored.id}"}, status_code=201)

    return await run_in_threadpool(create)


Handler = Callable[[State, WebGame, dict[str, Any]], "dict[str, Any] | None"]


def game_endpoint(handler: Handler):
    """Run ``handler(services, game, body)`` holding the game's lock, then save the game and
    answer its view; an error leaves the game as it was."""

    async def endpoint(request: Request) -> JSONResponse:
        game_id = request.path_params["game_id"]
        changes = request.method == "POST"
        body = await read_json_body(request) if changes else {}
        services = request.app.state

        def run() -> JSONResponse:
            try:
                with services.games.use(game_id) as game:
                    if changes:
                        _check_version(game, body)
                    try:
                        extra = handler(services, game, body) or {}
                    except clicks.ClickError as err:
                        return error(422, str(err))
                    except MoveTimeout as err:
                        return error(503, str(err))
                    except AgentError as err:  # the agent failed: say so; nothing was played
                        return error(500, str(err))
                    except ValueError as err:
                        return error(409, str(err))
                    if changes:
                        services.games.save(game)
                    return JSONResponse({**game_view(game), **extra})
            except UnknownGame:
                raise not_found(services.games, game_id) from None
            except DamagedFileError as err:  # a row the store cannot read back: the file is named
                return error(500, str(err))

        return await run_in_threadpool(run)

    return endpoint


def view(services: State, game: WebGame, body: dict[str, Any]) -> None:
    return None


def click(services: State, game: WebGame, body: dict[str, Any]) -> None:
    match = game.match
    value = _int(body, "value")
    if not match.human_to_move():
        raise ValueError("it is not your turn")
    result = clicks.interpret(match.state, game.selected, value)
    game.selected = result.selected
    if result.action is not None:
        match.play(result.action)


def move(services: State, game: WebGame, body: dict[str, Any]) -> None:
    action = _int(body, "action")
    if not game.match.human_to_move():
        raise ValueError("it is not your turn")
    if not game.match.state.is_legal(action):
        raise clicks.ClickError(f"move {action} is not legal here")
    game.selected = None
    game.match.play(action)


def step(services: State, game: WebGame, body: dict[str, Any]) -> dict[str, Any]:
    """One agent decision (computed by the move service) or the dice up to the next decision."""
    start = time.perf_counter()
    match = game.match
    seat = match.agent_to_move()
    action = None
    if seat is not None:
        action = services.moves.move(f"{game.id}/{seat}", match.game, match.seats[seat], match.seed + seat,
                                     match.state)
    game.selected = None
    match.step(action)
    return {"seconds": time.perf_counter() - start}


def undo(services: State, game: WebGame, body: dict[str, Any]) -> None:
    game.selected = None
    game.match.undo_turn()


def hint(services: State, game: WebGame, body: dict[str, Any]) -> dict[str, Any]:
    match = game.match
    if not match.human_to_move():
        raise ValueError("a hint is for a person to move")
    spec = match.declared.hint_agent
    action = services.moves.move(f"{game.id}/hint", match.game, spec, match.seed, match.state)
    return {"hint": {"action": action, "name": match.state.action_to_string(action)}}
