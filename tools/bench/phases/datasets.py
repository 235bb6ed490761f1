"""Token files: `encode_files` at 1 and 2 worker processes on prose; the memory of `bpe count` and `bpe prepare`.

`encode_files` writes the byte-level prose tokenizer's IDs of a corpus file
into a token file, with 1 and 2 worker processes, beside tiktoken's
single-threaded `encode_ordinary` and its threaded
`encode_ordinary_batch` (on about 1 MB pieces) given the same merges; the
IDs are compared. Its memory is the peak of the whole process tree. Issue
12's targets: two workers at least 1.7 times as fast as one and faster than
tiktoken on one thread, the memory flat in the input's size and under 300
MB.

Then the commands: `bpe.py count` and `bpe.py prepare`, each run as a real
process with 1 and 2 workers, on the code corpus repeated 2 and 20 times
(20 MB and 200 MB at the full run's 10 MB; `--mb` scales them), with the
lab's character-level `tokenizer.json`, a byte-level lab tokenizer with a
prefix space and a special token, GPT-2's official vocabulary (`-t gpt2`),
and Llama 3's and Gemma 3's `tokenizer.json` (as the models phase finds
them). Their memory is the sum over the process tree of each process's
VmHWM just before it exits (read every 10 ms from /proc), and the
footprint is the same command in one process on an empty file (the
tokenizer loaded, nothing read). Issue 28's targets (finding 3): at most
the footprint plus 150 MB for each process of the tree, and the 20-times
file's figure within 10% of the 2-times file's. These run once each
(a high-water mark hardly varies between runs, and the 200 MB runs are long).
"""

import os

from ..corpora import CODE, MB, MEMORY_COPIES, PROSE, write_copies
from ..implementations import label
from ..measuring import log
from ..plan import rows_compared
from ..report import Row, judged, mark_agreement, peak_mb, speed_ratio
from ..versions import ROOT
from .models import MODELS

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
    command_rows, command_ratios = commands_memory(plan)
    return ([row for group in groups.values() for row in group] + command_rows,
            dataset_ratios(groups) + command_ratios)


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


COMMAND_COPIES = (2, 20)
"""The code corpus is repeated this many times for the commands' memory: 20 MB and 200 MB at 10 MB."""

COMMANDS = ("count", "prepare")

ALLOWANCE_MB = 150
"""What each process of a command's tree may hold above the tokenizer's footprint (issue 28, finding 3)."""

GROWTH_LIMIT = 1.1
"""The most the larger file's peak may be of the smaller's: "the same within 10%"."""


def command_tokenizers(plan):
    """The ``-t`` argument of each tokenizer the commands are measured with, by name.

    --quick takes the lab's alone (with ``prepare`` alone, at 2 workers alone).
    """
    prefixed = {"job": "train", "impl": "ours", "corpus": os.path.join(ROOT, "corpus.txt"),
                "vocab_size": plan.pick(2000, 300), "byte_level": True, "pattern": "gpt2",
                "add_prefix_space": True, "special_tokens": ["<|endoftext|>"],
                "save_to": os.path.join(plan.folder, "ours-bytes-prefix-space.json")}
    tokenizers = {"lab tokenizer.json": os.path.join(ROOT, "tokenizer.json")}
    if plan.quick:
        return tokenizers
    plan.setup(prefixed, "training a byte-level tokenizer with a prefix space and a special token")
    tokenizers["lab, bytes, prefix space"] = prefixed["save_to"]
    if plan.settings["official"]:
        tokenizers["GPT-2"] = "gpt2"
    tokenizers.update({name: os.path.join(MODELS, f"{file}.json") for name, file in (("Llama 3", "llama3"),
                                                                                     ("Gemma 3", "gemma3"))})
    return tokenizers


def commands_memory(plan):
    """``bpe count`` and ``bpe prepare`` as real processes: the process tree's peak against the footprint."""
    workers, commands = plan.pick(((1, 2), COMMANDS), ((2,), ("prepare",)))
    code = plan.corpora[CODE]
    paths = {0: os.path.join(plan.folder, "empty.txt")}
    write_copies(paths[0], b"", 1)
    for copies in COMMAND_COPIES:
        paths[copies] = os.path.join(plan.folder, f"{CODE}-x{copies}.txt")
        write_copies(paths[copies], code["data"], copies)
    plan.notes.append("datasets, bpe count and prepare: peak = the sum over the process tree of each process's "
                      "last VmHWM (read every 10 ms from /proc); footprint = the same command, 1 process, on an "
                      f"empty file; bound = (footprint + {ALLOWANCE_MB} MB) × processes")
    rows, ratios = [], []
    try:
        for name, tokenizer in command_tokenizers(plan).items():
            if tokenizer != "gpt2" and not os.path.exists(tokenizer):
                ratios.append((f"bpe count and prepare, {name}", f"not run: no {tokenizer}"))
                continue
            for command in commands:
                log(f"bpe {command} with {name}: memory")
                command_rows, command_ratios = command_memory(plan, name, tokenizer, command, workers, paths)
                rows += command_rows
                ratios += command_ratios
    finally:
        for path in paths.values():
            os.remove(path)
    return rows, ratios


def command_memory(plan, name, tokenizer, command, workers, paths):
    """One tokenizer and command: the footprint, then each worker count on each size; rows and the two ratios."""
    spec = {"job": "command-memory", "impl": "ours", "command": command, "tokenizer": tokenizer}
    specs = [dict(spec, corpus=paths[0], workers=1)]
    specs += [dict(spec, corpus=paths[copies], workers=count) for count in workers for copies in COMMAND_COPIES]
    measured = iter(plan.measure_in_turn(specs, repeat=1))
    footprint = Row(f"bpe {command} of an empty file (footprint), {name}", "ours", next(measured), "seconds")
    rows, ratios = [footprint], []
    size = {copies: copies * plan.corpora[CODE]["bytes"] for copies in COMMAND_COPIES}
    for count in workers:
        peaks = []
        for copies in COMMAND_COPIES:
            rows.append(Row(f"bpe {command} of {size[copies] / MB:,.1f} MB code ({copies}× corpus), {name}",
                            "ours", next(measured), "seconds", size[copies],
                            name=f"{label('ours')}, {count} worker{'s' if count > 1 else ''}"))
            peaks.append(rows[-1])
        what = f"bpe {command}, {name}, {count} worker(s)"
        ratios.append((f"peak (Σ VmHWM) / (footprint + {ALLOWANCE_MB} MB per process), {what}, larger of the two "
                       "sizes", judged(over_bound(footprint, peaks), "≤", 1)))
        both = all(peak_mb(row) is not None for row in peaks)
        ratios.append((f"peak (Σ VmHWM), {COMMAND_COPIES[1]}× / {COMMAND_COPIES[0]}× corpus, {what}",
                       judged(peak_mb(peaks[1]) / peak_mb(peaks[0]) if both else None, "≤", GROWTH_LIMIT)))
    return rows, ratios


def over_bound(footprint, rows):
    """The highest of the rows' peaks over its bound, (footprint + allowance) × its processes; None if one is missing."""
    if peak_mb(footprint) is None or any(peak_mb(row) is None for row in rows):
        return None
    return max(peak_mb(row) / ((peak_mb(footprint) + ALLOWANCE_MB) * row.measurement.runs[0]["processes"])
               for row in rows)
