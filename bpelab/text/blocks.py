"""Blocks: long text and files read and chunked a piece at a time.

``bpe.chunks`` takes a whole text. A corpus may not fit in memory, so
training and token files read it in blocks of ``BLOCK_SIZE`` and regroup
them so that each block ends at a safe cut (see
``patterns.last_safe_cut``): then chunking block by block gives exactly
the chunks of the whole text, and memory holds a few blocks at a time.

A cluster's workers read their own parts of the files: ``safe_partitions``
plans byte ranges that begin and end at safe cuts, reading only a little
around each boundary, and ``partition_blocks`` reads one range back.
"""

import codecs
import functools
import os
import stat
import sys
from typing import BinaryIO, Callable, Iterable, Iterator, NamedTuple, Optional

from bpelab.messages import named
from bpelab.reading import PathLike, open_text
from bpelab.text.patterns import last_safe_cut, safe_cuts

BLOCK_SIZE = 1 << 16
"""How much text is chunked at a time (characters of a string, bytes of a
file), so that a long text never becomes one huge list of chunks in memory.
Blocks of 64 KiB cost no speed, and stay below the size at which the C
library hands memory out and back one block at a time: with blocks of a
megabyte, a long file left the process a little larger after every few."""


def text_blocks(text: str, block_size: int = BLOCK_SIZE) -> Iterator[str]:
    """A long string as consecutive slices of ``block_size`` characters."""
    for start in range(0, len(text), block_size):
        yield text[start:start + block_size]


def stream_blocks(stream: BinaryIO, name: str, block_size: int = BLOCK_SIZE, start: int = 0) -> Iterator[str]:
    """Yield the text of a buffered binary stream of UTF-8 (as ``open(path, "rb")`` gives), block by block.

    Each read asks for ``block_size`` bytes; a buffered stream returns fewer
    only at its end, so a terminal's Ctrl-D ends the text at once. Newlines
    are kept exactly as stored, and bytes that are not valid UTF-8 are a
    ``ValueError`` naming ``name`` and the offset of the first bad byte. Any
    stream works (a pipe too), read once; ``start`` is where in its file it
    begins, for the message.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    done = start  # where the bytes handed to the decoder so far end, in the file
    while True:
        data = stream.read(block_size)
        final = len(data) < block_size
        held = len(decoder.getstate()[0])  # the start of a character cut at the end of the last read
        try:
            text = decoder.decode(data, final=final)
        except UnicodeDecodeError as error:
            raise ValueError(f"{named(name)}: not valid UTF-8 "
                             f"(byte {done - held + error.start:,}: {error.reason})") from None
        done += len(data)
        if text:
            yield text
        if final:
            return


def read_blocks(paths: Iterable[PathLike], block_size: int = BLOCK_SIZE) -> Iterator[str]:
    """Yield the text of UTF-8 files, in order, ``block_size`` bytes at a time (see ``stream_blocks``).

    A path may also be an open binary stream (standard input, say), read once from where it is.
    """
    for path in paths:
        if is_stream(path):
            yield from stream_blocks(path, stream_name(path), block_size)
            continue
        with open_text(path) as stream:
            yield from stream_blocks(stream, path, block_size)


def is_stream(source) -> bool:
    """Whether an input is an open binary stream rather than a file's path."""
    return callable(getattr(source, "read", None))


def stream_name(stream) -> str:
    """How messages name a stream: standard input, or the name of the file it reads."""
    if sys.stdin is not None and stream is getattr(sys.stdin, "buffer", None):
        return "standard input"
    name = getattr(stream, "name", None)
    return name if isinstance(name, str) and not name.startswith("<") else "the input stream"


def can_be_read_again(source) -> bool:
    """Whether an input can be read twice, or in parts by several processes: a path to a regular file."""
    return not is_stream(source) and stat.S_ISREG(os.stat(source).st_mode)


def safe_blocks(blocks: Iterable[str], pattern: str = "lab",
                last_cut: Optional[Callable[[str], int]] = None) -> Iterator[str]:
    """Regroup a stream of text blocks into blocks that end at safe cuts.

    ``blocks`` may be cut anywhere (fixed-size reads of a file, say); the
    blocks yielded join up to the same text, but each ends where a chunk
    must end, so chunking block by block equals chunking the whole text.
    Text with no safe cut (one endless word) is held until one comes. With
    ``pattern`` None (an imported tokenizer's pipeline, whose safe cuts are
    not known) the whole text is one block. ``last_cut(text)``, if given,
    finds the cuts instead of ``last_safe_cut(text, pattern)``: the last safe
    position in ``text``, or -1 (``bpelab.corpora.streaming`` adds special tokens' rule).
    """
    if last_cut is None and pattern is not None:
        last_cut = functools.partial(last_safe_cut, pattern=pattern)
    if last_cut is None:
        whole = "".join(blocks)
        if whole:
            yield whole
        return
    pending = []
    for block in blocks:
        if not block:
            continue
        cut = last_cut(block)
        if cut < 0 and pending and last_cut(pending[-1][-1] + block[0]) == 1:
            cut = 0  # the cut falls between this block and the one before
        if cut < 0:
            pending.append(block)
            continue
        pending.append(block[:cut])
        yield "".join(pending)
        pending = [block[cut:]]
    if pending:
        yield "".join(pending)


