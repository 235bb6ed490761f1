"""The training widget: one web page where a reader runs BPE a merge at a time.

The tutorial's first lesson trains on a short review and asks the reader to
press "Next merge" and watch. This module writes that page: a text box, the
buttons "Next merge", "Back" and "Reset", a switch between characters and
UTF-8 bytes, a choice of tie rule, and the figures that change as merges are
made: k (merges made), |V| (vocabulary size), L (tokens in the text), the
distinct words with their current split, the most frequent pairs, the merges
so far, and a new sentence split with those merges.

``page(text, test)`` returns one self-contained HTML document: its style and
script (``pages/widget.html``, ``widget.css`` and ``widget.js``, kept to
ASCII with HTML entities and JavaScript ``\\u`` escapes, so the file reads
the same in any encoding) are inline and it loads nothing, so it opens from
disk in any browser and works offline. ``python3 bpe.py widget`` writes it
to a file.

The script is part of the lesson and is written to be read. It is the simple
algorithm of bpe.py's section 1, not the fast engine: count the pairs over the
distinct words (each weighted by how often it occurs), take the best, merge
it everywhere, repeat. It cuts words with GPT-2's rule as the ``gpt2``
pattern does (``bpelab.text.patterns``), so the page and ``bpe.Tokenizer.train(text,
size, pattern="gpt2", ties=..., min_count=...)`` learn the same merges with the same
counts (tests/commands/test_widget.py checks this on random texts). The page's limits:

- Texts longer than ``MAX_CHARS`` characters are refused with a message:
  "Back" and every change of text or settings retrain from the start, and
  that must stay quick in a phone's browser.
- Letters and numbers come from the browser's Unicode tables, which may know
  characters newer than the Unicode 14 that bpe.py pins; for such characters
  the page may cut words differently.
- Browsers turn the line breaks ``\\r\\n`` and ``\\r`` in a text box into ``\\n``,
  so a text given to the page with carriage returns trains as if it had
  plain line breaks.
- At the byte level |V| counts only the bytes the text uses, as the tutorial
  does; bpe.py's byte-level vocabulary always holds all 256.

For tests, the page exposes ``window.bpeWidget.state()`` (what is on screen)
and ``window.bpeWidget.train(text, {bytes, ties, minCount, merges})`` (training without
touching the page).
"""

import json

from bpelab.commands.drawing import DEFAULT_TEXT
from bpelab.commands.page_files import inline_page
from bpelab.merges.engine import TIE_RULES
from bpelab.text import readable


DEFAULT_TEST = "the maker baked cakes"
"""The tutorial's new sentence: it shares pieces with the review, and has two letters the review lacks."""

MAX_CHARS = 2000
"""The longest text (in characters) the page trains on, and the longest test sentence it splits."""

START_MARKER = "/*START*/null"
"""Where the page's script (``pages/widget.js``) receives the text, the test sentence and the limit."""


def page(text=DEFAULT_TEXT, test=DEFAULT_TEST):
    """The widget as one HTML document (a str), starting from ``text`` and the test sentence ``test``.

    Any text of at most ``MAX_CHARS`` characters is safe to pass: it
    reaches the page only inside the script, as a JavaScript string literal
    (see ``script_literal``).
    """
    for name, value in (("text", text), ("test", test)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
        if len(value) > MAX_CHARS:  # the page would refuse to start from it
            raise ValueError(f"{name} has {len(value):,} characters; the page takes at most {MAX_CHARS:,}")
    start = script_literal({"text": text, "test": test, "maxChars": MAX_CHARS, "tieRules": TIE_RULES,
                            "names": readable.NAMES, "showsNothing": readable.SHOWS_NOTHING})
    return inline_page("widget").html.replace(START_MARKER, start, 1)


def script_literal(value):
    """``value`` as a JavaScript literal that cannot end or confuse the ``<script>`` element around it.

    JSON is a JavaScript literal. ``ensure_ascii`` writes every non-ASCII
    character as a ``\\u`` escape: the page stays plain ASCII whatever
    encoding the file is saved in, and U+2028 and U+2029, which older
    JavaScript reads as line breaks, are escaped too. The characters ``<``,
    ``>`` and ``&`` can only occur inside strings, where their escapes mean
    the same, and without them the HTML parser never sees ``</script>`` or
    ``<!--`` in the text.

    >>> script_literal({"text": "</script>"})
    '{"text": "\\\\u003c/script\\\\u003e"}'
    """
    literal = json.dumps(value, ensure_ascii=True)
    return literal.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
