"""Chunk patterns given as regexes: the ``regex`` package's chunks, refusals by name, safe cuts, files and exports.

``pattern=`` takes a regex as Hugging Face, tiktoken and nanochat write it
(``bpelab.text.patterns.regex_pattern``). Its chunks are held to the
``regex`` package's matches (the module nanochat's and tiktoken's Python
code use) on random texts drawing from every script, with the text between
matches as chunks of their own; what cannot be read exactly is refused in
one line; the safe cuts found for it keep its chunks; and a tokenizer
trained with it survives its own file, tiktoken's and Hugging Face's.
"""

import base64
import json
import os
import pickle
import random
import tempfile
import unicodedata
import unittest

import bpe
from bpe import Tokenizer
from bpelab.text import patterns
from tests.clients import require_module
from tests.lab_samples import FORM_SCRIPTS, SCRIPTS

NANOCHAT = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,2}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
            r"""|\s*[\r\n]|\s+(?!\S)|\s+""")
"""nanochat's split pattern (nanochat/tokenizer.py's SPLIT_PATTERN: GPT-4's, numbers in runs of one or two)."""

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""GPT-2's pattern as its encoder.py writes it."""

O200K = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
])
"""GPT-4o's pattern as tiktoken writes it (tiktoken_ext/openai_public.py)."""

GAPS = r"""\p{L}+(?=\s)|(?<=\d)\d|\p{Lu}\p{Ll}*+"""
"""A pattern that leaves text between its matches (each stretch of it one chunk, as Hugging Face's Split keeps it)."""

REGEXES = {"nanochat": NANOCHAT, "gpt2": GPT2, "o200k": O200K, "gaps": GAPS}

ASSIGNED = [chr(code) for code in range(0x110000)
            if unicodedata.category(chr(code)) not in ("Cn", "Cs", "Co")]
"""Every character assigned in the Unicode of this Python (14.0.0 on 3.11, the lab's tables' version)."""

EVERY_SCRIPT = "".join(sorted(set("".join(SCRIPTS.values()) + "".join(FORM_SCRIPTS.values()))))

PIECES = ["'s", "'LL", "'Ve", "'t", " ", "  ", "\n", "\r\n", "\t", " \n ", "123", "4", "٣٤", "²", ".", "...", "!?\n",
          "ſ", "K", "'ſ", "don't", "I'M"]


def random_text(rng):
    """Pieces of every script, random characters of any script, contractions, digits and whitespace, mixed."""
    parts = []
    for _ in range(rng.randint(1, 25)):
        kind = rng.random()
        if kind < 0.4:
            start = rng.randrange(len(EVERY_SCRIPT))
            parts.append(EVERY_SCRIPT[start:start + rng.randint(1, 6)])
        elif kind < 0.6:
            parts.append(rng.choice(ASSIGNED))
        else:
            parts.append(rng.choice(PIECES))
    return "".join(parts)


def with_gaps(matches, text):
    """The matches (``(start, end)``) and the text between them, as chunks."""
    found, at = [], 0
    for start, end in matches:
        found += [text[at:start]] * (start > at) + [text[start:end]]
        at = end
    return found + [text[at:]] * (at < len(text))


TEXTS = [random_text(random.Random(seed)) for seed in range(1000)] + list(SCRIPTS.values())


@require_module("regex")
class RegexPackageTests(unittest.TestCase):
    """The chunks of each regex are the ``regex`` package's matches, and the text between them."""

    def test_random_texts_of_every_script(self):
        import regex

        for name, source in REGEXES.items():
            theirs = regex.compile(source)
            cut = bpe.chunker(source)
            for text in TEXTS:
                expected = with_gaps([found.span() for found in theirs.finditer(text)], text)
                with self.subTest(pattern=name, text=text):
                    self.assertEqual(bpe.chunks(text, source), expected)
                    self.assertEqual(cut(text), expected)
        self.assertEqual(bpe.chunks("I'LL pay 1234 ſ!", NANOCHAT), ["I", "'LL", " pay", " ", "12", "34", " ſ", "!"])


