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
    """A file name for a message: as it is, unless it would break the line (a newline in it) or run very long.

    A name given in bytes the locale cannot decode reads as ``readable_name`` gives it.
    """
    name = os.fspath(path)
    if isinstance(name, str):
        name = readable_name(name)
    return name if isinstance(name, str) and name.isprintable() and len(name) <= 200 else shown(name)


def readable_name(name):
    """A file name as text that can go anywhere (HTML, JSON, SVG, a message): its bytes read as UTF-8, and a byte
    that is not UTF-8 (an old Latin-1 name) written ``\\xNN``.

    >>> readable_name("caf\\udcc3\\udca9.json"), readable_name("caf\\udce9.json"), readable_name("café.json")
    ('café.json', 'caf\\\\xe9.json', 'café.json')

    Python gives such a name (an argument, under ``LC_ALL=C``; a listed file)
    with each byte it could not decode as a lone surrogate, which no UTF-8
    output can hold.
    """
    try:
        data = os.fsencode(name)
    except UnicodeEncodeError:  # a lone surrogate that is no undecoded byte
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return data.decode("utf-8", "backslashreplace")
