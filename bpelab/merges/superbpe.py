"""SuperBPE: training in two stages, as its official code trains, fast.

SuperBPE (Liu et al., "SuperBPE: Space Travel for Language Models", COLM
2025) lifts the rule that merges never cross whitespace, in a second stage
of training. The official code is the paper's repository (its scripts run
Hugging Face's ``BpeTrainer`` with a split in each stage) and its trainer,
a fork of ``tokenizers`` whose ``do_train_extend`` runs stage 2; the tests
restate that function and hold this module to it, merge for merge. What it
does, with the lab's names for the choices (``training.SuperBPE``):

1. Stage 1 is ordinary BPE with the split's stage-1 pattern (``SPLITS``),
   its ties broken as Hugging Face breaks them (``ties="huggingface"``) and
   pairs seen once merged (``min_count=1``); its first ``t - 1`` merges go on,
   as ``head -n t`` of its merges.txt, header included, keeps them.
2. Stage 2 cuts the same text with the stage-2 pattern (chunks that run
   across spaces, so merges make tokens such as " of the"), replays the
   inherited merges on it, leaving out those whose pair never occurs there
   (``drop_unseen``), and learns on to the requested size, its tokens
   numbered in the order they were made, passing over a token that holds
   ``": "`` or more than four words (``limits``).
3. Both stages count each line's chunks on its own (``by_line``): the
   official trainer reads its files line by line, so no token of it holds a
   line break followed by more text.

Each choice can be turned off by name; with the last three off, ``t + 1``,
``pattern="o200k"``, ``ties="smallest"`` and ``min_count=2`` this is the
lab's SuperBPE of before, ``bpe.reference_superbpe``, which the tests hold
it to as well. A SuperBPE tokenizer encodes with the stage-2 pattern and all
its merges by rank, as any tokenizer does (the stage-1 pattern and the lines
matter only while training), so it is saved (format 2) and exported (Hugging
Face) like any other.

``two_stage_merges`` takes the chunks of both stages as base-token
sequences with counts, and ``trainer`` gives it to the ``Tokenizer`` in the
place of plain BPE's ``engine.learn_merges``.
"""

import functools
from collections import Counter

from bpelab.byte_level import SINGLE_BYTES
from bpelab.merges.engine import learn_merges, merge_queued
from bpelab.merges.training import SPLITS, check_chunk_counts, count_chunks, start_sequences

MAX_WORDS = 4
"""The most words (pieces between spaces) a stage-2 token may hold under the fork's limits."""


def stage_two_pattern(options):
    """The pattern stage 2 cuts with, and a SuperBPE tokenizer encodes with (``options.superbpe`` given)."""
    return SPLITS[options.superbpe.split][1]


def span_counts(options, blocks):
    """Stage 2's chunk counts of a text given as blocks; None without SuperBPE (the blocks unread).

    ``options`` are the run's ``training.TrainingOptions``.
    """
    if options.superbpe is None:
        return None
    return count_chunks(blocks, stage_two_pattern(options), special_tokens=options.specials, by_line=options.by_line)


def check_span_counts(options, chunk_counts, superbpe_counts):
    """Refuse stage-2 counts that are missing, not chunks of the stage-2 pattern, or not of the same text.

    The two counts must count the same text: each character (and each
    special token) as often in one as in the other. Returns what
    ``span_counts`` returns.
    """
    if options.superbpe is None:
        if superbpe_counts is not None:
            raise ValueError("superbpe_counts is only for SuperBPE training: give superbpe=t as well")
        return None
    pattern = stage_two_pattern(options)
    if superbpe_counts is None:
        raise ValueError(f"superbpe=t needs superbpe_counts: the chunk counts of the same text cut with the "
                         f"{pattern!r} pattern (count_chunks(blocks, {pattern!r}, by_line={options.by_line}))")
    check_chunk_counts(superbpe_counts, pattern, options.specials)
    if text_content(chunk_counts) != text_content(superbpe_counts):
        raise ValueError("chunk_counts and superbpe_counts do not count the same text: "
                         "their characters (or special tokens) occur a different number of times")
    return superbpe_counts


def text_content(chunk_counts):
    """How often each character occurs in the text chunk counts describe (a special token counts as itself)."""
    content = Counter()
    for chunk, count in chunk_counts.items():
        for char, times in Counter(chunk).items():
            content[char] += times * count
    return content


