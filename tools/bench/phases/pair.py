"""GPT-2's pair of files, vocab.json and merges.txt, loaded by ours and by Hugging Face.

The official `gpt2` vocabulary (or, where its files are not on the
machine, our byte-level prose tokenizer) is written as `vocab.json` +
`merges.txt` and loaded with `Tokenizer.load_vocab_merges` against
`tokenizers.ByteLevelBPETokenizer(vocab, merges)`; the IDs of the prose
corpus's first 200 KB are compared.
"""

import os

from ..corpora import PROSE
from ..implementations import label
from ..report import format_ratio, mark_agreement, speed_ratio


def run(plan):
    """GPT-2's vocab.json + merges.txt (issue 19): ours and Hugging Face's ByteLevelBPETokenizer load the same files."""
    vocab, merges = os.path.join(plan.folder, "vocab.json"), os.path.join(plan.folder, "merges.txt")
    written = plan.setup({"job": "save-pair", "impl": "ours", "official": plan.settings["official"], "vocab": vocab,
                          "merges": merges, "tokenizer": plan.tokenizer(PROSE, True)}, "writing vocab.json + merges.txt")
    title = "GPT-2's" if written["official"] else "our byte-level prose tokenizer's"
    spec = {"job": "load-pair", "vocab": vocab, "merges": merges, "corpus": plan.corpora[PROSE]["path"]}
    rows = plan.compared(f"load {title} vocab.json + merges.txt", [dict(spec, impl=impl) for impl in plan.impls(["hf"])],
                         "seconds")
    rows[0].name = f"{label('ours')}, Tokenizer.load_vocab_merges"
    if len(rows) > 1:
        rows[1].name = "HF tokenizers, ByteLevelBPETokenizer(vocab, merges)"
    mark_agreement(rows, "digest", "IDs")
    ratios = [(f"load time of {title} vocab.json + merges.txt, ours / tokenizers", format_ratio(speed_ratio(*rows)))
              ] if len(rows) > 1 else []
    return rows, ratios
