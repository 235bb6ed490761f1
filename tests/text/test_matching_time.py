"""Bounded matching time: a chunk regex is read only if Python's ``re`` finds all its matches in quadratic time.

No client is needed. A generated family of hostile patterns (repeats side
by side that overlap, unrolled alternatives, nested repeats, repeats of
optional parts, look-aheads and atomic groups that hide them, a possessive
repeat that does not cut enough) is refused by name with the position of
the part that makes it slow, before any text is cut: no test runs one on
text, so none can hang. The real patterns are read: the lab's built-in ones
(spelled for Oniguruma: the same automaton as their Python spelling, whose
classes are only split at U+FFFF; a ``.tiktoken`` file's pattern is one of
them), every split regex of the model files (``tests/clients.py``), and
patterns that look ambiguous but are not to ``re``. A ``tokenizer.json``
with a hostile regex is refused at load. Loading a regex of many
characters above U+FFFF takes work in proportion to its length.
"""

import itertools
import json
import os
import sys
import unittest

from bpe import Tokenizer
from bpelab.text.chunk_regex import ChunkRegex
from bpelab.text.matching_time import check_matching_time
from bpelab.text.oniguruma import Parser
from bpelab.imported.pipeline import GPT2_REGEX
from bpelab.text.patterns import PATTERNS, pattern_source
from tests import ROOT
from tests.clients import MODEL_NAMES, model_file, require_models
from tests.text.test_chunk_regex import MODEL_REGEXES, UNREAD_BUILT_IN

SLOW = "of the pattern: Python's re could take time growing as "
"""What every refusal for matching time says."""

OVERLAPPING = [("\\s", "\\s"), ("\\s", " "), ("\\p{L}", "\\p{Ll}"), ("[ab]", "a"), ("\\d", "\\p{N}"), ("[^x]", "a"),
               ("\\S", "\\p{P}"), ("(?i:a)", "a")]
"""Pairs of classes that share characters, and the text that makes a try of them fail after them."""


