"""Typing in `bpe view`'s page: from the last key until every tokenizer's result is shown.

`bpe.py view` of six tokenizers (the lab's `tokenizer.json`, gpt2,
cl100k, o200k, and Llama 3 and Llama 2 from `.models/` or
`$BPE_LAB_MODELS`) serves its page to Debian's Chromium, driven by
Playwright; the box holds the lab's sentences in its 14 languages,
repeated to 20,000 characters. Each of 5 trials types ten letters at the
end, ten a second, and times from when the last key was due until every
tokenizer's section shows its result for the final text
(`tools/bench/page_typing.py` says how that is read); the figure is the
median of the trials, the worst beside it. Issue 34's target: at most
0.5 s.
"""

import os

from ..measuring import log
from ..report import Row, judged
from ..versions import ROOT
from .models import MODELS

TARGET = 0.5
"""Every result shown at most this many seconds after the last key."""

TOKENIZERS = [os.path.join(ROOT, "tokenizer.json"), "gpt2", "cl100k", "o200k", os.path.join(MODELS, "llama3.json"),
              os.path.join(MODELS, "llama2.json")]
"""The six tokenizers the page shows (the lab's file, three named vocabularies, two open models' files)."""


def run(plan):
    """The page of six tokenizers on 20,000 characters (--quick: the lab's alone on 2,000), five trials in one run."""
    tokenizers = plan.pick(TOKENIZERS, TOKENIZERS[:1])
    missing = [name for name in tokenizers if os.sep in name and not os.path.exists(name)]
    if missing:
        return [], [("page", f"not run: no {', '.join(map(os.path.basename, missing))} in .models/ or "
                              "$BPE_LAB_MODELS (.ci/run fetches them)")]
    chars, trials = plan.pick((20_000, 5), (2_000, 1))
    shown = f"{len(tokenizers)} tokenizer{'s' if len(tokenizers) > 1 else ''}"
    log(f"typing in bpe view's page of {shown}")
    plan.notes.append(f"the page: one fresh process (and its browser) for all {trials} trial(s), whatever --repeat says")
    spec = {"job": "page-typing", "impl": "ours", "tokenizers": tokenizers, "chars": chars, "trials": trials}
    row = Row(f"bpe view, {shown}, {chars:,} characters: last key → every result shown",
              "ours", plan.measure(spec, repeat=1), "seconds")
    worst = row.measurement.median("worst") if row.measurement.runs else None
    median = "n/a" if worst is None else f"{row.seconds():.2f} s"
    return [row], [(f"page: last key → every result shown, {chars:,} characters: median {median}, worst",
                    judged(worst, "≤", TARGET, " s"))]
