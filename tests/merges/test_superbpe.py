"""SuperBPE: its stage-2 split equals the paper's in Hugging Face, its fast trainer the definition, its files round-trip.

The paper's split is Hugging Face's ``Split(Regex(p), "isolated")`` with
``p = \\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]{2,}[\\r\\n/]*| +(?!\\S)`` (scripts/extend_tokenizer.sh
of the paper's repository); ours spells its classes out (Unicode 14.0.0), so
the two agree on every character that version assigns.
"""

import json
import os
import random
import re
import tempfile
import unicodedata
import unittest
from collections import Counter

import bpe
from bpe import Tokenizer, chunks
from bpelab.byte_level import SINGLE_BYTES, bytes_to_display
from bpelab.merges.training import SUPERBPE_TIES
from bpelab.text import patterns
from make_corpus import corpus
from tests.clients import require_module
from tests.in_process import run_here

PAPER_SPLIT = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
"""The stage-2 pre-tokenizer regex of the paper's repository, copied as a fact."""

PIECES = [" ", "  ", "   ", "\n", "\r\n", "\n\n", "\t", "a", "Zq", "é", "ß", "1", "٣", "12345", ".", ",", "!!", "/", "//",
          "'", "--", ": ", "\x1c", "\x85", "\u00a0", "\u3000", "\u0301", "🍪", "𝔘", "中文"]
"""Pieces whose neighbours the split's alternatives and look-aheads care about."""


def assigned_unicode(rng, length):
    """Random text from every plane, of characters Unicode 14.0.0 assigns (no lone surrogates)."""
    chars = []
    while len(chars) < length:
        char = chr(rng.randint(0, rng.choice([0x7F, 0x7FF, 0xFFFF, 0x10FFFF])))
        if unicodedata.category(char) not in ("Cn", "Cs"):
            chars.append(char)
    return "".join(chars)


def samples(seed, count):
    """Random text from every plane, and random strings of ``PIECES``."""
    rng = random.Random(seed)
    return ([assigned_unicode(rng, rng.randint(0, 40)) for _ in range(count)]
            + ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 16))) for _ in range(count)])


def random_text(rng):
    """A small random corpus with words, digits, punctuation and whitespace of every kind that matters here."""
    words = ["a", "ab", "ba", "abc", "ca", "é", "A", "Ab", "'s", "1", "12", "x1", "!", "..", ",", "-", "--", "/", "\t",
             "\t \n", "  ", "\n"]
    return "".join(rng.choice(words) + rng.choice(["", " ", " ", "\n", ". "]) for _ in range(rng.randint(1, 70)))


def base_sequences(counts, byte_level):
    """Chunk counts as the base tokens ``reference_superbpe`` takes: characters, or single bytes."""
    return {tuple(SINGLE_BYTES[byte] for byte in chunk.encode("utf-8")) if byte_level else tuple(chunk): count
            for chunk, count in counts.items()}


def reference_merges(text, size, byte_level, transition, pattern, ties):
    """The merges ``reference_superbpe`` learns on ``text``, as a tokenizer lists them."""
    base = 256 if byte_level else len(set(text)) + 1
    learned = bpe.reference_superbpe(base_sequences(Counter(chunks(text, pattern)), byte_level),
                                     base_sequences(Counter(chunks(text, "superbpe")), byte_level),
                                     transition, size - base, ties=ties)
    shown = bytes_to_display if byte_level else str
    return [(shown(left), shown(right)) for (left, right), _ in learned]


TEXT = corpus() + "\n".join(["at 10 the park -- 2 cats!! sat; then 345 more...", "‘Quoted,’ she said: “yes.”"] * 20)
TOKENIZER = Tokenizer.train(TEXT, 700, byte_level=True, superbpe=100)


