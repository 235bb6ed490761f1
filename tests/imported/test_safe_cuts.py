"""Safe cuts of imported pipelines (bpelab/imported/safe_cuts.py): a rule found is a rule that holds.

Pipelines are built from the open models' regexes and from hostile ones
(a look-ahead after letters, a match taking the space after a word, glued
behaviours, a prefix space, SentencePiece's ``▁`` with a token across one),
each with every behaviour; wherever a rule is found, a random text cut at
any place the rule allows (and no added token spans) encodes to the IDs of
the whole. Files are then counted block by block (the lab's kind with a
prefix space here; Llama 3's and Gemma 3's in their own tests, with
``check_in_blocks``), where before each file was encoded whole.
"""

import os
import random
import tempfile
import unittest
from unittest import mock

from bpe import Tokenizer
from bpelab.corpora.cuts import safe_cut
from bpelab.imported.added_tokens import AddedToken
from bpelab.imported.pipeline import BEHAVIORS, Pipeline
from bpelab.imported.safe_cuts import cut_rule
from tests import ROOT
from tests.text.test_chunk_regex import MODEL_REGEXES, random_text
from tests.lab_samples import BYTES

NO_RULE = {
    "a look-ahead after letters": "\\p{L}+(?=\\s)|\\s+|[^\\s\\p{L}]+|\\p{L}+",
    "the space after a word": "\\p{L}+ ?|\\p{N}+ ?|\\s+|[^\\s\\p{L}\\p{N}]+",
    "the end after a letter": "\\p{L}+\\z|\\p{L}+|\\s+|[^\\s\\p{L}]+",
    "letters and spaces together": "(?:\\p{L}|\\s)+|[^\\s\\p{L}]+",
    "a match that may be empty": "\\p{L}*|\\s|[^\\s\\p{L}]",
}
"""Regexes whose matches may hold or look across every place a rule would cut: none is found."""

ODD = {
    "a word and the space before it, or after": " ?\\p{L}+|\\p{L}+\\s|\\s+|[^\\s\\p{L}]",  # (only after a digit)
    "a look-ahead reading on": "\\p{L}(?=\\p{L}*\\s)|\\p{L}|\\s|[^\\s\\p{L}]",
    "one character": "[\\s\\S]",
    "digits only": "\\p{N}+",
}
"""Regexes that are strange, but whose rule, if one is found, must hold as well."""

ADDED = ["<|x|>", "a b", "\n\n", "é1", "<s>"]
"""Added tokens, one with a space, one of two line breaks, one across a letter and a digit."""


def byte_level(pre_tokenizer, prefix_space=False):
    """A byte-level imported tokenizer with BYTES' merges, these pre-tokenizer steps and ``ADDED``."""
    added = [AddedToken(len(BYTES) + at, text, at % 2 == 0, False, False, False, False) for at, text in enumerate(ADDED)]
    steps = ([{"step": "prefix_space"}] if prefix_space else []) + pre_tokenizer
    return Tokenizer(None, BYTES.merges, byte_level=True, vocab=list(BYTES.vocab),
                     pipeline=Pipeline(added_tokens=added, pre_tokenizer=steps))


def split(regex, behavior="isolated", invert=False):
    return {"step": "split", "pattern": {"regex": regex}, "behavior": behavior, "invert": invert}


def cuts_allowed(last_cut, text):
    """Every place ``last_cut`` (a tokenizer's ``safe_cut``) lets ``text`` be cut, as blocks are cut: the last cut
    of each prefix."""
    return sorted({last_cut(text[:end]) for end in range(1, len(text) + 1)} - {-1})


