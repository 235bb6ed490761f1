"""Files: reading with limits, and writing that never leaves half a file or replaces what it should not.

``bpe.Tokenizer.save`` and ``load`` (and every other reader and writer of
the lab) come through here. Readers read only a regular file or a pipe, and
never more than ``MAX_FILE_BYTES``. Every file the lab writes (tokenizers,
exports, trace artifacts, token files, the widget page) goes through
``atomic_writer``: the data goes to a temporary file in the same folder,
which is renamed over the target only once it is complete and on disk, so
a reader sees the old file or the new, never half of one. A symbolic link
is kept and its target is written; anything that exists and is not a
regular file (a device such as /dev/null, a pipe, a folder) is refused,
because renaming over it would replace it.
"""

import contextlib
import errno
import gc
import gzip
import io
import json
import os
import select
import signal
import stat
import tempfile
import threading
from typing import BinaryIO, Iterator, Union

from bpelab.checks import check_path
from bpelab.messages import named, shown

PathLike = Union[str, "os.PathLike[str]"]


MAX_FILE_BYTES = 256 << 20
"""The largest file a loader reads (256 MiB; GPT-4o's vocabulary in format 2 is about 9 MB)."""


def file_kind(mode):
    """What kind of file a mode describes, in words."""
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a pipe"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_file_bytes(path: PathLike, argument: str = "path") -> bytes:
    """The bytes of a file of at most ``MAX_FILE_BYTES``: a regular file, or a pipe; else a one-line error.

    A pipe (a FIFO, ``/dev/stdin``, a shell's ``<(...)``) is read in blocks
    as its data comes, and given up on when nothing comes for ``PIPE_WAIT``
    seconds. A device such as ``/dev/zero`` or a socket could be read without
    end, so it is refused by its type, before any reading; a folder is the
    usual ``IsADirectoryError``, as ``open`` gives it.
    """
    path = check_path(path, argument)
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if stat.S_ISFIFO(mode):
        data = _read_pipe(path)
    elif stat.S_ISREG(mode):
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    else:
        raise ValueError(f"{named(path)}: {file_kind(mode)}, which is not read; "
                         "a tokenizer is read from a regular file or a pipe")
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{named(path)}: larger than the {_size(MAX_FILE_BYTES)} a tokenizer file may have")
    return data


def _size(limit):
    """A size limit in words: ``256 MiB``, or ``1,000 bytes`` for a limit below a mebibyte."""
    return f"{limit >> 20:,} MiB" if limit >= 1 << 20 else f"{limit:,} bytes"


def open_text(path: PathLike):
    """Open a text input (a file to train on or encode) for reading bytes, refusing one that never ends.

    A regular file, a pipe and a terminal are read; a device such as
    ``/dev/zero`` would be read for ever, so it is refused before any reading.
    """
    stream = open(path, "rb")
    mode = os.fstat(stream.fileno()).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stream.isatty()):
        stream.close()
        raise ValueError(f"{named(path)}: {file_kind(mode)}, which is not read as text; "
                         "give a regular file, a pipe or a terminal")
    return stream


PIPE_WAIT = 5.0
"""How many seconds a loader waits for a pipe to send something before it gives up."""


def _read_pipe(path):
    """Read a pipe to its end, a block at a time, without waiting forever for a writer or for data.

    Opening it without blocking means an open never hangs on a FIFO that no
    program writes to; each wait for data is bounded by ``PIPE_WAIT``.
    Reading stops one byte past ``MAX_FILE_BYTES``, which the caller refuses.
    """
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    waiting = select.poll()
    waiting.register(handle, select.POLLIN)
    data = bytearray()  # grows in place: refusing a pipe past the limit holds it once, not twice
    try:
        while len(data) <= MAX_FILE_BYTES:
            if not waiting.poll(PIPE_WAIT * 1000):
                more = " more" if data else ""
                raise ValueError(f"{named(path)}: a pipe that sent nothing{more} for {PIPE_WAIT:g} seconds; "
                                 "is the program that writes to it running?")
            try:
                block = os.read(handle, 1 << 16)
            except BlockingIOError:
                continue  # woken with nothing to read yet
            if not block:
                break
            data += block
    finally:
        os.close(handle)
    return bytes(data)


