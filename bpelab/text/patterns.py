"""Chunk patterns: how text is cut before any merging, for every script.

``bpe.chunks`` is the definition: ``re.findall`` with a named pattern, whose
chunks must join back up to the text. This module holds the named patterns
(the lab's, GPT-2's, GPT-4's ``cl100k``, GPT-4o's ``o200k`` and SuperBPE's
second stage, ``superbpe``), spells them
for other regex engines (``pattern_source``), finds the places where long
text may be cut without changing its chunks (``last_safe_cut``), and gives
``chunker``, which cuts exactly as ``bpe.chunks`` does, twice as fast.

Text is cut into chunks before any merging, and merges never cross a chunk
boundary, so " the" can become a token but "the park" cannot. The
built-in patterns have names (``"uncut"`` is no pattern: the text is one
chunk). Any other pattern is a regex in the syntax Hugging Face, tiktoken
and nanochat write (``regex_pattern``), read by the reader of imported
files (``oniguruma``, ``chunk_regex``), translated exactly or refused by
name, and held to the bounded-time rule (``matching_time``): so a file
holding one cannot smuggle in a slow one.

The lab's pattern is ASCII: runs of ASCII letters and digits, runs of other
symbols, runs of whitespace, the first two with an optional leading space.
On other scripts it glues punctuation to words (" «привет»," is one chunk)
and splits "café" as "caf" + "é"; the other patterns know every script.
"""

import functools
import re
import string
from typing import Callable, Iterator

from bpelab.messages import shown
from bpelab.text import unicode_ranges

# The placeholders in braces are filled with explicit code-point ranges from
# unicode_ranges.py rather than \s, \p{L} or \p{N}: engines and Unicode versions
# disagree on those, and spelling the classes out makes Python, tiktoken and
# Hugging Face split text alike. Each placeholder matches one character:
#   {space} / {not_space}   whitespace as Python's str.isspace sees it (lab, gpt2)
#   {lab_other}             neither an ASCII letter or digit nor {space} (lab)
#   {white} / {not_white}   Unicode's White_Space property (cl100k, o200k)
#   {letter} {number}       any script's letters (L) and numbers (N)
#   {not_number}            anything but a number
#   {other}                 neither letter, number nor {space}
#   {symbol}                neither letter, number nor {white}
#   {prefix}                neither letter, number, carriage return nor line feed
#   {upper} / {lower}       GPT-4o's letter groups: Lu Lt Lm Lo M / Ll Lm Lo M
#   {s} {t} {d} ...         a contraction's letter in any case ("'S" counts)
#   {contraction}           any of GPT-4o's contractions, in any case
#   {end}                   the end of the text
PATTERN_TEMPLATES = {
    "lab": " ?[A-Za-z0-9]+| ?{lab_other}+|{space}+",
    # GPT-2's rules for any script: common English contractions, letter runs
    # and number runs with an optional leading space, runs of other symbols,
    # and whitespace runs, which leave their last space to a following word.
    # (GPT-2 wrote the contractions as 's|'t|'re|'ve|'m|'ll|'d; with the
    # apostrophe taken out in front they match the same, and regex engines,
    # tiktoken's among them, try the rest only after an apostrophe.)
    "gpt2": "'(?:s|t|re|ve|m|ll|d)| ?{letter}+| ?{number}+| ?{other}+|{space}+(?!{not_space})|{space}+",
    # GPT-4's (tiktoken's cl100k_base): contractions in any case, a letter run
    # with one optional non-letter before it, numbers in groups of up to three
    # digits, symbol runs that keep the line breaks after them, and whitespace
    # runs that end at a line break or leave their last space to a word.
    "cl100k": (
        "'(?:{s}|{d}|{m}|{t}|{l}{l}|{v}{e}|{r}{e})|{prefix}?{letter}+|{number}{{1,3}}| ?{symbol}+[\r\n]*"
        "|{white}+{end}|{white}*[\r\n]|{white}+(?!{not_white})|{white}"
    ),
    # GPT-4o's (o200k_base): like GPT-4's, but a letter run splits before an
    # upper-case letter that follows lower-case ones ("iPhone" is "i" +
    # "Phone"), keeps a contraction after it, and marks count as letters.
    "o200k": (
        "{prefix}?{upper}*{lower}+{contraction}?|{prefix}?{upper}+{lower}*{contraction}?|{number}{{1,3}}"
        "| ?{symbol}+[\r\n/]*|{white}*[\r\n]+|{white}+(?!{not_white})|{white}+"
    ),
    # SuperBPE's second stage (Liu et al., 2025): the pieces Hugging Face's
    # Split(..., "isolated") makes with the paper's
    #     \p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)
    # that is, its three alternatives (1-3 digits, a run of two or more symbols
    # keeping the line breaks or slashes after it, spaces not followed by a
    # non-space), and, as one chunk, each stretch of text between their matches.
    # That stretch is spelled out: characters where none of the three can start
    # (a letter, whitespace other than a space, a symbol not followed by another,
    # a space followed by neither whitespace nor two symbols). So single
    # punctuation, single spaces and line breaks join words into one chunk.
    "superbpe": (
        "{number}{{1,3}}| ?{symbol}{{2,}}[\r\n/]*| +(?!{not_white})"
        "|(?:{letter}|(?! ){white}|{symbol}(?!{symbol})| (?!{symbol}{symbol})(?={not_white}))+"
    ),
    # SuperBPE's first stage as its repository has recommended since November 2025 (scripts/train_tokenizer.sh):
    # GPT-4o's pattern without its contractions.
    "superbpe-words": (
        "{prefix}?{upper}*{lower}+|{prefix}?{upper}+{lower}*|{number}{{1,3}}"
        "| ?{symbol}+[\r\n/]*|{white}*[\r\n]+|{white}+(?!{not_white})|{white}+"
    ),
    # The paper's two stages (its repository's utils.py until November 2025): Hugging Face's
    # Digits(individual_digits=False), which makes each run of numbers a piece, then Split(r, "isolated") with
    #     r = (?=(\d{3})+(?!\d))| ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+    (stage 1: GPT-2's, without contractions)
    #     r = (?=(\d{3})+(?!\d))                                     (stage 2)
    # The look-ahead cuts a run of numbers before each place followed by a multiple of three decimal digits (\d is
    # Nd) to the end of their stretch: digits in threes from the right, other numbers ("²") glued on
    # ({digit_groups}). In stage 1 the rest of the text is cut GPT-2's way, each piece between two runs of
    # numbers on its own, so that whitespace before a number is whole; in stage 2 it is one chunk.
    "superbpe-paper-words": "{digit_groups}| ?{letter}+| ?{symbol}+|{white}+(?!{letter_or_symbol})|{white}+",
    "superbpe-paper": "{digit_groups}|{not_number}+",
    # No pattern: the text (between special tokens) is one chunk, as minbpe's BasicTokenizer trains on it.
    "uncut": "{anything}+",
}