class RulesHoldTests(unittest.TestCase):
    """Wherever a rule is found, cutting there changes no ID."""

    def check(self, tokenizer, rng, texts=40):
        """Random texts cut where the rule allows encode to the IDs of each whole; how many cuts were tried."""
        tried, last_cut = 0, safe_cut(tokenizer)
        for _ in range(texts):
            text = "".join(rng.choice([random_text(rng, rng.randrange(1, 12)), rng.choice(ADDED), " ", "ab ", "12 "])
                           for _ in range(rng.randrange(1, 10)))
            whole = tokenizer.encode(text)
            for at in cuts_allowed(last_cut, text):
                self.assertEqual(tokenizer.encode(text[:at]) + tokenizer.encode(text[at:]), whole, (text, at))
                tried += 1
        return tried

    def test_the_open_models_regexes_have_rules_that_hold(self):
        rng = random.Random(28)
        for name in ("llama3", "qwen3", "gptoss", "deepseek_v3", "GPT-2 (ByteLevel's use_regex)"):
            for prefix_space in (False, True):
                with self.subTest(name=name, prefix_space=prefix_space):
                    self.assertGreater(self.check(byte_level([split(MODEL_REGEXES[name])], prefix_space), rng, 8), 0)
        deepseek = [split(MODEL_REGEXES[name]) for name in ("deepseek_v3 digits", "deepseek_v3 kana and kanji",
                                                            "deepseek_v3")]
        self.assertGreater(self.check(byte_level(deepseek), rng, 20), 0)

    def test_hostile_regexes_in_every_behaviour(self):
        rng = random.Random(41)
        for name, regex in list(NO_RULE.items()) + list(ODD.items()) + [("llama3", MODEL_REGEXES["llama3"])]:
            for behavior in BEHAVIORS:
                for invert in (False, True):
                    tokenizer = byte_level([split(regex, behavior, invert)])
                    rule = cut_rule(tokenizer.pipeline, tokenizer.ids)
                    with self.subTest(name=name, behavior=behavior, invert=invert):
                        if name in NO_RULE or behavior not in ("isolated", "removed"):
                            self.assertIsNone(rule, "a behaviour that glues pieces makes no boundary alone")
                        elif rule is not None:
                            self.check(tokenizer, rng, 3)
        after_digits = byte_level([split(ODD["digits only"]), split(MODEL_REGEXES["llama3"], "merged_with_next")])
        self.assertGreater(self.check(after_digits, rng, 20), 0)  # digits apart, then a step that only glues

    def test_sentencepieces_kind_cuts_before_a_space_mark_no_token_crosses(self):
        vocab = ["<unk>", "▁", "a", "b", ">", "<", "▁a", "ab", "▁ab", "b▁", ">▁", "▁<", "▁▁"]
        merges = [("▁", "a"), ("a", "b"), ("▁a", "b"), ("b", "▁"), (">", "▁"), ("▁", "<"), ("▁", "▁")]
        pipeline = Pipeline(normalizer=[{"step": "replace", "old": " ", "new": "▁"}],
                            pre_tokenizer=[{"step": "split", "pattern": {"string": " "},
                                            "behavior": "merged_with_previous", "invert": False}],
                            model={"ignore_merges": False, "byte_fallback": False, "unk_token": "<unk>",
                                   "fuse_unk": False},
                            decoder=[{"step": "replace", "old": "▁", "new": " "}, {"step": "fuse"}],
                            added_tokens=[AddedToken(len(vocab), "<s>", True, False, False, False, False)])
        tokenizer = Tokenizer(None, merges, byte_level=False, vocab=vocab, pipeline=pipeline)
        rng = random.Random(7)
        tried, last_cut = 0, safe_cut(tokenizer)
        for _ in range(200):
            text = "".join(rng.choice(["a", "b", " ", "▁", ">", "<", "<s>", "x"]) for _ in range(rng.randrange(1, 16)))
            whole = tokenizer.encode(text)
            for at in cuts_allowed(last_cut, text):
                self.assertNotIn(text[at - 1], "b> ▁")  # (b▁ and >▁ are tokens: a merge crosses there)
                self.assertEqual(tokenizer.encode(text[:at]) + tokenizer.encode(text[at:]), whole, (text, at))
                tried += 1
        self.assertGreater(tried, 50)

    def test_what_has_no_rule(self):
        cases = {
            "a Unicode form": Pipeline(normalizer=[{"step": "NFC"}], pre_tokenizer=[split(MODEL_REGEXES["llama3"])]),
            "a text put first": Pipeline(normalizer=[{"step": "prepend", "text": "▁"}],
                                         pre_tokenizer=[split(MODEL_REGEXES["llama3"])]),
            "a longer replacement": Pipeline(normalizer=[{"step": "replace", "old": " ", "new": "  "}],
                                             pre_tokenizer=[split(MODEL_REGEXES["llama3"])]),
            "a normalized added token behind a replacement": Pipeline(
                normalizer=[{"step": "replace", "old": "x", "new": "y"}], pre_tokenizer=[split(MODEL_REGEXES["llama3"])],
                added_tokens=[AddedToken(len(BYTES), "<y>", True, True, False, False, False)]),
            "no pre-tokenizer": Pipeline(),
        }
        for name, pipeline in cases.items():
            with self.subTest(name=name):
                self.assertIsNone(cut_rule(pipeline, BYTES.ids))


def check_in_blocks(test, tokenizer):
    """``tokenizer`` counts a file of code and random text block by block, with the count of the whole."""
    rng = random.Random(3)
    with open(os.path.join(ROOT, "bpe.py"), encoding="utf-8") as stream:
        text = stream.read()[:8_000] + "".join(random_text(rng, rng.randrange(1, 30)) + " " for _ in range(250))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "text.txt")
        with open(path, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        longest, real = [0], Tokenizer.encode

        def encode(tok, block, **options):
            longest[0] = max(longest[0], len(block))
            return real(tok, block, **options)

        with mock.patch.object(Tokenizer, "encode", encode):
            counts = tokenizer.count_files([path], block_size=500, allowed_special="all")
    test.assertEqual(counts, [len(tokenizer.encode(text, allowed_special="all"))])
    test.assertLess(longest[0], 4_000)  # blocks, where before the whole file (about 12,000 characters) was one


class BlocksTests(unittest.TestCase):
    """Token files and counts read a file in blocks with the IDs of the whole (the open models: their tests)."""

    def test_the_labs_kind_with_a_prefix_space(self):
        check_in_blocks(self, Tokenizer.train("the cat sat on the mat " * 20, 300, byte_level=True,
                                              add_prefix_space=True))

if __name__ == "__main__":
    unittest.main()
