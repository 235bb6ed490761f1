"""Writing: files that are never left half written, nor replace what they should not.

``bpe.Tokenizer.save`` (and every other writer of the lab) comes through
here. Every file the lab writes (tokenizers, exports, trace artifacts, token
files, the widget page) goes through ``atomic_writer``: the data goes to a
temporary file in the same folder, which is renamed over the target only
once it is complete and on disk, so a reader sees the old file or the new,
never half of one. A symbolic link is kept and its target is written;
anything that exists and is not a regular file (a device such as
/dev/null, a pipe, a folder) is refused, because renaming over it would
replace it.
"""

import contextlib
import errno
import io
import os
import signal
import stat
import tempfile
import threading
from typing import BinaryIO, Iterator, Optional, Sequence

from bpelab.checks import check_path
from bpelab.messages import named
from bpelab.reading import PathLike, file_kind


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
def atomic_writer(path: PathLike, argument: str = "path", mode: Optional[int] = None) -> Iterator[BinaryIO]:
    """Open ``path`` for writing bytes so that it is replaced whole or not at all.

    The file gets ``mode``, if given, else the permissions of the file it
    replaces (or a new file's). If anything fails (or the process is told to stop with SIGTERM or
    Ctrl-C), the temporary file is removed and the old file is untouched.
    Errors name ``path``, not the temporary file.
    """
    with stopping_cleanly(), _staged(path, argument, mode) as staged:
        yield staged.stream
        staged.commit()


@contextlib.contextmanager
def atomic_described(path: PathLike, description_paths: Sequence[PathLike], argument: str = "path",
                     kept: Optional[str] = None) -> Iterator[tuple]:
    """Open a file and the files that describe it for writing bytes, replaced so that they never disagree.

    Yields the file's stream and a list of the descriptions' streams. The
    file is written to a temporary file, as ``atomic_writer`` writes one; the
    descriptions, which are small, are held in memory until the end, so a
    process killed on the way leaves only the one temporary file. At the end
    the old descriptions are removed first, then the file is replaced, then
    the new descriptions are put in place, in order: stopped at any moment,
    the folder holds the old set, or a file without (some of) its
    descriptions, or the new set, never a file beside another file's description.
    With ``kept``, the file is written in ``kept`` instead of a temporary
    file, opened as it is (a new one if there is none) and left there if the
    writing fails, for a later run to go on with (``corpora.resuming``).
    """
    with stopping_cleanly(), _staged(path, argument, kept=kept) as data:
        descriptions = [io.BytesIO() for _ in description_paths]
        yield data.stream, descriptions
        with contextlib.ExitStack() as stack:
            staged = [stack.enter_context(_staged(other, argument)) for other in description_paths]
            for description, written in zip(staged, descriptions):
                description.stream.write(written.getvalue())
            for file in [data] + staged:
                file.flush()
            for description in staged:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(description.target)
            data.commit()
            for description in staged:
                description.commit()


class _Staged:
    """A file being written to a temporary file beside its target, which ``commit`` renames over the target.

    ``stream`` is the temporary file's, but its errors name the target
    (``bpe: train.bin: No space left on device``), as do those of
    ``flush`` and ``commit``.
    """

    def __init__(self, path, argument, mode=None, kept=None):
        self.path, self.target, self.kept = path, check_output_path(path, argument), kept
        try:
            if kept is None:
                handle, self.temporary = tempfile.mkstemp(dir=os.path.dirname(self.target), prefix=".tmp-",
                                                          suffix=".part")
            else:
                handle, self.temporary = os.open(kept, os.O_RDWR | os.O_CREAT, 0o600), kept
        except OSError as error:
            raise OSError(error.errno, error.strerror, path if kept is None else kept) from None
        self.file = os.fdopen(handle, "wb" if kept is None else "r+b")
        self.stream = _Named(self.file, self)
        self.committed = False
        os.chmod(self.temporary, _mode_for(self.target) if mode is None else mode)

    def named(self, error):
        """``error`` as it would read if it had happened to the target (it may have no file name, or the temporary's)."""
        if error.filename in (None, self.temporary):
            return OSError(error.errno, error.strerror, self.path)
        return error

    def flush(self):
        """Put the data on disk and close the temporary file."""
        try:
            if not self.file.closed:
                self.file.flush()
                os.fsync(self.file.fileno())
                self.file.close()
        except OSError as error:
            raise self.named(error) from None

    def commit(self):
        """Flush, then rename the temporary file over the target."""
        self.flush()
        try:
            os.replace(self.temporary, self.target)
        except OSError as error:
            raise self.named(error) from None
        self.committed = True

    def discard(self):
        """Close and remove the temporary file, unless it was committed (errors closing it are the failure's own)."""
        with contextlib.suppress(OSError):
            self.file.close()
        if not self.committed and self.kept is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.temporary)


class _Named:
    """A file's stream whose errors (a full disk, a file too large) name the file it stands for."""

    def __init__(self, stream, staged):
        self._stream, self._staged = stream, staged

    def write(self, data):
        try:
            return self._stream.write(data)
        except OSError as error:
            raise self._staged.named(error) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _staged(path, argument, mode=None, kept=None):
    """A ``_Staged`` file, whose temporary file is removed however the writing ends, unless it was committed (or
    is ``kept``)."""
    staged = _Staged(path, argument, mode, kept)
    try:
        yield staged
    finally:
        staged.discard()


def write_text_atomic(path: PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` through ``atomic_writer``."""
    with atomic_writer(path) as stream:
        stream.write(text.encode("utf-8"))


STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))
"""The signals that end a process while it writes (``kill``, a closed terminal, Ctrl-\\) and are handled alike:
the write unwinds, its temporary file is removed, then the process ends as the signal would end it. (Ctrl-C is
Python's ``KeyboardInterrupt``, which unwinds by itself.)"""


class _Terminated(BaseException):
    """One of ``STOPPING_SIGNALS`` arrived while a file was being written."""


def _unwind(signal_number, frame):
    """The handler of ``STOPPING_SIGNALS`` while a file is being written: unwind, so the temporary file is removed."""
    raise _Terminated(signal_number)


def _not_in_a_child():
    """After a fork, give a child (a worker process) each signal's default action back, if it inherited ``_unwind``.

    A worker forked while its parent writes a file must not unwind the
    parent's write on SIGTERM, nor print a traceback: it simply ends.
    """
    for number in STOPPING_SIGNALS:
        if signal.getsignal(number) is _unwind:
            signal.signal(number, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_not_in_a_child)


@contextlib.contextmanager
def stopping_cleanly():
    """Let SIGTERM, SIGHUP and SIGQUIT unwind the write (so its temporary file is removed), then end the process as
    the signal does.

    Only for the signals that would simply end the process (their default
    action, in the main thread); a program that handles one itself keeps
    its way.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    taken = [number for number in STOPPING_SIGNALS if signal.getsignal(number) == signal.SIG_DFL]
    for number in taken:
        signal.signal(number, _unwind)
    try:
        yield
    except _Terminated as stopped:
        for number in taken:
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), stopped.args[0])
        raise
    finally:
        for number in taken:
            signal.signal(number, signal.SIG_DFL)
