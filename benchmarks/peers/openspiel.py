"""OpenSpiel: its Python API (pybind11 over C++) for playouts, the per-call table and one game at
a time next to the batched env; its games as PettingZoo AEC envs through Shimmy."""

from __future__ import annotations

import random

from benchmarks.subject import CALLS, POSITIONS, aec_loop, sample
from benchmarks.timing import Unavailable, Workload

NAME = "OpenSpiel"
GAMES = {
    "tictactoe": "tic_tac_toe",
    "connect_four": "connect_four",
    "nine_mens_morris": "nine_mens_morris",
    "backgammon": "backgammon",
    "othello": "othello",
}
LABELS = {
    "playout": "OpenSpiel Python API, apply_action",
    "aec": "OpenSpiel via Shimmy (OpenSpielCompatibilityV0)",
    "single": "OpenSpiel via Shimmy (AEC), the first seat's steps (the other replies at random)",
    "vector": "OpenSpiel Python API, one game at a time (decisions only)",
    "calls": "OpenSpiel Python API",
}
EQUIVALENT_CALLS = dict(zip(CALLS, ("legal_actions", "apply_action+undo_action", "apply_action+undo_action",
                                    "is_terminal", "current_player()", "returns", "clone")))
"""OpenSpiel's call next to each GameState call (it has no unchecked apply)."""


def missing() -> str | None:
    try:
        import pyspiel  # noqa: F401
    except ImportError as error:
        return f"{error} (pip install open-spiel)"
    return None


def same_as(kind: str, variant: str) -> str:
    if kind == "playout":
        return "apply_action"
    if kind == "vector":
        return "one game"  # no batched env: the same single-game rate stands next to every batch
    if kind == "calls":
        return EQUIVALENT_CALLS[variant]
    return variant


def _game(game: str):
    import pyspiel

    if game not in GAMES:
        raise Unavailable(f"OpenSpiel has no {game}")
    return pyspiel.load_game(GAMES[game])


def playout(game: str, decisions_only: bool = False) -> Workload:
    """One random game through ``apply_action``; chance outcomes count as steps unless
    ``decisions_only`` (the batched envs resolve chance inside a step)."""
    spiel_game = _game(game)
    rng = random.Random(0)
    choice, uniform = rng.choice, rng.random

    def run() -> int:
        state = spiel_game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(sample([o for o, _ in outcomes], [p for _, p in outcomes], uniform))
                steps += not decisions_only
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def shimmy_aec(game: str, learner_only: bool = False) -> Workload:
    try:
        from shimmy import OpenSpielCompatibilityV0
    except ImportError as error:
        raise Unavailable(f"{error} (pip install shimmy)") from error
    if game not in GAMES:
        raise Unavailable(f"OpenSpiel has no {game}")
    return aec_loop(OpenSpielCompatibilityV0(game_name=GAMES[game]), mask_in_info=True,
                    learner_only=learner_only)


def positions(game: str, count: int = POSITIONS) -> list:
    spiel_game = _game(game)
    rng = random.Random(1)
    found: list = []
    while len(found) < count:
        state = spiel_game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(sample([o for o, _ in outcomes], [p for _, p in outcomes], rng.random))
                continue
            found.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return found


def call_workload(states: list, call: str) -> Workload:
    rng = random.Random(2)
    moves = [(s, s.current_player(), rng.choice(s.legal_actions())) for s in states]
    count = len(states)
    if call.startswith("apply"):
        state, player, action = moves[0]
        state.apply_action(action)
        try:
            state.undo_action(player, action)
        except Exception as error:  # pyspiel raises a plain RuntimeError where a game has no undo
            raise Unavailable(f"no undo_action here: {error}") from error

        def run() -> int:
            for s, p, a in moves:
                s.apply_action(a)
                s.undo_action(p, a)
            return count

        return run
    method = {"legal_actions": "legal_actions", "is_terminal": "is_terminal", "current_player": "current_player",
              "returns": "returns", "clone": "clone"}[call]
    bound = [getattr(s, method) for s in states]

    def run_method() -> int:
        for call_it in bound:
            call_it()
        return count

    return run_method


def workload(kind: str, game: str, variant: str) -> Workload:
    if kind == "playout":
        return playout(game)
    if kind == "aec":
        return shimmy_aec(game)
    if kind == "single":
        return shimmy_aec(game, learner_only=True)
    if kind == "vector":
        return playout(game, decisions_only=True)
    if kind == "calls":
        return call_workload(positions(game), variant)
    raise Unavailable(f"OpenSpiel has no {kind} measurement")
