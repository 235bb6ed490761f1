"""A gigabyte in bounded memory: training on generated text with millions of distinct chunks, beside rustbpe.

The text is made by a seeded generator (`corpora.generated_blocks`):
sentences of words drawn by Zipf's law from ranks without end, so that the
distinct chunks keep growing with the size, as in real text (a gigabyte
holds over 3 million of them under GPT-2's pattern). Ours trains from the
file at the byte level, GPT-2's pattern, to 32,768, with rustbpe's tie rule
in 2 worker processes; rustbpe 0.1.0 trains on the same chunks with
`RAYON_NUM_THREADS=2`; each row says whether the merges are the same.
The time is the whole process's; the memory is the peak of the whole
process tree, the sum over the job's process and its workers of each one's
VmHWM just before it exits (read every 10 ms from /proc); the note splits
it between the parent and the workers. The distinct chunks are those the
lab's own counting made in the run (`on_counts`). The sizes are
`--gigabyte-mb` (1,000 MB by default), one run of each (a high-water mark
hardly varies, and a gigabyte takes minutes). Issue 40's targets at a
gigabyte: at least 3 million distinct chunks, the tree's peak at most 1.5
GB, the time at most rustbpe's.
"""

import os

from ..corpora import MB, write_generated
from ..implementations import label
from ..measuring import log
from ..report import Row, format_ratio, judged, peak_mb

VOCAB = 32_768
"""The vocabulary size of a full run (``--quick`` takes ``--byte-vocab``'s)."""

TARGET_MB = 1000
"""At this size and above, the issue's targets apply: the distinct chunks, the peak memory and the time."""

DISTINCT_TARGET, PEAK_TARGET_MB, TIME_TARGET = 3_000_000, 1500, 1.0


def run(plan):
    """Issue 40, item 2: each size of generated text trained by ours (2 workers) and rustbpe (2 threads)."""
    vocab = plan.pick(VOCAB, plan.settings["byte_vocab"])
    plan.notes.append("gigabyte: one run of each job, whatever --repeat says; generated text (seeded, Zipf-drawn "
                      f"words); byte level, GPT-2's pattern, to {vocab:,}; peak = Σ over the process tree of each "
                      "process's last VmHWM")
    rows, ratios = [], []
    for megabytes in plan.settings["gigabyte_mb"]:
        path = os.path.join(plan.folder, f"generated-{megabytes:g}MB.txt")
        log(f"gigabyte: writing {megabytes:g} MB of generated text")
        nbytes = write_generated(path, int(megabytes * MB))
        base = {"job": "train-counted", "corpus": path, "vocab_size": vocab, "ties": "rustbpe", "min_count": 1,
                "tree_memory": True}
        specs = [dict(base, impl="ours", workers=2)] + [dict(base, impl="rustbpe-2")][:plan.settings["peers"]]
        try:
            measured = plan.measure_in_turn(specs, repeat=1)
        finally:
            os.remove(path)
        size = f"{nbytes / MB:,.0f} MB generated" if nbytes >= MB else f"{nbytes / MB:.2f} MB generated"
        group = size_rows(size, vocab, measured)
        rows += group
        ratios += size_ratios(size, nbytes, group)
    return rows, ratios


def size_rows(size, vocab, measured):
    """The rows of one size: ours (its distinct chunks, its parent's and workers' peaks), then rustbpe."""
    group = []
    for measurement in measured:
        impl = "ours" if not group else "rustbpe-2"
        group.append(Row(f"train {size} → vocab {vocab:,}, bytes", impl, measurement, "wall",
                         baseline=group[0] if group else None,
                         name=f"{label('ours')}, ties='rustbpe', 2 workers" if impl == "ours" else ""))
    ours = group[0].measurement
    if ours.runs:
        run = ours.runs[0]
        group[0].note = (f"{run['distinct']:,} distinct chunks of {run['chunks']:,}; counted at "
                         f"{run['counting']:.1f} s, merges {run['learning']:.1f} s" + tree_split(run))
    for row in group[1:]:
        if row.measurement.runs and ours.runs:
            same = row.measurement.runs[0]["digest"] == ours.runs[0]["digest"]
            row.note = f"{'same' if same else 'DIFFERENT'} merges as ours"
    return group


def tree_split(run):
    """How a run's tree peak divides between its process and its workers ("" when it was not watched)."""
    if "workers_kib" not in run:
        return ""
    workers = ", ".join(f"{kib / 1024:,.0f}" for kib in run["workers_kib"])
    return (f"; Σ VmHWM MiB: parent {run['own_kib'] / 1024:,.0f} ({run['counted_kib'] / 1024:,.0f} resident once "
            f"counted), workers {workers or 'none'}")


def size_ratios(size, nbytes, group):
    """Distinct chunks, peak memory and time against rustbpe at one size; judged against the issue's targets
    at ``TARGET_MB`` and above."""
    ours, theirs = group[0], group[1] if len(group) > 1 else None
    gigabyte = nbytes >= TARGET_MB * MB
    distinct = ours.measurement.runs[0]["distinct"] if ours.measurement.runs else None
    peak = peak_mb(ours)
    ratios = [(f"distinct chunks (GPT-2's pattern, counted by the lab), {size}", distinct_figure(distinct, gigabyte)),
              (f"peak memory of the process tree (Σ VmHWM), ours 2 workers, {size}",
               judged(peak, "≤", PEAK_TARGET_MB, " MB") if gigabyte else format_ratio(peak, " MB"))]
    if peak is not None and distinct:
        ratios.append((f"peak memory per distinct chunk, ours 2 workers, {size}",
                       format_ratio(peak * MB / distinct, " bytes")))
    if theirs is not None:
        ratios.append((f"peak memory of the process tree, rustbpe (2 threads), {size}",
                       format_ratio(peak_mb(theirs), " MB")))
        both = ours.seconds() is not None and theirs.seconds() is not None
        ratio = ours.seconds() / theirs.seconds() if both else None
        ratios.append((f"time, ours 2 workers / rustbpe (2 threads), {size}",
                       judged(ratio, "≤", TIME_TARGET) if gigabyte else format_ratio(ratio)))
    return ratios


def distinct_figure(distinct, judge):
    """The distinct chunks counted, judged against ``DISTINCT_TARGET`` when ``judge``; "n/a" when missing."""
    if distinct is None:
        return "n/a"
    verdict = f" (target ≥ {DISTINCT_TARGET:,}: {'met' if distinct >= DISTINCT_TARGET else 'missed'})"
    return f"{distinct:,}{verdict if judge else ''}"
