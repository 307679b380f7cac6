"""What an environment's ``render()`` returns, from the state's text or its drawing."""

from __future__ import annotations


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
