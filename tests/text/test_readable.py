"""The readable form of tokens (bpelab/text/readable.py): exact, the same on every script, under real vocabularies.

Every form written here is read back (``form_bytes``) into the bytes it
stands for, which must be the token's own: the form only draws, it never
changes an ID or what the IDs decode to. The matrix runs the scripts of
``tests.lab_samples.FORM_SCRIPTS`` and a lone continuation byte under GPT-2,
cl100k and o200k (their official files), Llama 3 (byte level) and Llama 2
(characters with byte fallback); random bytes cut at random hold the reading
of cut characters to Python's UTF-8 decoder.
"""

import random
import re
import unittest

import bpe
from bpelab.text import readable
from tests.clients import model_file, official_tokenizer, open_model, skip_or_fail
from tests.lab_samples import FORM_SCRIPTS

MARKED = {mark: char for char, mark in readable.MARKS.items()}
PIECE = re.compile("⟨0x([0-9A-F]{2})⟩|⟨([^⟩]+)⟩|(.)", re.S)
HELD = re.compile(r"\[(\d+)(?:-(\d+))?/(\d+)\]")


def named(name):
    """The character a name of the form stands for: an abbreviation, a variation selector, or a code point."""
    if name.startswith("U+"):
        return chr(int(name[2:], 16))
    if name.startswith("VS"):
        number = int(name[2:])
        return chr(0xFE00 + number - 1 if number <= 16 else 0xE0100 + number - 17)
    return chr(next(code for code, abbreviation in readable.NAMES.items() if abbreviation == name))


def form_bytes(form):
    """The bytes a token's readable form stands for, read back from the form alone."""
    found, at = b"", 0
    while at < len(form):
        piece = PIECE.match(form, at)
        at = piece.end()
        byte, name, char = piece.groups()
        data = bytes([int(byte, 16)]) if byte else (named(name) if name else MARKED.get(char, char)).encode()
        held = HELD.match(form, at)
        if held:
            at = held.end()
            if not byte:  # (bytes of a character cut short are themselves; a cut character's share is sliced)
                first, last, size = int(held.group(1)), int(held.group(2) or held.group(1)), int(held.group(3))
                assert len(data) == size, (form, data, size)
                data = data[first - 1:last]
        found += data
    return found


def tokenizers():
    """The matrix's tokenizers by name: three official files, and two open models of the two kinds."""
    found = {name: official_tokenizer(name) for name in ("gpt2", "cl100k", "o200k")}
    for name in ("llama3", "llama2"):
        if model_file(name) is None:
            skip_or_fail(f"the model file {name}.json is not here")
        found[name] = open_model(name)
    return found


class TheMatrix(unittest.TestCase):
    """Every script under every tokenizer: the form reads back to each token's bytes, in the marks it promises."""

    @classmethod
    def setUpClass(cls):
        cls.tokenizers = tokenizers()

    def test_every_script_reads_back_to_the_bytes_of_each_token(self):
        for name, tok in self.tokenizers.items():
            for script, text in FORM_SCRIPTS.items():
                with self.subTest(tokenizer=name, script=script):
                    ids = tok.encode(text)
                    forms = tok.readable_tokens(text)
                    self.assertEqual(tok.encode(text), ids)
                    self.assertEqual(len(forms), len(ids))
                    self.assertEqual([form_bytes(form) for form in forms], [tok.token_bytes(i) for i in ids])
                    self.assertEqual(b"".join(map(form_bytes, forms)), tok.decode_bytes(ids))
                    self.assertFalse([char for form in forms for char in form if char == " " or
                                      readable.shows_nothing(char)], forms)  # nothing drawn shows nothing
                    shares(self, tok, ids)

    def test_what_each_script_shows(self):
        """A few forms by heart: the issue's own line (cl100k), byte fallback (Llama 2), emoji under GPT-2."""
        tokens = self.tokenizers
        self.assertEqual(tokens["cl100k"].readable_tokens("नमस्ते"), ["न", "म", "स", "्त[1-2/3]", "त[3/3]", "े"])
        self.assertEqual(tokens["gpt2"].readable_tokens("त"), ["त[1-2/3]", "त[3/3]"])
        self.assertEqual(tokens["llama2"].readable_tokens("🦒"), ["␣", "🦒[1/4]", "🦒[2/4]", "🦒[3/4]", "🦒[4/4]"])
        for name, tok in tokens.items():
            joined = "".join(tok.readable_tokens(FORM_SCRIPTS["Emoji"]))
            self.assertIn("⟨VS16⟩", joined, name)  # an invisible character shows by its name
            self.assertIn("⟨ZWJ⟩", joined, name)
            self.assertNotIn("\ufe0f", joined, name)
            self.assertNotIn("\u200d", joined, name)
            self.assertIn("\u0301", "".join(tok.readable_tokens("e\u0301")), name)  # a combining mark is itself

    def test_a_lone_continuation_byte_is_hexadecimal(self):
        for name, tok in self.tokenizers.items():
            byte_id = tok.ids[bpe.BYTE_TO_CHAR[0x80]] if tok.byte_level else tok.ids["<0x80>"]
            lead, second = (tok.ids[bpe.BYTE_TO_CHAR[byte]] if tok.byte_level else tok.ids[f"<0x{byte:02X}>"]
                            for byte in (0xE0, 0xA4))
            with self.subTest(tokenizer=name):
                self.assertEqual(readable.readable_texts(tok, [byte_id]), ["⟨0x80⟩"])
                self.assertEqual(readable.id_form(tok, byte_id), "⟨0x80⟩")
                self.assertEqual(readable.readable_texts(tok, [lead, second, byte_id]), ["ऀ[1/3]", "ऀ[2/3]", "ऀ[3/3]"])
                self.assertEqual(readable.readable_texts(tok, [lead, second]), ["⟨0xE0⟩[1/3]", "⟨0xA4⟩[2/3]"])
                self.assertEqual(readable.readable_texts(tok, [byte_id, lead]), ["⟨0x80⟩", "⟨0xE0⟩[1/3]"])


