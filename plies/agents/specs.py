"""Agent specs: ``plies.agents.make("alphabeta:depth=6,eval=cells", seed=0)``.

A spec is one of

- ``name`` or ``name:key=value,key=value``: a shipped agent (``AGENTS``) or one added with
  ``register(name, factory)``;
- ``package.module:Name`` or ``package.module:Name:key=value,...``: a class or factory imported
  from an importable module (a user's agent).

Parameters are the keyword arguments of the agent's class or factory; values are converted to
the types of the annotations or defaults (``true``/``false`` for booleans). Every spec accepts
``name=`` (the agent's name; default the spec itself), so an agent can meet copies of itself.
Agents live in modules imported only when used.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import inspect
import pickle
import re
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
"""Agent name -> ``module:class`` of the shipped agents."""

_REGISTERED: dict[str, Any] = {}
"""Agents added by ``register``: name -> factory (class, callable, agent, or ``module:attr``)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@lru_cache(maxsize=1)
def _available() -> tuple[str, ...]:
    return tuple(sorted(a for a in AGENTS if importlib.util.find_spec(AGENTS[a].split(":")[0]) is not None))


def available_agents() -> list[str]:
    """Names whose modules exist in this installation, then the registered ones."""
    return list(_available()) + sorted(n for n in _REGISTERED if n not in AGENTS)


