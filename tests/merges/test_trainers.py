"""Each library's trainer, reproduced: the lab's tie rules and ``min_count`` give their exact merge lists.

Hugging Face ``tokenizers`` (BpeTrainer) at both levels and ``rustbpe`` at
the byte level train on the same random and real texts, chunked the lab's
way (each library given the lab's pattern, and the text cut at special
tokens into separate items, which merges never cross), and must learn
exactly the lab's merges with the matching options (docs/trainers.md).
minbpe is not packaged: its training loop, as its source reads, is
re-stated below. Counting in worker processes gives the merges of one
process, under every rule.
"""

import functools
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import bpe
from bpe import Tokenizer
from bpelab.corpora import counting
from tests.clients import require_module
from tests import ROOT


with open(os.path.join(ROOT, "corpus.txt"), encoding="utf-8", newline="") as _stream:
    CORPUS = _stream.read()

ALPHABETS = ["ab", "abc", "ab ", "abc  ", "aab ", "xyz.\n", "a\u00e9 ", "a\U0001f600b ", "aA1 '\t", "ab\n\n",
             "\u0441\u044f ", "ab<>|", "a1 2", "ab'st ", "\u00ff\u0100 a"]
"""Small alphabets, so that most pair counts tie and the tie rule decides."""

SPECIALS = [(), ("<s>",), ("b",), ("ab", "<|e|>")]


def random_text(rng, longest=300):
    alphabet = rng.choice(ALPHABETS)
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, longest)))


def real_text():
    """Real prose and code: this project's README and docs (their merges change with them; both sides see the same).

    Not the parallel sentences of docs/languages.md, whose 14 scripts would make most of a character vocabulary.
    """
    texts = []
    docs = [path for path in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) if not path.endswith("languages.md")]
    for path in [os.path.join(ROOT, "README.md"), *docs]:
        with open(path, encoding="utf-8", newline="") as stream:
            texts.append(stream.read())
    return "".join(texts)


def pieces(text, specials):
    """The text between special tokens (the longest first), without them: the items each library is given."""
    if not specials:
        return [text]
    finder = re.compile("|".join(re.escape(text) for text in sorted(specials, key=len, reverse=True)))
    return [piece for piece in finder.split(text) if piece]


def token_bytes(tokenizer):
    """The bytes of each merged token of a byte-level tokenizer, in ID order."""
    return [bpe.display_to_bytes(token) for token in tokenizer.vocab[256:256 + len(tokenizer.merges)]]


@functools.cache
def hf_pre_tokenizer(pattern, byte_level):
    """Hugging Face's pre-tokenizer that cuts the lab's chunks (the bytes as display characters at the byte level)."""
    from tokenizers import Regex, pre_tokenizers

    split = pre_tokenizers.Split(Regex(bpe.pattern_source(pattern, "oniguruma")), "isolated")
    if not byte_level:
        return split
    return pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])


def hf_merges(items, vocab_size, pattern, byte_level, specials=(), min_frequency=0):
    """The merges BpeTrainer learns through ``train_from_iterator`` from ``items`` (documents), cut by ``pattern``."""
    from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, trainers

    tokenizer = HFTokenizer(models.BPE())
    tokenizer.pre_tokenizer = hf_pre_tokenizer(pattern, byte_level)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                  special_tokens=list(specials),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_level else [])
    tokenizer.train_from_iterator(items, trainer)
    return [tuple(merge) for merge in json.loads(tokenizer.to_str())["model"]["merges"]]


@require_module("tokenizers")
class HuggingFaceTests(unittest.TestCase):
    """``ties="huggingface"``, ``min_count=max(1, min_frequency)``: BpeTrainer's merges, both levels."""

    def assert_same(self, text, vocab_size, pattern, byte_level, specials=(), min_frequency=0):
        """The same merges, with the lab's ``vocab_size`` counted as Hugging Face counts it; return them.

        The lab's vocabulary has ``<unk>`` at the character level; at the
        byte level Hugging Face counts a one-character special token that is
        also a display character (``b``) once, not twice.
        """
        overlap = sum(special in bpe.CHAR_TO_BYTE for special in specials) if byte_level else 1
        lab = Tokenizer.train(text, vocab_size + overlap, byte_level=byte_level, pattern=pattern,
                              special_tokens=list(specials), ties="huggingface", min_count=max(1, min_frequency))
        self.assertEqual(lab.merges, hf_merges(pieces(text, specials), vocab_size, pattern, byte_level,
                                               specials, min_frequency))
        return lab.merges

    def test_random_texts_at_both_levels(self):
        merges = 0
        for seed in range(160):
            rng = random.Random(seed)
            text, pattern, specials = random_text(rng), rng.choice(bpe.PATTERNS), rng.choice(SPECIALS)
            byte_level = seed % 2 == 1
            if not "".join(pieces(text, specials)):
                continue
            with self.subTest(seed=seed, text=text, pattern=pattern, specials=specials, byte_level=byte_level):
                base = 256 if byte_level else len(set("".join(pieces(text, specials))))
                merges += len(self.assert_same(text, base + len(specials) + rng.randint(0, 60), pattern, byte_level,
                                               specials, min_frequency=rng.choice([0, 1, 2, 3])))
        self.assertGreater(merges, 2000)

    def test_real_text_at_both_levels(self):
        text = real_text()
        self.assertGreater(len(self.assert_same(text, len(set(text)) + 1 + 700, "lab", False)), 600)
        self.assertGreater(len(self.assert_same(text, 256 + 700, "gpt2", True, min_frequency=2)), 600)
        self.assertEqual(len(self.assert_same(CORPUS, 2000, "gpt2", True)), 81)  # to the end: no pair is left

    def test_the_rule_differs_from_the_labs_own(self):
        text = "aa<s> bz<s>aa<s> bz"  # reference_train's example: Hugging Face puts the space after the letters
        self.assertEqual(self.assert_same(text, 260, "gpt2", True, ["<s>"]), [("a", "a"), ("b", "z"), ("Ġ", "bz")])
        self.assertEqual(Tokenizer.train(text, 260, byte_level=True, special_tokens=["<s>"]).merges,
                         [("Ġ", "b"), ("Ġb", "z"), ("a", "a")])


