"""One picture of every game: SVG built as text, shown in Jupyter and rasterised for rgb frames.

Each game has a ``drawing`` module next to its ``state`` module with ``svg(state, **options)``,
named in its ``Game`` declaration (``draw=drawing.svg``). States get ``svg()``, ``_repr_svg_()``
and ``render_rgb()`` from ``GameState``; this module holds the shared SVG helpers and the
rasteriser, and names no game.

Clickable parts of a drawing carry ``data-*`` attributes (``data-col``, ``data-point``,
``data-area``, ...). The front end sends the clicked part's number, and the game's declared
``click(state, selected, value) -> Click`` hook says what it means: a move, or a piece picked
whose move needs a second click. This module holds the generic pieces of that contract
(``Click``, ``ClickError``) and the defaults of the other per-game front-end hooks, so the games'
drawing modules need nothing from the web layer.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def hex_color(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def text(x: float, y: float, content: Any, size: float = 12, fill: str = "#222", anchor: str = "middle",
         weight: str = "normal", extra: str = "") -> str:
    """A text element centred (vertically too) on (x, y)."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" fill="{fill}" text-anchor="{anchor}" '
            f'dominant-baseline="central" font-weight="{weight}"{extra}>{escape(str(content))}</text>')


def document(width: float, height: float, body: list[str], background: str = "#ffffff",
             title: str = "") -> str:
    """A standalone SVG document of the given size."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}">')
    parts = [head]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts.append(f'<rect width="{width:.0f}" height="{height:.0f}" fill="{background}"/>')
    parts.extend(body)
    parts.append("</svg>")
    return "\n".join(parts)


def rasterise(svg: str, scale: float = 1.0) -> np.ndarray:
    """An SVG document as an H x W x 3 uint8 array (resvg, composited on white)."""
    try:
        import resvg_py
        from PIL import Image
    except ImportError as err:
        raise ImportError('rgb pictures need resvg-py and Pillow: pip install "plies[draw]"') from err
    options: dict[str, Any] = {"svg_string": svg}
    if scale != 1.0:
        options["zoom"] = scale
    png = resvg_py.svg_to_bytes(**options)
    image = Image.open(io.BytesIO(bytes(png))).convert("RGBA")
    background = Image.new("RGBA", image.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(background, image).convert("RGB"))


# ----- what a person's click means, and the other front-end hooks' defaults ---------------------
class ClickError(ValueError):
    """A click that is no move here (the game is left as it was)."""


@dataclass(frozen=True)
class Click:
    """The meaning of a click: ``action`` to play (or None: a piece was picked or dropped) and
    the piece ``selected`` afterwards."""

    action: int | None
    selected: int | None = None


def no_clicks(state: Any, selected: int | None, value: int) -> Click:
    """The default click hook: the game's drawing has no clickable parts."""
    raise ClickError(f"{state.game.title} cannot be played by clicks; pick a move from the list")


def click_action(state: Any, selected: int | None, value: int) -> Click:
    """A click hook for drawings whose clickable parts carry the action itself (a cell, a square)."""
    if value not in {int(a) for a in state.legal_actions()}:
        try:
            name = state.action_to_string(value)
        except ValueError:
            name = str(value)
        raise ClickError(f"{name} cannot be played here")
    return Click(value, None)


def no_view_options(state: Any, selected: int | None, viewer: int, moves: Sequence[int]) -> dict[str, Any]:
    """The default ``view_options`` hook: the drawing's defaults."""
    return {}


def action_text(state: Any, action: int, viewer: int | None) -> str:
    """The default ``move_text`` hook: the action's name, whoever reads it."""
    return state.action_to_string(int(action))


def board_text(state: Any, viewer: int) -> str:
    """The default ``board_text`` hook: the position as the state prints itself."""
    return state.render_text()
