"""The step every trainer of ``bpe.Tokenizer`` shares: chunk counts in, merges learned fast, a tokenizer out.

``bpe.Tokenizer.train``, ``train_from_files`` and ``train_from_counts`` differ
only in where the chunk counts come from. ``trained`` turns the counts into
base-token sequences (``training.start_sequences``), learns the merges with
the engine, or with SuperBPE's two stages (``superbpe.trainer``), exactly as
``bpe.reference_train`` (SuperBPE's official trainer) would, records each merge
as a ``history`` entry as soon as it is learned, and builds the tokenizer.
"""

from bpelab.byte_level import bytes_to_display
from bpelab.merges import superbpe, training


def trained(cls, chunk_counts, spans, options):
    """The tokenizer (built with ``cls``, ``bpe.Tokenizer``) that ``options`` learn from these counts.

    ``spans`` are SuperBPE's stage-2 counts (``superbpe.span_counts``) or
    None; ``options`` are the run's ``training.TrainingOptions``.
    """
    if options.on_counts is not None:  # the counts the tokenizer encodes by: SuperBPE's stage 2's
        options.on_counts(chunk_counts if spans is None else spans)
    alphabet, sequences, merges_wanted = training.start_sequences(chunk_counts, options.vocab_size,
                                                                  options.byte_level, options.specials)
    display_form = bytes_to_display if options.byte_level else str
    history = []

    def learned(rank, pair, count):
        left, right = display_form(pair[0]), display_form(pair[1])
        history.append({"pair": [left, right], "token": left + right, "count": count})
        if options.on_merge is not None:
            options.on_merge(rank, history[-1])

    learn, pattern = superbpe.trainer(spans, options)  # SuperBPE's two stages, if spans
    learn(sequences, merges_wanted, learned)
    merges = [tuple(entry["pair"]) for entry in history]
    tokenizer = cls(alphabet, merges, byte_level=options.byte_level, pattern=pattern,
                    special_tokens=options.specials, add_prefix_space=options.add_prefix_space)
    tokenizer.history, tokenizer.ties = history, options.ties
    return tokenizer


def checked_counts(options, chunk_counts, superbpe_counts):
    """``(chunk counts, stage 2's counts or None)`` made elsewhere (``Tokenizer.train_from_counts``), checked."""
    training.check_chunk_counts(chunk_counts, options.pattern, options.specials)
    return chunk_counts, superbpe.check_span_counts(options, chunk_counts, superbpe_counts)
