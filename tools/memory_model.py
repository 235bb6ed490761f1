"""Where training's memory goes, stage by stage, per distinct chunk: ``python3 tools/memory_model.py [MB ...]``.

A dev tool behind docs/larger-corpora.md's memory model. It trains as the
benchmark's gigabyte phase does (the phase's generated text, byte level,
GPT-2's pattern, to 32,768, rustbpe's tie rule), in one process and one
stage at a time, and prints what each stage holds once done and at its
peak, as Python allocated it (``tracemalloc``, which slows the run about
threefold and leaves out the interpreter's own few megabytes), in bytes per
distinct chunk. The stages are the parent's, in the order training takes
them: the chunk counts (the ``Counter`` the workers' counts are added
into); the chunks coded as strings (``engine.code_chunks``, reading the
counts through ``training.start_sequences``' view, which copies nothing);
the counts let go (``learning.trained`` empties the lab's own once they
are coded); the pair index, each pair seen at least twice with its count
and chunks (``engine.index_pairs``, ``engine.TRACKED_FROM``), and its heap;
then the whole merge loop's peak above the counts.
"""

import heapq
import os
import sys
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bpelab.merges.engine import TRACKED_FROM, code_chunks, index_pairs, learn_merges  # noqa: E402
from bpelab.merges.training import count_chunks, start_sequences  # noqa: E402
from tools.bench.corpora import MB, generated_blocks  # noqa: E402

VOCAB = 32_768


def stages(nbytes):
    """For training on ``nbytes`` of generated text: the distinct chunks, the pairs the index tracks of all the
    distinct pairs in them, each stage's ``(name, bytes held once done, peak bytes during it)``, and the merge
    loop's peak above the counts (the counts counted again for it)."""
    tracemalloc.start()
    found, held = [], []

    def done(name, *keep):
        current, peak = tracemalloc.get_traced_memory()
        before = sum(size for _, size, _ in found)
        found.append((name, current - before, peak - before))
        held.extend(keep)
        tracemalloc.reset_peak()

    counts = count_chunks(generated_blocks(nbytes), "gpt2")
    distinct = len(counts)
    done("chunk counts (the parent's Counter)", counts)
    _, sequences, wanted = start_sequences(counts, VOCAB, True, [])
    tokens, coded, weights = code_chunks(sequences, "rustbpe")
    done("the chunks coded as strings, their weights (code_chunks)", coded, weights)
    counts.clear()
    done("the counts let go (learning.trained)")
    pair_counts, pair_chunks = index_pairs(coded, weights, TRACKED_FROM)
    done(f"the pair index: each pair seen {TRACKED_FROM}+ times, its count and chunks (index_pairs)", pair_counts,
         pair_chunks)
    pairs = len(pair_counts)
    heap = [(-count, pair, pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    done("the heap of pairs", heap)
    every_pair = len(index_pairs(coded, weights)[0])  # (for the report; made and let go outside the stages)
    del heap, pair_counts, pair_chunks, tokens, coded, weights, held[:]
    counts = count_chunks(generated_blocks(nbytes), "gpt2")
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    learn_merges(start_sequences(counts, VOCAB, True, [])[1], wanted, "rustbpe", 1, None, None,
                 release=counts.clear)
    merging = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return distinct, (pairs, every_pair), found, merging


def main(arguments):
    """Print each size's stages, in MB and in bytes per distinct chunk."""
    for megabytes in map(float, arguments or ["20"]):
        distinct, (pairs, every_pair), found, merging = stages(int(megabytes * MB))
        print(f"{megabytes:g} MB of generated text: {distinct:,} distinct chunks, {every_pair:,} distinct pairs in "
              f"them, {pairs:,} of them tracked")
        for name, size, peak in found:
            print(f"  {name}: {size / MB:,.0f} MB held ({size / distinct:,.0f} bytes per chunk), "
                  f"{peak / MB:,.0f} MB at its peak ({peak / distinct:,.0f})")
        print(f"  the whole merge loop (coding, index, heap, merges) above the counts: "
              f"{merging / MB:,.0f} MB at its peak ({merging / distinct:,.0f} bytes per chunk)")


if __name__ == "__main__":
    main(sys.argv[1:])
