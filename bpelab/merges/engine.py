"""The fast engine: a trainer and a chunk encoder that give exactly what bpe.py's definitions give.

``train_merges`` equals ``bpe.reference_train`` and ``encode_chunk`` equals
``bpe.reference_encode``; the tests hold each against its definition on
many random inputs. The definitions recount everything after every merge,
which is clear and slow; these do the same work incrementally, fast enough
for real corpora (a hundred megabytes of text, chunks a million characters
long).

Performance notes, in one place:

- Training gives each token a one-character code, so that a chunk is a
  short string and merging a pair everywhere in it is ``str.replace``:
  Python's replace works left to right without overlaps, exactly the merge
  rule, and runs in C. Codes follow creation order: the base tokens first,
  sorted as the ID rules number them, then one new code per merge; so for
  those rules the heap compares the coded pair itself, and byte-level
  chunks given as ``bytes`` are coded by ``bytes.translate``.
- Instead of recounting every pair after each merge, training keeps the
  count of every pair and the chunks it occurs in; a merge then touches only
  those chunks, and only the pairs next to each merged occurrence. A worked
  example: merging ``a b`` into ``N`` in the chunk ``x a b y`` (weight 3)
  takes 3 from ``x a`` and from ``b y`` and gives 3 to ``x N`` and ``N y``;
  every other pair keeps its count. Two facts keep the bookkeeping small: a
  pair's occurrences only ever disappear once it exists (new adjacencies
  always involve the new token), so its count only falls; and all of a new
  pair's occurrences appear during one merge, the one that makes its newer
  token, so each pair's list of chunks is filled once, in chunk order.
- Each new pair stands for the old pair it replaces (``x N`` for ``x a``,
  ``N y`` for ``b y``), which loses exactly what the new one gains; so the
  old counts are lowered once per new pair, after the chunks are merged,
  not once per occurrence (a tenth of the time). A chunk the pair no longer
  occurs in is told by ``replace`` leaving its length unchanged.
- Most pairs that merges create live in one chunk seen once, and a pair's
  count only falls, so the loop leaves out the pairs seen once until
  every other pair is used up (``TRACKED_FROM``): at 50 MB of generated
  text (400k distinct chunks, three in four seen once) that is 72% of
  the pairs made. A pair's chunks are an ``array`` of 4-byte indexes (a
  list would hold an int object for each), first listed by one loop in C
  (``index_pairs``). With the lab's own counts let go once coded
  (``learning.trained``), training on those 50 MB holds 62 MiB above its
  counts at its peak instead of 281, and takes a fifth less time.
- Where the time goes (10 MB of prose, byte level, 54k distinct chunks, to
  8,192): a sixth in coding the chunks and indexing their pairs, under half
  in the first 1,000 merges (the common pairs, each in thousands of chunks),
  the rest in the other 6,936; the heap is a few per cent. Python's cycle
  collector is off meanwhile: it found nothing, and took a tenth of the time.
- Encoding a chunk takes time that grows like n log n in its length, which
  matters for chunks of a million characters (a long run without spaces);
  short chunks, the usual case, take a plain loop that is quicker for them.
- Text repeats its words, so a tokenizer encodes each distinct chunk once
  and keeps its IDs (``ChunkCache``), bounded by ``CACHE_LIMIT``.
- Where a cold encode's time goes (10 MB of prose, 2.5 million chunks,
  54k of them distinct): a third in the pattern's ``findall``, a quarter
  in merging the distinct chunks (250k steps of ``merge_few``), the rest
  in looking chunks up and adding their IDs (``reduce(iadd)``, a fifth
  quicker there than ``chain``). The lab's
  pattern, all below U+FFFF, is one regex's ``findall``; other patterns
  skip the search for characters above U+FFFF in ASCII text.
- A long chunk is first cut between neighbouring base tokens that no merge
  joins (``MergeTable.junctions``, ``_merge_apart``): no token can span
  such a place, so its pieces are merged alone, each distinct piece once.
  A million random letters (a vocabulary of Python code) cut into 332,560
  pieces, 100,122 of them distinct. A chunk with no such place (one
  letter repeated) takes the queued path as before.
- Tried and left out: merging short chunks as strings of one-character
  codes with ``str.replace`` (half as slow again: every pair is a new
  string to hash); cutting long chunks also where no token could cover the
  three characters around a place (fewer pieces, but the passes cost more
  than they saved); collecting a long chunk's pieces first and merging the
  distinct ones in a comprehension (no quicker, and the pieces held twice);
  ``min(merged, default=...)`` in ``merge_few`` (a keyword makes ``min`` a
  fifth slower there).
"""

