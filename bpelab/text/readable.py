"""Readable tokens: each token as the text it stands for, and whitespace and invisible characters made visible.

At the byte level a token is bytes, and ``bpe.Tokenizer.tokens`` gives
GPT-2's display strings, so Hebrew comes out as ``×©×ľ×ķ×Ŀ``. Here a token
is shown as the text it stands for, and the bytes of a character cut between
tokens, which are no text on their own, are written as ``\\xNN``: the one
escape convention of the lab. ``token_texts`` (``bpe.Tokenizer.token_texts``)
gives those pieces as plain strings; ``visible`` also draws whitespace as
marks and escapes anything invisible, as the command line's ``show``,
``explain`` and ``inspect`` and the pages draw tokens
(``bpelab.commands.drawing``).
"""

from itertools import accumulate


MARKS = {" ": "\N{OPEN BOX}", "\n": "\N{DOWNWARDS ARROW WITH CORNER LEFTWARDS}", "\t": "\N{RIGHTWARDS ARROW TO BAR}"}
"""How whitespace inside a token is drawn: ␣ for a space, ↵ for a newline, ⇥ for a tab."""

BOUNDARY = "\N{BOX DRAWINGS LIGHT VERTICAL}"
"""What ``show`` puts between tokens in plain output: │ reads as a wall, not as
text, and is almost never in prose (unlike | or ·); a real one in the text is
escaped, like the marks, so the two can never be mistaken for each other."""

ESCAPED = set(MARKS.values()) | {BOUNDARY, "\\"}
"""Characters that ``visible`` writes as escapes because they would be mistaken
for a mark, a boundary or an escape."""


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


def visible_char(char):
    """One character as ``visible`` draws it."""
    if char in MARKS:
        return MARKS[char]
    if char in ESCAPED or not char.isprintable():
        return escape(char)
    return char


def visible(text):
    """``text`` with whitespace drawn as marks and every invisible or ambiguous character escaped."""
    return "".join(map(visible_char, text))


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
    start of such an escape (as ``show`` writes both).
    """
    return ["".join(escape(char) if is_cut_byte(char) or char == "\\" else char for char in span)
            for span in token_spans(tokenizer, text, ids)]


def _split_at(sequence, lengths):
    """Cut ``sequence`` into consecutive spans of the given lengths."""
    ends = list(accumulate(lengths))
    return [sequence[start:end] for start, end in zip([0] + ends, ends)]


def decodes_bytes(tokenizer):
    """Whether each token stands for bytes: at the byte level, and in an imported character-level model, whose byte
    tokens (``<0xE2>``) stand for one byte each and whose ``▁`` stands for a space (``Tokenizer.describe``)."""
    return tokenizer.describe()["decodes_bytes"]


def token_text(tokenizer, token):
    """A vocabulary entry drawn by ``visible``: where tokens stand for bytes, the text of its bytes, not its GPT-2
    form nor its ``▁`` (a special token, or any token that is not an ordinary one, is its own text)."""
    if token in tokenizer.ids and decodes_bytes(tokenizer):
        return id_text(tokenizer, tokenizer.ids[token])
    return visible(token)


def id_text(tokenizer, token_id):
    """The token with this ID, drawn by ``visible``: the text it decodes to where tokens stand for bytes."""
    if decodes_bytes(tokenizer):
        return visible(tokenizer.token_bytes(token_id).decode("utf-8", "surrogateescape"))
    return visible(tokenizer.vocab[token_id])
