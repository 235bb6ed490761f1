"""A character-level byte-pair-encoding (BPE) tokenizer, in one readable module.

BPE builds a vocabulary bottom-up. It starts from single characters, counts
which two adjacent tokens occur together most often in the training text,
glues that pair into a new token, and repeats. Encoding new text replays the
learned merges, earliest first, so frequent words become one token and rare
words fall back to smaller pieces.

The module reads top to bottom:

1. constants and chunking (how text is cut before any merging),
2. the training engine (which pairs to merge),
3. the encoder (how one chunk is split with the learned merges),
4. the ``Tokenizer`` API that later lessons import,
5. file I/O (the versioned JSON format and atomic writes).

Only the standard library is used.
"""

import heapq
import json
import os
import re
import sys
import tempfile
from collections import Counter
from itertools import chain

# --------------------------------------------------------------------------
# 1. Constants and chunking
# --------------------------------------------------------------------------

UNK = "<unk>"
"""The token for characters the alphabet does not contain; always ID 0."""

REPLACEMENT_CHARACTER = "\N{REPLACEMENT CHARACTER}"
"""What ID 0 decodes to, so a reader can see where text was lost."""

FORMAT_VERSION = 1
"""The version of the JSON file that ``save`` writes and ``load`` reads."""

BLOCK_SIZE = 1 << 20
"""How many characters are chunked at a time, so that a long text never
becomes one huge list of chunk strings in memory."""

CACHE_LIMIT = 1 << 16
"""How many encoded chunks a tokenizer remembers; the cache starts afresh
when it grows past this (plus at most one block's worth of chunks)."""

# A chunk is a run of letters/digits, a run of other symbols, or a run of
# whitespace; the first two may carry one leading space. Merges never cross
# chunk boundaries, so " the" can become a token but "the park" cannot.
LAB_PATTERN = re.compile(r" ?[A-Za-z0-9]+| ?[^A-Za-z0-9\s]+|\s+")

# A safe cut is a place where a non-space character is followed by
# whitespace. No chunk of LAB_PATTERN spans such a place (a letter or symbol
# run cannot take in whitespace, and a whitespace run cannot take in the
# character before it), and the pattern never looks behind, so cutting the
# text there and chunking both halves gives exactly the chunks of the whole.
# Searched for in the reversed text, it reads "whitespace, then non-space".
REVERSED_SAFE_CUT = re.compile(r"\s\S")


def chunks(text):
    """Cut ``text`` into the chunks that merges may not cross.

    Every character belongs to exactly one chunk, so joining the chunks
    gives the text back; we check that, because a pattern that silently
    dropped characters would make decoding lose text.
    """
    found = LAB_PATTERN.findall(text)
    if "".join(found) != text:
        raise AssertionError("chunks do not concatenate back to the text")
    return found


def last_safe_cut(text):
    """The last position in ``text`` where whitespace follows a non-space character, or -1.

    Searching the reversed text finds it near the end without reading the
    rest; a copy of a block is cheap next to chunking it.
    """
    match = REVERSED_SAFE_CUT.search(text[::-1])
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


def count_chunks(pieces):
    """Count each distinct chunk over pieces that end at safe cuts."""
    chunk_counts = Counter()
    for piece in pieces:
        chunk_counts.update(chunks(piece))
    return chunk_counts


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


def train_merges(chunk_counts, max_merges, progress=None):
    """Learn exactly what ``reference_train`` learns, updating counts incrementally.

    Instead of recounting every pair after each merge, it keeps the count of
    every pair and the words each pair occurs in; a merge then touches only
    those words, and only the pairs next to each merged occurrence. The most
    frequent pair comes from a heap ordered by (-count, pair), which gives
    the same tie rule as ``best_pair``. Counts only fall after a pair first
    appears, so an entry whose count has fallen is pushed back with its
    current count when it surfaces (lazy invalidation).
    """
    tokens, words, weights = _code_words(chunk_counts)
    if len(tokens) + max_merges > sys.maxunicode + 1:
        raise ValueError(f"cannot learn {max_merges} merges: at most {sys.maxunicode + 1} tokens fit")
    pair_counts, pair_words = _index_pairs(words, weights)
    heap = [(-count, (tokens[ord(p[0])], tokens[ord(p[1])]), p) for p, count in pair_counts.items()]
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
        learned.append((token_pair, count))
        new = chr(len(tokens))
        tokens.append(token_pair[0] + token_pair[1])
        created = _merge_everywhere(pair, new, words, weights, pair_counts, pair_words)
        pair_counts.update(created)
        for p, count in created.items():
            if count > 0:
                heapq.heappush(heap, (-count, (tokens[ord(p[0])], tokens[ord(p[1])]), p))
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


