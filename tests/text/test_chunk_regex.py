"""The chunk-regex translator: Oniguruma's syntax, as ``tokenizers`` reads it, in Python's ``re``, exactly.

Without the client: what each construct means (``\\s`` without U+001C,
``(?i:'s)`` with the long s, possessive and atomic forms, Oniguruma's empty
matches) and the refusal of everything else, by name and position. With
it: every chunk regex of the open models' files and of the lab's own
patterns against Hugging Face's ``Split`` on random text from every plane,
and random small patterns of every supported construct in every behaviour.
Hugging Face's Oniguruma knows Unicode 16.0.0, the lab's tables 14.0.0: a
text may be cut differently only because of a code point 14.0.0 had not
assigned, and without those code points the cuts must agree.
"""

import bisect
import random

import unittest

from bpelab.text.chunk_regex import translate
from bpelab.text.oniguruma import category_ranges
from bpelab.imported.pipeline import BEHAVIORS, GPT2_REGEX, step_cutter
from bpelab.text.patterns import PATTERNS, pattern_source
from tests.clients import require_module

UNREAD_BUILT_IN = ("superbpe-paper-words", "superbpe-paper")
"""Built-in patterns the matching-time rule (test_matching_time.py) cannot yet show quadratic: the paper's SuperBPE
digit groups, linear in re on a run of digits (docs/variants.md; tests/merges/test_superbpe.py holds them to
tokenizers), whose one-character look-behind the rule reads as letting every way on. A file naming them is read by
name, not as a foreign regex."""


LLAMA3 = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
          "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
MODEL_REGEXES = {
    "llama3": LLAMA3,
    "qwen3": LLAMA3.replace("\\p{N}{1,3}", "\\p{N}"),
    "gptoss": "|".join([
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        "\\p{N}{1,3}", " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*", "\\s*[\\r\\n]+", "\\s+(?!\\S)", "\\s+"]),
    "deepseek_v3 digits": "\\p{N}{1,3}",
    "deepseek_v3 kana and kanji": "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "deepseek_v3": "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
                   "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
    "GPT-2 (ByteLevel's use_regex)": GPT2_REGEX,
}
"""The Split regexes of the open models' tokenizer.json files (the facts, as the files spell them)."""

UNASSIGNED_IN_14 = category_ranges(("Cn",))


def unassigned_in_14(char):
    """Whether Unicode 14.0.0, the lab's tables, had not assigned this code point."""
    at = bisect.bisect_right(UNASSIGNED_IN_14, (ord(char), 0x10FFFF)) - 1
    return at >= 0 and UNASSIGNED_IN_14[at][1] >= ord(char)


def random_text(rng, length):
    """Text from every plane, heavy on what chunk patterns care about: spaces, digits, marks, apostrophes, cases."""
    pools = [
        " \t\n\r\x0b\x0c\x1c\x1d\x85\xa0\u1680\u2000\u2028\u2029\u202f\u205f\u3000\u200b",
        "'’ʼsStTdDmMlLvVrReEſKk", "0123456789٠١٢٣४५²½Ⅻ①", "\u0301\u0308\u0903\u20dd\u1abf\u200d\ufe0f",
        "aZéßĲǅʰ日本語カナひらがな한국어Привет", ".,;:!?-_()[]{}<>/\\\"#$%&*+=@^`|~€£",
        "🙂👩‍👧🏽𝔸𝟘\U00010348\U0001f1e6\U0001f1e8",
    ]
    chars = []
    for _ in range(length):
        if rng.random() < 0.15:
            code = rng.randrange(0x110000)
            chars.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "x")
        else:
            chars.append(rng.choice(rng.choice(pools)))
    return "".join(chars)