PATTERNS = tuple(PATTERN_TEMPLATES)
"""The names of the built-in chunk patterns."""


DEFAULT_PATTERN = {False: "lab", True: "gpt2"}
"""The pattern a tokenizer uses unless told otherwise, by ``byte_level``."""


CONTRACTION = "(?:'{s}|'{t}|'{r}{e}|'{v}{e}|'{m}|'{l}{l}|'{d})"
"""GPT-4o's contractions, which may follow a letter run (in any case)."""

DIGIT_GROUPS = (
    "{digit}{{3}}(?!{digit}){digit_tail}*|(?:(?<={digit})|(?=(?:{digit}{{3}})+(?!{digit}))){digit}{{3}}|{digit_tail}+"
)
"""The paper's run of numbers cut before each place where 3, 6, 9... decimal digits follow to the end of their
stretch, spelled so that a stretch is read a few times, not once per cut (so in time linear in its length): three
digits where the cuts are in step (after a digit, or where a multiple of three digits follows); and after the last
three of a stretch, or where no cut falls, ``{digit_tail}``s up to the next cut."""

DIGIT_TAIL = "(?:(?!{digit}){number}|{digit}{{1,2}}(?=(?:{digit}{{3}})*(?!{digit})))"
"""A number that is no decimal digit ("²", "Ⅷ"), or the one or two digits that end a stretch or open one whose
length is no multiple of three (a cut falls after them)."""


def as_typed(source):
    """A pattern for a message as its author typed it: quoted, backslashes single (``shown`` doubles them, and a
    pattern pasted back from the message must be the same), shortened as ``shown`` does; ``shown`` itself where
    the pattern holds a character that would not print."""
    return shown(source) if not source.isprintable() else shown(source).replace("\\\\", "\\")