def gunzip(data, path):
    """Decompress gzip data, refusing it past ``MAX_FILE_BYTES`` or when it is not valid gzip."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError, ValueError) as error:
        raise ValueError(f"{named(path)}: not a valid gzip file ({error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{named(path)}: decompresses to more than the {_size(MAX_FILE_BYTES)} "
                         "a tokenizer file may have")
    return data


def _refuse_duplicate_keys(pairs):
    """A JSON object hook: a key given twice is a malformed file, not a silent overwrite."""
    data = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"key {shown(key)} appears twice")
        data[key] = value
    return data


def read_json(path: PathLike, argument: str = "path"):
    """Read a UTF-8 JSON file (see ``read_file_bytes``), turning every way it can be malformed into a ``ValueError``."""
    return parse_json(read_file_bytes(path, argument), path)


@contextlib.contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector while a large vocabulary is read or built.

    Reading one makes millions of lists, tuples and strings, none of them in a
    cycle; each batch of new objects wakes the collector, which then walks the
    ones made before, so it took about a third of the time of loading.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def parse_json(raw: bytes, path: PathLike):
    """The JSON in ``raw``, the bytes of the file ``path``; every way it can be malformed is a ``ValueError`` naming it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{named(path)}: not valid UTF-8 (byte {error.start:,})") from None
    try:
        with collector_paused():
            return json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except json.JSONDecodeError as error:
        raise ValueError(f"{named(path)}: not valid JSON ({error.msg} at line {error.lineno})") from None
    except ValueError as error:
        raise ValueError(f"{named(path)}: not a valid tokenizer file ({error})") from None
    except RecursionError:
        raise ValueError(f"{named(path)}: not a valid tokenizer file (JSON nested too deeply)") from None


def check_output_path(path: PathLike, argument: str = "path") -> str:
    """Refuse, before any work, a path that cannot be written; return the file a write there replaces.

    That file is ``path`` itself, or the file a symbolic link leads to. A
    path that exists and is not a regular file (a device such as /dev/null,
    a pipe, a folder) is refused, and so is one in a folder that is missing.
    """
    path = check_path(path, argument)
    if not path or path.endswith(os.sep):
        raise IsADirectoryError(errno.EISDIR, "not a file name (a file is needed here)", path)
    try:
        mode = os.stat(path).st_mode  # follows links, to see what would really be replaced
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "a folder (a file is needed here)", path)
    if mode is not None and not stat.S_ISREG(mode):
        raise ValueError(f"{named(path)}: {file_kind(mode)}; only a regular file is written, "
                         "so it was left as it was")
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"cannot write here: no folder {named(folder)}", path)
    if not os.access(folder, os.W_OK):
        raise PermissionError(errno.EACCES, "cannot write here: the folder is not writable", path)
    return target


def _mode_for(path):
    """The permissions a file at ``path`` should get: those it has, or what a new file gets.

    A temporary file is created private (0600); without this, replacing a
    file would quietly make it unreadable to everyone else.
    """
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_writer(path: PathLike, argument: str = "path") -> Iterator[BinaryIO]:
    """Open ``path`` for writing bytes so that it is replaced whole or not at all.

    If anything fails (or the process is told to stop with SIGTERM or
    Ctrl-C), the temporary file is removed and the old file is untouched.
    Errors name ``path``, not the temporary file.
    """
    target = check_output_path(path, argument)
    with stopping_cleanly():
        try:
            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-", suffix=".part")
        except OSError as error:
            raise OSError(error.errno, error.strerror, path) from None
        try:
            with os.fdopen(handle, "wb") as stream:
                os.chmod(temporary, _mode_for(target))
                yield stream
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, target)
        except BaseException as error:
            os.unlink(temporary)
            if isinstance(error, OSError) and temporary in (error.filename, error.filename2):
                raise OSError(error.errno, error.strerror, path) from None
            raise


def write_text_atomic(path: PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` through ``atomic_writer``."""
    with atomic_writer(path) as stream:
        stream.write(text.encode("utf-8"))


class _Terminated(BaseException):
    """SIGTERM arrived while a file was being written."""


def _unwind(signal_number, frame):
    """The SIGTERM handler while a file is being written: unwind, so the temporary file is removed."""
    raise _Terminated


def _not_in_a_child():
    """After a fork, give a child (a worker process) SIGTERM's default action back, if it inherited ``_unwind``.

    A worker forked while its parent writes a file must not unwind the
    parent's write on SIGTERM, nor print a traceback: it simply ends.
    """
    if signal.getsignal(signal.SIGTERM) is _unwind:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_not_in_a_child)


@contextlib.contextmanager
def stopping_cleanly():
    """Let SIGTERM unwind the write (so its temporary file is removed), then end the process as SIGTERM does.

    Only where SIGTERM would simply end the process (its default action, in
    the main thread); a program that handles SIGTERM itself keeps its way.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _unwind)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
