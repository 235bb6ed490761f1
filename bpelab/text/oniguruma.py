"""Oniguruma's regex syntax, as ``tokenizers`` 0.23.3 reads a chunk regex: parsed into a tree, or refused by name.

A Hugging Face ``tokenizer.json`` cuts text into chunks with regular
expressions written for Oniguruma, where ``bpe.chunks`` uses a named
pattern. ``Parser(source).parse()`` reads such a regex into a small tree of
character sets, sequences, alternatives, repeats, atomic groups and
look-aheads, each set spelled as code points of the pinned Unicode tables
(``unicode_ranges``); ``bpelab.text.chunk_regex`` writes the tree as Python's
``re``.

Only an explicit list of constructs is read (``SUPPORTED``); anything else
is refused by name and position, because an approximation would cut text
differently from Hugging Face without saying so. What each construct means
in Oniguruma (as ``tokenizers`` 0.23.3 compiles it: ``ONIG_SYNTAX_ONIGURUMA``,
no options) was checked against the library on every code point:

- ``\\s`` is Unicode's White_Space (25 code points; Python's ``\\s`` adds
  U+001C..U+001F), ``\\d`` is every script's decimal digits (Nd);
  ``\\w``, ``\\b`` and ``\\h`` (a hex digit there) are refused, since Oniguruma's
  ``\\w`` rests on the Alphabetic property, which ``unicodedata`` lacks.
- ``\\p{..}`` names general categories and their one-letter groups, ignoring
  case, spaces, ``_`` and ``-``; ``\\p{^X}`` and ``\\P{X}`` negate. ``\\p{C}``
  includes the unassigned code points.
- ``(?i:..)`` folds each ASCII letter to its case variants and only those
  (``s`` also matches U+017F LONG S, ``k`` U+212A KELVIN SIGN); a folded text
  holding ``ss``, ``st``, ``ff``, ``fi``, ``fl`` is refused, as Oniguruma also
  matches one character there (``ß``, ``ﬅ``...).
- ``x{1,2}+`` is ``(?:x{1,2})+`` and ``x{2}?`` is ``(?:x{2})?`` in this syntax,
  not possessive or lazy: both refused; ``?+ *+ ++`` are possessive.
- ``$`` matches before every ``\\n`` and at the end, ``\\Z`` before a final
  ``\\n`` or at the end, ``\\z`` only at the end.
- A look-behind is read only at one character (``(?<=\\d)``, a class): Python's
  ``re`` takes look-behinds of a fixed width, and one character is all the
  lab's patterns need (the paper's SuperBPE digit groups).
- After a match, Oniguruma's search skips an empty match at the same place
  (Python's ``finditer`` would instead look for a longer one there):
  ``chunk_regex.ChunkRegex.spans`` follows Oniguruma.
"""

import bisect
import functools
import re

from bpelab.text import unicode_ranges

SUPPORTED = ("literals, \\t \\n \\r \\f \\v \\a \\e \\xHH \\x{H..} \\uHHHH, \\s \\S \\d \\D, \\p{category} \\P{category}, "
             "[...] classes with ranges, (...) (?:...) (?>...) (?=...) (?!...), (?<=...) (?<!...) of one character, "
             "(?i:ASCII text and classes), |, "
             "? * + {m} {m,} {m,n} and possessive ?+ *+ ++, \\z \\Z $")
"""What a pattern may use, as refusals list it."""

MAX_REPEAT = 100000
"""The largest count of ``{m,n}`` (Oniguruma's own limit)."""

MAX_DEPTH = 64
"""How deeply groups may nest (Python's regex compiler recurses once per level)."""

TOP = 0x10FFFF

CATEGORY_GROUPS = {"l": "Lu Ll Lt Lm Lo", "lc": "Lu Ll Lt", "m": "Mn Mc Me", "n": "Nd Nl No",
                   "p": "Pc Pd Ps Pe Pi Pf Po", "s": "Sm Sc Sk So", "z": "Zs Zl Zp", "c": "Cc Cf Cs Co Cn"}
