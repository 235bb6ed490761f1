"""Reading: files and pipes read with limits, JSON parsed strictly, a ``.gz`` decompressed with the same limit.

``bpe.Tokenizer.load`` (and every other reader of the lab) comes through
here. Readers read only a regular file or a pipe, and never more than
``MAX_FILE_BYTES``; a malformed file is a ``ValueError`` naming it. JSON-lines
files of documents (``jsonl_documents``, for ``train --jsonl``) are read a
line at a time, with no limit but a line's.
``bpelab.writing`` is the other half: writing that never leaves half a file.
"""

import codecs
import contextlib
import errno
import gc
import gzip
import io
import json
import os
import select
import stat
from typing import Iterable, Iterator, Union

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


def jsonl_documents(paths: Iterable[PathLike], field: str) -> Iterator[str]:
    """The text of ``field`` in each record of JSON-lines files, in order, read a line at a time (a blank line is
    no record); a line that is no JSON object with a string ``field`` is a ``ValueError`` naming file and line.

    A path may be an open binary stream (standard input), read to its end and left open.
    """
    for path in paths:
        stream, name = (path, "standard input") if hasattr(path, "read") else (open_text(path), named(path))
        try:
            for number, line in enumerate(stream, 1):
                if number == 1 and line.startswith(codecs.BOM_UTF8):  # (as some editors on Windows begin a file)
                    line = line[len(codecs.BOM_UTF8):]
                if line.strip():
                    yield record_field(line, field, f"{name}, line {number:,}")
        finally:
            if stream is not path:
                stream.close()


def record_field(line: bytes, field: str, where: str) -> str:
    """The string ``field`` of the JSON object on one line of a JSON-lines file; ``where`` names the line."""
    try:
        record = json.loads(line.decode("utf-8"), object_pairs_hook=_refuse_duplicate_keys)
    except UnicodeDecodeError as error:
        raise ValueError(f"{where}: not valid UTF-8 (byte {error.start:,})") from None
    except ValueError as error:  # (json.JSONDecodeError is one)
        raise ValueError(f"{where}: not a JSON record ({error})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{where}: a JSON {json_kind(record)}, not an object with the field {field!r}")
    if field not in record:
        raise ValueError(f"{where}: the record has no field {field!r} (it has {', '.join(map(repr, record)) or 'none'})")
    if not isinstance(record[field], str):
        raise ValueError(f"{where}: the field {field!r} is a JSON {json_kind(record[field])}, not a string")
    return record[field]


def json_kind(value) -> str:
    """What a parsed JSON value is, in JSON's words."""
    kinds = {list: "array", str: "string", bool: "true or false", int: "number", float: "number", type(None): "null"}
    return kinds.get(type(value), "object")


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