def compiled(pattern: str) -> "re.Pattern[str]":
    """The compiled Python regex of a named chunk pattern; for a regex, its ``chunk_regex.ChunkRegex``, whose
    ``findall`` gives its matches and the text between them."""
    if is_name(pattern):
        return template_regex(PATTERN_TEMPLATES[pattern])
    return regex_pattern(pattern)


def pattern_source(name: str, syntax: str = "python") -> str:
    """The regular expression of a pattern, in the syntax of ``python``, ``rust`` or ``oniguruma``.

    tiktoken's engine (Rust) and Hugging Face's (Oniguruma) both read code
    points as ``\\x{...}``, so they share one spelling. A regex pattern is
    written as given for both (its ``$`` and ``\\Z``, which Rust's engine reads
    otherwise, are refused there), and as its translation for Python.
    """
    if is_name(name):
        return fill_classes(PATTERN_TEMPLATES[name], syntax)
    chunk_regex = regex_pattern(name)
    if syntax == "rust":
        check_for_tiktoken(name, chunk_regex)
    return chunk_regex.python if syntax == "python" else name


def check_for_tiktoken(source, chunk_regex):
    """Refuse a regex pattern that tiktoken would cut otherwise: one holding ``$`` or ``\\Z`` (Rust's engine reads
    both as the end of the text), or one not proven to match wherever a search starts (tiktoken drops the text
    between matches, which the lab keeps as chunks)."""
    from bpelab.text.regex_cuts import covers_every_text
    if chunk_regex.anchors:
        raise ValueError(f"the pattern {as_typed(source)} holds {chunk_regex.anchors[0]}, which tiktoken's engine reads "
                         "otherwise than Hugging Face's (as the end of the text only); write \\z or (?!\\S)")
    if not covers_every_text(chunk_regex.tree):
        raise ValueError(f"the pattern {as_typed(source)} may leave text between its matches, which tiktoken drops "
                         "and the lab keeps as chunks; end it with the alternatives |\\S|\\s+")


def is_name(pattern) -> bool:
    """Whether ``pattern`` names a built-in pattern (else it is a regex, or refused)."""
    return isinstance(pattern, str) and pattern in PATTERN_TEMPLATES


def check_name(pattern):
    """Refuse a pattern that is not the name of a built-in one (as format 2 and a pipeline's ``name`` hold)."""
    if not is_name(pattern):
        known = ", ".join(repr(name) for name in PATTERNS)
        raise ValueError(f"unknown pattern {shown(pattern)}: the built-in patterns are {known}")


NAME_LIKE = re.compile("[a-z0-9_-]*")
"""A pattern spelled like a name (or empty): refused as a name unless it is one, never read as a regex."""


def check_pattern(pattern):
    """Refuse a pattern that is neither a built-in's name nor a regex the lab reads exactly (``regex_pattern``)."""
    if not is_name(pattern):
        regex_pattern(pattern)


def regex_pattern(source):
    """The ``chunk_regex.ChunkRegex`` of a pattern given as a regex in Hugging Face's, tiktoken's and nanochat's
    syntax (Oniguruma's, ``bpelab.text.oniguruma``), translated exactly into Python's ``re``.

    Its chunks are its matches and the text between them, as Hugging Face's
    ``Split(..., "isolated")`` keeps them (so joining them gives the text
    back). Refused, in one line: a pattern that is no str or spelled like a
    name, empty, matching the empty string, holding what the translation
    cannot say exactly (named, with its position), or one Python's ``re`` could
    take more than quadratic time on (``bpelab.text.matching_time``).
    """
    if source == "":
        raise ValueError("the pattern is empty: give a built-in pattern's name or a regex")
    if not isinstance(source, str) or NAME_LIKE.fullmatch(source):
        try:
            check_name(source)
        except ValueError as error:
            raise ValueError(f"{error}; or a regex") from None
    from bpelab.text.chunk_regex import translate  # (the reader loads only when a regex is given; it keeps 64)
    chunk_regex = translate(source)
    if chunk_regex.nullable:
        raise ValueError(f"the pattern {as_typed(source)} matches the empty string; a chunk pattern must match at "
                         "least one character wherever it matches")
    return chunk_regex


@functools.lru_cache(maxsize=None)
def template_regex(template, syntax="python"):
    """A template filled with the character classes, compiled for Python once, on first use.

    Compiling waits until first use because the large classes take a moment.
    """
    return re.compile(fill_classes(template, syntax))


