"""Readable tokens: each token as the text it stands for, in one form that every command and page draws.

At the byte level a token is bytes, and ``bpe.Tokenizer.tokens`` gives
GPT-2's display strings, so Hebrew comes out as ``×©×ľ×ķ×Ŀ``. Two readings
of a token live here:

- ``token_texts`` (``bpe.Tokenizer.token_texts``): the plain text of each
  token, the bytes of a character cut between tokens as ``\\xNN`` (and so a
  real backslash as ``\\\\``), for programs;
- the readable form (``bpe.Tokenizer.readable_tokens``, ``readable_texts``),
  for people, and what ``show``, ``explain``, ``inspect``, ``train
  --verbose``, ``compare`` and the pages draw:

  - a whole character is itself; a space is ``␣``, a tab ``⇥``, a line feed
    ``↵``, a carriage return ``␍``;
  - a character that shows nothing (a format or control character, a
    variation selector, any space but the plain one) is its name between
    ``⟨⟩``: ``⟨ZWJ⟩``, ``⟨VS16⟩``, ``⟨NBSP⟩``, else its code point,
    ``⟨U+3000⟩``; so are the form's own marks where they are text
    (``⟨U+2423⟩`` is a real ``␣``);
  - a token that holds only part of a character is that character with the
    bytes it holds: ``त[1-2/3]`` holds bytes 1 and 2 of the three of ``त``,
    ``त[3/3]`` the last; a token may end one character and start another
    (``्त[1-2/3]``);
  - bytes that are no part of any character the IDs spell (a lone
    continuation byte, a character cut short at the end) are hexadecimal,
    ``⟨0x80⟩``, with the bytes they hold of a character cut short
    (``⟨0xE0⟩⟨0xA4⟩[1-2/3]``).

Which character a byte belongs to depends on its neighbours, so the form is
worked out on the IDs together (``token_parts``): the same token alone is
drawn as what it holds alone (``id_form``). ``bpelab.commands.drawing``
draws with it.
"""

import bisect
import functools
from collections import namedtuple
from itertools import accumulate

from bpelab.checks import UNK
from bpelab.text import unicode_ranges

MARKS = {" ": "\N{OPEN BOX}", "\n": "\N{DOWNWARDS ARROW WITH CORNER LEFTWARDS}", "\t": "\N{RIGHTWARDS ARROW TO BAR}",
         "\r": "\N{SYMBOL FOR CARRIAGE RETURN}"}
"""How whitespace inside a token is drawn: ␣ a space, ↵ a line feed, ⇥ a tab, ␍ a carriage return."""

BOUNDARY = "\N{BOX DRAWINGS LIGHT VERTICAL}"
"""What ``show`` puts between tokens in plain output: │ reads as a wall, not as
text, and is almost never in prose (unlike | or ·); a real one in the text is
named, like the marks, so the two can never be mistaken for each other."""

OPEN, CLOSE = "\N{MATHEMATICAL LEFT ANGLE BRACKET}", "\N{MATHEMATICAL RIGHT ANGLE BRACKET}"
"""⟨ and ⟩: around a name, a code point or a byte, so that none can be read as text."""

OWN_MARKS = set(MARKS.values()) | {BOUNDARY, OPEN, CLOSE}
"""The form's own characters: where the text holds one, it is drawn by its code point."""

NAMES = {
    **dict(zip(range(0x20), "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK SYN "
                            "ETB CAN EM SUB ESC FS GS RS US".split())),
    0x7F: "DEL", 0x85: "NEL", 0xA0: "NBSP", 0xAD: "SHY", 0x34F: "CGJ", 0x61C: "ALM", 0x180E: "MVS", 0x200B: "ZWSP",
    0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM", 0x2028: "LSEP", 0x2029: "PSEP", 0x202A: "LRE",
    0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO", 0x202F: "NNBSP", 0x205F: "MMSP", 0x2060: "WJ",
    0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI", 0x3000: "IDSP", 0xFEFF: "BOM",
}
"""Short names of characters that show nothing: Unicode's abbreviations (NameAliases.txt) where it has one, and the
variation selectors' (``name_of``); a character without one is drawn by its code point."""