import contextlib
import gc
import heapq
import operator
import sys
from array import array
from collections import defaultdict, deque
from itertools import chain, compress, count, repeat
from typing import Callable, Mapping, Optional, Sequence, Union

from bpelab.byte_level import SINGLE_BYTES
from bpelab.checks import check_choice, check_positive_int
from bpelab.merges.rules import TIE_RULES, Pair, Token, id_order, report_progress

@contextlib.contextmanager
def _without_the_cycle_collector():
    """Switch Python's cycle collector off for a while (and back on if it was on).

    Training makes hundreds of thousands of lists and no reference cycles,
    so the collector would only walk them again and again: a tenth of the
    merge loop's time.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def train_merges(chunk_counts: Mapping[Union[Sequence[Token], bytes], int], max_merges: int, *,
                 ties: str = "smallest", min_count: int = 2, progress: Optional[Callable[[int, int], None]] = None,
                 on_merge: Optional[Callable[[int, Pair, int], None]] = None, inherited: Sequence[Token] = (),
                 allowed: Optional[Callable[[Token], bool]] = None) -> list[tuple[Pair, int]]:
    """Learn exactly what ``bpe.reference_train`` learns, updating counts incrementally.

    A key of ``chunk_counts`` is a sequence of tokens, or ``bytes``, which
    stands for its single bytes (``b"ab"`` for ``(b"a", b"b")``; quicker to
    code). The most frequent pair comes from a heap ordered by (-count, tie
    key). Codes are handed out in the order the ID rules number tokens, so
    for them the key is the pair of codes itself; ``"smallest"`` and
    ``"greatest"`` compare the tokens the codes stand for; ``"first-seen"``
    where the pair first occurs (chunk number, then offset). A pair's key
    only grows (its count falls, its first occurrence moves later), so an
    entry whose key has grown is pushed back with its current key when it
    surfaces (lazy invalidation). ``on_merge(rank, pair, count)``, if given,
    hears of each merge as soon as it is learned, so a long run can be
    watched.

    For SuperBPE's stage 2, whose chunks hold tokens made by earlier merges:
    ``inherited`` lists those tokens in the order they were made, to be
    numbered (coded) after the base tokens, as the ID rules number them; and
    ``allowed(token)``, if given, says whether a pair may be merged into
    ``token``: the best pair whose token is refused is passed over for good
    (its count can only fall, so it never comes back), and the next taken.
    """
    check_choice(ties, TIE_RULES, "ties")
    check_positive_int(min_count, "min_count")
    return learn_merges(chunk_counts, max_merges, ties, min_count, progress, on_merge, inherited, allowed)


@_without_the_cycle_collector()
def learn_merges(chunk_counts, max_merges, ties, min_count, progress, on_merge, inherited=(), allowed=None,
                 release=None):
    """``train_merges`` with its options already checked (by ``bpelab.merges.training.training_options``);
    ``release()``, if given, is called once the chunks are coded and ``chunk_counts`` no longer needed."""
    tokens, coded, weights = code_chunks(chunk_counts, ties, inherited)
    if release is not None:
        release()
    least = max(min_count, TRACKED_FROM)
    pair_counts, pair_chunks, order, heap = _tracked_pairs(tokens, coded, weights, ties, least)
    learned = []
    while len(learned) < max_merges:
        if not heap:  # every pair left occurs fewer than ``least`` times: count them all, once
            if least == min_count:
                break
            least = min_count
            pair_counts, pair_chunks, order, heap = _tracked_pairs(tokens, coded, weights, ties, least)
            continue
        negative_count, key, pair = heapq.heappop(heap)
        count = pair_counts.get(pair, 0)
        if count != -negative_count:  # occurrences were used up: back in, with the count it has now
            if count >= least:
                heapq.heappush(heap, (-count, key, pair))
            continue
        current = order.key_now(pair, key)
        if current != key:  # its first occurrence was used up
            heapq.heappush(heap, (negative_count, current, pair))
            continue
        token_pair = (tokens[ord(pair[0])], tokens[ord(pair[1])])
        if allowed is not None and not allowed(token_pair[0] + token_pair[1]):
            continue
        if len(tokens) > sys.maxunicode:
            raise ValueError(f"cannot learn more than {len(learned)} merges: every token needs its own code point")
        learned.append((token_pair, count))
        if on_merge is not None:
            on_merge(len(learned) - 1, token_pair, count)
        new = chr(len(tokens))
        tokens.append(token_pair[0] + token_pair[1])
        created = merge_everywhere(pair, new, coded, weights, pair_counts, pair_chunks, least)
        pair_counts.pop(pair, None)
        pair_counts.update(created)
        for gained, gained_count in created.items():
            heapq.heappush(heap, (-gained_count, order.key_of(gained), gained))
        report_progress(progress, len(learned), max_merges)
    report_progress(progress, len(learned), max_merges, finished=True)
    return learned


TRACKED_FROM = 2
"""The fewest occurrences of a pair that the merge loop tracks at first (or ``min_count``, if more).

