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
import importlib
import operator
import random
from collections import Counter
from itertools import chain
from typing import Callable, Iterable, Mapping, Optional, Sequence, Union

from bpelab import byte_level as utf8, checks, messages, reading, writing
from bpelab.corpora import counting, streaming, token_files
from bpelab.formats import gpt2, huggingface, in_memory, lab, official, tiktoken as tiktoken_files
from bpelab.imported import models
from bpelab.merges import learning, parity, picky, rules, training
from bpelab.text import blocks, offsets, patterns, readable, specials

__all__ = [  # the lesson's names, then (at the bottom, ``FORWARDED``) the machinery's
    "merge_pair", "count_pairs", "best_pair", "reference_train", "reference_encode",
    "reference_superbpe", "chunks", "Tokenizer",
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


def merge_pair(tokens: Sequence[rules.Token], pair: rules.Pair, at: Optional[set] = None) -> tuple:
    """Replace every non-overlapping ``pair`` in ``tokens``, left to right (those starting ``at``).

    >>> merge_pair(("a", "a", "a", "b"), ("a", "a"))
    ('aa', 'a', 'b')

    Once the first two ``a`` are glued, the third has no partner left.
    """
    left, right = pair
    merged = []
    i = 0
    while i < len(tokens):
        found = i + 1 < len(tokens) and tokens[i] == left and tokens[i + 1] == right
        if found and (at is None or i in at):
            merged.append(left + right)
            i += 2
        else:
            merged.append(tokens[i])
            i += 1
    return tuple(merged)


def count_pairs(chunk_counts: Mapping[Sequence[rules.Token], int]) -> Counter:
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


def best_pair(pair_counts: Mapping[rules.Pair, int], ties: str = "smallest",
              ids: Optional[Mapping[rules.Token, int]] = None) -> rules.Pair:
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
    checks.check_choice(ties, rules.TIE_RULES, "ties")
    if ties == "first-seen":
        return max(pair_counts, key=pair_counts.__getitem__)  # max keeps the first of equals
    if ties == "greatest":
        return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))
    if ties == "smallest":
        return min(pair_counts, key=lambda pair: (-pair_counts[pair], pair))
    return min(pair_counts, key=lambda pair: (-pair_counts[pair], ids[pair[0]], ids[pair[1]]))


def reference_train(chunk_counts: Mapping[Sequence[rules.Token], int], max_merges: int, *,
                    ties: str = "smallest", min_count: int = 2,
                    progress: Optional[Callable[[int, int], None]] = None
                    ) -> list[tuple[rules.Pair, int]]:
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

    >>> for ties in rules.TIE_RULES:
    ...     merges = reference_train({(b"a", b"a"): 2, (b" ", b"b", b"z"): 2}, 3, ties=ties)
    ...     print(f"{ties:>11}", [(left + right).decode() for (left, right), _ in merges])
       smallest [' b', ' bz', 'aa']
     first-seen ['aa', ' b', ' bz']
       greatest ['bz', 'aa', ' bz']
    huggingface ['aa', 'bz', ' bz']
        rustbpe [' b', 'aa', ' bz']
    """
    current = {tuple(tokens): count for tokens, count in chunk_counts.items()}
    base = sorted(set(chain.from_iterable(current)), key=lambda token: rules.id_order(token, ties))
    ids = {token: number for number, token in enumerate(base)}  # then each merge, as learned
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
        rules.report_progress(progress, len(learned), max_merges)
    rules.report_progress(progress, len(learned), max_merges, finished=True)
    return learned


def reference_encode(tokens: Sequence[rules.Token], merge_rank: Mapping[rules.Pair, int], *,
                     dropout: float = 0.0, rng: Optional[random.Random] = None,
                     on_merge: Optional[Callable[[int, rules.Pair, tuple], None]] = None) -> tuple:
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
        raise TypeError(f"dropout needs rng, a random.Random, not {type(rng).__name__}")
    tokens = tuple(tokens)
    while len(tokens) > 1:
        kept = [at for at in range(len(tokens) - 1) if not dropout or rng.random() > dropout]
        pairs = (tokens[at:at + 2] for at in kept)
        ranked = [(merge_rank[pair], pair) for pair in pairs if pair in merge_rank]
        if not ranked:
            break
        rank, pair = min(ranked)
        tokens = merge_pair(tokens, pair, set(kept) if dropout else None)
        if on_merge is not None:
            on_merge(rank, pair, tokens)
    return tokens


def reference_superbpe(words: Mapping[Sequence[rules.Token], int],
                       spans: Mapping[Sequence[rules.Token], int], transition: int,
                       max_merges: int, *, ties: str = "smallest") -> list[tuple[rules.Pair, int]]:
    """SuperBPE (Liu et al., 2025): ``transition`` merges learned within ``words``, the rest across.

    ``words`` and ``spans`` count the chunks of one text cut two ways: by the
    usual pattern, and by one whose chunks hold several words. Stage 2 starts
    from the spans with stage 1's merges replayed, and learns on from there (the idea;
    ``bpelab.merges.superbpe`` adds the official trainer's rules).

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
    """Cut ``text`` into the chunks merges may not cross, by a pattern (``PATTERNS``, or a regex).

    >>> chunks("at the park, mia")
    ['at', ' the', ' park', ',', ' mia']
    >>> chunks("I'll pay 1234 coins!", "cl100k")
    ['I', "'ll", ' pay', ' ', '123', '4', ' coins', '!']

    Every character belongs to exactly one chunk, so joining the chunks gives
    the text back; we check that, because a pattern that silently dropped
    characters would make decoding lose text.
    """
    found = patterns.compiled(pattern).findall(text)
    if "".join(found) != text:
        raise AssertionError("chunks do not concatenate back to the text")
    return found


