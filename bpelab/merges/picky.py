"""PickyBPE: training that removes a token again when a merge has used up nearly all of it.

PickyBPE (Chizhov, Arnett, Korotkova and Yamshchikov, "BPE Gets Picky:
Efficient Vocabulary Refinement During Tokenizer Training", EMNLP 2024)
is ``bpe.reference_train`` with one more step. After each merge of
``(x1, x2)`` into ``x``, each part is weighed by its intersection over self,
IoS(x1 | x1, x2) = f(x1, x2) / f(x1): the share of the part's occurrences
that the merge took. A part whose IoS is above the ``threshold`` (and that is
not a base token) is removed: every occurrence left is split back into the
tokens it was made of, and its frequency goes to them. A removed token may be
made again by a later merge (restored). So training is a sequence of events,
merges and removals, and the vocabulary is what is left at the end: each
merge adds a token, each removal takes one away, until ``vocab_size``.

This equals ``bpe_trainer.py`` of github pchizhov/picky_bpe (commit
``55f3cd7``), event for event, as the tests restate it: its counts, its
frequencies (for a pair of one token twice, f(x1) is counted as it counts
it), its test (IoS strictly above the threshold), its tie rule
(``"first-counted"``: the pair that entered its counter of pairs first; a
pair that left the counter and came back enters again at the end) and its
stop (no pair left, or ``vocab_size``). Where it iterates a set of words (in
an order its objects' memory addresses decide, not the same from run to
run), words are taken in the order they were first seen. ``"smallest"`` and
``"greatest"`` (``bpe.best_pair``) may be chosen instead; with a threshold of
1 or more nothing is removed and the merges are ``bpe.reference_train``'s.

How it is fast: chunks are coded one character per token as in ``engine``,
merges and removals are ``str.replace`` on the chunks that hold the pair or
the token (each pair and each token lists its chunks), and the counter of
pairs is a dict with a heap beside it. A tokenizer with removals encodes as
the reference does (``bpelab.merges.picky_model``).
"""

import heapq
import os
import sys
from collections import defaultdict

from bpelab.byte_level import SINGLE_BYTES, bytes_to_display
from bpelab.checks import check_choice, check_positive_int, check_sources, check_text
from bpelab.merges.engine import code_chunks, index_pairs, report_progress, tie_order
from bpelab.merges.learning import History, built
from bpelab.merges.training import (TrainingOptions, check_chunk_counts, count_chunks, reported, shared_options,
                                    start_sequences, training_text)
from bpelab.messages import shown
from bpelab.text.blocks import BLOCK_SIZE, can_be_read_again, read_blocks, text_blocks

PICKY_TIES = ("first-counted", "smallest", "greatest")
"""The tie rules PickyBPE trains with: its reference's counter order, or one of ``bpe.best_pair``'s by tokens."""


def picky_events(chunk_counts, room, threshold, *, ties="first-counted", min_count=1, progress=None,
                 on_event=None) -> list:
    """Learn PickyBPE's events on chunk counts until the vocabulary has grown by ``room`` tokens.

    A key of ``chunk_counts`` is a sequence of tokens, or ``bytes`` (its
    single bytes), as ``engine.train_merges`` takes them. Returns the events
    in order: ``("merge", (left, right), count)`` and ``("remove", token,
    split, count)``, the count being the removed token's occurrences that
    were split. ``on_event(event)`` hears of each as it happens.

    >>> for event in picky_events({"abc": 3, "abd": 1}, 2, 0.6):
    ...     print(event)
    ('merge', ('a', 'b'), 4)
    ('merge', ('ab', 'c'), 3)
    ('remove', 'ab', ['a', 'b'], 1)
    ('merge', ('a', 'b'), 1)

    ``abc`` took three of the four ``ab`` (IoS 0.75, above 0.6), so ``ab``
    is removed and its last occurrence, in ``abd``, split; ``c`` went whole
    into ``abc`` too, but a base token stays. The next merge makes ``ab`` again.
    """
    check_threshold(threshold)
    check_choice(ties, PICKY_TIES, "ties")
    check_positive_int(min_count, "min_count")
    return learn_events(chunk_counts, room, threshold, ties, min_count, progress, on_event)


