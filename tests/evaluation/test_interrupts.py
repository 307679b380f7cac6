"""SIGTERM takes Ctrl-C's path: raised as ``Terminated`` inside the block, the old handler back after;
a stop whose exception was dropped is raised again at the loop's next check."""
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from plies.agents.specs import register, unregister
from plies.agents.wrappers import from_policy
from plies.evaluation import run_tournament
from plies.evaluation.interrupts import (
    Terminated,
    exit_status,
    raise_swallowed_stop,
    remembered_stops,
    sigint_ignored,
    sigterm_as_interrupt,
)
from plies.evaluation.store import ResultStore

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX signals")


def send_sigterm() -> None:
    """SIGTERM to this process; its Python handler runs in the main thread before this returns."""
    signal.raise_signal(signal.SIGTERM)


def handler_for_the_test(signum: int, handler):
    previous = signal.signal(signum, handler)
    yield
    signal.signal(signum, previous)


@pytest.fixture
def default_sigterm():
    yield from handler_for_the_test(signal.SIGTERM, signal.SIG_DFL)


def test_sigterm_raises_terminated_inside_the_block_and_the_default_comes_back(default_sigterm):
    with pytest.raises(Terminated) as stopped, sigterm_as_interrupt():
        send_sigterm()
    assert isinstance(stopped.value, KeyboardInterrupt)  # every Ctrl-C clean-up runs for it too
    assert exit_status(stopped.value) == 143 and exit_status(KeyboardInterrupt()) == 130
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_second_sigterm_while_cleaning_up_is_not_caught(default_sigterm):
    with sigterm_as_interrupt():
        try:
            send_sigterm()
        except Terminated:
            # cleaning up: the next SIGTERM ends the process, as it did before the block
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        else:
            raise AssertionError("SIGTERM did not raise Terminated")


def test_a_handler_already_installed_is_left_alone(default_sigterm):
    seen = []
    signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    with sigterm_as_interrupt():
        send_sigterm()
    assert seen == [signal.SIGTERM]


def test_outside_the_main_thread_nothing_changes(default_sigterm):
    seen = []

    def in_thread():
        with sigterm_as_interrupt(), sigint_ignored():
            seen.append((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)))

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join()
    assert seen == [(signal.SIG_DFL, before)]


def test_sigint_is_ignored_inside_the_block_only():
    before = signal.getsignal(signal.SIGINT)
    with sigint_ignored():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) is before


def swallowed(signum: int) -> None:
    """The signal, its exception dropped where it was raised (as numba's callbacks drop it)."""
    try:
        signal.raise_signal(signum)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the signal raised nothing")


@pytest.fixture
def python_sigint():
    yield from handler_for_the_test(signal.SIGINT, signal.default_int_handler)


def test_a_swallowed_ctrl_c_is_raised_again_once(python_sigint):
    with remembered_stops():
        raise_swallowed_stop()  # nothing yet
        swallowed(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt) as again:
            raise_swallowed_stop()
        assert not isinstance(again.value, Terminated)
        raise_swallowed_stop()  # taken: not raised twice
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_swallowed_sigterm_is_raised_again_as_terminated(default_sigterm, python_sigint):
    with sigterm_as_interrupt(), remembered_stops():
        swallowed(signal.SIGTERM)
        with pytest.raises(Terminated):
            raise_swallowed_stop()


def test_a_stop_that_propagated_is_forgotten_when_the_block_ends(python_sigint):
    with pytest.raises(KeyboardInterrupt), remembered_stops():
        signal.raise_signal(signal.SIGINT)
    raise_swallowed_stop()  # the command's next loop does not stop again
    swallowed(signal.SIGINT)  # outside the block nothing is remembered
    raise_swallowed_stop()


def test_someone_else_s_ctrl_c_handler_is_left_alone():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        with remembered_stops():
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            signal.raise_signal(signal.SIGINT)
            raise_swallowed_stop()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT]