def register(name: str, factory: Any, *, replace: bool = False) -> None:
    """Make ``factory`` available as the agent spec ``name`` (``name:key=value,...``).

    ``factory`` is an agent class, a function returning an agent (keyword parameters become
    the spec's parameters; ``seed`` and ``name`` are passed when it accepts them), an agent
    object (each use gets a deep copy), or the string ``"package.module:Name"``. Tournaments
    with worker processes (and Ray) send the registered factories to their workers by pickle,
    which stores functions and classes by reference: define them at module level of an
    importable module (or the script run as ``__main__``)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"agent name {name!r}: use letters, digits, '_' and '-', starting with a letter")
    if name in AGENTS and not replace:
        raise ValueError(f"agent {name!r} is a shipped agent; choose another name")
    if name in _REGISTERED and not replace and _REGISTERED[name] is not factory:
        raise ValueError(f"agent {name!r} is already registered; pass replace=True to change it")
    if isinstance(factory, str):
        _import_attribute(factory, factory)  # fail now on a bad path
    elif not callable(factory) and not hasattr(factory, "act"):
        raise TypeError(f"agent {name!r}: the factory must be a class, a function, an agent or 'module:Name', "
                        f"not {type(factory).__name__}")
    _REGISTERED[name] = factory


def unregister(name: str) -> None:
    """Remove an agent added with ``register``."""
    _REGISTERED.pop(name, None)


def registered() -> dict[str, Any]:
    """The agents added with ``register`` (what workers need to build them)."""
    return dict(_REGISTERED)


def install_registered(entries: dict[str, Any]) -> None:
    """Add registered agents sent from another process (worker initialiser)."""
    _REGISTERED.update(entries)


def picklable_registry() -> dict[str, Any]:
    """The registered agents, checked to travel to worker processes; a ValueError names the
    first one that cannot."""
    for name, factory in _REGISTERED.items():
        try:
            pickle.dumps(factory)
        except Exception as err:  # pickle raises several types (PicklingError, AttributeError, TypeError)
            raise ValueError(
                f"agent {name!r} cannot be sent to worker processes ({type(err).__name__}: {err}); "
                "define its factory at module level of an importable module, register it as "
                "'package.module:Name', or use one worker"
            ) from err
    return registered()


def _import_attribute(path: str, spec: str) -> Any:
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"agent spec {spec!r}: cannot import module {module_name!r} ({err})") from err
    obj: Any = module
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent spec {spec!r}: module {module_name!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    return obj


def agent_class(name: str) -> type:
    """The class of a shipped agent."""
    if name not in AGENTS or name not in _available():
        raise ValueError(f"unknown agent {name!r}; agents: {', '.join(available_agents())}")
    module, cls = AGENTS[name].split(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and err.name.startswith("plies"):
            raise ValueError(f"agent {name!r} is not available in this version of plies") from err
        raise
    return getattr(mod, cls)


def _parse_params(rest: str, spec: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"malformed agent spec {spec!r}: parameters are key=value, comma-separated")
        if key in params:
            raise ValueError(f"agent spec {spec!r}: parameter {key!r} is given twice")
        params[key] = value.strip()
    return params


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:a=1,b=x"`` into ``("name", {"a": "1", "b": "x"})`` and
    ``"pkg.mod:Name:a=1"`` into ``("pkg.mod:Name", {"a": "1"})``."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string, not {type(spec).__name__}")
    text = spec.strip()
    head, _, rest = text.partition(":")
    attribute, _, after = rest.partition(":")
    module = head.strip()
    known = module in AGENTS or module in _REGISTERED
    if not known and _MODULE.fullmatch(module) and _ATTRIBUTE.fullmatch(attribute.strip()):
        return f"{head.strip()}:{attribute.strip()}", _parse_params(after, spec)
    return head.strip(), _parse_params(rest, spec)


def agent_parameters(cls: Any) -> dict[str, inspect.Parameter]:
    """The spec parameters of a class or factory (``seed`` and ``name`` excluded)."""
    sig = inspect.signature(cls)
    return {
        k: p
        for k, p in sig.parameters.items()
        if k not in ("self", "seed", "name") and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


_TYPES = {"bool": bool, "int": int, "float": float, "str": str}


def _target_type(parameter: inspect.Parameter) -> type | None:
    annotation = parameter.annotation
    if isinstance(annotation, str):
        annotation = _TYPES.get(annotation.strip())
    if annotation in (bool, int, float, str):
        return annotation
    if parameter.default is not inspect.Parameter.empty and parameter.default is not None:
        return type(parameter.default) if type(parameter.default) in (bool, int, float, str) else None
    return None


def _convert(value: str, kind: type | None, key: str, spec: str) -> Any:
    try:
        if kind is bool:
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
    except ValueError:
        raise ValueError(f"agent spec {spec!r}: {key}={value!r} is not a valid {kind.__name__}") from None
    if kind is None:  # no annotation or default to go by: a number if it reads as one
        for guess in (int, float):
            try:
                return guess(value)
            except ValueError:
                pass
    return value


def _accepts(factory: Any, key: str) -> bool:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return key in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _resolve(name: str, spec: str) -> tuple[Any, bool]:
    """The factory behind a spec's name, and whether it is a shipped agent."""
    if name in _REGISTERED:
        factory = _REGISTERED[name]
        return (_import_attribute(factory, spec) if isinstance(factory, str) else factory), False
    if ":" in name:
        return _import_attribute(name, spec), False
    return agent_class(name), True


FILE_PARAMETERS = frozenset({"table", "path"})
"""Agent parameters whose value names a file that the agent reads or writes."""

_FILE_SUFFIXES = (".pt", ".pth", ".json", ".npz", ".npy", ".pkl", ".pickle", ".zip", ".sqlite", ".db", ".csv")


class UntrustedSpecError(ValueError):
    """An agent spec from a web request or a file that would import code or name a file."""


def _names_a_file(value: str) -> bool:
    text = value.strip().lower()
    return ("/" in text or "\\" in text or text.startswith(("~", ".")) or text.endswith(_FILE_SUFFIXES))


def check_untrusted(spec: str, source: str) -> None:
    """Refuse, before anything is imported or built, an agent spec that came from ``source`` (a
    web request, a ladder file, a results file: anything the user did not type) when it would
    import code (``module:attr``) or name a file (``table=``, ``eval=FILE.pt``, any path).
    Shipped agents and those the user registered (``plies.agents.register``, ``plies serve
    --agent NAME=module:attr``) are accepted with plain parameters."""
    name, params = parse_spec(spec)
    if name not in _REGISTERED:
        if ":" in name:
            raise UntrustedSpecError(
                f"{source}: agent spec {spec!r} would import code ({name}); only shipped agents "
                f"({', '.join(available_agents())}) and agents registered by the user are accepted "
                f"from {source}")
        if name not in AGENTS or name not in _available():
            raise UntrustedSpecError(f"{source}: unknown agent {name!r}; agents: {', '.join(available_agents())}")
    for key, value in params.items():
        if key in FILE_PARAMETERS or _names_a_file(value):
            raise UntrustedSpecError(
                f"{source}: agent spec {spec!r} names a file ({key}={value}); parameters that read or "
                f"write files are accepted only from the command line or Python")


