"""The lab's parallel sentences (bpelab/commands/languages.json): their shape, their format, each language in its script.

The sentences were written for this lab; a person who reads each language
reviews the translations (docs/languages.md, with back-translations). These
tests check what a program can: every language has the same sentences with
the same numbers, the file is canonical NFC JSON, and each sentence keeps to
the characters of its script. A script is a list of Unicode blocks, written
out as code-point ranges (first and last code point, both included), plus a
few punctuation marks of its own; every script may also use SHARED (ASCII
digits, the space and common ASCII punctuation). ``foreign_characters``
lists what is left over, so a Cyrillic letter that slipped into a Greek
sentence, a full-width comma in Korean or a stray Latin letter in Thai shows
up with its position.
"""

import itertools
import json
import os
import unicodedata
import unittest

from bpelab.commands import compare
from tests import ROOT

PATH = os.path.join(ROOT, "bpelab", "commands", "languages.json")

HAN = [
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
]

RANGES = {
    "Latin": [
        (0x0041, 0x005A),  # Basic Latin: A-Z
        (0x0061, 0x007A),  # Basic Latin: a-z
        (0x00C0, 0x00D6),  # Latin-1 Supplement letters (without × U+00D7 and ÷ U+00F7)
        (0x00D8, 0x00F6),
        (0x00F8, 0x00FF),
        (0x0100, 0x017F),  # Latin Extended-A
        (0x0180, 0x024F),  # Latin Extended-B (Vietnamese ơ ư)
        (0x1E00, 0x1EFF),  # Latin Extended Additional (Vietnamese ạ ế ộ ...)
    ],
    "Cyrillic": [
        (0x0400, 0x04FF),  # Cyrillic
        (0x0500, 0x052F),  # Cyrillic Supplement
    ],
    "Greek": [
        (0x0370, 0x03FF),  # Greek and Coptic
        (0x1F00, 0x1FFF),  # Greek Extended (polytonic)
    ],
    "Hebrew": [
        (0x0590, 0x05FF),  # Hebrew
    ],
    "Arabic": [
        (0x0600, 0x06FF),  # Arabic
        (0x0750, 0x077F),  # Arabic Supplement
    ],
    "Devanagari": [
        (0x0900, 0x097F),  # Devanagari (holds the dandas U+0964 and U+0965 too)
        (0xA8E0, 0xA8FF),  # Devanagari Extended
    ],
    "Tamil": [
        (0x0B80, 0x0BFF),  # Tamil
    ],
    "Han": HAN,
    "Japanese": [
        (0x3040, 0x309F),  # Hiragana
        (0x30A0, 0x30FF),  # Katakana (holds the prolonged sound mark ー U+30FC)
    ] + HAN,
    "Hangul": [
        (0xAC00, 0xD7AF),  # Hangul Syllables
        (0x1100, 0x11FF),  # Hangul Jamo
        (0x3130, 0x318F),  # Hangul Compatibility Jamo
        (0xA960, 0xA97F),  # Hangul Jamo Extended-A
        (0xD7B0, 0xD7FF),  # Hangul Jamo Extended-B
    ],
    "Thai": [
        (0x0E00, 0x0E7F),  # Thai
    ],
    "Georgian": [
        (0x10A0, 0x10FF),  # Georgian
        (0x1C90, 0x1CBF),  # Georgian Extended (Mtavruli capitals)
        (0x2D00, 0x2D2F),  # Georgian Supplement (Nuskhuri)
    ],
}

SHARED = "0123456789" + " " + ".,!?:;'\"-()"
"""What every script may use: ASCII digits, the space and common ASCII punctuation."""

PUNCTUATION = {
    "Latin": "¡¿«»“”‘’–—…",
    "Cyrillic": "«»„“—…",
    # The Greek question mark U+037E and ano teleia U+0387 normalise (NFC) to ";" and "·".
    "Greek": "«»·—…",
    "Hebrew": "־׳״",  # maqaf, geresh, gershayim
    "Arabic": "،؛؟«»",  # comma U+060C, semicolon U+061B, question mark U+061F
    "Devanagari": "।॥",  # danda U+0964, double danda U+0965
    "Tamil": "",
    "Han": "。，、！？：；“”‘’《》〈〉（）「」『』…—·",
    "Japanese": "。、！？「」『』（）・〜…ー",
    "Hangul": "·“”‘’「」『』…",
    "Thai": "ๆฯ",  # mai yamok (repetition), paiyannoi (abbreviation)
    "Georgian": "„“«»—…",
}


def in_script(char, script):
    """Whether ``char`` lies in one of ``script``'s code-point ranges (shared characters do not count)."""
    code = ord(char)
    return any(first <= code <= last for first, last in RANGES[script])


def foreign_characters(text, script):
    """The ``(position, char)`` pairs of ``text`` that belong neither to ``script`` nor to what it may share."""
    if script not in RANGES:
        raise ValueError(f"unknown script {script!r}; known: {', '.join(RANGES)}")
    allowed = SHARED + PUNCTUATION[script]
    return [(position, char) for position, char in enumerate(text)
            if char not in allowed and not in_script(char, script)]


