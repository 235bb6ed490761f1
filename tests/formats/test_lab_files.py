"""The lab's format 2: bytes, patterns and special tokens, both ways, and bodies that do not match their version."""

import json
import os
import tempfile
import unittest

import bpe
from bpe import Tokenizer
from tests.lab_samples import BYTES, LAB, SCRIPTS, lab_file_text


class FormatTwoTests(unittest.TestCase):
    """Format 2: what format 1 cannot express, read and written as strictly."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def round_trip(self, tokenizer):
        """Save and load ``tokenizer``; return the loaded one and the file text."""
        path = os.path.join(self.folder.name, "tok.json")
        tokenizer.save(path)
        with open(path, encoding="utf-8") as stream:
            return Tokenizer.load(path), stream.read()

    def test_byte_level_round_trip(self):
        loaded, text = self.round_trip(BYTES)
        self.assertEqual(list(json.loads(text)), ["format_version", "level", "pattern", "merges", "special_tokens"])
        self.assertTrue(text.endswith("}\n"))
        self.assertEqual(loaded.vocab, BYTES.vocab)
        sample = SCRIPTS["Hindi"] + "<|endoftext|>"
        self.assertEqual(loaded.encode(sample, allowed_special="all"), BYTES.encode(sample, allowed_special="all"))

    def test_character_level_with_specials_is_format_2(self):
        tokenizer = Tokenizer(["a", "b"], [("a", "b")], special_tokens=["<s>"])
        loaded, text = self.round_trip(tokenizer)
        self.assertEqual(json.loads(text)["format_version"], 2)
        self.assertEqual(loaded.special_tokens, {"<s>": 4})
        self.assertEqual(self.round_trip(LAB)[1], lab_file_text())

    def test_mislabelled_and_malformed_bodies_are_refused(self):
        good = BYTES.to_json()
        cases = [
            (dict(LAB.to_json(), format_version=2), "unsupported tokenizer format 2: 'level'"),
            (dict(good, format_version=1), "unsupported tokenizer format 1: missing key 'alphabet'"),
            ({key: value for key, value in good.items() if key != "pattern"}, "unsupported tokenizer format 2: missing key 'pattern'"),
            (dict(good, alphabet=["a"]), "unsupported tokenizer format 2: unexpected key 'alphabet'"),
            (dict(good, level="words"), "unsupported tokenizer format 2: 'level' is 'words'"),
            (dict(good, pattern=" ?\\w+"), "unknown pattern"),
            (dict(good, pattern=["gpt2"]), "must be the name of a built-in pattern"),
            (dict(good, pattern=None), "must be the name of a built-in pattern"),
            (dict(good, special_tokens={"<|endoftext|>": 7}), "special tokens take int IDs from 256 on"),
            (dict(good, special_tokens={"<|endoftext|>": True}), "int IDs"),
            (dict(good, bytes=bpe.BYTE_TO_CHAR[::-1][:255]), "256 GPT-2 display characters"),
            (dict(good, special_tokens=["<|endoftext|>"]), "object mapping"),
            (dict(good, merges=[["Ġ", "x"], ["Ġ", "x"]]), "already a token"),
            (dict(good, merges=[[" ", "x"]]), "not a token at that point"),
        ]
        for number, (body, message) in enumerate(cases):
            path = os.path.join(self.folder.name, f"bad{number}.json")
            with open(path, "w", encoding="utf-8") as stream:
                json.dump(body, stream)
            with self.subTest(message=message), self.assertRaises(ValueError) as caught:
                Tokenizer.load(path)
            self.assertIn(message, str(caught.exception))
            self.assertIn(path, str(caught.exception))
        for body in ({1: 2, **good}, {**LAB.to_json(), (1, 2): 3}):
            with self.assertRaisesRegex(ValueError, "every key must be a string"):
                Tokenizer.from_json(body)


if __name__ == "__main__":
    unittest.main()
