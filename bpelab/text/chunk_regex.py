"""Chunk regexes from other tokenizers' files: Oniguruma's syntax translated, exactly, into Python's ``re``.

``bpe.chunks`` cuts text with a named pattern. A Hugging Face
``tokenizer.json`` cuts it with its own regular expressions, written for
Oniguruma, the engine of the ``tokenizers`` library; ``translate(source)``
reads such a regex (``bpelab.text.oniguruma``, which says what each construct
means there and refuses the rest by name) and writes a Python 3.10+ ``re``
pattern that finds the same matches on every text, with every class spelled
out as code points of the pinned Unicode tables, as the built-in patterns are.

Possessive and atomic forms have no syntax in Python 3.10's ``re``; they are
rewritten into look-aheads, which ``re`` never backtracks into: ``(?>X)`` is
``(?=(?P<a>X))(?P=a)``, and for one class C, ``C*+`` is ``C*(?!C)``.

Speed. Python's ``re`` checks a class reaching above U+FFFF by its table
for the Basic Multilingual Plane and then, for a character outside it, by
each range above in turn: hundreds of comparisons for ``\\p{L}``. Code
points above U+FFFF fall into a few kinds (those that belong to the same
classes of a pattern); ``.basic`` is the pattern with classes cut down to the
BMP, each kind represented by one surrogate code point (text from a UTF-8
file never holds one) added to exactly the classes its kind is in. A text is
searched with its characters above U+FFFF replaced by their kind's
surrogate, at the same positions, so every match is the same; a text that
holds surrogates itself is searched with the full ``.python`` pattern.
"""

import bisect
import functools
import itertools
import re

from bpelab.text.matching_time import check_matching_time
from bpelab.text.oniguruma import (Parser, TOP, clip, complement, nullable, partition, possessive_class,
                                      sets_of, union)
from bpelab.messages import shown

def escaped(code):
    """A code point as it stands in a Python pattern: itself if a letter or digit, else an escape."""
    if code < 0x80 and chr(code).isalnum():
        return chr(code)
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def class_body(ranges):
    return "".join(escaped(first) if first == last else f"{escaped(first)}-{escaped(last)}" for first, last in ranges)


def bracket(ranges, top):
    """A class matching ``ranges`` among the code points up to ``top``: listed, or negated when that is shorter."""
    if not ranges:
        return "[^\\x00-\\U0010FFFF]"  # matches nothing
    outside, beyond = clip(complement(ranges), 0, top), ((top + 1, TOP),) if top < TOP else ()
    if not outside and not beyond:
        return "[\\x00-\\U0010FFFF]"  # every code point: "[^]" is no class in Python
    if len(outside) < len(ranges):
        return "[^" + class_body(union(outside, beyond)) + "]"
    return escaped(ranges[0][0]) if ranges == ((ranges[0][0],) * 2,) else "[" + class_body(ranges) + "]"


def write_set(ranges, proxies):
    """A set in Python's syntax: for any text (``proxies`` None), or for the BMP-only pattern."""
    if proxies is not None:
        return bracket(union(clip(ranges, 0, 0xD7FF), clip(ranges, 0xE000, 0xFFFF), proxies[ranges]), 0xFFFF)
    basic, astral = clip(ranges, 0, 0xFFFF), clip(ranges, 0x10000, TOP)
    if not basic or not astral or astral == ((0x10000, TOP),):
        return bracket(ranges, TOP)
    return f"(?:{bracket(basic, 0xFFFF)}|(?=[\\U00010000-\\U0010FFFF]){bracket(astral, TOP)})"