def make(spec: str, seed: int | None = None, game: str | None = None, **overrides: Any):
    """Build an agent from a spec string; ``name`` defaults to the spec itself. With ``game``,
    an agent that cannot play that game is refused here (a ValueError naming its games)."""
    from plies.agents.base import BaseAgent

    name, raw = parse_spec(spec)
    display = raw.pop("name", None) or spec.strip()
    factory, shipped = _resolve(name, spec)
    label = f"agent {display!r}" if display == spec.strip() else f"agent {display!r} ({spec.strip()})"
    if hasattr(factory, "act") and not isinstance(factory, type):  # a registered agent object
        if raw:
            raise ValueError(f"{label}: a registered agent object takes no parameters, got {', '.join(raw)}")
        agent = copy.deepcopy(factory)
        _set_name(agent, display)
        if seed is not None and hasattr(agent, "reset"):
            agent.reset(seed)
    else:
        try:
            allowed = agent_parameters(factory)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{label}: {factory!r} is not a class or function that builds an agent") from err
        kwargs: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in allowed:
                raise ValueError(
                    f"agent {name!r} has no parameter {key!r}; parameters: "
                    + (", ".join(_show(k, p) for k, p in allowed.items()) or "none")
                    + " (and name)"
                )
            kwargs[key] = _convert(value, _target_type(allowed[key]), key, spec)
        kwargs.update(overrides)
        if isinstance(factory, type) and issubclass(factory, BaseAgent) and game is not None:
            factory.check_game(game, display)
        if _accepts(factory, "seed"):
            kwargs["seed"] = seed
        if _accepts(factory, "name"):
            kwargs["name"] = display
        if shipped:
            agent = factory(**kwargs)
        else:
            try:
                agent = factory(**kwargs)
            except Exception as err:
                raise ValueError(f"{label}: building it failed: {type(err).__name__}: {err}") from err
        if not callable(getattr(agent, "act", None)):
            raise TypeError(f"{label}: {factory!r} returned {type(agent).__name__}, which has no act(state)")
        _set_name(agent, display)
    if game is not None and not isinstance(agent, BaseAgent) and hasattr(agent, "check_game"):
        agent.check_game(game)
    elif game is not None and isinstance(agent, BaseAgent):
        type(agent).check_game(game, display)
    return agent


def _set_name(agent: Any, name: str) -> None:
    try:
        agent.name = name
    except AttributeError:
        pass


def _show(key: str, parameter: inspect.Parameter) -> str:
    if parameter.default is inspect.Parameter.empty:
        return key
    return f"{key}={parameter.default!r}"


def describe(game: str | None = None) -> str:
    """Per agent a one-line description, its games and its parameters (``plies agents``)."""
    lines = []
    for agent in available_agents():
        try:
            if agent in _REGISTERED:
                lines.append(f"{agent}: registered ({_REGISTERED[agent]!r})")
                continue
            cls = agent_class(agent)
            if game is not None and cls.game_problem(_info(game)) is not None:
                continue
            params = agent_parameters(cls)
            games = ", ".join(cls.supported_games())
            lines.append(f"{agent}: {cls.description}")
            lines.append(f"    games: {games or 'none'}")
            lines.append("    parameters: " + ", ".join([_show(k, p) for k, p in params.items()] + ["name"]))
        except (ValueError, ImportError):
            continue
    return "\n".join(lines)


def _info(game: str):
    from plies.games.registry import get_game

    return get_game(game)
