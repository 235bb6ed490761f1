"""Safe cuts of an imported pipeline: where its text may be cut without changing the IDs ``bpe.Tokenizer.encode`` gives.

The lab's named patterns come with their safe cuts (``patterns.SAFE_CUTS``):
a place between a character of one class and one of another where no chunk
is ever cut differently, so long text is encoded a block at a time with the
IDs of the whole. An imported pipeline says no such thing; this module
finds one, or says there is none it can prove, by reading the pipeline's
own steps. A rule is a pair of classes, ``(before, after)``: the text may be
cut between a character of ``before`` and one of ``after``. It holds if
every stage gives the same result on the two halves as on the whole:

- **normalizer**: only ``replace`` steps of one character by one character
  (Gemma 3's space by ``▁``): they change each character alone, so the
  rule, read through them, is the rule on the normalized text. Any other
  step (``prepend``, a Unicode form) has no rule here;
- **pre-tokenizer**: each ``split`` regex (GPT-2's ``ByteLevel`` regex too)
  is read as its tree (``bpelab.imported.oniguruma``), and no match may hold
  a character of ``before`` followed by one of ``after``, nor look ahead, or
  at the end, right after one of ``before`` (``check_tree``), nor be empty:
  then its matches in each half are those of the whole. A split that keeps the
  matches and the text between them apart (``isolated``, ``removed``) and
  matches any one character of ``before`` (or ``after``) alone makes the cut
  a boundary between pieces; the other behaviours only glue pieces, which
  later steps may cut again. At least one step (or the model) must make the
  boundary. ``prefix_space`` needs ``after`` to be a space, so the second
  half gets none put in front;
- **model**: SentencePiece's kind cuts a chunk before each ``▁`` that
  follows a character no token holds before a ``▁``
  (``sentencepiece.safe_cuts``), which makes a boundary of its own;
- **added tokens**: no occurrence of one may span the cut (the caller's
  ``special_safe`` looks for that in the text itself).

The candidates tried, in order: the ``▁`` rule for SentencePiece's kind,
then non-whitespace before whitespace (GPT-2's), then a letter or a number
before whitespace (Llama 3's, as cl100k's), then a number before anything
else (SuperBPE's stage 2). ``tests/imported/test_safe_cuts.py`` holds every
rule found to encoding the whole text, on random texts cut everywhere.
"""

import functools

from bpelab.imported import oniguruma
from bpelab.imported.chunk_regex import bracket
from bpelab.imported.oniguruma import Parser, complement, nullable, union
from bpelab.imported.pipeline import split_source
from bpelab.imported.sentencepiece import SPACE_MARK, before_space_mark

WHITE = oniguruma.WHITE_SPACE
LETTERS_AND_NUMBERS = union(oniguruma.category_set("l"), oniguruma.category_set("n"))
NUMBERS = oniguruma.category_set("n")
CANDIDATES = ((complement(WHITE), WHITE), (LETTERS_AND_NUMBERS, WHITE), (NUMBERS, complement(NUMBERS)))
"""The rules tried on a byte-level pipeline's normalized text, each ``(before, after)`` as code-point ranges."""

KEEPS_MATCHES_APART = ("isolated", "removed")
"""The split behaviours whose matches are pieces of their own (the others glue them to their neighbours)."""


class Unsafe(Exception):
    """A step where the rule tried does not hold."""


def cut_rule(pipeline, ids):
    """The classes ``(before, after)`` (Python regex classes, in the text as given) between which ``pipeline``'s
    text may be cut without changing its IDs, or None where none is proven; ``ids`` is the model's vocabulary."""
    mapped = character_map(pipeline.normalizer)
    if mapped is None or (mapped and any(token.normalized for token in pipeline.added_tokens)):
        return None  # (an added token sought in the normalized text would need the rule read back through it)
    candidates = [(rule, False) for rule in CANDIDATES]
    if not pipeline.byte_level and SPACE_MARK in ids and not pipeline.ignore_merges:
        candidates.insert(0, ((complement(text_set(before_space_mark(ids))), text_set(SPACE_MARK)), True))
    for (before, after), cut_by_the_model in candidates:
        if pipeline.add_prefix_space:
            after = intersection(after, text_set(" "))
        try:
            boundaries = [step_holds(step, before, after) for step in pipeline.pre_tokenizer]
        except Unsafe:
            continue
        if (any(boundaries) or cut_by_the_model) and before and after:
            return tuple(bracket(read_back(ranges, mapped), oniguruma.TOP) for ranges in (before, after))
    return None


def step_holds(step, before, after):
    """Whether a pre-tokenizer step makes the cut a boundary (True) or only keeps both halves' pieces as the
    whole's (False); ``Unsafe`` where it would cut the halves otherwise than the whole."""
    if step["step"] == "prefix_space":
        return False  # (``after`` is a space: the second half gets none put in front, as in the whole)
    if step["step"] == "digits":
        source, keeps_apart = "\\p{N}", step["individual"]
    else:
        source, keeps_apart = split_source(step["pattern"]), step["behavior"] in KEEPS_MATCHES_APART
    alone = matched_alone(source, before, after)
    if alone is None:
        raise Unsafe
    return keeps_apart and (subset(before, alone) or subset(after, alone))


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
        return union(*(single(item) for at, item in enumerate(items)
                       if all(empty(other) for other in items[:at] + items[at + 1:])))
    if kind == "repeat":
        low, high = tree[2], tree[3]
        return single(tree[1]) if (high is None or high >= 1) and (low <= 1 or empty(tree[1])) else ()
    if kind == "atomic":  # (taken whole once matched: it may match only one way that is one character)
        return () if empty(tree[1]) else single(tree[1])
    return ()


def empty(tree):
    """Whether ``tree`` matches the empty string on a path with no look-ahead, end or atomic group."""
    return nullable(tree, surely=True)


def character_map(normalizer):
    """What a normalizer of one-character ``replace`` steps does to each character it changes, as a dict (empty for
    no normalizer); None for any other normalizer."""
    mapped = {}
    for step in normalizer:
        if step["step"] != "replace" or len(step["old"]) != 1 or len(step["new"]) != 1:
            return None
        old, new = step["old"], step["new"]
        mapped = {char: new if result == old else result for char, result in mapped.items()}
        mapped.setdefault(old, new)
    return {char: result for char, result in mapped.items() if char != result}


def read_back(ranges, mapped):
    """The characters of the text as given that the normalizer ``mapped`` makes into one of ``ranges``."""
    changed = text_set("".join(mapped))
    kept = intersection(ranges, complement(changed))
    return union(kept, text_set("".join(char for char, result in mapped.items() if oniguruma.contains(ranges,
                                                                                                     ord(result)))))


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
