"""Agent specs: ``plies.agents.make("alphabeta:depth=6,eval=cells", seed=0)``.

A spec is ``name`` or ``name:key=value,key=value``. Parameters are the keyword arguments of
the agent's class; values are converted to the types of the defaults (``true``/``false`` for
booleans). Agents live in modules imported only when used.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from functools import lru_cache
from typing import Any

AGENTS: dict[str, str] = {
    "random": "plies.agents.random_agent:RandomAgent",
    "alphabeta": "plies.agents.alphabeta:AlphaBetaAgent",
    "lookahead": "plies.agents.lookahead:LookaheadAgent",
    "perfect": "plies.agents.alphabeta:PerfectAgent",
    "expectiminimax": "plies.agents.expectiminimax:ExpectiminimaxAgent",
    "mcts": "plies.agents.mcts:MCTSAgent",
    "human": "plies.agents.human:HumanAgent",
    "sb3": "plies.agents.sb3_policy:SB3PolicyAgent",
    # Connect Four
    "solver": "plies.agents.connect_four_solver:SolverAgent",
    # Backgammon
    "pubeval": "plies.agents.gnubg_agents:PubevalAgent",
    "gnubg": "plies.agents.gnubg_agents:GnubgAgent",
    # Dice Wars bots of the course framework
    "dw_random": "plies.agents.dice_wars_bots:DwRandomAgent",
    "dw_all_random": "plies.agents.dice_wars_bots:DwAllRandomAgent",
    "strength_diff": "plies.agents.dice_wars_bots:StrengthDiffAgent",
    "single_turn": "plies.agents.dice_wars_bots:SingleTurnAgent",
    "win_prob": "plies.agents.dice_wars_bots:WinProbAgent",
    "wpm_c": "plies.agents.dice_wars_bots:WpmCAgent",
    # the course framework's names for its bots (docs/dice_wars.md)
    "dt.rand": "plies.agents.dice_wars_bots:DwAllRandomAgent",
    "dt.sdc": "plies.agents.dice_wars_bots:StrengthDiffAgent",
    "dt.ste": "plies.agents.dice_wars_bots:SingleTurnAgent",
    "dt.wpm_c": "plies.agents.dice_wars_bots:WpmCAgent",
    "xlogin00": "plies.agents.dice_wars_bots:DwRandomAgent",
    "dw_expectiminimax": "plies.agents.dice_wars_bots:DwExpectiminimaxAgent",
}
"""Agent name -> ``module:class``."""


@lru_cache(maxsize=1)
def _available() -> tuple[str, ...]:
    return tuple(sorted(a for a in AGENTS if importlib.util.find_spec(AGENTS[a].split(":")[0]) is not None))


def available_agents() -> list[str]:
    """Names whose modules exist in this installation."""
    return list(_available())


def agent_class(name: str) -> type:
    if name not in AGENTS or name not in available_agents():
        raise ValueError(f"unknown agent {name!r}; agents: {', '.join(available_agents())}")
    module, cls = AGENTS[name].split(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and err.name.startswith("plies"):
            raise ValueError(f"agent {name!r} is not available in this version of plies") from err
        raise
    return getattr(mod, cls)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:a=1,b=x"`` into ``("name", {"a": "1", "b": "x"})``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"malformed agent spec {spec!r}: parameters are key=value, comma-separated")
        params[key.strip()] = value.strip()
    return name.strip(), params


def agent_parameters(cls: type) -> dict[str, inspect.Parameter]:
    sig = inspect.signature(cls.__init__)
    return {
        k: p
        for k, p in sig.parameters.items()
        if k not in ("self", "seed", "name") and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


def _convert(value: str, default: Any, key: str, spec: str) -> Any:
    try:
        if isinstance(default, bool):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise ValueError(
            f"agent spec {spec!r}: {key}={value!r} is not a valid {type(default).__name__}"
        ) from None
    return value


def make(spec: str, seed: int | None = None, **overrides: Any):
    """Build an agent from a spec string; ``name`` defaults to the spec itself."""
    name, raw = parse_spec(spec)
    cls = agent_class(name)
    allowed = agent_parameters(cls)
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in allowed:
            raise ValueError(
                f"agent {name!r} has no parameter {key!r}; parameters: "
                + (", ".join(f"{k}={p.default!r}" for k, p in allowed.items()) or "none")
            )
        kwargs[key] = _convert(value, allowed[key].default, key, spec)
    kwargs.update(overrides)
    return cls(seed=seed, name=spec.strip(), **kwargs)


def describe() -> str:
    """One line per agent with its parameters (for ``--help`` and error messages)."""
    lines = []
    for agent in available_agents():
        try:
            params = agent_parameters(agent_class(agent))
            lines.append(f"{agent}: " + (", ".join(f"{k}={p.default!r}" for k, p in params.items()) or "-"))
        except (ValueError, ImportError):
            continue
    return "\n".join(lines)
