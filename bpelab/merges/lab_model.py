"""The lab's own kind of model: what ``bpe.Tokenizer`` encodes and decodes with, and the interface every kind has.

``bpe.Tokenizer(alphabet, merges)`` rebuilds its IDs from the base tokens
and the merges; ``LabModel`` holds the tables that encode and decode with
them: each chunk of the named pattern starts as its characters (or bytes)
and goes through ``engine.encode_chunk``, which equals
``bpe.reference_encode``, each distinct chunk once (``engine.ChunkCache``).
An imported model (``bpelab.imported.models``) and PickyBPE's
(``picky_model``) answer the same, so the ``Tokenizer`` never asks which
kind it holds. Every model has:

- the ``Tokenizer``'s public attributes ``byte_level``, ``pattern``,
  ``alphabet``, ``merges``, ``vocab``, ``ids``, ``special_tokens``,
  ``add_prefix_space``, ``pipeline`` (None for the lab's own kind) and
  ``removals`` (PickyBPE's, ``picky_model``; empty for every other kind);
- ``segments(text, allowed_special, disallowed_special)``: the text cut
  around its special (or added) tokens, ``(text, None)`` and ``(match, ID)``;
  ``stretches(...)``: the same grouped by the stretch of the text each comes
  from, as ``(written, segments)`` (offsets count in the written parts);
- ``encode_segment(text, ids, dropout)``: the IDs of one such stretch
  appended to ``ids``; ``chunks(text)``: its chunks; ``start_ids(chunk)``: a
  chunk's IDs before any merge; ``cache[chunk]``: a chunk's IDs after them;
  ``token_sizes(chunk, ids)``: how many of the chunk's UTF-8 bytes each of
  its tokens spans;
- ``decoded``: what each ID decodes to (bytes where ``decodes_bytes``, else
  text), and ``decode(ids, skip_special_tokens)``: the text of IDs;
- ``dropout(p, seed)``: BPE-dropout's random stream for one encoding
  (``dropout.Dropout``, None for ``p = 0``), or a refusal naming why this
  kind does not offer it, once ``p`` and ``seed`` are checked;
- ``offers_dropout``, ``skips_special_tokens`` (``decode``'s default) and
  ``description``: what kind of model it is (``bpe.Tokenizer.describe``).
"""

import functools
import operator
from itertools import repeat

from bpelab import checks
from bpelab.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, SINGLE_BYTES
from bpelab.merges import engine
from bpelab.merges.dropout import check_dropout
from bpelab.merges.prepared import derived
from bpelab.text import blocks, patterns, specials