class MeaningTests(unittest.TestCase):
    """What the constructs mean in Oniguruma, spelled into Python."""

    def cut(self, pattern, text):
        return translate(pattern).chunks(text)

    def test_classes_mean_what_oniguruma_means(self):
        self.assertEqual(self.cut("\\s+", "a\x1c \x85\u3000b"), ["a\x1c", " \x85\u3000", "b"])  # \s is White_Space
        self.assertEqual(self.cut("\\d+", "٣3²"), ["٣3", "²"])  # every script's digits, not ²
        self.assertEqual(self.cut("\\p{ l u }+|\\P{Lu}+", "ABcd"), ["AB", "cd"])
        self.assertEqual(self.cut("\\p{^N}+", "ab12"), ["ab", "12"])
        self.assertEqual(self.cut("[^\\s\\p{L}]+", "a..b"), ["a", "..", "b"])
        self.assertEqual(self.cut("\\x{1F642}|\\u00e9|\\x41", "🙂éA"), ["🙂", "é", "A"])
        self.assertEqual(self.cut("[\\s\\S]x|(?:[^b]|b){2}\\z", "🙂xab"), ["🙂x", "ab"])  # every code point

    def test_case_folding_is_oniguruma_s(self):
        regex = translate("(?i:'s|'ll)")
        self.assertEqual(regex.chunks("'S'ſ'LL'ß"), ["'S", "'ſ", "'LL", "'ß"])
        self.assertEqual(self.cut("(?i:k)+", "kKK"), ["kKK"])  # K, the Kelvin sign, folds to k

    def test_possessive_and_atomic_do_not_backtrack(self):
        self.assertEqual(self.cut("a*+a", "aaa"), ["aaa"])  # no match: the run takes every a
        self.assertEqual(translate("a*+a").spans("aaa"), [])
        self.assertEqual(translate("(?>a|ab)c").spans("abc"), [])
        self.assertEqual(translate("(?:a|ab)c").spans("abc"), [0, 3])
        self.assertEqual(translate("a?+b").spans("ab b"), [0, 2, 3, 4])

    def test_anchors_and_empty_matches(self):
        self.assertEqual(translate("a$").spans("a\na"), [0, 1, 2, 3])
        self.assertEqual(translate("a\\Z").spans("a\n"), [0, 1])
        self.assertEqual(translate("a\\z").spans("a\n"), [])
        self.assertEqual(translate("x*").spans("abxxc"), [0, 0, 1, 1, 2, 4, 5, 5])  # none right after "xx"
        self.assertEqual(self.cut("x*", "abxxc"), ["a", "b", "xx", "c"])

    def test_intervals(self):
        self.assertEqual(self.cut("\\p{N}{1,3}", "1234567"), ["123", "456", "7"])
        self.assertEqual(self.cut("a{2}", "aaaaa"), ["aa", "aa", "a"])
        self.assertEqual(self.cut("a{,2}b", "aaab"), ["a", "aab"])


class RefusalTests(unittest.TestCase):
    """Everything outside the list is refused by name and position, never approximated."""

    CASES = [
        ("\\w+", "the word class \\w", 0), ("a\\b", "the word boundary \\b", 1), ("\\h", "hex-digit", 0),
        ("(?<=ab)c", "a look-behind at more than one character", 0), ("(?<!a|bc)d", "a look-behind at more", 0),
        ("(?<=a)*", "a quantifier on a look-ahead, look-behind", 0), ("(?<n>a)", "a named group", 0), ("(?#x)", "a comment", 0),
        ("a{1,2}+", "a quantifier '+' after an interval", 6), ("a{2}?", "a quantifier '?' after an interval", 4),
        ("a*?", "a lazy quantifier", 2), ("a**", "a nested quantifier", 2), ("(?i)a", "the option group '(?i)'", 0),
        ("(?i:ss)", "'ss' inside (?i:...)", 0), ("(?i:[^a])", "a non-ASCII class inside (?i:...)", 4),
        ("(?i:a+)", "a quantifier inside (?i:...)", 4), ("(?i:é)", "a non-ASCII character inside (?i:...)", 4),
        ("\\p{Han}", "the property 'Han'", 0), ("\\pL", "\\p or \\P without {name}", 0), ("[a&&b]", "intersection", 2),
        ("[[:alpha:]]", "a nested class or POSIX bracket", 1), ("\\1", "a backreference or octal escape", 0),
        (".", "the any-character '.'", 0), ("^a", "the line-start anchor '^'", 0), ("a{", "a literal '{'", 1),
        ("\\x{110000}", "the code point 0x110000", 0), ("\\x{D800}", "a surrogate", 0), ("(a", "an unclosed group", 0),
        ("a)", "an unmatched ')'", 1), ("[a", "an unclosed class", 0), ("(?=a)*", "a quantifier on a look-ahead", 0),
        ("*a", "a quantifier with nothing to repeat", 0), ("a{3,1}", "an interval {m,n} with n < m", 1),
        ("a{100001}", "a repeat count above 100,000", 1), ("(" * 65 + ")" * 65, "groups nested deeper than 64", 64),
        ("\\k<x>", "a named backreference", 0), ("[]a]", "']' first in a class", 1), ("[z-a]", "an empty range", 1),
        ("[a-\\s]", "a range whose end is a class", 1), ("a\\", "a trailing backslash", 1), ("\\Q", "\\Q", 0),
    ]

    def test_each_is_refused_by_name_and_position(self):
        for pattern, name, position in self.CASES:
            with self.subTest(pattern=pattern), self.assertRaises(ValueError) as caught:
                translate(pattern)
            message = str(caught.exception)
            self.assertIn(f"{name}", message)
            self.assertIn(f"at position {position} of the pattern is not supported; supported: ", message)

    def test_a_refused_regex_in_a_file_names_it(self):
        with self.assertRaisesRegex(ValueError, "a look-behind at more than one character"):
            step_cutter({"step": "split", "pattern": {"regex": "(?<!xx)y"}, "behavior": "isolated", "invert": False})


