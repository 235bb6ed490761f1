"""Parity-aware BPE: one corpus per language, and each merge taken by the language that compresses worst.

Parity-aware BPE (Foroutan, Meister et al., "Parity-Aware Byte-Pair
Encoding: Improving Cross-lingual Fairness in Tokenization", ACL 2026,
arXiv 2508.04796) trains on one corpus per language. Each merge goes to one
language, the one that compresses worst now, which takes its own most
frequent pair; the merge is then made in every language. "Worst" is read
off a development set per language (the one longest in tokens now), or, in
place of development sets, off target ``ratio``s (the training text whose
compression, initial length over length now, is lowest relative to its
target); with neither, off the training texts' own lengths. Two variants:

- ``"base"``: the worst-compressed language, every time (ties: the first);
- ``"window"``: a language that took more than ``alpha / languages`` of the
  last ``window_size`` choices is passed over for the next worst; when every
  language is, the last one tried takes the merge.

``global_merges`` plain merges come first, their pairs counted over every
language at once. A language whose most frequent pair is seen fewer than
``min_count`` times (or that has no pair left) is passed over from then on;
training stops when every language is, or when a global merge finds no pair.

This equals ``tokenizers``' ``ParityBpeTrainer`` (0.23.3) merge for merge,
in both variants. Its ties go to the greatest pair of tokens as it writes
them: characters, or at the byte level GPT-2's display characters; so this
trains on those written forms (``bpe.best_pair``'s ``"greatest"`` rule on
them). Its alphabet takes in the development sets' characters too. Where it
never returns (the window variant, every language over its share, and one
passed over that is not the first), this takes the last language it tried,
as it does when none is passed over. The tests restate the rule the simple
way (every count recounted after each merge) and hold this to it and to
``ParityBpeTrainer`` itself.

How it is fast: each training text and development set is its own
``engine`` corpus (chunks coded with one shared alphabet, pair counts, the
chunks each pair is in), and a merge goes through ``engine.merge_everywhere``
in each, touching only the chunks that hold the pair. Each language keeps a
heap of its pairs; lengths fall by the occurrences merged, so choosing a
language costs a pass over the languages, not over the text.
"""

import heapq
import math
import os
import sys
from collections import Counter, deque
from itertools import chain
from typing import Mapping, Optional, Sequence

from bpelab.byte_level import bytes_to_display
from bpelab.checks import (check_choice, check_list, check_paths, check_positive_int, check_positive_number,
                           check_text, check_whole_number)
from bpelab.merges.engine import code_chunks, index_pairs, merge_everywhere, report_progress, tie_order
from bpelab.merges.learning import History, built
from bpelab.merges.training import (Progress, TrainingOptions, check_chunk_counts, count_chunks, reported,
                                    shared_options, start_sequences, training_text)
from bpelab.text.blocks import BLOCK_SIZE, read_blocks, text_blocks

VARIANTS = ("base", "window")
"""How parity-aware BPE chooses the language of each merge (see the module's docstring)."""

TIES = "greatest"
"""The tie rule of ``ParityBpeTrainer`` (see ``bpe.best_pair``), applied to tokens as that library writes them."""


class ParitySettings:
    """How a parity-aware run chooses languages, checked: ``variant``, ``window_size``, ``alpha``, ``global_merges``
    and ``ratio`` (None, or one positive target per language)."""

    def __init__(self, languages, variant="base", window_size=100, alpha=2.0, global_merges=0, ratio=None):
        check_choice(variant, VARIANTS, "variant")
        check_positive_int(window_size, "window_size")
        check_positive_number(alpha, "alpha", meaning=" (a language's share of the window, times the number of "
                                                      "languages)")
        check_whole_number(global_merges, "global_merges", meaning=" (plain merges before the languages take turns)")
        self.variant, self.window_size, self.alpha = variant, window_size, float(alpha)
        self.global_merges, self.ratio = global_merges, check_ratio(ratio, languages)


def check_ratio(ratio, languages):
    """``ratio`` as floats, None staying None; refuse anything but one positive target per language."""
    if ratio is None:
        return None
    check_list(ratio, "ratio", "positive numbers, one per language")
    if len(ratio) != languages:
        raise ValueError(f"ratio has {len(ratio)} targets for {languages} languages: give one per language")
    for target in ratio:
        check_positive_number(target, "each ratio")
    return [float(target) for target in ratio]


