"""Game options converted by their type, with errors that name the option and what it takes.

Options arrive from Python (``plies.make(game, width=8)``) or as text from the command line
(``--option width=8``, ``--option flying=no``); both go through these converters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


def option_bool(game: str, key: str, value: Any) -> bool:
    """A boolean option: True/False, 0/1, or one of the words true/false/1/0/yes/no/on/off."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and int(value) in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS + FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise ValueError(f"option {key} of {game} is a boolean (true/false, yes/no, 1/0), not {value!r}")


def option_int(game: str, key: str, value: Any, least: int | None = None,
               most: int | None = None) -> int:
    """An integer option (a Python or numpy integer, or its decimal text) in [least, most]."""
    number: int | None = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        number = int(value.strip())
    span = (f" from {least}" if least is not None else "") + (f" to {most}" if most is not None else "")
    if number is None:
        raise ValueError(f"option {key} of {game} is an integer{span}, not {value!r}")
    if (least is not None and number < least) or (most is not None and number > most):
        raise ValueError(f"option {key} of {game} must be an integer{span}, not {number}")
    return number
