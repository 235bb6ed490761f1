"""Encoding each corpus twice in one fresh process, at the byte level and at the character level.

Each corpus is encoded twice by one fresh process (a cold cache, then
warm): at the byte level (GPT-2's pattern, vocabulary 8,192) against
tiktoken given our merges, once with GPT-2's original pattern and once with
the pattern `to_tiktoken()` exports; at the character level (the lab's
chunks, the largest vocabulary) against tiktoken and Hugging Face given the
same merges. One bare `re.findall` pass of the tokenizer's pattern, with no
merges, is the floor under any encoder that cuts with Python's `re`. Issue
31's targets: a cold byte-level pass at least 0.75 of tiktoken's speed (our
merges, GPT-2's pattern), a cold character-level pass at most 2.5 times the
`re.findall` pass.
"""

from ..corpora import corpus_title
from ..implementations import label
from ..measuring import log
from ..plan import rows_compared
from ..report import format_ratio, judged, mark_agreement, speed_ratio

BYTE_PEERS = ["tiktoken-gpt2", "tiktoken-export"]
ENCODE_PEERS = ["tiktoken", "hf"]
TIKTOKEN_TARGET = 0.75
"""A cold byte-level pass: at least this fraction of tiktoken's speed with our merges and GPT-2's pattern."""
FINDALL_TARGET = 2.5
"""A cold character-level pass: at most this many times the time of one bare ``re.findall`` pass."""


def encode_twice(plan, corpus, byte_level):
    """One corpus encoded by ours, the bare pattern and peers, each in one process: (cold rows, warm rows)."""
    level, peers = ("byte level", BYTE_PEERS) if byte_level else ("characters", ENCODE_PEERS)
    spec = {"job": "encode", "corpus": plan.corpora[corpus]["path"], "tokenizer": plan.tokenizer(corpus, byte_level),
            "passes": 2}
    impls = ["ours", "findall"] + plan.peers(peers)
    # One process measures both passes; the warm rows reuse its results.
    runs = dict(zip(impls, plan.measure_in_turn([dict(spec, impl=impl) for impl in impls])))
    what, nbytes = f"encode {corpus_title(plan.corpora[corpus])}, {level}", plan.corpora[corpus]["bytes"]
    groups = [rows_compared(f"{what}, {kind}", [(impl, runs[impl], "") for impl in impls], metric, nbytes)
              for kind, metric in (("cold cache", "cold"), ("warm (2nd pass)", "warm"))]
    for group in groups:
        mark_agreement(group, "digest", "IDs")
    return groups


def second_pass_ratio(what, cold, warm):
    """How much faster our second pass over a text is than the first (the chunk cache at work)."""
    return f"second pass / first pass throughput, ours, {what}", format_ratio(speed_ratio(cold[0], warm[0]))


def findall_ratio(what, cold, target=None):
    """Our cold pass's time over one bare ``re.findall`` pass's, against ``target`` when there is one."""
    ours, findall = cold[0], next(row for row in cold if row.impl == "findall")
    ratio = speed_ratio(ours, findall)
    return (f"time, ours cold / one bare re.findall pass of the pattern, {what}",
            format_ratio(ratio) if target is None else judged(ratio, "≤", target))


def byte_level_ratios(corpus, cold, warm):
    """Ours against tiktoken with GPT-2's pattern, and tiktoken's two patterns against each other."""
    name = corpus["name"]
    ratios = [second_pass_ratio(f"byte level, {name}", cold, warm), findall_ratio(f"byte level, {name}", cold)]
    peers = {row.impl: (row, warm_row) for row, warm_row in zip(cold, warm)}
    if "tiktoken-gpt2" in peers:
        gpt2_cold, gpt2_warm = peers["tiktoken-gpt2"]
        ratios.append((f"throughput ours / tiktoken (our merges, GPT-2's pattern), cold, {name}",
                       judged(speed_ratio(gpt2_cold, cold[0]), "≥", TIKTOKEN_TARGET)))
        ratios.append((f"throughput ours / tiktoken (our merges, GPT-2's pattern), warm, {name}",
                       format_ratio(speed_ratio(gpt2_warm, warm[0]))))
        ratios.append((f"throughput inside tiktoken, exported pattern / GPT-2's pattern, {name}",
                       format_ratio(speed_ratio(gpt2_cold, peers["tiktoken-export"][0]))))
    return ratios


def character_level_ratios(corpus, cold, warm):
    """Each peer's throughput over ours, cold and warm, our own second pass over the first, and the bare pattern."""
    name = corpus["name"]
    ratios = [second_pass_ratio(f"characters, {name}", cold, warm),
              findall_ratio(f"characters, {name}", cold, FINDALL_TARGET)]
    ratios += [
        (f"encode throughput {kind}, {label(row.impl)} / ours, characters, {name}",
         format_ratio(speed_ratio(group[0], row)))
        for group, kind in ((cold, "cold"), (warm, "warm"))
        for row in group[1:] if row.impl != "findall"
    ]
    return ratios


def run(plan):
    """Each corpus encoded twice (cold cache, then warm): byte level against tiktoken, then characters."""
    rows, ratios = [], []
    for corpus in plan.corpora:
        for byte_level, ratios_of in ((True, byte_level_ratios), (False, character_level_ratios)):
            log(f"encoding the {corpus} corpus, {'byte' if byte_level else 'character'} level")
            cold, warm = encode_twice(plan, corpus, byte_level)
            rows += cold + warm
            ratios += ratios_of(plan.corpora[corpus], cold, warm)
    return rows, ratios
