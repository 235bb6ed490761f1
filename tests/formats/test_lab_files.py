"""The lab's format 2 (bytes, patterns, special tokens) and 3 (the lab's kind in it), both ways, and bodies that do not
match their version."""

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


class FormatThreeTests(unittest.TestCase):
    """Format 3 at the character level: a body that says exactly the lab's kind loads as that kind; one that says
    anything else keeps its pipeline, and its IDs are the file's."""

    @classmethod
    def setUpClass(cls):
        cls.body = Tokenizer(["a", "b", "c"], [("a", "b"), ("ab", "c")], pattern="[abc]+|[^abc]+",
                             special_tokens=["<s>"]).to_json()

    def test_the_lab_kind_loads_as_that_kind(self):
        named = dict(self.body, pre_tokenizer=[dict(self.body["pre_tokenizer"][0], pattern={"name": "gpt2"})])
        for body, pattern, version in [(self.body, "[abc]+|[^abc]+", 3), (named, "gpt2", 2)]:
            loaded = Tokenizer.from_json(body)
            self.assertEqual((loaded.describe()["pipeline"], loaded.pattern, loaded.alphabet, loaded.special_tokens),
                             ([], pattern, ["a", "b", "c"], {"<s>": 6}))
            self.assertEqual((loaded.encode("abcxab<s>", allowed_special="all"), loaded.to_json()["format_version"]),
                             ([5, 0, 4, 6], version))
            self.assertEqual(loaded.decode([5, 0]), "abc\N{REPLACEMENT CHARACTER}")

    def test_any_other_keeps_its_pipeline(self):
        body = self.body
        for changed, ids in [({"decoder": [{"step": "fuse"}]}, [5, 0, 0, 4, 6]),
                             ({"model": dict(body["model"], fuse_unk=True)}, [5, 0, 4, 6]),
                             ({"vocab": ["<unk>", "b", "a", "c", "ab", "abc"]}, [5, 0, 0, 4, 6]),
                             ({"vocab": ["a", "<unk>", "b", "c", "ab", "abc"]}, [5, 1, 1, 4, 6])]:
            loaded = Tokenizer.from_json(dict(body, **changed))
            with self.subTest(changed=changed):
                self.assertNotEqual(loaded.describe()["pipeline"], [])
                self.assertEqual(loaded.encode("abcxxab<s>"), ids)
                self.assertEqual(Tokenizer.from_json(loaded.to_json()).to_json(), loaded.to_json())


if __name__ == "__main__":
    unittest.main()
