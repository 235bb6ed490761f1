"""Write bpelab/text/unicode_ranges.py: the Unicode tables that chunk patterns and normalizers are built from.

Regular-expression engines disagree on what ``\\s``, ``\\d``, ``\\w`` and
``\\p{L}`` mean, and each follows the Unicode tables of its own release: a
character that Unicode 15 made a letter is "other" for Python 3.11 (Unicode
14) and a letter for a newer library. To split text the same way everywhere,
the lab never uses those shorthands. It spells each class out as code-point
ranges taken from one named Unicode version, which this script writes into
``bpelab/text/unicode_ranges.py``:

- the classes the built-in patterns are spelled with: letters (``\\p{L}``),
  GPT-4o's letter groups, marks, numbers;
- the general category of every code point, as the list of code points where
  it changes (``0 Cc 20 Zs 21 Po ...``: U+0000..U+001F are Cc, U+0020 is Zs,
  and so on up to U+10FFFF), for any ``\\p{..}`` a Hugging Face pattern asks
  for (``bpelab.text.chunk_regex``);
- whitespace twice over: exactly the characters Python's ``\\s`` matches
  (``str.isspace``), the lab's and ``gpt2``'s definition; and Unicode's
  White_Space property, tiktoken's and Oniguruma's ``\\s``. ``unicodedata`` does
  not expose White_Space; it is ``str.isspace`` without U+001C..U+001F, four
  information separators that Python counts as whitespace for their
  bidirectional class;
- for each ASCII letter, every character whose case folding is it (U+017F
  LONG S folds to ``s``), and the ASCII strings that are the case folding of
  one character (``ss`` of ``ß``): what a case-insensitive pattern matches;
- the code points Unicode 9.0.0 had not assigned. Hugging Face's normalizers
  (NFC, NFKC, ...) use Unicode 9.0.0 tables, and treat a later character as
  one without decomposition or combining class; ``bpelab.imported.pipeline`` cuts text
  at such characters so that ``unicodedata`` of any newer Python normalizes
  exactly as they do. Only Python 3.6 knows Unicode 9.0.0, so that table comes
  from a Python 3.6 run (``--unicode9-python``, found under pyenv by default).

Run it with the Python whose ``unicodedata`` has the pinned version (Python
3.11 has Unicode 14.0.0): ``python3 tools/make_unicode_ranges.py``; ``--check``
exits 1 if the module differs.
"""

import argparse
import glob
import itertools
import json
import operator
import os
import shutil
import subprocess
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The project's folder, one above this script's, whatever the current folder."""
sys.path.insert(0, ROOT)

from bpelab.writing import write_text_atomic  # noqa: E402 (the project's folder must be on the path first)

UNICODE_VERSION = "14.0.0"
NORMALIZATION_VERSION = "9.0.0"
MODULE_PATH = "bpelab/text/unicode_ranges.py"
MODULE_LOCATION = os.path.join(ROOT, MODULE_PATH)
RUNS_PER_LINE = 12
RANGES_PER_LINE = 8
INFORMATION_SEPARATORS = {"\x1c", "\x1d", "\x1e", "\x1f"}

TEMPLATE = '''"""Unicode tables for the chunk patterns and the normalizers, generated; do not edit by hand.

