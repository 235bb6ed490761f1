"""Training on the code corpus at each vocabulary size, and on it repeated ten times.

Ours, Hugging Face `tokenizers` (one thread, the same chunk pattern, a pair
merged when it occurs twice, as ours) and `subword-nmt` (as many merges,
its own word split) train from the code corpus's file at each vocabulary
size, then at the largest on the corpus repeated ten times (the memory
job). Times are whole processes: start-up, imports, reading and chunking
included, as a user waits for them.
"""

from ..corpora import CODE, MB, MEMORY_COPIES
from ..implementations import label
from ..measuring import log
from ..plan import FIRST_RUN
from ..report import format_ratio

TRAIN_PEERS = ["hf", "subword-nmt"]


def training_specs(plan, path, vocab_size):
    """The training job of each implementation; at the largest size, ours saves the tokenizer the encode jobs use."""
    base = {"job": "train", "corpus": path, "vocab_size": vocab_size,
            # subword-nmt counts merges, not vocabulary entries: give it as many as ours learns.
            "merges": max(vocab_size - plan.corpora[CODE]["alphabet"] - 1, 0)}
    specs = [dict(base, impl=impl) for impl in plan.impls(TRAIN_PEERS)]
    if vocab_size == plan.largest and path == plan.corpora[CODE]["path"]:
        specs[0][FIRST_RUN] = {"save_to": plan.tokenizer_path(CODE, False)}
    return specs


def run(plan):
    """Training at each vocabulary size, then on the corpus repeated (the memory job)."""
    corpus = plan.corpora[CODE]
    size_mb = corpus["bytes"] / MB
    rows = []
    log("training at each vocabulary size")
    for vocab_size in plan.settings["sizes"]:
        group = plan.compared(f"train {size_mb:.2f} MB → vocab {vocab_size:,}",
                              training_specs(plan, corpus["path"], vocab_size), "wall")
        rows += group
        if vocab_size == plan.largest:
            at_largest = group

    log(f"training on the corpus repeated {MEMORY_COPIES} times (memory)")
    with plan.repeated(CODE) as big_path:
        big = plan.compared(f"train {size_mb * MEMORY_COPIES:.2f} MB ({MEMORY_COPIES}× corpus) → vocab "
                            f"{plan.largest:,}", training_specs(plan, big_path, plan.largest), "wall")
    rows += big

    ratios = []
    for small, large in zip(at_largest, big):
        if small.measurement.runs and large.measurement.runs:
            ratio = large.measurement.median("rss_kib") / small.measurement.median("rss_kib")
            ratios.append((f"peak RSS, {MEMORY_COPIES}× corpus / 1× corpus, {label(small.impl)}", format_ratio(ratio)))
    return rows, ratios
