"""Every variant of BPE the lab trains, on one corpus to one size, measured the same way: one table.

``compare_variants(Tokenizer, texts, vocab_size, held_out=...)``
(``bpe.Tokenizer.compare_variants``; ``bpe compare --variants`` prints its
table) trains, on the same texts and to the same vocabulary size, at the
byte level:

- plain BPE and PickyBPE (``threshold``), with one chunk pattern, and
  SuperBPE in each of its splits (``training.SPLITS``: each split's own two
  patterns, stage 2 inheriting ``superbpe - 1`` merges, as
  ``SuperBPE(t, split=...)`` trains), on the texts as one corpus (joined by
  line breaks);
- parity-aware BPE, ``"base"`` and ``"window"``, on the texts as one
  language each (``dev_texts``, one per language, choose the worst);
- BPE-dropout is not trained: it is plain BPE's merges encoding with
  ``dropout=p`` by each of ``dropout.DROPOUT_RULES``, measured as its
  expected segmentation, the mean over ``draws`` seeded draws (seeds 0,
  1, ...).

Each row (``VARIANT_KEYS``) holds what the variant costs on ``held_out``,
text it was not trained on: its tokens, UTF-8 bytes per token and Rényi
efficiency (``measures.renyi_efficiency``); the share of its vocabulary
(special tokens aside) that the held-out text never uses; the premium over
the lab's 14 languages (``compare.languages``) as ``measures`` defines it
(Petrov et al.'s: a language's five sentences joined by one space, in
tokens, over English's), as the mean of the 13 and the worst; and the CPU
seconds training took (BPE-dropout's are plain BPE's). For BPE-dropout each
figure is the mean of the draws' figures. Every figure is computed from
``encode``; nothing here trains or encodes in a way of its own.
"""

import time
from statistics import fmean

from bpelab.checks import check_list, check_positive_int, check_text, check_vocab_size
from bpelab.commands.compare import languages, markdown_cell, ratio
from bpelab.commands.measures import renyi_efficiency
from bpelab.merges.dropout import DROPOUT_RULES, check_dropout
from bpelab.merges.parity import parity_options
from bpelab.merges.picky import picky_options
from bpelab.merges.training import SPLITS, SuperBPE, training_options
from bpelab.text.patterns import chunker

VARIANT_KEYS = ("variant", "vocab_size", "tokens", "bytes_per_token", "efficiency", "unused_share", "premium",
                "worst_premium", "language", "train_seconds")
"""The keys of each row ``compare_variants`` gives, in order (``bpe compare --variants --json`` prints them)."""


def compare_variants(cls, texts, vocab_size, *, held_out, dev_texts=None, pattern="o200k", superbpe=None,
                     threshold=0.9, window_size=100, alpha=2.0, dropout=0.1, draws=10):
    """Train each variant on ``texts`` (one per language) to ``vocab_size`` with ``cls`` (``bpe.Tokenizer``) and
    measure it on ``held_out``: one row per variant, with the keys of ``VARIANT_KEYS``.

    >>> from bpe import Tokenizer
    >>> text = "the cat sat on the mat. the dog sat on the log. " * 20
    >>> rows = Tokenizer.compare_variants([text], 300, held_out="the cat sat on the log.", draws=2)
    >>> [row["variant"] for row in rows]  # doctest: +NORMALIZE_WHITESPACE
    ['plain BPE', 'SuperBPE, repository split (t = 23)', 'SuperBPE, paper split (t = 23)',
     'parity-aware BPE, base', 'parity-aware BPE, window', 'PickyBPE (threshold 0.9)',
     'BPE-dropout, subword-nmt (p = 0.1, mean of 2 draws)', 'BPE-dropout, reference (p = 0.1, mean of 2 draws)',
     'BPE-dropout, huggingface (p = 0.1, mean of 2 draws)']
    >>> rows[0]["tokens"] > rows[1]["tokens"], rows[-1]["tokens"] > rows[0]["tokens"]  # SuperBPE fewer, dropout more
    (True, True)

    ``superbpe`` is SuperBPE's ``t`` (``head -n t`` of stage 1's merges:
    stage 2 inherits ``t - 1``; default: half the merges the size leaves);
    every trainer merges pairs seen once (``min_count=1``), so each reaches
    the size when the texts allow. ``pattern`` is every trainer's but
    SuperBPE's, whose splits name their own. The other options are the
    variants' own (``Tokenizer.train_parity``, ``train_picky``, ``encode``'s
    ``dropout``), checked before any training.
    """
    check_list(texts, "texts", "str")
    if dev_texts is not None:
        check_list(dev_texts, "dev_texts", "str")
    for text in [*texts, *(dev_texts or ()), held_out]:
        check_text(text, "each of texts, dev_texts and held_out")
    if not held_out:
        raise ValueError("held_out is empty: give the text to measure each variant on, one it was not trained on")
    check_positive_int(draws, "draws")
    check_dropout(dropout, 0)  # (p and its seeds, checked once for the three rules)
    check_vocab_size(vocab_size)
    if vocab_size < 258:
        raise ValueError(f"vocab_size {vocab_size} leaves fewer than two merges after the 256 bytes (one per "
                         "SuperBPE stage): ask for at least 258")
    transition = (vocab_size - 256) // 2 + 1 if superbpe is None else superbpe
    splits = {split: SuperBPE(transition, split=split) for split in SPLITS}
    superbpe_shared = {"byte_level": True, "min_count": 1}
    shared = dict(superbpe_shared, pattern=pattern)
    training_options(vocab_size, **shared)  # each trainer's own checks, before any training
    for choice in splits.values():
        training_options(vocab_size, superbpe=choice, **superbpe_shared)
    for variant in ("base", "window"):
        parity_options(vocab_size, len(texts), dev_texts, variant=variant, window_size=window_size, alpha=alpha,
                       **shared)
    picky_options(vocab_size, threshold=threshold, **shared)
    corpus = "\n".join(texts)
    trainers = [
        ("plain BPE", lambda: cls.train(corpus, vocab_size, **shared)),
        *[(f"SuperBPE, {split} split (t = {transition:,})",
           lambda choice=choice: cls.train(corpus, vocab_size, superbpe=choice, **superbpe_shared))
          for split, choice in splits.items()],
        *[(f"parity-aware BPE, {variant}",
           lambda variant=variant: cls.train_parity(texts, vocab_size, dev_texts=dev_texts, variant=variant,
                                                    window_size=window_size, alpha=alpha, **shared))
          for variant in ("base", "window")],
        (f"PickyBPE (threshold {threshold:g})",
         lambda: cls.train_picky(corpus, vocab_size, threshold=threshold, **shared)),
    ]
    for name in (pattern, *(name for stages in SPLITS.values() for name in stages)):  # each regex compiled (and
        chunker(name)(corpus[:1000])  # kept) before the clock starts
    rows, plain = [], None
    for label, train in trainers:
        start = time.process_time()
        tokenizer = train()
        seconds = time.process_time() - start
        plain = plain or (tokenizer, seconds)
        rows.append(measured(label, tokenizer, lambda text, seed, tokenizer=tokenizer: tokenizer.encode(
            text, disallowed_special=()), [None], held_out, seconds))
    tokenizer, seconds = plain
    for rule in DROPOUT_RULES:
        rows.append(measured(f"BPE-dropout, {rule} (p = {dropout:g}, mean of {draws:,} draws)", tokenizer,
                             lambda text, seed, rule=rule: tokenizer.encode(
                                 text, disallowed_special=(), dropout=dropout, seed=seed, dropout_rule=rule),
                             range(draws), held_out, seconds))
    return rows


