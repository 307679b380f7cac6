"""``python lost_stop.py N ARGS...``: ``plies ARGS...`` with a Ctrl-C whose handler runs inside the
N-th call numba's compiled code makes back into Python (``_numba_unpickle``, where a real Ctrl-C
can land and numba then loses its exception); the number of such calls goes to stderr."""
import signal
import sys

import numba.core.serialize as serialize

calls = 0
original = serialize._numba_unpickle


def unpickle_with_a_stop(*args):
    global calls
    calls += 1
    if calls == int(sys.argv[1]):
        signal.raise_signal(signal.SIGINT)  # its handler runs here, as a real signal's can
    return original(*args)


serialize._numba_unpickle = unpickle_with_a_stop  # before numba's first call, which keeps the function

if __name__ == "__main__":
    from plies.cli import main

    try:
        status = main(sys.argv[2:])
    finally:
        print(f"numba callbacks: {calls}", file=sys.stderr)
    sys.exit(status)