def rustbpe_tokens(items, vocab_size, pattern):
    """The bytes of each token rustbpe learns through ``train_from_iterator`` from ``items`` (documents), in ID order."""
    import rustbpe

    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(items, vocab_size, pattern=bpe.pattern_source(pattern, "rust"))
    return [bytes(token) for token, _ in sorted(tokenizer.get_mergeable_ranks(), key=lambda entry: entry[1])][256:]


@require_module("rustbpe")
class RustbpeTests(unittest.TestCase):
    """``ties="rustbpe"``, ``min_count=1``: rustbpe's tokens, in ID order, at the byte level."""

    def assert_same(self, text, merges, pattern, specials=()):
        lab = Tokenizer.train(text, 256 + merges + len(specials), byte_level=True, pattern=pattern,
                              special_tokens=list(specials), ties="rustbpe", min_count=1)
        self.assertEqual(token_bytes(lab), rustbpe_tokens(pieces(text, specials), 256 + merges, pattern))
        return len(lab.merges)

    def test_random_texts(self):
        merges = 0
        for seed in range(80):
            rng = random.Random(seed)
            text, specials = random_text(rng), rng.choice(SPECIALS)
            if not "".join(pieces(text, specials)):
                continue
            with self.subTest(seed=seed, text=text, specials=specials):
                merges += self.assert_same(text, rng.randint(0, 120), rng.choice(bpe.PATTERNS), specials)
        self.assertGreater(merges, 1500)

    def test_real_text(self):
        self.assertEqual(self.assert_same(real_text(), 1000, "gpt2"), 1000)
        self.assertEqual(self.assert_same(real_text(), 600, "cl100k"), 600)


def minbpe_merges(text, pattern, merges):
    """minbpe's ``RegexTokenizer.train`` loop, as its source (karpathy/minbpe, minbpe/regex.py) has it.

    Every chunk of the text, repeats included, as byte values; each round
    counts pairs into a fresh dict (so in the order first seen), takes
    ``max`` by count (the first of equals) and merges it, as ID 256 + round,
    whatever its count. Returns the bytes of each new token.
    """
    return minbpe_loop([list(chunk.encode("utf-8")) for chunk in bpe.chunks(text, pattern)], merges)


def basic_merges(text, merges):
    """minbpe's ``BasicTokenizer.train``, as minbpe/basic.py has it (karpathy/minbpe at commit
    cf120a4eab2cd194d014320dd8d92ceb42487af9): the text's UTF-8 bytes as one list of IDs, no pattern; each round
    ``get_stats`` of that list, ``max`` by count, ``merge``: ``RegexTokenizer``'s loop on a single chunk."""
    return minbpe_loop([list(text.encode("utf-8"))], merges)


def minbpe_loop(ids, merges):
    """The rounds both minbpe tokenizers run on ``ids`` (a list of chunks, each a list of byte values)."""
    spelled = [bytes([byte]) for byte in range(256)]
    for new in range(256, 256 + merges):
        stats = {}
        for chunk in ids:
            for pair in zip(chunk, chunk[1:]):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break  # (minbpe itself raises here: max() of an empty dict)
        pair = max(stats, key=stats.get)
        spelled.append(spelled[pair[0]] + spelled[pair[1]])
        ids = [_merged(chunk, pair, new) for chunk in ids]
    return spelled[256:]


def _merged(chunk, pair, new):
    """minbpe's ``merge``: every occurrence of the pair of IDs, left to right, becomes ``new``."""
    merged, at = [], 0
    while at < len(chunk):
        if chunk[at:at + 2] == list(pair):
            merged.append(new)
            at += 2
        else:
            merged.append(chunk[at])
            at += 1
    return merged