def test_an_error_that_ends_the_block_while_a_stop_is_pending_becomes_the_stop(default_sigterm, python_sigint):
    with pytest.raises(Terminated) as stopped, sigterm_as_interrupt(), remembered_stops():
        swallowed(signal.SIGTERM)
        raise TypeError("what numba raises after losing the stop")
    assert isinstance(stopped.value.__cause__, TypeError)
    with pytest.raises(TypeError), remembered_stops():  # an error with no stop behind it stays itself
        raise TypeError("a bug")


def test_an_inner_block_keeps_the_outer_block_s_stop_and_threads_keep_out(python_sigint):
    def in_thread():
        with remembered_stops():
            raise_swallowed_stop()

    with remembered_stops():
        swallowed(signal.SIGINT)
        with remembered_stops():
            pass
        thread = threading.Thread(target=in_thread)
        thread.start()
        thread.join()
        with pytest.raises(KeyboardInterrupt):
            raise_swallowed_stop()


def loses_a_ctrl_c(observation: np.ndarray, mask: np.ndarray) -> int:
    """An agent as a compiled search is when Ctrl-C lands in numba's callback: the stop is lost,
    and the search fails with an unrelated error."""
    swallowed(signal.SIGINT)
    raise TypeError("_get_wrapper_address() missing 1 required positional argument: 'sig'")


def test_a_lost_ctrl_c_stops_a_tournament_and_is_not_taken_for_a_forfeit(python_sigint, tmp_path):
    register("loses", from_policy(loses_a_ctrl_c))
    path = tmp_path / "stopped.sqlite"
    try:
        with pytest.raises(KeyboardInterrupt):  # from Python too, not only from the CLI
            run_tournament("tictactoe", ["loses", "random"], 10, seed=1, workers=1, results=path, progress=False)
    finally:
        unregister("loses")
    store = ResultStore(path, ResultStore.read_config(path), resume=True)
    assert store.count() == 0
    store.close()


def run_with_a_lost_ctrl_c(at: int, *args: str) -> subprocess.CompletedProcess:
    script = Path(__file__).with_name("lost_stop.py")
    return subprocess.run([sys.executable, str(script), str(at), *args], capture_output=True, text=True,
                          timeout=300, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def numba_callbacks(stderr: str) -> int:
    return int(re.search(r"numba callbacks: (\d+)", stderr).group(1))


def test_a_ctrl_c_lost_inside_numba_stops_a_tournament(tmp_path):
    path = tmp_path / "lost.sqlite"
    args = ["tournament", "--game", "connect_four", "--agents", "random", "alphabeta:depth=3", "--games", "100",
            "--seed", "4", "--workers", "1", "--quiet", "--results", str(path)]
    done = run_with_a_lost_ctrl_c(3000, *args)  # about ten games in
    assert numba_callbacks(done.stderr) >= 3000  # the stop did land inside numba's callback
    assert done.returncode == 130, done.stderr + done.stdout
    assert f"interrupted: the finished games are in {path}" in done.stderr and "forfeit" not in done.stdout
    store = ResultStore(path, ResultStore.read_config(path), resume=True)
    records = list(store.records())
    store.close()
    assert 0 < len(records) < 200 and not any(any(r.errors) for r in records)


def test_a_ctrl_c_lost_inside_numba_stops_a_training_run_that_can_resume(tmp_path):
    done = run_with_a_lost_ctrl_c(40, "train", "tictactoe", "--run", str(tmp_path), "--rounds", "30",
                                  "--round-games", "20", "--workers", "1", "--eval-every", "1000", "--quiet")
    assert numba_callbacks(done.stderr) >= 40
    assert done.returncode == 130, done.stderr
    assert f"interrupted: the last checkpoint is in {tmp_path}" in done.stderr and "Traceback" not in done.stderr


def test_a_ctrl_c_lost_inside_numba_abandons_a_game_at_the_terminal():
    done = run_with_a_lost_ctrl_c(200, "play", "connect_four", "--players", "alphabeta:depth=3", "alphabeta:depth=3")
    assert numba_callbacks(done.stderr) >= 200
    assert done.returncode == 130, done.stderr
    assert "interrupted: game abandoned" in done.stdout and "Traceback" not in done.stderr
