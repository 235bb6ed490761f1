"""Ranked merges as Hugging Face applies them: one occurrence at a time, lowest rank first, then leftmost.

``bpe.reference_encode`` is the lab's rule: take the lowest-ranked pair
and merge *all* its occurrences, left to right. A merge list learned by
training always has the property that makes this safe: each merge uses
only tokens made by earlier merges, so merging never creates a pair that
ranks before the merge just made. Imported files do not all have it. Llama
3's 280,147 merges make only 127,744 tokens (many tokens are made by
several merges), and 49,630 of them rank before every merge that makes one
of their parts. For such lists ``tokenizers`` has its own rule, written out
as ``reference_encode_leftmost``: merge only the leftmost occurrence of the
lowest-ranked pair, then look again. The two rules differ, for example on
merges ``(ab, a)`` (rank 0) and ``(a, b)`` (rank 1): ``a b a b`` gives
``aba b`` one at a time, ``ab ab`` all at once.

``is_lab_ordered`` tells a merge list on which the rules agree; then the
lab's fast engine (``engine.encode_chunk``) is exact, and
``bpelab.imported.vocabulary`` uses it. Otherwise ``encode_ranked`` gives what
``reference_encode_leftmost`` gives, fast: a short chunk by a plain loop,
a long one with a heap, in time that grows like n log n.
"""

import heapq
from typing import Callable, Mapping, Optional, Sequence

from bpelab.merges.engine import merge_few


def reference_encode_leftmost(tokens: Sequence[str], merge_rank: Mapping[tuple, int], *,
                              on_merge: Optional[Callable[[int, tuple, tuple], None]] = None) -> tuple:
    """Split one chunk by merging the leftmost occurrence of the lowest-ranked pair, one at a time.

    >>> merges = {("ab", "a"): 0, ("a", "b"): 1}
    >>> reference_encode_leftmost("abab", merges)
    ('aba', 'b')

    (``a b`` merges at the left first; then ``ab a``, rank 0, comes before
    the second ``a b``.) ``on_merge(rank, pair, tokens)`` hears of each step,
    as in ``bpe.reference_encode``.
    """
    tokens = tuple(tokens)
    while len(tokens) > 1:
        ranked = [(merge_rank[pair], at) for at, pair in enumerate(zip(tokens, tokens[1:])) if pair in merge_rank]
        if not ranked:
            break
        rank, at = min(ranked)
        pair = tokens[at:at + 2]
        tokens = tokens[:at] + (pair[0] + pair[1],) + tokens[at + 2:]
        if on_merge is not None:
            on_merge(rank, pair, tokens)
    return tokens


def rank_table(merges, ids, id_bits):
    """Each merge as ``(left ID, right ID) -> rank << id_bits | merged ID``: one int, ordered as the ranks are.

    ``ids`` maps each token to its ID; a pair listed twice keeps one entry
    (the caller compares the sizes).
    """
    return {(ids[left], ids[right]): rank << id_bits | ids[left + right] for rank, (left, right) in enumerate(merges)}


def is_lab_ordered(table, id_bits):
    """Whether the merges of a ``rank_table`` are ordered as training orders them.

    That is: each makes a token of its own, with a higher ID than the last
    merge's, from parts with lower IDs. Then the merge that makes a token
    ranks before every merge that uses it, and merging all occurrences of a
    pair (the lab's rule, ``engine.encode_chunk``) gives what one at a time
    gives. (A token of the vocabulary that no merge makes may be a part,
    with any ID: such a merge never happens.)
    """
    last, mask = -1, (1 << id_bits) - 1
    for (left, right), entry in table.items():  # in rank order
        merged = entry & mask
        if merged <= last or left >= merged or right >= merged:
            return False
        last = merged
    return True


def encode_ranked(ids: Sequence[int], table: Mapping[tuple, int], id_bits: int) -> list:
    """What ``reference_encode_leftmost`` gives, on IDs, with a ``rank_table``."""
    if len(ids) <= FEW:
        return merge_few(ids, table, (1 << id_bits) - 1)
    return _merge_heap(ids, table, (1 << id_bits) - 1)


FEW = 32
"""Up to how many starting IDs a chunk is merged by the plain loop (``engine.merge_few``: the definition itself on
a list, where the smallest entry is the lowest rank and ``index`` finds its leftmost occurrence)."""


def _merge_heap(ids, table, id_mask):
    """The definition for a long chunk: ``merge_queued_places`` with no dropout."""
    return merge_queued_places(ids, table, id_mask)


def merge_queued_places(ids, table, id_mask=-1, left_out=None, check_first=False):
    """Merge a chunk one place at a time from a heap of (table entry, position), the chunk as a doubly linked list.

    Each adjacent pair that is a merge waits in the heap under its table
    entry and the position of its left token; the smallest comes out first,
    which is the lowest rank and, among equals, the leftmost. An entry whose
    pair is gone (a neighbour was merged first) is dropped when it comes
    out; each merge pushes the new pairs on either side, so the work is
    O(n log n). Positions are those of the starting list, which merging
    never renumbers (``after`` links each live token to the next).

    With ``left_out`` (a function drawing once: True to leave the place out),
    BPE-dropout's queued rules (``merges.dropout``): a place left out is held
    aside until a place is kept, then the held ones go back in the heap.
    Hugging Face draws first and checks after (a gone pair also costs a
    draw, and brings the held ones back when kept); with ``check_first``,
    the paper's code passes over a gone pair without a draw.
    """
    ids = list(ids)
    end = len(ids)
    after = list(range(1, end + 1))
    before = list(range(-1, end - 1))
    get, pop, push = table.get, heapq.heappop, heapq.heappush  # (local names: this loop is encoding's hot path)
    heap = [(entry, at) for at, entry in enumerate(map(get, zip(ids, ids[1:]))) if entry is not None]
    heapq.heapify(heap)
    held = []
    while heap:
        entry, left = place = pop(heap)
        right = after[left]
        live = ids[left] >= 0 and right < end and get((ids[left], ids[right])) == entry
        if left_out is not None and (live or not check_first):
            if left_out():
                held.append(place)
                continue
            for place in held:
                push(heap, place)
            held = []
        if not live:
            continue  # used up by an earlier merge
        ids[left], ids[right] = entry & id_mask, -1
        after[left] = after[right]
        if after[left] < end:
            before[after[left]] = left
        for start in (before[left], left):
            if start >= 0 and after[start] < end:
                later = get((ids[start], ids[after[start]]))
                if later is not None:
                    push(heap, (later, start))
    return [token_id for token_id in ids if token_id >= 0]
