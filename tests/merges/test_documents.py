"""Training on what people train on: nanochat's pattern, no pattern, and documents, each held to its reference.

- nanochat's split pattern, byte level, ``ties="rustbpe", min_count=1``: rustbpe's tokens, as nanochat trains them;
- ``pattern="uncut"``, ``ties="first-seen", min_count=1``: minbpe's ``BasicTokenizer`` (restated in
  ``test_trainers.basic_merges``), on the lab's corpora;
- ``Tokenizer.train_from_iterator(documents, ...)``: no chunk crosses from one document into the next, so with the
  matching rule its merges are those of ``tokenizers``' BpeTrainer and rustbpe's, each through its own
  ``train_from_iterator`` on the same documents; and ``bpe train --jsonl FIELD`` reads JSON-lines files alike.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

import make_corpus
from bpe import Tokenizer
from tests import ROOT, test_readme
from tests.clients import require_module
from tests.in_process import run_here
from tests.lab_samples import SCRIPTS
from tests.merges.test_trainers import basic_merges, hf_merges, random_text, real_text, rustbpe_tokens, token_bytes
from tests.text.test_regex_patterns import NANOCHAT


def random_documents(rng):
    """A few documents of small alphabets (ties everywhere), some empty, some of other scripts."""
    documents = [random_text(rng, 80) for _ in range(rng.randint(1, 8))]
    for _ in range(rng.randint(0, 2)):
        documents.insert(rng.randrange(len(documents) + 1), rng.choice(["", *SCRIPTS.values()]))
    return documents


def paragraphs(text):
    """The paragraphs of a text, as documents."""
    return [paragraph for paragraph in text.split("\n\n") if paragraph]


@require_module("rustbpe")
class NanochatTests(unittest.TestCase):
    """nanochat's pattern through rustbpe (``rustbpe.Tokenizer.train_from_iterator(..., pattern=...)``)."""

    def assert_same(self, documents, merges):
        lab = Tokenizer.train_from_iterator(iter(documents), 256 + merges, byte_level=True, pattern=NANOCHAT,
                                            ties="rustbpe", min_count=1)
        self.assertEqual(token_bytes(lab), rustbpe_tokens(documents, 256 + merges, NANOCHAT))
        return len(lab.merges)

    def test_random_documents(self):
        merges = sum(self.assert_same(random_documents(random.Random(seed)), random.Random(seed).randint(0, 90))
                     for seed in range(40))
        self.assertGreater(merges, 800)

    def test_real_documents(self):
        self.assertEqual(self.assert_same(paragraphs(real_text()), 800), 800)
        text = real_text()
        self.assertEqual(Tokenizer.train(text, 256 + 300, byte_level=True, pattern=NANOCHAT, ties="rustbpe",
                                         min_count=1).merges[:300],
                         Tokenizer.train_from_iterator([text], 256 + 300, byte_level=True, pattern=NANOCHAT,
                                                       ties="rustbpe", min_count=1).merges)


@require_module("tokenizers")
class BpeTrainerTests(unittest.TestCase):
    """Documents through BpeTrainer (``ties="huggingface"``), at both levels, with a built-in pattern or a regex."""

    def test_random_documents_at_both_levels(self):
        for seed in range(40):
            rng = random.Random(seed)
            documents, byte_level = random_documents(rng), seed % 2 == 1
            pattern = rng.choice(["gpt2", "cl100k", NANOCHAT, "uncut"])
            size = (256 if byte_level else len(set("".join(documents))) + 1) + rng.randint(0, 90)
            if not "".join(documents):
                continue
            lab = Tokenizer.train_from_iterator(documents, size + (not byte_level), byte_level=byte_level,
                                                pattern=pattern, ties="huggingface", min_count=1)
            with self.subTest(seed=seed, pattern=pattern):
                self.assertEqual(lab.merges, hf_merges(documents, size, pattern, byte_level))

    def test_real_documents(self):
        documents = paragraphs(real_text())
        lab = Tokenizer.train_from_iterator(documents, 256 + 800, byte_level=True, pattern=NANOCHAT,
                                            ties="huggingface", min_count=1)
        self.assertEqual(lab.merges, hf_merges(documents, 256 + 800, NANOCHAT, True))
        self.assertEqual(len(lab.merges), 800)


class NoPatternTests(unittest.TestCase):
    """``pattern="uncut"``: the text as one sequence, minbpe's ``BasicTokenizer``, on the lab's corpora."""

    def test_basic_tokenizer_on_the_labs_corpora(self):
        texts = [make_corpus.corpus()[:6000], real_text()[:6000], " ".join(SCRIPTS.values())]
        texts += [random_text(random.Random(seed), 200) for seed in range(30)]
        for text in texts:
            merges = 60 if len(text) > 1000 else random.Random(len(text)).randint(0, 40)
            lab = Tokenizer.train(text, 256 + merges, byte_level=True, pattern="uncut", ties="first-seen",
                                  min_count=1)
            with self.subTest(text=text[:40]):
                self.assertEqual(token_bytes(lab), basic_merges(text, merges))

    def test_a_merge_may_cross_every_word(self):
        tokenizer = Tokenizer.train("to be, or not to be", 30, pattern="uncut", min_count=2)
        self.assertIn("to be", tokenizer.vocab)
        self.assertEqual(tokenizer.chunks("a b\n c"), ["a b\n c"])
        self.assertEqual(Tokenizer.from_json(tokenizer.to_json()).merges, tokenizer.merges)