class Writer:
    """Writes a tree as a Python pattern, numbering the groups that stand in for atomic ones."""

    def __init__(self, proxies=None):
        self.proxies, self.groups = proxies, 0

    def write(self, tree, wrap=()):
        """The Python text of a tree, inside (?:...) if its kind is in ``wrap``."""
        kind = tree[0]
        if kind == "set":
            return write_set(tree[1], self.proxies)
        if kind == "end":
            return {"\\z": "\\Z", "\\Z": "(?=\\n?\\Z)", "$": "(?=\\n|\\Z)"}[tree[1]]
        if kind == "look":
            return ("(?!" if tree[2] else "(?=") + self.write(tree[1]) + ")"
        if kind == "behind":  # one character, so one set: fixed width, as Python's re needs
            return ("(?<!" if tree[2] else "(?<=") + self.write(tree[1]) + ")"
        if kind == "repeat":
            low, high = tree[2], tree[3]
            suffix = {(0, 1): "?", (0, None): "*", (1, None): "+"}.get((low, high))
            if suffix is None:
                suffix = f"{{{low}}}" if low == high else f"{{{low},{'' if high is None else high}}}"
            text = self.write(tree[1], ("seq", "alt", "repeat", "atomic")) + suffix
        elif kind == "atomic":
            text = self.atomic(tree[1])
        else:
            joiner = "|" if kind == "alt" else ""
            text = joiner.join(self.write(item, ("alt",) if kind == "seq" else ()) for item in tree[1])
        return f"(?:{text})" if kind in wrap else text

    def atomic(self, tree):
        """``(?>X)``: a look-ahead is never backtracked into, and the backreference takes exactly what it matched.

        The possessive ``?+ *+ ++`` of one class C is simpler: every shorter
        run of C fails ``(?!C)``, so ``C*(?!C)`` can only take the longest.
        """
        if possessive_class(tree):
            one = self.write(tree[1])
            return f"(?:{one}|(?!{one}))" if tree[3] == 1 else f"{self.write(tree)}(?!{one})"
        self.groups += 1
        name = f"atomic{self.groups}"
        return f"(?=(?P<{name}>{self.write(tree)}))(?P={name})"


class Proxies:
    """The kinds of code points above U+FFFF (same membership in every set of a pattern), one surrogate each."""

    def __init__(self, sets):
        sets = list(sets)
        self.starts, kinds, members = partition(sets, 0x10000, TOP)  # from each start to the next, one kind
        self.codes = [0xD800 + kind for kind in kinds]
        holding = [[] for _ in sets]  # each set's kinds: one sweep, not every set against every kind
        for kind, indexes in enumerate(members):
            for index in indexes:
                holding[index].append((0xD800 + kind,) * 2)
        self.of_set = {ranges: tuple(held) for ranges, held in zip(sets, holding)}
        self.count, self.chosen = len(members), {}

    def replace(self, match):
        """The surrogate standing for the character of ``match``."""
        char = match.group()
        if char not in self.chosen:
            self.chosen[char] = chr(self.codes[bisect.bisect_right(self.starts, ord(char)) - 1])
        return self.chosen[char]


ABOVE_BASIC = re.compile("[\U00010000-\U0010FFFF]")

MAX_KINDS = 0x800
"""At most as many kinds of code points above U+FFFF as there are surrogates (else the full pattern runs)."""