SHOWS_NOTHING = [(0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
                 (0xFFA0, 0xFFA0), (0xE0100, 0xE01EF), (0x034F, 0x034F)]
"""Characters Unicode calls printable that show nothing (fillers, variation selectors, the grapheme joiner), as
ranges; the others that show nothing are those of ``NOT_PRINTED``."""

NOT_PRINTED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp")
"""The general categories that print nothing of their own (controls, formats, unassigned, every space but U+0020):
Python's ``str.isprintable``, read from the pinned Unicode tables so that every Python version draws alike."""


@functools.lru_cache(maxsize=None)
def category_starts():
    """``(starts, categories)``: the code points where the general category changes, and each run's category."""
    items = unicode_ranges.CATEGORY_RUNS.split()
    return [int(code, 16) for code in items[0::2]], items[1::2]


def category(char):
    """The general category of ``char`` in the pinned Unicode version.

    >>> category("a"), category("\\u200d"), category("\\u0301")
    ('Ll', 'Cf', 'Mn')
    """
    starts, categories = category_starts()
    return categories[bisect.bisect_right(starts, ord(char)) - 1]


def shows_nothing(char):
    """Whether ``char`` prints nothing of its own (the plain space aside, which ``MARKS`` draws)."""
    code = ord(char)
    return char != " " and (category(char) in NOT_PRINTED or any(low <= code <= high for low, high in SHOWS_NOTHING))


def name_of(char):
    """A character's name for the form: its abbreviation, else its code point.

    >>> name_of("\\u200d"), name_of("\\ufe0f"), name_of("\\u2423")
    ('ZWJ', 'VS16', 'U+2423')
    """
    code = ord(char)
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # VS1 to VS16, then VS17 to VS256
        return f"VS{code - 0xFE00 + 1 if code < 0xE0100 else code - 0xE0100 + 17}"
    return NAMES.get(code, f"U+{code:04X}")


@functools.lru_cache(maxsize=65536)
def char_form(char):
    """One whole character as the form draws it: itself, a mark, or a name between ⟨⟩.

    >>> [char_form(char) for char in "a \\n\\u200d\\ufe0f\\u00a0\\u2423"]
    ['a', '␣', '↵', '⟨ZWJ⟩', '⟨VS16⟩', '⟨NBSP⟩', '⟨U+2423⟩']
    """
    if char in MARKS:
        return MARKS[char]
    if char in OWN_MARKS or shows_nothing(char):
        return f"{OPEN}{name_of(char)}{CLOSE}"
    return char


def visible(text):
    """A whole text drawn by the form, character by character."""
    return "".join(map(char_form, text))


def byte_form(data):
    """Bytes that spell no character of their own, in hexadecimal: ``⟨0xE0⟩⟨0xA4⟩``."""
    return "".join(f"{OPEN}0x{byte:02X}{CLOSE}" for byte in data)


def held_mark(held):
    """Which bytes of its character a part holds: ``[1-2/3]``, ``[3/3]``; nothing for a whole character."""
    if held is None:
        return ""
    first, last, size = held
    return f"[{first}/{size}]" if first == last else f"[{first}-{last}/{size}]"


class Part(namedtuple("Part", "text held unit")):
    """One piece of a token in the form: ``text`` is a character as ``char_form`` draws it (or bytes as
    ``byte_form`` draws them), ``held`` None for a whole character or ``(first, last, size)`` for the bytes it holds
    of one (counted from 1), ``unit`` the index of the character among those the IDs spell: the parts of one
    character in neighbouring tokens share it. ``str(part)`` is the text with the bytes held (``त[1-2/3]``)."""

    __slots__ = ()

    def __str__(self):
        return self.text + held_mark(self.held)


LEAD_SIZE = [1] * 0xC2 + [2] * (0xE0 - 0xC2) + [3] * (0xF0 - 0xE0) + [4] * (0xF5 - 0xF0) + [1] * (0x100 - 0xF5)
"""How many bytes a character starting with each byte takes (1 for a byte that starts none)."""


def units_of(data):
    """The characters ``data`` (UTF-8 bytes) spells, as ``(start, end, text, size)``.

    ``text`` is the character as ``char_form`` draws it, or None for bytes
    that are no whole character: each byte that starts none, or the start of
    a character cut short (``size`` is then the bytes the whole would take).
    """
    decoded = data.decode("utf-8", "surrogateescape")
    found, at = [], 0
    for char in decoded:
        if "\udc80" <= char <= "\udcff":  # a byte that is no whole character (see ``cut_short``)
            if found and found[-1][2] is None and found[-1][1] == at and cut_short(data, found[-1][0], at + 1):
                start, _, _, size = found.pop()
                found.append((start, at + 1, None, size))
            else:
                found.append((at, at + 1, None, LEAD_SIZE[data[at]] if cut_short(data, at, at + 1) else 1))
            at += 1
            continue
        size = 1 if char < "\x80" else 2 if char < "\u0800" else 3 if char < "\U00010000" else 4
        found.append((at, at + size, char_form(char), size))
        at += size
    return found


SECOND_BYTE = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}
"""The second bytes these leads allow (Unicode's table of well-formed UTF-8; others 0x80-0xBF): no overlong
form, no surrogate, nothing past U+10FFFF."""


