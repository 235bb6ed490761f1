"""Worker processes: a pool whose processes end with their parent, and work handed out and taken back in order.

Encoding token files (``token_files``, ``bpe.Tokenizer.encode_files``) and counting chunks for training
(``counting``) both cut a long text into blocks at safe places and share
the blocks among processes. This module holds what they share: the pool,
each of whose processes keeps the state it was started with and ends if
its parent is killed, and ``results_in_order``, which keeps at most two
pieces of work per worker waiting, so memory holds a few blocks whatever
the corpus, and gives the results back in the order the work was given.
Nothing here changes a result: it only decides where work runs.
"""

import collections
import os
import signal
import threading
import time

_STATE = {}
"""In a worker process: what it was given when it started (a tokenizer, for encoding)."""


def start_worker(state, parent):
    """Set up a worker process: keep its state, and end it if its parent ends first."""
    _STATE["state"] = state
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, which tidies up the parent's own file
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def worker_state():
    """In a worker process, the state ``worker_pool`` gave it."""
    return _STATE["state"]


def _end_with(parent):
    """Watch the parent process; when it is gone (killed before it could stop its workers), end this worker.

    Without this, a worker of a killed parent would wait for work forever.
    """
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)


def worker_pool(state, workers):
    """A pool of ``workers`` processes, each holding a copy of ``state`` from its start."""
    import concurrent.futures

    return concurrent.futures.ProcessPoolExecutor(workers, initializer=start_worker, initargs=(state, os.getpid()))


def results_in_order(pool, function, items, workers):
    """``(item, future of function(item))`` for each of ``items``, in order, computed in the pool's processes.

    At most two items per worker are submitted and not yet taken, so a
    long stream of items is never all in memory at once.
    """
    pending = collections.deque()
    for item in items:
        pending.append((item, pool.submit(function, item)))
        if len(pending) >= 2 * workers:
            yield pending.popleft()
    yield from pending