class SplitTests(unittest.TestCase):
    """The "superbpe" pattern cuts as the paper's split does."""

    def test_words_lines_and_single_punctuation_stay_together(self):
        self.assertEqual(chunks("at the park, mia.\n\nThen 1234 cats -- ok!!\n  x  ", "superbpe"),
                         ["at the park, mia.\n\nThen ", "123", "4", " cats", " --", " ok", "!!\n", " ", " x", "  "])

    def test_the_stretches_between_matches_are_what_their_definition_says(self):
        # "Everything between two matches" said the plain way: characters where no alternative matches.
        matches = "{number}{{1,3}}| ?{symbol}{{2,}}[\r\n/]*| +(?!{not_white})"
        between = re.compile(patterns.fill_classes(f"{matches}|(?:(?!{matches})[\u0000-\U0010FFFF])+", "python"))
        for text in samples(1, 1000):
            self.assertEqual(chunks(text, "superbpe"), between.findall(text), text)

    @require_module("tokenizers")
    def test_it_cuts_as_hugging_face_cuts_with_the_papers_regex(self):
        from tokenizers import Regex
        from tokenizers.pre_tokenizers import Split

        papers = Split(Regex(PAPER_SPLIT), "isolated")
        ours = Split(Regex(bpe.pattern_source("superbpe", "oniguruma")), "isolated")
        for text in samples(2, 3000):
            expected = chunks(text, "superbpe")
            self.assertEqual([piece for piece, _ in papers.pre_tokenize_str(text)], expected, text)
            self.assertEqual([piece for piece, _ in ours.pre_tokenize_str(text)], expected, text)

    def test_the_end_of_a_digit_run_is_the_safe_cut(self):
        self.assertEqual(bpe.last_safe_cut("see 12 items, then 345 more", "superbpe"), 22)
        self.assertEqual(bpe.last_safe_cut("no digit. at all, here\n\nor here", "superbpe"), -1)
        self.assertEqual(bpe.last_safe_cut("a 1234", "superbpe"), -1)  # not between 123 and 4, nor after the end


class TrainingTests(unittest.TestCase):
    """The fast two-stage trainer equals ``reference_superbpe``, from text, files and counts."""

    def test_fast_equals_the_definition_on_random_corpora(self):
        rng = random.Random(21)
        for trial in range(240):
            text = random_text(rng)
            byte_level, ties = rng.random() < 0.5, rng.choice(SUPERBPE_TIES)
            pattern, transition = rng.choice(["o200k", "cl100k", "gpt2", "lab"]), rng.randint(0, 30)
            size = (256 if byte_level else len(set(text)) + 1) + rng.randint(1, 60)
            with self.subTest(trial=trial, ties=ties):
                found = Tokenizer.train(text, size, byte_level=byte_level, pattern=pattern, superbpe=transition, ties=ties)
                self.assertEqual(found.merges, reference_merges(text, size, byte_level, transition, pattern, ties))
                self.assertEqual(found.pattern, "superbpe")

    def test_stage_one_is_plain_bpe_with_o200k_and_stage_two_spans_words(self):
        plain = Tokenizer.train(TEXT, 256 + 100, byte_level=True, pattern="o200k")
        self.assertEqual(TOKENIZER.merges[:100], plain.merges)
        later = [left + right for left, right in TOKENIZER.merges[100:]]
        self.assertTrue(any("Ġ" in token.lstrip("Ġ") for token in later))  # a token holding a space inside it
        self.assertEqual(bpe.Tokenizer(None, TOKENIZER.merges, byte_level=True, pattern="superbpe").encode(TEXT),
                         TOKENIZER.encode(TEXT))

    def test_files_and_counts_give_what_text_gives(self):
        counts, spans = Counter(chunks(TEXT, "o200k")), Counter(chunks(TEXT, "superbpe"))
        from_counts = Tokenizer.train_from_counts(counts, 700, byte_level=True, superbpe=100, superbpe_counts=spans)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "text.txt")
            with open(path, "wb") as stream:
                stream.write(TEXT.encode("utf-8"))
            from_files = Tokenizer.train_from_files([path], 700, byte_level=True, superbpe=100, block_size=7)
        self.assertEqual(from_counts.history, TOKENIZER.history)
        self.assertEqual(from_files.history, TOKENIZER.history)

    def test_progress_and_merges_are_heard_across_both_stages(self):
        heard, progress = [], []
        Tokenizer.train(TEXT, 700, byte_level=True, superbpe=100, on_merge=lambda rank, entry: heard.append(rank),
                        progress=lambda done, target: progress.append((done, target)))
        self.assertEqual(heard, list(range(len(TOKENIZER.merges))))
        self.assertEqual(progress[-1], (len(TOKENIZER.merges), 700 - 256))
        self.assertEqual([done for done, _ in progress], sorted(done for done, _ in progress))

    def test_bad_options_are_refused_before_any_work(self):
        counts, spans = Counter(chunks("ab ab", "o200k")), Counter(chunks("ab ab", "superbpe"))
        for bad in (2.0, True, "10"):
            with self.assertRaisesRegex(TypeError, "superbpe must be None or the number of merges"):
                Tokenizer.train("ab ab", 300, byte_level=True, superbpe=bad)
        with self.assertRaisesRegex(ValueError, "superbpe must be the number of merges of stage 1, 0 or more, not -1"):
            Tokenizer.train("ab ab", 300, byte_level=True, superbpe=-1)
        with self.assertRaisesRegex(ValueError, "needs superbpe_counts"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe=1)
        with self.assertRaisesRegex(ValueError, "only for SuperBPE training"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe_counts=spans)
        with self.assertRaisesRegex(ValueError, "do not count the same text"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe=1, superbpe_counts={"ab ab ab": 1})
        with self.assertRaisesRegex(ValueError, "is not exactly one chunk"):
            Tokenizer.train_from_counts(counts, 300, byte_level=True, superbpe=1, superbpe_counts={"ab": 1, " 12": 1})
        for ties in ("huggingface", "rustbpe"):  # rules that number tokens by a library's IDs, which stage 2 lacks
            with self.assertRaisesRegex(ValueError, f"trains with ties 'smallest', 'first-seen', 'greatest', not '{ties}'"):
                Tokenizer.train("ab ab", 300, byte_level=True, superbpe=1, ties=ties)
        with self.assertRaisesRegex(ValueError, "does not take add_prefix_space=True"):
            Tokenizer.train("ab ab", 300, byte_level=True, superbpe=1, add_prefix_space=True)
        with self.assertRaisesRegex(ValueError, "add_prefix_space=True counts in one process"):
            Tokenizer.train("ab ab", 300, byte_level=True, add_prefix_space=True, workers=2)