def cut_short(data, start, end):
    """Whether ``data[start:end]`` begins a character without ending it: a lead byte, then fewer continuation bytes
    than it needs, each one it allows."""
    size = LEAD_SIZE[data[start]]
    if not 1 < size > end - start:
        return False
    low, high = SECOND_BYTE.get(data[start], (0x80, 0xBF))
    return all(low <= byte <= high if at == start + 1 else 0x80 <= byte <= 0xBF
               for at, byte in enumerate(data[start + 1:end], start + 1))


class Stream:
    """The bytes that IDs spell, read once as characters (``units_of``), to draw any stretch of them in the form."""

    def __init__(self, data):
        self.data, self.units = data, units_of(data)
        self.starts = [unit[0] for unit in self.units]

    def parts(self, start, end):
        """The parts (``Part``) of the bytes from ``start`` to ``end``: whole characters, and shares of cut ones."""
        data, units, found = self.data, self.units, []
        unit = bisect.bisect_right(self.starts, start) - 1
        while unit + 1 < len(units) and units[unit][1] <= start:
            unit += 1
        while 0 <= unit < len(units) and units[unit][0] < end:
            first, last, text, whole = units[unit]
            low, high = max(first, start), min(last, end)
            held = None if (low, high) == (first, last) and text is not None else (low - first + 1, high - first, whole)
            if text is None:  # bytes of no whole character: as hexadecimal, with their place in one cut short
                text, held = byte_form(data[low:high]), None if whole == 1 else held
            found.append(Part(text, held, unit))
            unit += 1
        return found

    def text(self, start, end):
        """The bytes from ``start`` to ``end`` in the readable form, as one string."""
        return "".join(map(str, self.parts(start, end)))


def stream_parts(data, sizes):
    """The parts (``Part``) of consecutive tokens of ``sizes`` bytes each that together are ``data``."""
    stream, found, start = Stream(data), [], 0
    for size in sizes:
        found.append(stream.parts(start, start + size))
        start += size
    return found


@functools.lru_cache(maxsize=8)
def described(tokenizer):
    """``tokenizer.describe()``, asked once per tokenizer (the kind of model it holds never changes)."""
    return tokenizer.describe()


def decodes_bytes(tokenizer):
    """Whether each token stands for bytes: at the byte level, and in an imported character-level model, whose byte
    tokens (``<0xE2>``) stand for one byte each and whose ``▁`` stands for a space (``Tokenizer.describe``)."""
    return described(tokenizer)["decodes_bytes"]


def token_parts(tokenizer, ids, text=None):
    """Each token of ``ids`` as its parts (``Part``), read together: a character cut between tokens is known.

    Where tokens stand for bytes, the parts are those of their bytes; at the
    character level, of their characters, an unknown one as the character of
    ``text`` it stands for (``text``: what the IDs encode), else ``<unk>``.

    >>> from bpe import Tokenizer
    >>> tok = Tokenizer(None, [], byte_level=True)
    >>> [[str(part) for part in parts] for parts in token_parts(tok, tok.encode("é!"))]
    [['é[1/2]'], ['é[2/2]'], ['!']]
    """
    ids = list(ids)
    if decodes_bytes(tokenizer):
        stream, starts = token_stream(tokenizer, ids)
        return [stream.parts(start, end) for start, end in zip(starts, starts[1:])]
    found, unit = [], 0
    for span in character_spans(tokenizer, ids, text):
        if span == UNK:
            found.append([Part(UNK, None, unit)])
            unit += 1
            continue
        found.append([Part(char_form(char), None, unit + offset) for offset, char in enumerate(span)])
        unit += len(span)
    return found


def character_spans(tokenizer, ids, text=None):
    """At the character level, the characters each token of ``ids`` stands for: ``<unk>`` for an unknown one, or
    where ``text`` (what the IDs encode) is given the stretch of it the token covers."""
    if text is not None:
        return token_spans(tokenizer, text, ids)
    unknown = described(tokenizer)["unknown_id"]
    return [UNK if token_id == unknown else tokenizer.decode([token_id]) for token_id in ids]


def token_stream(tokenizer, ids):
    """Where tokens stand for bytes: ``(Stream, starts)``, the bytes of ``ids`` read as characters and where each
    token starts in them (one more start: where the last ends)."""
    pieces = [tokenizer.decode_bytes([token_id]) for token_id in ids]  # (token_bytes would check each ID twice)
    return Stream(b"".join(pieces)), [0, *accumulate(map(len, pieces))]


