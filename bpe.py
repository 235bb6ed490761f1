"""A byte-pair-encoding (BPE) tokenizer lab, in one readable module.

BPE builds a vocabulary bottom-up. It starts from single characters (or the
256 byte values), counts which two adjacent tokens occur together most often
in the training text, glues that pair into a new token, and repeats. Encoding
new text replays the learned merges, earliest first, so frequent words become
one token and rare words fall back to smaller pieces.

The module reads top to bottom:

1. BPE by definition: merging a pair, counting pairs, choosing the best, and
   the simple trainer and encoder (``reference_train``, ``reference_encode``).
2. Chunks: how text is cut before any merging (the lab's pattern, then
   GPT-2's, GPT-4's and GPT-4o's), and where long text and files may be cut
   into blocks without changing the chunks.
3. Bytes: GPT-2's printable form of the 256 byte values.
4. The fast engine: a trainer, a chunk encoder and a chunker that give
   exactly what the definitions give, fast enough for real corpora.
5. Checks: what the arguments, merge lists and special tokens must be.
6. The ``Tokenizer`` that later lessons import.
7. Files: the tokenizer's JSON formats, reading with limits, token files for
   training a model, and atomic writes that never replace what they should not.
8. Imports and exports: tiktoken and Hugging Face files, both ways.

The command line is ``bpe_cli.py`` (``python3 bpe.py --help``), the Unicode
tables are generated into ``bpe_unicode.py``, and the training widget's page
is ``bpe_widget.py``. Only the standard library is used.
"""

import array
import binascii
import codecs
import contextlib
import errno
import functools
import gzip
import hashlib
import heapq
import io
import json
import operator
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from collections import Counter
from itertools import chain, repeat
from typing import BinaryIO, Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

import bpe_unicode

Token = Union[str, bytes]
"""A token: a string of characters, or (inside training at the byte level) a string of bytes."""
Pair = tuple
"""Two adjacent tokens, (left, right)."""
PathLike = Union[str, "os.PathLike[str]"]
SpecialChoice = Union[str, Iterable[str]]
"""``"all"``, or a collection of special tokens' texts."""

__all__ = [
    # 1. BPE by definition
    "merge_pair", "count_pairs", "best_pair", "TIE_RULES", "reference_train", "reference_encode",
    # 2. Chunks
    "chunks", "PATTERNS", "pattern_source", "last_safe_cut", "safe_blocks", "text_blocks", "BLOCK_SIZE",
    "stream_blocks", "read_blocks",
    # 3. Bytes
    "BYTE_TO_CHAR", "CHAR_TO_BYTE", "bytes_to_display", "display_to_bytes", "replace_lone_surrogates",
    # 4. The fast engine
    "train_merges", "encode_chunk", "chunker", "count_chunks", "CACHE_LIMIT",
    # 6. The Tokenizer
    "Tokenizer", "SpecialTokenInText", "UNK", "REPLACEMENT_CHARACTER",
    # 7. Files
    "FORMAT_VERSION", "READABLE_FORMATS", "MAX_FILE_BYTES", "read_file_bytes", "read_json", "token_file_dtype",
    "check_output_path", "atomic_writer", "write_text_atomic",
]

# --------------------------------------------------------------------------
# 1. BPE by definition
# --------------------------------------------------------------------------
#
# Training sees the text only as ``chunk_counts``: each distinct chunk (a
# stretch of text that merges may not cross, see section 2), as a sequence of
# tokens, with how often it occurs. Counting a pair inside a chunk that occurs
# 500 times is the same as counting it 500 times. These functions are the
# definition, written as simply as possible; section 4 makes them fast, and
# the tests hold the two against each other.


def merge_pair(tokens: Sequence[Token], pair: Pair) -> tuple:
    """Replace every non-overlapping occurrence of ``pair`` in ``tokens``, left to right.

    >>> merge_pair(("a", "a", "a", "b"), ("a", "a"))
    ('aa', 'a', 'b')

    Once the first two ``a`` are glued, the third has no partner left.
    """
    left, right = pair
    merged = []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i] == left and tokens[i + 1] == right:
            merged.append(left + right)
            i += 2
        else:
            merged.append(tokens[i])
            i += 1
    return tuple(merged)


def count_pairs(chunk_counts: Mapping[Sequence[Token], int]) -> Counter:
    """Count each adjacent pair of tokens, weighted by how often its chunk occurs.

    >>> count_pairs({("a", "a", "b"): 2, ("b", "a"): 1})
    Counter({('a', 'a'): 2, ('a', 'b'): 2, ('b', 'a'): 1})

    The pairs come out in the order they are first seen, reading the chunks
    in order and each chunk from left to right.
    """
    pair_counts = Counter()
    for tokens, count in chunk_counts.items():
        for pair in zip(tokens, tokens[1:]):
            pair_counts[pair] += count
    return pair_counts


TIE_RULES = ("smallest", "first-seen")
"""How ``best_pair`` chooses among equally frequent pairs (see there)."""


def best_pair(pair_counts: Mapping[Pair, int], ties: str = "smallest") -> Pair:
    """The most frequent pair; ``ties`` decides between equally frequent ones.

    ``"smallest"``, the lab's rule, takes the smallest pair in code-point
    order (comparing the left tokens, then the right ones), so training gives
    the same merges on every machine. ``"first-seen"`` takes the pair seen
    first in ``count_pairs``' order: the distinct chunks in the order they
    first appeared, each read from left to right, on the current tokens.

    >>> counts = {("b", "c"): 2, ("a", "b"): 2, ("c", "a"): 1}
    >>> best_pair(counts), best_pair(counts, ties="first-seen")
    (('a', 'b'), ('b', 'c'))
    """
    _check_choice(ties, TIE_RULES, "ties")
    if ties == "smallest":
        return min(pair_counts, key=lambda pair: (-pair_counts[pair], pair))
    return max(pair_counts, key=pair_counts.__getitem__)  # max keeps the first of equals


def reference_train(chunk_counts: Mapping[Sequence[Token], int], max_merges: int, *, ties: str = "smallest",
                    progress: Optional[Callable[[int, int], None]] = None) -> list[tuple[Pair, int]]:
    """Learn up to ``max_merges`` merges the simple way: recount every pair after each merge.

    Returns ``(pair, count)`` for each merge, in the order learned. Training
    stops early when no pair occurs at least twice, because merging a pair
    seen once would only memorise the training text.

    >>> reference_train({tuple("aaabdaaabac"): 1}, 3)
    [(('a', 'a'), 4), (('a', 'b'), 2), (('aa', 'ab'), 2)]

    (``a a`` occurs four times: twice in each ``aaa``, overlapping.)
    """
    current = {tuple(tokens): count for tokens, count in chunk_counts.items()}
    learned = []
    while len(learned) < max_merges:
        pair_counts = count_pairs(current)
        if not pair_counts:
            break
        pair = best_pair(pair_counts, ties)
        if pair_counts[pair] < 2:
            break
        learned.append((pair, pair_counts[pair]))
        current = {merge_pair(tokens, pair): count for tokens, count in current.items()}
        report_progress(progress, len(learned), max_merges)
    report_progress(progress, len(learned), max_merges, finished=True)
    return learned


