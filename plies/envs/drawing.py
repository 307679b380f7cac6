"""One picture of every game: SVG built as text, shown in Jupyter and rasterised for rgb frames.

Each game has a ``drawing`` module next to its ``state`` module with ``svg(state, **options)``,
named in its ``Game`` declaration (``draw=drawing.svg``). States get ``svg()``, ``_repr_svg_()``
and ``render_rgb()`` from ``GameState``; this module holds the shared SVG helpers and the
rasteriser, and names no game.

Clickable parts of a drawing carry ``data-*`` attributes (``data-col``, ``data-point``,
``data-area``, ...) that the web app (``plies serve``) turns into moves.
"""

from __future__ import annotations

import io
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
