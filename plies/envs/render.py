"""Small numpy raster helpers for ``render_rgb`` (no graphics library needed)."""

from __future__ import annotations

import numpy as np

Color = tuple[int, int, int]


def canvas(height: int, width: int, color: Color = (255, 255, 255)) -> np.ndarray:
    image = np.empty((height, width, 3), np.uint8)
    image[:] = color
    return image


def fill_rect(image: np.ndarray, top: int, left: int, height: int, width: int, color: Color) -> None:
    image[max(0, top) : max(0, top + height), max(0, left) : max(0, left + width)] = color


def fill_disc(image: np.ndarray, cy: float, cx: float, radius: float, color: Color) -> None:
    ys, xs = np.ogrid[: image.shape[0], : image.shape[1]]
    image[(ys - cy) ** 2 + (xs - cx) ** 2 <= radius**2] = color


def ring(image: np.ndarray, cy: float, cx: float, radius: float, width: float, color: Color) -> None:
    ys, xs = np.ogrid[: image.shape[0], : image.shape[1]]
    d2 = (ys - cy) ** 2 + (xs - cx) ** 2
    image[(d2 <= radius**2) & (d2 >= (radius - width) ** 2)] = color


def line(
    image: np.ndarray, y0: float, x0: float, y1: float, x1: float, width: float, color: Color
) -> None:
    """A straight segment of the given thickness."""
    ys, xs = np.ogrid[: image.shape[0], : image.shape[1]]
    dy, dx = y1 - y0, x1 - x0
    length2 = dy * dy + dx * dx or 1.0
    t = np.clip(((ys - y0) * dy + (xs - x0) * dx) / length2, 0.0, 1.0)
    d2 = (ys - (y0 + t * dy)) ** 2 + (xs - (x0 + t * dx)) ** 2
    image[d2 <= (width / 2) ** 2] = color


def render_state(state, mode: str | None):
    """What an environment's ``render()`` returns for ``mode``: a picture (rgb_array), the
    text (ansi), or None after printing the text (human)."""
    if mode == "rgb_array":
        return state.render_rgb()
    text = state.render_text()
    if mode == "human":
        print(text)
        return None
    return text
