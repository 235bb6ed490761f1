"""The step every trainer of ``bpe.Tokenizer`` shares: chunk counts in, merges learned fast, a tokenizer out.

``bpe.Tokenizer.train``, ``train_from_files`` and ``train_from_counts`` differ
only in where the chunk counts come from. ``trained`` turns the counts into
base-token sequences (``training.start_sequences``), learns the merges with
the engine, or with SuperBPE's two stages (``superbpe.trainer``), exactly as
``bpe.reference_train`` (SuperBPE's official trainer) would, records each merge
as a ``history`` entry as soon as it is learned (``History``), and builds
the tokenizer (``built``). The variants (``parity``, ``picky``) learn their
own way and record and build through the same two.
"""

from bpelab.byte_level import bytes_to_display
from bpelab.merges import superbpe, training


def trained(cls, chunk_counts, spans, options, owned=False):
    """The tokenizer (built with ``cls``, ``bpe.Tokenizer``) that ``options`` learn from these counts.

    ``spans`` are SuperBPE's stage-2 counts (``superbpe.span_counts``) or
    None; ``options`` are the run's ``training.TrainingOptions``. Counts the
    lab made itself (``owned``) are emptied once the engine has coded them,
    so that the merge loop does not hold every distinct chunk twice more (a
    caller's counts, ``train_from_counts``', are left as they are).
    """
    if options.on_counts is not None:  # the counts the tokenizer encodes by: SuperBPE's stage 2's
        options.on_counts(chunk_counts if spans is None else spans)
    alphabet, sequences, merges_wanted = training.start_sequences(chunk_counts, options.vocab_size,
                                                                  options.byte_level, options.specials,
                                                                  options.min_chunk_count)
    history = History(bytes_to_display if options.byte_level else str, options.on_merge)
    learn, pattern = superbpe.trainer(spans, options)  # SuperBPE's two stages, if spans
    learn(sequences, merges_wanted, history.merged, chunk_counts.clear if owned else None)
    tokenizer = built(cls, alphabet, history, options, pattern)
    tokenizer.ties = options.ties
    return tokenizer


class History(list):
    """A trainer's record, ``bpe.Tokenizer.history``: one entry per event, each told to ``on_merge(rank, entry)``.

    A merge is ``{"pair": [left, right], "token": left + right, "count": n}``,
    its tokens written by ``shown`` (GPT-2's display form at the byte level);
    ``merged`` has ``engine.learn_merges``' ``on_merge`` signature, so it can
    be handed to it. The variants add keys (parity-aware BPE's
    ``"language"``) or events of their own (PickyBPE's removals).
    """

    def __init__(self, shown, on_merge):
        super().__init__()
        self.shown, self.on_merge = shown, on_merge

    def merged(self, rank, pair, count, **more):
        """Record a merge of ``pair``, seen ``count`` times (``rank`` is its place among the merges, unused)."""
        left, right = self.shown(pair[0]), self.shown(pair[1])
        self.heard({"pair": [left, right], "token": left + right, "count": count, **more})

    def heard(self, entry):
        """Record an entry and tell ``on_merge``; its rank is its place in the record (the first is 0)."""
        self.append(entry)
        if self.on_merge is not None:
            self.on_merge(len(self) - 1, entry)

    def merges(self):
        """The merged pairs, in order, as the ``Tokenizer`` takes them."""
        return [tuple(entry["pair"]) for entry in self if "pair" in entry]


def built(cls, alphabet, history, options, pattern, **model):
    """The tokenizer (``cls``, ``bpe.Tokenizer``) a run's ``history`` makes, holding that history.

    ``model`` is what a variant's kind of model takes besides (PickyBPE's ``removals``).
    """
    tokenizer = cls(alphabet, history.merges(), byte_level=options.byte_level, pattern=pattern,
                    special_tokens=options.specials, add_prefix_space=options.add_prefix_space, **model)
    tokenizer.history = list(history)
    return tokenizer


def train_from_counts(cls, chunk_counts, vocab_size, superbpe_counts, **options):
    """``bpe.Tokenizer.train_from_counts``: the options and the counts checked, then the merges learned."""
    options = training.training_options(vocab_size, **options)
    return trained(cls, *checked_counts(options, chunk_counts, superbpe_counts), options)


def checked_counts(options, chunk_counts, superbpe_counts):
    """``(chunk counts, stage 2's counts or None)`` made elsewhere (``Tokenizer.train_from_counts``), checked."""
    training.check_chunk_counts(chunk_counts, options.pattern, options.specials)
    return chunk_counts, superbpe.check_span_counts(options, chunk_counts, superbpe_counts)