class DocumentTests(unittest.TestCase):
    """``train_from_iterator``: streaming, documents apart, bad documents named, and the command line's ``--jsonl``."""

    def test_no_chunk_crosses_documents_and_the_iterator_is_read_once(self):
        seen = []

        def documents():
            for document in ["ab", "ab", "c", "abc"]:
                seen.append(document)
                yield document

        counted = []
        Tokenizer.train_from_iterator(documents(), 8, ties="first-seen", min_count=1,
                                      on_counts=lambda counts: counted.append(dict(counts)))
        self.assertEqual(seen, ["ab", "ab", "c", "abc"])
        self.assertEqual(dict(counted[0]), {"ab": 2, "c": 1, "abc": 1})
        whole = Tokenizer.train("ababcabc", 8, ties="first-seen", min_count=1)
        apart = Tokenizer.train_from_iterator(["ab", "ab", "c", "abc"], 8, pattern="uncut", ties="first-seen",
                                              min_count=1)
        self.assertNotEqual(whole.merges, apart.merges)  # ("b" "c" never meet across documents 3 and 4)
        self.assertEqual(apart.merges[0], ("a", "b"))

    def test_bad_documents_are_named(self):
        with self.assertRaisesRegex(TypeError, "document 2 is bytes, not a str"):
            Tokenizer.train_from_iterator(["a", "b", b"c"], 10)
        with self.assertRaisesRegex(TypeError, "documents must be an iterable of strings .* not a single str"):
            Tokenizer.train_from_iterator("abc", 10)
        with self.assertRaisesRegex(ValueError, "leave workers at 1"):
            Tokenizer.train_from_iterator(["ab"], 10, workers=2)
        with self.assertRaisesRegex(ValueError, "unknown pattern 'nope'"):
            Tokenizer.train_from_iterator(never_read(), 10, pattern="nope")

    def test_the_command_line_reads_json_lines(self):
        documents = paragraphs(real_text())[:60]
        with tempfile.TemporaryDirectory() as folder:
            path, out = os.path.join(folder, "docs.jsonl"), os.path.join(folder, "tok.json")
            with open(path, "w", encoding="utf-8-sig") as stream:  # (a byte-order mark first, as some editors write)
                stream.writelines(json.dumps({"id": number, "text": text}) + "\n" * (1 + number % 2)
                                  for number, text in enumerate(documents))
            command = [sys.executable, os.path.join(ROOT, "bpe.py"), "train", path, "--jsonl", "text", "--bytes",
                       "--vocab-size", "400", "--pattern", NANOCHAT, "-o", out]
            result = subprocess.run(command, capture_output=True, text=True, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(Tokenizer.load(out).merges, Tokenizer.train_from_iterator(
                documents, 400, byte_level=True, pattern=NANOCHAT).merges)
            with open(path, "a", encoding="utf-8") as stream:
                stream.write('{"id": 99, "body": "x"}\n')
            result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"docs\.jsonl, line 91: the record has no field 'text' \(it has 'id', 'body'\)")

    def test_the_command_line_reads_json_lines_from_standard_input(self):
        documents = paragraphs(real_text())[:20]
        lines = "".join(json.dumps({"text": text}) + "\n" for text in documents) + '{"body": 1}\n'
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "tok.json")
            command = ["train", "-", "--jsonl", "text", "--bytes", "--vocab-size", "300", "-o", out]
            result = run_here(*command, stdin=lines[:lines.rindex('{"body"')].encode("utf-8"), text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(Tokenizer.load(out).merges,
                             Tokenizer.train_from_iterator(documents, 300, byte_level=True).merges)
            result = run_here(*command, stdin=lines.encode("utf-8"), text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("standard input, line 21: the record has no field 'text'", result.stderr)


@require_module("tokenizers")
@require_module("rustbpe")
class DocsExamples(unittest.TestCase):
    """docs/api.md's and docs/trainers.md's Python blocks print what they say, and command-line.md's ``--jsonl``
    block (its stories.jsonl made as it says) prints its lines."""

    def test_python_blocks(self):
        for name, fewest in (("api.md", 1), ("trainers.md", 3)):
            self.assertGreaterEqual(test_readme.check_python_blocks(self, os.path.join(ROOT, "docs", name)), fewest)

    def test_the_json_lines_block(self):
        blocks = [body for language, _, body, _ in test_readme.fenced_blocks(
            test_readme.read(os.path.join(ROOT, "docs", "command-line.md"))) if language == "console" and "--jsonl" in body]
        self.assertEqual(len(blocks), 1)
        with test_readme.scratch_folder():
            with open("corpus.txt", encoding="utf-8") as stream, open("stories.jsonl", "w", encoding="utf-8") as out:
                out.writelines(json.dumps({"text": line}) + "\n" for line in stream.read().splitlines())
            for command, output in test_readme.console_commands(blocks[0]):
                found = test_readme.run_command(test_readme.checkable(command, ["stories.jsonl"]))
                self.assertTrue(test_readme.lines_match(output, found), "\n".join(found))


def never_read():
    """Documents that must not be read: the options are refused first."""
    raise AssertionError("an option should have been refused before the documents were read")
    yield  # (a generator)


if __name__ == "__main__":
    unittest.main()