Written by tools/make_unicode_ranges.py from Unicode {version} (``python3
tools/make_unicode_ranges.py`` rewrites it, ``--check`` compares). A class is
a text of hexadecimal code points and ``first-last`` ranges; ``bpelab.text.patterns``
and ``bpelab.text.chunk_regex`` spell them out in each regular-expression engine's
own syntax, so Python, tiktoken and Hugging Face cut text into the same chunks
whatever Unicode version they know. ``CATEGORY_RUNS`` holds every general
category, for any ``\\\\p{{...}}`` a Hugging Face pattern asks for.
"""

UNICODE_VERSION = "{version}"

CATEGORIES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
              "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn")

# The general category of every code point: "start category" where it changes, each lasting to the next.
CATEGORY_RUNS = """
{runs}"""
{classes}
# Each ASCII letter with every character whose case folding is it.
ASCII_CASE_VARIANTS = {{
{variants}}}

# ASCII strings that are the full case folding of a single character.
ASCII_MULTI_CHAR_FOLDS = {folds!r}

CASE_VARIANTS = {{letter: ASCII_CASE_VARIANTS[letter] for letter in "delmrstv"}}
"""The letters of contractions (GPT-4's and GPT-4o's patterns accept them in any case)."""

# The code points Unicode {normalization_version} had not assigned (Hugging Face's normalization tables).
NORMALIZATION_UNASSIGNED_RANGES = """
{unassigned}"""
'''

CLASSES = [
    ("LETTER_RANGES", "letters: Lu Ll Lt Lm Lo", ("Lu", "Ll", "Lt", "Lm", "Lo")),
    ("UPPER_RANGES", "upper- and title-case letters: Lu Lt", ("Lu", "Lt")),
    ("LOWER_RANGES", "lower-case letters: Ll", ("Ll",)),
    ("OTHER_LETTER_RANGES", "letters without case: Lm Lo", ("Lm", "Lo")),
    ("MARK_RANGES", "marks: Mn Mc Me", ("Mn", "Mc", "Me")),
    ("NUMBER_RANGES", "numbers: Nd Nl No", ("Nd", "Nl", "No")),
    ("DIGIT_RANGES", "decimal digits: Nd (Oniguruma's \\d)", ("Nd",)),
    ("SPACE_RANGES", "Python's whitespace, str.isspace (the lab's and gpt2's)", str.isspace),
    ("WHITE_SPACE_RANGES", "Unicode's White_Space property (tiktoken's and Oniguruma's \\s)",
     lambda char: char.isspace() and char not in INFORMATION_SEPARATORS),
    ("WIDE_RANGES", "assigned characters two columns wide in a terminal: East Asian Width W or F (the readable "
     "form's widths)", lambda char: unicodedata.east_asian_width(char) in "WF" and unicodedata.category(char) != "Cn"),
]
"""The classes the built-in patterns are spelled with: name, comment, and the categories or the test of a character."""


UNASSIGNED_CODE = """
import json, unicodedata
ranges = []
for code in range(0x110000):
    if unicodedata.category(chr(code)) == "Cn":
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
print(json.dumps([unicodedata.unidata_version, ranges]))
"""
"""What the Unicode 9.0.0 Python runs: the code points it has not assigned, as ranges."""


def lines_of(items, per_line):
    """Items joined a few to a line, each line indented and ended."""
    return "".join("    " + " ".join(items[at:at + per_line]) + "\n" for at in range(0, len(items), per_line))


def ranges_body(ranges):
    """The body of a class text: ``0041-005A 00AA ...``, ``RANGES_PER_LINE`` a line."""
    return lines_of([f"{a:04X}" if a == b else f"{a:04X}-{b:04X}" for a, b in ranges], RANGES_PER_LINE)


CHARACTERS = list(map(chr, range(sys.maxunicode + 1)))
"""Every code point as a one-character string. Each table below is read off it with ``map`` and
``itertools.compress``, which loop in C: a Python loop over 1.1 million code points per table took seconds."""


def runs_of(values):
    """(start, value) wherever ``values`` (one per code point) changes, from U+0000 on."""
    changes = itertools.compress(range(1, len(values)), map(operator.ne, values[1:], values))
    return [(start, values[start]) for start in itertools.chain([0], changes)]


def code_ranges(predicate):
    """[first, last] ranges of the code points for which ``predicate(char)`` holds."""
    ranges = []
    for code in itertools.compress(range(len(CHARACTERS)), map(predicate, CHARACTERS)):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return ranges


def category_ranges(runs, wanted):
    """[first, last] ranges of the code points whose category is in ``wanted``, from the category runs."""
    ranges = []
    for (start, category), (end, _) in zip(runs, runs[1:] + [(len(CHARACTERS), None)]):
        if category in wanted:
            if ranges and ranges[-1][1] == start - 1:
                ranges[-1][1] = end - 1
            else:
                ranges.append([start, end - 1])
    return ranges


def category_runs(runs):
    """The runs as ``start category`` texts, ``RUNS_PER_LINE`` a line."""
    return lines_of([f"{start:X} {category}" for start, category in runs], RUNS_PER_LINE)


def case_tables():
    """The ASCII letters' case variants (as a dict's lines) and the ASCII multi-character folds.

    Only characters whose case folding is ASCII matter to either table, so the others are left out first.
    """
    folded = list(map(str.casefold, CHARACTERS))
    ascii_folds = list(itertools.compress(zip(folded, CHARACTERS), map(str.isascii, folded)))
    folds = {}
    for fold, char in ascii_folds:
        folds.setdefault(fold, []).append(char)
    variants = "".join(f"    {letter!r}: {''.join(folds[letter])!a},\n" for letter in "abcdefghijklmnopqrstuvwxyz")
    multi = tuple(sorted(fold for fold in folds if len(fold) > 1))
    return variants, multi


def unicode9_python(given):
    """The path of a Python whose ``unicodedata`` is Unicode 9.0.0 (Python 3.6): ``given``, else found."""
    if given:
        return given
    pyenv = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.6*/bin/python3")))
    found = pyenv[-1] if pyenv else shutil.which("python3.6")  # (pyenv's shims exist for versions not active)
    if found is None:
        raise SystemExit("no Python 3.6 found (its unicodedata is Unicode 9.0.0): give one with --unicode9-python")
    return found


def unassigned_ranges(run):
    """The code points Unicode 9.0.0 had not assigned, from ``run``, a started Python 3.6 (``UNASSIGNED_CODE``)."""
    stdout, _ = run.communicate()
    if run.returncode != 0:
        raise SystemExit(f"{run.args[0]} failed (exit status {run.returncode}) listing Unicode 9.0.0's unassigned")
    version, ranges = json.loads(stdout)
    if version != NORMALIZATION_VERSION:
        raise SystemExit(f"{run.args[0]} has Unicode {version}, not {NORMALIZATION_VERSION}: give Python 3.6")
    return ranges


def classes_text(runs):
    """The assignments of ``CLASSES``, each a comment and a class text."""
    parts = []
    for name, comment, test in CLASSES:
        ranges = code_ranges(test) if callable(test) else category_ranges(runs, test)
        parts.append(f'\n# {comment}\n{name} = """\n{ranges_body(ranges)}"""\n')
    return "".join(parts)


def generated_module(python):
    """The whole text of unicode_ranges.py."""
    # Python 3.6 lists its unassigned code points meanwhile, in a process of its own.
    unassigned = subprocess.Popen([python, "-c", UNASSIGNED_CODE], stdout=subprocess.PIPE, text=True)
    runs = runs_of(list(map(unicodedata.category, CHARACTERS)))
    variants, multi = case_tables()
    return TEMPLATE.format(
        version=UNICODE_VERSION, normalization_version=NORMALIZATION_VERSION, runs=category_runs(runs),
        classes=classes_text(runs), variants=variants, folds=multi,
        unassigned=ranges_body(unassigned_ranges(unassigned)))


def main(argv=None):
    """Rewrite or check unicode_ranges.py; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help=f"exit 1 if {MODULE_PATH} differs")
    parser.add_argument("--unicode9-python", metavar="PATH",
                        help="a Python with Unicode 9.0.0 (3.6); by default python3.6, or pyenv's")
    args = parser.parse_args(argv)
    if unicodedata.unidata_version != UNICODE_VERSION:
        print(f"this Python has Unicode {unicodedata.unidata_version}; the tables are pinned to "
              f"{UNICODE_VERSION}: run this script with Python 3.11", file=sys.stderr)
        return 1
    fresh = generated_module(unicode9_python(args.unicode9_python))
    if args.check:
        try:
            with open(MODULE_LOCATION, encoding="utf-8") as stream:
                current = stream.read()
        except OSError as error:
            current = None
            print(f"{MODULE_PATH}: cannot read it ({error.strerror})", file=sys.stderr)
        if current != fresh:
            print(f"{MODULE_PATH}: the generated tables differ; run tools/make_unicode_ranges.py", file=sys.stderr)
            return 1
        print(f"{MODULE_PATH}: tables match Unicode {UNICODE_VERSION} (and {NORMALIZATION_VERSION}'s unassigned)")
        return 0
    write_text_atomic(MODULE_LOCATION, fresh)
    print(f"wrote the Unicode {UNICODE_VERSION} tables to {MODULE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
