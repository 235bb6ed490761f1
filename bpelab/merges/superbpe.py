"""SuperBPE: training in two stages, fast, giving exactly what ``bpe.reference_superbpe`` gives.

SuperBPE (Liu et al., "SuperBPE: Space Travel for Language Models", COLM
2025) lifts the rule that merges never cross whitespace, in a second stage
of training. Stage 1 is ordinary BPE with the chosen pattern (GPT-4o's
``o200k`` unless told otherwise, close to the paper's) up to ``t`` merges.
Stage 2 cuts the same text again with the ``"superbpe"`` pattern, whose
chunks run across single spaces, single punctuation and line breaks (see
``patterns``), replays the first ``t`` merges on those chunks, and goes on
learning to the requested size: tokens such as " of the" or ", and the".

A SuperBPE tokenizer encodes with the ``"superbpe"`` pattern and all its
merges by rank, as any tokenizer does; the stage-1 pattern matters only
while training, so the tokenizer is saved (format 2) and exported (Hugging
Face) like any other. The paper states ``t`` as the vocabulary size at the
transition; here ``t`` counts merges, as its repository's
``num_inherit_merges`` does (the vocabulary then holds the base tokens too).
Left out: the released code's optional limits on how many words a token may
span and on tokens spanning ``": "``.

``two_stage_merges`` takes the chunks of both stages as base-token
sequences with counts, and ``trainer`` gives it to the ``Tokenizer`` in the
place of plain BPE's ``engine.learn_merges``.
"""

import functools
from collections import Counter

from bpelab.merges.engine import encode_chunk, learn_merges
from bpelab.merges.training import check_chunk_counts, count_chunks, start_sequences

SUPERBPE = "superbpe"
"""The name of stage 2's chunk pattern (in ``patterns.PATTERNS``), which a SuperBPE tokenizer encodes with."""


def span_counts(options, blocks):
    """``(superbpe, stage 2's chunk counts)`` of a text given as blocks; None without SuperBPE (the blocks unread).

    ``options`` are the run's ``training.TrainingOptions``.
    """
    if options.superbpe is None:
        return None
    return options.superbpe, count_chunks(blocks, SUPERBPE, special_tokens=options.specials)


def check_span_counts(options, chunk_counts, superbpe_counts):
    """Refuse stage-2 counts that are missing, not chunks of the "superbpe" pattern, or not of the same text.

    The two counts must count the same text: each character (and each
    special token) as often in one as in the other. Returns what
    ``span_counts`` returns.
    """
    superbpe, special_tokens = options.superbpe, options.specials
    if superbpe is None:
        if superbpe_counts is not None:
            raise ValueError("superbpe_counts is only for SuperBPE training: give superbpe=t as well")
        return None
    if superbpe_counts is None:
        raise ValueError("superbpe=t needs superbpe_counts: the chunk counts of the same text cut with the "
                         "'superbpe' pattern (count_chunks(blocks, 'superbpe'))")
    check_chunk_counts(superbpe_counts, SUPERBPE, special_tokens)
    if text_content(chunk_counts) != text_content(superbpe_counts):
        raise ValueError("chunk_counts and superbpe_counts do not count the same text: "
                         "their characters (or special tokens) occur a different number of times")
    return superbpe, superbpe_counts


def text_content(chunk_counts):
    """How often each character occurs in the text chunk counts describe (a special token counts as itself)."""
    content = Counter()
    for chunk, count in chunk_counts.items():
        for char, times in Counter(chunk).items():
            content[char] += times * count
    return content


def trainer(spans, options):
    """``(learn, pattern)``: how the run learns its merges, and the pattern its tokenizer encodes with.

    ``learn(sequences, max_merges, on_merge)`` is ``engine.learn_merges`` with
    the run's options (``training.TrainingOptions``) and the run's pattern;
    for SuperBPE (``spans`` from ``span_counts``) its two stages, in that
    learner's place, and ``"superbpe"``.
    """
    if spans is None:
        return functools.partial(one_stage_merges, options), options.pattern
    superbpe, counts = spans
    _, span_sequences, _ = start_sequences(counts, options.vocab_size, options.byte_level, options.specials)
    return functools.partial(two_stage_merges, options, span_sequences, superbpe), SUPERBPE


def one_stage_merges(options, words, max_merges, on_merge):
    """Plain BPE: ``engine.learn_merges`` on ``words`` with the run's options."""
    return learn_merges(words, max_merges, options.ties, options.min_count, options.progress, on_merge)


def two_stage_merges(options, spans, transition, words, max_merges, on_merge):
    """Learn what ``bpe.reference_superbpe(words, spans, transition, max_merges)`` learns, each stage fast.

    Stage 1 is ``engine.learn_merges`` on ``words``. Stage 2 replays its
    merges on each distinct span once (``encode_chunk``, equal to
    ``reference_encode``, in time n log n however long a span is), then
    learns on. ``options.progress`` hears of both stages as one run;
    ``on_merge`` numbers the merges of stage 2 after those of stage 1.
    """
    ties, min_count, progress = options.ties, options.min_count, options.progress
    first = learn_merges(words, min(transition, max_merges), ties, min_count, shifted(progress, 0, max_merges),
                         on_merge)
    done = len(first)
    later = None if on_merge is None else lambda rank, pair, count: on_merge(done + rank, pair, count)
    return first + learn_merges(replayed(spans, [pair for pair, _ in first]), max_merges - done, ties, min_count,
                                shifted(progress, done, max_merges), later)


def shifted(progress, done, target):
    """A stage's ``progress`` callback, reporting to the whole run's: ``done`` merges before it, ``target`` in all."""
    if progress is None:
        return None
    return lambda merges, _: progress(done + merges, target)


def replayed(spans, merges):
    """Each span (a sequence of base tokens, with its count) as its tokens after ``merges``, applied by rank.

    The tokens are numbered, the base ones first and then one per merge in
    order, so merged numbers grow with rank, as ``encode_chunk`` needs. A
    span given as ``bytes`` stands for its single bytes (as ``engine.train_merges`` reads it).
    """
    spans = {tuple(span[at:at + 1] for at in range(len(span))) if isinstance(span, bytes) else span: count
             for span, count in spans.items()}
    tokens = sorted({token for span in spans for token in span})
    number = {token: at for at, token in enumerate(tokens)}
    merged_id = {}
    for left, right in merges:
        if left in number and right in number:
            merged_id[number[left], number[right]] = len(tokens)
        number[left + right] = len(tokens)
        tokens.append(left + right)
    return {tuple(tokens[at] for at in encode_chunk([number[token] for token in span], merged_id)): count
            for span, count in spans.items()}