def learn_events(chunk_counts, room, threshold, ties, min_count, progress, on_event):
    """``picky_events`` with its options already checked (by ``picky_options``, say)."""
    run = _Training(chunk_counts, ties, threshold, on_event)
    while run.growth < room:
        found = run.best()
        if found is None or found[1] < min_count:
            break
        if len(run.tokens) > sys.maxunicode:
            raise ValueError(f"cannot learn more events than {len(run.events)}: every token needs its own code point")
        run.merge(*found)
        report_progress(progress, max(run.growth, 0), room)
    report_progress(progress, max(run.growth, 0), room, finished=True)
    return run.events


def check_threshold(threshold):
    """Refuse a threshold that is not a number (a bool is not one); any number is a threshold (1 or more: no removal)."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or threshold != threshold:
        raise TypeError(f"threshold must be a number (the IoS above which a token is removed, e.g. 0.9), "
                        f"not {shown(threshold)}")


class _Training:
    """The state of a PickyBPE run, as ``bpe_trainer.py`` keeps it, on coded chunks.

    ``counts`` is its counter of pairs (a pair of codes, as a two-character
    string -> count; it may hold a count of 0), ``serial`` each pair's place
    in that counter's order. ``pair_chunks`` and ``token_chunks`` list the
    chunks each pair and each token may be in (a chunk may be listed twice,
    or no longer hold it: each is checked where it is used). ``parts`` holds
    the two tokens of each merged token's first merge, ``present`` the merged
    tokens in the vocabulary now, ``freq`` every token's frequency.
    """

    def __init__(self, chunk_counts, ties, threshold, on_event):
        self.tokens, self.coded, self.weights = code_chunks(chunk_counts, "smallest" if ties == PICKY_TIES[0] else ties)
        self.counts, self.pair_chunks = index_pairs(self.coded, self.weights)
        self.serial = {pair: at for at, pair in enumerate(self.counts)} if ties == PICKY_TIES[0] else None
        self.next_serial = len(self.counts)
        self.order = None if self.serial is not None else tie_order(ties, self.tokens, None, None)
        self.token_chunks = defaultdict(list)
        for index, chunk in enumerate(self.coded):
            for code in set(chunk):
                self.token_chunks[code].append(index)
        self.freq = _base_frequencies(chunk_counts, self.tokens)
        self.code_of = {token: chr(code) for code, token in enumerate(self.tokens)}
        self.base, self.parts, self.present = len(self.tokens), {}, set()
        self.threshold, self.on_event, self.events, self.growth = threshold, on_event, [], 0
        self.heap = [self.entry(pair) for pair in self.counts]
        heapq.heapify(self.heap)

    def entry(self, pair):
        """The heap entry of a pair as it is now: most frequent first, then by the tie rule."""
        key = self.serial[pair] if self.serial is not None else self.order.key_of(pair)
        return -self.counts[pair], key, pair

    def best(self):
        """``(pair, count)`` of the counter's most frequent pair (the first of equals), or None when it is empty.

        An entry is pushed whenever a count grows, so an entry whose count is
        below the count now is a stale duplicate (dropped), one above it is
        put back with the count now, and one whose pair has left the counter
        (or left and come back, with a new place) is dropped.
        """
        heap = self.heap
        while heap:
            negative_count, key, pair = heap[0]
            count = self.counts.get(pair)
            if count is None or (self.serial is not None and self.serial[pair] != key) or count > -negative_count:
                heapq.heappop(heap)
            elif count < -negative_count:
                heapq.heapreplace(heap, (-count, key, pair))
            else:
                return pair, count
        return None

    def add(self, pair, count):
        """Add ``count`` to a pair's count, entering it in the counter (at the end) if it is not there."""
        if pair in self.counts:
            self.counts[pair] += count
        else:
            self.counts[pair] = count
            if self.serial is not None:
                self.serial[pair], self.next_serial = self.next_serial, self.next_serial + 1
        heapq.heappush(self.heap, self.entry(pair))

    def drop(self, pair):
        """Take a pair out of the counter (if it is there)."""
        if self.counts.pop(pair, None) is not None and self.serial is not None:
            del self.serial[pair]

    def merge(self, pair, count):
        """Merge ``pair`` everywhere, as ``bpe_trainer.py``'s ``_merge_pair`` does, then weigh its parts for removal."""
        self.drop(pair)
        left, right = pair
        joined = self.tokens[ord(left)] + self.tokens[ord(right)]
        new = self.code_of.get(joined)
        if new is None:  # a new token (else one made before: restored if it was removed, or merged again)
            new = self.code_of[joined] = chr(len(self.tokens))
            self.tokens.append(joined)
            self.parts[new], self.freq[new] = (left, right), 0
        self.present.add(new)
        self.growth += 1
        self.heard(("merge", (self.tokens[ord(left)], self.tokens[ord(right)]), count))
        made, merged = {}, 0
        for index in sorted(set(self.pair_chunks.pop(pair, ()))):
            chunk = self.coded[index]
            after = chunk.replace(pair, new)
            if len(after) == len(chunk):
                continue
            self.coded[index] = after
            merged += (len(chunk) - len(after)) * self.weights[index]
            self.token_chunks[new].append(index)
            for other in pairs_next_to(new, after):
                made[other] = made.get(other, 0) + self.weights[index]
                self.pair_chunks.setdefault(other, []).append(index)
        for other, other_count in made.items():
            self.add(other, other_count)
        for other, other_count in made.items():  # each made pair stands for the pair it replaced
            if other[0] == new:
                replaced = right + (left if other[1] == new else other[1])
            else:
                replaced = other[0] + left
            if replaced in self.counts:
                self.counts[replaced] -= other_count
                if self.counts[replaced] <= 0:
                    self.drop(replaced)
        self.freq[new] += merged
        if left == right:
            self.freq[left] -= 2 * merged
            self.remove_if_picky(left, merged)
        else:
            for part in (left, right):
                self.freq[part] -= merged
                self.remove_if_picky(part, merged)

    def remove_if_picky(self, token, merged):
        """Remove ``token`` if the merge took more than ``threshold`` of it (IoS) and it is not a base token.

        (The reference divides by zero where a merge merged nothing; that happens nowhere here: nothing is removed.)
        """
        if not merged or merged / (self.freq[token] + merged) <= self.threshold or token not in self.parts:
            return
        self.present.discard(token)
        split = self.walk(token)
        self.growth -= 1
        frequency = self.freq[token]
        for piece in split:
            self.freq[piece] += frequency
        pieces = "".join(split)
        for inner in map(str.__add__, split, split[1:]):
            self.add(inner, frequency)
        around, chunks_of = {}, defaultdict(list)
        for index in sorted(set(self.token_chunks.pop(token, ()))):
            chunk = self.coded[index]
            if token not in chunk:
                continue
            for other in pairs_next_to(token, chunk):
                around[other] = around.get(other, 0) + self.weights[index]
                chunks_of[self.replacement(other, token, split)].append(index)
            for inner in map(str.__add__, split, split[1:]):
                chunks_of[inner].append(index)
            for piece in split:
                self.token_chunks[piece].append(index)
            self.coded[index] = chunk.replace(token, pieces)
        for other, other_count in around.items():
            self.add(self.replacement(other, token, split), other_count)
            self.drop(other)
        for other, indexes in chunks_of.items():
            self.pair_chunks.setdefault(other, []).extend(indexes)
        self.freq[token] = 0
        self.heard(("remove", self.tokens[ord(token)], [self.tokens[ord(piece)] for piece in split], frequency))

    @staticmethod
    def replacement(pair, token, split):
        """The pair that ``pair``, next to ``token``, becomes when ``token`` is split into ``split``."""
        if pair[0] == token:
            return split[-1] + (split[0] if pair[1] == token else pair[1])
        return pair[0] + split[0]

    def walk(self, token):
        """The tokens in the vocabulary now that ``token`` is made of: its first merge's parts, each split the same
        way while it is not in the vocabulary (a base token always is)."""
        found, stack = [], [token]
        while stack:
            code = stack.pop()
            if code in self.parts and code not in self.present:
                stack += reversed(self.parts[code])
            else:
                found.append(code)
        return found

    def heard(self, event):
        """Record an event and tell ``on_event``."""
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)


