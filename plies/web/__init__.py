"""``plies serve``: play, watch and replay games in the browser (extra ``web``).

``create_app`` builds the Starlette application; ``serve`` runs it with uvicorn, bound to
127.0.0.1 unless another host is given."""

from __future__ import annotations

from pathlib import Path


def create_app(results: list[str | Path] | None = None):
    try:
        from plies.web.app import create_app as build
    except ImportError as err:
        raise ImportError('plies serve needs Starlette and uvicorn: pip install "plies[web]"') from err
    return build(results)


def serve(host: str = "127.0.0.1", port: int = 8000, results: list[str | Path] | None = None) -> None:
    app = create_app(results)
    try:
        import uvicorn
    except ImportError as err:
        raise ImportError('plies serve needs Starlette and uvicorn: pip install "plies[web]"') from err
    print(f"plies: open http://{host}:{port}/ in a browser (Ctrl-C stops the server)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