def fill_classes(template, syntax):
    """Put the explicit character classes into a pattern template, in the given syntax.

    Only the classes the template names are spelled out, each once per
    syntax (``class_in``): spelling them all took longer than compiling.
    """
    return template.format_map(_ClassesIn(syntax))


class _ClassesIn(dict):
    """The classes of ``CLASS_RANGES`` and the others below, looked up by name as ``format_map`` asks for them."""

    def __init__(self, syntax):
        super().__init__()
        self.syntax = syntax

    def __missing__(self, name):
        return class_in(name, self.syntax)


_LETTERS_AND_NUMBERS = unicode_ranges.LETTER_RANGES + unicode_ranges.NUMBER_RANGES
_CASELESS_AND_MARKS = unicode_ranges.OTHER_LETTER_RANGES + unicode_ranges.MARK_RANGES  # in both GPT-4o letter groups
CLASS_RANGES = {
    "space": (unicode_ranges.SPACE_RANGES, False),
    "not_space": (unicode_ranges.SPACE_RANGES, True),
    "white": (unicode_ranges.WHITE_SPACE_RANGES, False),
    "not_white": (unicode_ranges.WHITE_SPACE_RANGES, True),
    "letter": (unicode_ranges.LETTER_RANGES, False),
    "number": (unicode_ranges.NUMBER_RANGES, False),
    "digit": (unicode_ranges.DIGIT_RANGES, False),
    "letter_or_symbol": (unicode_ranges.WHITE_SPACE_RANGES + unicode_ranges.NUMBER_RANGES, True),
    "not_number": (unicode_ranges.NUMBER_RANGES, True),
    "other": (unicode_ranges.SPACE_RANGES + _LETTERS_AND_NUMBERS, True),
    "symbol": (unicode_ranges.WHITE_SPACE_RANGES + _LETTERS_AND_NUMBERS, True),
    "prefix": ("000A 000D" + _LETTERS_AND_NUMBERS, True),
    "lab_other": ("0030-0039 0041-005A 0061-007A" + unicode_ranges.SPACE_RANGES, True),
    "upper": (unicode_ranges.UPPER_RANGES + _CASELESS_AND_MARKS, False),
    "lower": (unicode_ranges.LOWER_RANGES + _CASELESS_AND_MARKS, False),
}
"""The templates' character classes: name -> (the ranges, whether the class is everything outside them)."""


@functools.lru_cache(maxsize=None)
def class_in(name, syntax):
    """What ``{name}`` stands for in a template, in ``syntax``: a class of ``CLASS_RANGES``, a letter in any case
    (``{s}``, for contractions), GPT-4o's ``{contraction}``, or ``{end}``, the end of the text."""
    if name in CLASS_RANGES:
        ranges, negated = CLASS_RANGES[name]
        return char_class(ranges, syntax, negated)
    if name in unicode_ranges.CASE_VARIANTS:
        return "[" + "".join(_escape_code_point(ord(char), syntax) for char in unicode_ranges.CASE_VARIANTS[name]) + "]"
    if name == "contraction":
        return fill_classes(CONTRACTION, syntax)
    if name in ("digit_groups", "digit_tail"):
        return fill_classes(DIGIT_GROUPS if name == "digit_groups" else DIGIT_TAIL, syntax)
    if name == "end":
        return "\\Z" if syntax in ("python", "basic") else "\\z"
    if name == "anything":  # (every code point: the class of "uncut")
        return "[\\u0000-\\U0010FFFF]" if syntax in ("python", "basic") else "[\\x{0}-\\x{10FFFF}]"
    raise KeyError(f"a pattern template names {{{name}}}, which is no class")


ABOVE_BASIC_RANGE = "10000-10FFFF"
"""The code points above U+FFFF, the end of the Basic Multilingual Plane."""


