"""Given vocabularies: the IDs an imported model fixes, and ranked merges that may rebuild a token.

The lab's ``Tokenizer(alphabet, merges)`` rebuilds its IDs: the base
tokens, then one per merge in order, then the special tokens. An imported
model gives its IDs instead (``Tokenizer(None, merges, byte_level=True,
vocab=..., pipeline=...)``), in any order, with gaps, and its merges are
ranked pairs whose joined text must be a token of the vocabulary, possibly
one that an earlier merge already made (Llama 3 has 280,147 merges for
127,744 tokens; gpt-oss 446,189 for 199,998). ``GivenVocabulary`` checks
such a vocabulary and holds what ``bpe.Tokenizer`` needs to encode and
decode with it, following ``tokenizers`` 0.23.3:

- a chunk (a piece of the pre-tokenizer, see ``bpelab.imported.pipeline``) starts as
  the IDs of its UTF-8 bytes; with ``ignore_merges``, a chunk that is itself
  a token of the vocabulary is that one token;
- merges are replayed as ``ranked.reference_encode_leftmost`` defines, which
  on a merge list ordered as training orders it (``ranked.is_lab_ordered``:
  Qwen 3's, DeepSeek V3's) equals ``bpe.reference_encode``, so the lab's own
  engine runs there, and ``ranked.encode_ranked`` elsewhere;
- a token decodes to the bytes its GPT-2 display characters stand for, or,
  if it holds other characters (DeepSeek V3's ``<｜User｜>``), to its own
  UTF-8 text, as Hugging Face's ByteLevel decoder does.
"""

import functools
import re
from itertools import chain

from bpelab.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_display
from bpelab.checks import check_list, decoded_values
from bpelab.imported.pipeline import Pipeline
from bpelab.merges.dropout import check_dropout
from bpelab.merges.engine import ChunkCache, MergeTable, encode_chunk
from bpelab.merges.prepared import derived
from bpelab.merges.ranked import encode_ranked, is_lab_ordered, rank_table
from bpelab.messages import shown
from bpelab.reading import collector_paused

MAX_ID = (1 << 24) - 1
"""The highest ID a given vocabulary may use (Gemma 3's highest is 262,144)."""