class RefusalTests(unittest.TestCase):
    """A pattern that is empty, matches empty, is spelled like a misspelt name, cannot be read exactly or could take
    more than quadratic time is a one-line ``ValueError``, before any training."""

    CASES = [("", "the pattern is empty"), ("gtp2", "unknown pattern 'gtp2'"),
             ("a*|b", "matches the empty string"), ("\\p{L}+|", "^the pattern '\\\\p\\{L\\}\\+\\|' matches the empty"),
             ("\\w+", "the word class .* at position 0"),
             ("(?<n>a)", "a named group .* at position 0"), ("(a*)*c", "at position 0")]

    def test_each_is_refused_in_one_line(self):
        for source, message in self.CASES:
            with self.subTest(pattern=source), self.assertRaisesRegex(ValueError, message) as caught:
                Tokenizer.train("text", 300, byte_level=True, pattern=source)
            self.assertNotIn("\n", str(caught.exception))
        with self.assertRaisesRegex(ValueError, "unknown pattern 5"):
            Tokenizer.train("text", 300, byte_level=True, pattern=5)

    def test_what_tiktoken_would_cut_otherwise_is_refused_on_export(self):
        text = "ab cd\nef"
        for source, message in [("\\s+$|\\S+|\\s+", "holds \\$"), ("\\p{L}+", "may leave text between")]:
            tokenizer = Tokenizer.train(text, 258, byte_level=True, pattern=source, min_count=1)
            with self.subTest(pattern=source), self.assertRaisesRegex(ValueError, message):
                tokenizer.to_tiktoken()


class SafeCutTests(unittest.TestCase):
    """The safe cuts found for a regex keep its chunks: text cut into blocks of one character at them."""

    def test_blocks_keep_the_chunks(self):
        self.assertEqual(patterns.safe_cut_rule(GAPS), patterns.SAFE_CUTS["uncut"])  # (its look-ahead: none proven)
        for name, source in REGEXES.items():
            for text in TEXTS[:120]:
                blocks = list(bpe.safe_blocks(bpe.text_blocks(text, 1), source))
                with self.subTest(pattern=name, text=text):
                    self.assertEqual([chunk for block in blocks for chunk in bpe.chunks(block, source)],
                                     bpe.chunks(text, source))
        self.assertGreater(len(list(bpe.safe_blocks(bpe.text_blocks(" ".join(TEXTS), 1), NANOCHAT))), 300)


class FileTests(unittest.TestCase):
    """A regex pattern is saved in format 3, loads back as the lab's kind, and exports to tiktoken and Hugging Face."""

    @classmethod
    def setUpClass(cls):
        cls.text = " ".join(TEXTS[:150])
        cls.tokenizer = Tokenizer.train(cls.text, 600, byte_level=True, pattern=NANOCHAT, special_tokens=["<|bos|>"],
                                        min_count=1)

    def test_format_3_round_trip(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tok.json")
            self.tokenizer.save(path)
            loaded = Tokenizer.load(path)
            with open(path, encoding="utf-8") as stream:
                self.assertEqual(json.load(stream)["format_version"], 3)
        self.assertEqual((loaded.pattern, loaded.merges, loaded.describe()["pipeline"]),
                         (NANOCHAT, self.tokenizer.merges, []))
        self.assertEqual(loaded.encode(self.text), self.tokenizer.encode(self.text))
        self.assertEqual(bpe.Tokenizer.from_json(loaded.to_json()).to_json(), self.tokenizer.to_json())

    @require_module("tiktoken")
    def test_tiktoken_encodes_alike(self):
        import tiktoken

        data = self.tokenizer.to_tiktoken()
        encoding = tiktoken.Encoding("lab", pat_str=data["pat_str"], mergeable_ranks=data["mergeable_ranks"],
                                     special_tokens=data["special_tokens"])
        for text in TEXTS:
            self.assertEqual(encoding.encode(text), self.tokenizer.encode(text), text)

    def test_a_tiktoken_file_loads_back_with_its_pattern(self):
        data = self.tokenizer.to_tiktoken()
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "lab.tiktoken")
            with open(path, "w", encoding="ascii") as stream:
                stream.writelines(f"{base64.b64encode(token).decode()} {rank}\n"
                                  for token, rank in data["mergeable_ranks"].items())
            loaded = Tokenizer.load_tiktoken(path, NANOCHAT, data["special_tokens"])
            with self.assertRaisesRegex(ValueError, "may leave text between its matches"):
                Tokenizer.load_tiktoken(path, GAPS)
        self.assertEqual((loaded.pattern, loaded.merges), (NANOCHAT, self.tokenizer.merges))
        self.assertEqual(loaded.encode(self.text, allowed_special="all"), self.tokenizer.encode(self.text))

    @require_module("tokenizers")
    def test_hugging_face_encodes_alike(self):
        import tokenizers

        theirs = tokenizers.Tokenizer.from_str(json.dumps(self.tokenizer.to_huggingface()))
        for text in TEXTS:
            self.assertEqual(theirs.encode(text, add_special_tokens=False).ids, self.tokenizer.encode(text), text)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tokenizer.json")
            self.tokenizer.save_huggingface(path)
            loaded = Tokenizer.load_huggingface(path)
        self.assertEqual(loaded.encode(self.text), self.tokenizer.encode(self.text))


