"""``plies serve``: play, watch and replay games in the browser (extra ``web``).

``create_app`` builds the Starlette application; ``serve`` runs it with uvicorn, bound to
127.0.0.1 unless another host is given, its games kept in an SQLite file and its agents
thinking in worker processes. docs/web.md says what the server trusts and refuses."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from plies.agents.specs import register

_NEEDS = 'plies serve needs Starlette, uvicorn and platformdirs: pip install "plies[web]"'


def default_games_file() -> Path:
    """Where ``plies serve`` keeps its games unless told (the user's data folder)."""
    try:
        import platformdirs
    except ImportError as err:
        raise ImportError(_NEEDS) from err
    return platformdirs.user_data_path("plies") / "games.sqlite"


def default_move_workers() -> int:
    """Processes for the agents' moves: one per core, at least one."""
    return max(1, os.cpu_count() or 1)


def create_app(results: list[str | Path] | None = None, hosts: tuple[str, ...] | None = None,
               limits: dict[str, float] | None = None, **options: Any):
    """The web app (``options``: the games file, move workers... of ``plies.web.app.create_app``)."""
    try:
        from plies.web.app import LOOPBACK
        from plies.web.app import create_app as build
    except ImportError as err:
        raise ImportError(_NEEDS) from err
    return build(results, hosts=tuple(hosts or LOOPBACK), limits=limits, **options)


def serve(host: str = "127.0.0.1", port: int = 8000, results: list[str | Path] | None = None,
          agents: dict[str, str] | None = None, limits: dict[str, float] | None = None,
          games: str | Path | None = None, move_workers: int | None = None, **options: Any) -> None:
    """Run the server; ``agents``: name -> ``module:attr`` of the owner's own agents, offered to
    requests under their names (requests themselves never import code); ``games``: the games
    file (default ``default_games_file()``); ``move_workers``: processes for agents' moves
    (default one per core)."""
    for name, target in (agents or {}).items():
        register(name, target, replace=True)
    from plies.web.app import LOOPBACK

    if games is None:
        games = default_games_file()
    hosts = LOOPBACK if host in LOOPBACK else (*LOOPBACK, host)
    workers = default_move_workers() if move_workers is None else move_workers
    app = create_app(results, hosts, limits, games=games, move_workers=workers, **options)
    try:
        import uvicorn
    except ImportError as err:
        raise ImportError(_NEEDS) from err
    if host not in LOOPBACK:
        print(f"plies: warning: listening on {host}, beyond this machine: anyone who can reach it can "
              "create games and run searches on it (docs/web.md)", file=sys.stderr)
    print(f"plies: games are kept in {games}")
    print(f"plies: open http://{host}:{port}/ in a browser (Ctrl-C stops the server)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