"""The one-letter groups of general categories (and LC), by their squeezed lower-case name."""

LONG_NAMES = dict(pair.split("=") for pair in """letter=l casedletter=lc uppercaseletter=lu lowercaseletter=ll
    titlecaseletter=lt modifierletter=lm otherletter=lo mark=m combiningmark=m nonspacingmark=mn spacingmark=mc
    enclosingmark=me number=n decimalnumber=nd digit=nd letternumber=nl othernumber=no punctuation=p punct=p
    connectorpunctuation=pc dashpunctuation=pd openpunctuation=ps closepunctuation=pe initialpunctuation=pi
    finalpunctuation=pf otherpunctuation=po symbol=s mathsymbol=sm currencysymbol=sc modifiersymbol=sk
    othersymbol=so separator=z spaceseparator=zs lineseparator=zl paragraphseparator=zp other=c control=cc
    cntrl=cc format=cf surrogate=cs privateuse=co unassigned=cn""".split())
"""Oniguruma's long names of categories (and the POSIX names it equates with one), squeezed."""

CONTROL_ESCAPES = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}

REFUSED_ESCAPES = {
    "w": "the word class \\w (Oniguruma's rests on the Alphabetic property, which unicodedata lacks)",
    "W": "the non-word class \\W", "b": "the word boundary \\b", "B": "the non-boundary \\B",
    "h": "the hex-digit class \\h", "H": "the non-hex-digit class \\H", "A": "the start anchor \\A",
    "G": "the search-start anchor \\G", "K": "the keep escape \\K", "R": "the general newline \\R",
    "N": "the non-newline \\N", "O": "the any-character \\O", "X": "the grapheme cluster \\X",
    "y": "the text-segment boundary \\y", "Y": "the non-boundary \\Y", "k": "a named backreference \\k",
    "g": "a subexpression call \\g", "o": "an octal escape \\o{..}", "c": "a control escape \\c",
    "C": "a control escape \\C", "M": "a meta escape \\M", "z": "the anchor \\z inside a class",
    "Z": "the anchor \\Z inside a class",
}
"""Escapes Oniguruma knows and this translator refuses, by their letter."""

GROUP_KINDS = {"<": "a named group (?<name>...)",
               "P": "a named group (?P...)", "'": "a named group (?'name'...)", "#": "a comment (?#...)",
               "~": "an absent operator (?~...)", "(": "a conditional (?(...)...)", "{": "a callout (?{...})"}
"""Groups Oniguruma knows and this translator refuses, by what follows their ``(?``."""

GROUP_HEAD = re.compile(r"\((\?(:|=|!|>|i:|<=|<!|<|P|'|#|~|\(|\{|[imxWDSPCIL-]+\)?|))?")
INTERVAL = re.compile(r"\{(\d*)(,?)(\d*)\}")
PROPERTY = re.compile(r"\{(\^?)([^{}]*)\}")
CODE_POINT = {"x": re.compile(r"\{([0-9A-Fa-f]{1,8})\}|([0-9A-Fa-f]{1,2})"), "u": re.compile(r"([0-9A-Fa-f]{4})")}


def refuse(what, position):
    """Stop: the construct at ``position`` has no exact translation here."""
    raise ValueError(f"{what} at position {position} of the pattern is not supported; supported: {SUPPORTED}")


# Character sets are tuples of sorted, disjoint, non-adjacent (first, last) code-point ranges.

