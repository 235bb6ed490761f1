"""A byte-pair-encoding (BPE) tokenizer lab: the lesson, in one file.

BPE builds a vocabulary bottom-up. It starts from single characters (or the
256 byte values), counts which two adjacent tokens occur together most often
in the training text, glues that pair into a new token, and repeats. Encoding
new text replays the learned merges, earliest first, so frequent words become
one token and rare words fall back to smaller pieces.

This file reads top to bottom: 1. BPE by definition (``merge_pair``, ``count_pairs``,
``best_pair``, ``reference_train``, ``reference_encode``, ``reference_superbpe``);
2. chunks, how text is cut before any merging; 3. the ``Tokenizer`` that
later lessons import. The machinery behind it is the package ``bpelab``, one
module per concern, each saying which definition here it equals (its
``__init__`` draws the map); ``python3 bpe.py --help`` is the command line.
Only the standard library is used.
"""

import functools
import operator
import random
from collections import Counter
from itertools import chain
from typing import Callable, Iterable, Mapping, Optional, Sequence, Union

from bpelab.byte_level import (BYTE_TO_CHAR, CHAR_TO_BYTE, SINGLE_BYTES, bytes_to_display, display_to_bytes,
                               replace_lone_surrogates, token_offsets)
from bpelab.checks import (REPLACEMENT_CHARACTER, UNK, check_alphabet, check_byte_alphabet, check_choice, check_flag,
                           check_merges, check_no_surrogate, check_paths, check_positive_int, check_prefix_space,
                           check_text, decoded_values)
from bpelab.commands.compare import compare
from bpelab.corpora import counting, streaming, token_files
from bpelab.corpora.token_files import token_file_dtype
from bpelab.formats import gpt2, huggingface, in_memory, official, tiktoken as tiktoken_files
from bpelab.formats.lab import FORMAT_VERSION, READABLE_FORMATS, file_body, file_text, tokenizer_arguments
from bpelab.imported import sentencepiece, vocabulary
from bpelab.merges.dropout import check_dropout
from bpelab.merges.engine import (CACHE_LIMIT, ChunkCache, Pair, TIE_RULES, Token, encode_chunk, id_order,
                                  report_progress, train_merges)
from bpelab.merges.superbpe import check_span_counts, span_counts, trainer
from bpelab.merges.training import (OnMerge, Progress, check_chunk_counts, count_chunks, start_sequences,
                                    training_options)
from bpelab.messages import named, shown
from bpelab.reading import MAX_FILE_BYTES, PathLike, read_file_bytes, read_json
from bpelab.text import blocks, readable
from bpelab.text.blocks import BLOCK_SIZE, read_blocks, safe_blocks, stream_blocks, text_blocks
from bpelab.text.patterns import (DEFAULT_PATTERN, PATTERNS, check_pattern, chunker, compiled, last_safe_cut,
                                  pattern_source)
from bpelab.text.specials import SpecialChoice, SpecialTokenInText, SpecialTokenMatcher, special_token_ids
from bpelab.writing import atomic_writer, check_output_path, write_text_atomic

__all__ = [
    "merge_pair", "count_pairs", "best_pair", "TIE_RULES", "reference_train", "reference_encode", "reference_superbpe",
    "chunks", "PATTERNS", "pattern_source",  # 2. chunks
    "Tokenizer", "SpecialTokenInText", "UNK", "REPLACEMENT_CHARACTER", "FORMAT_VERSION", "READABLE_FORMATS",  # 3.
    # The machinery, importable from here as before; a tunable is set in its module (bpelab.merges.engine.CACHE_LIMIT)
    "last_safe_cut", "safe_blocks", "text_blocks", "BLOCK_SIZE", "stream_blocks", "read_blocks", "BYTE_TO_CHAR",
    "CHAR_TO_BYTE", "bytes_to_display", "display_to_bytes", "replace_lone_surrogates", "train_merges", "encode_chunk",
    "chunker", "count_chunks", "CACHE_LIMIT", "MAX_FILE_BYTES", "read_file_bytes", "read_json", "token_file_dtype",
    "check_output_path", "atomic_writer", "write_text_atomic", "compare",
]

