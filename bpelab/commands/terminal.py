"""The command line's input and output: UTF-8 in and out, closed pipes, errors in one line, progress.

``bpelab.commands.cli`` builds each command on ``bpe``'s API; this module gives it
what a shell program needs. Text goes in and out as UTF-8 whatever the
locale: input is read as bytes and decoded as UTF-8, output is written to
``sys.stdout.buffer``. A reader that stops early (``| head``) is not an
error (see ``Output``); colour and progress lines appear only on a terminal,
never with NO_COLOR set or TERM=dumb.
"""

import contextlib
import json
import os
import stat
import sys
import time

from bpelab.messages import named, shown
from bpelab.reading import file_kind, open_text
from bpelab.text.blocks import stream_blocks
from bpelab.writing import check_output_path


PROGRAM = "bpe"
"""The name error messages start with."""


BROKEN_PIPE_STATUS = 141
"""The exit status when the reader of standard output went away: 128 + SIGPIPE."""


class CommandError(ValueError):
    """Bad input that the command line finds itself; reported like the API's ``ValueError``."""


class UsageError(Exception):
    """A command used wrongly: reported in one line with exit status 2, like argparse's own errors."""


class Output:
    """Standard output as UTF-8 bytes, which remembers a reader that went away instead of failing."""

    def __init__(self):
        self.reader_gone = False

    def write(self, text, flush=False):
        """Write ``text`` as UTF-8; after a broken pipe, write nothing more.

        A file name given as an argument may hold bytes the locale cannot
        decode, which Python keeps as surrogates (``surrogateescape``); they go
        out as the bytes they were, so the name is printed as it was typed.
        """
        self.write_bytes(text.encode("utf-8", "surrogateescape"), flush)

    def write_bytes(self, data, flush=False):
        """Write ``data`` exactly: all of it, or until the reader goes away.

        A write to a pipe may take only part of the data (what fitted before
        the reader closed it); the rest is written again, and that write
        finds the reader gone, rather than the rest being dropped unseen.
        """
        if self.reader_gone:
            return
        if sys.stdout is None:
            raise CommandError("standard output is closed; give the command somewhere to write")
        try:
            left = memoryview(data)
            while left:
                written = sys.stdout.buffer.write(left)
                if not written:  # (a stream set not to wait, that is full)
                    raise CommandError("standard output takes no more data; nothing more was written")
                left = left[written:]
            if flush:
                sys.stdout.buffer.flush()
        except BrokenPipeError:
            self.lost_reader()

    def finish(self):
        """Flush what is left."""
        self.write("", flush=True)

    def lost_reader(self):
        """The reader went away: send whatever is still buffered, and later output, to nowhere."""
        self.reader_gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


OUT = Output()


def stdin_stream():
    """Standard input as a binary stream; a closed one, or a device that never ends (``< /dev/zero``), is refused."""
    if sys.stdin is None:
        raise CommandError("standard input is closed; give the text as an argument or with --file")
    if sys.stdin.isatty():
        print(f"{PROGRAM}: reading the text from the terminal; end it with Ctrl-D", file=sys.stderr)
        return sys.stdin.buffer
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError):  # no file behind it (an in-memory stream): nothing that could never end
        return sys.stdin.buffer
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise CommandError(f"standard input is {file_kind(mode)}, which is not read as text; "
                           "give a regular file, a pipe or a terminal")
    return sys.stdin.buffer


def is_standard_input(path):
    """Whether ``path`` names the file standard input reads (``/dev/stdin``, ``/proc/self/fd/0``, the same pipe)."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(0))
    except (OSError, ValueError):
        return False


def read_stdin():
    """All of standard input as text, decoded as UTF-8 exactly (line endings untouched)."""
    return "".join(stream_blocks(stdin_stream(), "standard input"))


def read_text(args):
    """The text a command works on: ``--file PATH``, the TEXT argument itself, or standard input for ``-``.

    The argument's original bytes are decoded as UTF-8, so it means the same
    under any locale.
    """
    if args.file is not None:
        if args.text != "-":
            raise CommandError("give the text either as TEXT or with --file, not both")
        with open_text(args.file) as stream:
            return "".join(stream_blocks(stream, args.file))
    if args.text == "-":
        return read_stdin()
    return argument_text(args.text, "TEXT")


def argument_text(value, name):
    """A command-line argument as text: its original bytes decoded as UTF-8, whatever the locale."""
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CommandError(f"{named(name)}: not valid UTF-8 (byte {error.start})") from None


MAX_ID_DIGITS = 20
"""More digits than any token ID has; longer numbers are refused before Python's int limit is reached."""