def trainer(spans, options):
    """``(learn, pattern)``: how the run learns its merges, and the pattern its tokenizer encodes with.

    ``learn(sequences, max_merges, on_merge, release)`` is ``engine.learn_merges`` with
    the run's options (``training.TrainingOptions``) and the run's pattern;
    for SuperBPE (``spans`` from ``span_counts``) its two stages, in that
    learner's place, and stage 2's pattern.
    """
    if spans is None:
        return functools.partial(one_stage_merges, options), options.pattern
    _, span_sequences, _ = start_sequences(spans, options.vocab_size, options.byte_level, options.specials)
    return functools.partial(two_stage_merges, options, span_sequences), stage_two_pattern(options)


def one_stage_merges(options, words, max_merges, on_merge, release=None):
    """Plain BPE: ``engine.learn_merges`` on ``words`` with the run's options (``release()`` once they are coded)."""
    return learn_merges(words, max_merges, options.ties, options.min_count, options.progress, on_merge,
                        release=release)


def two_stage_merges(options, spans, words, max_merges, on_merge, release=None):
    """SuperBPE's merges (its choices ``options.superbpe``) from stage 1's chunks ``words`` and stage 2's ``spans``.

    Stage 1 is ``engine.learn_merges`` on ``words``. Stage 2 replays its
    merges on each distinct span once (``engine.merge_queued``, equal to
    ``reference_encode``, in time n log n however long a span is), noting
    which merges' pairs occur, then learns on, the inherited tokens numbered
    after the base ones. An inherited merge is heard by ``on_merge`` once
    stage 2 has kept it (with its count in stage 1); ``options.progress``
    hears of both stages as one run; ``release()``, if given, once stage 1 has coded ``words``.
    """
    superbpe, ties, min_count, progress = options.superbpe, options.ties, options.min_count, options.progress
    first = learn_merges(words, min(max(superbpe.t - 1, 0), max_merges), ties, min_count,
                         shifted(progress, 0, max_merges), None, release=release)
    spans, seen = replayed(spans, [pair for pair, _ in first])
    kept = [merge for merge, met in zip(first, seen) if met or not superbpe.drop_unseen]
    done = len(kept)
    if on_merge is not None:
        for rank, (pair, count) in enumerate(kept):
            on_merge(rank, pair, count)
    later = None if on_merge is None else lambda rank, pair, count: on_merge(done + rank, pair, count)
    return kept + learn_merges(spans, max_merges - done, ties, min_count, shifted(progress, done, max_merges), later,
                               [left + right for (left, right), _ in kept], within_limits if superbpe.limits else None)


def within_limits(token):
    """Whether a stage-2 token passes the fork's limits: no ``": "`` in it, at most ``MAX_WORDS`` words.

    The fork tests its tokens in Hugging Face's byte-level form, where ``Ġ``
    is the space byte: ``":Ġ"`` and the non-empty pieces between ``Ġ``. At
    the character level the lab applies the same rule to the space character.
    """
    space, colon = (b" ", b": ") if isinstance(token, bytes) else (" ", ": ")
    return colon not in token and sum(1 for word in token.split(space) if word) <= MAX_WORDS


def shifted(progress, done, target):
    """A stage's ``progress`` callback, reporting to the whole run's: ``done`` merges before it, ``target`` in all."""
    if progress is None:
        return None
    return lambda merges, _: progress(done + merges, target)


def replayed(spans, merges):
    """``(spans, seen)``: each span (base tokens, with its count) as its tokens after ``merges``, applied by rank,
    and for each merge whether its pair occurs at some moment in some span.

    The tokens are numbered, the base ones first and then one per merge in
    order, so merged numbers grow with rank, as ``merge_queued`` needs. A
    span given as ``bytes`` stands for its single bytes (as ``engine.train_merges`` reads it).
    """
    spans = {tuple(SINGLE_BYTES[byte] for byte in span) if isinstance(span, bytes) else span: count
             for span, count in spans.items()}
    tokens = sorted({token for span in spans for token in span})
    number = {token: at for at, token in enumerate(tokens)}
    merged_id = {}
    for left, right in merges:
        if left in number and right in number:
            merged_id[number[left], number[right]] = len(tokens)
        number[left + right] = len(tokens)
        tokens.append(left + right)
    met = set()
    spans = {tuple(tokens[at] for at in merge_queued([number[token] for token in span], merged_id, met)): count
             for span, count in spans.items()}
    base = len(tokens) - len(merges)
    return spans, [base + rank in met for rank in range(len(merges))]