# --------------------------------------------------------------------------
# 1. BPE by definition
# --------------------------------------------------------------------------
#
# Training sees the text only as ``chunk_counts``: each distinct chunk (a
# stretch of text that merges may not cross, see section 2), as a sequence of
# tokens, with how often it occurs. Counting a pair inside a chunk that occurs
# 500 times is the same as counting it 500 times. These functions are the
# definition, written as simply as possible; ``bpelab.merges.engine`` makes them
# fast, and the tests hold the two against each other.


def merge_pair(tokens: Sequence[Token], pair: Pair, at: Optional[set] = None) -> tuple:
    """Replace every non-overlapping occurrence of ``pair`` in ``tokens``, left to right (only those starting ``at``).

    >>> merge_pair(("a", "a", "a", "b"), ("a", "a"))
    ('aa', 'a', 'b')

    Once the first two ``a`` are glued, the third has no partner left.
    """
    left, right = pair
    merged = []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i] == left and tokens[i + 1] == right and (at is None or i in at):
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


def best_pair(pair_counts: Mapping[Pair, int], ties: str = "smallest",
              ids: Optional[Mapping[Token, int]] = None) -> Pair:
    """The most frequent pair; ``ties`` decides between equally frequent ones, as each trainer does.

    ``"smallest"`` (the lab's) takes the smallest pair of tokens in code-point
    (at the byte level byte) order, left tokens first; ``"greatest"`` the
    greatest (CS336's course); ``"first-seen"`` (the tutorial's; minbpe's
    with ``min_count=1``) the first in ``count_pairs``' order; ``"huggingface"`` and ``"rustbpe"``
    the smallest pair of IDs, ``ids`` numbering the tokens as their libraries
    do: the base tokens sorted (characters by code point, bytes by value, or
    for ``"huggingface"`` by GPT-2's display character), then each merge.

    >>> counts = {("b", "c"): 2, ("a", "b"): 2, ("c", "a"): 1}
    >>> best_pair(counts), best_pair(counts, "greatest"), best_pair(counts, ties="first-seen")
    (('a', 'b'), ('b', 'c'), ('b', 'c'))
    """
    check_choice(ties, TIE_RULES, "ties")
    if ties == "first-seen":
        return max(pair_counts, key=pair_counts.__getitem__)  # max keeps the first of equals
    if ties == "greatest":
        return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))
    if ties == "smallest":
        return min(pair_counts, key=lambda pair: (-pair_counts[pair], pair))
    return min(pair_counts, key=lambda pair: (-pair_counts[pair], ids[pair[0]], ids[pair[1]]))


def reference_train(chunk_counts: Mapping[Sequence[Token], int], max_merges: int, *, ties: str = "smallest",
                    min_count: int = 2,
                    progress: Optional[Callable[[int, int], None]] = None) -> list[tuple[Pair, int]]:
    """Learn up to ``max_merges`` merges the simple way: recount every pair after each merge.

    Returns ``(pair, count)`` for each merge, in the order learned. Training
    stops early when no pair occurs ``min_count`` times: by default twice,
    because merging a pair seen once would only memorise the training text.

    >>> reference_train({tuple("aaabdaaabac"): 1}, 3)
    [(('a', 'a'), 4), (('a', 'b'), 2), (('aa', 'ab'), 2)]

    (``a a`` occurs four times: twice in each ``aaa``, overlapping.) Where
    the rules differ, with every pair tied (byte level, the chunks "aa" and
    " bz", twice each): the space is the smallest byte but has the greatest
    display character, and `` b``, once merged, has a higher ID than ``a``.

    >>> for ties in TIE_RULES:
    ...     merges = reference_train({(b"a", b"a"): 2, (b" ", b"b", b"z"): 2}, 3, ties=ties)
    ...     print(f"{ties:>11}", [(left + right).decode() for (left, right), _ in merges])
       smallest [' b', ' bz', 'aa']
     first-seen ['aa', ' b', ' bz']
       greatest ['bz', 'aa', ' bz']
    huggingface ['aa', 'bz', ' bz']
        rustbpe [' b', 'aa', ' bz']
    """
    current = {tuple(tokens): count for tokens, count in chunk_counts.items()}
    base = sorted(set(chain.from_iterable(current)), key=lambda token: id_order(token, ties))
    ids = {token: number for number, token in enumerate(base)}  # merges are numbered as they are learned
    learned = []
    while len(learned) < max_merges:
        pair_counts = count_pairs(current)
        if not pair_counts:
            break
        pair = best_pair(pair_counts, ties, ids)
        if pair_counts[pair] < min_count:
            break
        learned.append((pair, pair_counts[pair]))
        ids.setdefault(pair[0] + pair[1], len(ids))
        current = {merge_pair(tokens, pair): count for tokens, count in current.items()}
        report_progress(progress, len(learned), max_merges)
    report_progress(progress, len(learned), max_merges, finished=True)
    return learned


