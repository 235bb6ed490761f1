"""Special tokens: their IDs after the merges, tiktoken's rules in text, and what training leaves out."""

import unittest

from bpe import UNK, Tokenizer
from tests.lab_samples import BYTES, CORPUS


class SpecialTokenTests(unittest.TestCase):
    """Special tokens follow tiktoken's rules."""

    def test_ids_follow_the_merges_in_order(self):
        tokenizer = Tokenizer.train(CORPUS, 100, special_tokens=["<|endoftext|>", "<|pad|>"])
        self.assertEqual(len(tokenizer.vocab), 100)
        self.assertEqual(tokenizer.special_tokens, {"<|endoftext|>": 98, "<|pad|>": 99})
        self.assertEqual(len(tokenizer.merges), 100 - 28 - 2)

    def test_special_text_is_an_error_by_default(self):
        with self.assertRaisesRegex(ValueError, "'<\\|endoftext\\|>'"):
            BYTES.encode("a<|endoftext|>b")

    def test_allowed_special_encodes_the_id(self):
        special = BYTES.special_tokens["<|endoftext|>"]
        for allowed in ({"<|endoftext|>"}, "all"):
            ids = BYTES.encode("mia<|endoftext|>leo", allowed_special=allowed)
            self.assertEqual(ids, BYTES.encode("mia") + [special] + BYTES.encode("leo"))
        self.assertEqual(BYTES.decode(ids), "mia<|endoftext|>leo")

    def test_disallowed_special_empty_encodes_ordinary_text(self):
        ids = BYTES.encode("<|endoftext|>", disallowed_special=())
        self.assertNotIn(BYTES.special_tokens["<|endoftext|>"], ids)
        self.assertEqual(BYTES.decode(ids), "<|endoftext|>")

    def test_special_tokens_are_not_counted_in_training(self):
        text = "<|endoftext|>".join(["ab"] * 50)
        tokenizer = Tokenizer.train(text, 40, special_tokens=["<|endoftext|>"])
        self.assertEqual(tokenizer.alphabet, ["a", "b"])
        self.assertEqual(tokenizer.merges, [("a", "b")])

    def test_bad_special_tokens_are_refused(self):
        for specials, message in ((["a b"], "whitespace"), (["<s>", "<s>"], "given twice"),
                                  ([""], "non-empty"), (["a"], "already an ordinary token"), ("<s>", "list"),
                                  ([UNK], "unknown-character token"), ({"<s>": 2}, "IDs from 3 on"),
                                  ({"<s>": 4, "<t>": 4}, "share ID 4"), ({"<s>": True}, "int IDs")):
            with self.subTest(specials=specials), self.assertRaisesRegex(ValueError, message):
                Tokenizer(["a", "b"], [], special_tokens=specials)
        with self.assertRaisesRegex(ValueError, "not a special token"):
            BYTES.encode("x", allowed_special={"<|nope|>"})
        with self.assertRaisesRegex(TypeError, "allowed_special"):
            BYTES.encode("x", allowed_special="<|endoftext|>")
        with self.assertRaisesRegex(TypeError, "allowed_special"):
            BYTES.encode("x", allowed_special=[[1]])
        with self.assertRaisesRegex(ValueError, "lone surrogate"):
            Tokenizer(None, [], byte_level=True, special_tokens=["<\ud800>"])


if __name__ == "__main__":
    unittest.main()
