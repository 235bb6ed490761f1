"""Encoding one long chunk of random letters, at two lengths.

One chunk of random lowercase letters, with no space, is the worst case for
merging: the character-level code tokenizer encodes it at n and 10n, cold,
beside tiktoken and Hugging Face given the same merges. Issue 31's targets:
1,000,000 letters in at most 1.0 s, and 10 times the letters in at most 15
times the time.
"""

from ..corpora import CODE
from ..implementations import label
from ..measuring import log
from ..report import GROWTH_TARGET, format_ratio, judged, speed_ratio
from .encode import ENCODE_PEERS

MILLION_TARGET = 1.0
"""One chunk of 1,000,000 letters: at most this many seconds."""


def run(plan):
    """Encoding one long chunk of random letters at two lengths, to see how the time grows."""
    log("encoding one long chunk of random letters")
    lengths = plan.pick([100_000, 1_000_000], [1_000, 10_000])
    groups = []
    for length in lengths:
        spec = {"job": "encode", "letters": length, "tokenizer": plan.tokenizer(CODE), "passes": 1}
        groups.append(plan.compared(f"encode one chunk of {length:,} random letters, cold",
                                    [dict(spec, impl=impl) for impl in plan.impls(ENCODE_PEERS)], "cold"))
    short, long = lengths[0], lengths[-1]
    ratios = [
        # speed_ratio(b, a) is b's time / a's time: here the long chunk's time over the short one's.
        (f"time for {long:,} / {short:,} letters, {label(first.impl)} (linear = {long / short:g})",
         judged(speed_ratio(last, first), "≤", GROWTH_TARGET) if first.impl == "ours"
         else format_ratio(speed_ratio(last, first)))
        for first, last in zip(groups[0], groups[-1])
    ]
    ours = groups[-1][0]
    ratios.append((f"time for one chunk of {long:,} letters, ours (at most {MILLION_TARGET:g} s per 1,000,000)",
                   judged(ours.seconds(), "≤", MILLION_TARGET * long / 1_000_000, " s")))
    return [row for group in groups for row in group], ratios