def pairs_next_to(code, chunk):
    """The pairs next to each occurrence of ``code`` in a coded chunk, left to right, each adjacency once.

    >>> pairs_next_to("N", "xNyNNz")
    ['xN', 'Ny', 'yN', 'NN', 'Nz']
    """
    pieces = chunk.split(code)
    found = [pieces[0][-1] + code] if pieces[0] else []
    for piece in pieces[1:-1]:
        found += [code + piece[0], piece[-1] + code] if piece else [code + code]
    if pieces[-1]:
        found.append(code + pieces[-1][0])
    return found


def _base_frequencies(chunk_counts, tokens):
    """Each base token's code -> how often it occurs in all the chunks (one-token chunks too, which hold no pair)."""
    code_of = {token: chr(code) for code, token in enumerate(tokens)}
    freq = defaultdict(int)
    for chunk, count in chunk_counts.items():
        for token in (SINGLE_BYTES[byte] for byte in chunk) if isinstance(chunk, bytes) else chunk:
            freq[code_of[token]] += count
    return freq


# -- the Tokenizer's entry points (``bpe.Tokenizer.train_picky`` and the two beside it) --------------------------


def train_picky(cls, text: str, vocab_size: int, **options):
    """PickyBPE (see ``bpelab.merges.picky``) on ``text`` until the vocabulary has ``vocab_size`` entries.

    ``threshold`` is the IoS above which a token is removed (1 or more:
    plain BPE). ``history`` holds every event: a merge as ``train`` has it,
    a removal as ``{"removed": token, "split": [...], "count": n}``, and
    ``removals`` where each removal came (after how many merges). ``ties``
    is ``"first-counted"`` (the reference's), ``"smallest"`` or
    ``"greatest"``; ``min_count=1`` merges what the reference merges. The
    rest is ``train``'s (see ``picky_options``).
    """
    check_text(text)
    options = picky_options(vocab_size, **options)
    text = training_text(text, options.byte_level)
    size = len(text.encode("utf-8")) if options.count_progress else 0
    return trained(cls, _counted(text_blocks(text), options, size), options)