class MinbpeTests(unittest.TestCase):
    """minbpe is ``ties="first-seen"`` with ``min_count=1``: counting distinct chunks changes nothing."""

    def test_random_texts(self):
        for seed in range(60):
            rng = random.Random(seed)
            text, pattern, merges = random_text(rng, 150), rng.choice(bpe.PATTERNS), rng.randint(0, 60)
            lab = Tokenizer.train(text, 256 + merges, byte_level=True, pattern=pattern, ties="first-seen", min_count=1)
            with self.subTest(seed=seed, text=text, pattern=pattern):
                self.assertEqual(token_bytes(lab), minbpe_merges(text, pattern, merges))


class WorkerTests(unittest.TestCase):
    """Counting in worker processes gives the counts, in order, and so the merges, of one process."""

    def test_workers_reading_their_own_parts_of_files(self):
        rng = random.Random(6)
        with tempfile.TemporaryDirectory() as folder, mock.patch.object(counting, "TASK_SIZE", (64, 64)):
            for trial in range(6):  # tiny partitions: many cuts, some at a file's end, special tokens among them
                paths = [os.path.join(folder, f"{trial}-{number}.txt") for number in range(rng.randint(1, 3))]
                for path in paths:
                    with open(path, "w", encoding="utf-8", newline="") as stream:
                        stream.write("".join(rng.choice(["ab ", "<s>", "c\n", "  ", "é", "12"]) for _ in range(300)))
                for byte_level, pattern in ((False, "lab"), (True, "o200k")):
                    with self.subTest(trial=trial, pattern=pattern):
                        options = {"byte_level": byte_level, "pattern": pattern, "special_tokens": ["<s>"],
                                   "ties": "first-seen", "min_count": 1}
                        size = (256 if byte_level else 9) + 40
                        self.assertEqual(Tokenizer.train_from_files(paths, size, workers=2, **options).history,
                                         Tokenizer.train_from_files(paths, size, **options).history)

    def test_workers_give_the_merges_of_one_process_under_every_rule(self):
        rng = random.Random(5)
        text = " ".join(random_text(rng, 40) for _ in range(400)) + " <s> " + "xy xy yx " * 20
        with mock.patch.object(counting, "TASK_SIZE", (500, 500)):  # many small tasks, several in flight
            counts = counting.count_in_workers(bpe.text_blocks(text, 97), "gpt2", special_tokens=["<s>"], workers=2)
            self.assertEqual(list(counts.items()), list(bpe.count_chunks([text], "gpt2", special_tokens=["<s>"]).items()))
            for ties in bpe.TIE_RULES:
                with self.subTest(ties=ties):
                    options = {"byte_level": ties != "first-seen", "pattern": "gpt2", "special_tokens": ["<s>"],
                               "ties": ties, "min_count": 1 + len(ties) % 2}
                    one = Tokenizer.train(text, 700, **options)
                    self.assertEqual(Tokenizer.train(text, 700, workers=2, **options).history, one.history)

    def test_files_and_the_command_line(self):
        text = real_text()
        with tempfile.TemporaryDirectory() as folder, mock.patch.object(counting, "TASK_SIZE", (4096, 4096)):
            paths = [os.path.join(folder, f"part{number}.txt") for number in range(3)]
            for number, path in enumerate(paths):  # cut mid-word: the files are one text
                with open(path, "w", encoding="utf-8", newline="") as stream:
                    stream.write(text[number * len(text) // 3:(number + 1) * len(text) // 3])
            size = len(set(text)) + 1 + 300
            one = Tokenizer.train(text, size, ties="first-seen")
            two = Tokenizer.train_from_files(paths, size, ties="first-seen", workers=2, block_size=1000)
            self.assertEqual(two.history, one.history)
            out = os.path.join(folder, "tok.json")
            result = subprocess.run([sys.executable, os.path.join(ROOT, "bpe.py"), "train", *paths, "--vocab-size",
                                     str(size), "--ties", "huggingface", "--min-count", "3", "--workers", "2", "-o", out],
                                    capture_output=True, text=True, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(Tokenizer.load(out).merges,
                             Tokenizer.train(text, size, ties="huggingface", min_count=3).merges)

    def test_bad_options_are_refused_before_any_work(self):
        with self.assertRaisesRegex(TypeError, "min_count must be a positive int, not float"):
            Tokenizer.train("ab ab", 10, min_count=1.5)
        with self.assertRaisesRegex(ValueError, "min_count must be a positive int, not 0"):
            Tokenizer.train_from_counts({"ab": 2}, 10, min_count=0)
        with self.assertRaisesRegex(ValueError, "workers must be at most"):
            Tokenizer.train("ab ab", 10, workers=10_000)
        with self.assertRaisesRegex(ValueError, "ties must be 'smallest' or .* not 'largest'"):
            Tokenizer.train("ab ab", 10, ties="largest")


if __name__ == "__main__":
    unittest.main()