def report_progress(progress, done, target, finished=False):
    """Call ``progress(done, target)`` at every hundredth of the target, and once at the end.

    About a hundred calls per run, however many merges: enough for a
    progress bar, too few to slow training down.
    """
    if progress is None:
        return
    on_step = done % max(1, target // 100) == 0
    if finished and on_step and done > 0:
        return  # this count was already reported
    if on_step or finished:
        progress(done, target)


def reference_encode(tokens: Sequence[Token], merge_rank: Mapping[Pair, int], *,
                     on_merge: Optional[Callable[[int, Pair, tuple], None]] = None) -> tuple:
    """Split one chunk by replaying merges, the simple way.

    ``tokens`` starts as the chunk's characters. Repeatedly find the adjacent
    pair with the lowest rank (the earliest learned merge), merge *all* its
    non-overlapping occurrences left to right, and look again; stop when no
    adjacent pair is a merge. ``on_merge(rank, pair, tokens)``, if given,
    hears of every step, which is how a learner can watch it happen.

    >>> reference_encode("abc", {("b", "c"): 0, ("a", "b"): 1})
    ('a', 'bc')

    (``b c`` was learned first, so ``b`` is taken before ``a b`` can form.)
    """
    tokens = tuple(tokens)
    while len(tokens) > 1:
        ranked = [(merge_rank[pair], pair) for pair in zip(tokens, tokens[1:]) if pair in merge_rank]
        if not ranked:
            break
        rank, pair = min(ranked)
        tokens = merge_pair(tokens, pair)
        if on_merge is not None:
            on_merge(rank, pair, tokens)
    return tokens


# --------------------------------------------------------------------------
# 2. Chunks
# --------------------------------------------------------------------------
#
# Text is cut into chunks before any merging, and merges never cross a chunk
# boundary, so " the" can become a token but "the park" cannot. Each pattern
# has a name; a tokenizer file names its pattern rather than storing a regular
# expression, so a file cannot smuggle in a slow one.
#
# The lab's pattern is ASCII: runs of ASCII letters and digits, runs of other
# symbols, runs of whitespace, the first two with an optional leading space.
# On other scripts it glues punctuation to words (" «привет»," is one chunk)
# and splits "café" as "caf" + "é"; the other patterns know every script.
#
# The placeholders in braces are filled with explicit code-point ranges from
# bpe_unicode.py rather than \s, \p{L} or \p{N}: engines and Unicode versions
# disagree on those, and spelling the classes out makes Python, tiktoken and
# Hugging Face split text alike. Each placeholder matches one character:
#   {space} / {not_space}   whitespace as Python's str.isspace sees it (lab, gpt2)
#   {lab_other}             neither an ASCII letter or digit nor {space} (lab)
#   {white} / {not_white}   Unicode's White_Space property (cl100k, o200k)
#   {letter} {number}       any script's letters (L) and numbers (N)
#   {other}                 neither letter, number nor {space}
#   {symbol}                neither letter, number nor {white}
#   {prefix}                neither letter, number, carriage return nor line feed
#   {upper} / {lower}       GPT-4o's letter groups: Lu Lt Lm Lo M / Ll Lm Lo M
#   {s} {t} {d} ...         a contraction's letter in any case ("'S" counts)
#   {contraction}           any of GPT-4o's contractions, in any case
#   {end}                   the end of the text
PATTERN_TEMPLATES = {
    "lab": " ?[A-Za-z0-9]+| ?{lab_other}+|{space}+",
    # GPT-2's rules for any script: common English contractions, letter runs
    # and number runs with an optional leading space, runs of other symbols,
    # and whitespace runs, which leave their last space to a following word.
    # (GPT-2 wrote the contractions as 's|'t|'re|'ve|'m|'ll|'d; with the
    # apostrophe taken out in front they match the same, and regex engines,
    # tiktoken's among them, try the rest only after an apostrophe.)
    "gpt2": "'(?:s|t|re|ve|m|ll|d)| ?{letter}+| ?{number}+| ?{other}+|{space}+(?!{not_space})|{space}+",
    # GPT-4's (tiktoken's cl100k_base): contractions in any case, a letter run
    # with one optional non-letter before it, numbers in groups of up to three
    # digits, symbol runs that keep the line breaks after them, and whitespace
    # runs that end at a line break or leave their last space to a word.
    "cl100k": (
        "'(?:{s}|{d}|{m}|{t}|{l}{l}|{v}{e}|{r}{e})|{prefix}?{letter}+|{number}{{1,3}}| ?{symbol}+[\r\n]*"
        "|{white}+{end}|{white}*[\r\n]|{white}+(?!{not_white})|{white}"
    ),
    # GPT-4o's (o200k_base): like GPT-4's, but a letter run splits before an
    # upper-case letter that follows lower-case ones ("iPhone" is "i" +
    # "Phone"), keeps a contraction after it, and marks count as letters.
    "o200k": (
        "{prefix}?{upper}*{lower}+{contraction}?|{prefix}?{upper}+{lower}*{contraction}?|{number}{{1,3}}"
        "| ?{symbol}+[\r\n/]*|{white}*[\r\n]+|{white}+(?!{not_white})|{white}+"
    ),
}
PATTERNS = tuple(PATTERN_TEMPLATES)
"""The names of the built-in chunk patterns."""

DEFAULT_PATTERN = {False: "lab", True: "gpt2"}
"""The pattern a tokenizer uses unless told otherwise, by ``byte_level``."""

CONTRACTION = "(?:'{s}|'{t}|'{r}{e}|'{v}{e}|'{m}|'{l}{l}|'{d})"
"""GPT-4o's contractions, which may follow a letter run (in any case)."""


def chunks(text: str, pattern: str = "lab") -> list[str]:
    """Cut ``text`` into the chunks that merges may not cross.

    >>> chunks("at the park, mia")
    ['at', ' the', ' park', ',', ' mia']
    >>> chunks("I'll pay 1234 coins!", "cl100k")
    ['I', "'ll", ' pay', ' ', '123', '4', ' coins', '!']

    Every character belongs to exactly one chunk, so joining the chunks gives
    the text back; we check that, because a pattern that silently dropped
    characters would make decoding lose text.
    """
    found = compiled(pattern).findall(text)
    if "".join(found) != text:
        raise AssertionError("chunks do not concatenate back to the text")
    return found


def compiled(pattern: str) -> "re.Pattern[str]":
    """The compiled Python regex of a named chunk pattern."""
    _check_pattern(pattern)
    return _compiled_template(PATTERN_TEMPLATES[pattern])


def pattern_source(name: str, syntax: str = "python") -> str:
    """The regular expression of a named pattern, in the syntax of ``python``, ``rust`` or ``oniguruma``.

    tiktoken's engine (Rust) and Hugging Face's (Oniguruma) both read code
    points as ``\\x{...}``, so they share one spelling.
    """
    _check_pattern(name)
    return _fill_classes(PATTERN_TEMPLATES[name], syntax)


@functools.lru_cache(maxsize=None)
def _compiled_template(template, syntax="python"):
    """A template filled with the character classes, compiled for Python once, on first use.

    Compiling waits until first use because the large classes take a moment.
    """
    return re.compile(_fill_classes(template, syntax))


def _fill_classes(template, syntax):
    """Put the explicit character classes into a pattern template, in the given syntax."""
    unicode = bpe_unicode
    letters_and_numbers = unicode.LETTER_RANGES + unicode.NUMBER_RANGES
    caseless_and_marks = unicode.OTHER_LETTER_RANGES + unicode.MARK_RANGES  # in both of GPT-4o's letter groups
    classes = {
        "space": _char_class(unicode.SPACE_RANGES, syntax),
        "not_space": _char_class(unicode.SPACE_RANGES, syntax, negated=True),
        "white": _char_class(unicode.WHITE_SPACE_RANGES, syntax),
        "not_white": _char_class(unicode.WHITE_SPACE_RANGES, syntax, negated=True),
        "letter": _char_class(unicode.LETTER_RANGES, syntax),
        "number": _char_class(unicode.NUMBER_RANGES, syntax),
        "other": _char_class(unicode.SPACE_RANGES + letters_and_numbers, syntax, negated=True),
        "symbol": _char_class(unicode.WHITE_SPACE_RANGES + letters_and_numbers, syntax, negated=True),
        "prefix": _char_class("000A 000D" + letters_and_numbers, syntax, negated=True),
        "lab_other": _char_class("0030-0039 0041-005A 0061-007A" + unicode.SPACE_RANGES, syntax, negated=True),
        "upper": _char_class(unicode.UPPER_RANGES + caseless_and_marks, syntax),
        "lower": _char_class(unicode.LOWER_RANGES + caseless_and_marks, syntax),
        "end": "\\Z" if syntax in ("python", "basic") else "\\z",
    }
    for letter, variants in unicode.CASE_VARIANTS.items():
        classes[letter] = "[" + "".join(_escape_code_point(ord(char), syntax) for char in variants) + "]"
    classes["contraction"] = CONTRACTION.format(**classes)
    return template.format(**classes)


ABOVE_BASIC_RANGE = "10000-10FFFF"
"""The code points above U+FFFF, the end of the Basic Multilingual Plane."""


def _char_class(ranges_text, syntax, negated=False):
    """A regex matching one character of the ranges (with ``negated``, one outside them).

    For Python the class is split at U+FFFF: Python's ``re`` checks a class
    that reaches above it one range at a time, while a class within the
    Basic Multilingual Plane is one table look-up, five times faster on
    ordinary text. The part above is only tried for characters up there.
    The ``"basic"`` syntax keeps only the part below, for text that has no
    character above U+FFFF (see ``chunker``).
    """
    caret = "^" if negated else ""
    if syntax not in ("python", "basic"):
        return f"[{caret}{_class_text(ranges_text, syntax)}]"
    basic, higher = _split_planes(ranges_text)
    if not higher or syntax == "basic":
        return f"[{caret}{_class_text(basic, syntax)}]"
    above = _class_text(ABOVE_BASIC_RANGE, syntax)
    below = f"[{caret}{_class_text(basic, syntax)}{above if negated else ''}]"
    return f"(?:{below}|(?=[{above}])[{caret}{_class_text(higher, syntax)}])"


def _class_text(ranges_text, syntax):
    """The inside of a ``[...]`` class for ranges written as ``0041-005A 00AA ...``."""
    parts = []
    for item in ranges_text.split():
        first, _, last = item.partition("-")
        part = _escape_code_point(int(first, 16), syntax)
        if last:
            part += "-" + _escape_code_point(int(last, 16), syntax)
        parts.append(part)
    return "".join(parts)


def _escape_code_point(code, syntax):
    """One code point as a regex escape: ``\\uXXXX`` for Python, ``\\x{X}`` for Rust and Oniguruma."""
    if syntax in ("python", "basic"):
        return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"
    if syntax in ("rust", "oniguruma"):
        return f"\\x{{{code:X}}}"
    raise ValueError(f"syntax must be 'python', 'rust' or 'oniguruma', not {_shown(syntax)}")


def _split_planes(ranges_text):
    """Ranges text cut in two: the part inside the Basic Multilingual Plane, and the part above it."""
    basic, higher = [], []
    for item in ranges_text.split():
        (basic if int(item.split("-")[0], 16) <= 0xFFFF else higher).append(item)
    return " ".join(basic), " ".join(higher)


# Long texts and files are chunked in blocks. A block may only end at a safe
# cut: a place where cutting the text and chunking both halves gives exactly
# the chunks of the whole. For the lab's and GPT-2's patterns that is any
# whitespace after a non-space character: no chunk spans it (a letter, number
# or symbol run never takes in whitespace, a whitespace run never takes in the
# character before it), and the only look-ahead, at the end of a whitespace
# run, stays inside its half. GPT-4's and GPT-4o's symbol runs keep the line
# breaks after them (tiktoken cuts "end.\n\nNext" as "end|.\n\n|Next"), so
# there a safe cut is whitespace after a letter or a number: no chunk holds a
# letter or number followed by whitespace, and neither half then ends in
# whitespace, so "whitespace at the end of the text" means the same in the
# half as in the whole. Each rule is (the character before the cut, the one
# after it).
SAFE_CUTS = {
    "lab": ("{not_space}", "{space}"),
    "gpt2": ("{not_space}", "{space}"),
    "cl100k": ("(?:{letter}|{number})", "{white}"),
    "o200k": ("(?:{letter}|{number})", "{white}"),
}


def last_safe_cut(text: str, pattern: str = "lab") -> int:
    """The last position in ``text`` where it may be cut without changing its chunks, or -1.

    >>> last_safe_cut("ab cd ef")
    5

    The search runs backwards over the reversed end of the text ("the
    character after the cut, then the one before it"), in windows that grow
    sixteenfold until a cut turns up, so finding one near the end of a long
    block reads, and copies, only that end.
    """
    _check_pattern(pattern)
    before, after = SAFE_CUTS[pattern]
    search = _compiled_template(after + before).search
    window = 1024
    while True:
        start = max(0, len(text) - window)
        match = search(text[start:][::-1])
        if match is not None:
            return len(text) - 1 - match.start()
        if start == 0:
            return -1
        window *= 16


def safe_blocks(blocks: Iterable[str], pattern: str = "lab") -> Iterator[str]:
    """Regroup a stream of text blocks into blocks that end at safe cuts.

    ``blocks`` may be cut anywhere (fixed-size reads of a file, say); the
    blocks yielded join up to the same text, but each ends where a chunk
    must end, so chunking block by block equals chunking the whole text.
    Text with no safe cut (one endless word) is held until one comes.
    """
    pending = []
    for block in blocks:
        if not block:
            continue
        cut = last_safe_cut(block, pattern)
        if cut < 0 and pending and last_safe_cut(pending[-1][-1] + block[0], pattern) == 1:
            cut = 0  # the cut falls between this block and the one before
        if cut < 0:
            pending.append(block)
            continue
        pending.append(block[:cut])
        yield "".join(pending)
        pending = [block[cut:]]
    if pending:
        yield "".join(pending)


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
            raise ValueError(f"{_named(name)}: not valid UTF-8 "
                             f"(byte {done - held + error.start:,}: {error.reason})") from None
        done += len(data)
        if text:
            yield text
        if final:
            return


def read_blocks(paths: Iterable[PathLike], block_size: int = BLOCK_SIZE) -> Iterator[str]:
    """Yield the text of UTF-8 files, in order, ``block_size`` bytes at a time (see ``stream_blocks``)."""
    for path in paths:
        with open(path, "rb") as stream:
            yield from stream_blocks(stream, path, block_size)


# --------------------------------------------------------------------------
# 3. Bytes
# --------------------------------------------------------------------------
#
# Byte-level tokens are byte strings, and many bytes (space, newline, the
# parts of a multi-byte character) do not print. GPT-2 shows each byte as one
# printable character: the printable Latin-1 bytes stand for themselves and
# the other 68 take the characters from U+0100 on, in byte order, so a space
# shows as "Ġ" and a newline as "Ċ". Tokens are shown, stored and merged in
# that form; the bytes come back with ``display_to_bytes``.


def _byte_display_table():
    """GPT-2's table: the printable character that shows each byte value."""
    printable = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAC + 1)) | set(range(0xAE, 0xFF + 1))
    table = []
    borrowed = 0
    for byte in range(256):
        if byte in printable:
            table.append(chr(byte))
        else:
            table.append(chr(0x100 + borrowed))
            borrowed += 1
    return table


BYTE_TO_CHAR = _byte_display_table()
CHAR_TO_BYTE = {char: byte for byte, char in enumerate(BYTE_TO_CHAR)}


def bytes_to_display(data: bytes) -> str:
    """Bytes as their GPT-2 display characters.

    >>> bytes_to_display(" café".encode())
    'ĠcafÃ©'
    """
    return "".join([BYTE_TO_CHAR[byte] for byte in data])


def display_to_bytes(text: str) -> bytes:
    """The bytes a display string stands for: ``"Ġhi"`` -> ``b" hi"``."""
    return bytes([CHAR_TO_BYTE[char] for char in text])


SINGLE_BYTES = [bytes([byte]) for byte in range(256)]
"""Each byte value as a one-byte ``bytes`` object, made once."""

def _character_spans_of_bytes(text):
    """For each UTF-8 byte of ``text`` (as the byte level encodes it): the span of characters it belongs to.

    A surrogate pair is one character of two positions; a lone surrogate
    stands for the three bytes of U+FFFD, as the byte level encodes it.
    """
    starts, ends = [], []
    position = 0
    while position < len(text):
        char = text[position]
        width = 1
        if "\ud800" <= char <= "\udbff" and text[position + 1:position + 2] and "\udc00" <= text[position + 1] <= "\udfff":
            size, width = 4, 2
        elif "\ud800" <= char <= "\udfff":
            size = 3
        else:
            size = len(char.encode("utf-8"))
        starts += [position] * size
        ends += [position + width] * size
        position += width
    return starts, ends


SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """Replace lone surrogates (which UTF-8 cannot encode) with U+FFFD, as tiktoken does.

    A high and a low surrogate that stand next to each other are read as the
    one character they encode in UTF-16; any other surrogate becomes U+FFFD.
    """
    if not SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# --------------------------------------------------------------------------
# 4. The fast engine
# --------------------------------------------------------------------------
#
# Each function here gives exactly what a definition above gives, and says
# which; the tests hold each against its definition on many random inputs.
#
# Training. ``train_merges`` equals ``reference_train``. It gives each token
# a one-character code, so that a chunk is a short string and merging a pair
# everywhere in it is ``str.replace``: Python's replace works left to right
# without overlaps, exactly the merge rule, and runs in C. Codes follow
# creation order: the base tokens first, then one new code per merge.
#
# Instead of recounting every pair after each merge, it keeps the count of
# every pair and the chunks it occurs in; a merge then touches only those
# chunks, and only the pairs next to each merged occurrence. A worked
# example: merging ``a b`` into ``N`` in the chunk ``x a b y`` (weight 3)
# takes 3 from ``x a`` and from ``b y`` and gives 3 to ``x N`` and ``N y``;
# every other pair keeps its count. Two facts keep the bookkeeping small:
# a pair's occurrences only ever disappear once it exists (new adjacencies
# always involve the new token), so its count only falls; and all of a new
# pair's occurrences appear during one merge, the one that makes its newer
# token, so each pair's list of chunks is filled once, in chunk order.


