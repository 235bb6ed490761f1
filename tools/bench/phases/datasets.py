"""Token files: `encode_files` at 1 and 2 worker processes, on the prose corpus and on it repeated ten times.

`encode_files` writes the byte-level prose tokenizer's IDs of a corpus file
into a token file, with 1 and 2 worker processes, beside tiktoken's
single-threaded `encode_ordinary` and its threaded
`encode_ordinary_batch` (on about 1 MB pieces) given the same merges; the
IDs are compared. Its memory is the peak of the whole process tree. Issue
12's targets: two workers at least 1.7 times as fast as one and faster than
tiktoken on one thread, the memory flat in the input's size and under 300
MB.
"""

from ..corpora import MB, MEMORY_COPIES, PROSE
from ..implementations import label
from ..measuring import log
from ..plan import rows_compared
from ..report import judged, mark_agreement, peak_mb, speed_ratio

WORKER_COUNTS = (1, 2)
"""The worker-process counts ``encode_files`` is measured with."""

DATASET_PEERS = ["tiktoken-export", "tiktoken-batch"]


def run(plan):
    """Token files (issue 12): ``encode_files`` at 1 and 2 workers on prose and on it repeated, against tiktoken."""
    prose = plan.corpora[PROSE]
    tokenizer = plan.tokenizer(PROSE, True)
    plan.notes.append("datasets: RSS of encode_files = peak of the summed resident memory of the job's process and "
                      "all its descendants (sampled every 50 ms from /proc; at least the peak of the process and "
                      "of its largest child); tiktoken holds the whole text and all its IDs")
    groups = {}
    with plan.repeated(PROSE) as big_path:
        for path, copies in ((prose["path"], 1), (big_path, MEMORY_COPIES)):
            nbytes = prose["bytes"] * copies
            size = f"{nbytes / MB:.2f} MB prose"
            log(f"token files from {size}")
            spec = {"corpus": path, "tokenizer": tokenizer}
            specs = [dict(spec, job="encode-files", impl="ours", workers=workers) for workers in WORKER_COUNTS]
            specs += [dict(spec, job="encode", impl=impl, passes=1) for impl in plan.peers(DATASET_PEERS)]
            names = [f"{label('ours')}, encode_files, {workers} worker{'s' if workers > 1 else ''}"
                     for workers in WORKER_COUNTS] + [""] * (len(specs) - len(WORKER_COUNTS))
            measured = [(spec["impl"], measurement, name)
                        for spec, measurement, name in zip(specs, plan.measure_in_turn(specs), names)]
            group = rows_compared(f"token file from {size} ({copies}× corpus), bytes, cold", measured, "cold", nbytes)
            mark_agreement(group, "digest", "IDs")
            groups[size] = group
    return [row for group in groups.values() for row in group], dataset_ratios(groups)


def dataset_ratios(groups):
    """The targets of issue 12: memory flat in the input size and below 300 MB, two workers nearly twice as fast.

    ``groups`` maps each input's size to its rows: ours at each worker count, then the peers.
    """
    ratios = []
    for size, (one, two, *peers) in groups.items():
        ratios.append((f"throughput encode_files, 2 workers / 1 worker, {size}",
                       judged(speed_ratio(one, two), "≥", 1.7)))
        ratios += [(f"throughput encode_files 2 workers / tiktoken encode_ordinary (1 thread), {size}",
                    judged(speed_ratio(row, two), "≥", 1)) for row in peers if row.impl == "tiktoken-export"]
    small, large = groups.values()
    for workers, small_row, large_row in zip(WORKER_COUNTS, small, large):
        both = peak_mb(small_row) is not None and peak_mb(large_row) is not None
        ratios.append((f"peak RSS (process tree), {MEMORY_COPIES}× corpus / 1× corpus, encode_files, {workers} "
                       f"worker(s)", judged(peak_mb(large_row) / peak_mb(small_row) if both else None, "≤", 1.2)))
    ours = [row for group in groups.values() for row in group[: len(WORKER_COUNTS)]]
    peaks = [peak_mb(row) for row in ours if row.measurement.runs]
    ratios.append(("highest peak RSS (process tree) of encode_files, any size and worker count",
                   judged(max(peaks, default=None), "<", 300, " MB")))
    return ratios