class CharacterLevelFileTests(unittest.TestCase):
    """A character-level tokenizer with a regex pattern is saved in format 3 too, loads back as the lab's kind, goes
    to worker processes, and exports to Hugging Face (tiktoken, bytes only, refuses it by name)."""

    @classmethod
    def setUpClass(cls):
        cls.text = " ".join(TEXTS[:150])
        cls.tokenizer = Tokenizer.train(cls.text, len(set(cls.text)) + 300, pattern=NANOCHAT,
                                        special_tokens=["<|bos|>"], min_count=1)

    def test_format_3_round_trip(self):
        with tempfile.TemporaryDirectory() as folder:
            first, second = os.path.join(folder, "first.json"), os.path.join(folder, "second.json")
            self.tokenizer.save(first)
            loaded = Tokenizer.load(first)
            loaded.save(second)
            with open(first, "rb") as stream, open(second, "rb") as again:
                written = stream.read()
                self.assertEqual(again.read(), written)
        self.assertEqual((json.loads(written)["format_version"], json.loads(written)["level"]), (3, "characters"))
        self.assertEqual((loaded.byte_level, loaded.pattern, loaded.alphabet, loaded.merges),
                         (False, NANOCHAT, self.tokenizer.alphabet, self.tokenizer.merges))
        self.assertEqual((loaded.special_tokens, loaded.vocab), ({"<|bos|>": len(loaded) - 1}, self.tokenizer.vocab))
        self.assertEqual(loaded.describe(), self.tokenizer.describe())  # the lab's kind: no pipeline, <unk> as ID 0
        for text in TEXTS + ["<|bos|>" + self.text]:
            self.assertEqual(loaded.encode(text, allowed_special="all"),
                             self.tokenizer.encode(text, allowed_special="all"), text)

    def test_workers_encode_alike(self):
        expected = [self.tokenizer.encode(text) for text in TEXTS[:200]]
        self.assertEqual(self.tokenizer.encode_batch(TEXTS[:200], workers=2), expected)
        copy = pickle.loads(pickle.dumps(self.tokenizer))  # what a worker gets where processes are spawned, not forked
        self.assertEqual([copy.encode(text) for text in TEXTS[:200]], expected)

    def test_tiktoken_refuses_it_by_name(self):
        with self.assertRaisesRegex(ValueError, "only a byte-level tokenizer"):
            self.tokenizer.to_tiktoken()

    @require_module("tokenizers")
    def test_hugging_face_encodes_alike(self):
        import tokenizers

        theirs = tokenizers.Tokenizer.from_str(json.dumps(self.tokenizer.to_huggingface()))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tokenizer.json")
            self.tokenizer.save_huggingface(path)
            loaded = Tokenizer.load_huggingface(path)
        for text in TEXTS:
            ours = self.tokenizer.encode(text)
            self.assertEqual(theirs.encode(text, add_special_tokens=False).ids, ours, text)
            self.assertEqual(loaded.encode(text), ours, text)


if __name__ == "__main__":
    unittest.main()
