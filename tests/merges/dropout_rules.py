"""BPE-dropout's three rules, restated from their sources, and the exact chance of every segmentation each gives.

Each rule takes a chunk's tokens, the merge ranks (pair -> rank, 0 first)
and ``left_out()``, one draw: True when the place drawn for is left out
(with chance p). Restated, in their own order of work, from:

- subword-nmt 0.3.8, ``subword_nmt/apply_bpe.py``, ``encode``: at each step
  every adjacent pair is drawn for, left to right (kept when
  ``random.random() > dropout``); the lowest-ranked kept pair is merged at
  each of its kept places, left to right, skipping overlaps.
- the paper's reference code, github VProv/BPE-Dropout at 9e571a9
  (9e571a9de39e826f11988383a42e72aecbfd2938), ``bpe.py``, ``tokenize_word``:
  a heap of [rank, position]; a popped entry past the end or no longer its
  pair is thrown away without a draw; else ``rand() < dropout`` holds it
  aside; else its pair is merged there, later positions move down one, the
  held entries come back, and the new pairs on either side are pushed.
- Hugging Face ``tokenizers`` 0.23.x, ``tokenizers/src/models/bpe/word.rs``,
  ``Word::merge_all`` (unchanged since be25814, so in 0.23.3): symbols that
  keep their index, linked to their neighbours; a heap of (rank, index); each
  popped entry is drawn for first (``random::<f32>() < dropout`` skips it);
  a kept one brings the skipped ones back, and only then is it checked
  (merged away, last symbol, or its pair changed: passed over).

``distribution(rule, tokens, ranks, p)`` follows every way the draws can
fall and adds up the chance of each segmentation, as exact fractions.
"""

import functools
import heapq
from collections import defaultdict
from fractions import Fraction


def subword_nmt_step(word, ranks, left_out):
    """One step of subword-nmt's loop: the word after it, or None when no kept pair is a merge (the end)."""
    pairs = [(ranks[pair], i, pair) for i, pair in enumerate(zip(word, word[1:])) if not left_out() and pair in ranks]
    if not pairs:
        return None
    bigram = min(pairs)[2]
    new, i = [], 0
    for _, j, pair in pairs:
        if pair == bigram and j >= i:
            new += [*word[i:j], bigram[0] + bigram[1]]
            i = j + 2
    return (*new, *word[i:])


def subword_nmt(tokens, ranks, left_out):
    word = tuple(tokens)
    while len(word) > 1:
        after = subword_nmt_step(word, ranks, left_out)
        if after is None:
            break
        word = after
    return word


def reference(tokens, ranks, left_out):
    word = list(tokens)
    heap = [[ranks[pair], pos] for pos, pair in enumerate(zip(word, word[1:])) if pair in ranks]
    heapq.heapify(heap)
    dropped = []
    while heap:
        rank, pos = heapq.heappop(heap)
        if pos > len(word) - 2 or ranks.get((word[pos], word[pos + 1])) != rank:
            continue
        if left_out():
            dropped.append([rank, pos])
            continue
        word[pos:pos + 2] = [word[pos] + word[pos + 1]]
        for entry in heap:
            if entry[1] > pos:
                entry[1] -= 1
        for rank, position in dropped:
            heapq.heappush(heap, [rank, position - 1 if position > pos else position])
        dropped = []
        if pos > 0 and (word[pos - 1], word[pos]) in ranks:
            heapq.heappush(heap, [ranks[word[pos - 1], word[pos]], pos - 1])
        if pos < len(word) - 1 and (word[pos], word[pos + 1]) in ranks:
            heapq.heappush(heap, [ranks[word[pos], word[pos + 1]], pos])
    return tuple(word)


def huggingface(tokens, ranks, left_out):
    symbols = [[token, index - 1, index + 1 if index + 1 < len(tokens) else -1, True]  # token, prev, next, alive
               for index, token in enumerate(tokens)]
    heap = [(ranks[pair], pos) for pos, pair in enumerate(zip(tokens, tokens[1:])) if pair in ranks]
    heapq.heapify(heap)
    skip = []
    while heap:
        top = heapq.heappop(heap)
        if left_out():
            skip.append(top)
            continue
        for entry in skip:
            heapq.heappush(heap, entry)
        skip = []
        rank, pos = top
        current = symbols[pos]
        if not current[3] or current[2] == -1:
            continue
        right = symbols[current[2]]
        if ranks.get((current[0], right[0])) != rank:
            continue
        current[0], current[2], right[3] = current[0] + right[0], right[2], False
        if current[2] != -1:
            symbols[current[2]][1] = pos
        if current[1] >= 0 and (symbols[current[1]][0], current[0]) in ranks:
            heapq.heappush(heap, (ranks[symbols[current[1]][0], current[0]], current[1]))
        if current[2] != -1 and (current[0], symbols[current[2]][0]) in ranks:
            heapq.heappush(heap, (ranks[current[0], symbols[current[2]][0]], pos))
    return tuple(symbol[0] for symbol in symbols if symbol[3])


RULES = {"subword-nmt": subword_nmt, "reference": reference, "huggingface": huggingface}


class MoreDraws(Exception):
    """The draws given ran out: the ways on from here are followed one by one."""


def ways(run, p):
    """Every outcome of ``run(left_out)`` with its exact chance: each way the draws can fall, followed in turn.

    ``run`` is called again for each prefix of draws; a draw past the prefix
    raises ``MoreDraws``, and the prefix is followed on with each outcome.
    """
    p = Fraction(p)
    chances = defaultdict(Fraction)
    prefixes = [()]
    while prefixes:
        prefix = prefixes.pop()
        draws = iter(prefix)

        def left_out():
            for outcome in draws:
                return outcome
            raise MoreDraws

        try:
            outcome = run(left_out)
        except MoreDraws:
            prefixes += [prefix + (True,), prefix + (False,)]
            continue
        chance = Fraction(1)
        for drawn in prefix:
            chance *= p if drawn else 1 - p
        chances[outcome] += chance
    return dict(chances)


def distribution(rule, tokens, ranks, p):
    """Each segmentation of ``tokens`` that ``rule`` (a name of ``RULES``) can give, with its exact chance.

    subword-nmt's draws every pair at every step, too many ways to follow one
    by one past a few characters; but its steps start afresh from the word
    alone, so each word's outcomes are worked out once, a step at a time.
    """
    if rule != "subword-nmt":
        return ways(lambda left_out: RULES[rule](tokens, ranks, left_out), p)

    @functools.lru_cache(maxsize=None)
    def ends(word):
        if len(word) < 2:
            return {word: Fraction(1)}
        chances = defaultdict(Fraction)
        for after, chance in ways(lambda left_out: subword_nmt_step(word, ranks, left_out), p).items():
            for end, later in ({word: Fraction(1)} if after is None else ends(after)).items():
                chances[end] += chance * later
        return dict(chances)

    return ends(tuple(tokens))
