"""What a request may do: the checks every request passes before it reaches a route, the body
read up to a limit, and the agents a request may ask for (docs/web.md, "What the server trusts").
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from plies.agents.specs import check_untrusted, parse_spec

MAX_BODY = 64 * 1024
"""Bytes a request body may have (a move or a new game takes well under 1 KB)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_LIMITS = {"depth": 6, "simulations": 20_000, "max_attacks": 8, "tt_bits": 20, "time_limit": 30,
                  "budget": 30}
"""The largest value of each cost parameter an agent built from a web request may have: search
size, a transposition table of 2**tt_bits entries (48 bytes each), seconds a move
(``plies serve --limit KEY=VALUE`` changes them)."""


def host_name(netloc: str) -> str:
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
        problem = self.problem(scope["method"], headers)
        if problem is not None:
            await JSONResponse({"error": problem[1]}, status_code=problem[0])(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def problem(self, method: str, headers: dict[str, str]) -> tuple[int, str] | None:
        """(status, why) for a request to refuse, None for one to let through."""
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            return 403, (f"requests for host {host!r} are refused: this server answers to "
                         f"{', '.join(sorted(self.hosts))}")
        origin = headers.get("origin")
        if origin is not None and origin.partition("://")[2].lower() != host.lower():
            return 403, f"cross-site request from {origin!r} refused"
        if method in ("GET", "HEAD", "OPTIONS"):
            return None
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, f"requests that change a game must be application/json, not {kind or 'untyped'!r}"
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return 413, f"the request body is larger than {MAX_BODY} bytes"
        return None


async def read_json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read up to ``MAX_BODY`` bytes (a body without a length too)."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise HTTPException(413, f"the request body is larger than {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
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
