"""The chunk patterns: every script, the pinned Unicode tables, the fast chunker against the definition."""

import os
import random
import re
import subprocess
import sys
import unicodedata
import unittest

import bpe
from bpelab.text import patterns, unicode_ranges
from bpe import chunks
from tests import ROOT
from tests.lab_samples import NEWER_THAN_PINNED, SCRIPTS, random_unicode


class PatternTests(unittest.TestCase):
    """The chunk patterns: explicit classes, the same in every engine and on every Python."""

    def test_no_class_shorthands_in_any_pattern(self):
        for name in patterns.PATTERN_TEMPLATES:
            for syntax in ("python", "rust", "oniguruma"):
                escapes = set(re.findall(r"\\(.)", bpe.pattern_source(name, syntax)))
                # Code points, line breaks and the end of the text are the only escapes.
                self.assertLessEqual(escapes, {"u", "U", "x", "r", "n", "Z", "z"}, (name, syntax))

    def test_every_character_lands_in_exactly_one_chunk(self):
        rng = random.Random(12)
        samples = [random_unicode(rng, 60) for _ in range(500)] + list(SCRIPTS.values()) + ["_ __ a_b"]
        for name in patterns.PATTERN_TEMPLATES:
            for text in samples:
                self.assertEqual("".join(chunks(text, name)), text)

    def test_gpt2_rules(self):
        self.assertEqual(
            chunks("I'll say: don't  stop__ 123abc\n\n x", "gpt2"),
            ["I", "'ll", " say", ":", " don", "'t", " ", " stop", "__", " 123", "abc", "\n\n", " x"],
        )

    @unittest.skipUnless(unicodedata.unidata_version == unicode_ranges.UNICODE_VERSION, "needs the pinned Unicode version")
    def test_classes_match_the_pinned_unicode_version(self):
        # Every character of the Basic Multilingual Plane; above it, every range's ends and their
        # neighbours, and every 31st code point (the regex checks those classes range by range, slowly).
        edges = set()
        for name in ("LETTER_RANGES", "UPPER_RANGES", "LOWER_RANGES", "OTHER_LETTER_RANGES", "MARK_RANGES",
                     "NUMBER_RANGES"):
            for item in getattr(unicode_ranges, name).split():
                for end in item.split("-"):
                    edges.update(range(int(end, 16) - 1, int(end, 16) + 2))
        above = sorted(code for code in edges | set(range(0x10000, 0x110000, 31)) if 0x10000 <= code <= 0x10FFFF)
        sample = "".join(map(chr, [*range(0xD800), *range(0xE000, 0x10000), *above]))
        category = unicodedata.category
        classes = {
            "LETTER_RANGES": lambda char: category(char)[0] == "L",
            "UPPER_RANGES": lambda char: category(char) in ("Lu", "Lt"),
            "LOWER_RANGES": lambda char: category(char) == "Ll",
            "OTHER_LETTER_RANGES": lambda char: category(char) in ("Lm", "Lo"),
            "MARK_RANGES": lambda char: category(char)[0] == "M",
            "NUMBER_RANGES": lambda char: category(char)[0] == "N",
            "SPACE_RANGES": lambda char: re.match(r"\s", char) is not None,
            "WHITE_SPACE_RANGES": lambda char: char in "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                                               or "\u2000" <= char <= "\u200a",
        }
        everything = set(sample)
        for name, is_member in classes.items():
            members = set(filter(is_member, sample))
            with self.subTest(name):
                for negated, expected in ((False, members), (True, everything - members)):
                    pattern = patterns.char_class(getattr(unicode_ranges, name), "python", negated)
                    self.assertEqual(set(re.findall(pattern, sample)), expected)

    @unittest.skipUnless(unicodedata.unidata_version == unicode_ranges.UNICODE_VERSION, "needs the pinned Unicode version")
    def test_generated_tables_are_current(self):
        result = subprocess.run(
            [sys.executable, os.path.join("tools", "make_unicode_ranges.py"), "--check"], cwd=ROOT, capture_output=True, text=True
        )
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_the_fast_chunker_cuts_exactly_as_the_definition(self):
        rng = random.Random(31)
        astral = ["🍪", "👩\u200d👩\u200d👧", "𝔘𝔫𝔦", "\U0001e030", "𠀀x", "🇫🇷"]
        texts = [random_unicode(rng, rng.randint(0, 60)) for _ in range(2000)] + list(SCRIPTS.values())
        for _ in range(1000):
            parts = [rng.choice(list(SCRIPTS.values()))[:rng.randint(0, 30)] for _ in range(rng.randint(1, 6))]
            for _ in range(rng.randint(0, 4)):  # windows around characters above U+FFFF, near and far apart
                parts.insert(rng.randint(0, len(parts)), rng.choice(astral) + rng.choice(["", " ", "\n", ".", "a"]))
            texts.append("".join(parts))
        for name in bpe.PATTERNS:
            cut = bpe.chunker(name)
            for text in texts:
                self.assertEqual(cut(text), chunks(text, name), (name, text))

    def test_gpt2_chunks_as_with_gpt2s_own_spelling_of_the_contractions(self):
        original = re.compile(patterns.fill_classes(
            "'s|'t|'re|'ve|'m|'ll|'d| ?{letter}+| ?{number}+| ?{other}+|{space}+(?!{not_space})|{space}+", "python"))
        rng = random.Random(17)
        pieces = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'x", " ", "\n", "a", "1", "!", "\x1c"]
        texts = [random_unicode(rng, 30) for _ in range(2000)]
        texts += ["".join(rng.choice(pieces) for _ in range(20)) for _ in range(2000)]
        for text in texts:
            self.assertEqual(chunks(text, "gpt2"), original.findall(text), text)

    def test_characters_newer_than_the_pinned_version_are_other(self):
        self.assertEqual(chunks("ab" + NEWER_THAN_PINNED[0] + "cd", "gpt2"), ["ab", NEWER_THAN_PINNED[0], "cd"])


if __name__ == "__main__":
    unittest.main()