def reference_encode(tokens, merge_rank, on_merge=None):
    """Split one chunk by replaying merges, the simple way.

    ``tokens`` starts as the chunk's characters. Repeatedly find the adjacent
    pair with the lowest rank (the earliest learned merge), merge *all* its
    non-overlapping occurrences left to right, and look again; stop when no
    adjacent pair is a merge. ``on_merge(rank, pair, tokens)``, if given, is
    told about every step, which is how a learner can watch it happen.
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


def _check_alphabet(alphabet):
    """Refuse an alphabet that is not sorted, distinct, single characters without UNK."""
    if isinstance(alphabet, (str, bytes)) or not isinstance(alphabet, (list, tuple)):
        raise ValueError(f"alphabet must be a list of single characters, not {type(alphabet).__name__}")
    for position, char in enumerate(alphabet):
        if char == UNK:
            raise ValueError(f"alphabet must not contain {UNK!r}: it is always ID 0")
        if not isinstance(char, str) or len(char) != 1:
            raise ValueError(f"alphabet entry {position} is {char!r}; each entry must be one character")
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


def _check_text(text):
    """Refuse anything but a str as text to train on or encode."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")


def _check_vocab_size(vocab_size):
    """Refuse a vocab_size that is not an int (a bool is not a size either)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")


def _check_chunk_counts(chunk_counts):
    """Refuse chunk counts whose keys are not single chunks or whose counts are not positive ints."""
    if not isinstance(chunk_counts, dict):
        raise TypeError(f"chunk_counts must be a dict of chunk -> count, not {type(chunk_counts).__name__}")
    for chunk, count in chunk_counts.items():
        if not isinstance(chunk, str) or chunks(chunk) != [chunk]:
            raise ValueError(f"chunk_counts key {chunk!r} is not exactly one chunk (see bpe.chunks)")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"chunk_counts[{chunk!r}] is {count!r}; counts must be positive ints")


class Tokenizer:
    """A trained (or loaded) BPE vocabulary that encodes text to IDs and back.

    IDs are fixed by the content: ID 0 is ``<unk>``, then the alphabet in
    sorted order, then one token per merge in the order learned.
    """

    def __init__(self, alphabet, merges):
        """Build a tokenizer from an alphabet and a merge list, checking both."""
        _check_alphabet(alphabet)
        _check_merges(merges, set(alphabet))
        self.alphabet = list(alphabet)
        self.merges = [(left, right) for left, right in merges]
        self.vocab = [UNK] + self.alphabet + [left + right for left, right in self.merges]
        self.ids = {token: token_id for token_id, token in enumerate(self.vocab)}
        self.merge_rank = {pair: rank for rank, pair in enumerate(self.merges)}
        self.history = []
        ids = self.ids
        self._merged_id = {(ids[left], ids[right]): ids[left + right] for left, right in self.merges}
        self._cache = {}

    def __repr__(self):
        return f"Tokenizer(vocab_size={len(self.vocab)}, merges={len(self.merges)})"

    # -- training ----------------------------------------------------------

    @classmethod
    def train(cls, text, vocab_size, progress=None):
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` entries.

        Training stops earlier when no pair occurs at least twice; ``history``
        then shows every merge learned with its count. ``progress``, if given,
        is called as ``progress(merges_done, merge_target)`` about a hundred
        times.
        """
        _check_text(text)
        _check_vocab_size(vocab_size)
        return cls._train_on_counts(count_chunks(safe_pieces(text_blocks(text))), vocab_size, progress)

    @classmethod
    def train_from_files(cls, paths, vocab_size, block_size=BLOCK_SIZE, progress=None):
        """Train on UTF-8 files as if they were one concatenated text, without holding it.

        The files are read ``block_size`` characters at a time and cut only
        where a cut cannot change the chunks, so the result is exactly that of
        ``train`` on the concatenated text; memory holds the chunk counts, not
        the text.
        """
        if isinstance(paths, (str, bytes, os.PathLike)) or not isinstance(paths, (list, tuple)):
            raise TypeError(f"paths must be a list of file paths, not {type(paths).__name__}")
        _check_vocab_size(vocab_size)
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise ValueError(f"block_size must be a positive int, not {block_size!r}")
        return cls._train_on_counts(count_chunks(safe_pieces(read_blocks(paths, block_size))), vocab_size, progress)

    @classmethod
    def train_from_counts(cls, chunk_counts, vocab_size, progress=None):
        """Train on chunk counts made elsewhere (a process pool, a cluster job).

        ``chunk_counts`` maps each chunk string, exactly as ``chunks`` cuts it,
        to a positive count. Counting chunks is the only step whose cost grows
        with the corpus, so any engine can do it and hand the result over.
        """
        _check_vocab_size(vocab_size)
        _check_chunk_counts(chunk_counts)
        return cls._train_on_counts(chunk_counts, vocab_size, progress)

    @classmethod
    def _train_on_counts(cls, chunk_counts, vocab_size, progress):
        """The step every training entry point shares: chunk counts in, tokenizer out."""
        if not chunk_counts:
            raise ValueError("cannot train on empty text: give at least one character")
        alphabet = sorted(set("".join(chunk_counts)))
        base_size = len(alphabet) + 1
        if vocab_size < base_size:
            raise ValueError(
                f"vocab_size {vocab_size} is smaller than the {base_size} base tokens "
                f"({len(alphabet)} characters + {UNK}); ask for at least {base_size}"
            )
        learned = train_merges(chunk_counts, vocab_size - base_size, progress)
        tokenizer = cls(alphabet, [pair for pair, _ in learned])
        tokenizer.history = [
            {"pair": [left, right], "token": left + right, "count": count}
            for (left, right), count in learned
        ]
        return tokenizer

    # -- encoding and decoding ----------------------------------------------

    def encode(self, text):
        """Turn ``text`` into a list of token IDs; unknown characters become ID 0.

        Each distinct chunk is encoded once and remembered, so text that
        repeats its words (all text does) costs little more than chunking.
        """
        _check_text(text)
        cache = self._cache
        ids = []
        for piece in safe_pieces(text_blocks(text)):
            found = chunks(piece)
            for chunk in set(found).difference(cache):
                cache[chunk] = self._encode_new_chunk(chunk)
            ids.extend(chain.from_iterable(map(cache.__getitem__, found)))
            if len(cache) > CACHE_LIMIT:
                cache.clear()
        return ids

    def _encode_new_chunk(self, chunk):
        """The IDs of one chunk not seen before: its characters, then the merges."""
        known = self.ids
        return encode_chunk([known.get(char, 0) for char in chunk], self._merged_id)

    def tokens(self, text):
        """Split ``text`` into token strings; characters outside the alphabet become ``<unk>``."""
        return [self.vocab[token_id] for token_id in self.encode(text)]

    def decode(self, ids):
        """Turn token IDs back into text; ID 0 becomes U+FFFD (the replacement character)."""
        if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
            raise TypeError(f"ids must be a list of int token IDs, not {type(ids).__name__}")
        size = len(self.vocab)
        bad = [i for i in ids if type(i) is not int or not 0 <= i < size]
        if bad:
            raise ValueError(
                f"IDs {bad!r} are outside the vocabulary: IDs are ints from 0 to {size - 1}"
            )
        return "".join(REPLACEMENT_CHARACTER if i == 0 else self.vocab[i] for i in ids)

    # -- the file format -----------------------------------------------------

    def to_json(self):
        """The tokenizer as a JSON-ready dict (format 1): alphabet and merges only."""
        return {
            "format_version": FORMAT_VERSION,
            "alphabet": list(self.alphabet),
            "merges": [[left, right] for left, right in self.merges],
        }

    @classmethod
    def from_json(cls, data):
        """Build a tokenizer from a dict made by ``to_json``, refusing anything malformed."""
        if not isinstance(data, dict):
            raise ValueError(f"a tokenizer must be a JSON object, not {type(data).__name__}")
        version = data.get("format_version")
        if type(version) is not int or version != FORMAT_VERSION:
            raise ValueError(
                f"unsupported tokenizer format {version!r}: this reader understands format {FORMAT_VERSION}"
            )
        expected = ["format_version", "alphabet", "merges"]
        missing = [key for key in expected if key not in data]
        if missing:
            raise ValueError(f"missing key {missing[0]!r} (format 1 needs {', '.join(expected)})")
        unexpected = sorted(set(data) - set(expected))
        if unexpected:
            raise ValueError(f"unexpected key {unexpected[0]!r} (format 1 has only {', '.join(expected)})")
        return cls(data["alphabet"], data["merges"])

    def save(self, path):
        """Write the tokenizer to ``path`` as JSON, atomically."""
        text = json.dumps(self.to_json(), indent=1) + "\n"
        write_text_atomic(path, text)

    @classmethod
    def load(cls, path):
        """Read a tokenizer file; any problem is a ``ValueError`` naming the file."""
        data = read_json(path)
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None


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


def write_text_atomic(path, text):
    """Write ``text`` as UTF-8 to ``path`` so that readers see the old file or the new, never half.

    The text goes to a temporary file in the same folder, which is then
    renamed over ``path``; a rename within one folder is atomic. If anything
    fails, the temporary file is removed and the old file is untouched.
    """
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    try:
        os.chmod(temporary, _mode_for(path))
        with os.fdopen(handle, "wb") as stream:
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