MIN_LANGUAGES = 12
MIN_OWN_LETTERS = 0.8

with open(PATH, encoding="utf-8", newline="") as stream:
    RAW = stream.read()
DATA = json.loads(RAW)
LANGUAGES = DATA["languages"]


def texts():
    """Every text in the file, with where it is, for messages."""
    yield "about", DATA["about"]
    for language in LANGUAGES:
        for key in ("code", "name", "script"):
            yield f"{language['code']} {key}", language[key]
        for number, sentence in enumerate(language["sentences"], start=1):
            yield f"{language['code']} sentence {number}", sentence


class Shape(unittest.TestCase):
    def test_keys(self):
        self.assertEqual(set(DATA), {"about", "languages"})
        for language in LANGUAGES:
            self.assertEqual(list(language), ["code", "name", "script", "sentences"], language["code"])

    def test_the_package_reads_this_file(self):
        self.assertEqual(compare.languages(), LANGUAGES)

    def test_english_first(self):
        self.assertEqual((LANGUAGES[0]["code"], LANGUAGES[0]["script"]), ("en", "Latin"))

    def test_enough_languages_and_scripts(self):
        self.assertGreaterEqual(len(LANGUAGES), MIN_LANGUAGES)
        self.assertGreaterEqual(len({language["script"] for language in LANGUAGES}), MIN_LANGUAGES)
        codes = [language["code"] for language in LANGUAGES]
        self.assertEqual(len(codes), len(set(codes)), "a language code repeats")

    def test_the_scripts_the_issue_asks_for(self):
        asked = {"Latin", "Cyrillic", "Greek", "Hebrew", "Arabic", "Devanagari", "Tamil", "Han", "Japanese", "Hangul",
                 "Thai"}
        scripts = {language["script"] for language in LANGUAGES}
        self.assertLessEqual(asked, scripts)
        self.assertTrue(scripts - asked, "and at least one more")

    def test_same_number_of_sentences(self):
        count = len(LANGUAGES[0]["sentences"])
        self.assertGreater(count, 0)
        for language in LANGUAGES:
            self.assertEqual(len(language["sentences"]), count, language["code"])

    def test_no_empty_sentence(self):
        for language in LANGUAGES:
            for number, sentence in enumerate(language["sentences"], start=1):
                self.assertTrue(sentence.strip(), f"{language['code']} sentence {number} is empty")
                self.assertEqual(sentence, sentence.strip(), f"{language['code']} sentence {number}: outer space")

    def test_same_digits_as_english(self):
        """Sentence i of each language has the numbers of English sentence i: a check that they line up."""
        def digits(text):
            return sorted(char for char in text if char.isdigit())
        english = LANGUAGES[0]["sentences"]
        for language in LANGUAGES:
            for number, (sentence, original) in enumerate(zip(language["sentences"], english), start=1):
                self.assertEqual(digits(sentence), digits(original), f"{language['code']} sentence {number}")

    def test_no_sentence_shared_between_languages(self):
        for first, second in itertools.combinations(LANGUAGES, 2):
            shared = set(first["sentences"]) & set(second["sentences"])
            self.assertFalse(shared, f"{first['code']} and {second['code']} share {shared}")


class Format(unittest.TestCase):
    def test_file_is_canonical_json(self):
        self.assertEqual(RAW, json.dumps(json.loads(RAW), indent=1, ensure_ascii=False) + "\n")

    def test_every_text_is_nfc(self):
        for where, text in texts():
            self.assertEqual(text, unicodedata.normalize("NFC", text), where)


class Scripts(unittest.TestCase):
    def test_every_script_is_known(self):
        for language in LANGUAGES:
            self.assertIn(language["script"], RANGES, language["code"])

    def test_no_foreign_characters(self):
        for language in LANGUAGES:
            for number, sentence in enumerate(language["sentences"], start=1):
                with self.subTest(language=language["code"], sentence=number):
                    self.assertEqual(foreign_characters(sentence, language["script"]), [])

    def test_letters_mostly_in_own_script(self):
        for language in LANGUAGES:
            if language["script"] == "Latin":
                continue
            letters = [char for sentence in language["sentences"] for char in sentence
                       if unicodedata.category(char).startswith("L")]
            own = sum(in_script(char, language["script"]) for char in letters)
            with self.subTest(language=language["code"]):
                self.assertTrue(letters)
                self.assertGreaterEqual(own / len(letters), MIN_OWN_LETTERS)

    def test_foreign_characters_finds_intruders(self):
        self.assertEqual(foreign_characters("Ζωή, πού;", "Greek"), [])
        self.assertEqual(foreign_characters("Ζωή, пού", "Greek"), [(5, "п")])
        self.assertEqual(foreign_characters("佐伊,山姆", "Japanese"), [])
        self.assertEqual(foreign_characters("조이，샘", "Hangul"), [(2, "，")])
        self.assertEqual(foreign_characters("โซอี้ a", "Thai"), [(6, "a")])
        with self.assertRaises(ValueError):
            foreign_characters("x", "Klingon")


if __name__ == "__main__":
    unittest.main()