def char_class(ranges_text, syntax, negated=False):
    """A regex matching one character of the ranges (with ``negated``, one outside them).

    For Python the class is split at U+FFFF: Python's ``re`` checks a class
    that reaches above it one range at a time, while a class within the
    Basic Multilingual Plane is one table look-up, five times faster on
    ordinary text. The part above is only tried for characters up there.
    The ``"basic"`` syntax keeps only the part below, for text that has no
    character above U+FFFF (see ``chunker``).
    """
    caret = "^" if negated else ""
    if syntax not in ("python", "basic"):
        return f"[{caret}{_class_text(ranges_text, syntax)}]"
    basic, higher = _split_planes(ranges_text)
    if not higher or syntax == "basic":
        return f"[{caret}{_class_text(basic, syntax)}]"
    above = _class_text(ABOVE_BASIC_RANGE, syntax)
    below = f"[{caret}{_class_text(basic, syntax)}{above if negated else ''}]"
    return f"(?:{below}|(?=[{above}])[{caret}{_class_text(higher, syntax)}])"


def _class_text(ranges_text, syntax):
    """The inside of a ``[...]`` class for ranges written as ``0041-005A 00AA ...``."""
    parts = []
    for item in ranges_text.split():
        first, _, last = item.partition("-")
        part = _escape_code_point(int(first, 16), syntax)
        if last:
            part += "-" + _escape_code_point(int(last, 16), syntax)
        parts.append(part)
    return "".join(parts)


def _escape_code_point(code, syntax):
    """One code point as a regex escape: ``\\uXXXX`` for Python, ``\\x{X}`` for Rust and Oniguruma."""
    if syntax in ("python", "basic"):
        return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"
    if syntax in ("rust", "oniguruma"):
        return f"\\x{{{code:X}}}"
    raise ValueError(f"syntax must be 'python', 'rust' or 'oniguruma', not {shown(syntax)}")


def _split_planes(ranges_text):
    """Ranges text cut in two: the part inside the Basic Multilingual Plane, and the part above it."""
    basic, higher = [], []
    for item in ranges_text.split():
        (basic if int(item.split("-")[0], 16) <= 0xFFFF else higher).append(item)
    return " ".join(basic), " ".join(higher)


# Long texts and files are chunked in blocks. A block may only end at a safe
# cut: a place where cutting the text and chunking both halves gives exactly
# the chunks of the whole. For the lab's and GPT-2's patterns that is any
# whitespace after a non-space character: no chunk spans it (a letter, number
# or symbol run never takes in whitespace, a whitespace run never takes in the
# character before it), and the only look-ahead, at the end of a whitespace
# run, stays inside its half. GPT-4's and GPT-4o's symbol runs keep the line
# breaks after them (tiktoken cuts "end.\n\nNext" as "end|.\n\n|Next"), so
# there a safe cut is whitespace after a letter or a number: no chunk holds a
# letter or number followed by whitespace, and neither half then ends in
# whitespace, so "whitespace at the end of the text" means the same in the
# half as in the whole. SuperBPE's stage-2 chunks may span words, lines and
# paragraphs, so whitespace is no cut there; the end of a run of digits is:
# digits are always a chunk of their own, grouped from the start of their run,
# no other alternative takes in a digit, and nothing looks back past one.
# Text with no digit in it has no safe cut, and is held until one comes (a
# chunk of it may be that long anyway, and a chunk is encoded whole).
# Each rule is (the character before the cut, the one after it).
SAFE_CUTS = {
    "lab": ("{not_space}", "{space}"),
    "gpt2": ("{not_space}", "{space}"),
    "cl100k": ("(?:{letter}|{number})", "{white}"),
    "o200k": ("(?:{letter}|{number})", "{white}"),
    "superbpe": ("{number}", "{not_number}"),
    "superbpe-words": ("(?:{letter}|{number})", "{white}"),
    "superbpe-paper-words": ("{not_white}", "{white}"),
    "superbpe-paper": ("{number}", "{not_number}"),
    "uncut": ("(?!)", "(?!)"),  # (never: the text is one chunk)
}


@functools.lru_cache(maxsize=64)
def safe_cut_rule(pattern: str) -> tuple:
    """The safe-cut rule of a pattern: ``SAFE_CUTS``' for a name; for a regex, the first of the rules a
    pre-tokenizer's split is tried with (``regex_cuts``) that it provably keeps, else none: no cut."""
    if is_name(pattern):
        return SAFE_CUTS[pattern]
    from bpelab.text.regex_cuts import regex_cut_rule  # (as regex_pattern: loads only for a regex)
    regex_pattern(pattern)  # (refuses what is no pattern)
    return regex_cut_rule(pattern) or SAFE_CUTS["uncut"]