def reference_encode(tokens: Sequence[Token], merge_rank: Mapping[Pair, int], *, dropout: float = 0.0,
                     rng: Optional[random.Random] = None,
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
    BPE-dropout (Provilkov et al., 2020) as subword-nmt does it: with
    ``dropout`` p, each step first draws ``rng.random()`` for every adjacent
    pair, left to right, and leaves out those whose draw is not above p.
    """
    if dropout and not isinstance(rng, random.Random):
        raise TypeError(f"dropout needs rng, a random.Random to draw from, not {type(rng).__name__}")
    tokens = tuple(tokens)
    while len(tokens) > 1:
        kept = [at for at in range(len(tokens) - 1) if not dropout or rng.random() > dropout]
        ranked = [(merge_rank[pair], pair) for pair in (tokens[at:at + 2] for at in kept) if pair in merge_rank]
        if not ranked:
            break
        rank, pair = min(ranked)
        tokens = merge_pair(tokens, pair, set(kept) if dropout else None)
        if on_merge is not None:
            on_merge(rank, pair, tokens)
    return tokens


def reference_superbpe(words: Mapping[Sequence[Token], int], spans: Mapping[Sequence[Token], int], transition: int,
                       max_merges: int, *, ties: str = "smallest") -> list[tuple[Pair, int]]:
    """SuperBPE (Liu et al., 2025): ``transition`` merges learned within ``words``, the rest across them.

    ``words`` and ``spans`` count the chunks of one text cut two ways: by the
    usual pattern, and by one whose chunks hold several words. Stage 2 starts
    from the spans with stage 1's merges replayed, and learns on from there.

    >>> reference_superbpe({tuple("to"): 2, tuple(" do"): 2}, {tuple("to do"): 2}, 3, 4)[-1]
    (('to', ' do'), 2)
    """
    learned = reference_train(words, min(transition, max_merges), ties=ties)
    rank = {pair: number for number, (pair, _) in enumerate(learned)}
    replayed = {reference_encode(tokens, rank): count for tokens, count in spans.items()}
    return learned + reference_train(replayed, max_merges - len(learned), ties=ties)


# --------------------------------------------------------------------------
# 2. Chunks
# --------------------------------------------------------------------------
#
# Text is cut into chunks before any merging, and merges never cross a chunk
# boundary, so " the" can become a token but "the park" cannot. The lab's
# pattern is  " ?[A-Za-z0-9]+| ?[^A-Za-z0-9\s]+|\s+" : runs of ASCII letters
# and digits, runs of other symbols, runs of whitespace, the first two with an
# optional leading space. It knows only ASCII: on other scripts it glues
# punctuation to words and splits "café" as "caf" + "é". GPT-2's, GPT-4's and
# GPT-4o's patterns (``"gpt2"``, ``"cl100k"``, ``"o200k"``) know every script;
# they live in ``bpelab.text.patterns``, spelled with explicit Unicode classes so
# that Python, tiktoken and Hugging Face cut text alike.


def chunks(text: str, pattern: str = "lab") -> list[str]:
    """Cut ``text`` into the chunks that merges may not cross, with a named pattern (see ``PATTERNS``).

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


# --------------------------------------------------------------------------
# 3. The Tokenizer
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
        byte_level: True when the base tokens are the 256 byte values of UTF-8.
        pattern: the name of the chunk pattern (one of ``PATTERNS``).
        alphabet: the base tokens: the sorted characters, or the 256 bytes' display characters in ID order.
        merges: (left, right) pairs in the order learned.
        vocab: every token by ID; byte-level tokens in GPT-2's display form (``"Ġthe"`` is the bytes of
            ``" the"``), special tokens as their text, None for an ID no token has (a gap before a special token).
        ids: each ordinary (not special) token -> its ID.
        special_tokens: each special token's text -> its ID.
        merge_rank: each merged pair -> its rank (0 for the first merge).
        history: after training, each merge as ``{"pair": [left, right], "token": left + right, "count": n}``;
            empty after loading.
        ties: the tie rule training used (see ``best_pair``); None when built or loaded.
        add_prefix_space: whether a space is put before text that does not start with one (byte level only).
        pipeline: an imported model's added tokens, normalizer and the rest (``bpelab.imported.pipeline``), or None.

    ``len(tok)`` (also ``tok.n_vocab``) is the number of IDs.
    """

    def __init__(self, alphabet: Optional[Sequence[str]], merges: Sequence[tuple[str, str]], *, byte_level: bool = False,
                 pattern: Optional[str] = None, special_tokens: Union[Sequence[str], Mapping[str, int]] = (),
                 add_prefix_space: bool = False, vocab: Optional[Sequence[Optional[str]]] = None, pipeline=None):
        """Build a tokenizer from its base tokens and merge list, checking both.

        ``alphabet``: the sorted characters, or at the byte level None (the 256 bytes in byte order) or their 256
        display characters in ID order. ``special_tokens``: a list (IDs follow the merges, in order) or a dict of text
        -> ID (IDs at or above the first free one; gaps allowed). An imported model gives its IDs instead, ``vocab``
        (every token by ID, None in a gap), and a ``pipeline``: see ``bpelab.imported.vocabulary``.
        """
        check_flag(byte_level, "byte_level")
        check_prefix_space(add_prefix_space, byte_level)
        self.history, self.ties = [], None
        if vocab is not None or pipeline is not None:  # the IDs are given, not rebuilt
            self._given = (vocabulary.GivenVocabulary if byte_level else sentencepiece.CharacterVocabulary)(
                vocab, merges, pipeline, byte_level, alphabet, pattern, special_tokens, add_prefix_space)
            self.__dict__.update(self._given.attributes())
            return self._prepare()
        pattern = DEFAULT_PATTERN[byte_level] if pattern is None else pattern
        check_pattern(pattern)
        if byte_level:
            base = check_byte_alphabet(alphabet)
        else:
            check_alphabet(alphabet)
            base = [UNK, *alphabet]
        ordinary = base + check_merges(merges, base)
        self.special_tokens = special_token_ids(special_tokens, ordinary, byte_level)
        self.byte_level = byte_level
        self.pattern = pattern
        self.alphabet = base if byte_level else base[1:]
        self.merges = [(left, right) for left, right in merges]
        self.vocab = ordinary + [None] * (max(self.special_tokens.values(), default=-1) + 1 - len(ordinary))
        for text, token_id in self.special_tokens.items():
            self.vocab[token_id] = text
        self.ids = {token: token_id for token_id, token in enumerate(ordinary)}
        self.add_prefix_space, self.pipeline = add_prefix_space, None
        self._prepare()

    def _prepare(self):
        """Derive the tables that encoding and decoding use from the attributes above.

        ``_merged_id`` maps a pair of IDs to the ID of its merge (the fast engine works on IDs), ``_decoded``
        holds what each ID decodes to (bytes at the byte level), and ``_cache`` each chunk's IDs once encoded.
        """
        if self.pipeline is not None:  # (its start IDs and blocks too, in place of the methods below)
            self._decoded, self._cut, self._specials, self._cache, self._start_ids, self._blocks = self._given.tables()
            return
        ids = self.ids
        self._merged_id = {(ids[left], ids[right]): ids[left + right] for left, right in self.merges}
        if self.byte_level:
            self._byte_ids = bytes(ids[char] for char in BYTE_TO_CHAR)  # a bytes.translate table: byte -> ID
            decoded = [SINGLE_BYTES[CHAR_TO_BYTE[char]] for char in self.alphabet]
        else:
            self._character_id = {char: token_id for token_id, char in enumerate(self.alphabet, 1)}
            decoded = [REPLACEMENT_CHARACTER, *self.alphabet]
        for left, right in self.merges:  # a merged token's text is its parts' text
            decoded.append(decoded[ids[left]] + decoded[ids[right]])
        decoded += [None] * (len(self.vocab) - len(decoded))
        for text, token_id in self.special_tokens.items():
            decoded[token_id] = text.encode("utf-8") if self.byte_level else text
        self._decoded = decoded
        self._cut = chunker(self.pattern)
        self._cache = ChunkCache(self._encode_new_chunk)
        self._specials = SpecialTokenMatcher(self.special_tokens)

    @functools.cached_property
    def merge_rank(self):
        """Each merged pair -> its rank (0 for the first merge); worked out on first use."""
        return {pair: rank for rank, pair in enumerate(self.merges)}

    def __repr__(self):
        return (f"Tokenizer(byte_level={self.byte_level!r}, pattern={self.pattern!r}, n_vocab={len(self)}, "
                f"merges={len(self.merges)}, special_tokens={len(self.special_tokens)})")

    def __len__(self) -> int:
        return len(self.vocab)

    @property
    def n_vocab(self) -> int:
        """The number of IDs, special tokens and any gaps included (as tiktoken counts)."""
        return len(self.vocab)

    # -- training ----------------------------------------------------------

    @classmethod
    def train(cls, text: str, vocab_size: int, *, byte_level: bool = False, pattern: Optional[str] = None,
              special_tokens: Sequence[str] = (), ties: str = "smallest", min_count: int = 2,
              superbpe: Optional[int] = None, add_prefix_space: bool = False, workers: int = 1,
              progress: Progress = None, on_merge: OnMerge = None) -> "Tokenizer":
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` entries.

        Training stops earlier when no pair occurs ``min_count`` times (twice by default); ``history`` then
        shows every merge learned with its count.

        - ``byte_level=True`` starts from the 256 byte values instead of the characters seen: no text is unknown.
        - ``pattern`` names the chunk pattern (``"lab"`` for characters, ``"gpt2"`` for bytes; see ``PATTERNS``).
        - ``special_tokens`` get IDs after the merges (and count towards ``vocab_size``); their text in the
          training data is left out.
        - ``ties`` chooses between equally frequent pairs (see ``best_pair``; with ``min_count``, other
          libraries' merges); ``workers`` processes count chunks.
        - ``superbpe=t``: SuperBPE (see ``reference_superbpe``), stage 1 with ``pattern`` (``"o200k"`` unless given).
        - ``add_prefix_space=True`` (byte level) puts a space before text that lacks one, as ``encode`` will.
        - ``progress(merges_done, merge_target)`` is called about a hundred times; ``on_merge(rank, entry)``
          with each ``history`` entry as soon as it is learned.
        """
        check_text(text)
        options = training_options(vocab_size, byte_level, pattern, special_tokens, ties, min_count, progress,
                                   on_merge, superbpe, add_prefix_space, workers)
        if byte_level:
            text = replace_lone_surrogates(text)
        else:
            check_no_surrogate(text, "text", "; remove it, or train with byte_level=True, which reads it as U+FFFD")
        counts, spans = counting.counted_text(text, options, workers), span_counts(options, text_blocks(text))
        return cls._train_on_counts(counts, spans, vocab_size, byte_level, options, progress, on_merge)

    @classmethod
    def train_from_files(cls, paths: Sequence[PathLike], vocab_size: int, *, byte_level: bool = False,
                         pattern: Optional[str] = None, special_tokens: Sequence[str] = (), ties: str = "smallest",
                         min_count: int = 2, superbpe: Optional[int] = None, add_prefix_space: bool = False,
                         workers: int = 1, progress: Progress = None, on_merge: OnMerge = None,
                         block_size: int = BLOCK_SIZE) -> "Tokenizer":
        """Train on UTF-8 files as if they were one concatenated text, without holding it.

        The files are read ``block_size`` bytes at a time and cut only where a cut cannot change the chunks, so
        the result is exactly that of ``train`` on the concatenated text ("first seen" included); memory holds
        the chunk counts, not the text (SuperBPE reads the files twice). The other options are ``train``'s.
        """
        paths = check_paths(paths)
        options = training_options(vocab_size, byte_level, pattern, special_tokens, ties, min_count, progress,
                                   on_merge, superbpe, add_prefix_space, workers)
        check_positive_int(block_size, "block_size")
        counts = counting.counted_files(paths, options, workers, block_size)
        spans = span_counts(options, read_blocks(paths, block_size))
        return cls._train_on_counts(counts, spans, vocab_size, byte_level, options, progress, on_merge)

    @classmethod
    def train_from_counts(cls, chunk_counts: Mapping[str, int], vocab_size: int, *, byte_level: bool = False,
                          pattern: Optional[str] = None, special_tokens: Sequence[str] = (), ties: str = "smallest",
                          min_count: int = 2, superbpe: Optional[int] = None, add_prefix_space: bool = False,
                          progress: Progress = None, on_merge: OnMerge = None,
                          superbpe_counts: Optional[Mapping[str, int]] = None) -> "Tokenizer":
        """Train on chunk counts made elsewhere (``count_chunks``, a process pool, ``bpelab.corpora.cluster_counting``).

        ``chunk_counts`` maps each chunk string, exactly as ``chunks`` cuts it with the same pattern, to a
        positive count; a special token's text may be a key of its own (it is not trained on). "First seen"
        follows the order of the keys. Counting chunks is the only step whose cost grows with the corpus, so any
        engine can do it and hand the result over (with ``add_prefix_space``, counted as ``count_chunks``
        counts). SuperBPE also needs ``superbpe_counts``, the same text cut by ``"superbpe"``.
        """
        options = training_options(vocab_size, byte_level, pattern, special_tokens, ties, min_count, progress,
                                   on_merge, superbpe, add_prefix_space)
        check_chunk_counts(chunk_counts, options.pattern, options.specials)
        spans = check_span_counts(options, chunk_counts, superbpe_counts)
        return cls._train_on_counts(chunk_counts, spans, vocab_size, byte_level, options, progress, on_merge)

    @classmethod
    def _train_on_counts(cls, chunk_counts, spans, vocab_size, byte_level, options, progress, on_merge):
        """The step every trainer shares: chunk counts in, merges learned by the fast engine, tokenizer out."""
        alphabet, sequences, merges_wanted = start_sequences(chunk_counts, vocab_size, byte_level, options.specials)
        display_form = bytes_to_display if byte_level else str
        history = []

        def learned(rank, pair, count):
            left, right = display_form(pair[0]), display_form(pair[1])
            history.append({"pair": [left, right], "token": left + right, "count": count})
            if on_merge is not None:
                on_merge(rank, history[-1])

        learn, pattern = trainer(spans, options, vocab_size, byte_level)  # SuperBPE's two stages, if spans
        learn(sequences, merges_wanted, ties=options.ties, min_count=options.min_count, progress=progress,
              on_merge=learned)
        merges = [tuple(entry["pair"]) for entry in history]
        tokenizer = cls(alphabet, merges, byte_level=byte_level, pattern=pattern, special_tokens=options.specials,
                        add_prefix_space=options.add_prefix_space)
        tokenizer.history, tokenizer.ties = history, options.ties
        return tokenizer

    # -- encoding ----------------------------------------------------------

    def encode(self, text: str, *, allowed_special: SpecialChoice = None, disallowed_special: SpecialChoice = None,
               dropout: float = 0.0, seed: Optional[int] = None) -> list[int]:
        """Turn ``text`` into a list of token IDs.

        >>> Tokenizer(["a", "b", "c"], [("a", "b")]).encode("abcabd")
        [4, 3, 4, 0]

        (``d`` is not in the alphabet: at the character level it is ID 0.)

        Special tokens follow tiktoken's rules: by default, a special token's text in the input is an error;
        ``allowed_special`` (a set of them, or ``"all"``) encodes those as their IDs; ``disallowed_special=()`` lets
        the rest through as ordinary text; with a ``pipeline`` (imported from Hugging Face), by default every added
        token's text is its ID, as there. At the byte level, lone surrogates (which have no UTF-8 form) are encoded as
        U+FFFD, as tiktoken does. ``dropout=p`` with a ``seed`` leaves merges out at random (BPE-dropout, see
        ``reference_encode``).
        """
        check_text(text)
        dropout = check_dropout(dropout, seed, self.pipeline is not None)  # a bpelab.merges.dropout.Dropout, or None
        if self.byte_level:
            text = replace_lone_surrogates(text)
        ids = []
        for segment, special_id in self._specials.segments(text, allowed_special, disallowed_special):
            if special_id is None:
                self._encode_ordinary(segment, ids, dropout)
            else:
                ids.append(special_id)
        return ids

    def _encode_ordinary(self, text, ids, dropout=None):
        """Append the IDs of ``text``, which holds no special token, to ``ids``.

        Each chunk starts as its characters (or bytes) and goes through
        ``encode_chunk``, which equals ``reference_encode``. Each distinct chunk
        is encoded once and remembered, so text that repeats its words (all
        text does) costs little more than chunking.
        """
        for block in self._blocks(text):
            cache = self._cache
            if dropout is None:
                ids.extend(chain.from_iterable(map(cache.__getitem__, self._cut(block))))
            else:  # never through the cache, which holds the chunks' IDs without dropout
                ids.extend(dropout.encode(map(self._start_ids, self._cut(block)), self._merged_id))
            self._cache = cache.renewed()

    def _blocks(self, text):
        """Text in blocks that end at safe cuts, with a prefix space in front if asked and needed."""
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        return safe_blocks(text_blocks(text, blocks.BLOCK_SIZE), self.pattern)

    def _encode_new_chunk(self, chunk):
        """A chunk's IDs, as a tuple, through the fast encoder (the cache calls this for chunks it lacks)."""
        return tuple(encode_chunk(self._start_ids(chunk), self._merged_id))

    def _start_ids(self, chunk):
        """The IDs of a chunk before any merge: its bytes, or its characters (unknown ones 0)."""
        if self.byte_level:
            return chunk.encode("utf-8").translate(self._byte_ids)
        known = self._character_id
        return [known.get(char, 0) for char in chunk]

    def tokens(self, text: str, *, allowed_special: SpecialChoice = None,
               disallowed_special: SpecialChoice = None) -> list[str]:
        """Split ``text`` into token strings (``<unk>`` for unknown characters, GPT-2 display form for bytes).

        >>> Tokenizer(None, [("Ġ", "c")], byte_level=True).tokens(" café")
        ['Ġc', 'a', 'f', 'Ã', '©']
        """
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return [self.vocab[token_id] for token_id in ids]

    def token_texts(self, text: str, *, allowed_special: SpecialChoice = None,
                    disallowed_special: SpecialChoice = None) -> list[str]:
        """Split ``text`` into the text each token stands for, to read rather than GPT-2's display form.

        >>> Tokenizer(None, [("Ġ", "c")], byte_level=True).token_texts(" café")
        [' c', 'a', 'f', '\\\\xc3', '\\\\xa9']

        The bytes of a character cut between tokens are written ``\\xNN``, and
        so a real backslash ``\\\\`` (as ``bpe show`` writes them); an unknown
        character is itself. See ``bpelab.text.readable``.
        """
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return readable.token_texts(self, replace_lone_surrogates(text) if self.byte_level else text, ids)

    def encode_with_offsets(self, text: str, *, allowed_special: SpecialChoice = None,
                            disallowed_special: SpecialChoice = None) -> list[tuple[int, int, int]]:
        """Encode ``text`` as ``(id, start, end)`` triples: each token's span of characters in ``text``.

        >>> Tokenizer(None, [], byte_level=True).encode_with_offsets("hé")
        [(104, 0, 1), (195, 1, 2), (169, 1, 2)]

        At the byte level a token that holds only part of a character (here
        each byte of ``é``) gets the span of that whole character.
        """
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        sizes = [len(self._decoded[token_id]) for token_id in ids]  # bytes, at the byte level or for a given vocab
        spans = token_offsets(text, sizes, self.byte_level or self.pipeline is not None)
        return [(token_id, start, end) for token_id, (start, end) in zip(ids, spans)]

    def chunks(self, text: str) -> list[str]:
        """Cut ``text`` as ``encode`` does, with this tokenizer's pattern (special tokens are not looked for)."""
        check_text(text)
        text = replace_lone_surrogates(text) if self.byte_level else text
        return [chunk for segment, _ in self._specials.segments(text, (), ()) if segment
                for block in self._blocks(segment) for chunk in self._cut(block)]

    def start_tokens(self, chunk: str) -> list[str]:
        """A chunk's tokens before any merge: its characters (unknown ones as ``<unk>``) or its bytes."""
        if self.byte_level:
            chunk = replace_lone_surrogates(chunk)
        return [self.vocab[token_id] for token_id in self._start_ids(chunk)]

    # -- decoding and looking up -------------------------------------------

    def decode(self, ids: Iterable[int], *, skip_special_tokens: Optional[bool] = None) -> str:
        """Turn token IDs back into text.

        >>> Tokenizer(["a", "c"], []).decode([2, 1, 0])
        'ca\\ufffd'

        ID 0 of a character-level tokenizer becomes U+FFFD; at the byte level,
        bytes that are not valid UTF-8 (a character cut in two) become U+FFFD.
        Any integer is an ID (numpy's too), but ``True`` and ``False`` are not.
        ``skip_special_tokens`` leaves special tokens out; by default only a
        tokenizer with a ``pipeline`` does, as Hugging Face's ``decode`` does.
        """
        skip = self.pipeline is not None if skip_special_tokens is None else skip_special_tokens
        check_flag(skip, "skip_special_tokens")
        if self.pipeline is not None and not self.byte_level:  # its decoder's steps (bpelab.imported.sentencepiece)
            return self._given.decode(ids, skip)
        values = decoded_values(ids, self._decoded, self._specials.special_ids if skip else ())
        return b"".join(values).decode("utf-8", errors="replace") if self.byte_level else "".join(values)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes that token IDs stand for (special tokens as their UTF-8 text)."""
        values = decoded_values(ids, self._decoded)  # (an imported model's IDs decode to bytes, at either level)
        return b"".join(values) if self.byte_level or self.pipeline is not None else "".join(values).encode("utf-8")

    def token_to_id(self, token: str) -> int:
        """The ID of an ordinary token (``tok.special_tokens`` holds the special ones' IDs)."""
        try:
            return self.ids[token]
        except (KeyError, TypeError):
            raise KeyError(f"{shown(token)} is not an ordinary token of this tokenizer") from None

    def id_to_token(self, token_id: int) -> str:
        """The token with this ID (a display string at the byte level, or a special token's text)."""
        return self.vocab[self._one_id(token_id)]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of the token with this ID (a special token's as its UTF-8 text)."""
        return self.decode_bytes([self._one_id(token_id)])

    def _one_id(self, token_id):
        """Check a single ID as ``decode`` checks each of a list."""
        decoded_values([token_id], self._decoded)
        return operator.index(token_id)

    def __getstate__(self):
        """What a copy in another process needs: its file, its training record and its cached chunks."""
        return {"body": self.to_json(), "history": self.history, "ties": self.ties, "cache": dict(self._cache)}

    def __setstate__(self, state):
        self.__dict__.update(Tokenizer.from_json(state["body"]).__dict__)
        self.history, self.ties = state["history"], state["ties"]
        self._cache.update(state["cache"])

    # -- files: bpelab.formats.lab, bpelab.reading and bpelab.writing ------

    def to_json(self) -> dict:
        """The tokenizer as a JSON-ready dict: format 1 for the lab's kind of tokenizer, else format 2."""
        return file_body(self)

    @classmethod
    def from_json(cls, data: dict) -> "Tokenizer":
        """Build a tokenizer from a dict made by ``to_json``, refusing anything malformed."""
        return cls(**tokenizer_arguments(data))

    def save(self, path: PathLike) -> None:
        """Write the tokenizer to ``path`` as JSON (``json.dumps(body, indent=1)`` and a newline), atomically."""
        write_text_atomic(path, file_text(self))

    @classmethod
    def load(cls, path: PathLike) -> "Tokenizer":
        """Read a tokenizer file; a malformed one is a ``ValueError`` naming the file (one not opened, ``OSError``)."""
        data = read_json(path)
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{named(path)}: {error}") from None

    # -- the rest, each written in the package module of its concern ------

    encode_batch = token_files.encode_batch  # many texts, in worker processes if asked
    encode_files = token_files.encode_files  # a corpus into a flat file of IDs for training a model
    count_files = token_files.count_files
    load_tiktoken = classmethod(tiktoken_files.load_tiktoken)  # tiktoken's .tiktoken files
    to_tiktoken = tiktoken_files.to_tiktoken
    load_huggingface = classmethod(huggingface.load_huggingface)  # Hugging Face's tokenizer.json
    to_huggingface = huggingface.to_huggingface
    save_huggingface = huggingface.save_huggingface
    apply_template = huggingface.apply_template  # a model's template tokens (a beginning-of-text token, say)
    load_named = classmethod(official.load_named)  # OpenAI's vocabularies by name, from files already here
    load_vocab_merges = classmethod(gpt2.load_vocab_merges)  # GPT-2's vocab.json + merges.txt
    save_vocab_merges = gpt2.save_vocab_merges
    from_bytes = classmethod(in_memory.from_bytes)  # course material's dict[int, bytes] and byte-pair merges
    to_bytes = in_memory.to_bytes
    encode_iterable = streaming.encode_iterable  # IDs of a long stream of text (an open file), lazily


if __name__ == "__main__":  # ``python3 bpe.py COMMAND`` is the command line, bpelab/commands/cli.py
    import runpy
    import sys

    sys.modules.setdefault("bpe", sys.modules[__name__])  # its ``import bpe`` finds this module, not a second copy
    runpy.run_module("bpelab.commands.cli", run_name="__main__", alter_sys=True)
