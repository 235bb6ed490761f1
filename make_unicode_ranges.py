"""Regenerate the character classes that bpe.py's chunk patterns are built from.

Regular-expression engines disagree on what ``\\s``, ``\\d``, ``\\w`` and
``\\p{L}`` mean, and each follows the Unicode tables of its own release: a
character that Unicode 15 made a letter is "other" for Python 3.11 (Unicode
14) and a letter for a newer library. To split text the same way everywhere,
bpe.py never uses those shorthands. It spells each class out as code-point
ranges taken from one named Unicode version, written by this script into the
block between the BEGIN/END markers at the end of bpe.py:

- letters: general categories Lu, Ll, Lt, Lm, Lo (what ``\\p{L}`` means);
- numbers: general categories Nd, Nl, No (what ``\\p{N}`` means);
- whitespace: exactly the characters Python's ``\\s`` matches (``str.isspace``),
  the lab pattern's definition.

Run it with the Python whose ``unicodedata`` has the pinned version (Python
3.11 has Unicode 14.0.0); ``--check`` exits 1 if bpe.py's block differs.
"""

import argparse
import sys
import unicodedata

from bpe import write_text_atomic

UNICODE_VERSION = "14.0.0"
MODULE_PATH = "bpe.py"
BEGIN = "# BEGIN GENERATED CHARACTER CLASSES"
END = "# END GENERATED CHARACTER CLASSES"
RANGES_PER_LINE = 8


def ranges_where(is_member):
    """The code points for which ``is_member`` holds, as (first, last) ranges."""
    ranges = []
    for code in range(sys.maxunicode + 1):
        if not is_member(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return ranges


def format_ranges(name, ranges):
    """A Python assignment holding ``ranges`` as hex text, a few per line."""
    items = [f"{first:04X}" if first == last else f"{first:04X}-{last:04X}" for first, last in ranges]
    lines = [" ".join(items[start:start + RANGES_PER_LINE]) for start in range(0, len(items), RANGES_PER_LINE)]
    body = "".join(f"    {line}\n" for line in lines)
    return f'{name} = """\n{body}"""\n'


def generated_block():
    """The text between (and including) the markers."""
    letters = ranges_where(lambda char: unicodedata.category(char) in {"Lu", "Ll", "Lt", "Lm", "Lo"})
    numbers = ranges_where(lambda char: unicodedata.category(char) in {"Nd", "Nl", "No"})
    spaces = ranges_where(str.isspace)
    return (
        f"{BEGIN} (make_unicode_ranges.py; do not edit by hand)\n"
        f'UNICODE_VERSION = "{UNICODE_VERSION}"\n'
        + format_ranges("LETTER_RANGES", letters)
        + format_ranges("NUMBER_RANGES", numbers)
        + format_ranges("SPACE_RANGES", spaces)
        + f"{END}\n"
    )


def with_new_block(module_text):
    """``module_text`` with its generated block replaced by a fresh one."""
    start = module_text.index(BEGIN)
    end = module_text.index(END) + len(END) + 1
    return module_text[:start] + generated_block() + module_text[end:]


def main(argv=None):
    """Rewrite or check bpe.py's generated block; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help=f"exit 1 if {MODULE_PATH}'s block differs")
    args = parser.parse_args(argv)
    if unicodedata.unidata_version != UNICODE_VERSION:
        print(
            f"this Python has Unicode {unicodedata.unidata_version}; the classes are pinned to "
            f"{UNICODE_VERSION}: run this script with Python 3.11",
            file=sys.stderr,
        )
        return 1
    with open(MODULE_PATH, encoding="utf-8") as stream:
        current = stream.read()
    fresh = with_new_block(current)
    if args.check:
        if fresh != current:
            print(f"{MODULE_PATH}: the generated character classes differ; run make_unicode_ranges.py",
                  file=sys.stderr)
            return 1
        print(f"{MODULE_PATH}: character classes match Unicode {UNICODE_VERSION}")
        return 0
    write_text_atomic(MODULE_PATH, fresh)
    print(f"wrote the Unicode {UNICODE_VERSION} character classes into {MODULE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
