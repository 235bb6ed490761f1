"""SuperBPE against plain BPE on the prose corpus: tokens per byte, training, encoding, the chunk cache.

At each of two vocabulary sizes, plain BPE with SuperBPE's stage-1 pattern
(`superbpe-words`) and SuperBPE as its official code trains it, inheriting
a share of the merges (`superbpe=t` inherits t - 1 of them: the official
`head -n t` counts the file's header line), are trained on the prose corpus
once (timed, one run) and encode the corpus they were trained on: the
tokens per byte each gives, its encode speed and the chunk cache's hit
rate. Plain BPE and the latest `t` are encoded in every run, with Hugging
Face given the same `save_huggingface()` export; the others once.
"""

import os

from ..corpora import PROSE, corpus_title
from ..measuring import log
from ..plan import FIRST_RUN, rows_compared
from ..report import Row, format_ratio, mark_agreement, speed_ratio

SUPERBPE_PEERS = ["hf-export"]


def run(plan):
    """SuperBPE against plain BPE on the prose corpus (issue 21): tokens per byte, training, encoding, the cache."""
    prose = plan.corpora[PROSE]
    sizes, fractions = plan.pick(([8192, 32768], [0.5, 0.75, 0.9]), ([400], [0.9]))
    rows, ratios = [], []
    for size in sizes:
        merges = size - 256
        kinds = [(None, "plain BPE (superbpe-words)")] + [
            (round(fraction * merges) + 1,
             f"SuperBPE t = {round(fraction * merges) + 1:,} ({fraction:.0%} of the merges inherited)")
            for fraction in fractions]
        encoded = {}
        for number, (transition, kind) in enumerate(kinds):
            log(f"superbpe: vocab {size:,}, {kind}")
            path = os.path.join(plan.folder, f"superbpe-{size}-{transition}.json")
            spec = {"job": "train", "impl": "ours", "corpus": prose["path"], "vocab_size": size, "byte_level": True,
                    "pattern": "superbpe-words" if transition is None else None, "superbpe": transition,
                    FIRST_RUN: {"save_to": path}}
            rows.append(Row(f"train {corpus_title(prose)} → vocab {size:,}, bytes, {kind} (1 run)", "ours",
                            plan.measure(spec, repeat=1), "wall"))
            if not rows[-1].measurement.runs:
                continue
            timed_often = number in (0, len(kinds) - 1)
            spec = {"job": "encode-counted", "impl": "ours", "corpus": prose["path"], "tokenizer": path}
            specs = [spec] + [dict(spec, job="encode", impl=impl, passes=1)
                              for impl in (plan.peers(SUPERBPE_PEERS) if timed_often else [])]
            measured = plan.measure_in_turn(specs, repeat=None if timed_often else 1)
            group = rows_compared(f"encode {corpus_title(prose)}, vocab {size:,}, {kind}, cold",
                                  [(spec["impl"], measurement, "") for spec, measurement in zip(specs, measured)],
                                  "cold", prose["bytes"])
            mark_agreement(group, "digest", "IDs")
            rows += group
            encoded[transition] = (kind, group[0])
        ratios += superbpe_ratios(prose, size, encoded)
    return rows, ratios


def superbpe_ratios(corpus, size, encoded):
    """Tokens per byte of each tokenizer at one size, against plain BPE's; encode speed and cache hits likewise."""
    if None not in encoded:
        return []
    plain_kind, plain = encoded[None]
    plain_tokens = plain.measurement.runs[0]["tokens"]

    def hit_rate(row):  # each distinct chunk is encoded once while the cache holds them all, every other look-up hits
        run = row.measurement.runs[0]
        rate = f"{1 - run['distinct'] / run['chunks']:.1%}" if run["chunks"] else "-"
        return rate if run["distinct"] <= run["limit"] else f"at most {rate}"

    ratios = []
    for transition, (kind, row) in encoded.items():
        tokens = row.measurement.runs[0]["tokens"]
        value = f"{tokens / corpus['bytes']:.4f}"
        if transition is not None:
            value += f" ({1 - tokens / plain_tokens:.1%} fewer tokens than plain BPE)"
        ratios.append((f"tokens per byte on {corpus_title(corpus)}, vocab {size:,}, {kind}", value))
    superbpe = [row for transition, (_, row) in encoded.items() if transition is not None]
    ratios += [(f"encode throughput, vocab {size:,}, {kind} / plain BPE", format_ratio(speed_ratio(plain, row)))
               for transition, (kind, row) in encoded.items() if transition is not None]
    if superbpe:  # (the same at every t: the hits depend on the chunks alone)
        ratios.append((f"chunk cache hit rate encoding {corpus_title(corpus)}, plain BPE (superbpe-words' "
                       "chunks) / SuperBPE (superbpe's)", f"{hit_rate(plain)} / {hit_rate(superbpe[0])}"))
    return ratios
