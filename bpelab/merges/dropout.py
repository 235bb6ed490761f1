"""BPE-dropout: encoding that leaves merges out at random, by each of the three rules in use.

BPE-dropout (Provilkov et al., ACL 2020) makes a model see many
segmentations of the same text. Three implementations draw from three
different distributions, so ``dropout_rule`` names which one to follow:

- ``"subword-nmt"`` (the default; ``bpe.reference_encode(..., dropout=p)``
  is its definition): each step of encoding a chunk draws one random number
  per adjacent pair, left to right, leaves out the pairs whose draw is not
  above ``p``, merges the earliest-learned of the rest at every place it
  survived, and looks again; it stops when no surviving pair is a merge.
  subword-nmt (``apply_bpe.encode``) draws for every adjacent pair,
  mergeable or not, from Python's ``random`` module, so with the same seed
  it gives the same tokens (the tests hold the two against each other).
- ``"reference"``, the paper's code (github VProv/BPE-Dropout, ``bpe.py``,
  ``tokenize_word``): each step tries the places where a merge applies in
  order of rank, then position, leaving each out with chance ``p`` until one
  is kept; that one occurrence is merged, and the places left out come back
  at the next step; when every place is left out, encoding stops.
- ``"huggingface"``, ``tokenizers``' ``BPE(dropout=p)`` (``word.rs``,
  ``merge_all``): the same queue, but the draw comes before the check that
  a queued place still holds its pair, so a place used up by an earlier
  merge also costs a draw, and when it is kept, the places left out come
  back without a merge being made.

The first two agree only when no pair repeats in a chunk; the third differs
from both as soon as a merge leaves a used-up place in the queue. The tests
work out every segmentation's exact probability under each rule, restated
from its source, and hold this module to it (and subword-nmt draw for draw,
and ``tokenizers`` itself by sampling). ``p = 0`` draws nothing and is plain
encoding; ``p = 1`` leaves the base tokens.

``Dropout(p, seed, rule)`` is one encoding's random stream: ``Tokenizer.encode``
makes one per call and takes the chunks through it in order. Its results
never enter the tokenizer's chunk cache, which holds plain encodings.

subword-nmt's rule costs one draw per adjacent pair per step, so a chunk of n
tokens needs about n times as many draws as it has steps, whatever the
algorithm; for long chunks (SuperBPE's can be paragraphs) the draws are made
in bulk (``kept``), so that each step's Python work is its merges, not its
length. The queued rules draw once per place tried, and keep the places in a
heap (time n log n in a chunk's length, plus the draws).
"""

import math
import random
from itertools import chain, compress, repeat
from typing import Iterable, Mapping, Sequence

from bpelab.checks import check_choice
from bpelab.merges.engine import FEW, NO_MERGE, merge_at
from bpelab.merges.ranked import merge_queued_places
from bpelab.messages import shown

DROPOUT_RULES = ("subword-nmt", "reference", "huggingface")
"""The rules ``dropout_rule`` names: subword-nmt's, the paper's reference code's, Hugging Face's (see above)."""

TOP_BYTE_SHIFT = 45
"""``random()`` is ``N / 2**53``: its top eight bits are ``N >> 45``."""