def union(*sets):
    """The union of sets of ranges."""
    merged = []
    for first, last in sorted(item for ranges in sets for item in ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return tuple(merged)


def complement(ranges):
    """Every code point not in ``ranges``."""
    found, start = [], 0
    for first, last in ranges:
        if first > start:
            found.append((start, first - 1))
        start = last + 1
    return tuple(found + ([(start, TOP)] if start <= TOP else []))


def clip(ranges, low, high):
    """The part of ``ranges`` between ``low`` and ``high``."""
    return tuple((max(first, low), min(last, high)) for first, last in ranges if last >= low and first <= high)


def contains(ranges, code):
    """Whether ``code`` is in ``ranges``."""
    at = bisect.bisect_right(ranges, (code, TOP)) - 1
    return at >= 0 and ranges[at][1] >= code


def partition(sets, low=0, high=TOP):
    """The code points from ``low`` to ``high`` cut into kinds, those that belong to the same ones of ``sets``.

    Returns ``(starts, kinds, members)``: the run of code points from
    ``starts[i]`` to the next start is of kind ``kinds[i]``, and
    ``members[k]`` lists (by index) the sets that hold kind ``k``; kinds are
    numbered in the order they first come. One sweep over the sets' ranges
    in order: time in proportion to their number, times the few sets that
    overlap at any point.

    >>> partition([((0x61, 0x7A),), ((0x62, 0x62),)], 0x60, 0x7B)
    ([96, 97, 98, 99, 123], [0, 1, 2, 1, 0], [(), (0,), (0, 1)])
    """
    events = [(low, 0)]  # (code point, a set that starts or stops there, as a bit); a set's ranges never overlap
    for index, ranges in enumerate(sets):
        bit = 1 << index
        for first, last in ranges if (low, high) == (0, TOP) else clip(ranges, low, high):
            events += ((first, bit), (last + 1, bit))
    events.sort()
    starts, kinds, kind_of, active = [], [], {}, 0  # active: the sets holding the current run, as bits
    for number, (at, bit) in enumerate(events):
        active ^= bit
        if at <= high and (number + 1 == len(events) or events[number + 1][0] != at):  # the last change here
            starts.append(at)
            kinds.append(kind_of.setdefault(active, len(kind_of)))
    return starts, kinds, [bit_indexes(active) for active in kind_of]


def bit_indexes(mask):
    """The indexes of the bits set in an int, lowest first (time in proportion to their count)."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return tuple(found)


def text_ranges(text):
    """A class text of ``unicode_ranges`` (``0041-005A 00AA ...``) as ranges."""
    return union(*(((int(first, 16), int(last or first, 16)),)
                   for first, _, last in (item.partition("-") for item in text.split())))


@functools.lru_cache(maxsize=None)
def runs_by_category():
    """Each general category's ranges, read once from the tables' ``CATEGORY_RUNS``."""
    items = unicode_ranges.CATEGORY_RUNS.split()
    starts = [int(text, 16) for text in items[0::2]] + [TOP + 1]
    found = {category: [] for category in unicode_ranges.CATEGORIES}
    for index, category in enumerate(items[1::2]):
        found[category].append((starts[index], starts[index + 1] - 1))
    return found


@functools.lru_cache(maxsize=None)
def category_ranges(categories):
    """The code points of a tuple of general categories, as merged ranges."""
    return union(*(runs_by_category()[category] for category in categories))


def category_set(name):
    """The code points of a category or group, by its squeezed lower-case name (``lu``, ``l``)."""
    return category_ranges(tuple(CATEGORY_GROUPS.get(name, name.capitalize()).split()))


CATEGORY_NAMES = {name.lower() for name in unicode_ranges.CATEGORIES} | set(CATEGORY_GROUPS)
"""The short names of categories and groups, lower case."""


# The parser makes a tree of tuples: ("set", ranges) is one character of a set (a literal is a set of
# one, alternatives of single characters the set they make); ("seq", items) and ("alt", items);
# ("repeat", item, low, high), greedy, high None for no bound; ("atomic", item), never backtracked into;
# ("look", item, negative); ("behind", set, negative), a look-behind at one character; ("end", "\\z" or "\\Z" or
# "$").

class Parser:
    """A recursive-descent reader of the supported part of Oniguruma's syntax (``ONIG_SYNTAX_ONIGURUMA``)."""

    def __init__(self, source):
        self.text, self.at, self.depth, self.folding = source, 0, 0, False
        self.positions = {}  # id of each part of the tree -> where it starts in the source (for refusals)

    def peek(self, length=1):
        return self.text[self.at:self.at + length]

    def parse(self):
        tree = self.alternation()
        if self.at < len(self.text):
            refuse("an unmatched ')'", self.at)
        return tree

    def placed(self, item, start):
        """The part ``item``, noted as starting at ``start`` (the innermost part keeps its own start)."""
        self.positions.setdefault(id(item), start)
        return item

    def alternation(self):
        """Alternatives; of single characters only (``\\s|\\p{Zs}``), the one set they make (as ``re`` reads them)."""
        start, items = self.at, [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            items.append(self.sequence())
        if len(items) > 1 and all(item[0] == "set" for item in items):
            return self.placed(("set", union(*(item[1] for item in items))), start)
        return items[0] if len(items) == 1 else self.placed(("alt", tuple(items)), start)

    def sequence(self):
        start, items = self.at, []
        while self.at < len(self.text) and self.peek() not in "|)":
            items.append(self.quantified())
        return items[0] if len(items) == 1 else self.placed(("seq", tuple(items)), start)

    def quantified(self):
        """An atom and the quantifier after it, if any."""
        start = self.at
        item = self.atom()
        bounds = self.quantifier()
        if bounds is None:
            return self.placed(item, start)
        if item[0] in ("look", "behind", "end"):
            refuse("a quantifier on a look-ahead, look-behind or anchor", start)
        if self.folding:
            refuse("a quantifier inside (?i:...)", start)
        low, high, interval = bounds
        after = self.peek()
        if interval and after in ("?", "*", "+", "{"):  # Oniguruma reads x{2}? as (?:x{2})? and x{1,2}+ as (?:x{1,2})+
            refuse(f"a quantifier {after!r} after an interval", self.at)
        if after == "?":
            refuse("a lazy quantifier", self.at)
        if after == "*" or (after == "{" and self.quantifier(consume=False)):
            refuse("a nested quantifier", self.at)
        repeat = self.placed(("repeat", self.placed(item, start), low, high), start)
        if after == "+":
            self.at += 1
            return self.placed(("atomic", repeat), start)
        return repeat

    def quantifier(self, consume=True):
        """(low, high, is_interval) of the quantifier here, consumed unless told not to; None if there is none."""
        char = self.peek()
        if char and char in "?*+":
            self.at += consume
            return {"?": (0, 1, False), "*": (0, None, False), "+": (1, None, False)}[char]
        found = INTERVAL.match(self.text, self.at)
        if found is None or not (found.group(1) or found.group(3)):
            return None  # a { that starts no interval is a literal for Oniguruma (and refused in atom)
        low = int(found.group(1) or 0)
        high = int(found.group(3)) if found.group(3) else None if found.group(2) else low
        if max(low, high or 0) > MAX_REPEAT:
            refuse(f"a repeat count above {MAX_REPEAT:,}", self.at)
        if high is not None and high < low:
            refuse("an interval {m,n} with n < m", self.at)
        if consume:
            self.at = found.end()
        return low, high, True

    def atom(self):
        start, char = self.at, self.peek()
        if char == "(":
            return self.group()
        if self.quantifier(consume=False):
            refuse("a quantifier with nothing to repeat", start)
        if char in ("{", ".", "^"):
            refuse({"{": "a literal '{' (write \\{)", ".": "the any-character '.'", "^": "the line-start anchor '^'"}[char],
                   start)
        if char == "[":
            self.at += 1
            return self.folded(("set", self.char_class(start)), start, is_class=True)
        if char == "\\":
            item = self.escape(in_class=False)
        else:
            self.at += 1
            item = ("end", "$") if char == "$" else ("set", ((ord(char), ord(char)),))
        if item[0] == "end":
            if self.folding:
                refuse("an anchor inside (?i:...)", start)
            return item
        return self.folded(item, start)

    def folded(self, item, start, is_class=False):
        """The atom; inside (?i:...), its ASCII character (or a class's) with every one whose case folding is the same."""
        if not self.folding:
            return item
        ranges = item[1]
        if not is_class and (len(ranges) != 1 or ranges[0][0] != ranges[0][1]):
            refuse("a class escape inside (?i:...)", start)
        if ranges[-1][1] > 0x7F:
            refuse(f"a non-ASCII {'class' if is_class else 'character'} inside (?i:...)", start)
        chars = "".join(chr(code) for first, last in ranges for code in range(first, last + 1))
        variants = "".join(unicode_ranges.ASCII_CASE_VARIANTS.get(char.lower(), char) for char in chars)
        return ("set", union(*(((ord(variant), ord(variant)),) for variant in variants)))

    def group(self):
        start = self.at
        self.depth += 1
        if self.depth > MAX_DEPTH:
            refuse(f"groups nested deeper than {MAX_DEPTH}", start)
        head = GROUP_HEAD.match(self.text, start)
        kind = head.group(2)
        if kind not in (None, ":", "=", "!", ">", "i:", "<=", "<!"):
            refuse(GROUP_KINDS.get(kind, f"the option group {head.group()!r}"), start)
        if self.folding:
            refuse("a group inside (?i:...)", start)
        self.at, self.folding = head.end(), kind == "i:"
        inside = self.alternation()
        if self.folding:
            self.folding = False
            self.check_folds(inside, start)
        if self.peek() != ")":
            refuse("an unclosed group", start)
        self.at += 1
        self.depth -= 1
        if kind in ("<=", "<!") and inside[0] != "set":
            refuse("a look-behind at more than one character", start)
        kinds = {"=": ("look", inside, False), "!": ("look", inside, True), "<=": ("behind", inside, False),
                 "<!": ("behind", inside, True), ">": ("atomic", inside)}
        return self.placed(kinds.get(kind, inside), start)

    def check_folds(self, tree, start):
        """Refuse (?i:ss) and its kind: there Oniguruma also matches one character whose folding is two (``ß``)."""
        for branch in tree[1] if tree[0] == "alt" else (tree,):
            items = branch[1] if branch[0] == "seq" else (branch,)
            letters = [{chr(code).lower() for first, last in item[1] for code in range(first, min(last, 0x7F) + 1)}
                       for item in items]  # (a class's letters: any of them may stand at its place)
            for fold in unicode_ranges.ASCII_MULTI_CHAR_FOLDS:
                for at in range(len(letters) - len(fold) + 1):
                    if all(char in letters[at + offset] for offset, char in enumerate(fold)):
                        refuse(f"{fold!r} inside (?i:...) (Oniguruma also matches a character whose folding is it)",
                               start)

    def char_class(self, start):
        """The set of a [...] class whose '[' is read."""
        negated = self.peek() == "^"
        self.at += negated
        if self.peek() == "]":
            refuse("']' first in a class (write \\]), or an empty class", self.at)
        sets = []
        while self.peek() != "]":
            item_start, first = self.at, self.class_atom(start)
            if self.peek() == "-" and self.peek(2) != "-]":
                self.at += 1
                last = self.class_atom(start)
                if len(first) + len(last) != 2 or first[0][0] != first[0][1] or last[0][0] != last[0][1]:
                    refuse("a range whose end is a class", item_start)
                if last[0][0] < first[0][0]:
                    refuse("an empty range", item_start)
                if self.peek() == "-" and self.peek(2) != "-]":
                    refuse("a '-' right after a range (write \\-)", self.at)
                first = ((first[0][0], last[0][0]),)
            sets.append(first)
        self.at += 1
        return complement(union(*sets)) if negated else union(*sets)

    def class_atom(self, start):
        char = self.peek()
        if not char:
            refuse("an unclosed class", start)
        if char == "[":
            refuse("a nested class or POSIX bracket inside a class", self.at)
        if self.peek(2) == "&&":
            refuse("a class intersection &&", self.at)
        if char == "\\":
            return self.escape(in_class=True)[1]
        self.at += 1
        return ((ord(char), ord(char)),)

    def escape(self, in_class):
        """The tree item of the backslash escape here."""
        start, char = self.at, self.text[self.at + 1:self.at + 2]
        self.at += 2
        if not char:
            refuse("a trailing backslash", start)
        if char in CONTROL_ESCAPES:
            return ("set", ((CONTROL_ESCAPES[char],) * 2,))
        if char in "sSdD":
            ranges = WHITE_SPACE if char in "sS" else DIGITS
            return ("set", complement(ranges) if char.isupper() else ranges)
        if char in "pP":
            return ("set", self.property(char == "P", start))
        if char in "xu":
            code = self.code_point(char, start)
            return ("set", ((code, code),))
        if char in "zZ" and not in_class:
            return ("end", "\\" + char)
        if char.isascii() and char.isalnum():
            refuse(REFUSED_ESCAPES.get(char, "a backreference or octal escape" if char.isdigit() else f"\\{char}"),
                   start)
        return ("set", ((ord(char), ord(char)),))

    def code_point(self, kind, start):
        """The code point of \\xH, \\xHH, \\x{H..} or \\uHHHH, whose digits follow."""
        found = CODE_POINT[kind].match(self.text, self.at)
        if found is None:
            refuse(f"a malformed \\{kind} escape", start)
        code = int(found.group(found.lastindex), 16)
        if code > TOP or 0xD800 <= code <= 0xDFFF:
            refuse(f"the code point {code:#x} (a surrogate, or beyond Unicode)", start)
        self.at = found.end()
        return code

    def property(self, negated, start):
        """The set of \\p{..} or \\P{..}; Oniguruma ignores case, spaces, '_' and '-' in the name."""
        found = PROPERTY.match(self.text, self.at)
        if found is None:
            refuse("\\p or \\P without {name}", start)
        squeezed = re.sub(r"[ _\-]", "", found.group(2)).lower()
        name = squeezed if squeezed in CATEGORY_NAMES else LONG_NAMES.get(squeezed)
        if name is None:
            refuse(f"the property {found.group(2)!r} (only general categories are: not scripts, blocks or "
                   "binary properties)", start)
        self.at = found.end()
        ranges = category_set(name)
        return complement(ranges) if negated != bool(found.group(1)) else ranges


WHITE_SPACE = text_ranges(unicode_ranges.WHITE_SPACE_RANGES)
"""Oniguruma's ``\\s``: Unicode's White_Space."""

DIGITS = category_set("nd")
"""Oniguruma's ``\\d``: decimal digits of every script."""


def nullable(tree, surely=False):
    """Whether the tree may match the empty string, saying yes when unsure (where yes is the safe answer); with
    ``surely``, whether it does on a path with no look-ahead, end or atomic group (saying no when unsure)."""
    kind = tree[0]
    if kind in ("seq", "alt"):
        return (all if kind == "seq" else any)(nullable(item, surely) for item in tree[1])
    if kind == "repeat":
        return tree[2] == 0 or nullable(tree[1], surely)
    return not surely and kind != "set" and (kind != "atomic" or nullable(tree[1]))


def possessive_class(tree):
    """Whether ``tree``, made atomic, is a possessive ``?+ *+ ++`` of one class (written without a group for ``re``)."""
    return tree[0] == "repeat" and tree[1][0] == "set" and (tree[2], tree[3]) in ((0, 1), (0, None), (1, None))


def sets_of(tree):
    """Every character set in a tree."""
    if tree[0] == "set":
        return {tree[1]}
    if tree[0] in ("seq", "alt"):
        return set().union(*map(sets_of, tree[1]))
    return set() if tree[0] == "end" else sets_of(tree[1])