def shares(test, tok, ids):
    """Each character cut between tokens shows in consecutive tokens, its bytes held in order, each once."""
    held = {}
    for index, parts in enumerate(readable.token_parts(tok, ids)):
        for part in parts:
            if part.held is not None:
                held.setdefault(part.unit, []).append((index, part.held))
    for unit, pieces in held.items():
        indexes = [index for index, _ in pieces]
        test.assertEqual(indexes, list(range(indexes[0], indexes[0] + len(indexes))))
        test.assertEqual([first for _, (first, _, _) in pieces], [1] + [last + 1 for _, (_, last, _) in pieces[:-1]])
        test.assertEqual(len({size for _, (_, _, size) in pieces}), 1)


class AnyBytes(unittest.TestCase):
    """Random bytes cut at random places: each piece's form reads back to it, however the bytes break UTF-8."""

    def test_random_bytes_cut_at_random(self):
        rng = random.Random(32)
        alphabet = [bytes([byte]) for byte in (0x41, 0x80, 0xA4, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xFF)]
        alphabet += [char.encode() for char in "é東🙂\u200d\ufe0f ␣⟨"]
        for _ in range(3000):
            data = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, max(0, len(data) - 1)))) if data else []
            pieces = [data[start:end] for start, end in zip([0] + cuts, cuts + [len(data)])]
            forms = readable.bytes_texts(pieces)
            self.assertEqual([form_bytes(form) for form in forms], pieces, (data, pieces, forms))
            whole = data.decode("utf-8", "replace")
            if "\ufffd" not in whole:  # valid UTF-8: its characters, no hexadecimal
                self.assertNotIn("0x", "".join(forms))

    def test_bytes_that_begin_no_character(self):
        self.assertEqual(readable.bytes_texts([b"\xff", b"\xc0\x80", b"\xed\xa0\x80"]),  # never; overlong; a surrogate,
                         ["⟨0xFF⟩", "⟨0xC0⟩⟨0x80⟩", "⟨0xED⟩[1/3]⟨0xA0⟩⟨0x80⟩"])  # whose lead starts a character
        self.assertEqual(readable.bytes_texts([b"\xf0\x9f", b"\x99", b"a"]), ["⟨0xF0⟩⟨0x9F⟩[1-2/4]", "⟨0x99⟩[3/4]", "a"])


class MarksNamesAndWidths(unittest.TestCase):

    def test_marks_names_and_code_points(self):
        forms = {char: readable.char_form(char) for char in " \t\n\r\u00a0\u200b\u200c\u200d\u2060\ufeff\u00ad"
                 "\u202e\u2028\u3000\ufe0f\U000e0100\x00\x7f\u0378\U000f0000a東\u0301␣│⟨⟩"}
        self.assertEqual(forms, {
            " ": "␣", "\t": "⇥", "\n": "↵", "\r": "␍", "\u00a0": "⟨NBSP⟩", "\u200b": "⟨ZWSP⟩", "\u200c": "⟨ZWNJ⟩",
            "\u200d": "⟨ZWJ⟩", "\u2060": "⟨WJ⟩", "\ufeff": "⟨BOM⟩", "\u00ad": "⟨SHY⟩", "\u202e": "⟨RLO⟩",
            "\u2028": "⟨LSEP⟩", "\u3000": "⟨IDSP⟩", "\ufe0f": "⟨VS16⟩", "\U000e0100": "⟨VS17⟩", "\x00": "⟨NUL⟩",
            "\x7f": "⟨DEL⟩", "\u0378": "⟨U+0378⟩", "\U000f0000": "⟨U+F0000⟩", "a": "a", "東": "東", "\u0301": "\u0301",
            "␣": "⟨U+2423⟩", "│": "⟨U+2502⟩", "⟨": "⟨U+27E8⟩", "⟩": "⟨U+27E9⟩"})
        for char, form in forms.items():
            self.assertEqual(named(form[1:-1]) if form.startswith("⟨") else MARKED.get(form, form), char)

    def test_the_pinned_tables_decide_not_this_python(self):
        """U+1F6DC (an emoji of Unicode 15) is unassigned in the pinned Unicode 14, on every Python."""
        self.assertEqual(readable.char_form("\U0001f6dc"), "⟨U+1F6DC⟩")
        self.assertEqual(readable.category("\U0001f6dc"), "Cn")

    def test_display_widths(self):
        self.assertEqual([readable.display_width(text) for text in ("abc", "東京", "ｶ", "🙂", "e\u0301", "␣", "")],
                         [3, 4, 1, 2, 1, 1, 0])


if __name__ == "__main__":
    unittest.main()
