"""Long inputs at n and 10n, and how much longer each takes at 10n.

Each job runs on an input of size n and of size 10n, ours alone: training
on one long chunk (`a` repeated, random letters), `to_tiktoken()` of a
tokenizer trained on a long random word, `encode("hello world")` with many
special tokens, and `bpe.py explain` on one long chunk. Issue 8's target: at
10n, at most 15 times the time at n (no input may make the time grow faster
than n log n).
"""

from collections import namedtuple

from ..corpora import PROSE
from ..jobs import LONG_TRAIN_VOCAB, WORD_VOCAB
from ..measuring import log
from ..report import GROWTH_TARGET, judged, speed_ratio

LongCase = namedtuple("LongCase", "key title job metric full quick")
"""A long-input job: its name, its title (``{n}`` stands for the size), its job spec, the result field it is
timed by ("per_call" is shown in µs), and its two sizes in a full run and in the smoke run."""


def cases(plan):
    """The long-input jobs, each at its two sizes."""
    byte_vocab = plan.settings["byte_vocab"]
    return [
        LongCase("repeated-a", f"train 'a' × {{n}} → vocab {LONG_TRAIN_VOCAB:,}",
                 {"job": "long-train", "text": "repeated-a"}, "seconds", [100_000, 1_000_000], [1_000, 10_000]),
        LongCase("letters", f"train one chunk of {{n}} random letters → vocab {LONG_TRAIN_VOCAB:,}",
                 {"job": "long-train", "text": "letters"}, "seconds", [100_000, 1_000_000], [1_000, 10_000]),
        LongCase("word", f"to_tiktoken() of bytes trained on a random {{n}}-letter word twice → vocab {WORD_VOCAB:,}",
                 {"job": "to-tiktoken"}, "seconds", [1_000, 10_000], [100, 1_000]),
        LongCase("specials", 'encode("hello world") with {n} special tokens, per call', {"job": "special-calls"},
                 "per_call", [256, 2_560], [16, 160]),
        LongCase("explain", f"bpe.py explain on one chunk of {{n}} random letters (bytes, vocab {byte_vocab:,})",
                 {"job": "explain", "tokenizer": plan.tokenizer(PROSE, True)}, "seconds", [10_000, 100_000],
                 [100, 1_000]),
    ]


def run(plan):
    """Long inputs at n and 10n (issue 8): how much longer each job takes at 10n."""
    rows, ratios = [], []
    for case in cases(plan):
        log(f"long inputs: {case.key}")
        sizes = plan.pick(case.full, case.quick)
        group = [plan.alone(case.title.format(n=f"{n:,}"), dict(case.job, n=n), case.metric) for n in sizes]
        ratios.append((f"time at {sizes[-1]:,} / at {sizes[0]:,}: {case.title.format(n='n')}",
                       judged(speed_ratio(group[-1], group[0]), "≤", GROWTH_TARGET)))
        rows += group
    return rows, ratios