A pair's count only falls, so a pair seen once can win only once every
pair seen more often is used up; until then the loop leaves it out (its
count, chunks and heap entry). If the heap runs dry before
``max_merges``, every pair is counted again from the coded chunks, down
to ``min_count``, and the loop goes on exactly where the definition would.
"""


def _tracked_pairs(tokens, coded, weights, ties, least):
    """The loop's state from the chunks as they are now, for the pairs seen at least ``least`` times."""
    pair_counts, pair_chunks = index_pairs(coded, weights, least)
    order = tie_order(ties, tokens, coded, pair_chunks)
    heap = [(-count, order.key_of(pair), pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    return pair_counts, pair_chunks, order, heap


class _Codes:
    """The ID rules' tie key: the pair of codes itself, since codes are handed out in the rule's ID order."""

    def __init__(self, tokens, coded, pair_chunks):
        """Every order is made from the same three things; this one needs none of them."""

    def key_of(self, pair):
        return pair

    def key_now(self, pair, key):
        return key


class _SmallestPair(_Codes):
    """The ``"smallest"`` tie key of a pair of codes: the pair of tokens it stands for, which never changes."""

    def __init__(self, tokens, coded, pair_chunks):
        self.tokens = tokens

    def key_of(self, pair):
        return self.tokens[ord(pair[0])], self.tokens[ord(pair[1])]


class _GreatestPair(_Codes):
    """The ``"greatest"`` tie key: each token written so that the heap's smallest key is the greatest pair.

    A token becomes its codes negated, then 1: at the first difference the
    order is reversed, and a token that is the start of another (smaller as
    a string) ends in 1, above every negated code, so it comes out larger.
    """

    def __init__(self, tokens, coded, pair_chunks):
        self.tokens, self.reversed = tokens, []

    def key_of(self, pair):
        for token in self.tokens[len(self.reversed):]:
            self.reversed.append((*(-code for code in (token if isinstance(token, bytes) else map(ord, token))), 1))
        return self.reversed[ord(pair[0])], self.reversed[ord(pair[1])]


class _FirstOccurrence(_Codes):
    """The ``"first-seen"`` tie key of a pair of codes: (chunk number, offset of its first occurrence).

    Offsets count base tokens (characters or bytes), which merging never
    moves, so a key can only grow as occurrences disappear. Finding an
    offset takes time, so a pair enters the heap with a cheap lower bound,
    (the first chunk listed, 0), and its exact key is worked out only when
    it reaches the top. A pair's chunks are listed in chunk order; ``start``
    remembers how many no longer hold it, so each list is walked once.
    """

    def __init__(self, tokens, coded, pair_chunks):
        self.tokens, self.coded, self.pair_chunks = tokens, coded, pair_chunks
        self.start = {}

    def key_of(self, pair):
        return self.pair_chunks[pair][0], 0

    def key_now(self, pair, key):
        """The exact key of ``pair`` where it first occurs now."""
        listed = self.pair_chunks[pair]
        at = self.start.get(pair, 0)
        while pair not in self.coded[listed[at]]:
            at += 1
        self.start[pair] = at
        chunk = self.coded[listed[at]]
        before = chunk[:chunk.find(pair)]
        return listed[at], sum(len(self.tokens[ord(code)]) for code in before)


_ORDERS = {"smallest": _SmallestPair, "first-seen": _FirstOccurrence, "greatest": _GreatestPair,
           "huggingface": _Codes, "rustbpe": _Codes}


def tie_order(ties, tokens, coded, pair_chunks):
    """The heap's tie key for the rule ``ties``: ``key_of(pair)`` for a pair entering the heap, ``key_now(pair,
    key)`` for its key now (only ``"first-seen"``'s changes). ``tokens`` lists the tokens by code and grows as
    merges are learned; ``coded`` and ``pair_chunks`` are what ``code_chunks`` and ``index_pairs`` give."""
    return _ORDERS[ties](tokens, coded, pair_chunks)


def code_chunks(chunk_counts, ties, inherited=(), alphabet=None):
    """Code the chunks as strings, one character per base token, in the order the ID rules number them.

    Returns ``(tokens, coded, weights)``: ``tokens`` lists the base tokens by
    code, ``coded[i]`` is a coded chunk and ``weights[i]`` how often it occurs,
    in the order of ``chunk_counts``. Chunks of one token are left out: they
    hold no pair. ``bytes`` chunks are coded in C: a byte's code is its rank
    among the 256 (``translate``), and Latin-1 makes each byte the character
    with that number. The ``inherited`` tokens come after the others, in their order.
    Character chunks are coded by ``alphabet`` if given (so that several
    corpora share their codes), else by the characters they hold.
    """
    if any(isinstance(chunk, bytes) for chunk in chunk_counts):
        tokens = sorted(SINGLE_BYTES, key=lambda token: id_order(token, ties))
        ranks = bytes(tokens.index(token) for token in SINGLE_BYTES)

        def code(chunk):
            return chunk.translate(ranks).decode("latin-1")
    else:
        held = {token for chunk in chunk_counts for token in chunk} if alphabet is None else set(alphabet)
        tokens = sorted(held.difference(inherited), key=lambda token: id_order(token, ties)) + list(inherited)
        code_of = {token: chr(code) for code, token in enumerate(tokens)}

        def code(chunk):
            return "".join(map(code_of.__getitem__, chunk))
    coded, weights = [], []
    for chunk, count in chunk_counts.items():
        if len(chunk) > 1:
            coded.append(code(chunk))
            weights.append(count)
    return tokens, coded, weights


def index_pairs(coded, weights, least=0):
    """Count every adjacent pair of codes and list the chunks it occurs in, each chunk once, in order.

    The list is first made with one entry per occurrence: its weights add
    up to the pair's count. Then each chunk is kept once, however often the
    pair occurs in it, so that merging visits it once. Pairs seen fewer
    than ``least`` times are left out.
    """
    occurrences = defaultdict(_chunk_indexes)
    pairs = chain.from_iterable(map(map, repeat(operator.add), coded, map(_TAIL, coded)))  # each chunk's pairs
    indices = chain.from_iterable(map(repeat, count(), map(len, map(_TAIL, coded))))  # its index, once per pair
    deque(map(array.append, map(occurrences.__getitem__, pairs), indices), maxlen=0)  # (a loop in C)
    return _counted_once_each(occurrences, weights, least)


_TAIL = operator.itemgetter(slice(1, None))
"""A chunk without its first code: ``map(operator.add, chunk, _TAIL(chunk))`` gives its pairs."""


def _chunk_indexes(indexes=()):
    """A list of chunk indexes as an ``array`` of 4-byte ints: a ``list`` would hold a pointer and an int object."""
    return array("I", indexes)


def _counted_once_each(occurrences, weights, least):
    """Pair -> count (the weights of its occurrences), and pair -> its chunks, each once, in order, for the pairs
    seen at least ``least`` times.

    ``occurrences`` (pair -> its chunks, once per occurrence) is emptied
    pair by pair, so that memory holds one pair's list twice at a time,
    not every pair's.
    """
    weight = weights.__getitem__
    counts, chunks = {}, {}
    for pair in list(occurrences):
        listed = occurrences.pop(pair)
        pair_count = sum(map(weight, listed))
        if pair_count >= least:
            counts[pair] = pair_count
            chunks[pair] = _chunk_indexes(dict.fromkeys(listed))
    return counts, chunks


def merge_everywhere(pair, new, coded, weights, pair_counts, pair_chunks, least=0):
    """Merge ``pair`` into the code ``new`` in every chunk holding it; update counts locally.

    Only the neighbours of each merged occurrence change: with ``x a b y``
    becoming ``x N y``, the pairs ``x a`` and ``b y`` lose the chunk's weight
    and ``x N`` and ``N y`` gain it. The merged chunk split at ``N`` gives
    the text around the occurrences: the end of the text before one is its
    left neighbour, the start of the text after it its right one, and an
    empty stretch between two (``a b a b`` becoming ``N N``) means that
    ``b a`` became ``N N``. Each new pair stands for one old pair (``x N``
    for ``x a``, ``N y`` for ``b y``, ``N N`` for ``b a``), which loses what
    it gains: so the old pairs' counts are lowered once per new pair, after
    the chunks are merged. Returns the counts of the pairs that contain
    ``new`` (all of them new), and lists their chunks in ``pair_chunks``.
    With ``least`` (``learn_merges``' ``TRACKED_FROM``), a pair seen fewer
    times is left out of both, new or old: an old pair left out stands for
    new ones seen fewer times still, so it needs no lowering. A chunk that
    held the pair once (all but 1% of those merged, on 10 MB of prose) has
    its two neighbours read in place, without the split.
    """
    a, b = pair
    twice = new + new
    gained = defaultdict(list)  # each new pair -> its chunks, once per occurrence, while the merge runs
    repeated = False  # whether a chunk held the pair twice, so that a new pair may list it twice
    for index in pair_chunks.pop(pair):
        chunk = coded[index]
        merged = chunk.replace(pair, new)
        merged_here = len(chunk) - len(merged)
        if merged_here == 1:  # the usual case, one occurrence: its neighbours read in place
            coded[index] = merged
            at = merged.find(new)
            if at:
                gained[merged[at - 1] + new].append(index)
            if at + 1 < len(merged):
                gained[new + merged[at + 1]].append(index)
            continue
        if not merged_here:
            continue  # earlier merges used this pair up here
        coded[index] = merged
        pieces = merged.split(new)
        if pieces[0]:
            gained[pieces[0][-1] + new].append(index)
        if len(pieces) > 2:  # the text between two occurrences
            repeated = True
            for piece in pieces[1:-1]:
                if piece:
                    gained[new + piece[0]].append(index)
                    gained[piece[-1] + new].append(index)
                else:
                    gained[twice].append(index)
        if pieces[-1]:
            gained[new + pieces[-1][0]].append(index)
    weight, counts = weights.__getitem__, {}
    for gained_pair, listed in gained.items():
        gained_count = sum(map(weight, listed))
        left, right = gained_pair
        old = (b if left == new else left) + (a if right == new else right)
        left_over = pair_counts.get(old, 0) - gained_count
        if left_over >= least:
            pair_counts[old] = left_over
        elif old in pair_counts:
            del pair_counts[old]
            pair_chunks.pop(old, None)
        if gained_count >= least:
            counts[gained_pair] = gained_count
            pair_chunks[gained_pair] = _chunk_indexes(dict.fromkeys(listed) if repeated else listed)
    return counts


def encode_chunk(ids: Sequence[int], merged_id: Mapping[tuple[int, int], int]) -> list[int]:
    """Replay merges on one chunk's IDs, giving what ``bpe.reference_encode`` gives.

    ``merged_id`` maps a pair of IDs to the ID of its merge. Merged IDs grow
    with merge rank, so the smallest merged ID present is the earliest merge.
    Most chunks are a few tokens long, and for them the plain loop of
    ``merge_few`` is quickest; a long chunk goes through ``merge_queued``,
    whose time grows like n log n, or, when ``merged_id`` is a ``MergeTable``
    (a tokenizer's), is first cut where no token can span (``_merge_apart``).
    """
    if len(ids) <= FEW:
        return merge_few(ids, merged_id)
    if isinstance(merged_id, MergeTable):
        return _merge_apart(ids, merged_id)
    return merge_queued(ids, merged_id)


FEW = 32
"""Up to how many starting IDs a chunk is merged by the plain loop."""


NO_MERGE = sys.maxsize
"""Stands for "this pair is not a merge" among merged IDs, so that ``min`` finds the earliest merge."""


def merge_few(ids, merged_id, id_mask=-1):
    """``encode_chunk`` for a short chunk: merge the leftmost of the earliest merges, look again.

    Taking one occurrence at a time equals the reference's "all occurrences
    of the pair, left to right": a merge only creates pairs that rank later
    than itself, so the next earliest merge is the same pair further right,
    until none is left. ``merged[i]`` is what the pair at ``i`` merges into.
    (``bpelab.merges.ranked`` gives entries that hold a rank above the ID: ``id_mask``
    keeps the ID.)
    """
    get = merged_id.get
    ids = list(ids)
    merged = list(map(get, zip(ids, ids[1:]), repeat(NO_MERGE)))
    while merged:
        best = min(merged)
        if best == NO_MERGE:
            break
        merge_at(merged.index(best), best & id_mask, ids, merged, get)
    return ids


def merge_at(at, new, ids, merged, get):
    """Merge the pair at ``at`` into ``new`` in place: ``merged[i]`` is what the pair at ``i`` merges into.

    Only the pairs on either side of the merged one change.
    """
    ids[at] = new
    del ids[at + 1], merged[at]
    if at > 0:
        merged[at - 1] = get((ids[at - 1], new), NO_MERGE)
    if at < len(merged):
        merged[at] = get((new, ids[at + 1]), NO_MERGE)


def merge_queued(ids, merged_id, seen=None):
    """``encode_chunk`` for a long chunk, in time that grows like n log n in its length.

    Every adjacent pair that is a merge is queued under its merged ID, as the
    position of its left token, and the queues are taken in ID order: lowest
    rank first, its occurrences from left to right, as in the reference.

    Two facts make this work. Merging can only create pairs that rank later
    than the merge itself (a merge always comes after the merges that made
    its parts), so new pairs join queues not yet taken. And a pair can only
    appear when its newer token does, during that token's one left-to-right
    pass, so every queue fills in position order and never needs sorting.

    The chunk is a doubly linked list (``before``/``after`` positions), so a
    merge costs O(1) instead of a rescan; only the choice of the next rank
    uses a heap. ``seen``, a set if given, gets every merged ID whose pair
    is in the chunk at the start or after a rank's merges are all made (the
    merges SuperBPE's stage 2 keeps; a pair made and used up again within
    one rank's pass, as ``aa a`` is on the way from ``a a a a`` to ``aa aa``,
    does not count).
    """
    ids = list(ids)
    end = len(ids)
    after = list(range(1, end + 1))
    before = list(range(-1, end - 1))
    queues = {}
    for position, pair in enumerate(zip(ids, ids[1:])):
        merged = merged_id.get(pair)
        if merged is not None:
            queues.setdefault(merged, []).append(position)
    waiting = list(queues)
    if seen is not None:
        seen.update(waiting)
    heapq.heapify(waiting)
    while waiting:
        merged = heapq.heappop(waiting)
        made = None if seen is None else []  # the pairs this rank's merges make, where they start
        for left in queues.pop(merged):
            right = after[left]
            if right >= end or ids[left] < 0 or merged_id.get((ids[left], ids[right])) != merged:
                continue  # this occurrence was used up by an earlier merge
            ids[left] = merged
            ids[right] = -1
            after[left] = after[right]
            if after[left] < end:
                before[after[left]] = left
            for start in (before[left], left):
                if start < 0 or after[start] >= end:
                    continue
                later = merged_id.get((ids[start], ids[after[start]]))
                if later is not None:
                    queue = queues.setdefault(later, [])
                    if not queue:
                        heapq.heappush(waiting, later)
                    queue.append(start)
                    if made is not None:
                        made.append((start, later))
        if made:
            seen.update(later for start, later in made if ids[start] >= 0 and after[start] < end
                        and merged_id.get((ids[start], ids[after[start]])) == later)
    return [token_id for token_id in ids if token_id >= 0]


class MergeTable(dict):
    """A tokenizer's pair of IDs -> the ID of its merge, with its ``junctions`` worked out once, on first use.

    Built like a dict, and used like one by ``encode_chunk``; a tokenizer's
    table never changes once built, so what is derived from it can be kept.
    """

    __slots__ = ("_junctions",)

    def __init__(self, *args):
        super().__init__(*args)
        self._junctions = None

    def junctions(self) -> frozenset:
        """Every pair of base IDs that some merge joins: the last base token of its left part, the first of its right.

        A merged token's base tokens stand side by side exactly at the
        junctions of the merges that built it, so a pair of neighbouring
        base tokens lies inside some token of the vocabulary only if it is
        a junction. Merged IDs grow with rank (as ``encode_chunk`` needs),
        and a part that is a merged token was made by an earlier merge, so
        taking merges in ID order finds each part's ends before they are
        needed; an ID that no merge makes is a base token, its own first and
        last.
        """
        if self._junctions is None:
            first, last, joined = {}, {}, set()
            for (left, right), merged in sorted(self.items(), key=operator.itemgetter(1)):
                joined.add((last.get(left, left), first.get(right, right)))
                first[merged], last[merged] = first.get(left, left), last.get(right, right)
            self._junctions = frozenset(joined)
        return self._junctions


def _merge_apart(ids, merged_id):
    """``encode_chunk`` for a long chunk: cut it where no token can span, and merge each piece alone, once.

    Where two neighbouring base tokens are no merge's junction (see
    ``MergeTable.junctions``), no token of the vocabulary holds them side by
    side, so whatever has been merged on either side, the pair across that
    place is never a merge, and never takes part in a step. Each step of the
    reference merges every occurrence of the earliest merge present, and
    occurrences on either side of the place are apart, so each side goes
    through exactly the steps it would go through alone: the chunk's IDs are
    its pieces' IDs, each piece merged alone. A piece met again (a long run of random letters cuts into pieces
    of three or four letters) is merged once. Finding the places and the
    pieces is a few passes in C; a chunk with no such place, or a piece
    still long, takes the n log n path.
    """
    apart = map(operator.not_, map(merged_id.junctions().__contains__, zip(ids, ids[1:])))
    cuts = list(compress(count(1), apart))
    if not cuts:
        return merge_queued(ids, merged_id)
    pieces = map(tuple, map(ids.__getitem__, map(slice, [0, *cuts], [*cuts, len(ids)])))
    merged = ChunkCache(lambda piece: merge_few(piece, merged_id) if len(piece) <= FEW
                        else merge_queued(piece, merged_id))  # each distinct piece's IDs, keyed by the piece
    return list(chain.from_iterable(map(merged.__getitem__, pieces)))


CACHE_LIMIT = 1 << 17
"""How many encoded chunks a tokenizer keeps in its newer cache generation
(about 20 MB); with the older generation, at most twice that plus one
block's chunks are held, about 50 MB in all."""


class ChunkCache(dict):
    """Chunk text -> its IDs (a tuple). A chunk not seen yet is encoded when first looked up.

    (``_merge_apart`` keeps one for the pieces of a long chunk, keyed by their IDs.)

    ``dict.__getitem__`` runs in C, so ``map(cache.__getitem__, chunks)``
    is a fused loop: hits cost a look-up, misses go through ``__missing__``.
    When the cache is full it becomes the older generation of a new one;
    a chunk found there moves up, so chunks in steady use are never lost.
    """

    __slots__ = ("encode", "older")

    def __init__(self, encode, older=None):
        super().__init__()
        self.encode = encode
        self.older = {} if older is None else older

    def __missing__(self, chunk):
        ids = self.older.get(chunk)
        if ids is None:
            ids = self.encode(chunk)
        self[chunk] = ids
        return ids

    def renewed(self):
        """This cache if it has room, else a new one whose older generation is this one."""
        if len(self) <= CACHE_LIMIT:
            return self
        self.older = {}
        return ChunkCache(self.encode, self)