def measured(label, tokenizer, encode, seeds, held_out, seconds):
    """One row: ``encode(text, seed)`` for each of ``seeds`` on the held-out text and the lab's languages, each
    figure the mean over the seeds."""
    def encodings(text):
        return [encode(text, seed) for seed in seeds]

    held = encodings(held_out)
    tokens = fmean(map(len, held))
    efficiencies = [renyi_efficiency(ids) for ids in held]
    used = set().union(*held)
    ordinary = [token_id for token_id, token in enumerate(tokenizer.vocab)
                if token is not None and token_id not in tokenizer.special_tokens.values()]
    premiums = language_premiums(encodings)
    worst = max(premiums, key=premiums.get)
    efficiency = None if None in efficiencies else fmean(efficiencies)
    return dict(zip(VARIANT_KEYS, (label, len(tokenizer), tokens, ratio(len(held_out.encode("utf-8")), tokens),
                                   efficiency, sum(token_id not in used for token_id in ordinary) / len(ordinary),
                                   fmean(premiums.values()), premiums[worst], worst, seconds)))


def language_premiums(encodings):
    """Each of the lab's languages but English -> its premium, as ``measures`` defines it: its five sentences joined
    by one space (a ``parallel_texts.document``'s text), in tokens, over English's (each count the mean of
    ``encodings(text)``' lengths)."""
    def tokens(language):
        return fmean(map(len, encodings(" ".join(language["sentences"]))))

    english, *others = languages()
    return {language["name"]: tokens(language) / tokens(english) for language in others}


def variants_table(rows):
    """``compare_variants``' rows as a Markdown table, after a line saying what each column holds."""
    lines = ["Held-out text: tokens, UTF-8 bytes per token and Rényi efficiency (alpha 2.5; for BPE-dropout, means "
             "over the draws); unused: the share of the vocabulary it never uses; premium: a language's tokens for "
             "the lab's five sentences over English's, the mean of 13 languages and the worst; training: CPU "
             "seconds.", "",
             "| variant | vocabulary | tokens | bytes per token | Rényi efficiency | unused | premium, mean | "
             "premium, worst | training (s) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        efficiency = "-" if row["efficiency"] is None else f"{row['efficiency']:.3f}"
        lines.append(f"| {markdown_cell(row['variant'])} | {row['vocab_size']:,} | {row['tokens']:,.1f} | "
                     f"{row['bytes_per_token']:.3f} | {efficiency} | {row['unused_share']:.1%} | "
                     f"×{row['premium']:.2f} | "
                     f"×{row['worst_premium']:.2f} ({markdown_cell(row['language'])}) | {row['train_seconds']:.2f} |")
    return "\n".join(lines) + "\n"