def train_picky_from_files(cls, paths, vocab_size: int, *, block_size: int = BLOCK_SIZE, **options):
    """``train_picky`` on UTF-8 files read as one concatenated text, a block at a time; a path may be an open binary
    stream (or a pipe), read once."""
    inputs = check_sources(paths)
    options = picky_options(vocab_size, **options)
    check_positive_int(block_size, "block_size")
    sized = options.count_progress and all(map(can_be_read_again, inputs))
    size = sum(map(os.path.getsize, inputs)) if sized else 0
    return trained(cls, _counted(read_blocks(inputs, block_size), options, size), options)


def train_picky_from_counts(cls, chunk_counts, vocab_size: int, **options):
    """``train_picky`` on chunk counts made elsewhere (``count_chunks``, as ``train_from_counts`` takes them)."""
    options = picky_options(vocab_size, **options)
    check_chunk_counts(chunk_counts, options.pattern, options.specials)
    return trained(cls, chunk_counts, options)


def picky_options(vocab_size: int, *, threshold: float, ties: str = "first-counted", min_count: int = 1,
                  **shared) -> TrainingOptions:
    """Check every option of a PickyBPE run once, before any work; return them as ``TrainingOptions``.

    Its own are ``threshold`` and its tie rules (``PICKY_TIES``); the rest
    are those every trainer takes (``training.shared_options``:
    ``byte_level``, ``pattern``, ``special_tokens``, ``progress``,
    ``on_merge``, ``count_progress``, ``on_counts``). A prefix space and
    workers are not options here.
    """
    options = shared_options(vocab_size, min_count, **shared)
    check_threshold(threshold)
    check_choice(ties, PICKY_TIES, "ties")
    return options._replace(ties=ties, threshold=threshold)


def _counted(blocks, options, size):
    """The chunk counts of a text given as blocks (``size`` bytes, 0 when not known), ``count_progress`` hearing of
    them."""
    return count_chunks(reported(blocks, options, 0, size), options.pattern, special_tokens=options.specials)


def trained(cls, chunk_counts, options):
    """Chunk counts in, PickyBPE's events learned, a tokenizer with its removals out (``cls``: ``bpe.Tokenizer``)."""
    if options.on_counts is not None:
        options.on_counts(chunk_counts)
    alphabet, sequences, room = start_sequences(chunk_counts, options.vocab_size, options.byte_level,
                                                options.specials)
    shown_as = bytes_to_display if options.byte_level else str
    history, removals = History(shown_as, options.on_merge), []

    def heard(event):
        if event[0] == "merge":
            history.merged(None, event[1], event[2])
        else:
            removals.append((len(history) - len(removals), shown_as(event[1])))
            history.heard({"removed": removals[-1][1], "split": list(map(shown_as, event[2])), "count": event[3]})

    learn_events(sequences, room, options.threshold, options.ties, options.min_count, options.progress, heard)
    return built(cls, alphabet, history, options, options.pattern, removals=removals)


TRAINERS = tuple(map(classmethod, (train_picky, train_picky_from_files, train_picky_from_counts)))
"""``bpe.Tokenizer``'s train_picky, train_picky_from_files, train_picky_from_counts (``cls`` is the class)."""
