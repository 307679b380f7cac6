"""Fuzzing: mutated position strings, odd actions and agent specs fed to every game in a
subprocess; the test fails when the subprocess dies by a signal (a segfault, an abort from a
corrupted heap), naming the case. Exceptions are fine answers (ValueError/TypeError expected)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

GAMES = ["tictactoe", "connect_four", "nine_mens_morris", "backgammon", "dice_wars"]
ROOT = Path(__file__).parents[2]

ints = st.one_of(st.integers(-5, 700),
                 st.sampled_from([10**6, 2**31, 2**63 - 1, -(2**63), 2**64, 10**20]))
odd_values = st.one_of(
    ints.map(lambda v: ["int", v]),
    st.sampled_from([["float", "1.5"], ["float", "nan"], ["float", "inf"], ["float", "3.0"],
                     ["str", "3"], ["str", "abc"], ["str", ""], ["np.float64", "2.0"], ["np.bool_", True]]),
    st.booleans().map(lambda b: ["bool", b]),
    st.integers(-(2**31), 2**31 - 1).map(lambda v: ["np.int32", v]),
    st.integers(0, 2**64 - 1).map(lambda v: ["np.uint64", v]),
)
pieces = st.sampled_from(["0", "1", "9", "12", "-1", "99999999999999999999", "9223372036854775808", ":", ";",
                          ",", "/", " ", "=", "X", "O", "W", "B", ".", "off", "bar", "won", "to play", "6-6",
                          "over:0", "reinforce:", "battle:0>1", "\n", "²", "é"])
mutations = st.lists(st.tuples(st.sampled_from(["replace", "insert", "delete", "duplicate"]),
                               st.floats(0, 0.999), pieces), min_size=1, max_size=3)
position_cases = st.tuples(st.just("position"), st.sampled_from(GAMES), st.integers(0, 50),
                           st.integers(0, 60), mutations)
action_cases = st.tuples(st.just("action"), st.sampled_from(GAMES), st.integers(0, 50), st.integers(0, 40),
                         odd_values, st.sampled_from(["apply", "env", "is_legal", "action_to_string"]))
SEAT_METHODS = {"nine_mens_morris": ["in_hand", "on_board", "features"], "backgammon": ["checkers", "play_to_string"],
                "dice_wars": ["area_count", "total_dice", "largest_region", "attack_action"]}
seat_cases = st.sampled_from(sorted(SEAT_METHODS)).flatmap(
    lambda game: st.tuples(st.just("seat"), st.just(game), st.integers(0, 50), st.integers(0, 40),
                           st.sampled_from(SEAT_METHODS[game]), odd_values))
ROW_READERS = {"tictactoe": ["encode", "heuristic", "state"], "connect_four": ["encode", "heuristic", "net", "state"],
               "nine_mens_morris": ["encode", "heuristic", "state"], "othello": ["encode", "heuristic", "state"],
               "backgammon": ["encode", "heuristic", "net", "state"],
               "dice_wars": ["encode", "heuristic", "net", "state"]}
corruptions = st.lists(st.tuples(st.floats(0, 0.999), st.sampled_from([-5, -1, 7, 9, 64, 100, 10**6, 2**40])),
                       min_size=1, max_size=4)
row_cases = st.sampled_from(sorted(ROW_READERS)).flatmap(
    lambda game: st.tuples(st.just("rows"), st.just(game), st.integers(0, 50), st.integers(0, 30), corruptions,
                           st.sampled_from(ROW_READERS[game])))
param_values = st.sampled_from(["-1", "0", "1", "2", "nan", "inf", "-inf", "1.5", "abc", "", "1e30", "10**20"])
PARAMETERS = {"alphabeta": ["depth", "time_limit", "eval", "tt_bits", "symmetry"],
              "expectiminimax": ["depth", "chance_limit", "limit", "filter"],
              "lookahead": ["depth", "tiebreak"], "mcts": ["simulations", "exploration", "rollout_cap"],
              "dw_random": ["max_attacks"], "single_turn": ["threshold"], "win_prob": ["margin", "bias"]}


@st.composite
def specs(draw, names):
    name = draw(st.sampled_from(names))
    pairs = [f"{key}={draw(param_values)}" for key in draw(st.lists(
        st.sampled_from(PARAMETERS[name] + ["wizard"]), min_size=1, max_size=3))]  # repeats: duplicate keys
    return f"{name}:{','.join(pairs)}"


spec_cases = st.one_of(
    st.tuples(st.just("spec"), st.just("tictactoe"), specs(["alphabeta", "expectiminimax", "lookahead", "mcts"]),
              st.integers(0, 50), st.integers(0, 6)),
    st.tuples(st.just("spec"), st.just("dice_wars"), specs(["dw_random", "single_turn", "win_prob", "mcts"]),
              st.integers(0, 50), st.integers(0, 30)),
    st.tuples(st.just("spec"), st.just("backgammon"), specs(["expectiminimax"]), st.integers(0, 50),
              st.integers(0, 30)),
)

# Cases that crashed the interpreter before the checks of issue 15 (the GameState seat check,
# the agent-spec ranges): each must now raise a clear ValueError or TypeError.
KNOWN_ELSEWHERE = [
    ["observe", "connect_four", 0, 3, ["int", 10**6]],
    ["observe", "nine_mens_morris", 0, 3, ["int", 10**6]],
    ["observe", "backgammon", 0, 3, ["int", 10**6]],
    ["observe", "backgammon", 0, 0, ["int", -1]],
    ["spec", "dice_wars", "dw_expectiminimax:depth=-1", 0, 0],
    # a play's steps reached the kernels unchecked (2026-12-07); seats of the games' own accessors
    ["seat", "backgammon", 0, 3, "play_to_string", ["int", 10**12]],
    ["seat", "nine_mens_morris", 0, 3, "features", ["int", 10**6]],
    ["seat", "dice_wars", 0, 3, "largest_region", ["int", 10**6]],
    # raw state arrays whose values the kernels indexed with (2026-12-07): a board too large
    # for the bitboards, an area's owner that is no player, a mover that is no seat
    ["rows", "connect_four", 0, 3, [[0.05, 100], [0.1, 100]], "encode"],
    ["rows", "dice_wars", 0, 3, [[0.3, 10**6]], "encode"],
    ["rows", "dice_wars", 0, 3, [[0.3, 10**6]], "net"],
    ["rows", "dice_wars", 0, 3, [[0.3, 10**6]], "heuristic"],
    # a state class's constructor took any array (2026-12-07, the sixth session): a player, a
    # board size or a point value the kernels index with
    ["rows", "connect_four", 0, 3, [[0.05, 10**6], [0.1, 10**6]], "state"],
    ["rows", "backgammon", 0, 3, [[0.0, 10**6]], "state"],
    ["rows", "othello", 0, 3, [[0.0, 10**6]], "state"],
    ["rows", "nine_mens_morris", 0, 3, [[0.02, 7]], "state"],
    ["rows", "nine_mens_morris", 0, 3, [[0.0, 10**6]], "state"],
]


def run_child(cases: list, timeout: float = 240) -> tuple[int, str]:
    text = "".join(json.dumps(c) + "\n" for c in cases)
    # run as a module from the repository root, so the child imports this checkout's plies
    proc = subprocess.run([sys.executable, "-m", "tests.safety.fuzz_child"], input=text, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    return proc.returncode, proc.stderr


def _last_case(stderr: str) -> str:
    started = [line for line in stderr.splitlines() if line.startswith("CASE ")]
    return started[-1] if started else "(before the first case)"


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.one_of(position_cases, action_cases, spec_cases, seat_cases, row_cases), min_size=60, max_size=60))
def test_no_input_kills_the_interpreter(cases):
    """4 subprocesses of 60 cases each (about 20 s); derandomized, so every run tries the same."""
    code, stderr = run_child(cases)
    assert code >= 0, f"killed by signal {-code} in {_last_case(stderr)}\n{stderr[-2000:]}"
    assert code in (0, 3), f"exit {code} in {_last_case(stderr)}\n{stderr[-2000:]}"  # 3: a case ran > 20 s


@pytest.mark.parametrize("case", KNOWN_ELSEWHERE, ids=lambda c: f"{c[0]}-{c[1]}-{c[-1] if c[0] in ('observe', 'rows') else c[4] if c[0] == 'seat' else c[2]}")
def test_known_crashes_now_raise(case):
    code, stderr = run_child([case], timeout=120)
    assert code >= 0, f"killed by signal {-code}: {case}"
    assert "RAISED ValueError" in stderr or "RAISED TypeError" in stderr, stderr[-500:]
