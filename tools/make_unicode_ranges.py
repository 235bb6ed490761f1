"""Write bpelab/unicode_ranges.py: the character classes that the chunk patterns are built from.

Regular-expression engines disagree on what ``\\s``, ``\\d``, ``\\w`` and
``\\p{L}`` mean, and each follows the Unicode tables of its own release: a
character that Unicode 15 made a letter is "other" for Python 3.11 (Unicode
14) and a letter for a newer library. To split text the same way everywhere,
bpe.py never uses those shorthands. It spells each class out as code-point
ranges taken from one named Unicode version, which this script writes into
``bpelab/unicode_ranges.py``:

- letters: general categories Lu, Ll, Lt, Lm, Lo (what ``\\p{L}`` means), and
  the groups GPT-4o's pattern tells apart: Lu+Lt, Ll, Lm+Lo;
- marks: Mn, Mc, Me (``\\p{M}``); numbers: Nd, Nl, No (``\\p{N}``);
- whitespace twice over: exactly the characters Python's ``\\s`` matches
  (``str.isspace``), the lab's and ``gpt2``'s definition; and Unicode's
  White_Space property, tiktoken's ``\\s``. ``unicodedata`` does not expose
  White_Space; it is ``str.isspace`` without U+001C..U+001F, four information
  separators that Python counts as whitespace for their bidirectional class;
- the letters that case-insensitive contractions (``(?i:'s)``) accept: every
  character whose case folding is one of ``s t d m l v r e`` (U+017F LONG S
  folds to ``s``).

Run it with the Python whose ``unicodedata`` has the pinned version (Python
3.11 has Unicode 14.0.0): ``python3 tools/make_unicode_ranges.py``; ``--check``
exits 1 if the module differs.
"""

import argparse
import os
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The project's folder, one above this script's, whatever the current folder."""
sys.path.insert(0, ROOT)

from bpelab.files import write_text_atomic  # noqa: E402 (the project's folder must be on the path first)

UNICODE_VERSION = "14.0.0"
MODULE_PATH = "bpelab/unicode_ranges.py"
MODULE_LOCATION = os.path.join(ROOT, MODULE_PATH)
RANGES_PER_LINE = 8
CONTRACTION_LETTERS = "delmrstv"
INFORMATION_SEPARATORS = {"\x1c", "\x1d", "\x1e", "\x1f"}

MODULE_DOCSTRING = '''"""Unicode character classes for the chunk patterns, generated; do not edit by hand.

Written by tools/make_unicode_ranges.py from Unicode {version} (``python3
tools/make_unicode_ranges.py`` rewrites it, ``--check`` compares). Each class is a
text of hexadecimal code points and ``first-last`` ranges; ``bpelab.patterns`` spells them
out in each regular-expression engine's own syntax, so Python, tiktoken and
Hugging Face cut text into the same chunks whatever Unicode version they know.
"""
'''

# Each class: its name in unicode_ranges.py, what it holds, and the general
# categories it takes (or "whitespace": Python's str.isspace, or Unicode's
# White_Space, which leaves out the four information separators).
CLASSES = [
    ("LETTER_RANGES", "letters: Lu Ll Lt Lm Lo", {"Lu", "Ll", "Lt", "Lm", "Lo"}),
    ("UPPER_RANGES", "upper- and title-case letters: Lu Lt", {"Lu", "Lt"}),
    ("LOWER_RANGES", "lower-case letters: Ll", {"Ll"}),
    ("OTHER_LETTER_RANGES", "letters without case: Lm Lo", {"Lm", "Lo"}),
    ("MARK_RANGES", "marks: Mn Mc Me", {"Mn", "Mc", "Me"}),
    ("NUMBER_RANGES", "numbers: Nd Nl No", {"Nd", "Nl", "No"}),
    ("SPACE_RANGES", "Python's whitespace, str.isspace (the lab's and gpt2's)", "whitespace"),
    ("WHITE_SPACE_RANGES", "Unicode's White_Space property (tiktoken's \\s)", "whitespace"),
]


def class_ranges():
    """Each class's code points as (first, last) ranges, found in one pass over every code point."""
    by_category = {}
    for name, _, categories in CLASSES:
        if categories != "whitespace":
            for category in categories:
                by_category.setdefault(category, []).append(name)
    ranges = {name: [] for name, _, _ in CLASSES}
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        names = by_category.get(unicodedata.category(char), [])
        if char.isspace():
            names = names + ["SPACE_RANGES"] + ([] if char in INFORMATION_SEPARATORS else ["WHITE_SPACE_RANGES"])
        for name in names:
            found = ranges[name]
            if found and found[-1][1] == code - 1:
                found[-1][1] = code
            else:
                found.append([code, code])
    return ranges


def format_ranges(name, comment, ranges):
    """A Python assignment holding ``ranges`` as hex text, a few per line."""
    items = [f"{first:04X}" if first == last else f"{first:04X}-{last:04X}" for first, last in ranges]
    lines = [" ".join(items[start:start + RANGES_PER_LINE]) for start in range(0, len(items), RANGES_PER_LINE)]
    body = "".join(f"    {line}\n" for line in lines)
    return f'\n# {comment}\n{name} = """\n{body}"""\n'


def case_variants():
    """Each contraction letter with every character that folds to it, as a Python assignment."""
    variants = {
        letter: "".join(chr(code) for code in range(sys.maxunicode + 1) if chr(code).casefold() == letter)
        for letter in CONTRACTION_LETTERS
    }
    lines = "".join(f"    {letter!r}: {shown!a},\n" for letter, shown in variants.items())
    return f"\n# The letters of contractions, each with every character whose case folding is it.\nCASE_VARIANTS = {{\n{lines}}}\n"


def generated_module():
    """The whole text of unicode_ranges.py."""
    parts = [MODULE_DOCSTRING.format(version=UNICODE_VERSION), f'\nUNICODE_VERSION = "{UNICODE_VERSION}"\n']
    ranges = class_ranges()
    parts += [format_ranges(name, comment, ranges[name]) for name, comment, _ in CLASSES]
    parts.append(case_variants())
    return "".join(parts)


def main(argv=None):
    """Rewrite or check unicode_ranges.py; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help=f"exit 1 if {MODULE_PATH} differs")
    args = parser.parse_args(argv)
    if unicodedata.unidata_version != UNICODE_VERSION:
        print(
            f"this Python has Unicode {unicodedata.unidata_version}; the classes are pinned to "
            f"{UNICODE_VERSION}: run this script with Python 3.11",
            file=sys.stderr,
        )
        return 1
    fresh = generated_module()
    if args.check:
        try:
            with open(MODULE_LOCATION, encoding="utf-8") as stream:
                current = stream.read()
        except OSError as error:
            current = None
            print(f"{MODULE_PATH}: cannot read it ({error.strerror})", file=sys.stderr)
        if current != fresh:
            print(f"{MODULE_PATH}: the generated character classes differ; run tools/make_unicode_ranges.py",
                  file=sys.stderr)
            return 1
        print(f"{MODULE_PATH}: character classes match Unicode {UNICODE_VERSION}")
        return 0
    write_text_atomic(MODULE_LOCATION, fresh)
    print(f"wrote the Unicode {UNICODE_VERSION} character classes to {MODULE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