class GivenVocabulary:
    """An imported byte-level model's vocabulary, merges and pipeline, checked; it encodes and decodes with them.

    It has the interface ``bpe.Tokenizer`` calls for every kind of model
    (``bpelab.merges.lab_model`` lists it; ``bpelab.imported.models`` is the
    one constructor).
    """

    decodes_bytes, offers_dropout, skips_special_tokens = True, False, True  # (see ``description``)

    def __init__(self, vocab, merges, pipeline, byte_level, alphabet, pattern, special_tokens, add_prefix_space):
        if not isinstance(pipeline, Pipeline):
            raise TypeError(f"a tokenizer with a given vocab needs a pipeline (bpelab.imported.pipeline.Pipeline), "
                            f"not {type(pipeline).__name__}")
        if alphabet is not None or pattern is not None or special_tokens or add_prefix_space:
            raise ValueError("with a given vocab, the alphabet, pattern, special tokens and prefix space come from "
                             "the vocab and the pipeline: leave alphabet, pattern, special_tokens and "
                             "add_prefix_space unset")
        self.pipeline = pipeline
        pipeline.check_level(byte_level)
        self.ordinary = check_vocab(vocab)
        self.ids = token_ids(self.ordinary)
        self.find_base(merges)
        self.vocab = with_added_tokens(self.ordinary, self.ids, pipeline.added_tokens)
        check_template_ids(pipeline.post_processor, self.vocab)
        self.id_bits = max(len(self.vocab), 2).bit_length()
        with collector_paused():
            self.table = derived(merges, "table", lambda: merge_table(merges, self.ids, self.id_bits))
            self.merges = derived(merges, "merges", lambda: [(left, right) for left, right in merges])
        self.removals = []  # (only PickyBPE's training removes)
        self.special_tokens = {token.content: token.id for token in pipeline.added_tokens if token.special}
        self.prepare(merges)

    def find_base(self, merges=()):
        """Check the base tokens and note their IDs: at the byte level, all 256 bytes (``merges`` may give what is
        derived from the vocabulary: see ``bpelab.merges.prepared``)."""
        missing = [char for char in BYTE_TO_CHAR if char not in self.ids]
        if missing:
            raise ValueError(f"a byte-level vocab needs all 256 byte tokens; {shown(missing[0])} "
                             f"(byte {CHAR_TO_BYTE[missing[0]]}) is missing")
        self.byte_ids = [self.ids[char] for char in BYTE_TO_CHAR]

    def prepare(self, merges=()):
        """Make what encoding and decoding use: the merge function, the pre-tokenizer, the added tokens' matcher,
        the chunk cache (see ``engine.ChunkCache``) and each ID's bytes (``decoded``); those derived from the
        vocabulary and merges as ``merges`` gives them, if it is a filled ``bpelab.merges.prepared.PreparedMerges``."""
        with collector_paused():
            self.lab_ordered = derived(merges, "lab_ordered", lambda: is_lab_ordered(self.table, self.id_bits))
            merged_id = derived(merges, "merged_id", lambda: lab_merge_table(self.table, self.id_bits)
                                if self.lab_ordered else None)
            self.alphabet = derived(merges, "alphabet", self.base_tokens)
            self.decoded = derived(merges, "decoded", self.decoded_values)
        self.merge = merger(self.table, self.id_bits, merged_id)
        self.whole = self.ids if self.pipeline.ignore_merges else {}
        self.byte_level, self.pattern = self.pipeline.byte_level, self.pipeline.pattern
        self.add_prefix_space = self.pipeline.add_prefix_space
        self.cut, self.matcher = self.pipeline.cutter(), self.pipeline.matcher()
        self.cache = ChunkCache(self.encode_chunk)

    def base_tokens(self):
        """The tokens no merge makes: at the byte level the 256 bytes' display characters, in ID order."""
        return sorted(BYTE_TO_CHAR, key=self.ids.__getitem__)

    def segments(self, text, allowed_special, disallowed_special):
        """``text`` cut around its added tokens, normalized between them (see ``added_tokens.AddedTokenMatcher``)."""
        return self.matcher.segments(text, allowed_special, disallowed_special)

    def stretches(self, text, allowed_special, disallowed_special):
        """``segments`` by the stretch of ``text`` each comes from: an added token as written, or a stretch
        normalized as one."""
        return self.matcher.stretches(text, allowed_special, disallowed_special)

    def encode_segment(self, text, ids, dropout=None):
        """Append the IDs of ``text``, a segment between added tokens: its chunks, each encoded once (dropout is
        refused before: see ``description``)."""
        ids.extend(chain.from_iterable(map(self.cache.__getitem__, self.cut(text))))
        self.cache = self.cache.renewed()

    def dropout(self, p, seed, rule):
        """Refuse BPE-dropout by name (once ``p``, ``seed`` and ``rule`` are checked): the merges are ranked apart
        from IDs."""
        return check_dropout(p, seed, rule, "dropout is not supported for a model imported from a tokenizer.json (its merges "
                                      "are ranked apart from its IDs); encode it with dropout=0, or train one with bpe")

    def chunks(self, text):
        """The chunks of a segment, as the pre-tokenizer cuts it."""
        return self.cut(text)

    def token_sizes(self, chunk, ids):
        """How many of ``chunk``'s UTF-8 bytes each of its tokens ``ids`` spans: the bytes it stands for."""
        return [len(self.decoded[token_id]) for token_id in ids]

    def decode(self, ids, skip_special_tokens):
        """The text of ``ids``: their bytes as UTF-8, as Hugging Face's ByteLevel decoder gives it."""
        skipped = set(self.special_tokens.values()) if skip_special_tokens else ()
        return b"".join(decoded_values(ids, self.decoded, skipped)).decode("utf-8", errors="replace")

    @functools.cached_property
    def description(self):
        """What kind of model this is (see ``bpe.Tokenizer.describe``)."""
        return {"base": self.base_words(), "unknown_id": self.unknown_id(), "decodes_bytes": self.decodes_bytes,
                "ignore_merges": self.pipeline.ignore_merges,
                "added_ids": frozenset(token.id for token in self.pipeline.added_tokens),
                "one_merge_at_a_time": not self.lab_ordered,
                "pipeline": self.pipeline_words(), "dropout": self.offers_dropout,
                "skip_special_tokens": self.skips_special_tokens, "removals": 0}

    def base_words(self):
        """What the base tokens are, in a few words."""
        return "bytes"

    def pipeline_words(self):
        """The pipeline in words, a line per part, for ``bpe inspect``."""
        return self.pipeline.describe()

    def unknown_id(self):
        """The ID of the unknown-character token: none at the byte level."""
        return None

    def start_ids(self, chunk):
        """The IDs of a chunk before any merge: those of its UTF-8 bytes."""
        return list(map(self.byte_ids.__getitem__, chunk.encode("utf-8")))

    def encode_chunk(self, chunk):
        """A chunk's IDs, as a tuple: the token it is, with ``ignore_merges``, else its bytes merged."""
        data = chunk.encode("utf-8")
        whole = self.whole.get(bytes_to_display(data)) if self.whole else None
        if whole is not None:
            return (whole,)
        return tuple(self.merge(list(map(self.byte_ids.__getitem__, data))))

    def decoded_values(self):
        """What each ID decodes to: bytes (None where no token has the ID), as Hugging Face's ByteLevel decoder gives."""
        normalized = {token.id: self.pipeline.normalize(token.content) for token in self.pipeline.added_tokens
                      if token.normalized}  # Hugging Face decodes such a token as its normalized text
        vocab = [normalized.get(token_id, token) for token_id, token in enumerate(self.vocab)] if normalized \
            else self.vocab
        other, to_latin_1 = NOT_DISPLAY.search, DISPLAY_TO_LATIN_1  # (token_bytes, inlined: 200,000 calls)
        return [None if token is None else token.encode("utf-8") if other(token)
                else token.translate(to_latin_1).encode("latin-1") for token in vocab]


