"""SuperBPE's official trainer, restated in Python from its source, for the tests to hold the lab to.

The paper's scripts (github PythonNut/superbpe, ``scripts/``, ``utils.py``)
train both stages with ``tokenizers``' ``BpeTrainer``; stage 2 runs in the
fork alisawuffles/tokenizers-superbpe, whose ``do_train`` calls
``do_train_extend`` when the folder holds a ``merges.txt`` (stage 1's first
lines, ``head -n t``). Restated here from
``tokenizers/src/models/bpe/trainer.rs`` at the fork's commit 757f2a5
(757f2a55c0820ed47064e1fe473deea39b7b611b; the limits came in a27d8bf, "limit
to 4-word tokens and special case colon"), with ``Word::merge`` of
``word.rs``, step by step and in its own order:

1. the alphabet: every character of the words, sorted by code point, one ID
   each (special tokens first: none here);
2. each word as its characters' IDs; each adjacent pair counted, weighted by
   the word's count, with the words it occurs in; the queue, one entry per
   pair that occurs;
3. each inherited merge in order: passed over if a part is no token or its
   pair is not in the queue (it has never occurred), else taken from the
   queue and merged in the words listed for it, its token numbered next;
   the pairs that gain go (back) into the queue;
4. then the queue as a heap, greatest count first, then the smallest pair of
   IDs: a stale count goes back with its count of now; a count under 1 or
   under ``min_frequency`` ends training; with the limits, a token holding
   ``":Ġ"`` or more than four pieces between ``Ġ`` is passed over; else the
   merge is made as in 3, until the vocabulary holds ``vocab_size`` tokens.

With no merge inherited and no limits this is stock ``BpeTrainer``
(``do_train_original``), which the tests check against ``tokenizers``
itself. Words are given in Hugging Face's form (GPT-2's display characters
at the byte level). One quirk is not restated: when a merge makes a token
that already exists, the Rust code keeps one entry per pair in step 3 and
may drop the words of the older one; that is refused here (``SameToken``),
as the lab refuses such merge lists, and no test text comes near it.
"""

import heapq
from collections import defaultdict


class SameToken(ValueError):
    """A merge made a token that already exists: a case whose Rust bookkeeping this restatement leaves out."""


def word_merge(symbols, left, right, new):
    """``Word::merge``: merge ``left right`` into ``new`` in place, left to right; return the pair changes."""
    changes, i = [], 0
    while i < len(symbols):
        if symbols[i] == left and i + 1 < len(symbols) and symbols[i + 1] == right:
            if i > 0:
                changes += [((symbols[i - 1], left), -1), ((symbols[i - 1], new), 1)]
            symbols[i:i + 2] = [new]
            if i < len(symbols) - 1:
                changes += [((right, symbols[i + 1]), -1), ((new, symbols[i + 1]), 1)]
        i += 1
    return changes


def train_extend(word_counts, vocab_size, inherited=(), *, min_frequency=0, limits=False, space="Ġ",
                 passed_over=None):
    """The merges (pairs of token strings) ``do_train_extend`` learns from ``word_counts`` (word -> count).

    ``inherited`` are merges.txt's merges after its header line; ``limits``
    the fork's two rules, written for ``space`` (``Ġ`` at the byte level).
    ``passed_over``, a list if given, gets each merge the limits refused.
    """
    id_to_word = sorted({char for word in word_counts for char in word})
    word_to_id = {token: number for number, token in enumerate(id_to_word)}
    words = [[word_to_id[char] for char in word] for word in word_counts]
    counts = list(word_counts.values())
    pair_counts, where = defaultdict(int), defaultdict(set)
    for index, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] += counts[index]
            where[pair].add(index)
    queue = {pair: places for pair, places in where.items() if pair_counts[pair] > 0}
    where.clear()
    merges = []

    def merge(pair, places):
        """Steps 3 and 4's merge: a new ID, the words changed, the counts and places of the pairs that gain."""
        token = id_to_word[pair[0]] + id_to_word[pair[1]]
        if token in word_to_id:
            raise SameToken(f"the merge {id_to_word[pair[0]]!r} + {id_to_word[pair[1]]!r} makes a token again")
        word_to_id[token] = len(id_to_word)
        id_to_word.append(token)
        merges.append((id_to_word[pair[0]], id_to_word[pair[1]]))
        for index in sorted(places):
            for changed, change in word_merge(words[index], *pair, word_to_id[token]):
                pair_counts[changed] += change * counts[index]
                if change > 0:
                    where[changed].add(index)
        gained = {changed: where.pop(changed) for changed in list(where)}
        return {changed: places for changed, places in gained.items() if pair_counts[changed] > 0}

    for left, right in inherited:
        if left not in word_to_id or right not in word_to_id:
            continue
        pair = (word_to_id[left], word_to_id[right])
        if pair not in queue:
            continue
        queue.update(merge(pair, queue.pop(pair)))
    heap = [(-pair_counts[pair], pair, places) for pair, places in queue.items()]
    heapq.heapify(heap)
    while len(word_to_id) < vocab_size and heap:
        negative, pair, places = heapq.heappop(heap)
        if -negative != pair_counts[pair]:
            heapq.heappush(heap, (-pair_counts[pair], pair, places))
            continue
        if -negative < 1 or min_frequency > -negative:
            break
        token = id_to_word[pair[0]] + id_to_word[pair[1]]
        if limits and (":" + space in token or sum(1 for piece in token.split(space) if piece) > 4):
            if passed_over is not None:
                passed_over.append((id_to_word[pair[0]], id_to_word[pair[1]]))
            continue
        for gained, gained_places in merge(pair, places).items():
            heapq.heappush(heap, (-pair_counts[gained], gained, gained_places))
    return merges