# --------------------------------------------------------------------------
# 3. The Tokenizer
# --------------------------------------------------------------------------
#
# A ``Tokenizer`` holds one model and asks it the same few things whatever
# its kind: cut a text around its special tokens, encode a stretch between
# them, decode IDs, say what it is. The lab's own kind rebuilds its IDs from
# the base tokens and the merges (``bpelab.merges.lab_model``, which lists
# what every model answers); an imported one (a Hugging Face file's) gives
# them, and ``bpelab.imported.models`` builds either.


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
        pattern: the chunk pattern: a name of ``PATTERNS``, or a regex (``bpelab.text.patterns``).
        alphabet: the base tokens: the sorted characters, or the 256 bytes' display forms by ID.
        merges: (left, right) pairs in the order learned.
        vocab: every token by ID; byte-level tokens in GPT-2's display form (``"Ġthe"`` is the
            bytes of ``" the"``), special tokens as their text, None for an ID no token has.
        ids: each ordinary (not special) token -> its ID.
        special_tokens: each special token's text -> its ID.
        merge_rank: each merged pair -> its rank (0 for the first merge).
        history: after training, each merge as ``{"pair": [left, right], "token": left + right,
            "count": n}``; empty after loading.
        ties: the tie rule training used (see ``best_pair``); None when built or loaded.
        add_prefix_space: whether a space goes before text that does not start with one.
        pipeline: an imported model's added tokens, normalizer and the rest
            (``bpelab.imported.pipeline``), or None.
        removals: PickyBPE's ``(after, token)`` removals (``bpelab.merges.picky``), else empty.

    ``len(tok)`` (also ``tok.n_vocab``) is the number of IDs.
    """

    def __init__(self, alphabet: Optional[Sequence[str]], merges: Sequence[tuple[str, str]], *,
                 byte_level: bool = False, pattern: Optional[str] = None,
                 special_tokens: Union[Sequence[str], Mapping[str, int]] = (),
                 add_prefix_space: bool = False, vocab: Optional[Sequence[Optional[str]]] = None,
                 pipeline=None, removals: Sequence[tuple[int, str]] = ()):
        """Build a tokenizer from its base tokens and merge list, checking both.

        ``alphabet``: the sorted characters, or at the byte level None (the 256 bytes in byte order)
        or their 256 display characters in ID order. ``special_tokens``: a list (IDs follow the
        merges, in order) or a dict of text -> ID (IDs at or above the first free one). An imported
        model gives its IDs instead, ``vocab`` (every token by ID, None in a gap), and a
        ``pipeline``: see ``bpelab.imported.models``; PickyBPE's also gives its ``removals``.
        """
        checks.check_flag(byte_level, "byte_level")
        model = models.make_model(alphabet, merges, byte_level, pattern, special_tokens,
                                  add_prefix_space, vocab, pipeline, removals)  # any kind, one door
        self._model, self.history, self.ties = model, [], None
        self.byte_level, self.pattern = model.byte_level, model.pattern
        self.alphabet, self.merges = model.alphabet, model.merges
        self.vocab, self.ids = model.vocab, model.ids
        self.special_tokens, self.add_prefix_space = model.special_tokens, model.add_prefix_space
        self.pipeline, self.removals = model.pipeline, model.removals

    @functools.cached_property
    def merge_rank(self):
        """Each merged pair -> its rank (0 for the first merge); worked out on first use."""
        return {pair: rank for rank, pair in enumerate(self.merges)}

    def __repr__(self):
        return (f"Tokenizer(byte_level={self.byte_level!r}, pattern={self.pattern!r}, "
                f"n_vocab={len(self)}, merges={len(self.merges)}, "
                f"special_tokens={len(self.special_tokens)})")

    def __len__(self) -> int:
        return len(self.vocab)

    n_vocab = property(__len__, doc="The number of IDs, special tokens and gaps included.")

    def describe(self) -> dict:
        """What kind of model this is, for ``bpe inspect`` and the drawing of tokens: ``{"base",
        "unknown_id", "decodes_bytes", "ignore_merges", "one_merge_at_a_time", "added_ids",
        "pipeline", "dropout", "skip_special_tokens"}`` (``bpelab.merges.lab_model`` says each)."""
        return dict(self._model.description)

    # -- training ----------------------------------------------------------

    @classmethod
    def train(cls, text: str, vocab_size: int, **options) -> "Tokenizer":
        """Learn merges from ``text`` until the vocabulary has ``vocab_size`` entries.

        Training stops earlier when no pair occurs ``min_count`` times (twice by default, for
        SuperBPE once); ``history`` then shows every merge learned with its count. The options,
        all checked before any work (``bpelab.merges.training.training_options``):

        - ``byte_level=True`` starts from the 256 byte values instead of the characters seen.
        - ``pattern``: a built-in's name (``"lab"``: characters, ``"gpt2"``: bytes, ``"uncut"``:
          none) or a regex as Hugging Face, tiktoken and nanochat write it, translated exactly.
        - ``special_tokens`` get IDs after the merges (and count towards ``vocab_size``); their
          text in the training data is left out.
        - ``ties`` chooses between equally frequent pairs (see ``best_pair``; ``"smallest"``, for
          SuperBPE ``"huggingface"``; with ``min_count``, other libraries' merges); ``workers``
          processes count chunks.
        - ``superbpe=t`` or ``SuperBPE(t, ...)``: SuperBPE as its official code trains it
          (``bpelab.merges.superbpe``), stage 1 with ``pattern`` if given.
        - ``add_prefix_space=True`` (byte level) puts a space before text that lacks one.
        - ``progress(merges_done, merge_target)`` is called about a hundred times,
          ``count_progress(bytes_done, bytes_total)`` as chunks are counted, and
          ``on_merge(rank, entry)`` with each ``history`` entry as soon as it is learned.
        """
        checks.check_text(text)
        options = training.training_options(vocab_size, **options)
        return learning.trained(cls, *counting.counted_text(text, options), options, owned=True)

    @classmethod
    def train_from_files(cls, paths: Sequence[reading.PathLike], vocab_size: int, *,
                         block_size: int = blocks.BLOCK_SIZE, **options) -> "Tokenizer":
        """Train on UTF-8 files as if they were one concatenated text, without holding it.

        Each is read ``block_size`` bytes at a time and cut only where a cut cannot change the
        chunks, so the result is exactly ``train``'s on the text; workers read their own parts of
        the files. A path may be an open binary stream or a pipe, read once, in this process.
        """
        return counting.train_from_files(cls, paths, vocab_size, block_size, **options)

    @classmethod
    def train_from_counts(cls, chunk_counts: Mapping[str, int], vocab_size: int, *,
                          superbpe_counts: Optional[Mapping[str, int]] = None,
                          **options) -> "Tokenizer":
        """Train on chunk counts made elsewhere (``count_chunks``, on a cluster, ...)

        ``chunk_counts`` maps each chunk, exactly as ``chunks`` cuts it with the same pattern, to
        a positive count; a special token's text may be a key of its own. "First seen" follows the
        order of the keys. SuperBPE also needs ``superbpe_counts``, the text cut by its stage 2.
        """
        return learning.train_from_counts(cls, chunk_counts, vocab_size, superbpe_counts, **options)

    # -- encoding ----------------------------------------------------------

    def encode(self, text: str, *, allowed_special: specials.SpecialChoice = None,
               disallowed_special: specials.SpecialChoice = None, dropout: float = 0.0,
               seed: Optional[int] = None, dropout_rule: str = "subword-nmt") -> list[int]:
        """Turn ``text`` into a list of token IDs.

        >>> Tokenizer(["a", "b", "c"], [("a", "b")]).encode("abcabd")
        [4, 3, 4, 0]

        (``d`` is not in the alphabet: at the character level it is ID 0.)

        Special tokens follow tiktoken's rules: by default, a special token's text in the input
        is an error; ``allowed_special`` (a set of them, or ``"all"``) encodes those as their IDs;
        ``disallowed_special=()`` lets the rest through as ordinary text; with a ``pipeline``
        (imported from Hugging Face), by default every added token's text is its ID, as there. At
        the byte level, lone surrogates (which have no UTF-8 form) are encoded as U+FFFD, as
        tiktoken does. ``dropout=p`` with a ``seed`` leaves merges out at random (BPE-dropout, see
        ``reference_encode``) by ``dropout_rule``: subword-nmt's, the paper's or Hugging Face's.
        """
        checks.check_text(text)
        dropout = self._model.dropout(dropout, seed, dropout_rule)  # a Dropout, None, or a refusal
        if self.byte_level:
            text = utf8.replace_lone_surrogates(text)
        ids = []
        for segment, special_id in self._model.segments(text, allowed_special, disallowed_special):
            if special_id is None:
                self._model.encode_segment(segment, ids, dropout)
            else:
                ids.append(special_id)
        return ids

    def tokens(self, text: str, *, allowed_special: specials.SpecialChoice = None,
               disallowed_special: specials.SpecialChoice = None) -> list[str]:
        """Split ``text`` into token strings (``<unk>`` for unknown characters, GPT-2's for bytes).

        >>> Tokenizer(None, [("Ġ", "c")], byte_level=True).tokens(" café")
        ['Ġc', 'a', 'f', 'Ã', '©']
        """
        ids = self.encode(text, allowed_special=allowed_special,
                          disallowed_special=disallowed_special)
        return [self.vocab[token_id] for token_id in ids]

    def token_texts(self, text: str, *, allowed_special: specials.SpecialChoice = None,
                    disallowed_special: specials.SpecialChoice = None) -> list[str]:
        """Split ``text`` into the text each token stands for, to read rather than GPT-2's form.

        >>> Tokenizer(None, [("Ġ", "c")], byte_level=True).token_texts(" café")
        [' c', 'a', 'f', '\\\\xc3', '\\\\xa9']

        The bytes of a character cut between tokens are written ``\\xNN``, and
        so a real backslash ``\\\\`` (as ``bpe show`` writes them); an unknown
        character is itself. See ``bpelab.text.readable``.
        """
        ids = self.encode(text, allowed_special=allowed_special,
                          disallowed_special=disallowed_special)
        text = utf8.replace_lone_surrogates(text) if self.byte_level else text
        return readable.token_texts(self, text, ids)

    def readable_tokens(self, text: str, *, allowed_special: specials.SpecialChoice = None,
                        disallowed_special: specials.SpecialChoice = None) -> list[str]:
        """Split ``text`` into tokens in the readable form, the one ``bpe show`` and the pages draw.

        >>> tok = Tokenizer(None, [("Ġ", "c")], byte_level=True)
        >>> print(*tok.readable_tokens(" café\u200d"))
        ␣c a f é[1/2] é[2/2] ⟨ZWJ⟩[1/3] ⟨ZWJ⟩[2/3] ⟨ZWJ⟩[3/3]

        Whitespace is a mark (``␣ ⇥ ↵ ␍``), a character that shows nothing is
        named (``⟨ZWJ⟩``), a token that holds part of a character is that
        character with the bytes it holds. See ``bpelab.text.readable``.
        """
        ids = self.encode(text, allowed_special=allowed_special,
                          disallowed_special=disallowed_special)
        return readable.readable_texts(self, ids, text)

    def encode_with_offsets(self, text: str, *, unit: str = "characters",
                            allowed_special: specials.SpecialChoice = None,
                            disallowed_special: specials.SpecialChoice = None) -> list[tuple]:
        """Encode ``text`` as ``(id, start, end)`` triples: each token's span of the text.

        >>> Tokenizer(None, [], byte_level=True).encode_with_offsets("hé")
        [(104, 0, 1), (195, 1, 2), (169, 1, 2)]
        >>> Tokenizer(None, [], byte_level=True).encode_with_offsets("hé", unit="bytes")
        [(104, 0, 1), (195, 1, 2), (169, 2, 3)]

        In characters a token holding part of a character (each byte of ``é``)
        gets the whole character's span; in bytes the spans partition the
        text's UTF-8 (an added space spans nothing; ``bpelab.text.offsets``
        says where text a normalizer changed goes).
        """
        return offsets.token_offsets(self._model, text, unit, allowed_special, disallowed_special)

    def chunks(self, text: str) -> list[str]:
        """Cut ``text`` as ``encode`` does, (no special token sought)."""
        checks.check_text(text)
        text = utf8.replace_lone_surrogates(text) if self.byte_level else text
        return [chunk for segment, special_id in self._model.segments(text, (), ())
                if segment and special_id is None for chunk in self._model.chunks(segment)]

    def chunk_ids(self, chunk: str) -> list[int]:
        """The IDs of one chunk as ``chunks`` cuts it, its merges replayed as ``encode`` does."""
        return list(self._model.cache[chunk])

    def start_tokens(self, chunk: str) -> list[str]:
        """A chunk's tokens before any merge: its characters (unknown: ``<unk>``) or its bytes."""
        if self.byte_level:
            chunk = utf8.replace_lone_surrogates(chunk)
        return [self.vocab[token_id] for token_id in self._model.start_ids(chunk)]

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
        skip = skip_special_tokens
        skip = self._model.skips_special_tokens if skip is None else skip
        checks.check_flag(skip, "skip_special_tokens")
        return self._model.decode(ids, skip)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes that token IDs stand for (special tokens as their UTF-8 text)."""
        values = checks.decoded_values(ids, self._model.decoded)
        return b"".join(values) if self._model.decodes_bytes else "".join(values).encode("utf-8")

    def token_to_id(self, token: str) -> int:
        """The ID of an ordinary token (``tok.special_tokens`` holds the special ones' IDs)."""
        try:
            return self.ids[token]
        except (KeyError, TypeError):
            raise KeyError(f"{messages.shown(token)} is not an ordinary token here") from None

    def id_to_token(self, token_id: int) -> str:
        """The token with this ID (at the byte level a display string; a special token's text)."""
        return self.vocab[self._one_id(token_id)]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of the token with this ID (a special token's as its UTF-8 text)."""
        return self.decode_bytes([self._one_id(token_id)])

    def _one_id(self, token_id):
        """Check a single ID as ``decode`` checks each of a list."""
        checks.decoded_values([token_id], self._model.decoded)
        return operator.index(token_id)

    def __getstate__(self):
        """What a copy in another process needs: its file, training record and cached chunks."""
        return {"body": self.to_json(), "history": self.history, "ties": self.ties,
                "cache": dict(self._model.cache)}

    def __setstate__(self, state):
        Tokenizer.__init__(self, **lab.tokenizer_arguments(state["body"]))
        self.history, self.ties = state["history"], state["ties"]
        self._model.cache.update(state["cache"])

    # -- files: bpelab.formats.lab, bpelab.reading and bpelab.writing ------

    def to_json(self) -> dict:
        """The tokenizer as a JSON-ready dict: format 1 for the lab's kind, else format 2 or 3."""
        return lab.file_body(self)

    @classmethod
    def from_json(cls, data: dict) -> "Tokenizer":
        """Build a tokenizer from a dict made by ``to_json``, refusing anything malformed."""
        return cls(**lab.tokenizer_arguments(data))

    def save(self, path: reading.PathLike) -> None:
        """Write the tokenizer to ``path`` as JSON (``json.dumps(body, indent=1)``), atomically."""
        writing.write_text_atomic(path, lab.file_text(self))

    @classmethod
    def load(cls, path: reading.PathLike) -> "Tokenizer":
        """Read a tokenizer file; a malformed one is a ``ValueError`` naming the file."""
        data = reading.read_json(path)
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{messages.named(path)}: {error}") from None

    # -- the rest, each written in the package module of its concern ------

    train_from_iterator = classmethod(counting.train_from_iterator)  # documents, each on its own
    encode_batch = token_files.encode_batch  # many texts, in worker processes if asked
    encode_files = token_files.encode_files  # a corpus into a flat file of IDs for training a model
    count_files = token_files.count_files
    load_tiktoken = classmethod(tiktoken_files.load_tiktoken)  # tiktoken's .tiktoken files
    to_tiktoken = tiktoken_files.to_tiktoken
    load_huggingface = classmethod(huggingface.load_huggingface)  # Hugging Face's tokenizer.json
    to_huggingface = huggingface.to_huggingface
    save_huggingface = huggingface.save_huggingface
    apply_template = huggingface.apply_template  # a model's template tokens (a text's first, say)
    load_named = classmethod(official.load_named)  # OpenAI's vocabularies by name, from files here
    load_vocab_merges = classmethod(gpt2.load_vocab_merges)  # GPT-2's vocab.json + merges.txt
    save_vocab_merges = gpt2.save_vocab_merges
    from_bytes = classmethod(in_memory.from_bytes)  # course material's dict[int, bytes] and merges
    to_bytes = in_memory.to_bytes
    encode_iterable = streaming.encode_iterable  # IDs of a long stream of text, lazily
    decode_stream = streaming.decode_stream  # text of IDs a few at a time, whole characters only
    train_parity, train_parity_from_files, train_parity_from_counts = parity.TRAINERS  # languages
    train_picky, train_picky_from_files, train_picky_from_counts = picky.TRAINERS  # PickyBPE's
    # every variant trained on one corpus and measured alike (its module loads only when asked for)
    compare_variants = classmethod(lambda cls, *arguments, **options: importlib.import_module(
        "bpelab.commands.variants").compare_variants(cls, *arguments, **options))


# --------------------------------------------------------------------------
# The machinery ``bpe`` also exports, as before the package had its wings:
# each name is imported from its module on first use (``bpe.BLOCK_SIZE`` is a
# copy: a tunable is set in its own module, ``bpelab.text.blocks.BLOCK_SIZE``).
# --------------------------------------------------------------------------

FORWARDED = {
    "bpelab.byte_level": ("BYTE_TO_CHAR", "CHAR_TO_BYTE", "bytes_to_display", "display_to_bytes",
                          "replace_lone_surrogates"),
    "bpelab.checks": ("UNK", "REPLACEMENT_CHARACTER"),
    "bpelab.commands.compare": ("compare",),
    "bpelab.corpora.token_files": ("token_file_dtype",),
    "bpelab.formats.lab": ("FORMAT_VERSION", "READABLE_FORMATS"),
    "bpelab.merges.engine": ("train_merges", "encode_chunk", "CACHE_LIMIT", "TIE_RULES"),
    "bpelab.merges.training": ("count_chunks", "SuperBPE"),
    "bpelab.reading": ("MAX_FILE_BYTES", "read_file_bytes", "read_json"),
    "bpelab.text.blocks": ("BLOCK_SIZE", "safe_blocks", "text_blocks", "stream_blocks",
                           "read_blocks"),
    "bpelab.text.patterns": ("PATTERNS", "pattern_source", "last_safe_cut", "chunker"),
    "bpelab.text.specials": ("SpecialTokenInText",),
    "bpelab.writing": ("check_output_path", "atomic_writer", "write_text_atomic"),
}
"""Each module of the package -> the names ``bpe`` exports from it without using them itself."""

__all__ += [name for names in FORWARDED.values() for name in names]


def __getattr__(name):
    """A name of ``FORWARDED``, imported from its module the first time it is asked for."""
    module = next((module for module, names in FORWARDED.items() if name in names), None)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module), name)
    return value


if __name__ == "__main__":  # ``python3 bpe.py COMMAND`` is the command line, bpelab/commands/cli.py
    import runpy
    import sys

    sys.modules.setdefault("bpe", sys.modules[__name__])  # ``import bpe`` finds this module there
    runpy.run_module("bpelab.commands.cli", run_name="__main__", alter_sys=True)