def side_by_side():
    """Repeats that overlap, two to four side by side (or with an optional part between), before a part that fails:
    (pattern, position of the second repeat, of the first, power of n)."""
    quantifiers = ["*", "+", "{1,}", "{2,}"]
    found = []
    for number, ((first, second), count, between, tail) in enumerate(
            itertools.product(OVERLAPPING, (2, 3, 4), ("", ",?"), ("x", "\\z", "$"))):
        one, other = quantifiers[number % 4], quantifiers[number // 4 % 4]
        head = first + one + between
        found.append((head + (second + other + between) * (count - 1) + tail, len(head), 0, count + 1))
    return found


def unrolled():
    """An ambiguous group written out up to 14 times (or with a count), then a part that fails."""
    groups = [("(?:a?a?)", 4), ("(?:a|aa)", 6), ("(?:\\s?\\s?)", 4), ("(?:a|ab?)", 4)]  # (group, fewest refused)
    return [(group * count if written else f"{group}{{{count}}}") + "z"
            for group, fewest in groups for count in range(fewest, 15) for written in (True, False)]


def nested():
    """A repeat of a part that can match the same text in several ways, then a part that fails: (pattern, position)."""
    inner = ["a*", "a+", "(?:a|b)*", "\\s*", "a{1,3}", "(?:ab?)+", "a|aa", "a|a?", "\\s|\\p{Zs}\\p{Zs}?", "a|ab|b",
             "a+b?"]
    outer = ["*", "+", "{2,}", "{1,}"]
    found = []
    for number, (part, quantifier) in enumerate(itertools.product(inner, outer)):
        group, tail = "(" if number % 2 else "(?:", "c" if number % 3 else "\\z"
        found.append((f"{group}{part}){quantifier}{tail}", 0))
    return found


def optional_rounds():
    """A repeat whose rounds are made of optional parts, so a text splits into rounds in many ways: (pattern, 0)."""
    bodies = ["a?b?", "\\s?\\s?", "a?a?", "(?:a)?(?:a)?", "\\s?,?\\s?", "a?(?:b|a)?"]
    return [(f"(?:{body}){quantifier}x", 0) for body in bodies for quantifier in ("*", "+", "{1,}", "{3,}")]


def hidden():
    """Look-aheads and atomic groups that hide slow repeats: (pattern, position of the part named)."""
    bodies = [("(a*)*b", 0), ("(a|aa)+c", 0), ("\\s*\\s*x", 3), ("a*a*b", 2), ("(?:a?b?)*c", 0)]
    found = []
    for (body, at), head in itertools.product(bodies, ("(?=", "(?!", "(?>")):
        found.append((f"{head}{body})a", len(head) + at))
    found += [("(?:a(?=[ab]*c))*d", 4), ("(?:\\s(?=\\s*x))*y", 5), ("(?:a(?![ab]*c))*d", 4), ("a*(?=[ab]*c)d", 2),
              ("(?:x(?>a[abx]*c|a))*y", 4), ("(?=(?:a(?:[ab]*c)?)*)a", 10)]
    return found


def other_hostile():
    """More: counted repeats, a possessive repeat that does not cut all, the issue's two measured patterns."""
    return ["(?:a{1,3}){2,}b", "\\s{2,}\\s{2,}x", "(\\s{1,3})+x", "(?:\\s++|\\s)*x", "(?:\\p{L}|\\p{Ll}\\p{M}?)+x",
            "\\s*\\s*\\s*\\s*x", "(?:a?a?)" * 12 + "z", "(?:\\s*,)*\\s*\\s*x", "[ab]*(?:a|b)*c", "(?:a|b|ab)*c"]


def hostile_family():
    """Every hostile pattern the tests generate."""
    return ([pattern for pattern, *_ in side_by_side()] + unrolled() + [pattern for pattern, _ in nested()]
            + [pattern for pattern, _ in optional_rounds()] + [pattern for pattern, _ in hidden()] + other_hostile())


LOOKALIKES = [
    "(a|ab)+c",  # never two ways: an "a" before "b" can only start "ab" or stand alone, and the other fails at once
    "(a?)*b",  # re never starts a round after one that took nothing
    "(?>(a|aa)+)c", "(?>a*a*)b",  # re never backtracks into an atomic group
    "\\s++\\s*\\s*x", "a*+a*b",  # nor gives back what a possessive repeat took
    "a{1,3}a*x",  # at most three ways
    "\\s*[\\r\\n]+", "\\s+(?!\\S)|\\s+",  # the real files' whitespace: once a line break is read, the match is sure
    "(?:a|b?)+c", "(?:ab)*(?:ab)?c",
    "(?:\\s|\\p{Zs})*c", "(a|a)+c",  # alternatives of one character each are one class, for re too
    "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,2}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
]
"""Patterns that look ambiguous but on which re takes at most quadratic time (the last: nanochat's)."""


def checked(source):
    """Run the rule on a pattern (``ValueError`` if it refuses it)."""
    parser = Parser(source)
    check_matching_time(parser.parse(), parser.positions)


def file_regexes(path):
    """The split regexes of a tokenizer.json, read from its head (its pre-tokenizer comes before its large model)."""
    size = 1 << 20
    while True:
        with open(path, "rb") as stream:
            head = stream.read(size).decode("utf-8", "ignore")
        try:
            value = head.index(":", head.index('"pre_tokenizer"')) + 1
            step, _ = json.JSONDecoder().raw_decode(head, value + len(head[value:]) - len(head[value:].lstrip()))
            break
        except ValueError:  # not yet in the head read: read more
            if size > os.path.getsize(path):
                raise
            size *= 2
    found = []

    def walk(step):
        if isinstance(step, dict):
            if step.get("type") == "Split" and "Regex" in step["pattern"]:
                found.append(step["pattern"]["Regex"])
            if step.get("type") == "ByteLevel" and step.get("use_regex", True):
                found.append(GPT2_REGEX)
            for value in step.values():
                walk(value)
        elif isinstance(step, list):
            for value in step:
                walk(value)

    walk(step)
    return found


class HostileTests(unittest.TestCase):
    """Each hostile pattern is refused, naming its slow part where it starts."""

    def assert_slow(self, pattern, position=None, growth=None):
        """The one-line refusal of ``pattern``, checked to say the position and growth given."""
        with self.assertRaises(ValueError, msg=pattern) as caught:
            checked(pattern)
        message = str(caught.exception)
        self.assertIn(SLOW, message, pattern)
        self.assertNotIn("\n", message)
        if position is not None:
            self.assertIn(f"at position {position} {SLOW}", message, pattern)
        if growth is not None:
            self.assertIn(f"{SLOW}{growth} ", message, pattern)
        return message

    def test_repeats_side_by_side_that_overlap(self):
        for pattern, second, first, power in side_by_side():
            message = self.assert_slow(pattern, second, f"n^{power}")
            self.assertIn(f"the same text as the repeat at position {first} before it", message)

    def test_unrolled_alternatives(self):
        for pattern in unrolled():
            self.assertIn("in more ways than the pattern's", self.assert_slow(pattern))

    def test_nested_repeats(self):
        for pattern, position in nested():
            self.assert_slow(pattern, position, "2^n")

    def test_repeats_of_optional_parts(self):
        for pattern, position in optional_rounds():
            self.assert_slow(pattern, position, "2^n")

    def test_look_aheads_and_atomic_groups_that_hide_them(self):
        for pattern, position in hidden():
            self.assert_slow(pattern, position)

    def test_more_and_the_issues_own(self):
        for pattern in other_hostile():
            self.assert_slow(pattern)
        self.assert_slow("\\s*\\s*\\s*\\s*x", 3, "n^5")  # 35 s on 200 spaces before the rule

    def test_the_family_is_large(self):
        self.assertGreaterEqual(len(set(hostile_family())), 300)

    def test_a_file_with_one_is_refused_at_load(self):
        with open(os.path.join(ROOT, "tests", "data", "hf", "steps.json"), encoding="utf-8") as stream:
            body = json.load(stream)
        body["pre_tokenizer"]["pretokenizers"][2]["pattern"]["Regex"] = "-*-*x"
        with self.assertRaises(ValueError) as caught:
            Tokenizer.load_huggingface("hostile.json", raw=json.dumps(body).encode("utf-8"))
        self.assertTrue(str(caught.exception).startswith("hostile.json: a repeat that can match the same text as"))
        self.assertIn(f"at position 2 {SLOW}n^3 ", str(caught.exception))


class RealPatternTests(unittest.TestCase):
    """Every real pattern is read, and so are patterns that only look ambiguous."""

    def test_the_built_in_patterns(self):
        for name in PATTERNS:
            with self.subTest(name=name):
                if name in UNREAD_BUILT_IN:  # (a file naming them is read by name, never as a foreign regex)
                    with self.assertRaisesRegex(ValueError, "a look-ahead that can read to the end of the text"):
                        checked(pattern_source(name, "oniguruma"))
                else:
                    checked(pattern_source(name, "oniguruma"))

    def test_the_model_files_regexes_as_the_lab_knows_them(self):
        for name, regex in MODEL_REGEXES.items():
            with self.subTest(name=name):
                checked(regex)

    @require_models(*MODEL_NAMES)
    def test_every_split_regex_of_the_model_files(self):
        regexes = {regex for name in MODEL_NAMES for regex in file_regexes(model_file(name))}
        self.assertGreaterEqual(len(regexes), 6)
        for regex in regexes:
            with self.subTest(regex=regex):
                checked(regex)

    def test_lookalikes(self):
        for pattern in LOOKALIKES:
            with self.subTest(pattern=pattern):
                checked(pattern)


class AstralLoadTests(unittest.TestCase):
    """A regex of many characters above U+FFFF loads in work about in proportion to its length."""

    @staticmethod
    def calls(count):
        """How many function calls loading an alternation of ``count`` astral characters makes."""
        source = "|".join(chr(0x10000 + 7 * number) for number in range(count))
        made = 0

        def counted(frame, event, arg):
            nonlocal made
            made += event in ("call", "c_call")

        sys.setprofile(counted)
        try:
            ChunkRegex(source)
        finally:
            sys.setprofile(None)
        return made

    def test_four_times_the_characters_is_about_four_times_the_work(self):
        ratio = self.calls(1000) / self.calls(250)
        self.assertLess(ratio, 8)  # in proportion: about 4; a quadratic load: about 16
        self.assertGreater(ratio, 2)


if __name__ == "__main__":
    unittest.main()