def check_dropout(dropout, seed, rule="subword-nmt", refusal=None):
    """Refuse a dropout that is not a number from 0 to 1, a missing or bad seed, or an unknown ``rule`` (one of
    ``DROPOUT_RULES``); return a ``Dropout`` or None.

    None stands for no dropout (``p = 0``), which draws nothing. A model that
    does not offer dropout gives its ``refusal``, raised (once ``p`` and the
    seed are good) for any ``p`` above 0: each kind of model says why itself
    (its ``dropout`` method, see ``lab_model``).
    """
    check_choice(rule, DROPOUT_RULES, "dropout_rule")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
        raise TypeError(f"dropout must be a float from 0 to 1, not {shown(dropout)}")
    if not 0 <= dropout <= 1:  # (NaN fails this too)
        raise ValueError(f"dropout must be from 0 to 1 (the chance of leaving a merge out), not {shown(dropout)}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise TypeError(f"seed must be a non-negative int, not {shown(seed)}")
    if not dropout:
        return None
    if seed is None:
        raise ValueError(f"dropout={dropout!r} needs a seed (an int), so that the same call gives the same IDs")
    if refusal is not None:
        raise ValueError(refusal)
    return Dropout(float(dropout), seed, rule)


class Dropout:
    """The random stream of one encoding with dropout ``p`` by ``rule``: ``random.Random(seed)``, drawn in order."""

    __slots__ = ("p", "random", "rule", "threshold", "top_bytes")

    def __init__(self, p: float, seed: int, rule: str = "subword-nmt"):
        self.p, self.rule = p, rule
        self.random = random.Random(seed)
        # random() > p exactly when N > threshold, for N = random() * 2**53 (both sides are exact).
        self.threshold = math.floor(p * 2.0 ** 53)
        top = self.threshold >> TOP_BYTE_SHIFT
        self.top_bytes = bytes(1 if value > top else 2 if value == top else 0 for value in range(256))

    def kept(self, count: int) -> Sequence[int]:
        """Draw for ``count`` adjacent pairs, left to right: 1 (true) where a pair is kept, 0 where left out.

        Up to ``FEW`` pairs, ``random() > p`` itself. For more, the draws
        come in one ``getrandbits`` call: CPython's ``random()`` is made of
        two 32-bit outputs of the same generator, its first 27 bits from the
        first and 26 from the second, and ``getrandbits(64 * count)`` hands
        out the same outputs in the same order. Each draw's top byte decides
        it (a byte table, in C) unless it equals the threshold's, one time in
        256; those are worked out in full. ``BULK_DRAWS`` checks the two ways
        agree on this Python before the bulk way is used.
        """
        if count <= FEW or not BULK_DRAWS:
            draw, p = self.random.random, self.p
            return [draw() > p for _ in range(count)]
        data = self.random.getrandbits(64 * count).to_bytes(8 * count, "little")
        kept = bytearray(data[3::8].translate(self.top_bytes))  # byte 3 of each 8 is the first output's top byte
        at = kept.find(2)
        while at >= 0:
            kept[at] = random_numerator(data, at) > self.threshold
            at = kept.find(2, at + 1)
        return kept

    def encode_chunk(self, ids: Sequence[int], merged_id: Mapping[tuple[int, int], int]) -> list[int]:
        """One chunk's IDs with dropout by this stream's rule."""
        if self.rule == "subword-nmt":
            return self.encode_every_pair(ids, merged_id)
        return self.encode_queued(ids, merged_id)

    def encode_every_pair(self, ids: Sequence[int], merged_id: Mapping[tuple[int, int], int]) -> list[int]:
        """subword-nmt's rule: as ``bpe.reference_encode(tokens, merge_rank, dropout=p, rng=...)`` gives.

        Merged IDs grow with rank, so the smallest kept merged ID is the
        earliest merge. Its kept places are merged left to right, skipping
        one that overlaps the place merged before it; the list is then
        edited from the right, so positions to the left stay valid.
        """
        get = merged_id.get
        ids = list(ids)
        merged = list(map(get, zip(ids, ids[1:]), repeat(NO_MERGE)))
        while merged:
            kept = self.kept(len(merged))
            new = min(compress(merged, kept), default=NO_MERGE)
            if new == NO_MERGE:
                break
            chosen, free = [], 0
            for at in places(merged, new):
                if kept[at] and at >= free:
                    chosen.append(at)
                    free = at + 2
            for at in reversed(chosen):
                merge_at(at, new, ids, merged, get)
        return ids

    def encode_queued(self, ids: Sequence[int], merged_id: Mapping[tuple[int, int], int]) -> list[int]:
        """The paper's reference rule, or Hugging Face's: the places where a merge applies, queued by (merged ID,
        place), tried one at a time, each left out when its draw is below ``p`` (``ranked.merge_queued_places``,
        Hugging Face's own queue; merged IDs grow with rank, so they order the queue as ranks do)."""
        draw, p = self.random.random, self.p
        return merge_queued_places(ids, merged_id, left_out=lambda: draw() < p, check_first=self.rule == "reference")

    def encode(self, chunk_ids: Iterable[Sequence[int]], merged_id: Mapping[tuple[int, int], int]) -> Iterable[int]:
        """The IDs of chunks in order (each given as its starting IDs), drawing from this one stream."""
        return chain.from_iterable(self.encode_chunk(ids, merged_id) for ids in chunk_ids)


def places(values, value):
    """Every index of ``value`` in the list ``values``, in order (each found by ``list.index``, in C)."""
    at = -1
    while True:
        try:
            at = values.index(value, at + 1)
        except ValueError:
            return
        yield at


def random_numerator(data, at):
    """``random() * 2**53`` for the draw at ``at`` of a block of ``getrandbits`` bytes (little-endian)."""
    first = int.from_bytes(data[8 * at:8 * at + 4], "little")
    second = int.from_bytes(data[8 * at + 4:8 * at + 8], "little")
    return (first >> 5) << 26 | second >> 6


def bulk_draws_match():
    """Whether this Python's ``getrandbits`` hands out ``random()``'s outputs as ``Dropout.kept`` reads them."""
    one, other = random.Random(2020), random.Random(2020)
    expected = [one.random() for _ in range(8)]
    data = other.getrandbits(64 * 8).to_bytes(64, "little")
    return expected == [random_numerator(data, at) / 2.0 ** 53 for at in range(8)]


BULK_DRAWS = bulk_draws_match()
"""Draws are made in bulk only where that gives exactly the same numbers (on CPython 3.10 to 3.13, it does)."""
