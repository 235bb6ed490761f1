"""Blocks: long text and files read and chunked a piece at a time.

``bpe.chunks`` takes a whole text. A corpus may not fit in memory, so
training and token files read it in blocks of ``BLOCK_SIZE`` and regroup
them so that each block ends at a safe cut (see
``patterns.last_safe_cut``): then chunking block by block gives exactly
the chunks of the whole text, and memory holds a few blocks at a time.
"""

import codecs
import functools
from typing import BinaryIO, Callable, Iterable, Iterator, Optional

from bpelab.files import PathLike, open_text
from bpelab.messages import named
from bpelab.patterns import last_safe_cut

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


def stream_blocks(stream: BinaryIO, name: str, block_size: int = BLOCK_SIZE) -> Iterator[str]:
    """Yield the text of a buffered binary stream of UTF-8 (as ``open(path, "rb")`` gives), block by block.

    Each read asks for ``block_size`` bytes; a buffered stream returns fewer
    only at its end, so a terminal's Ctrl-D ends the text at once. Newlines
    are kept exactly as stored, and bytes that are not valid UTF-8 are a
    ``ValueError`` naming ``name`` and the offset of the first bad byte. Any
    stream works (a pipe too), read once.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    done = 0  # bytes handed to the decoder so far
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
    """Yield the text of UTF-8 files, in order, ``block_size`` bytes at a time (see ``stream_blocks``)."""
    for path in paths:
        with open_text(path) as stream:
            yield from stream_blocks(stream, path, block_size)


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
    position in ``text``, or -1 (``bpelab.streaming`` adds special tokens' rule).
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