def merger(table, id_bits, merged_id):
    """A function merging a chunk's IDs by a ``rank_table``, one at a time; by the lab's engine with ``merged_id``
    (``lab_merge_table``) where that is the same (``ranked.is_lab_ordered``), else None."""
    if merged_id is not None:
        return lambda ids: encode_chunk(ids, merged_id)
    return lambda ids: encode_ranked(ids, table, id_bits)


def lab_merge_table(table, id_bits):
    """The lab engine's ``MergeTable`` of a ``rank_table`` whose merges are ordered as training orders them."""
    mask = (1 << id_bits) - 1
    return MergeTable((pair, entry & mask) for pair, entry in table.items())


def token_bytes(token):
    """The bytes a token stands for: its GPT-2 display characters' bytes, or, if it holds others, its UTF-8 text."""
    if NOT_DISPLAY.search(token):
        return token.encode("utf-8")
    return token.translate(DISPLAY_TO_LATIN_1).encode("latin-1")


NOT_DISPLAY = re.compile("[^" + re.escape("".join(BYTE_TO_CHAR)) + "]")
"""A character that is not one of GPT-2's 256 display characters."""

DISPLAY_TO_LATIN_1 = str.maketrans({char: chr(byte) for char, byte in CHAR_TO_BYTE.items()})
"""Each display character -> the Latin-1 character of its byte, so that ``encode("latin-1")`` gives the bytes."""


