"""Runs fuzz cases (JSON lines on stdin) against plies; a Python exception is a fine answer,
a death by signal is the bug the parent test looks for. Before each case it writes the case's
number to stderr, so the parent can name the case that killed it."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

import numpy as np

import plies
from plies.agents import make as make_agent
from plies.games.state import sample_chance

CASE_SECONDS = 20.0
"""A case that runs longer (a search with a huge depth) ends the run with exit code 3."""

_started = [time.monotonic()]


def _watchdog() -> None:
    while True:
        time.sleep(0.5)
        if time.monotonic() - _started[0] > CASE_SECONDS:
            sys.stderr.write("\nTIMEOUT\n")
            sys.stderr.flush()
            os._exit(3)


def value_of(tagged):
    tag, raw = tagged
    if tag == "int":
        return int(raw)
    if tag == "float":
        return float(raw)
    if tag == "bool":
        return bool(raw)
    if tag == "str":
        return str(raw)
    if tag == "np.float64":
        return np.float64(float(raw))
    if tag == "np.bool_":
        return np.bool_(raw)
    return getattr(np, tag[3:])(raw)


def position(game: str, seed: int, plies_played: int):
    rng = np.random.default_rng(seed)
    state = plies.new_state(game, seed=seed) if game == "dice_wars" else plies.new_state(game)
    for _ in range(plies_played):
        if state.is_terminal():
            break
        state.apply(sample_chance(state, rng) if state.is_chance_node()
                    else int(rng.choice(state.legal_actions())))
    return state


def mutate(text: str, ops) -> str:
    for kind, where, payload in ops:
        i = int(where * len(text))
        if kind == "replace":
            text = text[:i] + payload + text[i + len(payload):]
        elif kind == "insert":
            text = text[:i] + payload + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + len(payload):]
        elif kind == "duplicate":
            text = text[:i] + text[i:i + len(payload) + 1] + text[i:]
    return text


def exercise(state) -> None:
    """Everything a user may call on a parsed or reached position."""
    state.to_string(), state.encode(), state.hash(), state.render_text(), state.returns()
    state.clone(), state.action_mask()
    for seat in range(state.num_players):
        state.observation(seat)
    if state.is_chance_node():
        state.chance_outcomes()
    legal = state.legal_actions()
    for action in legal[:3]:
        state.action_to_string(action)
    if len(legal) and not state.is_terminal():
        state.apply(int(legal[0]))
        exercise_light(state)
        state.undo()


def exercise_light(state) -> None:
    state.to_string(), state.encode(), state.hash(), state.legal_actions()
    for seat in range(state.num_players):
        state.observation(seat)


def run_case(case) -> None:
    kind = case[0]
    if kind == "position":
        _, game, seed, n, ops = case
        text = mutate(position(game, seed, n).to_string(), ops)
        state = plies.state_class(game).from_string(text)
        exercise(state)
    elif kind == "action":
        _, game, seed, n, tagged, via = case
        action = value_of(tagged)
        if via == "env":
            env = plies.make(game, **({"num_players": 2} if game == "dice_wars" else {}))
            env.reset(seed=seed)
            env.step(action)
            env.last()
            return
        state = position(game, seed, n)
        if via == "apply":
            state.apply(action)
            exercise_light(state)
        elif via == "is_legal":
            state.is_legal(action)
        else:
            state.action_to_string(action)
    elif kind == "observe":
        _, game, seed, n, tagged = case
        position(game, seed, n).observation(value_of(tagged))
    elif kind == "rows":  # raw state arrays with some entries overwritten, to the public batch readers
        _, game, seed, n, corrupt, reader = case
        rows = np.stack([position(game, seed, n).array] * 4).astype(np.int64)
        for row, (where, value) in enumerate(corrupt):
            rows[row % len(rows), int(where * rows.shape[1])] = value
        if reader == "state":  # a state built from each row, then played
            for row in rows:
                try:
                    state = plies.state_class(game)(row)
                except (ValueError, TypeError):
                    continue
                exercise(state)
            plies.state_class(game)(rows[0])  # the first row always has an entry overwritten
        elif reader == "encode":
            plies.get_game(game).encode(rows)
        elif reader == "heuristic":
            from plies.agents.evaluator_specs import evaluator_for

            evaluator_for(position(game, seed, 0)).evaluate(rows, 0)
        else:
            from plies.agents.value_net import net_evaluator

            net_evaluator(game).evaluate(rows, 0)
    elif kind == "seat":  # a game's own accessors that take a seat (or a player, an area)
        _, game, seed, n, method, tagged = case
        state = position(game, seed, n)
        value = value_of(tagged)
        if method == "attack_action":
            state.attack_action(0, value)
        elif method == "play_to_string":
            state.play_to_string([value])
        else:
            getattr(state, method)(value)
    elif kind == "spec":
        _, game, spec, seed, n = case
        state = position(game, seed, n)
        if not state.is_terminal() and not state.is_chance_node():
            make_agent(spec, seed=seed).act(state)


def main() -> None:
    threading.Thread(target=_watchdog, daemon=True).start()
    for number, line in enumerate(sys.stdin):
        case = json.loads(line)
        sys.stderr.write(f"CASE {number} {line}")
        sys.stderr.flush()
        _started[0] = time.monotonic()
        try:
            run_case(case)
        except Exception as err:  # an exception is an answer; the parent lists the unusual kinds
            sys.stderr.write(f"RAISED {type(err).__name__}: {str(err)[:150]!r}\n")
        _started[0] = time.monotonic()
    sys.stderr.write("DONE\n")


if __name__ == "__main__":
    main()
