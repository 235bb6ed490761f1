"""The simple reference trainer against ours.

`bpe.reference_train`, BPE by its definition, and the fast trainer learn
from the first kilobytes of the code corpus in memory (chunking and
counting timed too), to the largest vocabulary; both give a digest of
their merges, which must be the same. `--reference-mb 1` adds a run on the
first megabyte (slow: the simple trainer takes minutes).
"""

from ..corpora import CODE, MB
from ..measuring import log
from ..report import format_ratio, mark_agreement, speed_ratio


def run(plan):
    """The simple reference trainer against ours on the first KB (and optionally MB) of the corpus."""
    log("the simple reference trainer against ours")
    corpus = plan.corpora[CODE]
    limits = [int(plan.settings["reference_kb"] * 1000)]
    if plan.settings["reference_mb"]:
        limits.append(int(plan.settings["reference_mb"] * MB))
    rows, ratios = [], []
    for limit in limits:
        kb = min(limit, corpus["bytes"]) / 1000
        spec = {"job": "small-train", "corpus": corpus["path"], "limit": limit, "vocab_size": plan.largest}
        ours, reference = plan.compared(f"train first {kb:,.0f} KB in memory → vocab {plan.largest:,}",
                                        [dict(spec, impl=impl) for impl in ("ours", "reference")], "seconds")
        mark_agreement([ours, reference], "digest", "merges")
        if ours.measurement.runs and reference.measurement.runs:
            ratios.append((f"speed-up of ours over the reference trainer, first {kb:,.0f} KB",
                           format_ratio(speed_ratio(reference, ours))))
        rows += [ours, reference]
    return rows, ratios
