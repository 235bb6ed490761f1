"""Training like other libraries: their tie rules, in 1 and 2 worker processes, beside the libraries themselves.

Byte-level training on the prose corpus and on it repeated ten times
(GPT-2's pattern, to the byte vocabulary): ours with rustbpe's tie rule in
1 and 2 worker processes and with Hugging Face's in 2, each rule in 2 also by
the command line's road (``bpe.py train``, which must learn the same merges
as the API and take about its time), beside rustbpe and Hugging Face on the
same two cores (``RAYON_NUM_THREADS=2``) and on one thread (the same chunks:
the libraries get the text as blocks cut at safe places), and, at the larger
size, ours counted on a two-worker Dask cluster. Each library's row says
whether it learned exactly the merges of ours with its rule. The runs of one
size are taken in turn, at least ``RUNS`` of each. Issue 40's targets, on
equal cores: two workers at most 1.3 times rustbpe's time at 10 MB and at
most its time at 100 MB; issue 20's, against one thread, stay beside.
"""

from ..corpora import MB, MEMORY_COPIES, PROSE
from ..implementations import label
from ..measuring import log
from ..report import Row, format_ratio, judged

RULE_PEERS = {"rustbpe": (("rustbpe", "rustbpe-2"), 1), "huggingface": (("hf", "hf-2"), 2)}
"""Each library whose tie rule this phase reproduces: its implementations (one thread, two), and the minimum count
it uses there (rustbpe has none, so 1; Hugging Face's ``min_frequency=2``, as in the ``train`` phase)."""

RUNS = 5
"""The fewest runs of each job in a full run (the quick run takes one)."""


def rule_specs(plan, path):
    """The jobs of one size, by (tie rule, workers or library): ours, the libraries, and Dask at the larger size."""
    base = {"job": "train-rule", "corpus": path, "vocab_size": plan.settings["byte_vocab"]}
    specs = {}
    for ties, (peers, min_count) in RULE_PEERS.items():
        for workers in ((1, 2) if ties == "rustbpe" else (2,)):
            specs[ties, workers] = dict(base, impl="ours", ties=ties, min_count=min_count, workers=workers)
        specs[ties, "cli"] = dict(base, impl="ours-cli", ties=ties, min_count=min_count, workers=2)
        for peer in peers if plan.settings["peers"] else ():
            specs[ties, peer] = dict(base, impl=peer, ties=ties, min_count=min_count)
    if path != plan.corpora[PROSE]["path"] and plan.settings["peers"]:
        specs["rustbpe", "dask"] = dict(base, impl="dask", ties="rustbpe", min_count=1)
    return specs


def run(plan):
    """Issues 20 and 40: other libraries' tie rules, counting in 1 and 2 workers, beside rustbpe and Hugging Face on 1
    and 2 threads; Dask."""
    prose = plan.corpora[PROSE]
    repeat = plan.pick(max(RUNS, plan.settings["repeat"]), plan.settings["repeat"])
    plan.notes.append(f"trainers: byte level, GPT-2's pattern; ours trains from the file (train_from_files); the "
                      f"libraries get the same text as blocks cut at safe places, so they cut the same chunks; each "
                      f"figure of this phase is the median of {repeat} run{'s' if repeat > 1 else ''}")
    rows, ratios = [], []
    with plan.repeated(PROSE) as big_path:
        for path, copies in ((prose["path"], 1), (big_path, MEMORY_COPIES)):
            size = f"{prose['bytes'] * copies / MB:.2f} MB prose"
            log(f"trainers on {size}")
            specs = rule_specs(plan, path)
            runs = dict(zip(specs, plan.measure_in_turn(list(specs.values()), repeat)))
            rows += trainer_rows(plan, size, runs)
            ratios += trainer_ratios(size, copies, runs)
    return rows, ratios


def trainer_rows(plan, size, runs):
    """The rows of one size, each library's saying whether it learned the merges of ours with its rule."""
    group = []
    for (ties, who), measurement in runs.items():
        impl = runs_impl(who)
        name = (f"ours, ties={ties!r}, {who} worker{'s' if who > 1 else ''}" if impl == "ours" else
                f"{label(impl)}, ties={ties!r}" if impl in ("dask", "ours-cli") else "")
        group.append(Row(f"train {size} → vocab {plan.settings['byte_vocab']:,}, bytes", impl, measurement, "wall",
                         baseline=group[0] if group else None, name=name))
    for row, (ties, who) in zip(group, runs):
        mine = runs[ties, 2]
        if row.impl != "ours" and row.measurement.runs and mine.runs:
            same = row.measurement.runs[0]["digest"] == mine.runs[0]["digest"]
            whose = "the API's, 2 workers" if row.impl == "ours-cli" else f"ours with ties={ties!r}"
            row.note = f"{'same' if same else 'DIFFERENT'} merges as {whose}"
    return group


def runs_impl(who):
    """The implementation a job of this phase ran: ours in N workers, ours by the command line, or a library."""
    return "ours-cli" if who == "cli" else who if isinstance(who, str) else "ours"


def trainer_ratios(size, copies, runs):
    """The targets at one size: ours in 2 workers against rustbpe and Hugging Face on 2 threads (issue 40) and on
    1 (issue 20); workers; the command line; Dask."""
    def seconds(key):
        measurement = runs.get(key)
        return measurement.median("wall") if measurement is not None and measurement.runs else None

    def ratio(mine, theirs):
        return None if seconds(mine) is None or seconds(theirs) is None else seconds(mine) / seconds(theirs)

    ratios = [(f"time, ours 2 workers / ours 1 worker, {size}", format_ratio(ratio(("rustbpe", 2), ("rustbpe", 1)))),
              (f"time, ours by the command line / by the API (2 workers, ties='rustbpe'), {size}",
               format_ratio(ratio(("rustbpe", "cli"), ("rustbpe", 2))))]
    ratios.append((f"time, ours 2 workers / rustbpe (2 threads), {size}",
                   judged(ratio(("rustbpe", 2), ("rustbpe", "rustbpe-2")), "≤", 1.0 if copies > 1 else 1.3)))
    ratios.append((f"time, ours 2 workers / Hugging Face (2 threads), {size}",
                   format_ratio(ratio(("huggingface", 2), ("huggingface", "hf-2")))))
    ratios.append((f"time, ours 2 workers / rustbpe (1 thread), {size}",
                   judged(ratio(("rustbpe", 2), ("rustbpe", "rustbpe")), "≤", 1.0 if copies > 1 else 1.5)))
    hf = ratio(("huggingface", 2), ("huggingface", "hf"))
    ratios.append((f"time, ours 2 workers / Hugging Face (1 thread), {size}",
                   judged(hf, "≤", 0.4) if copies > 1 else format_ratio(hf)))
    if ("rustbpe", "dask") in runs:
        ratios.append((f"time, ours counted on Dask (2 workers, cluster start included) / ours in one process, {size}",
                       format_ratio(ratio(("rustbpe", "dask"), ("rustbpe", 1)))))
    return ratios