def last_safe_cut(text: str, pattern: str = "lab") -> int:
    """The last position in ``text`` where it may be cut without changing its chunks, or -1.

    >>> last_safe_cut("ab cd ef")
    5

    The search runs backwards over the reversed end of the text ("the
    character after the cut, then the one before it"), in windows that grow
    sixteenfold until a cut turns up, so finding one near the end of a long
    block reads, and copies, only that end.
    """
    return last_cut(text, *safe_cut_rule(pattern))


def last_cut(text: str, before: str, after: str) -> int:
    """The last position in ``text`` with a character matching ``before`` before it and one matching ``after``
    after it, or -1: ``last_safe_cut`` with a rule of ``SAFE_CUTS``' kind (templates of one character each)."""
    return last_cut_found(text, template_regex(after + before).search)


def last_cut_found(text: str, search) -> int:
    """The last position in ``text`` with a character of one class before it and one of another after it, or -1:
    ``search`` finds the pair, in reverse (the one after, then the one before), in the reversed text."""
    window = 1024
    while True:
        start = max(0, len(text) - window)
        match = search(text[start:][::-1])
        if match is not None:
            return len(text) - 1 - match.start()
        if start == 0:
            return -1
        window *= 16


def safe_cuts(text: str, pattern: str = "lab") -> Iterator[int]:
    """Every position in ``text`` where it may be cut without changing its chunks, in order.

    >>> list(safe_cuts("ab cd  ef"))
    [2, 5]

    (The same rule as ``last_safe_cut``, read forwards.)
    """
    before, after = safe_cut_rule(pattern)
    return (match.end() for match in template_regex(f"{before}(?={after})").finditer(text))


# Chunking fast. ``chunker(pattern)`` equals ``bpe.chunks`` (without the check
# that the chunks join up to the text, which the tests make instead). The
# classes of GPT-2's, GPT-4's and GPT-4o's patterns reach above U+FFFF, so each
# is a group of two alternatives (see ``char_class``), and Python's ``re`` runs
# a repeated group through its slow general loop. Most text has no character
# above U+FFFF, and there the "basic" version of the pattern, with plain
# classes cut down to the Basic Multilingual Plane, finds the same chunks
# twice as fast. Around a character above U+FFFF (an emoji, say) the full
# pattern runs, from the last safe cut before it to the first safe cut after
# it, so that both versions cut the same text the same way. A pattern whose
# classes all lie within the Basic Multilingual Plane (the lab's) has one
# version only, and its chunker is that regex's findall, with no search for
# characters above U+FFFF (a tenth of the lab's chunking time).

ABOVE_BASIC = re.compile("[\U00010000-\U0010FFFF]")
"""A character above U+FFFF (outside the Basic Multilingual Plane)."""


def reaches_above_basic(template: str) -> bool:
    """Whether a class that ``template`` names holds code points above U+FFFF, so that its "basic" version differs.

    (``char_class`` spells a class the same in both versions unless it does.)
    """
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name in CLASS_RANGES}
    return any(_split_planes(CLASS_RANGES[name][0])[1] for name in names)


def chunker(pattern: str) -> Callable[[str], list[str]]:
    """A function that cuts text into chunks exactly as ``bpe.chunks(text, pattern)`` does, faster.

    >>> chunker("gpt2")("I'll pay 5 🍪!")
    ['I', "'ll", ' pay', ' 5', ' 🍪!']
    """
    if not is_name(pattern):
        return regex_pattern(pattern).chunks
    template = PATTERN_TEMPLATES[pattern]
    if not reaches_above_basic(template):  # (the lab's pattern) both versions are one regex: no search needed
        return lambda text: template_regex(template).findall(text)

    def cut(text):  # each regex is compiled when first needed (and then kept: see template_regex)
        basic = template_regex(template, "basic").findall
        found, done = [], 0  # the text before ``done`` is chunked, and ``done`` is a safe cut
        above = None if text.isascii() else ABOVE_BASIC.search(text)  # (isascii reads a flag: no search)
        while above is not None:
            start = done + max(0, last_safe_cut(text[done:above.start()], pattern))
            # the cut may come right after this character
            after = template_regex("".join(SAFE_CUTS[pattern])).search(text, above.end() - 1)
            end = len(text) if after is None else after.start() + 1
            found += basic(text, done, start)
            found += template_regex(template).findall(text, start, end)
            done = end
            above = ABOVE_BASIC.search(text, done)
        found += basic(text, done)
        return found

    return cut