@require_module("tokenizers")
class HuggingFaceTests(unittest.TestCase):
    """Against ``tokenizers``' own Split: the real files' regexes, the lab's patterns, random patterns."""

    def split(self, pattern, behavior="isolated", invert=False):
        from tokenizers import Regex, pre_tokenizers

        split = pre_tokenizers.Split(Regex(pattern), behavior, invert=invert)
        return lambda text: [piece for piece, _ in split.pre_tokenize_str(text)]

    def test_every_pattern_of_the_files_and_of_the_lab_on_random_text(self):
        rng = random.Random(18)
        regexes = dict(MODEL_REGEXES, **{f"the lab's {name}": pattern_source(name, "oniguruma") for name in PATTERNS
                                         if name not in UNREAD_BUILT_IN})  # (test_superbpe holds those to tokenizers)
        differing = 0
        for name, regex in regexes.items():
            theirs, ours = self.split(regex), translate(regex).chunks
            for _ in range(120):
                text = random_text(rng, rng.randrange(0, 60))
                with self.subTest(pattern=name, text=text):
                    if ours(text) != theirs(text):  # only for a code point Unicode 14.0.0 had not assigned
                        differing += 1
                        self.assertTrue(any(map(unassigned_in_14, text)))
                        self.assertFalse(name.startswith("the lab's"))  # spelled with explicit classes: never
                        kept = "".join(char for char in text if not unassigned_in_14(char))
                        self.assertEqual(ours(kept), theirs(kept))
        self.assertGreater(differing, 0)  # the random texts do hold such code points

    def test_long_runs_and_real_text(self):
        with open(__file__, encoding="utf-8") as stream:
            source = stream.read()
        texts = ["a" * 5000, " " * 3000 + "x", "1" * 4000, "\n \n" * 500, "é\u0301" * 1000, source]
        for name, regex in MODEL_REGEXES.items():
            theirs, ours = self.split(regex), translate(regex).chunks
            for text in texts:
                with self.subTest(pattern=name, text=text[:10]):
                    self.assertEqual(ours(text), theirs(text))

    def test_random_patterns_in_every_behaviour(self):
        rng = random.Random(20)
        atoms = ["a", "b", "\\s", "\\d", "[ab]", "[^a\\s]", "\\p{L}", "\\P{L}", "(?i:a)", "\\x{1F642}", "$", "\\z"]

        def pattern(depth=0):
            kind = rng.random()
            if depth > 2 or kind < 0.35:
                return rng.choice(atoms)
            if kind < 0.55:
                return pattern(depth + 1) + pattern(depth + 1)
            if kind < 0.7:
                return f"(?:{pattern(depth + 1)}|{pattern(depth + 1)})"
            item = rng.choice(["a", "b", "[ab]", "\\s", "(?:ab)"])
            if kind < 0.8:
                return item + rng.choice(["*", "+", "?", "{1,2}", "{2}", "*+", "++", "?+"])
            if kind < 0.9:
                return f"(?>{pattern(depth + 1)})"
            if kind < 0.95:
                return f"(?{rng.choice(['<=', '<!'])}{rng.choice(atoms[:9])})"
            return f"(?{rng.choice('=!')}{pattern(depth + 1)})"

        for _ in range(150):
            regex, behavior, invert = pattern(), rng.choice(BEHAVIORS), rng.random() < 0.3
            ours = step_cutter({"step": "split", "pattern": {"regex": regex}, "behavior": behavior, "invert": invert})
            theirs = self.split(regex, behavior, invert)
            for _ in range(8):
                text = "".join(rng.choice("aab b\n1🙂é") for _ in range(rng.randrange(0, 12)))
                with self.subTest(regex=regex, behavior=behavior, invert=invert, text=text):
                    self.assertEqual(ours(text), theirs(text))

    def test_a_split_on_a_plain_string(self):
        from tokenizers import pre_tokenizers

        for string in (" ", "▁", ".*", "\\", "a b"):
            for behavior in BEHAVIORS:
                theirs = pre_tokenizers.Split(string, behavior)
                ours = step_cutter({"step": "split", "pattern": {"string": string}, "behavior": behavior,
                                    "invert": False})
                for text in ("a b  c", "▁x▁▁y", "a.*b\\c", "a bxa b", ""):
                    self.assertEqual(ours(text), [piece for piece, _ in theirs.pre_tokenize_str(text)])


if __name__ == "__main__":
    unittest.main()