def parity_merges(languages: Sequence[Mapping[str, int]], max_merges: int, settings: ParitySettings, *,
                  dev: Optional[Sequence[Mapping[str, int]]] = None, min_count: int = 1,
                  progress: Progress = None, on_merge=None) -> list:
    """Learn parity-aware merges on one chunk-count mapping per language; return ``(pair, count, language)`` each.

    A chunk is a string of one-character tokens (at the byte level, GPT-2's
    display characters); ``dev`` gives a development set per language, in
    the same form. ``language`` is the index of the language that took the
    merge, None for a global merge; ``count`` is the pair's count where it
    was chosen. ``on_merge(rank, pair, count, language=language)`` hears of each.

    >>> english, french = {"the": 3, " cat": 2}, {"le": 2, " chat": 2}
    >>> for pair, count, language in parity_merges([english, french], 3, ParitySettings(2),
    ...                                            dev=[{"the": 1}, {"le": 1, " chat": 1}]):
    ...     print(pair, count, language)
    ('l', 'e') 2 1
    ('h', 'a') 2 1
    ('ha', 't') 2 1

    French's development set is longer in tokens, so French takes the merges
    (English's most frequent pair, ``t h``, occurs three times); "le" is
    the greatest of French's pairs seen twice, as the library compares them.
    """
    alphabet = sorted({char for counts in chain(languages, dev or ()) for chunk in counts for char in chunk})
    tokens = list(alphabet)  # by code: ties="greatest" codes characters in sorted order
    order = tie_order(TIES, tokens, None, None)
    corpora = [_Corpus(counts, alphabet, order) for counts in languages]
    devs = [_Corpus(counts, alphabet, None) for counts in dev or ()]
    chooser = _Chooser(settings, corpora, devs)
    global_heap = _summed_heap(corpora, order) if settings.global_merges else []
    learned, passed = [], set()
    while len(learned) < max_merges and len(passed) < len(corpora):
        in_global = len(learned) < settings.global_merges
        language = None if in_global else chooser.choose(passed)
        found = _best(global_heap, _total_count(corpora)) if in_global else _best(
            corpora[language].heap, corpora[language].pair_counts.get)
        if found is None or found[1] < min_count:
            if in_global:
                break
            passed.add(language)
            continue
        pair, count = found
        if len(tokens) > sys.maxunicode:
            raise ValueError(f"cannot learn more than {len(learned)} merges: every token needs its own code point")
        token_pair = (tokens[ord(pair[0])], tokens[ord(pair[1])])
        learned.append((token_pair, count, language))
        if on_merge is not None:
            on_merge(len(learned) - 1, token_pair, count, language=language)
        new = chr(len(tokens))
        tokens.append(token_pair[0] + token_pair[1])
        made = Counter()
        for corpus in corpora:
            made.update(corpus.merge(pair, new))
        for corpus in devs:
            corpus.merge(pair, new)
        if len(learned) < settings.global_merges:
            for gained, gained_count in made.items():  # (a new pair is new in every language: its sum is this)
                heapq.heappush(global_heap, (-gained_count, order.key_of(gained), gained))
        report_progress(progress, len(learned), max_merges)
    report_progress(progress, len(learned), max_merges, finished=True)
    return learned


class _Corpus:
    """One language's training text or development set: coded chunks, pair counts, the chunks of each pair, its
    length in tokens, and (for a training text, given the tie ``order``) a heap of ``(-count, tie key, pair)``."""

    def __init__(self, counts, alphabet, order):
        _, self.coded, self.weights = code_chunks(counts, TIES, alphabet=alphabet)
        self.pair_counts, self.pair_chunks = index_pairs(self.coded, self.weights)
        self.length = sum(len(chunk) * count for chunk, count in counts.items())
        self.order = order
        if order is not None:
            self.heap = [(-count, order.key_of(pair), pair) for pair, count in self.pair_counts.items()]
            heapq.heapify(self.heap)

    def merge(self, pair, new):
        """Merge ``pair`` into the code ``new`` wherever it occurs here; return the counts of the pairs it made.

        The length falls by one per occurrence merged: the pair's count, but
        for a pair of one token twice, whose runs merge half their pairs
        (``str.count`` counts what ``str.replace`` replaces).
        """
        if pair not in self.pair_chunks:
            return {}
        merged = self.pair_counts[pair]
        if pair[0] == pair[1]:
            merged = sum(self.coded[index].count(pair) * self.weights[index] for index in self.pair_chunks[pair])
        created = merge_everywhere(pair, new, self.coded, self.weights, self.pair_counts, self.pair_chunks)
        del self.pair_counts[pair]
        self.pair_counts.update(created)
        self.length -= merged
        if self.order is not None:
            for gained, count in created.items():
                heapq.heappush(self.heap, (-count, self.order.key_of(gained), gained))
        return created


def _summed_heap(corpora, order):
    """A heap of every pair by its count summed over the languages (the global merges')."""
    totals = Counter()
    for corpus in corpora:
        totals.update(corpus.pair_counts)
    heap = [(-count, order.key_of(pair), pair) for pair, count in totals.items()]
    heapq.heapify(heap)
    return heap