def parse_ids(text, source):
    """Token IDs written as a JSON list or separated by whitespace; whether they are in the vocabulary is ``decode``'s job."""
    if not text.lstrip().startswith("["):
        return [parse_id(word, source) for word in text.split()]
    try:
        ids = json.loads(text, parse_int=lambda digits: parse_id(digits, source))
    except (ValueError, RecursionError) as error:
        if isinstance(error, CommandError):
            raise
        raise CommandError(f"{named(source)}: not a valid JSON list of token IDs") from None
    if not isinstance(ids, list):
        raise CommandError(f"{named(source)}: not a valid JSON list of token IDs")
    for item in ids:
        if type(item) is not int:  # 1.5, "7", true, null or a nested list
            raise CommandError(f"{named(source)}: {shown(item)} in the list is not a token ID (a whole number)")
    return ids


def parse_id(word, source):
    """One token ID written in decimal."""
    digits = word[1:] if word.startswith("-") else word
    if not digits.isascii() or not digits.isdigit():
        raise CommandError(f"{named(source)}: {shown(word)} is not a token ID")
    if len(digits) > MAX_ID_DIGITS:
        raise CommandError(f"{named(source)}: {shown(word)} is far larger than any token ID")
    return int(word)


def describe(error):
    """An error as one line: ``FILE: reason`` for a failed file operation, else its message."""
    if isinstance(error, OSError) and error.filename is not None:
        return f"{named(error.filename)}: {error.strerror}"
    return str(error)


def on_terminal(stream):
    """Whether ``stream`` is a terminal that understands colours and redrawn lines."""
    return (stream is not None and stream.isatty() and not os.environ.get("NO_COLOR")
            and os.environ.get("TERM") != "dumb")


class TerminalLine:
    """One line of stderr redrawn in place (on a terminal only), cleared when done, however it ends."""

    def __init__(self):
        self.stream = sys.stderr if on_terminal(sys.stderr) else None
        self.started = time.monotonic()

    def show(self, text):
        if self.stream is not None:
            self.stream.write(f"\r\x1b[K{text}")
            self.stream.flush()

    def elapsed(self):
        return time.monotonic() - self.started

    def restart(self):
        """Count the elapsed time from now on (a second stage of the work)."""
        self.started = time.monotonic()
        return self.started

    def clear(self):
        if self.stream is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


@contextlib.contextmanager
def terminal_line():
    """A ``TerminalLine``, cleared at the end."""
    line = TerminalLine()
    try:
        yield line
    finally:
        line.clear()


def bytes_progress(line, verb):
    """A ``progress(bytes_done, bytes_total)`` callback: MB done (of the total, when known), speed, time left."""

    def progress(done, total):
        elapsed = line.elapsed()
        rate = done / elapsed if elapsed > 0 else 0.0
        shown = f"{verb} {done / 1e6:,.1f}"
        if total:
            left = (total - done) / rate if rate > 0 else 0.0
            shown += f" of {total / 1e6:,.1f} MB, {rate / 1e6:,.1f} MB/s, {left:,.0f} s left"
        else:
            shown += f" MB, {rate / 1e6:,.1f} MB/s"
        line.show(shown)

    return progress


def check_output(path, inputs=()):
    """Refuse, before any work, an output that cannot be written, is a special file, or is one of the inputs."""
    check_output_path(path, "-o/--output")
    for source in inputs:
        if source != "-" and os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise CommandError(f"{named(path)}: is also an input file; write the output somewhere else")
