"""A byte-pair-encoding (BPE) tokenizer lab, in one readable module.

BPE builds a vocabulary bottom-up. It starts from single characters (or the
256 byte values), counts which two adjacent tokens occur together most often
in the training text, glues that pair into a new token, and repeats. Encoding
new text replays the learned merges, earliest first, so frequent words become
one token and rare words fall back to smaller pieces.

The module reads top to bottom:

1. constants and chunking (how text is cut before any merging),
2. the training engine (which pairs to merge): the simple definition and the
   fast incremental version that gives the same result,
3. the encoder (how one chunk is split with the learned merges), likewise,
4. the ``Tokenizer`` API that later lessons import,
5. file I/O (the versioned JSON format and atomic writes),
6. the command line (``python3 bpe.py --help``),

followed by generated data: the Unicode character classes the chunk patterns
are built from. Only the standard library is used.
"""

import argparse
import contextlib
import errno
import functools
import heapq
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from itertools import accumulate, chain

# --------------------------------------------------------------------------
# 1. Constants and chunking
# --------------------------------------------------------------------------

UNK = "<unk>"
"""The token for characters the alphabet does not contain; always ID 0."""

REPLACEMENT_CHARACTER = "\N{REPLACEMENT CHARACTER}"
"""What ID 0 decodes to, so a reader can see where text was lost."""

FORMAT_VERSION = 1
"""The version of the JSON file the lab's tokenizer is saved in (see ``to_json``)."""

READABLE_FORMATS = (1, 2)
"""The file versions ``load`` reads. Format 2 adds what format 1 cannot say:
the byte level, other chunk patterns, special tokens."""

BLOCK_SIZE = 1 << 20
"""How many characters are chunked at a time, so that a long text never
becomes one huge list of chunk strings in memory."""

CACHE_LIMIT = 1 << 16
"""How many encoded chunks a tokenizer remembers; the cache starts afresh
when it grows past this (plus at most one block's worth of chunks)."""

# Chunk patterns, by name. Merges never cross chunk boundaries, so " the"
# can become a token but "the park" cannot. A file names its pattern rather
# than storing a regular expression, so a file cannot smuggle in a slow one.
#
# The placeholders are filled in with explicit code-point ranges (generated
# data at the end of this module) rather than \s, \p{L} or \p{N}: engines
# and Unicode versions disagree on those, and spelling the classes out makes
# Python, tiktoken and Hugging Face split text alike. {space} is the inside
# of a [...] class; {letter}, {number} and {other} match one character each.
PATTERN_TEMPLATES = {
    # The lab's pattern: runs of ASCII letters and digits, runs of other
    # symbols, runs of whitespace; the first two may carry one leading space.
    "lab": " ?[A-Za-z0-9]+| ?[^A-Za-z0-9{space}]+|[{space}]+",
    # GPT-2's rules for any script: common English contractions, letter runs
    # and number runs with an optional leading space, runs of other symbols,
    # and whitespace runs, which leave their last space to a following word.
    "gpt2": (
        "'s|'t|'re|'ve|'m|'ll|'d| ?{letter}+| ?{number}+| ?{other}+"
        "|[{space}]+(?![^{space}])|[{space}]+"
    ),
}
DEFAULT_PATTERN = {"characters": "lab", "bytes": "gpt2"}

# A safe cut is a place where a non-space character is followed by
# whitespace. No chunk of either pattern spans such a place (a letter,
# number or symbol run cannot take in whitespace, and a whitespace run cannot
# take in the character before it), and neither pattern looks behind, so
# cutting the text there and chunking both halves gives exactly the chunks of
# the whole. Searched for in the reversed text it reads "space, non-space".
REVERSED_SAFE_CUT_TEMPLATE = "[{space}][^{space}]"


def _escape_code_point(code, syntax):
    """One code point as a regex escape: ``\\uXXXX`` for Python, ``\\x{X}`` for Rust and Oniguruma."""
    if syntax == "python":
        return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"
    return f"\\x{{{code:X}}}"


def character_class(ranges_text, syntax):
    """The inside of a ``[...]`` class for ranges written as ``0041-005A 00AA ...``."""
    parts = []
    for item in ranges_text.split():
        first, _, last = item.partition("-")
        part = _escape_code_point(int(first, 16), syntax)
        if last:
            part += "-" + _escape_code_point(int(last, 16), syntax)
        parts.append(part)
    return "".join(parts)


def pattern_source(name, syntax="python"):
    """The regular expression of a named pattern, in the syntax of ``python``, ``rust`` or ``oniguruma``.

    tiktoken's engine (Rust) and Hugging Face's (Oniguruma) both read code
    points as ``\\x{...}``, so they share one spelling.
    """
    return _fill_classes(PATTERN_TEMPLATES[name], syntax)


def _split_planes(ranges_text):
    """Ranges text cut in two: the part inside the Basic Multilingual Plane, and the part above it."""
    basic, astral = [], []
    for item in ranges_text.split():
        (basic if int(item.split("-")[0], 16) <= 0xFFFF else astral).append(item)
    return " ".join(basic), " ".join(astral)


def _fill_classes(template, syntax):
    """Put the explicit character classes into a pattern template.

    Each class is split at U+FFFF, because Python's ``re`` checks a class
    that reaches above it one range at a time, while a class within the
    Basic Multilingual Plane is one table look-up: five times faster on
    ordinary text. The part above is only tried for characters up there.
    """
    def inside(ranges_text):
        return character_class(ranges_text, syntax)

    letter_basic, letter_astral = _split_planes(LETTER_RANGES)
    number_basic, number_astral = _split_planes(NUMBER_RANGES)
    above = inside("10000-10FFFF")
    space = inside(SPACE_RANGES)
    return template.format(
        space=space,
        letter=f"(?:[{inside(letter_basic)}]|(?=[{above}])[{inside(letter_astral)}])",
        number=f"(?:[{inside(number_basic)}]|(?=[{above}])[{inside(number_astral)}])",
        other=(
            f"(?:[^{space}{inside(letter_basic)}{inside(number_basic)}{above}]"
            f"|(?=[{above}])[^{inside(letter_astral)}{inside(number_astral)}])"
        ),
    )


def _check_pattern(pattern):
    """Refuse a pattern that is not the name of a built-in one."""
    if not isinstance(pattern, str) or pattern not in PATTERN_TEMPLATES:
        known = ", ".join(repr(name) for name in sorted(PATTERN_TEMPLATES))
        raise ValueError(f"unknown pattern {pattern!r}: the built-in patterns are {known}")


@functools.lru_cache(maxsize=None)
def class_regex(template):
    """A template filled with the character classes, compiled for Python once, on first use.

    Compiling waits until first use because the classes are data at the end
    of this module, and because the large classes take a moment to compile.
    """
    return re.compile(_fill_classes(template, "python"))


def compiled(pattern):
    """The compiled Python regex of a named chunk pattern."""
    _check_pattern(pattern)
    return class_regex(PATTERN_TEMPLATES[pattern])


def chunks(text, pattern="lab"):
    """Cut ``text`` into the chunks that merges may not cross.

    Every character belongs to exactly one chunk, so joining the chunks
    gives the text back; we check that, because a pattern that silently
    dropped characters would make decoding lose text.
    """
    found = compiled(pattern).findall(text)
    if "".join(found) != text:
        raise AssertionError("chunks do not concatenate back to the text")
    return found


def last_safe_cut(text):
    """The last position in ``text`` where whitespace follows a non-space character, or -1.

    Searching the reversed text finds it near the end without reading the
    rest; a copy of a block is cheap next to chunking it.
    """
    match = class_regex(REVERSED_SAFE_CUT_TEMPLATE).search(text[::-1])
    return -1 if match is None else len(text) - 1 - match.start()


def safe_pieces(blocks):
    """Regroup a stream of text blocks into pieces that end at safe cuts.

    ``blocks`` may be cut anywhere (fixed-size reads of a file, say); the
    pieces yielded join up to the same text, but each ends where a chunk
    must end, so chunking piece by piece equals chunking the whole text.
    Text with no safe cut (one endless word) is held until one comes.
    """
    pending = []
    for block in blocks:
        if not block:
            continue
        before = pending[-1][-1:] if pending else ""
        cut = last_safe_cut(before + block) - len(before)
        if cut < 0:
            pending.append(block)
            continue
        pending.append(block[:cut])
        yield "".join(pending)
        pending = [block[cut:]]
    if pending:
        yield "".join(pending)


def text_blocks(text, block_size=BLOCK_SIZE):
    """A long string as consecutive slices of ``block_size`` characters."""
    for start in range(0, len(text), block_size):
        yield text[start:start + block_size]


def count_chunks(pieces, pattern="lab"):
    """Count each distinct chunk over pieces that end at safe cuts."""
    chunk_counts = Counter()
    for piece in pieces:
        chunk_counts.update(chunks(piece, pattern))
    return chunk_counts


# Byte-level tokens are byte strings, and many bytes (space, newline, the
# pieces of a multi-byte character) do not print. GPT-2 shows each byte as
# one printable character: the printable Latin-1 bytes stand for themselves
# and the other 68 take the characters from U+0100 on, in byte order, so a
# space shows as "Ġ" and a newline as "Ċ". Tokens are shown, stored and
# merged in that form; the bytes come back with ``display_to_bytes``.


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


def bytes_to_display(data):
    """Bytes as their GPT-2 display characters: ``b" hi"`` -> ``"Ġhi"``."""
    return "".join([BYTE_TO_CHAR[byte] for byte in data])


def display_to_bytes(text):
    """The bytes a display string stands for: ``"Ġhi"`` -> ``b" hi"``."""
    return bytes([CHAR_TO_BYTE[char] for char in text])


SURROGATE = re.compile(r"[\ud800-\udfff]")


def replace_lone_surrogates(text):
    """Replace lone surrogates (which UTF-8 cannot encode) with U+FFFD, as tiktoken does.

    A high and a low surrogate that stand next to each other are read as the
    one character they encode in UTF-16; any other surrogate becomes U+FFFD.
    """
    if not SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# --------------------------------------------------------------------------
