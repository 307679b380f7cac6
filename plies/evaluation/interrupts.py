"""Stopping long commands cleanly: Ctrl-C and SIGTERM take the same path.

A tournament or a training run keeps its work in files written whole, so a stop only has to end
the worker processes and say how to go on. ``KeyboardInterrupt`` is the path every command
already handles; ``Terminated`` (SIGTERM: ``kill PID``, ``docker stop``, a batch system's time
limit) is a ``KeyboardInterrupt`` too, so the same clean-up runs and only the exit status differs.
A process started in the background by a non-interactive shell (``nohup plies train ... &``)
begins with Ctrl-C ignored, so SIGTERM is the signal that reaches it. A stop whose exception
numba's compiled code lost is raised again (``remembered_stops``)."""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM inside ``sigterm_as_interrupt``."""


_depth = 0
"""How many ``remembered_stops`` blocks the main thread is in."""
_pending: type[KeyboardInterrupt] | None = None
"""The stop raised last inside ``remembered_stops``, kept until taken or the block ends: a stop
that propagates ends the loops that would check it, so one still here at a check was lost."""


def _raise_stop(kind: type[KeyboardInterrupt]) -> None:
    global _pending
    if _depth:
        _pending = kind
    raise kind()


def _take_pending() -> type[KeyboardInterrupt] | None:
    global _pending
    kind, _pending = _pending, None
    return kind


def exit_status(stop: KeyboardInterrupt) -> int:
    """The shell's status for a process ended by the signal: 143 for SIGTERM, 130 for Ctrl-C."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside the block SIGTERM raises ``Terminated`` in the main thread, once: a second SIGTERM
    while the command cleans up ends the process at once, as SIGTERM did before. The handler
    before the block comes back after it. A handler someone else installed (or SIGTERM ignored)
    is left alone, as is every thread but the main one (only it can change handlers).

    Python runs the handler between bytecodes, so a long compiled call finishes first: only
    commands with work to keep (and clean-up to do) take SIGTERM this way."""
    if not _in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def terminate(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _raise_stop(Terminated)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ctrl-C ignored inside the block, then the handler before it back.

    Only the main thread can change handlers, and a handler installed outside Python cannot be
    put back: in either case the block runs unchanged. Processes started inside the block inherit
    the ignored signal (Ctrl-C reaches the whole process group; the parent stops its workers)."""
    if not _in_main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    _raise_stop(KeyboardInterrupt)


@contextlib.contextmanager
def remembered_stops() -> Iterator[None]:
    """Inside the block the stops raised by Ctrl-C (where Python's own handler is in place) and by
    ``sigterm_as_interrupt`` are remembered until they are taken, so that a stop whose exception
    never arrived is raised again: by ``raise_swallowed_stop`` in a loop, or here, in place of an
    exception that ends the block while a stop is pending (chained to it).

    Why: numba's compiled code calls back into Python when it unboxes a function passed to it
    (``numba.core.serialize._numba_unpickle``), and a signal's handler may run there; numba (0.68)
    does not check that call for an error, so the stop is lost and the search fails a moment later
    with an unrelated ``TypeError`` (a tournament took it for the agent's forfeit and played on).

    Only the main thread takes part; an inner block leaves the outer one's stop alone."""
    global _depth
    if not _in_main_thread():
        yield
        return
    wrap = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    previous = signal.signal(signal.SIGINT, _interrupt) if wrap else None
    if not _depth:
        _take_pending()
    _depth += 1
    try:
        yield
    except Exception as err:
        kind = _take_pending()
        if kind is not None:
            raise kind() from err
        raise
    finally:
        _depth -= 1
        if not _depth:
            _take_pending()
        if wrap:
            signal.signal(signal.SIGINT, previous)


def raise_swallowed_stop() -> None:
    """Raise a stop remembered by ``remembered_stops`` whose own exception never got here (see
    there), once. Cheap: long loops call it once a game or round, and before an error is taken
    for something else (an agent's forfeit)."""
    kind = _take_pending() if _in_main_thread() else None
    if kind is not None:
        raise kind()