class ChunkRegex:
    """An Oniguruma pattern, translated: ``.python`` is an exact Python pattern for any text.

    >>> ChunkRegex("\\\\p{N}{1,3}| ?\\\\p{L}+").chunks("ab 12345")
    ['ab', ' ', '123', '45']
    """

    def __init__(self, source):
        if not isinstance(source, str):
            raise TypeError(f"a chunk regex must be a str, not {type(source).__name__}")
        parser = Parser(source)
        tree = parser.parse()
        check_matching_time(tree, parser.positions)  # refuses a pattern re could take more than quadratic time on
        self.source, self.nullable, self.tree = source, nullable(tree), tree
        self.anchors = [end[1] for end in ends_of(tree)]  # (``$`` and ``\\Z``, which Rust's engine reads otherwise)
        self.python = Writer().write(tree)
        proxies = Proxies(sets_of(tree))
        self.proxies = proxies if proxies.count <= MAX_KINDS else None
        self.basic = Writer(proxies.of_set).write(tree) if self.proxies else self.python

    def __repr__(self):
        return f"ChunkRegex({shown(self.source)})"

    @functools.cached_property
    def full(self):  # compiled on first use: large classes take a moment
        return re.compile(self.python)

    @functools.cached_property
    def bmp(self):
        return re.compile(self.basic)

    def prepared(self, text):
        """The compiled pattern and the text to search with it (characters above U+FFFF put as their kind)."""
        if text.isascii():
            return self.bmp, text
        try:
            size = len(text.encode("utf-16-le"))  # fast; fails on a lone surrogate
        except UnicodeEncodeError:
            return self.full, text
        if size == 2 * len(text):
            return self.bmp, text
        return (self.bmp, ABOVE_BASIC.sub(self.proxies.replace, text)) if self.proxies else (self.full, text)

    @functools.cached_property
    def plain(self):
        """Whether ``findall`` gives the matches: the pattern cannot match empty and has no groups."""
        return not self.nullable and not self.bmp.groups

    @staticmethod
    def with_gaps(text, searched, found, regex):
        """The matches ``found`` in ``searched`` (``text``, perhaps with stand-ins) and the text between them."""
        if not found:  # (a split by digits or by kanji finds none in most pieces)
            return [text] if text else []
        gaps = regex.split(searched)
        return [piece for pair in zip(gaps, found + [""]) for piece in pair if piece]

    def findall(self, text):
        """``chunks``: the matches and the text between them, as ``re``'s ``findall`` gives a pattern's matches."""
        return self.chunks(text)

    def spans(self, text):
        """The matches, as one flat list ``[start, end, start, end, ...]``, empty ones as Oniguruma reports them.

        After a match, Oniguruma skips an empty match that ends where it
        ended and searches again one character on; a pattern that cannot
        match empty never meets that case, and ``finditer`` runs its loop.
        """
        regex, text = self.prepared(text)
        flat = []
        if not self.nullable:
            for found in regex.finditer(text):
                flat += found.span()
            return flat
        at, last_end = 0, None
        while at <= len(text):
            found = regex.search(text, at)
            if found is None:
                break
            start, end = found.span()
            if start == end == last_end:
                at += 1
                continue
            at = last_end = end
            flat += start, end
        return flat

    def chunks(self, text):
        """The pieces Hugging Face's Split keeps as ``Isolated``: the matches and the text between, none empty."""
        if text.isascii() and self.plain:  # the usual case, the quick way
            found = self.bmp.findall(text)
            return found if sum(map(len, found)) == len(text) else self.with_gaps(text, text, found, self.bmp)
        regex, searched = self.prepared(text)
        if self.nullable or regex.groups:  # Oniguruma's own loop (rare: no real pattern matches empty)
            bounds = [0, *self.spans(text), len(text)]
            found = [searched[start:end] for start, end in zip(bounds, bounds[1:]) if end > start]
        else:  # findall and split run in C
            found = regex.findall(searched)
            if sum(map(len, found)) != len(text):
                found = self.with_gaps(text, searched, found, regex)
        if searched is not text:  # the pieces holding a surrogate stand-in come from the text itself
            ends = list(itertools.accumulate(map(len, found)))
            for at in {bisect.bisect_right(ends, astral.start()) for astral in ABOVE_BASIC.finditer(text)}:
                found[at] = text[ends[at - 1] if at else 0:ends[at]]
        return found


def ends_of(tree):
    """The ``$`` and ``\\Z`` anchors in a tree (``\\z`` means the end of the text in every engine)."""
    if tree[0] == "end":
        return [tree] if tree[1] != "\\z" else []
    if tree[0] in ("seq", "alt"):
        return [end for item in tree[1] for end in ends_of(item)]
    return ends_of(tree[1]) if tree[0] in ("repeat", "atomic", "look", "behind") else []


@functools.lru_cache(maxsize=64)
def translate(source: str) -> ChunkRegex:
    """The ``ChunkRegex`` of an Oniguruma pattern (kept for the next call); a ``ValueError`` names what is refused."""
    return ChunkRegex(source)