def check_vocab(vocab):
    """Every token by ID (None for an ID no token has), checked: strings, each once, at most ``MAX_ID + 1`` IDs."""
    check_list(vocab, "vocab", "tokens by ID (strings, or None for an unused ID)")
    if len(vocab) > MAX_ID + 1:
        raise ValueError(f"vocab has {len(vocab):,} IDs; at most {MAX_ID + 1:,} are supported")
    if not set(map(type, vocab)) <= {str, type(None)} or "" in vocab:
        token_id, token = next((i, t) for i, t in enumerate(vocab) if not (t is None or type(t) is str and t))
        raise ValueError(f"vocab entry {token_id} is {shown(token)}; each token must be a non-empty string")
    return list(vocab)


def token_ids(vocab):
    """Each token of a checked vocab -> its ID; a token with two IDs is refused."""
    ids = dict(zip(vocab, range(len(vocab))))  # (in C; a token listed twice keeps its last ID, and is refused)
    ids.pop(None, None)
    if len(ids) != len(vocab) - vocab.count(None):
        token_id, token = next((i, t) for i, t in enumerate(vocab) if t is not None and ids[t] != i)
        raise ValueError(f"token {shown(token)} has two IDs, {token_id} and {ids[token]}")
    return ids


def merge_table(merges, ids, id_bits):
    """The ``ranked.rank_table`` of the merges; a malformed merge, one whose part or joined token is not in the
    vocabulary, or a pair listed twice is refused."""
    check_list(merges, "merges", "[left, right] pairs")
    try:
        table = rank_table(merges, ids, id_bits)
    except (KeyError, TypeError, ValueError):  # find the merge, and say what is wrong with it
        for rank, merge in enumerate(merges):
            if not isinstance(merge, (list, tuple)) or len(merge) != 2 or not all(isinstance(part, str) for part in merge):
                raise ValueError(f"merge {rank} is {shown(merge)}; each merge must be a pair of strings") from None
            missing = next((token for token in (merge[0], merge[1], merge[0] + merge[1]) if token not in ids), None)
            if missing is not None:
                raise ValueError(f"merge {rank} ({shown(merge[0])}, {shown(merge[1])}) needs {shown(missing)}, "
                                 "which is not a token of the vocab") from None
        raise
    if len(table) != len(merges):
        refuse_repeated_pair([tuple(merge) for merge in merges])
    return table


def refuse_repeated_pair(merges):
    """Refuse the first merge whose pair is listed before (Hugging Face would keep its last rank)."""
    seen = set()
    for rank, pair in enumerate(merges):
        if pair in seen:
            raise ValueError(f"merge {rank} {shown(pair)} is listed twice (a pair has one rank)")
        seen.add(pair)


def check_template_ids(template, vocab):
    """Refuse a post-processor template whose tokens have IDs that no token of ``vocab`` has (the file could not be
    written back, nor such IDs decoded)."""
    for name, ids in ({} if template is None else template["special_tokens"]).items():
        for token_id in ids:
            if token_id >= len(vocab) or vocab[token_id] is None:
                raise ValueError(f"post_processor's template token {shown(name)} has ID {token_id:,}, which no "
                                 f"token of the vocab has (it has {len(vocab):,} IDs)")


def with_added_tokens(ordinary, ids, added_tokens):
    """Every token by ID: the model's, then each added token that is not one of them, at its own ID.

    An added token whose text is a token of the model must have that
    token's ID (Hugging Face gives it that ID); any other must take an ID no
    token of the model has.
    """
    vocab = list(ordinary)
    for token in added_tokens:
        if token.content in ids:
            if ids[token.content] != token.id:
                raise ValueError(f"added token {shown(token.content)} has ID {token.id}, but it is the model's "
                                 f"token {ids[token.content]}")
            continue
        if token.id > MAX_ID:
            raise ValueError(f"added token {shown(token.content)} has ID {token.id:,}; at most {MAX_ID:,} is supported")
        vocab += [None] * (token.id + 1 - len(vocab))
        if vocab[token.id] is not None:
            raise ValueError(f"added token {shown(token.content)} has ID {token.id}, which is the model's token "
                             f"{shown(vocab[token.id])}")
        vocab[token.id] = token.content
    return vocab