# 2. The training engine
# --------------------------------------------------------------------------
#
# Training sees the text only as ``chunk_counts``: each distinct chunk, as a
# sequence of tokens, with how often it occurs. Counting a pair inside a chunk
# that occurs 500 times is the same as counting it 500 times.
#
# ``reference_train`` is the definition, written as simply as possible.
# ``train_merges`` gives identical results much faster, and is what
# ``Tokenizer`` uses; the tests hold the two against each other.


def merge_pair(tokens, pair):
    """Replace every non-overlapping occurrence of ``pair`` in ``tokens``, left to right.

    ``("a", "a", "a")`` with the pair ``("a", "a")`` gives ``("aa", "a")``:
    once the first two are glued, the third has no partner left.
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


def count_pairs(chunk_counts):
    """Count each adjacent pair of tokens, weighted by how often its chunk occurs."""
    pair_counts = Counter()
    for tokens, count in chunk_counts.items():
        for pair in zip(tokens, tokens[1:]):
            pair_counts[pair] += count
    return pair_counts


def best_pair(pair_counts):
    """The most frequent pair; among equals, the smallest pair in code-point order.

    The explicit tie rule makes training give the same merges on every
    machine, whatever order the dictionary happens to hold.
    """
    return min(pair_counts, key=lambda pair: (-pair_counts[pair], pair))


def reference_train(chunk_counts, max_merges, progress=None):
    """Learn up to ``max_merges`` merges the simple way: recount every pair after each merge.

    Returns a list of ``(pair, count)`` in the order learned. Training stops
    early when no pair occurs at least twice, because merging a pair seen
    once would only memorise the training text.
    """
    current = {tuple(tokens): count for tokens, count in chunk_counts.items()}
    learned = []
    while len(learned) < max_merges:
        pair_counts = count_pairs(current)
        if not pair_counts:
            break
        pair = best_pair(pair_counts)
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


# The fast trainer gives each token a one-character code, so that a chunk is
# a short string and merging a pair everywhere in it is ``str.replace``:
# Python's replace works left to right without overlaps, exactly the merge
# rule, and runs in C. Codes follow creation order: the base tokens first,
# then one new code per merge.


def _code_words(chunk_counts):
    """Code the chunks as strings, one character per base token.

    Returns ``(tokens, words, weights)``: ``tokens`` lists the base tokens by
    code, ``words[i]`` is a coded chunk and ``weights[i]`` how often it occurs.
    Chunks of one token are left out: they hold no pair.
    """
    tokens = sorted({token for chunk in chunk_counts for token in chunk})
    code_of = {token: chr(code) for code, token in enumerate(tokens)}
    words, weights = [], []
    for chunk, count in chunk_counts.items():
        if len(chunk) > 1:
            words.append("".join([code_of[token] for token in chunk]))
            weights.append(count)
    return tokens, words, weights


def _index_pairs(words, weights):
    """Count every adjacent pair of codes and list the words it occurs in.

    A word is listed once per occurrence; a word visited twice for the same
    merge simply no longer holds the pair the second time.
    """
    pair_counts = {}
    pair_words = {}
    for index, word in enumerate(words):
        weight = weights[index]
        for start in range(len(word) - 1):
            pair = word[start:start + 2]
            if pair in pair_counts:
                pair_counts[pair] += weight
                pair_words[pair].append(index)
            else:
                pair_counts[pair] = weight
                pair_words[pair] = [index]
    return pair_counts, pair_words


def _merge_everywhere(pair, new, words, weights, pair_counts, pair_words):
    """Merge ``pair`` into the code ``new`` in every word holding it; update counts locally.

    Only the neighbours of each merged occurrence change: with ``x a b y``
    becoming ``x N y``, the pairs ``x a`` and ``b y`` lose the word's weight
    and ``x N`` and ``N y`` gain it. When two occurrences touch (``a b a b``
    becoming ``N N``), the pair between them was ``b a`` and becomes ``N N``.
    Returns the counts of the pairs that contain ``new``: all are new pairs.
    """
    a, b = pair
    between = b + a
    created = {}
    for index in pair_words.pop(pair):
        word = words[index]
        if pair not in word:
            continue
        weight = weights[index]
        word = word.replace(pair, new)
        words[index] = word
        last = len(word) - 1
        position = word.find(new)
        while position >= 0:
            if position > 0:
                before = word[position - 1]
                lost = between if before == new else before + a
                pair_counts[lost] -= weight
                gained = before + new
                created[gained] = created.get(gained, 0) + weight
                pair_words.setdefault(gained, []).append(index)
            if position < last:
                after = word[position + 1]
                if after != new:
                    pair_counts[b + after] -= weight
                    gained = new + after
                    created[gained] = created.get(gained, 0) + weight
                    pair_words.setdefault(gained, []).append(index)
            position = word.find(new, position + 1)
    del pair_counts[pair]
    return created


def train_merges(chunk_counts, max_merges, progress=None, on_learn=None):
    """Learn exactly what ``reference_train`` learns, updating counts incrementally.

    Instead of recounting every pair after each merge, it keeps the count of
    every pair and the words each pair occurs in; a merge then touches only
    those words, and only the pairs next to each merged occurrence. The most
    frequent pair comes from a heap ordered by (-count, pair), which gives
    the same tie rule as ``best_pair``. Counts only fall after a pair first
    appears, so an entry whose count has fallen is pushed back with its
    current count when it surfaces (lazy invalidation).

    ``on_learn(rank, pair, count)``, if given, hears of each merge as soon as
    it is learned, so a long run can be watched.
    """
    tokens, words, weights = _code_words(chunk_counts)
    pair_counts, pair_words = _index_pairs(words, weights)
    heap = [(-count, (tokens[ord(pair[0])], tokens[ord(pair[1])]), pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    learned = []
    while len(learned) < max_merges and heap:
        negative_count, token_pair, pair = heapq.heappop(heap)
        count = pair_counts.get(pair, 0)
        if count != -negative_count:
            if count > 0:
                heapq.heappush(heap, (-count, token_pair, pair))
            continue
        if count < 2:
            break
        if len(tokens) > sys.maxunicode:
            raise ValueError(f"cannot learn more than {len(learned)} merges: every token needs its own code point")
        learned.append((token_pair, count))
        if on_learn is not None:
            on_learn(len(learned) - 1, token_pair, count)
        new = chr(len(tokens))
        tokens.append(token_pair[0] + token_pair[1])
        created = _merge_everywhere(pair, new, words, weights, pair_counts, pair_words)
        pair_counts.update(created)
        for coded, count in created.items():
            if count > 0:
                heapq.heappush(heap, (-count, (tokens[ord(coded[0])], tokens[ord(coded[1])]), coded))
        report_progress(progress, len(learned), max_merges)
    report_progress(progress, len(learned), max_merges, finished=True)
    return learned


# --------------------------------------------------------------------------
# 3. The encoder
# --------------------------------------------------------------------------
#
# Encoding a chunk replays the merges. ``reference_encode`` is the
# definition; ``encode_chunk`` gives the same result in time that grows like
# n log n in the chunk's length, which matters for chunks of a million
# characters (a long run without spaces).


def reference_encode(tokens, merge_rank, on_step=None):
    """Split one chunk by replaying merges, the simple way.

    ``tokens`` starts as the chunk's characters. Repeatedly find the adjacent
    pair with the lowest rank (the earliest learned merge), merge *all* its
    non-overlapping occurrences left to right, and look again; stop when no
    adjacent pair is a merge. ``on_step(rank, pair, tokens)``, if given, is
    told about every step, which is how a learner can watch it happen.
    """
    tokens = tuple(tokens)
    while len(tokens) > 1:
        ranked = [(merge_rank[pair], pair) for pair in zip(tokens, tokens[1:]) if pair in merge_rank]
        if not ranked:
            break
        rank, pair = min(ranked)
        tokens = merge_pair(tokens, pair)
        if on_step is not None:
            on_step(rank, pair, tokens)
    return tokens


def encode_chunk(ids, merged_id):
    """Replay merges on one chunk's IDs, giving what ``reference_encode`` gives, in near-linear time.

    ``merged_id`` maps a pair of IDs to the ID of its merge. Merged IDs grow
    with merge rank, so the smallest merged ID present is the earliest merge.
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
        new = merged_id.get(pair)
        if new is not None:
            queues.setdefault(new, []).append(position)
    waiting = list(queues)
    heapq.heapify(waiting)
    while waiting:
        new = heapq.heappop(waiting)
        for left in queues.pop(new):
            right = after[left]
            if right >= end or ids[left] < 0 or merged_id.get((ids[left], ids[right])) != new:
                continue  # this occurrence was used up by an earlier merge
            ids[left] = new
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


# --------------------------------------------------------------------------
# 4. The Tokenizer API
# --------------------------------------------------------------------------

LEVELS = ("characters", "bytes")
SINGLE_BYTES = [bytes([byte]) for byte in range(256)]


def _check_alphabet(alphabet):
    """Refuse an alphabet that is not sorted, distinct, single characters without UNK."""
    if isinstance(alphabet, (str, bytes)) or not isinstance(alphabet, (list, tuple)):
        raise ValueError(f"alphabet must be a list of single characters, not {type(alphabet).__name__}")
    for position, char in enumerate(alphabet):
        if char == UNK:
            raise ValueError(f"alphabet must not contain {UNK!r}: it is always ID 0")
        if not isinstance(char, str) or len(char) != 1:
            raise ValueError(f"alphabet entry {position} is {char!r}; each entry must be one character")
        if SURROGATE.match(char):
            raise ValueError(f"alphabet entry {position} is the lone surrogate {char!r}, which no file can hold")
        if position and alphabet[position - 1] >= char:
            raise ValueError(
                f"alphabet must be sorted and distinct: {alphabet[position - 1]!r} comes before {char!r}"
            )


