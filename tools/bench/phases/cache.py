"""The chunk cache's size after encoding the prose corpus.

The byte-level prose tokenizer encodes the prose corpus once under
`tracemalloc`, which counts what `encode` keeps afterwards: the chunk
cache. The size does not vary from run to run, so it is measured once;
tracing slows encoding down, so this job's time means nothing.
"""

from ..corpora import MB, PROSE, corpus_title
from ..measuring import log


def run(plan):
    """The chunk cache's size after encoding the prose corpus (measured once: the size does not vary)."""
    prose = plan.corpora[PROSE]
    log("the chunk cache's size (tracemalloc)")
    spec = {"job": "cache", "impl": "ours", "corpus": prose["path"], "tokenizer": plan.tokenizer(PROSE, True)}
    measurement = plan.measure(spec, repeat=1)
    title = f"chunk cache after encoding {corpus_title(prose)}, byte level (tracemalloc)"
    if not measurement.runs:
        return [], [(title, measurement.problem)]
    run = measurement.runs[0]
    held, distinct, limit = run["held"], run["distinct"], run["limit"]
    value = f"bpelab.merges.engine.CACHE_LIMIT = {limit:,} entries; {distinct:,} distinct chunks, {held / MB:.1f} MB held"
    if distinct <= limit:  # every chunk is cached once, so the size per entry is known
        value += f" ({held / distinct:,.0f} bytes each: about {held / distinct * limit / MB:.0f} MB at the limit)"
    return [], [(title, value)]
