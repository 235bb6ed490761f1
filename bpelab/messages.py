"""Messages: how errors quote the values and files they are about.

Every refusal in the lab says what was wrong, with which value, and what
would be right. A value may be huge (a million-character text, an integer of
a million digits) or hold a newline (a file name), so messages quote values
through ``shown`` and file names through ``named``, which keep every message
one short line, from ``bpe.Tokenizer``'s checks to the command line's.
"""

import os


def shown(value, limit=60):
    """``repr(value)``, shortened in the middle when long, for error messages."""
    try:
        text = repr(value)
    except ValueError:  # it is, or holds, an int too long for Python to write out (over 4,300 digits)
        if isinstance(value, int):
            return f"an integer of {value.bit_length():,} bits"
        return f"a {type(value).__name__} holding an integer too long to write out"
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]}...{text[-(limit // 2):]} ({len(text):,} characters)"


def listed(values, joiner=", ", most=5):
    """The first few of ``values`` for a message, each shortened, then "..." if there are more.

    >>> listed(["<a>", "<b>"]), listed(range(9), " + ")
    ("'<a>', '<b>'", '0 + 1 + 2 + 3 + 4 + ...')
    """
    values = list(values)
    return joiner.join(map(shown, values[:most])) + (joiner + "..." if len(values) > most else "")


def named(path):
    """A file name for a message: as it is, unless it would break the line (a newline in it) or run very long."""
    name = os.fspath(path)
    return name if isinstance(name, str) and name.isprintable() and len(name) <= 200 else shown(name)
