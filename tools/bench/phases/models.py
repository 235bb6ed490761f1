"""The open models' real tokenizer.json files: loading, encoding prose line by line, their chunk regexes.

Llama 3, Qwen 3, DeepSeek V3, gpt-oss, and SentencePiece's kind, Llama 2
and Gemma 3 (from `.models/` or `$BPE_LAB_MODELS`; `.ci/run` fetches them),
are loaded by ours from the file and from a format-3 copy, against
`tokenizers.Tokenizer.from_file`; the prose corpus is encoded line by line
(each line with its line break) against `encode_batch(lines,
add_special_tokens=False)` on one thread, the IDs compared; and each file's
chunk regexes cut long inputs (one chunk of letters, spaces, digits) at n
and 10n. Llama 2 and Gemma 3 have no chunk pattern: they encode one line of
CJK letters without a space (one chunk) at n and 10n. Issue 18's targets
(the byte-level models): loading at most 3 times `from_file`'s time,
encoding at least 1.5 times its speed.
"""

import json
import os

from ..corpora import PROSE, corpus_title
from ..implementations import label
from ..jobs import MODEL_LONG_TEXTS
from ..measuring import log
from ..report import GROWTH_TARGET, format_ratio, judged, mark_agreement, speed_ratio
from ..versions import ROOT

OPEN_MODELS = ("llama3", "qwen3", "deepseek_v3", "gptoss")
"""The open models whose real tokenizer.json files this phase measures (``NAME.json``)."""

SENTENCEPIECE_MODELS = ("llama2", "gemma3")
"""The SentencePiece-style ones it measures too (issue 19), against no target yet: the figures are reported."""

MODELS = os.environ.get("BPE_LAB_MODELS") or os.path.join(ROOT, ".models")
"""Where those files are (as the tests find them: see tests/clients.py)."""

LOAD_TARGET, ENCODE_TARGET = 3, 1.5
"""The targets: loading at most 3× from_file's time, encoding at least 1.5× its speed."""


def model_regexes(path):
    """The Split regexes of a tokenizer.json's pre-tokenizer, in order."""
    with open(path, encoding="utf-8") as stream:
        pre_tokenizer = json.load(stream).get("pre_tokenizer")
    steps = pre_tokenizer.get("pretokenizers", [pre_tokenizer]) if pre_tokenizer else []
    return [step["pattern"]["Regex"] for step in steps if step.get("type") == "Split" and "Regex" in step["pattern"]]


def run(plan):
    """The open models' tokenizer.json files (issue 18; --quick: one small file): load, encode by lines, chunk long."""
    rows, ratios = [], []
    paths = plan.pick([os.path.join(MODELS, f"{name}.json") for name in OPEN_MODELS + SENTENCEPIECE_MODELS],
                      [os.path.join(ROOT, "tests", "data", "hf", "ranked.json")])  # a small file tokenizers built
    for path in paths:
        name = os.path.basename(path).removesuffix(".json")
        if not os.path.exists(path):
            ratios.append((f"model {name}", f"not run: no {name}.json in .models/ or $BPE_LAB_MODELS (.ci/run "
                                            "fetches it)"))
            continue
        log(f"the {name} tokenizer.json")
        model_rows, model_ratios = measure_model(plan, path, name)
        rows += model_rows
        ratios += model_ratios
    return rows, ratios


def measure_model(plan, path, name):
    """One tokenizer.json: loading three ways, encoding prose line by line, its long inputs."""
    prose = plan.corpora[PROSE]
    targeted = name not in SENTENCEPIECE_MODELS  # (issue 18's targets; the SentencePiece kind has none yet)
    saved = os.path.join(plan.folder, f"{name}-format3.json")
    plan.setup({"job": "save-format3", "impl": "ours", "model": path, "saved": saved}, f"saving {name} as format 3")
    spec = {"model": path, "saved": saved}
    load = plan.compared(f"load {name} tokenizer.json", [dict(spec, job="load-model", impl=impl) for impl in
                                                          ["ours", "ours-format3"] + plan.peers(["hf"])], "seconds")
    load[0].name = f"{label('ours')}, Tokenizer.load_huggingface"
    encode = plan.compared(f"encode {corpus_title(prose)} line by line with {name}",
                           [dict(spec, job="encode-lines", impl=impl, corpus=prose["path"])
                            for impl in plan.impls(["hf"])], "seconds", prose["bytes"])
    encode[-1].name = f"{label('hf')}, encode_batch(lines)" if len(encode) > 1 else encode[-1].name
    mark_agreement(encode, "digest", "IDs")
    loaded = {row.impl: row for row in load}
    ratios = [(f"load time of {name}, ours: format 3 / tokenizer.json",
               judged(speed_ratio(loaded["ours-format3"], loaded["ours"]), "<", 1))]
    if "hf" in loaded:
        load_ratio, encode_ratio = speed_ratio(loaded["ours"], loaded["hf"]), speed_ratio(encode[1], encode[0])
        ratios.append((f"load time of {name}, ours / tokenizers.Tokenizer.from_file",
                       judged(load_ratio, "≤", LOAD_TARGET) if targeted else format_ratio(load_ratio, "×")))
        ratios.append((f"encode throughput of {name}, ours / HF encode_batch (1 thread)",
                       judged(encode_ratio, "≥", ENCODE_TARGET) if targeted else format_ratio(encode_ratio, "×")))
    rows = load + encode
    sizes = plan.pick([100_000, 1_000_000], [1_000, 10_000])
    if not targeted:
        group = [plan.alone(f"{name}: encode one line of {n:,} CJK letters (one chunk)",
                            dict(spec, job="encode-long-line", n=n), "seconds") for n in sizes]
        ratios.append((f"encode time of one line at {sizes[-1]:,} / at {sizes[0]:,}: {name}",
                       judged(speed_ratio(group[-1], group[0]), "≤", GROWTH_TARGET)))
        rows += group
    for number, regex in enumerate(model_regexes(path)):
        for text in MODEL_LONG_TEXTS:
            group = [plan.alone(f"{name} regex {number + 1}: one chunk of {n:,} {text}",
                                {"job": "chunk-long", "regex": regex, "text": text, "n": n}, "seconds")
                     for n in sizes]
            ratios.append((f"chunk time at {sizes[-1]:,} / at {sizes[0]:,}: {name} regex {number + 1}, {text}",
                           judged(speed_ratio(group[-1], group[0]), "≤", GROWTH_TARGET)))
            rows += group
    return rows, ratios
