"""Run the command line in the tests' own process, as a real ``python3 bpe.py`` run would see it.

Starting ``python3 bpe.py COMMAND`` costs about 0.3 s, nearly all of it the
interpreter starting and importing the package; most commands the tests run
then take a few milliseconds. ``run_here`` calls ``bpelab.commands.cli.main`` in this
process instead, and gives it what a process started by the tests gets:

- the C locale with Python's UTF-8 mode and locale coercion off
  (``C_LOCALE``, the environment the tests give real processes too), so
  standard streams are ASCII: stdout and stdin with ``surrogateescape``,
  stderr with ``backslashreplace``, exactly as Python sets them there. A
  command that wrongly ``print``s non-ASCII text to stdout fails here as it
  would there; text comes through only as the UTF-8 bytes the command line
  writes itself;
- its arguments as Python decodes them there (ASCII, undecodable bytes as
  surrogates), so an argument used without ``terminal.argument_text`` is as
  wrong here as there; ``sys.argv`` as a run of ``bpe.py`` sets it;
- its standard input as a byte stream (not a terminal), stdout and stderr
  captured as bytes, an exit status from ``main``'s return value or from
  ``SystemExit`` (argparse's usage errors, ``--help``), and an exception
  that escapes as a traceback on stderr with status 1, as the interpreter
  reports it;
- no worker processes: a command that would start them fails, saying to
  run it as a real process;
- nothing left by an earlier run: ``bpelab.commands.terminal.OUT`` starts as a new
  ``Output`` (a run that lost its reader does not silence the next), and the
  signal handlers, environment variables and ``sys`` streams are put back
  after each run, however it ends, and so is the working folder (``cwd``).

What only a real process shows stays with real processes (see
tests/commands/test_cli.py): pipes and a reader that goes away, signals, terminals,
the locale's own decoding of argument bytes, file descriptor 0 as a path
(``/dev/stdin``; here fd 0 is the test runner's), worker processes (forking
the test runner is unsafe) and servers. Caches of pure functions
(``functools.lru_cache``) are kept between runs: they change how long a run
takes, never what it prints.
"""

import concurrent.futures
import contextlib
import io
import os
import signal
import subprocess
import sys
import traceback
from unittest import mock

from bpelab.commands import cli, terminal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BPE_PATH = os.path.join(ROOT, "bpe.py")

C_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "NO_COLOR": None, "PYTHONIOENCODING": None}
"""The environment variables every command run by the tests gets (None: unset), in this process or a real one."""

ENCODING = "ascii"
"""What Python's standard streams and file-system encoding are in the C locale (no UTF-8 mode, no coercion)."""

SIGNALS = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE")
           if hasattr(signal, name)]
"""Signals whose handlers a command may change (``writing.stopping_cleanly`` sets SIGTERM's, SIGHUP's and SIGQUIT's
while it writes)."""


def environment(changes=None):
    """``os.environ`` as a process started by the tests sees it: the C locale, then ``changes`` (None: unset)."""
    result = dict(os.environ)
    for name, value in {**C_LOCALE, **(changes or {})}.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = value
    return result


def as_in_c_locale(argument):
    """An argument as Python decodes it in the C locale: ASCII, each other byte of its UTF-8 as a surrogate."""
    return os.fsencode(argument).decode(ENCODING, "surrogateescape")


def standard_stream(data, errors, line_buffering=False):
    """A text stream over bytes, with ``.buffer``, as Python makes a standard stream on a pipe in the C locale."""
    return io.TextIOWrapper(io.BytesIO(data), encoding=ENCODING, errors=errors, line_buffering=line_buffering)


@contextlib.contextmanager
def process_state(args, stdin, env, cwd):
    """Give a run its own argv, environment, streams, ``Output``, terminal size and folder; put all back after."""
    streams = (standard_stream(stdin, "surrogateescape"), standard_stream(b"", "surrogateescape"),
               standard_stream(b"", "backslashreplace", line_buffering=True))
    handlers = [(number, signal.getsignal(number)) for number in SIGNALS]
    size = {} if "COLUMNS" in os.environ else {"COLUMNS": "80", "LINES": "24"}  # a pipe's size: argparse wraps at 80
    terminal.OUT.__init__()  # a new process's Output: no reader gone yet
    folder = os.getcwd()
    try:
        os.chdir(cwd or folder)
        with mock.patch.dict(os.environ, environment({**size, **(env or {})}), clear=True), \
                mock.patch.object(sys, "argv", [BPE_PATH, *args]), \
                mock.patch.multiple(sys, stdin=streams[0], stdout=streams[1], stderr=streams[2]), \
                mock.patch.object(concurrent.futures, "ProcessPoolExecutor", no_worker_processes):
            yield streams
    finally:
        os.chdir(folder)
        terminal.OUT.__init__()
        for number, handler in handlers:
            signal.signal(number, handler)


def no_worker_processes(*args, **kwargs):
    """Stands in for ``ProcessPoolExecutor`` during a run here: forking the test runner is unsafe."""
    raise RuntimeError("this command starts worker processes: run it as a real process, not with run_here")


def exit_status(code, stderr):
    """The status a process ends with for ``sys.exit(code)``: a message is printed and is status 1."""
    if code is None or isinstance(code, int):
        return int(code or 0)
    print(code, file=stderr)
    return 1


def run_here(*args, stdin=b"", env=None, cwd=None, text=False):
    """Run ``bpe.py`` with ``args`` in this process, bytes on standard input; a ``CompletedProcess``.

    ``env`` changes environment variables for this run only (a value of None
    unsets one), on top of ``C_LOCALE``; ``cwd`` is the folder it runs in.
    Its stdout and stderr are bytes, or with ``text`` decoded from the UTF-8
    the command line writes.
    """
    arguments = [as_in_c_locale(argument) for argument in args]
    with process_state(arguments, stdin, env, cwd) as (_, stdout, stderr):
        try:
            status = exit_status(cli.main(arguments), stderr)
        except SystemExit as error:
            status = exit_status(error.code, stderr)
        except Exception:  # what the interpreter does with an exception nothing caught
            traceback.print_exc(file=stderr)
            status = 1
        stdout.flush()
        stderr.flush()
        output = [stream.buffer.getvalue() for stream in (stdout, stderr)]
    if text:
        output = [data.decode("utf-8") for data in output]
    return subprocess.CompletedProcess([sys.executable, BPE_PATH, *args], status, *output)
