"""plies's side of every measurement, through the public API only.

Only ``plies.make``, ``plies.new_state``, ``plies.game_ids``, the state's methods and the
batched env's ``make`` are used, so the same code times an older checkout of plies too: run as
a script (``python benchmarks/subject.py`` with that checkout first on ``PYTHONPATH``), it
answers measurement requests, one JSON line in and one out (see ``serve``).
"""

from __future__ import annotations

import json
import random
import sys
import warnings
from collections.abc import Callable

import numpy as np

if __package__:
    from benchmarks.timing import Rate, Unavailable, Workload, measure
else:  # run as a script by run.py's --compare-with: this file's folder is sys.path[0]
    from timing import Rate, Unavailable, Workload, measure  # type: ignore[no-redef]

import plies

KINDS = ("playout", "aec", "single", "vector", "calls")
PLAYOUT_VARIANTS = ("apply", "apply_unchecked")
CALLS = ("legal_actions", "apply+undo", "apply_unchecked+undo", "is_terminal", "current_player",
         "returns", "clone")
"""The GameState calls of the per-call table; each peer names its equivalents."""

POSITIONS = 64
"""Positions of the per-call table: the decision nodes of seeded random games."""


def sample(outcomes, probabilities, uniform: Callable[[], float]) -> int:
    """A chance outcome drawn the same way on every side (cumulative sum, one uniform draw)."""
    index = int(np.searchsorted(np.cumsum(probabilities), uniform() * float(np.sum(probabilities))))
    return int(outcomes[min(index, len(outcomes) - 1)])


def playout(game: str, checked: bool) -> Workload:
    """One random game through ``apply`` (checked) or ``apply_unchecked``; every applied action,
    chance outcomes included, is a step. Game n starts from seed n, so that games with random
    set-ups (Dice Wars's maps) play the same sequence of starts on every side."""
    rng = random.Random(0)
    choice, uniform = rng.choice, rng.random
    games = iter(range(1 << 62))

    def run() -> int:
        state = plies.new_state(game, seed=next(games))
        apply = state.apply if checked else state.apply_unchecked
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                apply(sample(*state.chance_outcomes(), uniform))
            else:
                apply(choice(state.legal_actions()))
            steps += 1
        return steps

    return run


def aec_loop(env, mask_in_info: bool = False, learner_only: bool = False) -> Workload:
    """One game of a PettingZoo AEC env with random masked actions, the loop users write; every
    ``env.step`` (the final ``None`` steps included) is a step. Shared with the peers' AEC envs
    (``mask_in_info`` for envs that give the mask in ``info``, as Shimmy's do). With
    ``learner_only`` only the first agent's moves count: a single learner's steps, the other
    seat's random replies being part of each (the ``single`` kind's peers)."""
    choice = random.Random(0).choice

    def run() -> int:
        env.reset(seed=0)
        steps = 0
        learner = env.possible_agents[0]
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = info["action_mask"] if mask_in_info else obs["action_mask"]
                action = choice(np.flatnonzero(mask).tolist())
            env.step(action)
            if not learner_only or (agent == learner and action is not None):
                steps += 1
        return steps

    return run


def single_loop(env) -> Workload:
    """One game of the single-agent Gymnasium env with random masked actions (the opponent, a
    random agent, replies inside each step); every learner step is a step."""
    choice = random.Random(0).choice

    def run() -> int:
        _obs, info = env.reset(seed=0)
        steps, done = 0, False
        while not done:
            action = choice(np.flatnonzero(info["action_mask"]).tolist())
            _obs, _reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            steps += 1
        return steps

    return run


def single_env(game: str):
    from plies.envs.single_agent import SingleAgentEnv

    return SingleAgentEnv(game, opponent="random")


def vector_module():
    try:
        from plies.envs import vector
    except ImportError:  # the layout before the house move
        from plies import vector  # type: ignore[no-redef]
    return vector