def train_merges(chunk_counts: Mapping[Sequence[Token], int], max_merges: int, *, ties: str = "smallest",
                 progress: Optional[Callable[[int, int], None]] = None,
                 on_merge: Optional[Callable[[int, Pair, int], None]] = None) -> list[tuple[Pair, int]]:
    """Learn exactly what ``reference_train`` learns, updating counts incrementally.

    The most frequent pair comes from a heap ordered by (-count, tie key):
    the pair itself for ``ties="smallest"``, where it first occurs (chunk
    number, then offset) for ``"first-seen"``. A pair's key only grows (its
    count falls, its first occurrence moves later), so an entry whose key
    has grown is pushed back with its current key when it surfaces (lazy
    invalidation). ``on_merge(rank, pair, count)``, if given, hears of each
    merge as soon as it is learned, so a long run can be watched.
    """
    _check_choice(ties, TIE_RULES, "ties")
    tokens, coded, weights = _code_chunks(chunk_counts)
    pair_counts, pair_chunks, first_seen = _index_pairs(coded, weights)
    order = _SmallestPair(tokens) if ties == "smallest" else _FirstOccurrence(tokens, coded, pair_chunks)
    heap = [(-count, order.key_at(pair, first_seen[pair]), pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    learned = []
    while len(learned) < max_merges and heap:
        negative_count, key, pair = heapq.heappop(heap)
        count = pair_counts[pair]
        if count != -negative_count:  # occurrences were used up: back in, with the count it has now
            if count:
                heapq.heappush(heap, (-count, key, pair))
            continue
        current = order.key_now(pair, key)
        if current != key:  # its first occurrence was used up
            heapq.heappush(heap, (negative_count, current, pair))
            continue
        if count < 2:
            break
        if len(tokens) > sys.maxunicode:
            raise ValueError(f"cannot learn more than {len(learned)} merges: every token needs its own code point")
        token_pair = (tokens[ord(pair[0])], tokens[ord(pair[1])])
        learned.append((token_pair, count))
        if on_merge is not None:
            on_merge(len(learned) - 1, token_pair, count)
        new = chr(len(tokens))
        tokens.append(token_pair[0] + token_pair[1])
        created, first = _merge_everywhere(pair, new, coded, weights, pair_counts, pair_chunks)
        del pair_counts[pair]
        pair_counts.update(created)
        for gained, gained_count in created.items():
            heapq.heappush(heap, (-gained_count, order.key_at(gained, first[gained]), gained))
        report_progress(progress, len(learned), max_merges)
    report_progress(progress, len(learned), max_merges, finished=True)
    return learned


class _SmallestPair:
    """The ``"smallest"`` tie key of a pair of codes: the pair of tokens it stands for, which never changes."""

    def __init__(self, tokens):
        self.tokens = tokens

    def key_at(self, pair, where):
        return self.tokens[ord(pair[0])], self.tokens[ord(pair[1])]

    def key_now(self, pair, key):
        return key


class _FirstOccurrence:
    """The ``"first-seen"`` tie key of a pair of codes: (chunk number, offset of its first occurrence).

    Offsets count base tokens (characters or bytes), which merging never
    moves, so a key can only grow as occurrences disappear. Adding up token
    lengths to find an offset takes time, so a pair enters the heap with a
    cheap lower bound, its position among the chunk's tokens (no token is
    shorter than one base token), and its exact key is worked out only when
    it reaches the top. A pair's chunks are listed in chunk order; ``start``
    remembers how many no longer hold it, so each list is walked once.
    """

    def __init__(self, tokens, coded, pair_chunks):
        self.tokens, self.coded, self.pair_chunks = tokens, coded, pair_chunks
        self.start = {}

    def key_at(self, pair, where):
        """A lower bound of the key of an occurrence at ``where``: (chunk number, position in the coded chunk)."""
        return where

    def key_now(self, pair, key):
        """The exact key of ``pair`` where it first occurs now."""
        listed = self.pair_chunks[pair]
        at = self.start.get(pair, 0)
        while pair not in self.coded[listed[at]]:
            at += 1
        self.start[pair] = at
        chunk = self.coded[listed[at]]
        before = chunk[:chunk.find(pair)]
        return listed[at], sum(len(self.tokens[ord(code)]) for code in before)


def _code_chunks(chunk_counts):
    """Code the chunks as strings, one character per base token.

    Returns ``(tokens, coded, weights)``: ``tokens`` lists the base tokens by
    code, ``coded[i]`` is a coded chunk and ``weights[i]`` how often it occurs,
    in the order of ``chunk_counts``. Chunks of one token are left out: they
    hold no pair.
    """
    tokens = sorted({token for chunk in chunk_counts for token in chunk})
    code_of = {token: chr(code) for code, token in enumerate(tokens)}
    coded, weights = [], []
    for chunk, count in chunk_counts.items():
        if len(chunk) > 1:
            coded.append("".join([code_of[token] for token in chunk]))
            weights.append(count)
    return tokens, coded, weights


def _index_pairs(coded, weights):
    """Count every adjacent pair of codes, list the chunks it occurs in, and note its first occurrence.

    A chunk is listed once per pair however often the pair occurs in it, so
    that merging visits it once; the first occurrence is ``(chunk number,
    offset)``, which is what ``ties="first-seen"`` compares.
    """
    pair_counts, pair_chunks, first_seen = {}, {}, {}
    for index, chunk in enumerate(coded):
        weight = weights[index]
        for start in range(len(chunk) - 1):
            pair = chunk[start:start + 2]
            listed = pair_chunks.get(pair)
            if listed is None:
                pair_counts[pair] = weight
                pair_chunks[pair] = [index]
                first_seen[pair] = (index, start)
            else:
                pair_counts[pair] += weight
                if listed[-1] != index:
                    listed.append(index)
    return pair_counts, pair_chunks, first_seen


def _merge_everywhere(pair, new, coded, weights, pair_counts, pair_chunks):
    """Merge ``pair`` into the code ``new`` in every chunk holding it; update counts locally.

    Only the neighbours of each merged occurrence change: with ``x a b y``
    becoming ``x N y``, the pairs ``x a`` and ``b y`` lose the chunk's weight
    and ``x N`` and ``N y`` gain it. When two occurrences touch (``a b a b``
    becoming ``N N``), the pair between them was ``b a`` and becomes ``N N``.
    Returns the counts of the pairs that contain ``new`` (all of them new),
    and where each first occurs: (chunk number, position in the coded chunk).
    """
    a, b = pair
    between = b + a
    created, first = {}, {}

    def gain(gained, index, position):
        if gained in created:
            created[gained] += weight
            listed = pair_chunks[gained]
            if listed[-1] != index:
                listed.append(index)
        else:  # chunks are visited in order, and each from left to right
            created[gained] = weight
            pair_chunks[gained] = [index]
            first[gained] = (index, position)

    for index in pair_chunks.pop(pair):
        chunk = coded[index]
        if pair not in chunk:
            continue  # earlier merges used this pair up here
        weight = weights[index]
        chunk = chunk.replace(pair, new)
        coded[index] = chunk
        last = len(chunk) - 1
        position = chunk.find(new)
        while position >= 0:
            if position > 0:
                before = chunk[position - 1]
                pair_counts[between if before == new else before + a] -= weight
                gain(before + new, index, position - 1)
            if position < last:
                after = chunk[position + 1]
                if after != new:
                    pair_counts[b + after] -= weight
                    gain(new + after, index, position)
            position = chunk.find(new, position + 1)
    return created, first


# Encoding. ``encode_chunk`` equals ``reference_encode``, in time that grows
# like n log n in the chunk's length, which matters for chunks of a million
# characters (a long run without spaces).


def encode_chunk(ids: Sequence[int], merged_id: Mapping[tuple[int, int], int]) -> list[int]:
    """Replay merges on one chunk's IDs, giving what ``reference_encode`` gives.

    ``merged_id`` maps a pair of IDs to the ID of its merge. Merged IDs grow
    with merge rank, so the smallest merged ID present is the earliest merge.
    Most chunks are a few tokens long, and for them the plain loop of
    ``_merge_few`` is quickest; a long chunk goes through ``_merge_queued``,
    whose time grows like n log n.
    """
    if len(ids) <= FEW:
        return _merge_few(ids, merged_id)
    return _merge_queued(ids, merged_id)


FEW = 32
"""Up to how many starting IDs a chunk is merged by the plain loop."""

NO_MERGE = sys.maxsize
"""Stands for "this pair is not a merge" among merged IDs, so that ``min`` finds the earliest merge."""


def _merge_few(ids, merged_id):
    """``encode_chunk`` for a short chunk: merge the leftmost of the earliest merges, look again.

    Taking one occurrence at a time equals the reference's "all occurrences
    of the pair, left to right": a merge only creates pairs that rank later
    than itself, so the next earliest merge is the same pair further right,
    until none is left. ``merged[i]`` is what the pair at ``i`` merges into.
    """
    get = merged_id.get
    ids = list(ids)
    merged = list(map(get, zip(ids, ids[1:]), repeat(NO_MERGE)))
    while merged:
        new = min(merged)
        if new == NO_MERGE:
            break
        at = merged.index(new)
        ids[at] = new
        del ids[at + 1], merged[at]
        if at > 0:
            merged[at - 1] = get((ids[at - 1], new), NO_MERGE)
        if at < len(merged):
            merged[at] = get((new, ids[at + 1]), NO_MERGE)
    return ids


def _merge_queued(ids, merged_id):
    """``encode_chunk`` for a long chunk, in time that grows like n log n in its length.

    Every adjacent pair that is a merge is queued under its merged ID, as the
    position of its left token, and the queues are taken in ID order: lowest
    rank first, its occurrences from left to right, as in the reference.

    Two facts make this work. Merging can only create pairs that rank later
    than the merge itself (a merge always comes after the merges that made
    its parts), so new pairs join queues not yet taken. And a pair can only
    appear when its newer token does, during that token's one left-to-right
    pass, so every queue fills in position order and never needs sorting.

    The chunk is a doubly linked list (``before``/``after`` positions), so a
    merge costs O(1) instead of a rescan; only the choice of the next rank
    uses a heap.
    """
    ids = list(ids)
    end = len(ids)
    after = list(range(1, end + 1))
    before = list(range(-1, end - 1))
    queues = {}
    for position, pair in enumerate(zip(ids, ids[1:])):
        merged = merged_id.get(pair)
        if merged is not None:
            queues.setdefault(merged, []).append(position)
    waiting = list(queues)
    heapq.heapify(waiting)
    while waiting:
        merged = heapq.heappop(waiting)
        for left in queues.pop(merged):
            right = after[left]
            if right >= end or ids[left] < 0 or merged_id.get((ids[left], ids[right])) != merged:
                continue  # this occurrence was used up by an earlier merge
            ids[left] = merged
            ids[right] = -1
            after[left] = after[right]
            if after[left] < end:
                before[after[left]] = left
            for start in (before[left], left):
                if start < 0 or after[start] >= end:
                    continue
                later = merged_id.get((ids[start], ids[after[start]]))
                if later is not None:
                    queue = queues.setdefault(later, [])
                    if not queue:
                        heapq.heappush(waiting, later)
                    queue.append(start)
    return [token_id for token_id in ids if token_id >= 0]


# Chunking. ``chunker(pattern)`` equals ``chunks`` (without the check that
# the chunks join up to the text, which the tests make instead). The classes
# of GPT-2's, GPT-4's and GPT-4o's patterns reach above U+FFFF, so each is a
# group of two alternatives (see ``_char_class``), and Python's ``re`` runs a
# repeated group through its slow general loop. Most text has no character
# above U+FFFF, and there the "basic" version of the pattern, with plain
# classes cut down to the Basic Multilingual Plane, finds the same chunks
# twice as fast. Around a character above U+FFFF (an emoji, say) the full
# pattern runs, from the last safe cut before it to the first safe cut after
# it, so that both versions cut the same text the same way.

ABOVE_BASIC = re.compile("[\U00010000-\U0010FFFF]")
"""A character above U+FFFF (outside the Basic Multilingual Plane)."""


def chunker(pattern: str) -> Callable[[str], list[str]]:
    """A function that cuts text into chunks exactly as ``chunks(text, pattern)`` does, faster.

    >>> chunker("gpt2")("I'll pay 5 🍪!")
    ['I', "'ll", ' pay', ' 5', ' 🍪!']
    """
    _check_pattern(pattern)
    template = PATTERN_TEMPLATES[pattern]

    def cut(text):  # the regexes are compiled on first use (and then kept: see _compiled_template)
        full, basic = _compiled_template(template).findall, _compiled_template(template, "basic").findall
        next_cut = _compiled_template("".join(SAFE_CUTS[pattern])).search
        found, done = [], 0  # the text before ``done`` is chunked, and ``done`` is a safe cut
        above = ABOVE_BASIC.search(text)
        while above is not None:
            start = done + max(0, last_safe_cut(text[done:above.start()], pattern))
            after = next_cut(text, above.end() - 1)  # the cut may come right after this character
            end = len(text) if after is None else after.start() + 1
            found += basic(text, done, start)
            found += full(text, start, end)
            done = end
            above = ABOVE_BASIC.search(text, done)
        found += basic(text, done)
        return found

    return cut


def count_chunks(blocks: Iterable[str], pattern: str = "lab", *, special_tokens: Iterable[str] = ()) -> Counter:
    """Count each distinct chunk of a text given as blocks, which may be cut anywhere.

    >>> count_chunks(["the cat", " the h", "at"])
    Counter({'the': 1, ' cat': 1, ' the': 1, ' hat': 1})

    The text of each special token is counted whole, under its own text,
    and never cut into chunks: a special token stays out of training. The
    chunks come out in the order they first appear.
    """
    if isinstance(special_tokens, (str, bytes)):
        raise TypeError(f"special_tokens must be a list of strings, not a single {type(special_tokens).__name__}")
    special_tokens = frozenset(special_tokens)
    for text in special_tokens:
        _check_special_text(text, byte_level=True)  # (counting has no <unk>, whatever the level)
    cut = chunker(pattern)
    counts = Counter()
    finder = _special_finder(special_tokens) if special_tokens else None
    for block in safe_blocks(blocks, pattern):
        start = 0
        for found in finder.finditer(block) if finder else ():
            counts.update(cut(block[start:found.start()]))
            counts[found.group()] += 1
            start = found.end()
        counts.update(cut(block[start:]))
    return counts


def _special_finder(texts):
    """A compiled regex that finds any of ``texts`` (a frozenset), the longest where several start at one place.

    The texts are arranged as a trie (``<|a|>`` and ``<|b|>`` become
    ``<\\|(?:a|b)\\|>``), so looking for five thousand special tokens costs
    about what looking for five does. A trie as deep as ``MAX_SPECIAL_LENGTH``
    nests that many groups, within what Python's regex compiler can take.
    """
    trie = {}
    for text in texts:
        node = trie
        for char in text:
            node = node.setdefault(char, {})
        node[""] = {}  # a text ends here
    return re.compile(_trie_source(trie))


def _trie_source(node):
    """The regex for the texts that continue below one trie node; longer continuations are tried first."""
    branches = []
    for char in sorted(key for key in node if key):
        child, text = node[char], re.escape(char)
        while len(child) == 1 and "" not in child:  # a run without branches is one literal
            ((char, child),) = child.items()
            text += re.escape(char)
        branches.append(text + _trie_source(child))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


CACHE_LIMIT = 1 << 17
"""How many encoded chunks a tokenizer keeps in its newer cache generation
(about 20 MB); with the older generation, at most twice that plus one
block's chunks are held, about 50 MB in all."""


class _ChunkCache(dict):
    """Chunk text -> its IDs (a tuple). A chunk not seen yet is encoded when first looked up.

    ``dict.__getitem__`` runs in C, so ``map(cache.__getitem__, chunks)``
    is a fused loop: hits cost a look-up, misses go through ``__missing__``.
    When the cache is full it becomes the older generation of a new one;
    a chunk found there moves up, so chunks in steady use are never lost.
    """

    __slots__ = ("encode", "older")

    def __init__(self, encode, older=None):
        super().__init__()
        self.encode = encode
        self.older = {} if older is None else older

    def __missing__(self, chunk):
        ids = self.older.get(chunk)
        if ids is None:
            ids = self.encode(chunk)
        self[chunk] = ids
        return ids

    def renewed(self):
        """This cache if it has room, else a new one whose older generation is this one."""
        if len(self) <= CACHE_LIMIT:
            return self
        self.older = {}
        return _ChunkCache(self.encode, self)


# --------------------------------------------------------------------------
# 5. Checks
# --------------------------------------------------------------------------
#
# Every public entry point checks its arguments before any long work, and
# every refusal says what was wrong, with which value, and what would be
# right. Values quoted in messages are shortened by ``_shown``.

UNK = "<unk>"
"""The token for characters the alphabet does not contain; always ID 0 at the character level."""

REPLACEMENT_CHARACTER = "\N{REPLACEMENT CHARACTER}"
"""What ID 0 decodes to, so a reader can see where text was lost."""

def _shown(value, limit=60):
    """``repr(value)``, shortened in the middle when long, for error messages."""
    try:
        text = repr(value)
    except ValueError:  # it is, or holds, an int too long for Python to write out (over 4,300 digits)
        if isinstance(value, int):
            return f"an integer of {value.bit_length():,} bits"
        return f"a {type(value).__name__} holding an integer too long to write out"
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]}...{text[-(limit // 2):]} ({len(text):,} characters)"


def _listed(values, joiner=", ", most=5):
    """The first few of ``values`` for a message, each shortened, then "..." if there are more.

    >>> _listed(["<a>", "<b>"]), _listed(range(9), " + ")
    ("'<a>', '<b>'", '0 + 1 + 2 + 3 + 4 + ...')
    """
    values = list(values)
    return joiner.join(map(_shown, values[:most])) + (joiner + "..." if len(values) > most else "")


def _named(path):
    """A file name for a message: as it is, unless it would break the line (a newline in it) or run very long."""
    name = os.fspath(path)
    return name if isinstance(name, str) and name.isprintable() and len(name) <= 200 else _shown(name)


def _check_pattern(pattern):
    """Refuse a pattern that is not the name of a built-in one."""
    if not isinstance(pattern, str) or pattern not in PATTERN_TEMPLATES:
        known = ", ".join(repr(name) for name in PATTERNS)
        raise ValueError(f"unknown pattern {_shown(pattern)}: the built-in patterns are {known}")


def _check_choice(value, choices, argument):
    """Refuse a value that is not one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        allowed = " or ".join(repr(choice) for choice in choices)
        raise ValueError(f"{argument} must be {allowed}, not {_shown(value)}")


def _check_flag(value, argument):
    """Refuse anything but True or False."""
    if not isinstance(value, bool):
        raise TypeError(f"{argument} must be True or False, not {_shown(value)}")


def _check_callback(value, argument):
    """Refuse a callback that cannot be called (None means no callback)."""
    if value is not None and not callable(value):
        raise TypeError(f"{argument} must be a function or None, not {_shown(value)}")


def _check_text(text, argument="text"):
    """Refuse anything but a str as text to train on or encode."""
    if not isinstance(text, str):
        raise TypeError(f"{argument} must be a str, not {type(text).__name__}")


def _check_no_surrogate(text, what, advice=""):
    """Refuse text holding a lone surrogate, which has no UTF-8 form and which no file can hold."""
    found = SURROGATE.search(text)
    if found:
        raise ValueError(
            f"{what} holds the lone surrogate {found.group()!r} at position {found.start():,}, "
            f"which has no UTF-8 form{advice}"
        )


def _check_vocab_size(vocab_size):
    """Refuse a vocab_size that is not an int (a bool is not a size either)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")


def _check_list(value, argument, of):
    """Refuse anything but a list or tuple (a str or bytes is not a list of them)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{argument} must be a list of {of}, not {type(value).__name__}")


def _check_alphabet(alphabet):
    """Refuse an alphabet that is not sorted, distinct, single characters without UNK."""
    _check_list(alphabet, "alphabet", "single characters")
    for position, char in enumerate(alphabet):
        if char == UNK:
            raise ValueError(f"alphabet must not contain {UNK!r}: it is always ID 0")
        if not isinstance(char, str) or len(char) != 1:
            raise ValueError(f"alphabet entry {position} is {_shown(char)}; each entry must be one character")
        _check_no_surrogate(char, f"alphabet entry {position}")
        if position and alphabet[position - 1] >= char:
            raise ValueError(
                f"alphabet must be sorted and distinct: {alphabet[position - 1]!r} comes before {char!r}"
            )


def _check_byte_alphabet(alphabet):
    """The 256 byte tokens in ID order: byte order for None, else a reordering of GPT-2's display characters."""
    if alphabet is None:
        return list(BYTE_TO_CHAR)
    _check_list(alphabet, "alphabet", "the 256 byte display characters (or None)")
    if not all(isinstance(char, str) for char in alphabet):
        raise ValueError("a byte-level alphabet is a list of GPT-2 display characters (strings), or None")
    given = Counter(alphabet)
    wrong = [char for char in given if given[char] > 1 or char not in CHAR_TO_BYTE]
    missing = [char for char in BYTE_TO_CHAR if char not in given]
    if wrong or missing:
        problem = f"{_shown(wrong[0])} is {'not one of them' if wrong[0] not in CHAR_TO_BYTE else 'there twice'}" \
            if wrong else f"{_shown(missing[0])} is missing"
        raise ValueError(
            f"a byte-level alphabet is the 256 GPT-2 display characters in ID order, each once (None for byte "
            f"order); {problem}"
        )
    return list(alphabet)


def _check_merges(merges, base):
    """Refuse merges that are not pairs of existing tokens making a new one; return the tokens they make.

    ``base`` are the tokens before the first merge; the set of tokens grows
    as each merge is checked, because a merge may only use tokens that exist
    at that point in the list. ``<unk>`` is never a part.
    """
    _check_list(merges, "merges", "[left, right] pairs")
    tokens = set(base) - {UNK}
    unknown = UNK if UNK in base else None  # the character level's ID 0, which nothing may make
    made = []
    for rank, merge in enumerate(merges):
        if not isinstance(merge, (list, tuple)) or len(merge) != 2:
            raise ValueError(f"merge {rank} is {_shown(merge)}; each merge must be a [left, right] pair")
        left, right = merge
        if not isinstance(left, str) or not isinstance(right, str):
            raise ValueError(f"merge {rank} is {_shown(merge)}; both parts must be strings")
        joined = left + right
        if left not in tokens or right not in tokens:
            missing = left if left not in tokens else right
            raise ValueError(f"merge {rank} ({_shown(left)}, {_shown(right)}) uses {_shown(missing)}, "
                             "which is not a token at that point")
        if joined in tokens or joined == unknown:
            raise ValueError(f"merge {rank} ({_shown(left)}, {_shown(right)}) makes {_shown(joined)}, "
                             "which is already a token")
        tokens.add(joined)
        made.append(joined)
    return made


MAX_SPECIAL_LENGTH = 128
"""The most characters a special token may have (real ones have a few dozen).

Looking for special tokens then costs at most this many steps per character
of text, and their trie, as a regex, nests no deeper than Python's regex
compiler can go."""


def _check_special_text(text, byte_level):
    """Refuse a special token that is not a non-empty string without whitespace or surrogates.

    Whitespace is refused because long text is cut into blocks only at
    whitespace (see ``safe_blocks``), and a special token must never be cut
    in two. At the character level ``<unk>`` is ID 0 already.
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"special token {_shown(text)} must be a non-empty string")
    if len(text) > MAX_SPECIAL_LENGTH:
        raise ValueError(f"special token {_shown(text[:24])}... has {len(text):,} characters; special tokens may "
                         f"have at most {MAX_SPECIAL_LENGTH}")
    if _compiled_template("{space}").search(text):
        raise ValueError(f"special token {_shown(text)} must not contain whitespace")
    _check_no_surrogate(text, f"special token {_shown(text)}")
    if not byte_level and text == UNK:
        raise ValueError(f"special token {UNK!r} is the unknown-character token, always ID 0 at the character level")


MAX_UNUSED_IDS = 1 << 20
"""How many IDs special tokens may leave unused (cl100k and o200k leave fewer than 20)."""


def _special_token_ids(special_tokens, ordinary, byte_level):
    """The special tokens as text -> ID, checked.

    A list takes the IDs after the ordinary tokens, in order; a dict gives
    each its ID, which may leave gaps but may not fall among the ordinary
    tokens. At the character level a special token may not equal an ordinary
    one (both are text); at the byte level ordinary tokens are display
    strings, so the two namespaces are separate.
    """
    if isinstance(special_tokens, dict):
        given = special_tokens
    else:
        _check_list(special_tokens, "special_tokens", "strings (or a dict of string -> ID)")
        given = {}
        for text in special_tokens:
            if isinstance(text, str) and text in given:
                raise ValueError(f"special token {_shown(text)} is given twice")
            given[text] = len(ordinary) + len(given)
    taken = set() if byte_level else set(ordinary)
    used_ids = {}
    for text, token_id in given.items():
        _check_special_text(text, byte_level)
        if text in taken:
            raise ValueError(f"special token {_shown(text)} is already an ordinary token")
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < len(ordinary):
            raise ValueError(
                f"special token {_shown(text)} has ID {_shown(token_id)}; special tokens take int IDs "
                f"from {len(ordinary):,} on (the IDs below belong to the ordinary tokens)"
            )
        if token_id in used_ids:
            raise ValueError(f"special tokens {_shown(used_ids[token_id])} and {_shown(text)} share ID {token_id}")
        used_ids[token_id] = text
    highest = len(ordinary) + len(given) - 1 + MAX_UNUSED_IDS
    for text, token_id in given.items():
        if token_id > highest:  # the vocabulary is a list with a place for every ID, used or not
            raise ValueError(f"special token {_shown(text)} has ID {_shown(token_id)}; special tokens may leave at "
                             f"most {MAX_UNUSED_IDS:,} IDs unused, so here the highest ID is {highest:,}")
    return dict(given)


def _check_chunk_counts(chunk_counts, pattern, special_tokens):
    """Refuse chunk counts whose keys are not single chunks or whose counts are not positive ints.

    A key may be a special token's text (a count of that special token); any
    other key holding one is refused: ``count_chunks`` keeps special tokens
    whole, so whoever counted must do the same.
    """
    if not isinstance(chunk_counts, dict):
        raise TypeError(f"chunk_counts must be a dict of chunk -> count, not {type(chunk_counts).__name__}")
    cut = chunker(pattern)
    specials = frozenset(special_tokens)
    finder = _special_finder(specials) if specials else None
    for chunk, count in chunk_counts.items():
        if not isinstance(chunk, str):
            raise ValueError(f"chunk_counts key {_shown(chunk)} must be a str, not {type(chunk).__name__}")
        if chunk not in specials:
            special = finder.search(chunk) if finder else None
            if special:
                raise ValueError(
                    f"chunk_counts key {_shown(chunk)} holds the special token {special.group()!r}; "
                    "count special tokens on their own (as bpe.count_chunks does)"
                )
            pieces = cut(chunk)
            if pieces != [chunk]:
                raise ValueError(f"chunk_counts key {_shown(chunk)} is not exactly one chunk: the {pattern!r} "
                                 f"pattern cuts it into {_shown(pieces)} (see bpe.chunks)")
            _check_no_surrogate(chunk, f"chunk_counts key {_shown(chunk)}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"chunk_counts[{_shown(chunk)}] is {_shown(count)}; counts must be positive ints")


def _check_path(path, argument):
    """A file path as a str; refuse anything else (``open`` would also take a number, meaning a file descriptor)."""
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
        raise TypeError(f"{argument} must be a file path (str or os.PathLike), not {type(path).__name__}")
    path = os.fspath(path)
    if "\0" in path:
        raise ValueError(f"{argument} {_shown(path)} holds a NUL character, which no file name can hold")
    return path


def _check_paths(paths, argument="paths"):
    """A list of file paths, each checked."""
    if isinstance(paths, (str, bytes, os.PathLike)) or not isinstance(paths, (list, tuple)):
        raise TypeError(f"{argument} must be a list of file paths, not {type(paths).__name__}")
    return [_check_path(path, f"each of {argument}") for path in paths]


def _check_positive_int(value, argument):
    """Refuse anything but an int of at least 1 (a bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be a positive int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{argument} must be a positive int, not {value}")


MAX_WORKERS = 4 * (os.cpu_count() or 1)
"""The most worker processes a job may ask for: four per CPU (each holds a copy of the tokenizer)."""


def _check_workers(workers):
    """Refuse a worker count that is not a positive int, or far more processes than this machine can use."""
    _check_positive_int(workers, "workers")
    if workers > MAX_WORKERS:
        raise ValueError(f"workers must be at most {MAX_WORKERS} (four per CPU of this machine), not {workers:,}")


def _check_inputs(paths, argument="paths"):
    """Check input files up front: each a path to something that exists and is not a folder."""
    paths = _check_paths(paths, argument)
    for path in paths:
        mode = os.stat(path).st_mode  # a missing file is the usual FileNotFoundError, naming it
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "a folder (a file is needed here)", path)
    return paths


def _training_options(vocab_size, byte_level, pattern, special_tokens, ties, progress, on_merge):
    """Check the options every training entry point shares, before any work; return (pattern, specials)."""
    _check_vocab_size(vocab_size)
    _check_flag(byte_level, "byte_level")
    pattern = DEFAULT_PATTERN[byte_level] if pattern is None else pattern
    _check_pattern(pattern)
    _check_choice(ties, TIE_RULES, "ties")
    _check_callback(progress, "progress")
    _check_callback(on_merge, "on_merge")
    if isinstance(special_tokens, dict):
        raise TypeError("special_tokens must be a list when training: their IDs follow the merges, in order")
    specials = _special_token_ids(special_tokens, [], byte_level)
    return pattern, list(specials)


class SpecialTokenInText(ValueError):
    """``encode`` found a special token's text that it was not told to allow (in the file ``where``, if given)."""

    def __init__(self, token, where=None):
        self.token, self.where = token, where
        super().__init__(
            ("" if where is None else f"{_named(where)}: ")
            + f"text contains the special token {token!r}; pass allowed_special={{{token!r}}} to encode it "
            "as a special token, or disallowed_special=() to encode it as ordinary text"
        )

    def __reduce__(self):  # so that it comes back whole from a worker process
        return SpecialTokenInText, (self.token, self.where)


# --------------------------------------------------------------------------
# 6. The Tokenizer
# --------------------------------------------------------------------------


class Tokenizer:
    """A trained, built or loaded BPE vocabulary that encodes text to IDs and back.

    >>> tok = Tokenizer.train("the cat sat on the mat, the cat sat", 20)
    >>> tok.tokens("the cat sat")
    ['the', ' cat', ' sat']
    >>> tok.decode(tok.encode("the mat"))
    'the mat'

    IDs are fixed by the content. At the character level ID 0 is ``<unk>``,
    then the alphabet in sorted order; at the byte level IDs 0-255 are the 256
    single bytes (in byte order for our own training; an imported vocabulary
    may order them otherwise). Then one ID per merge in the order learned,
    then the special tokens.

    Attributes:
        byte_level: True when the base tokens are the 256 byte values of
            UTF-8, False when they are the characters of the training text.
        pattern: the name of the chunk pattern (one of ``PATTERNS``).
        alphabet: the base tokens: the sorted characters, or at the byte
            level the 256 bytes' display characters in ID order.
        merges: (left, right) pairs in the order learned.
        vocab: every token by ID. Byte-level tokens are shown through GPT-2's
            table of printable characters (``"Ġthe"`` is the bytes of
            ``" the"``); special tokens are their text; an ID no token has
            (a gap before an imported special token) is None.
        ids: each ordinary (not special) token -> its ID.
        special_tokens: each special token's text -> its ID.
        merge_rank: each merged pair -> its rank (0 for the first merge).
        history: after training, each merge as ``{"pair": [left, right],
            "token": left + right, "count": n}``; empty after loading.
        ties: the tie rule training used (see ``best_pair``); None when the
            tokenizer was built or loaded rather than trained.

    ``len(tok)`` (also ``tok.n_vocab``) is the number of IDs.
    """

    def __init__(self, alphabet: Optional[Sequence[str]], merges: Sequence[tuple[str, str]], *, byte_level: bool = False,
                 pattern: Optional[str] = None, special_tokens: Union[Sequence[str], Mapping[str, int]] = ()):
        """Build a tokenizer from its base tokens and merge list, checking both.

        ``alphabet``: the sorted characters, or at the byte level None (the
        256 bytes in byte order) or their 256 display characters in ID order.
        ``special_tokens``: a list (IDs follow the merges, in order) or a dict
        of text -> ID (IDs at or above the first free one; gaps allowed).
        """
        _check_flag(byte_level, "byte_level")
        pattern = DEFAULT_PATTERN[byte_level] if pattern is None else pattern
        _check_pattern(pattern)
        if byte_level:
            base = _check_byte_alphabet(alphabet)
        else:
            _check_alphabet(alphabet)
            base = [UNK, *alphabet]
        ordinary = base + _check_merges(merges, base)
        self.special_tokens = _special_token_ids(special_tokens, ordinary, byte_level)
        self.byte_level = byte_level
        self.pattern = pattern
        self.alphabet = base if byte_level else base[1:]
        self.merges = [(left, right) for left, right in merges]
        self.vocab = ordinary + [None] * (max(self.special_tokens.values(), default=-1) + 1 - len(ordinary))
        for text, token_id in self.special_tokens.items():
            self.vocab[token_id] = text
        self.ids = {token: token_id for token_id, token in enumerate(ordinary)}
        self.history = []
        self.ties = None
        self._prepare()

    def _prepare(self):
        """Derive the tables that encoding and decoding use from the attributes above."""
        ids = self.ids
        first_merge = len(self.alphabet) + (0 if self.byte_level else 1)
        self._merged_id = {(ids[left], ids[right]): first_merge + rank for rank, (left, right) in enumerate(self.merges)}
        if self.byte_level:
            self._byte_ids = bytes(ids[char] for char in BYTE_TO_CHAR)  # a bytes.translate table: byte -> ID
            decoded = [SINGLE_BYTES[CHAR_TO_BYTE[char]] for char in self.alphabet]
            special_text = str.encode
        else:
            self._character_id = {char: token_id for token_id, char in enumerate(self.alphabet, 1)}
            decoded = [REPLACEMENT_CHARACTER, *self.alphabet]
            special_text = str
        for left, right in self.merges:  # a merged token's text is its parts' text
            decoded.append(decoded[ids[left]] + decoded[ids[right]])
        decoded += [None] * (len(self.vocab) - len(decoded))
        for text, token_id in self.special_tokens.items():
            decoded[token_id] = special_text(text)
        self._decoded = decoded
        self._cut = chunker(self.pattern)
        self._cache = _ChunkCache(self._encode_new_chunk)
        self._special_finders = {}
        self._all_special = frozenset(self.special_tokens)

    @functools.cached_property
    def merge_rank(self):
        """Each merged pair -> its rank (0 for the first merge); worked out on first use."""
        return {pair: rank for rank, pair in enumerate(self.merges)}

    def __repr__(self):
        return (
            f"Tokenizer(byte_level={self.byte_level!r}, pattern={self.pattern!r}, n_vocab={len(self)}, "
            f"merges={len(self.merges)}, special_tokens={len(self.special_tokens)})"
        )

    def __len__(self) -> int:
        return len(self.vocab)

    @property
    def n_vocab(self) -> int:
        """The number of IDs, special tokens and any gaps included (as tiktoken counts)."""
        return len(self.vocab)

    # -- training ----------------------------------------------------------

    @classmethod
    def train(cls, text: str, vocab_size: int, *, byte_level: bool = False, pattern: Optional[str] = None,
              special_tokens: Sequence[str] = (), ties: str = "smallest",
              progress: Optional[Callable[[int, int], None]] = None,
              on_merge: Optional[Callable[[int, dict], None]] = None) -> "Tokenizer":
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` entries.

        Training stops earlier when no pair occurs at least twice; ``history``
        then shows every merge learned with its count.

        - ``byte_level=True`` starts from the 256 byte values instead of the
          characters seen, so no text is ever unknown.
        - ``pattern`` names the chunk pattern (``"lab"`` for characters and
          ``"gpt2"`` for bytes unless given; see ``PATTERNS``).
        - ``special_tokens`` get IDs after the merges (and count towards
          ``vocab_size``); their text in the training data is left out.
        - ``ties`` chooses between equally frequent pairs: ``"smallest"``
          or ``"first-seen"`` (see ``best_pair``).
        - ``progress(merges_done, merge_target)`` is called about a hundred
          times; ``on_merge(rank, entry)`` with each ``history`` entry as soon
          as it is learned.
        """
        _check_text(text)
        pattern, specials = _training_options(vocab_size, byte_level, pattern, special_tokens, ties, progress,
                                              on_merge)
        if byte_level:
            text = replace_lone_surrogates(text)
        else:
            _check_no_surrogate(text, "text", "; remove it, or train with byte_level=True, which reads it as U+FFFD")
        counts = count_chunks(text_blocks(text), pattern, special_tokens=specials)
        return cls._train_on_counts(counts, vocab_size, byte_level, pattern, specials, ties, progress, on_merge)

    @classmethod
    def train_from_files(cls, paths: Sequence[PathLike], vocab_size: int, *, byte_level: bool = False,
                         pattern: Optional[str] = None, special_tokens: Sequence[str] = (), ties: str = "smallest",
                         progress: Optional[Callable[[int, int], None]] = None,
                         on_merge: Optional[Callable[[int, dict], None]] = None,
                         block_size: int = BLOCK_SIZE) -> "Tokenizer":
        """Train on UTF-8 files as if they were one concatenated text, without holding it.

        The files are read ``block_size`` bytes at a time and cut only where a
        cut cannot change the chunks, so the result is exactly that of
        ``train`` on the concatenated text ("first seen" included); memory
        holds the chunk counts, not the text. The other options are those of
        ``train``.
        """
        paths = _check_paths(paths)
        pattern, specials = _training_options(vocab_size, byte_level, pattern, special_tokens, ties, progress,
                                              on_merge)
        _check_positive_int(block_size, "block_size")
        counts = count_chunks(read_blocks(paths, block_size), pattern, special_tokens=specials)
        return cls._train_on_counts(counts, vocab_size, byte_level, pattern, specials, ties, progress, on_merge)

    @classmethod
    def train_from_counts(cls, chunk_counts: Mapping[str, int], vocab_size: int, *, byte_level: bool = False,
                          pattern: Optional[str] = None, special_tokens: Sequence[str] = (), ties: str = "smallest",
                          progress: Optional[Callable[[int, int], None]] = None,
                          on_merge: Optional[Callable[[int, dict], None]] = None) -> "Tokenizer":
        """Train on chunk counts made elsewhere (``count_chunks``, a process pool, a cluster job).

        ``chunk_counts`` maps each chunk string, exactly as ``chunks`` cuts it
        with the same pattern, to a positive count; a special token's text
        may be a key of its own (it is not trained on). "First seen" follows
        the order of the keys. Counting chunks is the only step whose cost
        grows with the corpus, so any engine can do it and hand the result
        over.
        """
        pattern, specials = _training_options(vocab_size, byte_level, pattern, special_tokens, ties, progress,
                                              on_merge)
        _check_chunk_counts(chunk_counts, pattern, specials)
        return cls._train_on_counts(chunk_counts, vocab_size, byte_level, pattern, specials, ties, progress,
                                    on_merge)

    @classmethod
    def _train_on_counts(cls, chunk_counts, vocab_size, byte_level, pattern, specials, ties, progress, on_merge):
        """The step every training entry point shares: chunk counts in, tokenizer out."""
        special = set(specials)
        ordinary = {chunk: count for chunk, count in chunk_counts.items() if chunk not in special}
        if not ordinary:
            raise ValueError("cannot train on empty text: give at least one character that is not a special token")
        if byte_level:
            alphabet, base_size, base_name = None, 256, "the 256 byte values"
            sequences = {tuple(SINGLE_BYTES[byte] for byte in chunk.encode("utf-8")): count
                         for chunk, count in ordinary.items()}
        else:
            alphabet = sorted(set("".join(ordinary)))
            base_size, base_name = len(alphabet) + 1, f"{len(alphabet)} characters + {UNK}"
            sequences = ordinary  # a str is already a sequence of one-character tokens
        if specials:
            base_name += f" + {len(specials)} special tokens"
        needed = base_size + len(specials)
        if vocab_size < needed:
            raise ValueError(
                f"vocab_size {vocab_size} is smaller than the {needed} base tokens ({base_name}); "
                f"ask for at least {needed}"
            )
        display = bytes_to_display if byte_level else str

        def history_entry(pair, count):
            left, right = display(pair[0]), display(pair[1])
            return {"pair": [left, right], "token": left + right, "count": count}

        def report_merge(rank, pair, count):
            if on_merge is not None:
                on_merge(rank, history_entry(pair, count))

        learned = train_merges(sequences, vocab_size - needed, ties=ties, progress=progress, on_merge=report_merge)
        history = [history_entry(pair, count) for pair, count in learned]
        merges = [tuple(entry["pair"]) for entry in history]
        tokenizer = cls(alphabet, merges, byte_level=byte_level, pattern=pattern, special_tokens=specials)
        tokenizer.history = history
        tokenizer.ties = ties
        return tokenizer

    # -- encoding ----------------------------------------------------------

    def encode(self, text: str, *, allowed_special: SpecialChoice = (),
               disallowed_special: SpecialChoice = "all") -> list[int]:
        """Turn ``text`` into a list of token IDs.

        >>> Tokenizer(["a", "b", "c"], [("a", "b")]).encode("abcabd")
        [4, 3, 4, 0]

        (``d`` is not in the alphabet: at the character level it is ID 0.)

        Special tokens follow tiktoken's rules: by default, a special token's
        text in the input is an error; ``allowed_special`` (a set of them, or
        ``"all"``) encodes those as their IDs; ``disallowed_special=()`` lets
        the rest through as ordinary text. At the byte level, lone surrogates
        (which have no UTF-8 form) are encoded as U+FFFD, as tiktoken does.
        """
        _check_text(text)
        if self.byte_level:
            text = replace_lone_surrogates(text)
        ids = []
        for segment, special_id in self._special_segments(text, allowed_special, disallowed_special):
            if special_id is None:
                self._encode_ordinary(segment, ids)
            else:
                ids.append(special_id)
        return ids

    def tokens(self, text: str, *, allowed_special: SpecialChoice = (),
               disallowed_special: SpecialChoice = "all") -> list[str]:
        """Split ``text`` into token strings (``<unk>`` for unknown characters, GPT-2 display form for bytes).

        >>> Tokenizer(None, [("Ġ", "c")], byte_level=True).tokens(" café")
        ['Ġc', 'a', 'f', 'Ã', '©']
        """
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return [self.vocab[token_id] for token_id in ids]

    def encode_with_offsets(self, text: str, *, allowed_special: SpecialChoice = (),
                            disallowed_special: SpecialChoice = "all") -> list[tuple[int, int, int]]:
        """Encode ``text`` as ``(id, start, end)`` triples: each token's span of characters in ``text``.

        >>> Tokenizer(None, [], byte_level=True).encode_with_offsets("hé")
        [(104, 0, 1), (195, 1, 2), (169, 1, 2)]

        At the byte level a token that holds only part of a character (here
        each byte of ``é``) gets the span of that whole character.
        """
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        if self.byte_level:
            starts, ends = _character_spans_of_bytes(text)
        else:  # each character is one unit, and an unknown one decodes to one U+FFFD
            starts, ends = range(len(text)), range(1, len(text) + 1)
        triples, offset = [], 0
        for token_id in ids:
            size = len(self._decoded[token_id])
            triples.append((token_id, starts[offset], ends[offset + size - 1]))
            offset += size
        return triples

    def chunks(self, text: str) -> list[str]:
        """Cut ``text`` as ``encode`` does, with this tokenizer's pattern (special tokens are not looked for)."""
        _check_text(text)
        if self.byte_level:
            text = replace_lone_surrogates(text)
        return self._cut(text)

    def start_tokens(self, chunk: str) -> list[str]:
        """A chunk's tokens before any merge: its characters (unknown ones as ``<unk>``) or its bytes."""
        if self.byte_level:
            chunk = replace_lone_surrogates(chunk)
        return [self.vocab[token_id] for token_id in self._start_ids(chunk)]

    def _start_ids(self, chunk):
        """The IDs of a chunk before any merge: its bytes, or its characters (unknown ones 0)."""
        if self.byte_level:
            return chunk.encode("utf-8").translate(self._byte_ids)
        known = self._character_id
        return [known.get(char, 0) for char in chunk]

    def _encode_new_chunk(self, chunk):
        """A chunk's IDs, as a tuple, through the fast encoder (the cache calls this for chunks it lacks)."""
        return tuple(encode_chunk(self._start_ids(chunk), self._merged_id))

    def _encode_ordinary(self, text, ids):
        """Append the IDs of ``text``, which holds no special token, to ``ids``.

        Each distinct chunk is encoded once and remembered, so text that
        repeats its words (all text does) costs little more than chunking.
        """
        for block in safe_blocks(text_blocks(text, BLOCK_SIZE), self.pattern):
            cache = self._cache
            ids.extend(chain.from_iterable(map(cache.__getitem__, self._cut(block))))
            self._cache = cache.renewed()

    def _special_segments(self, text, allowed_special, disallowed_special):
        """Cut ``text`` around the allowed special tokens: ``(text, None)`` and ``(None, ID)`` items."""
        allowed = self._special_set(allowed_special, "allowed_special")
        if disallowed_special == "all":
            disallowed = self._all_special - allowed if allowed else self._all_special
        else:
            disallowed = self._special_set(disallowed_special, "disallowed_special")
        if disallowed:
            found = self._special_finder(disallowed).search(text)
            if found:
                raise SpecialTokenInText(found.group())
        if not allowed:
            return [(text, None)]
        segments = []
        start = 0
        for found in self._special_finder(allowed).finditer(text):
            segments += [(text[start:found.start()], None), (None, self.special_tokens[found.group()])]
            start = found.end()
        segments.append((text[start:], None))
        return segments

    def _special_finder(self, texts):
        """The compiled finder for a set of special tokens, built once per set and tokenizer."""
        finder = self._special_finders.get(texts)
        if finder is None:
            if len(self._special_finders) >= 8:
                self._special_finders.clear()
            finder = self._special_finders[texts] = _special_finder(texts)
        return finder

    def _special_set(self, names, argument):
        """``"all"`` or a collection of this tokenizer's special tokens, as a frozenset."""
        if names == "all":
            return self._all_special
        if isinstance(names, (str, bytes)) or not isinstance(names, (set, frozenset, list, tuple)):
            raise TypeError(f"{argument} must be 'all' or a set of special tokens, not {_shown(names)}")
        if not names:
            return frozenset()
        if not all(isinstance(name, str) for name in names):
            raise TypeError(f"{argument} must hold special tokens as strings, not {_shown(names)}")
        names = frozenset(names)
        unknown = sorted(names - self._all_special)
        if unknown:
            raise ValueError(f"{argument} names {_shown(unknown[0])}, which is not a special token of this tokenizer")
        return names

    # -- decoding and looking up -------------------------------------------

    def decode(self, ids: Iterable[int]) -> str:
        """Turn token IDs back into text.

        >>> Tokenizer(["a", "c"], []).decode([2, 1, 0])
        'ca\\ufffd'

        ID 0 of a character-level tokenizer becomes U+FFFD; at the byte level,
        bytes that are not valid UTF-8 (a character cut in two) become U+FFFD.
        """
        if self.byte_level:
            return b"".join(self._decodings(ids)).decode("utf-8", errors="replace")
        return "".join(self._decodings(ids))

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes that token IDs stand for (special tokens as their UTF-8 text)."""
        if self.byte_level:
            return b"".join(self._decodings(ids))
        return "".join(self._decodings(ids)).encode("utf-8")

    def _decodings(self, ids):
        """What each ID decodes to (bytes at the byte level, text otherwise), refusing IDs outside the vocabulary.

        Any integer that ``operator.index`` accepts is an ID (numpy's
        integers, IntEnum members); ``True`` and ``False`` are not.
        """
        if isinstance(ids, (str, bytes, bytearray, dict, set, frozenset)) or not hasattr(ids, "__iter__"):
            raise TypeError(f"ids must be a list of token IDs (ints), not {type(ids).__name__}")
        decoded = self._decoded
        size = len(decoded)
        decodings, bad = [], []
        for item in ids:
            if type(item) is int:
                token_id = item
            elif isinstance(item, bool):
                token_id = -1
            else:
                try:
                    token_id = operator.index(item)
                except TypeError:
                    raise TypeError(f"ids must hold ints (token IDs), not {_shown(item)}") from None
            if 0 <= token_id < size and decoded[token_id] is not None:
                decodings.append(decoded[token_id])
            else:
                bad.append(item)
        if bad:
            gaps = " that a token has" if None in decoded else ""
            booleans = " (True and False are not token IDs)" if any(isinstance(item, bool) for item in bad) else ""
            raise ValueError(
                f"IDs {_shown(bad)} are outside the vocabulary: IDs are ints from 0 to {size - 1}{gaps}{booleans}"
            )
        return decodings

    def token_to_id(self, token: str) -> int:
        """The ID of an ordinary token (``tok.special_tokens`` holds the special ones' IDs)."""
        try:
            return self.ids[token]
        except (KeyError, TypeError):
            raise KeyError(f"{_shown(token)} is not an ordinary token of this tokenizer") from None

    def id_to_token(self, token_id: int) -> str:
        """The token with this ID (a display string at the byte level, or a special token's text)."""
        return self.vocab[self._one_id(token_id)]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of the token with this ID (a special token's as its UTF-8 text)."""
        return self.decode_bytes([self._one_id(token_id)])

    def _one_id(self, token_id):
        """Check a single ID as ``decode`` checks each of a list."""
        self._decodings([token_id])
        return operator.index(token_id)

    # -- many texts and whole files (see "Token files" in section 7) ----------

    def encode_batch(self, texts: Sequence[str], *, workers: int = 1, allowed_special: SpecialChoice = (),
                     disallowed_special: SpecialChoice = "all") -> list[list[int]]:
        """Encode each of ``texts``: a list of ID lists, in order.

        With ``workers`` above 1, that many processes share the work; each is
        given this tokenizer once, when it starts, with what it has cached.
        """
        _check_list(texts, "texts", "strings")
        for text in texts:
            _check_text(text, "each of texts")
        _check_workers(workers)
        specials = self._special_choice(allowed_special, disallowed_special)
        if workers == 1 or len(texts) < 2:
            return [self.encode(text, **specials) for text in texts]
        with _worker_pool(self, workers) as pool:
            return list(pool.map(functools.partial(_encode_in_worker, specials=specials), texts,
                                 chunksize=max(1, len(texts) // (4 * workers))))

    def encode_files(self, paths: Sequence[PathLike], out_path: PathLike, *, workers: int = 1,
                     separator: Optional[str] = None, allowed_special: SpecialChoice = (),
                     disallowed_special: SpecialChoice = "all", block_size: int = BLOCK_SIZE,
                     progress: Optional[Callable[[int, int], None]] = None) -> dict:
        """Encode UTF-8 files into one flat file of token IDs for training a model; return its description.

        ``out_path`` gets the IDs as unsigned little-endian integers (``uint16``
        when every ID fits, else ``uint32``), each file's after the last, with
        the special token ``separator`` (if given) after each file. Beside it,
        ``out_path + ".json"`` describes it: dtype, byteorder, tokens, the
        sha256 of this tokenizer's file, each file's tokens, the separator.
        Each file's IDs are exactly ``encode`` of its whole text, but memory
        holds a few blocks, not the text; ``progress(bytes_done,
        bytes_total)`` hears of each block. Both files are written atomically.
        Read it back with ``array.array("H")`` and ``frombytes`` (and
        ``byteswap`` on a big-endian machine), or ``numpy.memmap(path,
        dtype="<u2")`` (``"I"`` and ``"<u4"`` for ``uint32``).
        """
        return _encode_files(self, paths, out_path, workers, separator, allowed_special, disallowed_special,
                             block_size, progress)

    def count_files(self, paths: Sequence[PathLike], *, workers: int = 1, allowed_special: SpecialChoice = (),
                    disallowed_special: SpecialChoice = "all", block_size: int = BLOCK_SIZE,
                    progress: Optional[Callable[[int, int], None]] = None) -> list[int]:
        """The number of tokens in each of the UTF-8 files, read block by block as ``encode_files`` reads them."""
        return _count_files(self, paths, workers, allowed_special, disallowed_special, block_size, progress)

    def _special_choice(self, allowed_special, disallowed_special):
        """The special-token arguments, checked now (before long work), as keyword arguments for ``encode``."""
        self._special_set(allowed_special, "allowed_special")
        if disallowed_special != "all":
            self._special_set(disallowed_special, "disallowed_special")
        return {"allowed_special": allowed_special, "disallowed_special": disallowed_special}

    def __getstate__(self):
        """What a copy in another process needs: its file, its training record and its cached chunks."""
        return {"body": self.to_json(), "history": self.history, "ties": self.ties, "cache": dict(self._cache)}

    def __setstate__(self, state):
        self.__dict__.update(Tokenizer.from_json(state["body"]).__dict__)
        self.history, self.ties = state["history"], state["ties"]
        self._cache.update(state["cache"])

    # -- files, imports and exports (sections 7 and 8) ------------------------

    def to_json(self) -> dict:
        """The tokenizer as a JSON-ready dict: format 1 for the lab's kind of tokenizer, else format 2."""
        return _file_body(self)

    @classmethod
    def from_json(cls, data: dict) -> "Tokenizer":
        """Build a tokenizer from a dict made by ``to_json``, refusing anything malformed."""
        return _from_file_body(cls, data)

    def save(self, path: PathLike) -> None:
        """Write the tokenizer to ``path`` as JSON, atomically (see ``atomic_writer``)."""
        write_text_atomic(path, _file_text(self))

    @classmethod
    def load(cls, path: PathLike) -> "Tokenizer":
        """Read a tokenizer file; a malformed one is a ``ValueError`` naming the file.

        (A file that cannot be opened at all is the usual ``OSError``.)
        """
        data = read_json(path)
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{_named(path)}: {error}") from None

    @classmethod
    def load_tiktoken(cls, path: PathLike, pattern: str, special_tokens: Optional[Mapping[str, int]] = None) -> "Tokenizer":
        """Import a tiktoken ranks file (``.tiktoken``, or gzip-compressed ``.gz``) as a byte-level tokenizer.

        ``pattern`` names the chunk pattern the vocabulary was made for
        (``"cl100k"`` for GPT-4's ``cl100k_base``, ``"o200k"`` for GPT-4o's);
        ``special_tokens`` is a dict of text -> ID, or None for none. Each
        token's merge pair is recovered as tiktoken itself would build it.
        """
        return _load_tiktoken(cls, path, pattern, special_tokens)

    @classmethod
    def load_huggingface(cls, path: PathLike) -> "Tokenizer":
        """Import a Hugging Face ``tokenizer.json`` of the byte-level BPE kind (GPT-2's), or one we saved."""
        return _load_huggingface(cls, path)

    def to_tiktoken(self) -> dict:
        """Keyword arguments for ``tiktoken.Encoding(**kwargs)`` that give the same IDs."""
        return _tiktoken_arguments(self)

    def to_huggingface(self) -> dict:
        """The tokenizer as a Hugging Face ``tokenizer.json`` dict (a BPE model)."""
        return _huggingface_body(self)

    def save_huggingface(self, path: PathLike) -> None:
        """Write a ``tokenizer.json`` that ``tokenizers.Tokenizer.from_file`` loads, atomically."""
        write_text_atomic(path, json.dumps(self.to_huggingface(), indent=1, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------
# 7. Files
# --------------------------------------------------------------------------
#
# Format 1 is the lab's: ``{"format_version": 1, "alphabet": [...],
# "merges": [[left, right], ...]}``. Format 2 says what format 1 cannot:
# ``level`` ("bytes" or "characters"), ``pattern`` (a built-in pattern's
# *name*, never a regular expression), at the byte level ``bytes`` when the
# 256 byte tokens are not in byte order (their display characters in ID
# order), ``alphabet`` at the character level, ``merges`` (byte tokens in
# display form) and ``special_tokens`` (text -> ID). Both are written with
# ``json.dumps(body, indent=1)`` plus a newline, so the bytes are fixed by the
# content.

FORMAT_VERSION = 1
"""The version of the file the lab's kind of tokenizer is saved in (see ``Tokenizer.to_json``)."""

READABLE_FORMATS = (1, 2)
"""The file versions ``Tokenizer.load`` reads."""

LEVELS = {"characters": False, "bytes": True}
"""A format-2 file's ``level`` -> the tokenizer's ``byte_level``."""

MAX_FILE_BYTES = 256 << 20
"""The largest file a loader reads (256 MiB; GPT-4o's vocabulary in format 2 is about 9 MB)."""


def _file_body(tokenizer):
    """The JSON body of a tokenizer file: format 1 for the lab's kind (characters, lab pattern, no specials)."""
    merges = [[left, right] for left, right in tokenizer.merges]
    if not tokenizer.byte_level and tokenizer.pattern == "lab" and not tokenizer.special_tokens:
        return {"format_version": FORMAT_VERSION, "alphabet": list(tokenizer.alphabet), "merges": merges}
    level = "bytes" if tokenizer.byte_level else "characters"
    body = {"format_version": 2, "level": level, "pattern": tokenizer.pattern}
    if tokenizer.byte_level and tokenizer.alphabet != BYTE_TO_CHAR:
        body["bytes"] = list(tokenizer.alphabet)
    if not tokenizer.byte_level:
        body["alphabet"] = list(tokenizer.alphabet)
    body["merges"] = merges
    body["special_tokens"] = dict(tokenizer.special_tokens)
    return body


def _file_text(tokenizer):
    """The text of a tokenizer file: its body as ``json.dumps(body, indent=1)``, then a newline."""
    return json.dumps(_file_body(tokenizer), indent=1) + "\n"


def _from_file_body(cls, data):
    """Build a tokenizer from a file body; one that does not match its version is an unsupported format."""
    if not isinstance(data, dict):
        raise ValueError(f"a tokenizer must be a JSON object, not {type(data).__name__}")
    if "format_version" not in data:
        raise ValueError(
            "unsupported tokenizer format: no 'format_version' key, so this is no tokenizer file of this lab "
            "(a Hugging Face tokenizer.json or a .tiktoken file is imported with load_huggingface or load_tiktoken, "
            "or on the command line with bpe convert)"
        )
    version = data.get("format_version")
    if type(version) is not int or version not in READABLE_FORMATS:
        readable = " and ".join(str(number) for number in READABLE_FORMATS)
        raise ValueError(f"unsupported tokenizer format {_shown(version)}: this reader understands formats {readable}")
    if version == 1:
        _check_keys(data, ["format_version", "alphabet", "merges"], "unsupported tokenizer format 1")
        return cls(data["alphabet"], data["merges"])
    level = data.get("level")
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(
            f"unsupported tokenizer format 2: 'level' is {_shown(level)}, but format 2 says "
            "whether its tokens are 'bytes' or 'characters'"
        )
    keys = ["format_version", "level", "pattern"]
    if not LEVELS[level]:
        keys.append("alphabet")
    elif "bytes" in data:  # the byte tokens' order, written only when it is not byte order
        keys.append("bytes")
    _check_keys(data, keys + ["merges", "special_tokens"], "unsupported tokenizer format 2")
    if not isinstance(data["pattern"], str):
        raise ValueError(f"'pattern' must be the name of a built-in pattern, not {_shown(data['pattern'])}")
    if not isinstance(data["special_tokens"], dict):
        raise ValueError("special_tokens must be an object mapping each special token to its int ID")
    alphabet = data.get("bytes") if LEVELS[level] else data["alphabet"]
    return cls(alphabet, data["merges"], byte_level=LEVELS[level], pattern=data["pattern"],
               special_tokens=data["special_tokens"])


def _check_keys(data, expected, problem):
    """Refuse a JSON object whose keys are not exactly ``expected``, saying which key is wrong."""
    if not all(isinstance(key, str) for key in data):
        raise ValueError(f"{problem}: every key must be a string")
    missing = [key for key in expected if key not in data]
    if missing:
        raise ValueError(f"{problem}: missing key {missing[0]!r} (it needs {', '.join(expected)})")
    unexpected = sorted(set(data) - set(expected))
    if unexpected:
        raise ValueError(f"{problem}: unexpected key {_shown(unexpected[0])} (it has only {', '.join(expected)})")


# -- reading ---------------------------------------------------------------


def _file_kind(mode):
    """What kind of file a mode describes, in words."""
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a pipe"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_file_bytes(path: PathLike, argument: str = "path") -> bytes:
    """The bytes of a regular file of at most ``MAX_FILE_BYTES``; anything else is a one-line ``ValueError``.

    A device, a pipe or ``/dev/zero`` could be read without end, so only
    regular files are read, and only up to the limit.
    """
    path = _check_path(path, argument)
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"{_named(path)}: {_file_kind(mode)}, not a regular file; "
                         "a tokenizer is read from a regular file")
    with open(path, "rb") as stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{_named(path)}: larger than the {MAX_FILE_BYTES >> 20} MiB a tokenizer file may have")
    return data


def _gunzip(data, path):
    """Decompress gzip data, refusing it past ``MAX_FILE_BYTES`` or when it is not valid gzip."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError, ValueError) as error:
        raise ValueError(f"{_named(path)}: not a valid gzip file ({error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{_named(path)}: decompresses to more than the {MAX_FILE_BYTES >> 20} MiB "
                         "a tokenizer file may have")
    return data


def _refuse_duplicate_keys(pairs):
    """A JSON object hook: a key given twice is a malformed file, not a silent overwrite."""
    data = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"key {_shown(key)} appears twice")
        data[key] = value
    return data


def read_json(path: PathLike, argument: str = "path"):
    """Read a UTF-8 JSON file (see ``read_file_bytes``), turning every way it can be malformed into a ``ValueError``."""
    raw = read_file_bytes(path, argument)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{_named(path)}: not valid UTF-8 (byte {error.start:,})") from None
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except json.JSONDecodeError as error:
        raise ValueError(f"{_named(path)}: not valid JSON ({error.msg} at line {error.lineno})") from None
    except ValueError as error:
        raise ValueError(f"{_named(path)}: not a valid tokenizer file ({error})") from None
    except RecursionError:
        raise ValueError(f"{_named(path)}: not a valid tokenizer file (JSON nested too deeply)") from None


# -- token files -----------------------------------------------------------
#
# A model is trained on text encoded once, ahead of time, into a flat file of
# IDs that training reads with ``numpy.memmap`` (as nanoGPT's data
# preparation does). Files are read in blocks cut at safe places, as
# training reads them, so memory holds a few blocks whatever the corpus; with
# several workers, the blocks go to processes in order and come back in
# order, at most two per worker in flight.

TOKEN_FILE_TYPES = {"uint16": "H", "uint32": "I"}
"""The ``array`` type codes of the two ID widths a token file uses (2 and 4 bytes on every platform Python runs on)."""


def token_file_dtype(n_vocab):
    """``"uint16"`` when every ID of a vocabulary of ``n_vocab`` fits in 16 bits, else ``"uint32"``."""
    return "uint16" if n_vocab <= 1 << 16 else "uint32"


def _file_blocks(paths, pattern, block_size, progress):
    """``(file number, block)`` for every block of every file, cut at safe places; ``progress`` hears of each."""
    sizes = [os.stat(path).st_size for path in paths]
    total, done = sum(sizes), 0
    for number, path in enumerate(paths):
        with open(path, "rb") as stream:
            for block in safe_blocks(stream_blocks(stream, path, block_size), pattern):
                yield number, block
                if progress is not None:
                    progress(done + stream.tell(), total)
        done += sizes[number]


def _block_results(tokenizer, paths, blocks, workers, specials, typecode):
    """For each block, in order: its file number, and its IDs as a token file holds them (``typecode``),
    or how many there are (``typecode`` None). Several processes share the work if asked.

    A special token refused in a block is reported with the file it is in.
    """

    def named(number, result):
        try:
            return result()
        except SpecialTokenInText as error:
            raise SpecialTokenInText(error.token, paths[number]) from None

    if workers == 1:
        for number, block in blocks:
            yield number, named(number, lambda: _encode_block(tokenizer, block, specials, typecode))
        return
    pending = []
    with _worker_pool(tokenizer, workers) as pool:
        for number, block in blocks:
            pending.append((number, pool.submit(_encode_block_in_worker, block, specials, typecode)))
            if len(pending) >= 2 * workers:
                number, future = pending.pop(0)
                yield number, named(number, future.result)
        for number, future in pending:
            yield number, named(number, future.result)


def _encode_block(tokenizer, text, specials, typecode):
    """A block's IDs as unsigned little-endian integers of the type ``typecode``, or their number for None."""
    ids = tokenizer.encode(text, **specials)
    if typecode is None:
        return len(ids)
    ids = array.array(typecode, ids)
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes()


def _encode_block_in_worker(text, specials, typecode):
    """``_encode_block`` in a worker process, with the tokenizer the worker was started with."""
    return _encode_block(_WORKER["tokenizer"], text, specials, typecode)


def _encode_in_worker(text, specials):
    """``encode`` in a worker process, with the tokenizer it was started with (for ``encode_batch``)."""
    return _WORKER["tokenizer"].encode(text, **specials)


_WORKER = {}
"""In a worker process: the tokenizer it was given when it started."""


def _start_worker(tokenizer, parent):
    """Set up a worker process: keep its tokenizer, and end it if its parent ends first."""
    _WORKER["tokenizer"] = tokenizer
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, which tidies up the parent's own file
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def _end_with(parent):
    """Watch the parent process; when it is gone (killed before it could stop its workers), end this worker.

    Without this, a worker of a killed parent would wait for work forever.
    """
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)


def _worker_pool(tokenizer, workers):
    """A pool of ``workers`` processes, each holding a copy of ``tokenizer`` from its start."""
    import concurrent.futures

    return concurrent.futures.ProcessPoolExecutor(workers, initializer=_start_worker,
                                                  initargs=(tokenizer, os.getpid()))


def _token_file_options(tokenizer, paths, workers, separator, allowed_special, disallowed_special, block_size):
    """Check every option of a token-file job before reading anything; return the paths and the specials."""
    paths = _check_inputs(paths)
    _check_workers(workers)
    _check_positive_int(block_size, "block_size")
    specials = tokenizer._special_choice(allowed_special, disallowed_special)
    if separator is not None and separator not in tokenizer.special_tokens:
        known = tokenizer.special_tokens
        raise ValueError(f"separator {_shown(separator)} is not a special token of this tokenizer (it has "
                         + (f"{len(known):,}: {_listed(known)})" if known else "none)"))
    return paths, specials


def _encode_files(tokenizer, paths, out_path, workers, separator, allowed_special, disallowed_special, block_size,
                  progress):
    """``Tokenizer.encode_files``: the token file and its description, both written atomically."""
    paths, specials = _token_file_options(tokenizer, paths, workers, separator, allowed_special, disallowed_special,
                                          block_size)
    _check_callback(progress, "progress")
    description_path = os.fspath(out_path) + ".json"
    for output in (out_path, description_path):
        target = check_output_path(output, "out_path")
        for path in paths:
            if os.path.exists(target) and os.path.samefile(path, target):
                raise ValueError(f"{_named(output)}: is also one of the files to encode; "
                                 "write the tokens somewhere else")
    dtype = token_file_dtype(len(tokenizer))
    typecode = TOKEN_FILE_TYPES[dtype]
    width = array.array(typecode).itemsize
    ending = b"" if separator is None else _encode_block(tokenizer, separator, {"allowed_special": "all"}, typecode)
    counts = [0] * len(paths)
    with atomic_writer(description_path, "out_path") as description, \
            atomic_writer(out_path, "out_path") as stream:
        blocks = _file_blocks(paths, tokenizer.pattern, block_size, progress)
        ended = 0  # files whose blocks are all written, and the separator after them
        for number, data in _block_results(tokenizer, paths, blocks, workers, specials, typecode):
            while ended < number:
                stream.write(ending)
                ended += 1
            stream.write(data)
            counts[number] += len(data) // width
        while ended < len(paths):
            stream.write(ending)
            ended += 1
        summary = {
            "dtype": dtype,
            "byteorder": "little",
            "tokens": sum(counts) + len(paths) * len(ending) // width,
            "tokenizer_sha256": hashlib.sha256(_file_text(tokenizer).encode("utf-8")).hexdigest(),
            "files": [{"path": path, "tokens": count} for path, count in zip(paths, counts)],
            "separator": separator,
        }
        description.write((json.dumps(summary, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return summary


def _count_files(tokenizer, paths, workers, allowed_special, disallowed_special, block_size, progress):
    """``Tokenizer.count_files``: the tokens of each file, encoded as ``encode_files`` would, then counted."""
    paths, specials = _token_file_options(tokenizer, paths, workers, None, allowed_special, disallowed_special,
                                          block_size)
    _check_callback(progress, "progress")
    counts = [0] * len(paths)
    blocks = _file_blocks(paths, tokenizer.pattern, block_size, progress)
    for number, count in _block_results(tokenizer, paths, blocks, workers, specials, None):
        counts[number] += count
    return counts


# -- writing ---------------------------------------------------------------
#
# Every file this project writes (tokenizers, exports, trace artifacts, token
# files) goes through ``atomic_writer``: the data goes to a temporary file in
# the same folder, which is renamed over the target only once it is complete
# and on disk, so a reader sees the old file or the new, never half of one.
# A symbolic link is kept and its target is written; anything that exists
# and is not a regular file (a device such as /dev/null, a pipe, a folder) is
# refused, because renaming over it would replace it.


def check_output_path(path: PathLike, argument: str = "path") -> str:
    """Refuse, before any work, a path that cannot be written; return the file a write there replaces.

    That file is ``path`` itself, or the file a symbolic link leads to. A
    path that exists and is not a regular file (a device such as /dev/null,
    a pipe, a folder) is refused, and so is one in a folder that is missing.
    """
    path = _check_path(path, argument)
    if not path or path.endswith(os.sep):
        raise IsADirectoryError(errno.EISDIR, "not a file name (a file is needed here)", path)
    try:
        mode = os.stat(path).st_mode  # follows links, to see what would really be replaced
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "a folder (a file is needed here)", path)
    if mode is not None and not stat.S_ISREG(mode):
        raise ValueError(f"{_named(path)}: {_file_kind(mode)}; only a regular file is written, "
                         "so it was left as it was")
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"cannot write here: no folder {_named(folder)}", path)
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
    with _stopping_cleanly():
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


@contextlib.contextmanager
def _stopping_cleanly():
    """Let SIGTERM unwind the write (so its temporary file is removed), then end the process as SIGTERM does.

    Only where SIGTERM would simply end the process (its default action, in
    the main thread); a program that handles SIGTERM itself keeps its way.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def unwind(signal_number, frame):
        raise _Terminated

    signal.signal(signal.SIGTERM, unwind)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# --------------------------------------------------------------------------
# 8. Imports and exports
# --------------------------------------------------------------------------
#
# tiktoken keeps no merge list. Its file ranks every token (one line
# ``base64(token bytes) rank``), and to encode a chunk it repeatedly joins the
# two adjacent pieces whose *joined bytes* have the lowest rank. Importing
# means recovering a merge pair for every token: the two pieces tiktoken's
# own replay of the token's bytes, restricted to lower ranks, ends with.
#
# That replay is ordinary pair-by-pair BPE in disguise. Suppose every token
# below rank r is built by its replay from exactly two pieces, its pair.
# Then whenever tiktoken's replay joins two pieces into a token T of rank
# below r, those pieces are T's pair: they tile T's bytes, and every join
# inside them happened in rank order with nothing crossing their edge, which
# is T's own replay. So tiktoken's replay and ``encode_chunk`` with the pairs
# recovered so far make the same choices. Taking the tokens in rank order,
# each step may therefore reason about pairs, never about bytes.
#
# Which pair? For T = A + B (both older tokens), replaying T's bytes runs
# A's replay and B's side by side until a merge joins a piece of A's part to
# a piece of B's, and it ends in [A, B] exactly when no such crossing ever
# happens. The piece of A's part touching the edge is A's last piece, then
# its right part, then that one's right part, down to one byte (A's "right
# spine"), each there from the rank it was made until the rank of its
# parent; B's edge pieces likewise go down B's left parts. A crossing is a
# merge (X, Y) of rank w, below T's, with X and Y at the edge together when
# w comes: w below X's parent and no later than Y's (on a tie, the merge on
# the left, A's, goes first). ``_keeps_pair`` walks the two spines down
# together, one dictionary look-up per step. Of the ways to cut T into two
# older tokens, at most one passes (the replay is deterministic), so an
# import tries them, longest first part first, and a file where none passes
# is refused. A long token is replayed with ``encode_chunk`` instead, since
# trying each cut copies the token each time: time quadratic in its length.
# An export checks each of our merges with ``_keeps_pair``. Long spines
# make a walk long; real vocabularies need a few steps (13 at most on
# cl100k and o200k), and vocabularies built to defeat it cost quadratic time.


def _keeps_pair(left, right, merged_id, parts, rank):
    """Whether tiktoken's replay of ``left + right``'s bytes, with the merges below ``rank``, ends in [left, right].

    IDs are ranks: 0-255 the single bytes (there from the start), then one
    per merge, whose parts are ``parts[id]``. ``merged_id`` holds the merges
    below ``rank`` only.
    """
    x, x_until = left, rank  # the edge piece of the left part, and when it gets merged into its parent
    y, y_until = right, sys.maxsize
    while x >= 256 or y >= 256:  # (left, right) itself is no merge yet: start one step down
        if x > y:  # made later: its parts were at the edge before it
            x, x_until = parts[x][1], x
        else:
            y, y_until = parts[y][0], y
        crossing = merged_id.get((x, y))
        if crossing is not None and crossing < x_until and crossing <= y_until:
            return False
    return True


def _recover_pairs(token_bytes, path, line_numbers, replay_from=64):
    """Each token's merge pair (by rank: ``parts[rank]``), as tiktoken's replay builds it; or a ``ValueError``
    naming the file ``path`` and the token's line (``line_numbers[rank]``).

    A token shorter than ``replay_from`` bytes tries its cuts with
    ``_keeps_pair`` (fast on real vocabularies); a longer one is replayed with
    ``encode_chunk``, which takes n log n time where trying every cut of a
    long token would take quadratic time. Both find the same pair (see above).
    """
    rank_of = {token: rank for rank, token in enumerate(token_bytes)}
    single_ids = bytes(rank_of[byte] for byte in SINGLE_BYTES)  # a bytes.translate table: byte -> its rank
    parts = [None] * len(token_bytes)
    merged_id = {}
    for rank in range(256, len(token_bytes)):
        token = token_bytes[rank]
        pair = _pair_by_cuts(token, rank, rank_of, merged_id, parts) if len(token) < replay_from else None
        if pair is None:
            pair = encode_chunk(token.translate(single_ids), merged_id)
            if len(pair) != 2:
                raise ValueError(
                    f"{_named(path)}: line {line_numbers[rank]}: tiktoken builds {_shown(token)} from {len(pair):,} pieces of "
                    f"lower rank ({_listed((token_bytes[piece] for piece in pair), ' + ')}), not from a pair, so no "
                    "merge list can give the same tokens"
                )
        parts[rank] = tuple(pair)
        merged_id[parts[rank]] = rank
    return parts


def _pair_by_cuts(token, rank, rank_of, merged_id, parts):
    """The cut of ``token`` into two older tokens that tiktoken's replay keeps, longest first part first; or None."""
    for cut in range(len(token) - 1, 0, -1):
        left = rank_of.get(token[:cut], rank)
        if left < rank:
            right = rank_of.get(token[cut:], rank)
            if right < rank and (len(token) == 2 or _keeps_pair(left, right, merged_id, parts, rank)):
                return left, right
    return None


def _load_tiktoken(cls, path, pattern, special_tokens):
    """Read and check a tiktoken ranks file, recover its merges, and build the byte-level tokenizer."""
    _check_pattern(pattern)
    if special_tokens is not None and not isinstance(special_tokens, dict):
        raise TypeError(f"special_tokens must be a dict of text -> ID, or None, not {type(special_tokens).__name__}")
    data = read_file_bytes(path)
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, path)
    token_bytes, line_numbers = _parse_ranks(data, path)
    display = [bytes_to_display(token) for token in token_bytes]
    merges = [(display[left], display[right]) for left, right in _recover_pairs(token_bytes, path, line_numbers)[256:]]
    try:
        return cls(display[:256], merges, byte_level=True, pattern=pattern, special_tokens=special_tokens or {})
    except ValueError as error:
        raise ValueError(f"{_named(path)}: {error}") from None


def _parse_ranks(data, path):
    """The token bytes of a ``.tiktoken`` file and the line each is on, by rank; malformed lines are refused.

    Each line holds the canonical base64 of a token and its rank in ASCII
    digits, separated by whitespace (as tiktoken reads it: line ends may be
    ``\\r\\n``, and empty lines are skipped); the ranks are 0 to the number of
    tokens - 1, each once, and ranks 0-255 are the 256 single bytes (in any
    order).
    """
    lines = [(number, line) for number, line in enumerate(data.splitlines(), 1) if line]
    token_bytes = [None] * len(lines)
    line_numbers = [None] * len(lines)
    for number, line in lines:
        fields = line.split()
        try:
            token = binascii.a2b_base64(fields[0])
            rank = int(fields[1]) if len(fields) == 2 and fields[1].isdigit() else None  # not "+1" or "1_0"
        except (binascii.Error, ValueError, IndexError):
            token = rank = None
        if not token or rank is None or binascii.b2a_base64(token, newline=False) != fields[0]:
            raise ValueError(f"{_named(path)}: line {number}: expected 'base64-token rank', found {_shown(line)}")
        if not 0 <= rank < len(lines) or token_bytes[rank] is not None:
            raise ValueError(f"{_named(path)}: line {number}: rank {_shown(rank)} must be new and below "
                             f"{len(lines):,} (the ranks are 0 to the number of tokens - 1, each once)")
        token_bytes[rank], line_numbers[rank] = token, number
    if len(set(token_bytes)) != len(token_bytes):
        line_of = {}
        for number, line in lines:
            token = binascii.a2b_base64(line.split()[0])
            if token in line_of:
                raise ValueError(f"{_named(path)}: line {number}: the token {_shown(token)} is on line "
                                 f"{line_of[token]} too; each token has one rank")
            line_of[token] = number
    if sorted(token_bytes[:256]) != SINGLE_BYTES:
        raise ValueError(f"{_named(path)}: ranks 0-255 must be the 256 single bytes (in any order)")
    return token_bytes, line_numbers


def _tiktoken_arguments(tokenizer):
    """Keyword arguments for ``tiktoken.Encoding``, checked to give the same IDs as ``tokenizer``.

    tiktoken is byte-level only, and ranks joined bytes rather than pairs
    (see above): a hand-made merge list can build a token from two
    different splits, and such a list is refused. So are special tokens
    where one begins another (``<a`` and ``<a>``): which one tiktoken
    matches depends on the order its table happens to hold.
    """
    if not tokenizer.byte_level:
        raise ValueError("tiktoken works on bytes: only a byte-level tokenizer (byte_level=True) can be exported")
    specials = sorted(tokenizer.special_tokens)
    for shorter, longer in zip(specials, specials[1:]):
        if longer.startswith(shorter):
            raise ValueError(
                f"special token {_shown(shorter)} begins {_shown(longer)}: tiktoken has no fixed rule for which "
                "of the two it matches, so this tokenizer cannot be exported to it"
            )
    token_bytes = tokenizer._decoded[:len(tokenizer.ids)]
    ids = tokenizer.ids
    parts = [None] * 256 + [(ids[left], ids[right]) for left, right in tokenizer.merges]
    merged_id = {}
    for rank in range(256, len(token_bytes)):
        left, right = parts[rank]
        if not _keeps_pair(left, right, merged_id, parts, rank):
            pieces = encode_chunk(token_bytes[rank].translate(tokenizer._byte_ids), merged_id)
            raise ValueError(
                f"tiktoken would build {_shown(tokenizer.vocab[rank])} as "
                f"{_listed((tokenizer.vocab[piece] for piece in pieces), ' + ')}, not "
                f"{_shown(tokenizer.vocab[left])} + {_shown(tokenizer.vocab[right])}: it ranks joined bytes, not "
                "pairs, so this merge list cannot be exported"
            )
        merged_id[(left, right)] = rank
    return {
        "name": "bpe-lab",
        "pat_str": pattern_source(tokenizer.pattern, "rust"),
        "mergeable_ranks": {token: rank for rank, token in enumerate(token_bytes)},
        "special_tokens": dict(tokenizer.special_tokens),
    }


# Hugging Face's ``tokenizer.json`` describes a pipeline: a normalizer, a
# pre-tokenizer (our chunk pattern), a model (BPE: a vocabulary and a merge
# list), a post-processor and a decoder. We write BPE models with our own
# pattern as a ``Split`` pre-tokenizer, and read those back, as well as the
# GPT-2 kind: a ``ByteLevel`` pre-tokenizer with its built-in regex, which is
# GPT-2's pattern (``gpt2`` here; its \s leaves out U+001C-001F, which
# Python's counts). IDs must be laid out as ours are: the 256 bytes (in any
# order) or ``<unk>`` and the sorted alphabet, then one ID per merge in
# order, then the special ("added") tokens.


def _huggingface_body(tokenizer):
    """A Hugging Face ``tokenizer.json`` body that gives our IDs, tokens and decoded text."""
    split = {
        "type": "Split",
        "pattern": {"Regex": pattern_source(tokenizer.pattern, "oniguruma")},
        "behavior": "Isolated",
        "invert": False,
    }
    if tokenizer.byte_level:
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
        pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, byte_level]}
        decoder = byte_level
    else:
        pre_tokenizer = split
        decoder = {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": UNK}, "content": REPLACEMENT_CHARACTER},
            {"type": "Fuse"},
        ]}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": token_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for text, token_id in tokenizer.special_tokens.items()
        ],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None if tokenizer.byte_level else UNK,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": dict(tokenizer.ids),
            "merges": [[left, right] for left, right in tokenizer.merges],
        },
    }


def _load_huggingface(cls, path):
    """Read a Hugging Face ``tokenizer.json`` and build the tokenizer it describes, or say what is unsupported."""
    data = read_json(path)
    try:
        return _from_huggingface_body(cls, data)
    except ValueError as error:
        raise ValueError(f"{_named(path)}: {error}") from None


def _from_huggingface_body(cls, data):
    """The tokenizer a Hugging Face body describes, if it is one we can give the same IDs as."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise ValueError("not a Hugging Face tokenizer.json: no 'model' object")
    model = data["model"]
    _check_plain_bpe(data, model)
    byte_level, pattern = _huggingface_pre_tokenizer(data.get("pre_tokenizer"))
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise ValueError("the model needs a 'vocab' object and a 'merges' list")
    merges = [merge.split(" ") if isinstance(merge, str) else merge for merge in merges]
    specials = _huggingface_added_tokens(data.get("added_tokens", []))
    ordinary = {token: token_id for token, token_id in vocab.items() if specials.get(token) != token_id}
    alphabet = _huggingface_alphabet(ordinary, len(merges), byte_level)
    tokenizer = cls(alphabet, merges, byte_level=byte_level, pattern=pattern, special_tokens=specials)
    for token, token_id in ordinary.items():
        if tokenizer.ids.get(token) != token_id:
            raise ValueError(f"the merges do not make the vocabulary's tokens in ID order: {_shown(token)} has ID "
                             f"{token_id}, but the merges make it {tokenizer.ids.get(token)}")
    return tokenizer


def _check_plain_bpe(data, model):
    """Refuse a pipeline that does more than plain byte-pair encoding: other models, options, text changes."""
    if model.get("type") != "BPE":
        raise ValueError(f"model type {_shown(model.get('type'))} is not supported: only BPE models can be imported")
    for option, harmless in [("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                             ("end_of_word_suffix", (None, "")), ("byte_fallback", (None, False)),
                             ("ignore_merges", (None, False))]:
        if model.get(option) not in harmless:
            raise ValueError(f"the model's {option} is {_shown(model.get(option))}; only plain BPE is supported")
    if data.get("normalizer") not in (None, {"type": "Sequence", "normalizers": []}):
        raise ValueError(f"normalizer {_shown(data.get('normalizer'))} changes the text before it is split; unsupported")
    post = data.get("post_processor")
    if post is not None and (not isinstance(post, dict) or post.get("type") != "ByteLevel"):
        raise ValueError(f"post_processor {_shown(post)} adds or changes tokens after encoding; unsupported")


def _huggingface_alphabet(ordinary, merge_count, byte_level):
    """The base tokens of a vocabulary laid out as ours are: base tokens, then one ID per merge."""
    by_id = {}
    for token, token_id in ordinary.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id in by_id:
            raise ValueError(f"vocab entry {_shown(token)} has ID {_shown(token_id)}; IDs must be distinct ints")
        by_id[token_id] = token
    base_size = len(by_id) - merge_count
    if sorted(by_id) != list(range(len(by_id))) or base_size != (256 if byte_level else max(base_size, 1)):
        raise ValueError(
            "IDs are not laid out as supported: the base tokens (256 bytes, or <unk> and the alphabet), then one "
            "per merge in order, then the added tokens (a vocabulary in another order, such as RoBERTa's, is not)"
        )
    if byte_level:
        return [by_id[token_id] for token_id in range(256)]
    if by_id[0] != UNK:
        raise ValueError(f"a character-level model must have {UNK} as ID 0, not {_shown(by_id[0])}")
    return [by_id[token_id] for token_id in range(1, base_size)]


def _huggingface_pre_tokenizer(pre_tokenizer):
    """``(byte_level, pattern)`` for a pre-tokenizer we can match: GPT-2's ByteLevel, or our own Split."""

    def pattern_named(split):
        regex = split.get("pattern", {}).get("Regex") if isinstance(split.get("pattern"), dict) else None
        for name in PATTERNS:
            if regex == pattern_source(name, "oniguruma") and split.get("behavior") == "Isolated" \
                    and not split.get("invert"):
                return name
        raise ValueError(f"Split pre-tokenizer {_shown(split)} is not one of our built-in patterns; unsupported")

    def byte_level_step(step, use_regex):
        return (isinstance(step, dict) and step.get("type") == "ByteLevel" and not step.get("add_prefix_space")
                and step.get("use_regex", True) == use_regex)

    if byte_level_step(pre_tokenizer, True):
        return True, "gpt2"
    kind = pre_tokenizer.get("type") if isinstance(pre_tokenizer, dict) else None
    if kind == "Split":
        return False, pattern_named(pre_tokenizer)
    steps = pre_tokenizer.get("pretokenizers") if kind == "Sequence" else None
    if isinstance(steps, list) and len(steps) == 2 \
            and isinstance(steps[0], dict) and steps[0].get("type") == "Split" and byte_level_step(steps[1], False):
        return True, pattern_named(steps[0])
    raise ValueError(
        f"pre_tokenizer {_shown(pre_tokenizer)} is not supported: only GPT-2's ByteLevel (without a prefix space) "
        "and the Split patterns this module writes"
    )


def _huggingface_added_tokens(added_tokens):
    """The added tokens as special tokens (text -> ID); ones that match unusually are refused."""
    if not isinstance(added_tokens, list):
        raise ValueError("added_tokens must be a list")
    specials = {}
    for added in added_tokens:
        if not isinstance(added, dict) or any(added.get(flag) for flag in ("single_word", "lstrip", "rstrip")):
            raise ValueError(f"added token {_shown(added)} matches with extra rules (lstrip, rstrip, single_word); "
                             "unsupported")
        text = added.get("content")
        if not isinstance(text, str):
            raise ValueError(f"added token {_shown(added)}: its content must be a string")
        if text in specials:  # Hugging Face keeps the first; a file that says both is not one we can trust
            raise ValueError(f"added token {_shown(text)} is listed twice")
        specials[text] = added.get("id")
    return specials


if __name__ == "__main__":
    from bpe_cli import main

    sys.exit(main())
