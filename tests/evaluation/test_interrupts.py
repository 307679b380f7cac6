"""SIGTERM takes Ctrl-C's path: raised as ``Terminated`` inside the block, the old handler back after;
a stop whose exception was dropped is raised again at the loop's next check."""
import os
import signal
import threading

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


@pytest.fixture
def default_sigterm():
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGTERM, previous)


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
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


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


def swallows_a_ctrl_c(observation: np.ndarray, mask: np.ndarray) -> int:
    swallowed(signal.SIGINT)
    return int(np.flatnonzero(mask)[0])


def test_a_tournament_stops_after_the_game_whose_agent_swallowed_ctrl_c(python_sigint, tmp_path):
    register("swallows", from_policy(swallows_a_ctrl_c))
    path = tmp_path / "stopped.sqlite"
    try:
        with pytest.raises(KeyboardInterrupt), remembered_stops():
            run_tournament("tictactoe", ["swallows", "random"], 10, seed=1, workers=1, results=path, progress=False)
        # outside remembered_stops the same agent plays the whole tournament: the stop is lost
        full = run_tournament("tictactoe", ["swallows", "random"], 10, seed=1, workers=1, progress=False)
    finally:
        unregister("swallows")
    assert len(full.records) == 10  # games=10: the total of the two-agent schedule
    assert ResultStore(path, ResultStore.read_config(path), resume=True).count() == 0
