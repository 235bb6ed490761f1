"""Special tokens: their IDs after the merges, tiktoken's rules in text, and what training leaves out."""

import tracemalloc
import unittest

from bpe import UNK, Tokenizer
from bpelab.imported.added_tokens import AddedToken
from bpelab.imported.pipeline import Pipeline
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
                                  ({"<s>": True}, "int IDs")):
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


    def test_a_special_token_may_sit_among_the_merges_and_share_an_id(self):
        """As p50k's <|endoftext|> (50256, inside its ranks) and o200k_harmony's two texts of ID 200018 do."""
        tokenizer = Tokenizer(["a", "b", "c"], [("a", "b"), ("ab", "c")], special_tokens={"<s>": 4, "<t>": 4, "<u>": 7})
        self.assertEqual(tokenizer.vocab, ["<unk>", "a", "b", "c", "<s>", "ab", "abc", "<u>"])
        self.assertEqual((tokenizer.ids["ab"], tokenizer.ids["abc"]), (5, 6))
        self.assertEqual(tokenizer.encode("abc<t>ab<s>", allowed_special="all"), [6, 4, 5, 4])
        self.assertEqual(tokenizer.decode([6, 4, 5, 7]), "abc<s>ab<u>")  # (the first text of an ID decodes)
        self.assertEqual(Tokenizer.from_json(tokenizer.to_json()).vocab, tokenizer.vocab)
        lab = Tokenizer(["a", "b", "c"], [("a", "b"), ("ab", "c")], special_tokens={"<s>": 6})
        self.assertEqual(lab.decode(lab.encode("abcab<s>", allowed_special="all")), "abcab<s>")


class ManySpecialTokensTests(unittest.TestCase):
    """A short encode costs the same whatever the number of special tokens: nothing per call grows with it."""

    @staticmethod
    def lab_kind(count):
        return Tokenizer(None, BYTES.merges, byte_level=True, special_tokens=[f"<|s{n}|>" for n in range(count)])

    @staticmethod
    def imported(count):
        added = [AddedToken(len(BYTES) + n, f"<|s{n}|>", n % 2 == 0, n % 3 == 0, False, False, False)
                 for n in range(count)]
        return Tokenizer(None, BYTES.merges, byte_level=True, vocab=list(BYTES.vocab), pipeline=Pipeline(
            added_tokens=added, normalizer=[{"step": "NFC"}],
            pre_tokenizer=[{"step": "split", "pattern": {"name": "gpt2"}, "behavior": "isolated", "invert": False}]))

    @staticmethod
    def allocated(tokenizer, choice):
        """The most memory one short encode holds at once, after a first call has built what is kept."""
        tokenizer.encode("hello world", **choice)
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            tokenizer.encode("hello world", **choice)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    def test_five_or_five_thousand_cost_alike(self):
        choices = [{}, {"allowed_special": "all"}, {"allowed_special": set()}, {"allowed_special": {"<|s2|>"}},
                   {"allowed_special": ["<|s2|>"], "disallowed_special": ()}, {"disallowed_special": "all"}]
        for make in (self.lab_kind, self.imported):
            few, many = make(5), make(5000)
            for choice in choices:
                with self.subTest(kind=make.__name__, choice=choice):
                    # a set of 5,000 texts (or its hash worked out again) is 100 kB or more; one call needs ~2 kB
                    self.assertLess(self.allocated(many, choice), self.allocated(few, choice) + 4096)
                    self.assertEqual(many.encode("hello world", **choice), few.encode("hello world", **choice))


if __name__ == "__main__":
    unittest.main()