def readable_texts(tokenizer, ids, text=None):
    """Each token of ``ids`` in the readable form, as one string (``token_parts``, each part with its bytes held).

    >>> from bpe import Tokenizer
    >>> tok = Tokenizer(None, [("Ġ", "c")], byte_level=True)
    >>> readable_texts(tok, tok.encode(" café\\u200d"))
    ['␣c', 'a', 'f', 'é[1/2]', 'é[2/2]', '⟨ZWJ⟩[1/3]', '⟨ZWJ⟩[2/3]', '⟨ZWJ⟩[3/3]']
    """
    ids = list(ids)
    if not decodes_bytes(tokenizer):  # (no character is cut: each is drawn as itself, with no parts to make)
        return [UNK if span == UNK else visible(span) for span in character_spans(tokenizer, ids, text)]
    return ["".join(map(str, parts)) for parts in token_parts(tokenizer, ids, text)]


def bytes_texts(pieces):
    """Pieces of bytes read together, each in the readable form: ``[b"\\xc3", b"\\xa9"]`` is ``é[1/2]``, ``é[2/2]``."""
    return ["".join(map(str, parts)) for parts in stream_parts(b"".join(pieces), list(map(len, pieces)))]


def id_form(tokenizer, token_id):
    """The token with this ID alone, in the readable form (what its bytes, or its text, hold by themselves)."""
    return readable_texts(tokenizer, [token_id])[0]


def display_width(text):
    """How many terminal columns ``text`` takes (``char_width`` of each character).

    >>> display_width("ab"), display_width("東京"), display_width("é"), display_width("e\u0301")
    (2, 4, 1, 1)
    """
    return len(text) if text.isascii() else sum(map(char_width, text))


def char_width(char):
    """The columns a character takes in a terminal: a wide one (East Asian Width W or F) two, a combining mark none,
    any other one, in the pinned Unicode tables."""
    if char < "\u0300":
        return 1
    return 0 if category(char) in ("Mn", "Me") else 2 if is_wide(char) else 1


@functools.lru_cache(maxsize=None)
def wide_ranges():
    """The wide characters as sorted ``(first, last)`` code points, read once from the tables."""
    return [(int(first, 16), int(last or first, 16))
            for first, _, last in (item.partition("-") for item in unicode_ranges.WIDE_RANGES.split())]


def is_wide(char):
    """Whether ``char`` takes two columns in a terminal (East Asian Width W or F)."""
    ranges = wide_ranges()
    at = bisect.bisect_right(ranges, (ord(char), 0x10FFFF)) - 1
    return at >= 0 and ranges[at][1] >= ord(char)


# -- the plain text of tokens, for programs: ``bpe.Tokenizer.token_texts`` --


def escape(char):
    """A character as a Python-style escape; a byte that is part of a cut character as ``\\xNN``.

    >>> escape("\\t"), escape("\\udcc3")
    ('\\\\t', '\\\\xc3')
    """
    if is_cut_byte(char):
        return f"\\x{ord(char) - 0xDC00:02x}"
    return char.encode("unicode_escape").decode("ascii")


def is_cut_byte(char):
    """Whether ``char`` stands for a lone byte, as ``bytes.decode(..., "surrogateescape")`` leaves one."""
    return "\udc80" <= char <= "\udcff"


def token_spans(tokenizer, text, ids):
    """The stretch of ``text`` each of its token IDs ``ids`` covers, so unknown characters appear as themselves.

    A token's length is the length of what it decodes to (an unknown
    character decodes to one U+FFFD). At the byte level lengths count bytes,
    and a byte of a character cut between tokens comes back as a lone
    surrogate (see ``is_cut_byte``).
    """
    if decodes_bytes(tokenizer):  # each token's own bytes: the text as encoded (normalized, with a prefix space...)
        return [tokenizer.token_bytes(i).decode("utf-8", "surrogateescape") for i in ids]
    return _split_at(text, [len(tokenizer.decode([i])) for i in ids])


def token_texts(tokenizer, text, ids):
    """Each token of ``text`` (its IDs ``ids``) as the text it covers, a cut character's bytes as ``\\xNN``.

    A real backslash is written ``\\\\``, so that it can never be taken for the
    start of such an escape.
    """
    return [plain_text(span) for span in token_spans(tokenizer, text, ids)]


def plain_text(span):
    """One token's span as ``token_texts`` gives it: each byte of a cut character ``\\xNN``, a backslash ``\\\\``.

    >>> print(plain_text("a\\\\b\\udcc3"))
    a\\\\b\\xc3
    """
    return "".join(escape(char) if is_cut_byte(char) or char == "\\" else char for char in span)


def _split_at(sequence, lengths):
    """Cut ``sequence`` into consecutive spans of the given lengths."""
    ends = list(accumulate(lengths))
    return [sequence[start:end] for start, end in zip([0] + ends, ends)]