def _check_merges(merges, tokens):
    """Refuse merges that are not pairs of existing tokens making a new one.

    ``tokens`` is the set of tokens before the first merge; it grows as each
    merge is checked, because a merge may only use tokens that exist at that
    point in the list.
    """
    if isinstance(merges, (str, bytes)) or not isinstance(merges, (list, tuple)):
        raise ValueError(f"merges must be a list of [left, right] pairs, not {type(merges).__name__}")
    for rank, merge in enumerate(merges):
        if not isinstance(merge, (list, tuple)) or len(merge) != 2:
            raise ValueError(f"merge {rank} is {merge!r}; each merge must be a [left, right] pair")
        left, right = merge
        if not isinstance(left, str) or not isinstance(right, str):
            raise ValueError(f"merge {rank} is {merge!r}; both parts must be strings")
        for part in (left, right):
            if part not in tokens or part == UNK:
                raise ValueError(
                    f"merge {rank} ({left!r}, {right!r}) uses {part!r}, which is not a token at that point"
                )
        if left + right in tokens:
            raise ValueError(
                f"merge {rank} ({left!r}, {right!r}) makes {left + right!r}, which is already a token"
            )
        tokens.add(left + right)


def _check_special_tokens(special_tokens, vocab):
    """Refuse special tokens that are not distinct, non-empty strings new to the vocabulary.

    They may not contain whitespace: text is cut for training and encoding
    only where whitespace follows other characters, and a special token must
    never be cut in two.
    """
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, (list, tuple)):
        raise ValueError(f"special_tokens must be a list of strings, not {type(special_tokens).__name__}")
    taken = set(vocab)
    for text in special_tokens:
        if not isinstance(text, str) or not text:
            raise ValueError(f"special token {text!r} must be a non-empty string")
        if class_regex("[{space}]").search(text):
            raise ValueError(f"special token {text!r} must not contain whitespace")
        if SURROGATE.search(text):
            raise ValueError(f"special token {text!r} holds a lone surrogate, which has no UTF-8 form")
        if text in taken:
            raise ValueError(f"special token {text!r} is already a token")
        taken.add(text)


def _check_text(text):
    """Refuse anything but a str as text to train on or encode."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")


def _check_vocab_size(vocab_size):
    """Refuse a vocab_size that is not an int (a bool is not a size either)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")


def _check_chunk_counts(chunk_counts, pattern, level, special_tokens):
    """Refuse chunk counts whose keys are not single chunks or whose counts are not positive ints.

    A key holding a special token's text is refused too: ``train`` leaves that
    text out of the counts, so whoever counted must do the same.
    """
    if not isinstance(chunk_counts, dict):
        raise TypeError(f"chunk_counts must be a dict of chunk -> count, not {type(chunk_counts).__name__}")
    for chunk, count in chunk_counts.items():
        for special in special_tokens:
            if isinstance(chunk, str) and special in chunk:
                raise ValueError(
                    f"chunk_counts key {chunk!r} holds the special token {special!r}; "
                    "cut special tokens out of the text before counting"
                )
        if not isinstance(chunk, str) or chunks(chunk, pattern) != [chunk]:
            raise ValueError(f"chunk_counts key {chunk!r} is not exactly one chunk (see bpe.chunks)")
        if level == "bytes" and SURROGATE.search(chunk):
            raise ValueError(f"chunk_counts key {chunk!r} holds a lone surrogate, which has no UTF-8 bytes")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"chunk_counts[{chunk!r}] is {count!r}; counts must be positive ints")


def _training_options(byte_level, special_tokens, pattern):
    """Check the options every training entry point shares; return (level, pattern, specials)."""
    if not isinstance(byte_level, bool):
        raise TypeError(f"byte_level must be True or False, not {byte_level!r}")
    level = "bytes" if byte_level else "characters"
    pattern = DEFAULT_PATTERN[level] if pattern is None else pattern
    _check_pattern(pattern)
    _check_special_tokens(special_tokens, [])
    return level, pattern, list(special_tokens)


def _special_token_regex(texts):
    """A regex matching any of ``texts``, the longest first where one starts another."""
    return re.compile("|".join(re.escape(text) for text in sorted(texts, key=lambda text: (-len(text), text))))


def _without_special_tokens(pieces, special_tokens):
    """The pieces with every special token's text cut out, so training never counts it."""
    if not special_tokens:
        yield from pieces
        return
    finder = _special_token_regex(special_tokens)
    for piece in pieces:
        yield from finder.split(piece)


def _tiktoken_split(data, ranks, limit):
    """How tiktoken splits ``data`` with the tokens ranked below ``limit``.

    tiktoken does not keep a merge list: it repeatedly joins the adjacent
    pieces whose *joined bytes* have the lowest rank. Used only to check that
    an export to tiktoken will give the same tokens as this module.
    """
    pieces = [data[start:start + 1] for start in range(len(data))]
    while len(pieces) > 1:
        joined = [ranks.get(pieces[i] + pieces[i + 1], limit) for i in range(len(pieces) - 1)]
        lowest = min(joined)
        if lowest >= limit:
            break
        where = joined.index(lowest)
        pieces[where:where + 2] = [pieces[where] + pieces[where + 1]]
    return pieces


class SpecialTokenInText(ValueError):
    """``encode`` found a special token's text that it was not told to allow."""

    def __init__(self, token):
        self.token = token
        super().__init__(
            f"text contains the special token {token!r}; pass allowed_special={{{token!r}}} to encode it "
            "as a special token, or disallowed_special=() to encode it as ordinary text"
        )