class LabModel:
    """The lab's kind of model: IDs rebuilt from the base tokens and the merges, text cut by a pattern (named or a
    regex: ``bpelab.text.patterns``).

    At the character level ID 0 is ``<unk>``, then the alphabet in sorted
    order; at the byte level IDs 0-255 are the 256 single bytes (in byte
    order for our own training). Then one ID per merge in the order learned,
    then the special tokens (a dict may leave gaps before them).
    """

    pipeline = None  # (an imported model's steps around BPE: the lab's kind has none)
    offers_dropout, skips_special_tokens = True, False  # (see ``description``)

    def __init__(self, alphabet, merges, byte_level, pattern, special_tokens, add_prefix_space):
        checks.check_prefix_space(add_prefix_space, byte_level)
        pattern = patterns.DEFAULT_PATTERN[byte_level] if pattern is None else pattern
        patterns.check_pattern(pattern)
        if byte_level:
            base = checks.check_byte_alphabet(alphabet)
        else:
            checks.check_alphabet(alphabet)
            base = [checks.UNK, *alphabet]
        ordinary = base + self.made_tokens(base, merges)
        self.special_tokens = specials.special_token_ids(special_tokens, ordinary, byte_level, len(base))
        self.byte_level, self.pattern, self.add_prefix_space = byte_level, pattern, add_prefix_space
        self.decodes_bytes = byte_level
        self.alphabet = base if byte_level else base[1:]
        self.merges = derived(merges, "merges", lambda: [(left, right) for left, right in merges])
        self.ids = dict(zip(ordinary, specials.ordinary_ids(len(ordinary), self.special_tokens.values())))
        self.vocab = self.by_id(ordinary, lambda text: text)
        self.prepare(merges)

    def made_tokens(self, base, merges):
        """The tokens the merges make, in order after ``base``, the merges checked (or as prepared merges hold
        them); none is removed here."""
        self.removals = []
        return derived(merges, "made", lambda: checks.check_merges(merges, base))

    def by_id(self, values, special_value):
        """A list of each ID's entry: ``values`` (one per ordinary token, in order) at their IDs, each special
        ID's ``special_value(text)`` of its first text, None in a gap."""
        last = max(self.ids.values(), default=-1)
        if last == len(values) - 1:
            listed = list(values)  # (the usual case: the special tokens after the ordinary ones)
        else:
            listed = [None] * (last + 1)
            for token_id, value in zip(self.ids.values(), values):
                listed[token_id] = value
        listed += [None] * (max(self.special_tokens.values(), default=-1) + 1 - len(listed))
        for text, token_id in reversed(list(self.special_tokens.items())):  # (the first text of an ID wins)
            listed[token_id] = special_value(text)
        return listed

    def prepare(self, merges=()):
        """Make the tables encoding and decoding use (those derived from the merges: as ``merges`` gives them, if it
        is a filled ``bpelab.merges.prepared.PreparedMerges``).

        ``merged_id`` maps a pair of IDs to the ID of its merge (the fast
        engine works on IDs), ``decoded`` holds what each ID decodes to
        (bytes at the byte level), and ``cache`` each chunk's IDs once encoded.
        """
        ids = self.ids
        self.merged_id = self.merge_table(merges)
        if self.byte_level:
            self.byte_ids = bytes(ids[char] for char in BYTE_TO_CHAR)  # a bytes.translate table: byte -> ID
        else:
            self.character_id = {char: ids[char] for char in self.alphabet}
        self.decoded = derived(merges, "decoded", self.decoded_values)
        self.cut = patterns.chunker(self.pattern)
        self.cache = engine.ChunkCache(self.encode_chunk)
        self.matcher = specials.SpecialTokenMatcher(self.special_tokens)

    def decoded_values(self):
        """What each ID decodes to: its bytes at the byte level (a special token's UTF-8 text), else its text."""
        if self.byte_level:
            texts = [SINGLE_BYTES[CHAR_TO_BYTE[char]] for char in self.alphabet]
        else:
            texts = [checks.REPLACEMENT_CHARACTER, *self.alphabet]
        self.add_merged_texts(texts)
        return self.by_id(texts, (lambda text: text.encode("utf-8")) if self.byte_level else str)

    def merge_table(self, merges):
        """Each pair of IDs -> the ID of its merge: what the fast engine encodes with (it works on IDs)."""
        ids = self.ids
        return derived(merges, "merged_id", lambda: engine.MergeTable(
            ((ids[left], ids[right]), ids[left + right]) for left, right in self.merges))

    def add_merged_texts(self, texts):
        """Append to ``texts`` (what each base token decodes to, by place) what each merged token decodes to."""
        ids = self.ids
        at = ids if max(ids.values()) == len(ids) - 1 else {token: place for place, token in enumerate(ids)}
        for left, right in self.merges:  # a merged token's text is its parts' text (``at``: its place)
            texts.append(texts[at[left]] + texts[at[right]])

    def dropout(self, p, seed, rule):
        """BPE-dropout's random stream for one encoding by ``rule`` (``dropout.Dropout``), None for ``p = 0``; all
        checked."""
        return check_dropout(p, seed, rule)

    def segments(self, text, allowed_special, disallowed_special):
        """``text`` cut around its special tokens, by tiktoken's rules (``bpelab.text.specials``)."""
        return self.matcher.segments(text, allowed_special, disallowed_special)

    def stretches(self, text, allowed_special, disallowed_special):
        """``segments`` by the stretch of ``text`` each comes from (each its own here: nothing is normalized)."""
        return self.matcher.stretches(text, allowed_special, disallowed_special)

    def encode_segment(self, text, ids, dropout=None):
        """Append the IDs of ``text``, which holds no special token, to ``ids``.

        Each chunk starts as its characters (or bytes) and goes through
        ``encode_chunk``, which equals ``reference_encode``. Each distinct chunk
        is encoded once and remembered, so text that repeats its words (all
        text does) costs little more than chunking. (``reduce(iadd, ...)`` is
        ``ids += chunk_ids`` for each chunk: a fifth quicker than ``chain``.)
        """
        for block in self.blocks_of(text):
            if dropout is None:
                functools.reduce(operator.iadd, map(self.cache.__getitem__, self.cut(block)), ids)
            else:  # never through the cache, which holds the chunks' IDs without dropout
                ids.extend(dropout.encode(map(self.start_ids, self.cut(block)), self.merged_id))
            self.cache = self.cache.renewed()

    def blocks_of(self, text):
        """Text in blocks that end at safe cuts, with a prefix space in front if asked and needed."""
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        return blocks.safe_blocks(blocks.text_blocks(text, blocks.BLOCK_SIZE), self.pattern)

    def chunks(self, text):
        """The chunks of a stretch of text, as ``encode_segment`` cuts it."""
        return [chunk for block in self.blocks_of(text) for chunk in self.cut(block)]

    def encode_chunk(self, chunk):
        """A chunk's IDs, as a tuple, through the fast encoder (the cache calls this for chunks it lacks)."""
        return tuple(engine.encode_chunk(self.start_ids(chunk), self.merged_id))

    def start_ids(self, chunk):
        """The IDs of a chunk before any merge: its bytes, or its characters (unknown ones 0)."""
        if self.byte_level:
            return chunk.encode("utf-8").translate(self.byte_ids)
        return list(map(self.character_id.get, chunk, repeat(0)))

    def token_sizes(self, chunk, ids):
        """How many of ``chunk``'s UTF-8 bytes each of its tokens ``ids`` spans: its bytes, or its characters' (an
        unknown one is one character; a surrogate counts the three bytes ``surrogatepass`` gives it)."""
        if self.byte_level:
            return [len(self.decoded[token_id]) for token_id in ids]
        sizes, at = [], 0
        for token_id in ids:
            width = len(self.decoded[token_id])
            sizes.append(len(chunk[at:at + width].encode("utf-8", "surrogatepass")))
            at += width
        return sizes

    def decode(self, ids, skip_special_tokens):
        """The text of ``ids``: their bytes as UTF-8 (U+FFFD where invalid), or their characters."""
        skipped = self.special_tokens.values() if skip_special_tokens else ()
        values = checks.decoded_values(ids, self.decoded, skipped)
        return b"".join(values).decode("utf-8", errors="replace") if self.byte_level else "".join(values)

    @functools.cached_property
    def description(self):
        """What kind of model this is (see ``Tokenizer.describe``)."""
        return {"base": "bytes" if self.byte_level else f"characters + {checks.UNK}",
                "unknown_id": None if self.byte_level else 0, "decodes_bytes": self.decodes_bytes,
                "ignore_merges": False, "one_merge_at_a_time": False, "added_ids": frozenset(),
                "pipeline": [], "dropout": self.offers_dropout, "skip_special_tokens": self.skips_special_tokens,
                "removals": len(self.removals)}