def _total_count(corpora):
    """A pair's count summed over the languages, as a function of the pair."""
    return lambda pair: sum(corpus.pair_counts.get(pair, 0) for corpus in corpora)


def _best(heap, count_of):
    """The most frequent pair of a heap of ``(-count, tie key, pair)`` and its count, or None when none is left.

    Counts only fall, so an entry whose count has fallen goes back in with
    the count it has now (lazy invalidation), and one at zero is dropped.
    """
    while heap:
        negative_count, key, pair = heap[0]
        count = count_of(pair) or 0
        if count == -negative_count:
            return pair, count
        if count:
            heapq.heapreplace(heap, (-count, key, pair))
        else:
            heapq.heappop(heap)
    return None


class _Chooser:
    """Which language takes the next merge: the worst-compressed one, by the variant's rule.

    A language's score says how badly it compresses (higher is worse): its
    development set's length, or minus its training text's compression over
    its target ratio, or its training text's length. The window remembers
    the last ``window_size`` choices, and how often each language is among them.
    """

    def __init__(self, settings, corpora, devs):
        self.settings, self.corpora, self.devs = settings, corpora, devs
        self.initial = [float(corpus.length) for corpus in corpora]
        self.window, self.taken = deque(), Counter()
        self.threshold = settings.alpha / len(corpora)

    def scores(self):
        """Each language's score now."""
        if self.devs:
            return [corpus.length for corpus in self.devs]
        if self.settings.ratio is not None:
            return [-((start / corpus.length) / target)
                    for start, corpus, target in zip(self.initial, self.corpora, self.settings.ratio)]
        return [corpus.length for corpus in self.corpora]

    def choose(self, passed):
        """The language of the next merge, among those not ``passed`` over (at least one is not)."""
        scores = self.scores()
        if self.settings.variant == "base":
            return max((at for at in range(len(scores)) if at not in passed), key=lambda at: (scores[at], -at))
        chosen = self._windowed(scores, passed)
        self.window.append(chosen)
        self.taken[chosen] += 1
        if len(self.window) > self.settings.window_size:
            self.taken[self.window.popleft()] -= 1
        return chosen

    def _windowed(self, scores, passed):
        """The window variant's choice, as ``ParityBpeTrainer`` makes it, passed-over languages included.

        Its loop starts each pass at language 0 and takes the worst language
        not yet tried; so when only passed-over ones are left untried, it
        tries 0 again: it may take 0 (passed over: the step is spent), or, when
        0 was tried already and others are left, loop for ever (here: the last
        language that is still going takes the merge).
        """
        tried = [False] * len(scores)
        last_going = None
        while True:
            best, best_score = 0, -math.inf
            for at, score in enumerate(scores):
                if not tried[at] and at not in passed and score > best_score:
                    best, best_score = at, score
            if self.taken[best] / self.settings.window_size <= self.threshold:
                return best
            again, tried[best] = tried[best], True
            if all(tried):
                return best
            if again:
                return last_going
            if best not in passed:
                last_going = best


# -- the Tokenizer's entry points (``bpe.Tokenizer.train_parity`` and the two beside it) -------------------------


def train_parity(cls, texts: Sequence[str], vocab_size: int, *, dev_texts: Optional[Sequence[str]] = None,
                 **options):
    """Parity-aware BPE on one text per language (see ``bpelab.merges.parity``) until the vocabulary has ``vocab_size``.

    ``dev_texts`` (one per language) or ``ratio`` (one target per language)
    choose the language of each merge; ``variant`` is ``"base"`` or
    ``"window"`` (``window_size``, ``alpha``); ``global_merges`` plain merges
    come first (see ``parity_options``). Each ``history`` entry also names
    its ``"language"`` (an index into ``texts``; None for a global merge).
    The rest is ``train``'s; ``min_count=1`` merges what ``ParityBpeTrainer``
    merges (its ``min_frequency=0``).
    """
    texts, dev_texts = _checked_texts(texts, "texts"), _checked_texts(dev_texts, "dev_texts")
    options = parity_options(vocab_size, len(texts), dev_texts, **options)
    every = [training_text(text, options.byte_level, "each text") for text in texts + (dev_texts or [])]
    sizes = [len(text.encode("utf-8")) if options.count_progress else 0 for text in every]
    counts = _counted(map(text_blocks, every), sizes, options)
    return trained(cls, counts[:len(texts)], None if dev_texts is None else counts[len(texts):], options)


def train_parity_from_files(cls, paths, vocab_size: int, *, dev_paths=None, block_size: int = BLOCK_SIZE, **options):
    """``train_parity`` on UTF-8 files, one per language (``dev_paths`` likewise), each read a block at a time."""
    paths = check_paths(paths)
    dev_paths = None if dev_paths is None else check_paths(dev_paths, "dev_paths")
    options = parity_options(vocab_size, len(paths), dev_paths, **options)
    check_positive_int(block_size, "block_size")
    every = paths + (dev_paths or [])
    sizes = [os.path.getsize(path) if options.count_progress else 0 for path in every]
    counts = _counted((read_blocks([path], block_size) for path in every), sizes, options)
    return trained(cls, counts[:len(paths)], None if dev_paths is None else counts[len(paths):], options)