def batched(game: str, batch: int, repeats: int = 20) -> Workload:
    """``repeats`` steps of the batched env with random legal actions (serial: on a shared
    machine the threaded stepper's timings swing with the other jobs)."""
    env = vector_module().make(game, batch, seed=0, parallel=False)
    step, sample_actions = env.step, env.sample_actions

    def run() -> int:
        for _ in range(repeats):
            step(sample_actions())
        return repeats * batch

    return run


def positions(game: str, count: int = POSITIONS) -> list:
    """Decision nodes of seeded random games, as independent states."""
    rng = random.Random(1)
    found: list = []
    while len(found) < count:
        state = plies.new_state(game, seed=len(found))
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state.apply_unchecked(sample(*state.chance_outcomes(), rng.random))
                continue
            found.append(state.clone())
            state.apply_unchecked(rng.choice(state.legal_actions()))
    return found


def call_workload(states: list, call: str) -> Workload:
    """Each of ``states`` makes ``call`` once per run; a unit is one call (one apply+undo pair)."""
    rng = random.Random(2)
    moves = [(s, int(rng.choice(s.legal_actions()))) for s in states]
    count = len(states)

    def run_legal() -> int:
        for s in states:
            s.legal_actions()
        return count

    def run_apply_undo() -> int:
        for s, a in moves:
            s.apply(a)
            s.undo()
        return count

    def run_unchecked_undo() -> int:
        for s, a in moves:
            s.apply_unchecked(a)
            s.undo()
        return count

    def run_terminal() -> int:
        for s in states:
            s.is_terminal()
        return count

    def run_player() -> int:
        for s in states:
            s.current_player  # noqa: B018 - a property: reading it is the call
        return count

    def run_returns() -> int:
        for s in states:
            s.returns()
        return count

    def run_clone() -> int:
        for s in states:
            s.clone()
        return count

    workloads = dict(zip(CALLS, (run_legal, run_apply_undo, run_unchecked_undo, run_terminal, run_player,
                                 run_returns, run_clone)))
    return workloads[call]


def workload(kind: str, game: str, variant: str) -> Workload:
    if game not in plies.game_ids():
        raise Unavailable(f"no game {game!r} in this plies")
    if kind == "playout":
        return playout(game, checked=variant == "apply")
    if kind == "aec":
        return aec_loop(plies.make(game))
    if kind == "single":
        return single_loop(single_env(game))
    if kind == "vector":
        return batched(game, int(variant))
    if kind == "calls":
        return call_workload(positions(game), variant)
    raise ValueError(f"unknown kind {kind!r}")


def time_cell(kind: str, game: str, variant: str, seconds: float) -> Rate:
    return measure(workload(kind, game, variant), seconds)


def warm(game: str, batches: tuple[int, ...] = (1, 1024)) -> None:
    """Compile (or load from numba's cache) everything the measurements of ``game`` reach."""
    for checked in (True, False):
        playout(game, checked)()
    aec_loop(plies.make(game))()
    single_loop(single_env(game))()
    for batch in batches:
        batched(game, batch, repeats=2)()
    call_workload(positions(game, 4), "apply+undo")()


def serve() -> None:
    """Answer requests from run.py, one JSON object a line: ``{"ids": true}``, ``{"register":
    [game_id, "pkg.module:GAME"]}``, ``{"warm": game}`` or ``{"kind", "game", "variant",
    "seconds"}``; answers carry ``rate``, ``ids``, ``warmed`` or ``error``."""
    warnings.simplefilter("ignore")  # an older checkout may warn; the answers are the protocol
    print(json.dumps({"plies": plies.__file__}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "register" in request:
                plies.register(*request["register"])
                answer = {"ids": plies.game_ids()}
            elif "ids" in request:
                answer = {"ids": plies.game_ids()}
            elif "warm" in request:
                warm(request["warm"], tuple(request.get("batches", (1, 1024))))
                answer = {"warmed": request["warm"]}
            else:
                rate = time_cell(request["kind"], request["game"], request["variant"], request["seconds"])
                answer = {"rate": rate.to_dict()}
        except Unavailable as missing:
            answer = {"error": str(missing)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    serve()