class Tokenizer:
    """A trained (or loaded) BPE vocabulary that encodes text to IDs and back.

    IDs are fixed by the content. At the character level: ID 0 is
    ``<unk>``, then the alphabet in sorted order. At the byte level: IDs 0-255
    are the byte values. Then one token per merge in the order learned, then
    the special tokens in the order given.

    Byte-level tokens are shown (in ``vocab``, ``merges``, ``tokens()`` and
    files) through GPT-2's table of printable characters, so ``"Ġthe"`` is
    the bytes of " the".
    """

    def __init__(self, alphabet, merges, *, level="characters", pattern=None, special_tokens=()):
        """Build a tokenizer from an alphabet (None at the byte level) and a merge list, checking both."""
        if level not in LEVELS:
            raise ValueError(f"level must be 'characters' or 'bytes', not {level!r}")
        pattern = DEFAULT_PATTERN[level] if pattern is None else pattern
        _check_pattern(pattern)
        if level == "characters":
            _check_alphabet(alphabet)
            base = [UNK] + list(alphabet)
        elif alphabet is None or (isinstance(alphabet, (list, tuple)) and list(alphabet) == BYTE_TO_CHAR):
            base = list(BYTE_TO_CHAR)
        else:
            raise ValueError("a byte-level tokenizer has no alphabet of its own: pass None (its base is the 256 bytes)")
        _check_merges(merges, set(base))
        self.level = level
        self.pattern = pattern
        self.alphabet = base[1:] if level == "characters" else base
        self.merges = [(left, right) for left, right in merges]
        vocab = base + [left + right for left, right in self.merges]
        _check_special_tokens(special_tokens, vocab)
        self.special_tokens = {text: len(vocab) + offset for offset, text in enumerate(special_tokens)}
        self.vocab = vocab + list(special_tokens)
        self.ids = {token: token_id for token_id, token in enumerate(self.vocab)}
        self.merge_rank = {pair: rank for rank, pair in enumerate(self.merges)}
        self.history = []
        self._first_merge_id = len(base)
        self._character_id = {char: token_id for token_id, char in enumerate(base) if token_id}
        self._merged_id = {(self.ids[left], self.ids[right]): self.ids[left + right] for left, right in self.merges}
        self._cache = {}

    def __repr__(self):
        return (
            f"Tokenizer(level={self.level!r}, pattern={self.pattern!r}, vocab_size={len(self.vocab)}, "
            f"merges={len(self.merges)}, special_tokens={len(self.special_tokens)})"
        )

    # -- training ----------------------------------------------------------

    @classmethod
    def train(
        cls, text, vocab_size, progress=None, *, byte_level=False, special_tokens=(), pattern=None, on_merge=None,
    ):
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` entries.

        Training stops earlier when no pair occurs at least twice; ``history``
        then shows every merge learned with its count. ``progress``, if given,
        is called as ``progress(merges_done, merge_target)`` about a hundred
        times. ``byte_level=True`` starts from the 256 byte values instead of
        the characters seen, so no text is ever unknown. ``special_tokens``
        get IDs after the merges (and count towards ``vocab_size``); their
        text in the training data is left out of the counts. ``on_merge``, if
        given, is called as ``on_merge(rank, entry)`` with each ``history``
        entry as soon as it is learned.
        """
        _check_text(text)
        _check_vocab_size(vocab_size)
        level, pattern, specials = _training_options(byte_level, special_tokens, pattern)
        if level == "bytes":
            text = replace_lone_surrogates(text)
        pieces = _without_special_tokens(safe_pieces(text_blocks(text)), specials)
        counts = count_chunks(pieces, pattern)
        return cls._train_on_counts(counts, vocab_size, progress, on_merge, level, pattern, specials)

    @classmethod
    def train_from_files(
        cls, paths, vocab_size, block_size=BLOCK_SIZE, progress=None, *, byte_level=False, special_tokens=(),
        pattern=None, on_merge=None,
    ):
        """Train on UTF-8 files as if they were one concatenated text, without holding it.

        The files are read ``block_size`` characters at a time and cut only
        where a cut cannot change the chunks, so the result is exactly that of
        ``train`` on the concatenated text; memory holds the chunk counts, not
        the text. The other options are those of ``train``.
        """
        if isinstance(paths, (str, bytes, os.PathLike)) or not isinstance(paths, (list, tuple)):
            raise TypeError(f"paths must be a list of file paths, not {type(paths).__name__}")
        paths = [_check_path(path, "each of paths") for path in paths]
        _check_vocab_size(vocab_size)
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise ValueError(f"block_size must be a positive int, not {block_size!r}")
        level, pattern, specials = _training_options(byte_level, special_tokens, pattern)
        pieces = _without_special_tokens(safe_pieces(read_blocks(paths, block_size)), specials)
        counts = count_chunks(pieces, pattern)
        return cls._train_on_counts(counts, vocab_size, progress, on_merge, level, pattern, specials)

    @classmethod
    def train_from_counts(
        cls, chunk_counts, vocab_size, progress=None, *, byte_level=False, special_tokens=(), pattern=None,
        on_merge=None,
    ):
        """Train on chunk counts made elsewhere (a process pool, a cluster job).

        ``chunk_counts`` maps each chunk string, exactly as ``chunks`` cuts it
        with the same pattern, to a positive count. Counting chunks is the
        only step whose cost grows with the corpus, so any engine can do it
        and hand the result over.
        """
        _check_vocab_size(vocab_size)
        level, pattern, specials = _training_options(byte_level, special_tokens, pattern)
        _check_chunk_counts(chunk_counts, pattern, level, specials)
        return cls._train_on_counts(chunk_counts, vocab_size, progress, on_merge, level, pattern, specials)

    @classmethod
    def _train_on_counts(cls, chunk_counts, vocab_size, progress, on_merge, level, pattern, specials):
        """The step every training entry point shares: chunk counts in, tokenizer out."""
        if not chunk_counts:
            raise ValueError("cannot train on empty text: give at least one character")
        if level == "characters":
            alphabet = sorted(set("".join(chunk_counts)))
            _check_alphabet(alphabet)
            base_size, base_name = len(alphabet) + 1, f"{len(alphabet)} characters + {UNK}"
            sequences = chunk_counts  # a str is already a sequence of one-character tokens
        else:
            alphabet = None
            base_size, base_name = 256, "the 256 byte values"
            sequences = {tuple(SINGLE_BYTES[byte] for byte in chunk.encode("utf-8")): count
                         for chunk, count in chunk_counts.items()}
        if specials:
            base_name += f" + {len(specials)} special tokens"
        needed = base_size + len(specials)
        if vocab_size < needed:
            raise ValueError(
                f"vocab_size {vocab_size} is smaller than the {needed} base tokens ({base_name}); "
                f"ask for at least {needed}"
            )
        shown = bytes_to_display if level == "bytes" else str

        def history_entry(pair, count):
            left, right = shown(pair[0]), shown(pair[1])
            return {"pair": [left, right], "token": left + right, "count": count}

        def report_merge(rank, pair, count):
            if on_merge is not None:
                on_merge(rank, history_entry(pair, count))

        learned = train_merges(sequences, vocab_size - needed, progress, report_merge)
        history = [history_entry(pair, count) for pair, count in learned]
        merges = [tuple(entry["pair"]) for entry in history]
        tokenizer = cls(alphabet, merges, level=level, pattern=pattern, special_tokens=specials)
        tokenizer.history = history
        return tokenizer

    # -- encoding and decoding ----------------------------------------------

    def chunks(self, text):
        """Cut ``text`` as ``encode`` does, with this tokenizer's pattern (special tokens are not looked for)."""
        if self.level == "bytes":
            text = replace_lone_surrogates(text)
        return chunks(text, self.pattern)

    def start_tokens(self, chunk):
        """A chunk's tokens before any merge: its characters (unknown ones as ``<unk>``) or its bytes."""
        if self.level == "bytes":
            chunk = replace_lone_surrogates(chunk)
        return [self.vocab[token_id] for token_id in self._start_ids(chunk)]

    def encode(self, text, *, allowed_special=(), disallowed_special="all"):
        """Turn ``text`` into a list of token IDs.

        Special tokens follow tiktoken's rules: by default, a special token's
        text in the input is an error; ``allowed_special`` (a set of them, or
        ``"all"``) encodes those as their IDs; ``disallowed_special=()`` lets
        the rest through as ordinary text. At the byte level, lone surrogates
        (which have no UTF-8 form) are encoded as U+FFFD, as tiktoken does.
        """
        _check_text(text)
        if self.level == "bytes":
            text = replace_lone_surrogates(text)
        ids = []
        for segment, special_id in self._special_segments(text, allowed_special, disallowed_special):
            if special_id is None:
                ids.extend(self._encode_ordinary(segment))
            else:
                ids.append(special_id)
        return ids

    def _encode_ordinary(self, text):
        """Encode text without special tokens.

        Each distinct chunk is encoded once and remembered, so text that
        repeats its words (all text does) costs little more than chunking.
        """
        cache = self._cache
        ids = []
        for piece in safe_pieces(text_blocks(text)):
            found = chunks(piece, self.pattern)
            for chunk in set(found).difference(cache):
                cache[chunk] = encode_chunk(self._start_ids(chunk), self._merged_id)
            ids.extend(chain.from_iterable(map(cache.__getitem__, found)))
            if len(cache) > CACHE_LIMIT:
                cache.clear()
        return ids

    def _start_ids(self, chunk):
        """The IDs of a chunk before any merge: its bytes, or its characters (unknown ones 0)."""
        if self.level == "bytes":
            return list(chunk.encode("utf-8"))
        known = self._character_id
        return [known.get(char, 0) for char in chunk]

    def _special_segments(self, text, allowed_special, disallowed_special):
        """Cut ``text`` around the allowed special tokens: ``(text, None)`` and ``(None, ID)`` items."""
        allowed = self._special_set(allowed_special, "allowed_special")
        if disallowed_special == "all":
            disallowed = set(self.special_tokens) - allowed
        else:
            disallowed = self._special_set(disallowed_special, "disallowed_special")
        if disallowed:
            found = _special_token_regex(disallowed).search(text)
            if found:
                raise SpecialTokenInText(found.group())
        if not allowed:
            return [(text, None)]
        segments = []
        start = 0
        for found in _special_token_regex(allowed).finditer(text):
            segments += [(text[start:found.start()], None), (None, self.special_tokens[found.group()])]
            start = found.end()
        segments.append((text[start:], None))
        return segments

    def _special_set(self, names, argument):
        """``"all"`` or a collection of this tokenizer's special tokens, as a set."""
        if names == "all":
            return set(self.special_tokens)
        if isinstance(names, (str, bytes)) or not isinstance(names, (set, frozenset, list, tuple)):
            raise TypeError(f"{argument} must be 'all' or a set of special tokens, not {names!r}")
        if not all(isinstance(name, str) for name in names):
            raise TypeError(f"{argument} must hold special tokens as strings, not {names!r}")
        unknown = sorted(set(names) - set(self.special_tokens))
        if unknown:
            raise ValueError(f"{argument} names {unknown[0]!r}, which is not a special token of this tokenizer")
        return set(names)

    def tokens(self, text, **special):
        """Split ``text`` into token strings (``<unk>`` for unknown characters, GPT-2 display form for bytes)."""
        return [self.vocab[token_id] for token_id in self.encode(text, **special)]

    def decode(self, ids):
        """Turn token IDs back into text.

        ID 0 of a character-level tokenizer becomes U+FFFD; at the byte level,
        bytes that are not valid UTF-8 (a character cut in two) become U+FFFD.
        """
        if self.level == "bytes":
            return self.decode_bytes(ids).decode("utf-8", errors="replace")
        self._check_ids(ids)
        return "".join(REPLACEMENT_CHARACTER if i == 0 else self.vocab[i] for i in ids)

    def decode_bytes(self, ids):
        """The exact bytes that token IDs stand for (special tokens as their UTF-8 text)."""
        if self.level == "characters":
            return self.decode(ids).encode("utf-8", errors="surrogatepass")
        self._check_ids(ids)
        first_special = len(self.vocab) - len(self.special_tokens)
        return b"".join(
            display_to_bytes(self.vocab[i]) if i < first_special else self.vocab[i].encode("utf-8") for i in ids
        )

    def _check_ids(self, ids):
        """Refuse anything but a list of int IDs inside the vocabulary, naming the bad ones."""
        if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
            raise TypeError(f"ids must be a list of int token IDs, not {type(ids).__name__}")
        size = len(self.vocab)
        bad = [i for i in ids if type(i) is not int or not 0 <= i < size]
        if bad:
            raise ValueError(f"IDs {bad!r} are outside the vocabulary: IDs are ints from 0 to {size - 1}")

    # -- the file format -----------------------------------------------------

    def to_json(self):
        """The tokenizer as a JSON-ready dict.

        The lab's kind of tokenizer (characters, the lab pattern, no special
        tokens) is format 1, byte for byte as ever; anything else is format 2.
        """
        if self.level == "characters" and self.pattern == "lab" and not self.special_tokens:
            return {
                "format_version": FORMAT_VERSION,
                "alphabet": list(self.alphabet),
                "merges": [[left, right] for left, right in self.merges],
            }
        data = {"format_version": 2, "level": self.level, "pattern": self.pattern}
        if self.level == "characters":
            data["alphabet"] = list(self.alphabet)
        data["merges"] = [[left, right] for left, right in self.merges]
        data["special_tokens"] = dict(self.special_tokens)
        return data

    @classmethod
    def from_json(cls, data):
        """Build a tokenizer from a dict made by ``to_json``, refusing anything malformed."""
        if not isinstance(data, dict):
            raise ValueError(f"a tokenizer must be a JSON object, not {type(data).__name__}")
        version = data.get("format_version")
        if type(version) is not int or version not in READABLE_FORMATS:
            readable = " and ".join(str(number) for number in READABLE_FORMATS)
            raise ValueError(f"unsupported tokenizer format {version!r}: this reader understands formats {readable}")
        if version == 1:
            try:
                _check_keys(data, ["format_version", "alphabet", "merges"], "format 1")
            except ValueError as error:
                raise ValueError(f"unsupported tokenizer format 1: {error}") from None
            return cls(data["alphabet"], data["merges"])
        return cls._from_format_2(data)

    @classmethod
    def _from_format_2(cls, data):
        """Read a format-2 body; a body that does not match format 2 is an unsupported format."""
        level = data.get("level")
        if level not in LEVELS:
            raise ValueError(
                f"unsupported tokenizer format 2: 'level' is {level!r}, but format 2 says "
                "whether its tokens are 'bytes' or 'characters'"
            )
        keys = ["format_version", "level", "pattern"] + (["alphabet"] if level == "characters" else [])
        try:
            _check_keys(data, keys + ["merges", "special_tokens"], f"format 2 at the {level} level")
        except ValueError as error:
            raise ValueError(f"unsupported tokenizer format 2: {error}") from None
        if not isinstance(data["pattern"], str):
            raise ValueError(f"'pattern' must be the name of a built-in pattern, not {data['pattern']!r}")
        specials = data["special_tokens"]
        if not isinstance(specials, dict) or not all(type(token_id) is int for token_id in specials.values()):
            raise ValueError("special_tokens must be an object mapping each special token to its int ID")
        tokenizer = cls(
            data.get("alphabet"), data["merges"], level=level, pattern=data["pattern"], special_tokens=list(specials)
        )
        if tokenizer.special_tokens != specials:
            raise ValueError(
                f"special token IDs must follow the merges in order: expected {tokenizer.special_tokens}, "
                f"found {specials}"
            )
        return tokenizer

    def save(self, path):
        """Write the tokenizer to ``path`` as JSON, atomically."""
        write_text_atomic(path, json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path):
        """Read a tokenizer file; a malformed one is a ``ValueError`` naming the file.

        (A file that cannot be opened at all is the usual ``OSError``.)
        """
        data = read_json(_check_path(path, "path"))
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    # -- exports to production libraries ---------------------------------------

    def to_tiktoken(self):
        """Keyword arguments for ``tiktoken.Encoding(**kwargs)`` that give the same IDs.

        tiktoken is byte-level only, and it ranks the *joined bytes* of two
        pieces rather than the pair itself; on trained merge lists the two
        agree, but a hand-made list can build a token from two different
        splits, and such a list is refused.
        """
        if self.level != "bytes":
            raise ValueError("tiktoken works on bytes: only a byte-level tokenizer (byte_level=True) can be exported")
        ranks = {display_to_bytes(token): token_id for token_id, token in enumerate(self.vocab)
                 if token not in self.special_tokens}
        for rank, (left, right) in enumerate(self.merges):
            token_id = self._first_merge_id + rank
            split = _tiktoken_split(display_to_bytes(left + right), ranks, token_id)
            if split != [display_to_bytes(left), display_to_bytes(right)]:
                shown = " + ".join(repr(bytes_to_display(piece)) for piece in split)
                raise ValueError(
                    f"tiktoken would build {left + right!r} as {shown}, not {left!r} + {right!r}: "
                    "it ranks joined bytes, not pairs, so this merge list cannot be exported"
                )
        return {
            "name": "bpe-lab",
            "pat_str": pattern_source(self.pattern, "rust"),
            "mergeable_ranks": ranks,
            "special_tokens": dict(self.special_tokens),
        }

    def to_huggingface(self):
        """The tokenizer as a Hugging Face ``tokenizer.json`` dict (a BPE model)."""
        split = {
            "type": "Split",
            "pattern": {"Regex": pattern_source(self.pattern, "oniguruma")},
            "behavior": "Isolated",
            "invert": False,
        }
        if self.level == "bytes":
            byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
            pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, byte_level]}
            decoder = byte_level
        else:
            pre_tokenizer = split
            decoder = {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": UNK}, "content": REPLACEMENT_CHARACTER},
                {"type": "Fuse"},
            ]}
        first_special = len(self.vocab) - len(self.special_tokens)
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [
                {"id": token_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
                 "normalized": False, "special": True}
                for text, token_id in self.special_tokens.items()
            ],
            "normalizer": None,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": None,
            "decoder": decoder,
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": UNK if self.level == "characters" else None,
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "ignore_merges": False,
                "vocab": {token: token_id for token_id, token in enumerate(self.vocab[:first_special])},
                "merges": [[left, right] for left, right in self.merges],
            },
        }

    def save_huggingface(self, path):
        """Write a ``tokenizer.json`` that ``tokenizers.Tokenizer.from_file`` loads, atomically."""
        write_text_atomic(path, json.dumps(self.to_huggingface(), indent=1, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------
# 5. File I/O
# --------------------------------------------------------------------------


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


def _check_path(path, argument):
    """Refuse anything but a file path (``open`` would also take a number, meaning a file descriptor)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{argument} must be a file path (str or os.PathLike), not {type(path).__name__}")
    return os.fspath(path)


def write_text_atomic(path, text):
    """Write ``text`` as UTF-8 to ``path`` so that readers see the old file or the new, never half.

    The text goes to a temporary file in the same folder, which is then
    renamed over ``path``; a rename within one folder is atomic. If anything
    fails, the temporary file is removed and the old file is untouched.
    """
    path = _check_path(path, "path")
    if not path or path.endswith(os.sep) or os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "not a file name (a file is needed here)", path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            os.chmod(temporary, _mode_for(path))
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read_blocks(paths, block_size):
    """Yield the text of UTF-8 files, in order, ``block_size`` characters at a time.

    Newlines are kept exactly as stored (no ``\r\n`` translation), and a
    file that is not valid UTF-8 is a ``ValueError`` naming it.
    """
    for path in paths:
        try:
            with open(path, encoding="utf-8", newline="") as stream:
                while block := stream.read(block_size):
                    yield block
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not valid UTF-8 ({error.reason})") from None


def _check_keys(data, expected, format_name):
    """Refuse a JSON object that lacks one of the ``expected`` keys or has others."""
    missing = [key for key in expected if key not in data]
    if missing:
        raise ValueError(f"missing key {missing[0]!r} ({format_name} needs {', '.join(expected)})")
    unexpected = sorted(set(data) - set(expected))
    if unexpected:
        raise ValueError(f"unexpected key {unexpected[0]!r} ({format_name} has only {', '.join(expected)})")


def _refuse_duplicate_keys(pairs):
    """A JSON object hook: a key given twice is a malformed file, not a silent overwrite."""
    data = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"key {key!r} appears twice")
        data[key] = value
    return data


def read_json(path):
    """Read a UTF-8 JSON file, turning every way it can be malformed into a ``ValueError``."""
    with open(path, "rb") as stream:
        raw = stream.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not valid UTF-8 (byte {error.start})") from None
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error.msg} at line {error.lineno})") from None
    except ValueError as error:
        raise ValueError(f"{path}: not a valid tokenizer file ({error})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a valid tokenizer file (JSON nested too deeply)") from None


# --------------------------------------------------------------------------
# 6. The command line
# --------------------------------------------------------------------------
#
# ``python3 bpe.py COMMAND ...`` (or ``python3 -m bpe COMMAND ...``) puts the
# API above in a shell: train, encode, decode, show, explain and inspect.
# Text goes in and out as UTF-8 whatever the locale: standard input is read
# from ``sys.stdin.buffer`` and output written to ``sys.stdout.buffer``.
# Bad input is one line on stderr and exit status 1; usage errors are
# argparse's, with status 2. Every command only calls the API.

PROGRAM = "bpe"
"""The name error messages start with."""

MARKS = {" ": "\N{OPEN BOX}", "\n": "\N{DOWNWARDS ARROW WITH CORNER LEFTWARDS}", "\t": "\N{RIGHTWARDS ARROW TO BAR}"}
"""How whitespace inside a token is drawn: ␣ for a space, ↵ for a newline, ⇥ for a tab."""

BOUNDARY = "\N{BOX DRAWINGS LIGHT VERTICAL}"
"""What ``show`` puts between tokens in plain output: │ reads as a wall, not as
text, and is almost never in prose (unlike | or ·); a real one in the text is
escaped, like the marks, so the two can never be mistaken for each other."""

ESCAPED = set(MARKS.values()) | {BOUNDARY, "\\"}
"""Characters that ``visible`` writes as escapes because they would be mistaken
for a mark, a boundary or an escape."""

PALETTE = ("\x1b[30;43m", "\x1b[30;46m", "\x1b[30;42m", "\x1b[30;45m", "\x1b[30;47m")
"""Background colours (black text) that ``show`` cycles through, so neighbours always differ."""

UNKNOWN_STYLES = ("\x1b[1;97;41m", "\x1b[1;97;101m")
"""Bold white on red and on bright red, alternating, for ``<unk>`` tokens; no palette colour is red."""

RESET = "\x1b[0m"


class CommandError(Exception):
    """Bad input that the command line finds itself; reported like the API's ``ValueError``."""


# -- input and output ------------------------------------------------------


def write_out(text):
    """Write ``text`` to standard output as UTF-8, whatever the locale."""
    sys.stdout.buffer.write(text.encode("utf-8"))


def read_stdin():
    """All of standard input as text, decoded as UTF-8 exactly (line endings untouched)."""
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        raise CommandError(f"standard input: not valid UTF-8 (byte {error.start})") from None


def read_text(argument):
    """The text a command works on: the TEXT argument itself, or standard input for ``-``.

    The argument's original bytes are decoded as UTF-8, so it means the same
    under any locale.
    """
    if argument == "-":
        return read_stdin()
    try:
        return os.fsencode(argument).decode("utf-8")
    except UnicodeDecodeError as error:
        raise CommandError(f"TEXT: not valid UTF-8 (byte {error.start})") from None


def parse_ids(text, source):
    """Token IDs written as a JSON list or separated by whitespace; checking them is ``decode``'s job."""
    if text.lstrip().startswith("["):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise CommandError(f"{source}: not a valid JSON list of token IDs") from None
    ids = []
    for word in text.split():
        if not re.fullmatch("-?[0-9]+", word):
            raise CommandError(f"{source}: {word!r} is not a token ID")
        ids.append(int(word))
    return ids


def describe(error):
    """An error as one line: ``FILE: reason`` for a failed file operation, else its message."""
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror}"
    return str(error)


def colour_wanted(stream):
    """Colour only for a terminal, and never while NO_COLOR is set to something."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def escape(char):
    """A character as a Python-style escape; a byte that is part of a cut character as ``\\xNN``."""
    if "\udc80" <= char <= "\udcff":  # a lone byte, as surrogateescape decoding leaves it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return char.encode("unicode_escape").decode("ascii")


def visible_char(char):
    """One character as ``visible`` draws it."""
    if char in MARKS:
        return MARKS[char]
    if char in ESCAPED or not char.isprintable():
        return escape(char)
    return char


def visible(text):
    """``text`` with whitespace drawn as marks and every invisible or ambiguous character escaped."""
    return "".join(map(visible_char, text))


def token_text(tok, token):
    """A vocabulary entry drawn by ``visible``: at byte level, the text of its bytes rather than its GPT-2 form."""
    if tok.level == "characters":
        return visible(token)
    return visible(tok.decode_bytes([tok.ids[token]]).decode("utf-8", "surrogateescape"))


@contextlib.contextmanager
def progress_on_terminal(stream):
    """Yield a ``progress(done, target)`` callback that redraws one line on ``stream``.

    Yields None when ``stream`` is not a terminal, so piped or logged output
    stays clean; the line is cleared when training ends, however it ends.
    """
    if not stream.isatty():
        yield None
        return
    started = time.monotonic()

    def progress(done, target):
        elapsed = time.monotonic() - started
        rate = done / elapsed if elapsed > 0 else 0.0
        stream.write(f"\r\x1b[K{done:,}/{target:,} merges  {elapsed:.1f} s  {rate:,.0f} merges/s")
        stream.flush()

    stream.write("counting chunks ...")
    stream.flush()
    try:
        yield progress
    finally:
        stream.write("\r\x1b[K")
        stream.flush()


# -- train -----------------------------------------------------------------


def check_output_path(path, inputs):
    """Refuse, before any training, an output path that cannot be written or is one of the inputs."""
    for source in inputs:
        if source != "-" and os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise CommandError(f"{path}: is also a training file; save the tokenizer somewhere else")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"{path}: cannot write here: no folder {folder}")
    if os.path.isdir(path):
        raise CommandError(f"{path}: cannot write here: it is a folder")
    if not os.access(folder, os.W_OK):
        raise CommandError(f"{path}: cannot write here: the folder is not writable")


MERGE_TABLE_HEADER = "| rank | pair | token | count |\n| --- | --- | --- | --- |\n"
"""``train --verbose`` prints merges in the shape of README's first-merges table."""


def merge_row(rank, entry):
    """One learned merge as a row of that table, written out at once."""

    def code(token):
        return f"`{json.dumps(token, ensure_ascii=False)}`"

    left, right = entry["pair"]
    write_out(f"| {rank} | {code(left)} + {code(right)} | {code(entry['token'])} | {entry['count']:,} |\n")
    sys.stdout.buffer.flush()


def training_summary(tok, args, characters, tokens):
    """One line: what was saved, what it holds, why training stopped, how well it compresses."""
    if len(tok.vocab) >= args.vocab_size:
        stopped = f"reached the requested {args.vocab_size:,} entries"
    else:
        stopped = f"stopped short of {args.vocab_size:,}: no pair occurs twice"
    ratio = f"{characters / tokens:.3f}" if tokens else "-"
    return (
        f"{args.output}: {len(tok.vocab):,} tokens, alphabet of {len(tok.alphabet):,} {tok.level}, "
        f"{len(tok.merges):,} merges learned, {stopped}; "
        f"{ratio} characters per token on the training text ({characters:,} characters, {tokens:,} tokens)\n"
    )


def command_train(args):
    """Train on files or standard input, save the tokenizer, and print a summary line."""
    if "-" in args.files and len(args.files) > 1:
        args.parser.error("'-' (standard input) cannot be combined with files")
    check_output_path(args.output, args.files)
    if args.files == ["-"]:
        text = read_stdin()
        train, pieces = functools.partial(Tokenizer.train, text), [text]
    else:  # the files are read again, block by block, to measure the result
        train = functools.partial(Tokenizer.train_from_files, args.files)
        pieces = safe_pieces(read_blocks(args.files, BLOCK_SIZE))
    options = {"byte_level": args.bytes, "special_tokens": tuple(args.special), "pattern": args.pattern}
    if args.verbose:  # the rows, printed as each merge is learned, show the progress
        write_out(MERGE_TABLE_HEADER)
        tok = train(args.vocab_size, on_merge=merge_row, **options)
    else:
        with progress_on_terminal(sys.stderr) as progress:
            tok = train(args.vocab_size, progress=progress, **options)
    tok.save(args.output)
    characters = tokens = 0
    for piece in pieces:
        characters += len(piece)
        tokens += len(tok.encode(piece, allowed_special="all"))
    write_out(training_summary(tok, args, characters, tokens))


# -- encode and decode -----------------------------------------------------


def encode_text(tok, text, allow_special, refusal="add --allow-special to encode it as its ID"):
    """Encode as the API does, allowing special tokens' text only with ``--allow-special``.

    The API's advice names Python arguments; here it is given in the
    command line's own words.
    """
    try:
        return tok.encode(text, allowed_special="all" if allow_special else ())
    except SpecialTokenInText as error:
        raise CommandError(f"the text contains the special token {error.token!r}; {refusal}") from None


def command_encode(args):
    """Print the IDs of the text, space-separated or as a JSON list."""
    ids = encode_text(Tokenizer.load(args.tokenizer), read_text(args.text), args.allow_special)
    write_out((json.dumps(ids) if args.json else " ".join(map(str, ids))) + "\n")


def command_decode(args):
    """Write exactly the bytes the IDs stand for, adding nothing, so even a cut character round-trips."""
    tok = Tokenizer.load(args.tokenizer)
    if args.ids in ([], ["-"]):
        ids = parse_ids(read_stdin(), "standard input")
    else:
        ids = parse_ids(" ".join(args.ids), "IDS")
    sys.stdout.buffer.write(tok.decode_bytes(ids))


# -- show ------------------------------------------------------------------


def split_at(sequence, lengths):
    """Cut ``sequence`` into consecutive pieces of the given lengths."""
    ends = list(accumulate(lengths))
    return [sequence[start:end] for start, end in zip([0] + ends, ends)]


def token_texts(tok, text, ids):
    """The stretch of ``text`` each token covers, so unknown characters appear as themselves.

    A token's length is the length of what it decodes to (an unknown
    character decodes to one U+FFFD). At byte level lengths count bytes, and
    a byte of a character cut between tokens comes back as a lone surrogate,
    which ``visible`` shows as ``\\xNN``.
    """
    if tok.level == "bytes":
        spans = split_at(text.encode("utf-8"), [len(tok.decode_bytes([i])) for i in ids])
        return [span.decode("utf-8", "surrogateescape") for span in spans]
    return split_at(text, [len(tok.decode([i])) for i in ids])


def render_plain(pieces, unknown):
    """Tokens between │ boundaries, whitespace as marks, ``<unk>`` for unknown characters.

    A newline mark is followed by a real newline so that lines stay lines.
    """
    newline = MARKS["\n"]
    return BOUNDARY.join(
        UNK if is_unknown else visible(piece).replace(newline, newline + "\n")
        for piece, is_unknown in zip(pieces, unknown)
    )


def render_colour(pieces, unknown):
    """Tokens on background colours that differ between neighbours; unknown ones on red.

    The colour shows where a space is, so spaces stay spaces; the colour is
    reset before each real newline so that it never runs on to the line's end.
    """
    newline, space = MARKS["\n"], MARKS[" "]
    painted = []
    for index, (piece, is_unknown) in enumerate(zip(pieces, unknown)):
        styles = UNKNOWN_STYLES if is_unknown else PALETTE
        style = styles[index % len(styles)]
        lines = visible(piece).replace(space, " ").replace(newline, newline + "\n").split("\n")
        painted.append("\n".join(style + line + RESET if line else "" for line in lines))
    return "".join(painted)


def command_show(args):
    """Print the text with its token boundaries visible, then a footer with the counts."""
    tok = Tokenizer.load(args.tokenizer)
    text = read_text(args.text)
    ids = encode_text(tok, text, args.allow_special)
    unknown_id = tok.ids[UNK] if tok.level == "characters" else None
    unknown = [token_id == unknown_id for token_id in ids]
    render = render_colour if colour_wanted(sys.stdout) else render_plain
    shown = render(token_texts(tok, text, ids), unknown)
    footer = f"{len(text):,} characters, {len(ids):,} tokens"
    if ids:
        footer += f", {len(text) / len(ids):.3f} characters per token"
    if any(unknown):
        footer += f", {sum(unknown):,} unknown"
    write_out(shown + ("" if shown.endswith("\n") else "\n") + footer + "\n")


# -- explain ---------------------------------------------------------------


def explain_chunk(tok, chunk, title):
    """The lines showing ``reference_encode`` merge one chunk, from its starting pieces to its IDs."""
    steps = [("start", tok.start_tokens(chunk))]

    def on_step(rank, pair, tokens):
        steps.append((f"rank {rank}: {token_text(tok, pair[0])} + {token_text(tok, pair[1])}", tokens))

    final = reference_encode(steps[0][1], tok.merge_rank, on_step=on_step)
    steps.append(("tokens", final))
    width = max(len(label) for label, _ in steps)
    lines = [title]
    lines += [f"  {label:<{width}}  {' '.join(token_text(tok, piece) for piece in pieces)}" for label, pieces in steps]
    lines.append(f"  {'IDs':<{width}}  {' '.join(str(tok.ids[token]) for token in final)}")
    return lines


def command_explain(args):
    """Replay the merges chunk by chunk, then give the tokens and IDs of the whole text."""
    tok = Tokenizer.load(args.tokenizer)
    text = read_text(args.text)
    ids = encode_text(tok, text, False, refusal="explain replays merges on ordinary text only")
    found = tok.chunks(text)
    lines = []
    for number, chunk in enumerate(found, 1):
        lines += explain_chunk(tok, chunk, f"chunk {number} of {len(found)}: {visible(chunk)}")
    lines.append(f"tokens: {' '.join(token_text(tok, tok.vocab[i]) for i in ids)}")
    lines.append(f"IDs: {' '.join(map(str, ids))}")
    write_out("\n".join(lines) + "\n")


# -- inspect ---------------------------------------------------------------


def made_from(tok, token_id):
    """What a vocabulary entry is: blank for a base token, its two parts for a merge, or "special"."""
    first = len(tok.vocab) - len(tok.merges) - len(tok.special_tokens)
    if token_id < first:
        return ""
    if token_id < first + len(tok.merges):
        left, right = tok.merges[token_id - first]
        return f"{token_text(tok, left)} + {token_text(tok, right)}"
    return "special"


def format_table(rows):
    """Rows of strings as aligned columns, the first column right-aligned (it holds numbers)."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].rjust(widths[0])] + [cell.ljust(width) for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def command_inspect(args):
    """Print the vocabulary as a table of ID, token and the parts merged into it."""
    tok = Tokenizer.load(args.tokenizer)
    shown = range(len(tok.vocab) if args.top is None else min(args.top, len(tok.vocab)))
    rows = [("ID", "token", "made from")]
    rows += [(str(i), token_text(tok, tok.vocab[i]), made_from(tok, i)) for i in shown]
    write_out(format_table(rows))


# -- the parser and main -----------------------------------------------------


def positive_int(text):
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return value


def build_parser():
    """The argument parser: one subcommand per job, each with its own --help."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Train, use and look inside a BPE tokenizer. Run as python3 bpe.py or python3 -m bpe.",
        epilog="Text is UTF-8 in and out. Exit status: 0 done, 1 bad input, 2 bad usage.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    tokenizer = argparse.ArgumentParser(add_help=False)
    tokenizer.add_argument("-t", "--tokenizer", required=True, metavar="TOK.json", help="the tokenizer file")
    text = argparse.ArgumentParser(add_help=False)
    text.add_argument("text", nargs="?", default="-", metavar="TEXT",
                      help="the text itself (not a file name); - or nothing reads standard input")
    special = argparse.ArgumentParser(add_help=False)
    special.add_argument("--allow-special", action="store_true",
                         help="encode the text of special tokens as their IDs (otherwise it is an error)")

    def add(name, run, summary, parents=()):
        sub = commands.add_parser(name, help=summary, description=summary, parents=list(parents))
        sub.set_defaults(run=run, parser=sub)
        return sub

    train = add("train", command_train, "learn merges from text files and save the tokenizer")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files; - reads standard input")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N",
                       help="entries to aim for, special tokens included")
    train.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the tokenizer")
    train.add_argument("--bytes", action="store_true", help="start from UTF-8 bytes instead of characters")
    train.add_argument("--special", action="append", default=[], metavar="TOKEN",
                       help="a special token (no whitespace): its own ID, its text left out of training; repeatable")
    train.add_argument("--pattern", choices=sorted(PATTERN_TEMPLATES),
                       help="how text is cut into chunks before merging (default: lab for characters, gpt2 for bytes)")
    train.add_argument("--verbose", action="store_true", help="also print every merge learned, as a table")
    encode = add("encode", command_encode, "print the token IDs of a text", [tokenizer, text, special])
    encode.add_argument("--json", action="store_true", help="print a JSON list instead of space-separated IDs")
    decode = add("decode", command_decode, "write the text that token IDs stand for, adding nothing", [tokenizer])
    decode.add_argument("ids", nargs="*", metavar="IDS",
                        help="token IDs, or a JSON list; - or nothing reads them from standard input")
    add("show", command_show, "print a text with its token boundaries visible", [tokenizer, text, special])
    add("explain", command_explain, "replay the merges on a text, step by step", [tokenizer, text])
    inspect = add("inspect", command_inspect, "print the vocabulary as a table", [tokenizer])
    inspect.add_argument("--top", type=positive_int, metavar="N", help="only the first N entries")
    return parser


def main(argv=None):
    """Run one command; return the exit status (0 done, 1 bad input; argparse exits 2 itself)."""
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
        sys.stdout.buffer.flush()
    except BrokenPipeError:  # the reader stopped early (| head): not an error worth a message
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except (OSError, ValueError, CommandError) as error:
        print(f"{PROGRAM}: {describe(error)}", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------
# Generated data: the character classes the chunk patterns are built from
# --------------------------------------------------------------------------

# BEGIN GENERATED CHARACTER CLASSES (make_unicode_ranges.py; do not edit by hand)
UNICODE_VERSION = "14.0.0"
LETTER_RANGES = """
    0041-005A 0061-007A 00AA 00B5 00BA 00C0-00D6 00D8-00F6 00F8-02C1
    02C6-02D1 02E0-02E4 02EC 02EE 0370-0374 0376-0377 037A-037D 037F
    0386 0388-038A 038C 038E-03A1 03A3-03F5 03F7-0481 048A-052F 0531-0556
    0559 0560-0588 05D0-05EA 05EF-05F2 0620-064A 066E-066F 0671-06D3 06D5
    06E5-06E6 06EE-06EF 06FA-06FC 06FF 0710 0712-072F 074D-07A5 07B1
    07CA-07EA 07F4-07F5 07FA 0800-0815 081A 0824 0828 0840-0858
    0860-086A 0870-0887 0889-088E 08A0-08C9 0904-0939 093D 0950 0958-0961
    0971-0980 0985-098C 098F-0990 0993-09A8 09AA-09B0 09B2 09B6-09B9 09BD
    09CE 09DC-09DD 09DF-09E1 09F0-09F1 09FC 0A05-0A0A 0A0F-0A10 0A13-0A28
    0A2A-0A30 0A32-0A33 0A35-0A36 0A38-0A39 0A59-0A5C 0A5E 0A72-0A74 0A85-0A8D
    0A8F-0A91 0A93-0AA8 0AAA-0AB0 0AB2-0AB3 0AB5-0AB9 0ABD 0AD0 0AE0-0AE1
    0AF9 0B05-0B0C 0B0F-0B10 0B13-0B28 0B2A-0B30 0B32-0B33 0B35-0B39 0B3D
    0B5C-0B5D 0B5F-0B61 0B71 0B83 0B85-0B8A 0B8E-0B90 0B92-0B95 0B99-0B9A
    0B9C 0B9E-0B9F 0BA3-0BA4 0BA8-0BAA 0BAE-0BB9 0BD0 0C05-0C0C 0C0E-0C10
    0C12-0C28 0C2A-0C39 0C3D 0C58-0C5A 0C5D 0C60-0C61 0C80 0C85-0C8C
    0C8E-0C90 0C92-0CA8 0CAA-0CB3 0CB5-0CB9 0CBD 0CDD-0CDE 0CE0-0CE1 0CF1-0CF2
    0D04-0D0C 0D0E-0D10 0D12-0D3A 0D3D 0D4E 0D54-0D56 0D5F-0D61 0D7A-0D7F
    0D85-0D96 0D9A-0DB1 0DB3-0DBB 0DBD 0DC0-0DC6 0E01-0E30 0E32-0E33 0E40-0E46
    0E81-0E82 0E84 0E86-0E8A 0E8C-0EA3 0EA5 0EA7-0EB0 0EB2-0EB3 0EBD
    0EC0-0EC4 0EC6 0EDC-0EDF 0F00 0F40-0F47 0F49-0F6C 0F88-0F8C 1000-102A
    103F 1050-1055 105A-105D 1061 1065-1066 106E-1070 1075-1081 108E
    10A0-10C5 10C7 10CD 10D0-10FA 10FC-1248 124A-124D 1250-1256 1258
    125A-125D 1260-1288 128A-128D 1290-12B0 12B2-12B5 12B8-12BE 12C0 12C2-12C5
    12C8-12D6 12D8-1310 1312-1315 1318-135A 1380-138F 13A0-13F5 13F8-13FD 1401-166C
    166F-167F 1681-169A 16A0-16EA 16F1-16F8 1700-1711 171F-1731 1740-1751 1760-176C
    176E-1770 1780-17B3 17D7 17DC 1820-1878 1880-1884 1887-18A8 18AA
    18B0-18F5 1900-191E 1950-196D 1970-1974 1980-19AB 19B0-19C9 1A00-1A16 1A20-1A54
    1AA7 1B05-1B33 1B45-1B4C 1B83-1BA0 1BAE-1BAF 1BBA-1BE5 1C00-1C23 1C4D-1C4F
    1C5A-1C7D 1C80-1C88 1C90-1CBA 1CBD-1CBF 1CE9-1CEC 1CEE-1CF3 1CF5-1CF6 1CFA
    1D00-1DBF 1E00-1F15 1F18-1F1D 1F20-1F45 1F48-1F4D 1F50-1F57 1F59 1F5B
    1F5D 1F5F-1F7D 1F80-1FB4 1FB6-1FBC 1FBE 1FC2-1FC4 1FC6-1FCC 1FD0-1FD3
    1FD6-1FDB 1FE0-1FEC 1FF2-1FF4 1FF6-1FFC 2071 207F 2090-209C 2102
    2107 210A-2113 2115 2119-211D 2124 2126 2128 212A-212D
    212F-2139 213C-213F 2145-2149 214E 2183-2184 2C00-2CE4 2CEB-2CEE 2CF2-2CF3
    2D00-2D25 2D27 2D2D 2D30-2D67 2D6F 2D80-2D96 2DA0-2DA6 2DA8-2DAE
    2DB0-2DB6 2DB8-2DBE 2DC0-2DC6 2DC8-2DCE 2DD0-2DD6 2DD8-2DDE 2E2F 3005-3006
    3031-3035 303B-303C 3041-3096 309D-309F 30A1-30FA 30FC-30FF 3105-312F 3131-318E
    31A0-31BF 31F0-31FF 3400-4DBF 4E00-A48C A4D0-A4FD A500-A60C A610-A61F A62A-A62B
    A640-A66E A67F-A69D A6A0-A6E5 A717-A71F A722-A788 A78B-A7CA A7D0-A7D1 A7D3
    A7D5-A7D9 A7F2-A801 A803-A805 A807-A80A A80C-A822 A840-A873 A882-A8B3 A8F2-A8F7
    A8FB A8FD-A8FE A90A-A925 A930-A946 A960-A97C A984-A9B2 A9CF A9E0-A9E4
    A9E6-A9EF A9FA-A9FE AA00-AA28 AA40-AA42 AA44-AA4B AA60-AA76 AA7A AA7E-AAAF
    AAB1 AAB5-AAB6 AAB9-AABD AAC0 AAC2 AADB-AADD AAE0-AAEA AAF2-AAF4
    AB01-AB06 AB09-AB0E AB11-AB16 AB20-AB26 AB28-AB2E AB30-AB5A AB5C-AB69 AB70-ABE2
    AC00-D7A3 D7B0-D7C6 D7CB-D7FB F900-FA6D FA70-FAD9 FB00-FB06 FB13-FB17 FB1D
    FB1F-FB28 FB2A-FB36 FB38-FB3C FB3E FB40-FB41 FB43-FB44 FB46-FBB1 FBD3-FD3D
    FD50-FD8F FD92-FDC7 FDF0-FDFB FE70-FE74 FE76-FEFC FF21-FF3A FF41-FF5A FF66-FFBE
    FFC2-FFC7 FFCA-FFCF FFD2-FFD7 FFDA-FFDC 10000-1000B 1000D-10026 10028-1003A 1003C-1003D
    1003F-1004D 10050-1005D 10080-100FA 10280-1029C 102A0-102D0 10300-1031F 1032D-10340 10342-10349
    10350-10375 10380-1039D 103A0-103C3 103C8-103CF 10400-1049D 104B0-104D3 104D8-104FB 10500-10527
    10530-10563 10570-1057A 1057C-1058A 1058C-10592 10594-10595 10597-105A1 105A3-105B1 105B3-105B9
    105BB-105BC 10600-10736 10740-10755 10760-10767 10780-10785 10787-107B0 107B2-107BA 10800-10805
    10808 1080A-10835 10837-10838 1083C 1083F-10855 10860-10876 10880-1089E 108E0-108F2
    108F4-108F5 10900-10915 10920-10939 10980-109B7 109BE-109BF 10A00 10A10-10A13 10A15-10A17
    10A19-10A35 10A60-10A7C 10A80-10A9C 10AC0-10AC7 10AC9-10AE4 10B00-10B35 10B40-10B55 10B60-10B72
    10B80-10B91 10C00-10C48 10C80-10CB2 10CC0-10CF2 10D00-10D23 10E80-10EA9 10EB0-10EB1 10F00-10F1C
    10F27 10F30-10F45 10F70-10F81 10FB0-10FC4 10FE0-10FF6 11003-11037 11071-11072 11075
    11083-110AF 110D0-110E8 11103-11126 11144 11147 11150-11172 11176 11183-111B2
    111C1-111C4 111DA 111DC 11200-11211 11213-1122B 11280-11286 11288 1128A-1128D
    1128F-1129D 1129F-112A8 112B0-112DE 11305-1130C 1130F-11310 11313-11328 1132A-11330 11332-11333
    11335-11339 1133D 11350 1135D-11361 11400-11434 11447-1144A 1145F-11461 11480-114AF
    114C4-114C5 114C7 11580-115AE 115D8-115DB 11600-1162F 11644 11680-116AA 116B8
    11700-1171A 11740-11746 11800-1182B 118A0-118DF 118FF-11906 11909 1190C-11913 11915-11916
    11918-1192F 1193F 11941 119A0-119A7 119AA-119D0 119E1 119E3 11A00
    11A0B-11A32 11A3A 11A50 11A5C-11A89 11A9D 11AB0-11AF8 11C00-11C08 11C0A-11C2E
    11C40 11C72-11C8F 11D00-11D06 11D08-11D09 11D0B-11D30 11D46 11D60-11D65 11D67-11D68
    11D6A-11D89 11D98 11EE0-11EF2 11FB0 12000-12399 12480-12543 12F90-12FF0 13000-1342E
    14400-14646 16800-16A38 16A40-16A5E 16A70-16ABE 16AD0-16AED 16B00-16B2F 16B40-16B43 16B63-16B77
    16B7D-16B8F 16E40-16E7F 16F00-16F4A 16F50 16F93-16F9F 16FE0-16FE1 16FE3 17000-187F7
    18800-18CD5 18D00-18D08 1AFF0-1AFF3 1AFF5-1AFFB 1AFFD-1AFFE 1B000-1B122 1B150-1B152 1B164-1B167
    1B170-1B2FB 1BC00-1BC6A 1BC70-1BC7C 1BC80-1BC88 1BC90-1BC99 1D400-1D454 1D456-1D49C 1D49E-1D49F
    1D4A2 1D4A5-1D4A6 1D4A9-1D4AC 1D4AE-1D4B9 1D4BB 1D4BD-1D4C3 1D4C5-1D505 1D507-1D50A
    1D50D-1D514 1D516-1D51C 1D51E-1D539 1D53B-1D53E 1D540-1D544 1D546 1D54A-1D550 1D552-1D6A5
    1D6A8-1D6C0 1D6C2-1D6DA 1D6DC-1D6FA 1D6FC-1D714 1D716-1D734 1D736-1D74E 1D750-1D76E 1D770-1D788
    1D78A-1D7A8 1D7AA-1D7C2 1D7C4-1D7CB 1DF00-1DF1E 1E100-1E12C 1E137-1E13D 1E14E 1E290-1E2AD
    1E2C0-1E2EB 1E7E0-1E7E6 1E7E8-1E7EB 1E7ED-1E7EE 1E7F0-1E7FE 1E800-1E8C4 1E900-1E943 1E94B
    1EE00-1EE03 1EE05-1EE1F 1EE21-1EE22 1EE24 1EE27 1EE29-1EE32 1EE34-1EE37 1EE39
    1EE3B 1EE42 1EE47 1EE49 1EE4B 1EE4D-1EE4F 1EE51-1EE52 1EE54
    1EE57 1EE59 1EE5B 1EE5D 1EE5F 1EE61-1EE62 1EE64 1EE67-1EE6A
    1EE6C-1EE72 1EE74-1EE77 1EE79-1EE7C 1EE7E 1EE80-1EE89 1EE8B-1EE9B 1EEA1-1EEA3 1EEA5-1EEA9
    1EEAB-1EEBB 20000-2A6DF 2A700-2B738 2B740-2B81D 2B820-2CEA1 2CEB0-2EBE0 2F800-2FA1D 30000-3134A
"""
NUMBER_RANGES = """
    0030-0039 00B2-00B3 00B9 00BC-00BE 0660-0669 06F0-06F9 07C0-07C9 0966-096F
    09E6-09EF 09F4-09F9 0A66-0A6F 0AE6-0AEF 0B66-0B6F 0B72-0B77 0BE6-0BF2 0C66-0C6F
    0C78-0C7E 0CE6-0CEF 0D58-0D5E 0D66-0D78 0DE6-0DEF 0E50-0E59 0ED0-0ED9 0F20-0F33
    1040-1049 1090-1099 1369-137C 16EE-16F0 17E0-17E9 17F0-17F9 1810-1819 1946-194F
    19D0-19DA 1A80-1A89 1A90-1A99 1B50-1B59 1BB0-1BB9 1C40-1C49 1C50-1C59 2070
    2074-2079 2080-2089 2150-2182 2185-2189 2460-249B 24EA-24FF 2776-2793 2CFD
    3007 3021-3029 3038-303A 3192-3195 3220-3229 3248-324F 3251-325F 3280-3289
    32B1-32BF A620-A629 A6E6-A6EF A830-A835 A8D0-A8D9 A900-A909 A9D0-A9D9 A9F0-A9F9
    AA50-AA59 ABF0-ABF9 FF10-FF19 10107-10133 10140-10178 1018A-1018B 102E1-102FB 10320-10323
    10341 1034A 103D1-103D5 104A0-104A9 10858-1085F 10879-1087F 108A7-108AF 108FB-108FF
    10916-1091B 109BC-109BD 109C0-109CF 109D2-109FF 10A40-10A48 10A7D-10A7E 10A9D-10A9F 10AEB-10AEF
    10B58-10B5F 10B78-10B7F 10BA9-10BAF 10CFA-10CFF 10D30-10D39 10E60-10E7E 10F1D-10F26 10F51-10F54
    10FC5-10FCB 11052-1106F 110F0-110F9 11136-1113F 111D0-111D9 111E1-111F4 112F0-112F9 11450-11459
    114D0-114D9 11650-11659 116C0-116C9 11730-1173B 118E0-118F2 11950-11959 11C50-11C6C 11D50-11D59
    11DA0-11DA9 11FC0-11FD4 12400-1246E 16A60-16A69 16AC0-16AC9 16B50-16B59 16B5B-16B61 16E80-16E96
    1D2E0-1D2F3 1D360-1D378 1D7CE-1D7FF 1E140-1E149 1E2F0-1E2F9 1E8C7-1E8CF 1E950-1E959 1EC71-1ECAB
    1ECAD-1ECAF 1ECB1-1ECB4 1ED01-1ED2D 1ED2F-1ED3D 1F100-1F10C 1FBF0-1FBF9
"""
SPACE_RANGES = """
    0009-000D 001C-0020 0085 00A0 1680 2000-200A 2028-2029 202F
    205F 3000
"""
# END GENERATED CHARACTER CLASSES


if __name__ == "__main__":
    sys.exit(main())
