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

import json
import os
import re
import tempfile
from collections import Counter

# --------------------------------------------------------------------------
# 1. Constants and chunking
# --------------------------------------------------------------------------

UNK = "<unk>"
"""The token for characters the alphabet does not contain; always ID 0."""

REPLACEMENT_CHARACTER = "\N{REPLACEMENT CHARACTER}"
"""What ID 0 decodes to, so a reader can see where text was lost."""

FORMAT_VERSION = 1
"""The version of the JSON file that ``save`` writes and ``load`` reads."""

# A chunk is a run of letters/digits, a run of other symbols, or a run of
# whitespace; the first two may carry one leading space. Merges never cross
# chunk boundaries, so " the" can become a token but "the park" cannot.
LAB_PATTERN = re.compile(r" ?[A-Za-z0-9]+| ?[^A-Za-z0-9\s]+|\s+")


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


# --------------------------------------------------------------------------
# 2. The training engine
# --------------------------------------------------------------------------
#
# Training sees the text only as ``chunk_counts``: each distinct chunk, as a
# tuple of tokens, with how often it occurs. Counting a pair inside a chunk
# that occurs 500 times is the same as counting it 500 times.


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


def reference_train(chunk_counts, max_merges):
    """Learn up to ``max_merges`` merges the simple way: recount every pair after each merge.

    Returns a list of ``(pair, count)`` in the order learned. Training stops
    early when no pair occurs at least twice, because merging a pair seen
    once would only memorise the training text.
    """
    current = dict(chunk_counts)
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
    return learned


train_merges = reference_train
"""The training engine ``Tokenizer`` uses; one function, so it can be replaced."""


# --------------------------------------------------------------------------
# 3. The encoder
# --------------------------------------------------------------------------


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


encode_chunk = reference_encode
"""The per-chunk encoder ``Tokenizer`` uses; one function, so it can be replaced."""


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

    def __repr__(self):
        return f"Tokenizer(vocab_size={len(self.vocab)}, merges={len(self.merges)})"

    # -- training ----------------------------------------------------------

    @classmethod
    def train(cls, text, vocab_size):
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` entries.

        Training stops earlier when no pair occurs at least twice; ``history``
        then shows every merge learned with its count.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
        if not text:
            raise ValueError("cannot train on empty text: give at least one character")
        alphabet = sorted(set(text))
        base_size = len(alphabet) + 1
        if vocab_size < base_size:
            raise ValueError(
                f"vocab_size {vocab_size} is smaller than the {base_size} base tokens "
                f"({len(alphabet)} characters + {UNK}); ask for at least {base_size}"
            )
        chunk_counts = Counter(tuple(chunk) for chunk in chunks(text))
        learned = train_merges(chunk_counts, vocab_size - base_size)
        tokenizer = cls(alphabet, [pair for pair, _ in learned])
        tokenizer.history = [
            {"pair": [left, right], "token": left + right, "count": count}
            for (left, right), count in learned
        ]
        return tokenizer

    # -- encoding and decoding ----------------------------------------------

    def tokens(self, text):
        """Split ``text`` into token strings; characters outside the alphabet become ``<unk>``."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        known = self.ids
        pieces = []
        for chunk in chunks(text):
            characters = [char if char in known else UNK for char in chunk]
            pieces.extend(encode_chunk(characters, self.merge_rank))
        return pieces

    def encode(self, text):
        """Turn ``text`` into a list of token IDs."""
        return [self.ids[token] for token in self.tokens(text)]

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


def write_text_atomic(path, text):
    """Write ``text`` as UTF-8 to ``path`` so that readers see the old file or the new, never half.

    The text goes to a temporary file in the same folder, which is then
    renamed over ``path``; a rename within one folder is atomic. If anything
    fails, the temporary file is removed and the old file is untouched.
    """
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


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