class Segment(NamedTuple):
    """Bytes ``start`` to ``end`` of the file ``path``, the ``number``-th of the files given."""

    number: int
    path: str
    start: int
    end: int


def safe_partitions(paths: Iterable[PathLike], pattern: str, size: int, *,
                    files_apart: bool = False) -> list[list[Segment]]:
    """The files cut into partitions of about ``size`` bytes, each a list of segments, cut only at safe cuts.

    Chunking each partition's text alone gives exactly the chunks of the
    files read as one text (``read_blocks``), so counts add up to what one
    process counts. A file's end is a partition's end where it is a safe
    cut; elsewhere the partition goes on into the next file. With
    ``files_apart``, every file is a text of its own (as ``encode_files``
    encodes it): partitions never span two files, and an empty file has one
    empty partition. Only a little text around each boundary is read.
    """
    segments, joined = [], []  # and whether each may start a partition
    last = ""  # the last character of the files so far
    for number, path in enumerate(paths):
        with open_text(path) as stream:
            end = os.fstat(stream.fileno()).st_size
            cuts = _cuts_every(stream, path, pattern, size, end)
            first = _read_around(stream, 0, min(end, 4))[0][:1]
            ending = _read_around(stream, max(0, end - 4), end)[0][-1:]
        if end or files_apart:
            bounds = [0, *cuts, end]
            starts_anew = files_apart or not segments or not last or list(safe_cuts(last + first, pattern)) == [1]
            for index, (start, stop) in enumerate(zip(bounds, bounds[1:])):
                segments.append(Segment(number, os.fspath(path), start, stop))
                joined.append(index > 0 or starts_anew)
            last = ending or last
    partitions = []
    for segment, starts in zip(segments, joined):
        if starts:
            partitions.append([])
        partitions[-1].append(segment)
    return partitions


def _cuts_every(stream, path, pattern, size, end):
    """Byte offsets of safe cuts inside a file: the first at or after each multiple of ``size``."""
    cuts = []
    for offset in range(size, end, size):
        if cuts and cuts[-1] >= offset:
            continue  # the search for the last one went past this offset
        cut = _first_cut_after(stream, pattern, offset, end)
        if cut >= end:
            break
        cuts.append(cut)
    return cuts


def _first_cut_after(stream, pattern, offset, end):
    """The byte offset of the first safe cut at or after ``offset`` (``end`` if there is none).

    The window read grows sixteenfold until a cut turns up, so text with no
    safe cut (one endless word) is read once, not once per offset.
    """
    window = 1024
    while True:
        text, at = _read_around(stream, max(0, offset - 4), offset + window)
        for cut in safe_cuts(text, pattern):
            place = at + len(text[:cut].encode("utf-8", "surrogateescape"))
            if place >= offset:
                return place
        if at + len(text.encode("utf-8", "surrogateescape")) >= end:
            return end
        window *= 16


def _read_around(stream, start, stop):
    """The text of bytes ``start`` to ``stop``, from the first character that begins there, and where it begins.

    Bytes that are not UTF-8, and a character cut at ``stop``, become lone
    surrogates (``surrogateescape``), so offsets are counted exactly; the
    partition's reader reports any bad byte.
    """
    stream.seek(start)
    data = stream.read(stop - start)
    skip = 0
    while skip < min(3, len(data)) and 0x80 <= data[skip] < 0xC0:
        skip += 1  # the end of a character that began before ``start``
    return data[skip:].decode("utf-8", "surrogateescape"), start + skip


def partition_blocks(partition: Iterable[Segment], block_size: int = BLOCK_SIZE) -> Iterator[str]:
    """The text of a partition, block by block (a bad byte is a ``ValueError`` naming its file and offset)."""
    for segment in partition:
        with open_text(segment.path) as stream:
            stream.seek(segment.start)
            yield from stream_blocks(_Range(stream, segment.end - segment.start), segment.path, block_size,
                                     segment.start)


class _Range:
    """A stream that ends ``left`` bytes on."""

    def __init__(self, stream, left):
        self.stream, self.left = stream, left

    def read(self, size):
        data = self.stream.read(min(size, self.left))
        self.left -= len(data)
        return data
