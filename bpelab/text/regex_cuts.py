"""Where a regex's matches may be cut: the tree analysis behind safe cuts, and whether a regex leaves gaps.

A chunk pattern given as a regex (``patterns.regex_pattern``) comes with no
safe cuts of its own, as the named ones do (``patterns.SAFE_CUTS``). A rule
is a pair of classes ``(before, after)``: text may be cut between a
character of one and one of the other when no match may hold a character of
``before`` followed by one of ``after``, nor look ahead (or test for the end)
right after one of ``before``, nor be empty (``check_tree``), and the regex
matches every character of one side alone (``matched_alone``): then the
matches of each half are those of the whole, so ``bpe.chunks`` of the whole
text equals that of its blocks. ``regex_cut_rule`` tries the
rules of ``CANDIDATES``; ``bpelab.imported.safe_cuts`` reads a whole
pipeline's steps with the same analysis. ``covers_every_text`` says whether a
regex matches wherever a search starts, so that its matches leave no text
between them (what tiktoken's loop over the matches would drop).
"""

import functools

from bpelab.text import oniguruma
from bpelab.text.chunk_regex import bracket
from bpelab.text.oniguruma import TOP, Parser, complement, nullable, possessive_class, union

WHITE = oniguruma.WHITE_SPACE
LETTERS_AND_NUMBERS = union(oniguruma.category_set("l"), oniguruma.category_set("n"))
NUMBERS = oniguruma.category_set("n")
CANDIDATES = ((complement(WHITE), WHITE), (LETTERS_AND_NUMBERS, WHITE), (NUMBERS, complement(NUMBERS)))
"""The rules tried, in order, each ``(before, after)`` as code-point ranges: non-whitespace before whitespace
(GPT-2's), a letter or a number before whitespace (cl100k's), a number before anything else (SuperBPE's stage 2)."""


class Unsafe(Exception):
    """A step where the rule tried does not hold."""


def regex_cut_rule(source):
    """The first rule of ``CANDIDATES`` that a chunk pattern given as a regex provably keeps (its matches and the
    text between, each a chunk: a split ``isolated``), as Python classes ``(before, after)``; None if none holds.

    (``patterns.safe_cut_rule``, for a tokenizer trained with such a pattern.)
    """
    for before, after in CANDIDATES:
        alone = matched_alone(source, before, after)
        if alone is not None and (subset(before, alone) or subset(after, alone)):
            return bracket(before, TOP), bracket(after, TOP)
    return None


def covers_every_text(tree):
    """Whether a regex (its tree) matches wherever a search for it starts, whatever the text: then its matches leave no text
    between them, which tiktoken's and rustbpe's loops (over the matches only) would drop."""
    return single(tree) == ((0, TOP),)


@functools.lru_cache(maxsize=64)
def matched_alone(source, before, after):
    """The characters the regex ``source`` surely matches alone, as a piece of their own; None if it could cut
    the two halves otherwise than the whole (``check_tree``), or may match the empty string (after a match,
    Oniguruma skips an empty one, so where a half begins it would find one the whole does not)."""
    tree = Parser(source).parse()
    if nullable(tree):
        return None
    try:
        check_tree(tree, before, after)
    except Unsafe:
        return None
    return single(tree)


def check_tree(tree, before, after, previous=()):
    """The characters a match may have consumed last after ``tree``, given ``previous`` before it; ``Unsafe`` if a
    match could hold a character of ``before`` followed by one of ``after``, or look ahead (or test for the end)
    right after one of ``before``, where the half before the cut ends."""
    kind = tree[0]
    if kind == "set":
        if intersects(previous, before) and intersects(tree[1], after):
            raise Unsafe
        return tree[1]
    if kind == "seq":
        for item in tree[1]:
            previous = check_tree(item, before, after, previous)
        return previous
    if kind == "alt":
        return union(*(check_tree(item, before, after, previous) for item in tree[1]))
    if kind == "repeat":
        if tree[3] == 0:
            return previous
        seen = previous
        while True:  # the characters a repetition may start after: the ones before, or (twice or more) its own last
            last = check_tree(tree[1], before, after, seen)
            if tree[3] == 1 or subset(last, seen):
                break
            seen = union(seen, last)
        return union(last, previous) if tree[2] == 0 else last
    if kind == "atomic":
        return check_tree(tree[1], before, after, previous)
    if intersects(previous, before):  # a look-ahead or an end, right after a character of ``before``
        raise Unsafe
    if kind == "look":
        check_tree(tree[1], before, after, previous)
    return previous


def single(tree):
    """The characters that ``tree`` matches alone, as a whole match, on a path with no look-ahead or end (so it
    matches them whatever follows)."""
    kind = tree[0]
    if kind == "set":
        return tree[1]
    if kind == "alt":
        return union(*map(single, tree[1]))
    if kind == "seq":
        items = tree[1]
        return union(*(single_after(items[:at], item) for at, item in enumerate(items)
                       if all(empty(other) for other in items[at + 1:])))
    if kind == "repeat":
        low, high = tree[2], tree[3]
        return single(tree[1]) if (high is None or high >= 1) and (low <= 1 or empty(tree[1])) else ()
    if kind == "atomic":  # (taken whole once matched: it may match only one way that is one character)
        return () if empty(tree[1]) else single(tree[1])
    return ()


def single_after(items, tree):
    """The characters ``tree`` matches alone after ``items`` that match nothing before them: each may match the
    empty string, or be a possessive ``X?+`` or ``X*+``, which takes nothing before a character outside ``X``."""
    alone = single(tree)
    for item in items:
        if item[0] == "atomic" and possessive_class(item[1]) and item[1][2] == 0:
            alone = intersection(alone, complement(item[1][1][1]))
        elif not empty(item):
            return ()
    return alone


def empty(tree):
    """Whether ``tree`` matches the empty string on a path with no look-ahead, end or atomic group."""
    return nullable(tree, surely=True)


def text_set(text):
    """The characters of ``text`` as ranges."""
    return union(*(((ord(char), ord(char)),) for char in text))


def intersection(first, second):
    """The code points in both sets of ranges (each sorted, disjoint, not adjacent; so is the result)."""
    found, at, other = [], 0, 0
    while at < len(first) and other < len(second):
        low, high = max(first[at][0], second[other][0]), min(first[at][1], second[other][1])
        if low <= high:
            found.append((low, high))
        if first[at][1] < second[other][1]:
            at += 1
        else:
            other += 1
    return tuple(found)


def intersects(first, second):
    """Whether two sets of ranges share a code point."""
    at = other = 0
    while at < len(first) and other < len(second):
        if max(first[at][0], second[other][0]) <= min(first[at][1], second[other][1]):
            return True
        if first[at][1] < second[other][1]:
            at += 1
        else:
            other += 1
    return False


def subset(first, second):
    """Whether every code point of ``first`` is in ``second`` (each range of it within one of ``second``'s, which
    are never adjacent)."""
    other = 0
    for low, high in first:
        while other < len(second) and second[other][1] < low:
            other += 1
        if other == len(second) or second[other][0] > low or second[other][1] < high:
            return False
    return True