class FileTests(unittest.TestCase):
    """A SuperBPE tokenizer is an ordinary format-2 file and an exact Hugging Face export."""

    def test_saved_and_loaded(self):
        body = TOKENIZER.to_json()
        self.assertEqual((body["format_version"], body["pattern"]), (2, "superbpe"))
        loaded = Tokenizer.from_json(json.loads(json.dumps(body)))
        self.assertEqual(loaded.encode(TEXT), TOKENIZER.encode(TEXT))

    @require_module("tokenizers")
    def test_hugging_face_gives_the_same_ids(self):
        from tokenizers import Tokenizer as HuggingFaceTokenizer

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tokenizer.json")
            TOKENIZER.save_huggingface(path)
            theirs = HuggingFaceTokenizer.from_file(path)
            self.assertEqual(Tokenizer.load_huggingface(path).merges, TOKENIZER.merges)
        for text in [TEXT] + samples(3, 300):
            ids = TOKENIZER.encode(text)
            self.assertEqual(theirs.encode(text, add_special_tokens=False).ids, ids, text[:40])

    def test_command_line_training_and_its_summary(self):
        with tempfile.TemporaryDirectory() as folder:
            path, out = os.path.join(folder, "text.txt"), os.path.join(folder, "tok.json")
            with open(path, "wb") as stream:
                stream.write(TEXT.encode("utf-8"))
            for source, stdin in ((path, b""), ("-", TEXT.encode("utf-8"))):  # files are read twice, stdin held
                status, output = run_command(["train", source, "--bytes", "--vocab-size", "700", "--superbpe", "100",
                                              "-o", out], stdin)
                self.assertEqual(status, 0, output)
                self.assertEqual(Tokenizer.load(out).merges, TOKENIZER.merges)
                # The summary counts the tokens of the text as encode gives them.
                self.assertIn(f"({len(TEXT):,} characters, {len(TOKENIZER.encode(TEXT)):,} tokens)", output)


def run_command(arguments, stdin=b""):
    """Run the command line in this process (``tests.in_process.run_here``); return its status, then stderr and stdout."""
    result = run_here(*arguments, stdin=stdin)
    return result.returncode, (result.stderr + result.stdout).decode("utf-8")


if __name__ == "__main__":
    unittest.main()
