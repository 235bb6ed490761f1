"""What a job measures inside its own process: the time of one call, a time limit, and peak memory.

A job runs in a fresh process (see ``measuring``), so its peak memory is
its own; on Linux that peak is VmHWM, not ``ru_maxrss``, which also counts
the memory of the parent that started the process. A job that spreads over
worker processes (``encode_files``) is measured as a process tree: the
resident memory of the job's process and all its descendants, summed,
sampled every 50 ms from /proc (``TreeMemory``). Pages shared after
``fork`` count once per process, so the sum errs high. A command run as a
child process (``bpe.py count``) is measured by the high-water marks of its
tree instead (``TreeHighWater``): each process's VmHWM, the most it has
held, read until it exits, summed. Standard library only.
"""

import glob
import os
import resource
import signal
import sys
import threading
import time


class Unmeasured(Exception):
    """Raised by a job that cannot give a figure here, with the reason (a skip, not a failure)."""


def timed(function, *args, **kwargs):
    """``function(*args, **kwargs)`` and the seconds it took."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def within(seconds, function):
    """``function()``, or ``Unmeasured`` once it has run for ``seconds`` (an alarm signal interrupts it)."""

    def expire(signal_number, frame):
        raise Unmeasured(f"timed out (over {seconds} s)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        return function()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def max_rss_kib(who):
    """``ru_maxrss`` in KiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(who).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def peak_rss_kib():
    """This process's own peak resident memory in KiB: VmHWM from /proc/self/status where there is one.

    Linux carries ``ru_maxrss`` across exec: a process started by a parent
    of 100 MB reports at least 100 MB, which would charge the benchmark's own
    memory to every job. VmHWM starts afresh with the new program.
    """
    return high_water_kib("self") or max_rss_kib(resource.RUSAGE_SELF)


def high_water_kib(pid):
    """VmHWM of process ``pid`` (or ``"self"``) in KiB, the most it has held so far; None once it has ended or
    where /proc has no such line."""
    try:
        with open(f"/proc/{pid}/status") as stream:
            return next(int(line.split()[1]) for line in stream if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return None


def tree_pids(root):
    """``root`` and all its descendants, from /proc/PID/task/TID/children (Linux; only ``root`` elsewhere)."""
    found = [root]
    for pid in found:  # the list grows as children are found: a breadth-first walk
        for children in glob.glob(f"/proc/{pid}/task/*/children"):
            try:
                with open(children) as stream:
                    found += map(int, stream.read().split())
            except OSError:  # the task ended meanwhile
                pass
    return found


def rss_kib(pid):
    """A process's resident memory in KiB now, from /proc/PID/statm (0 when it has ended or elsewhere)."""
    try:
        with open(f"/proc/{pid}/statm") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


class Sampler(threading.Thread):
    """Within ``with``: ``sample()`` in a background thread, at once and then every ``interval`` seconds."""

    def __init__(self, interval):
        super().__init__(daemon=True)
        self.interval = interval
        self.done = threading.Event()

    def sample(self):
        raise NotImplementedError

    def run(self):
        self.sample()
        while not self.done.wait(self.interval):
            self.sample()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.done.set()
        self.join()


class TreeMemory(Sampler):
    """Within ``with``: the peak of the summed resident memory of this process and its descendants.

    A background thread samples every ``interval`` seconds; a spike shorter
    than that can be missed, which is why callers also take ``ru_maxrss``.
    """

    def __init__(self, interval=0.05):
        super().__init__(interval)
        self.peak_kib = 0

    def sample(self):
        self.peak_kib = max(self.peak_kib, sum(map(rss_kib, tree_pids(os.getpid()))))


class TreeHighWater(Sampler):
    """Within ``with``: each process of ``root``'s tree with its last VmHWM, read every ``interval`` seconds.

    VmHWM only grows, so the last reading before a process exits is what it
    held at most (short of growth in its final ``interval``); ``total_kib``
    sums those over every process seen, workers that ended early included.
    Leave the ``with`` once ``root`` has exited.
    """

    def __init__(self, root, interval=0.01):
        super().__init__(interval)
        self.root = root
        self.last_kib = {}  # pid -> its latest VmHWM

    def sample(self):
        """Read the VmHWM of every process of the tree now."""
        for pid in tree_pids(self.root):
            reading = high_water_kib(pid)
            if reading is not None:
                self.last_kib[pid] = max(self.last_kib.get(pid, 0), reading)

    @property
    def total_kib(self):
        """The sum over the processes seen of each one's last VmHWM."""
        return sum(self.last_kib.values())
