"""``plies serve``: play, watch and replay games in the browser (extra ``web``).

``create_app`` builds the Starlette application; ``serve`` runs it with uvicorn, bound to
127.0.0.1 unless another host is given. docs/web.md says what the server trusts and refuses."""

from __future__ import annotations

import sys
from pathlib import Path

from plies.agents.specs import register


def create_app(results: list[str | Path] | None = None, hosts: tuple[str, ...] | None = None,
               limits: dict[str, float] | None = None):
    try:
        from plies.web.app import LOOPBACK
        from plies.web.app import create_app as build
    except ImportError as err:
        raise ImportError('plies serve needs Starlette and uvicorn: pip install "plies[web]"') from err
    return build(results, hosts=tuple(hosts or LOOPBACK), limits=limits)


def serve(host: str = "127.0.0.1", port: int = 8000, results: list[str | Path] | None = None,
          agents: dict[str, str] | None = None, limits: dict[str, float] | None = None) -> None:
    """Run the server; ``agents``: name -> ``module:attr`` of the owner's own agents, offered to
    requests under their names (requests themselves never import code)."""
    for name, target in (agents or {}).items():
        register(name, target, replace=True)
    from plies.web.app import LOOPBACK

    hosts = LOOPBACK if host in LOOPBACK else (*LOOPBACK, host)
    app = create_app(results, hosts, limits)
    try:
        import uvicorn
    except ImportError as err:
        raise ImportError('plies serve needs Starlette and uvicorn: pip install "plies[web]"') from err
    if host not in LOOPBACK:
        print(f"plies: warning: listening on {host}, beyond this machine: anyone who can reach it can "
              "create games and run searches on it (docs/web.md)", file=sys.stderr)
    print(f"plies: open http://{host}:{port}/ in a browser (Ctrl-C stops the server)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