def train_parity_from_counts(cls, language_counts: Sequence[Mapping[str, int]], vocab_size: int, *,
                             dev_counts: Optional[Sequence[Mapping[str, int]]] = None, **options):
    """``train_parity`` on chunk counts made elsewhere: one mapping per language (``count_chunks`` of its text)."""
    check_list(language_counts, "language_counts", "chunk counts, one per language")
    if dev_counts is not None:
        check_list(dev_counts, "dev_counts", "chunk counts, one per language")
    options = parity_options(vocab_size, len(language_counts), dev_counts, **options)
    for counts in chain(language_counts, dev_counts or ()):
        check_chunk_counts(counts, options.pattern, options.specials)
    return trained(cls, language_counts, dev_counts, options)


def parity_options(vocab_size: int, languages: int, dev: Optional[Sequence], *, variant: str = "base",
                   window_size: int = 100, alpha: float = 2.0, global_merges: int = 0,
                   ratio: Optional[Sequence[float]] = None, min_count: int = 1, **shared) -> TrainingOptions:
    """Check every option of a parity-aware run once, before any work; return them as ``TrainingOptions``.

    ``languages`` is how many there are and ``dev`` their development sets
    (or None); the run's own settings are its ``parity``
    (``ParitySettings``); the rest are those every trainer takes
    (``training.shared_options``: ``byte_level``, ``pattern``,
    ``special_tokens``, ``progress``, ``on_merge``, ``count_progress``,
    ``on_counts``). Its tie rule is ``ParityBpeTrainer``'s (``TIES``), so
    ``ties`` is not an option; nor are a prefix space and workers.
    """
    options = shared_options(vocab_size, min_count, **shared)
    if languages == 0:
        raise ValueError("parity-aware training needs at least one language: give one text (or file) per language")
    if dev is not None and len(dev) != languages:
        raise ValueError(f"{len(dev)} development sets for {languages} languages: give one per language, in order")
    if dev is not None and ratio is not None:
        raise ValueError("give development sets or target ratios, not both: each chooses the language of a merge")
    return options._replace(parity=ParitySettings(languages, variant, window_size, alpha, global_merges, ratio))


def _checked_texts(texts, argument):
    """A list of texts (None stays None), each a str."""
    if texts is None:
        return None
    check_list(texts, argument, "texts, one per language")
    for text in texts:
        check_text(text, f"each of {argument}")
    return list(texts)


def _counted(sources, sizes, options):
    """The chunk counts of each source (a language's text or development set, as blocks), one after another;
    ``count_progress`` hears of the bytes of all of them (``sizes``)."""
    total, done, counts = sum(sizes), 0, []
    for blocks, size in zip(sources, sizes):
        counts.append(count_chunks(reported(blocks, options, done, total), options.pattern,
                                   special_tokens=options.specials))
        done += size
    return counts


def trained(cls, language_counts, dev_counts, options):
    """Chunk counts per language in, parity-aware merges learned, a tokenizer out (``cls``: ``bpe.Tokenizer``).

    Its alphabet takes in the development sets' characters too, as
    ``ParityBpeTrainer``'s does; ``on_counts`` hears of the training texts'
    counts, all languages together (what the tokenizer encodes them by).
    """
    trained_on = Counter()
    for counts in language_counts:
        trained_on.update(counts)
    if options.on_counts is not None:
        options.on_counts(trained_on)
    everything = trained_on.copy()
    for counts in dev_counts or ():
        everything.update(counts)
    alphabet, _, merges_wanted = start_sequences(everything, options.vocab_size, options.byte_level, options.specials)

    def written(counts):  # each chunk as its tokens are written: characters, or GPT-2's display characters
        return {bytes_to_display(chunk.encode("utf-8")) if options.byte_level else chunk: count
                for chunk, count in counts.items() if chunk not in options.specials}

    history = History(str, options.on_merge)
    parity_merges([written(counts) for counts in language_counts], merges_wanted, options.parity,
                  dev=dev_counts and [written(counts) for counts in dev_counts], min_count=options.min_count,
                  progress=options.progress, on_merge=history.merged)
    return built(cls, alphabet, history, options, options.pattern)


TRAINERS = tuple(map(classmethod, (train_parity, train_parity_from_files, train_parity_from_counts)))
"""``bpe.Tokenizer``'s train_parity, train_parity_from_files, train_parity_from_counts (``cls`` is the class)."""
