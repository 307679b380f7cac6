"""SIGTERM takes Ctrl-C's path: raised as ``Terminated`` inside the block, the old handler back after."""
import os
import signal
import threading

import pytest

from plies.evaluation.interrupts import Terminated, exit_status, sigint_ignored, sigterm_as_interrupt

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
