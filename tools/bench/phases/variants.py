"""Every variant of BPE on one corpus to one size: the table of docs/variants.md.

Plain BPE, SuperBPE (both splits), parity-aware BPE (base and window),
PickyBPE and BPE-dropout (each rule; `Tokenizer.compare_variants`, as `bpe
compare --variants` runs it) are trained at the byte level with `o200k`'s
chunks (SuperBPE with its splits' own) to 4,096 entries:
English's text is the prose corpus's first MB, each of the lab's 13 other
languages has its five sentences, and the 14 languages' sentences are
parity-aware BPE's development sets. Each is measured on the next 100 kB of
prose, held out. One run, on this tree's code, in one fresh process;
training times are CPU seconds. With `--docs` the table is also written
into docs/variants.md, beside the page.
"""

import os

from ..corpora import MB, PROSE
from ..measuring import log

SECTION = "variants"
"""The marked section of docs/variants.md that ``--docs`` rewrites."""


def run(plan):
    """Every variant on the prose corpus (issue 39): one row each, and with --docs the table in docs/variants.md."""
    limit, held_out, size = plan.pick((MB, 100_000, 4096), (20_000, 5_000, 300))
    result = plan.setup({"job": "variants", "impl": "ours", "corpus": plan.corpora[PROSE]["path"], "limit": limit,
                         "held_out": held_out, "vocab_size": size}, "training every variant of BPE")
    if plan.settings["docs"]:
        from ..benchmark_page import replace_section  # (here: the page's module imports the phases)

        page = os.path.join(os.path.dirname(os.path.abspath(plan.settings["docs"])), "variants.md")
        if os.path.exists(page):
            replace_section(page, SECTION, f"Trained on {limit / MB:g} MB of the benchmark's prose as English "
                                           f"(`python3 -m tools.bench --only variants --docs`, "
                                           f"[benchmark.md](benchmark.md) says on which machine):\n\n"
                                           + result["table"])
            log(f"wrote the variants' table into {page}")
    return [], [(f"{row['variant']}, on held-out prose",
                 f"{row['bytes_per_token']:.3f} bytes per token, Rényi efficiency "
                 f"{'-' if row['efficiency'] is None else format(row['efficiency'], '.3f')}, "
                 f"{row['unused_share']:.1%} of the vocabulary unused, "
                 f"premium ×{row['premium']:.2f} (worst ×{row['worst_premium']:.2f}, {row['language']}); "
                 f"trained in {row['train_seconds']:.2f} CPU s") for row in result["rows"]]
