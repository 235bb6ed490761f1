"""Tests for the BPE lab: the recorded figures, the mechanism, and bad input.

Run from the project root with ``python3 -m unittest -v``.
"""

import doctest
import hashlib
import importlib
import importlib.util
import json
import os
import pkgutil
import random
import re
import subprocess
import sys
import tempfile
import unicodedata
import unittest
from collections import Counter
from unittest import mock

import bpe
import bpelab
import make_corpus
from bpelab import blocks, engine, files, patterns, unicode_ranges
from bpe import UNK, Tokenizer, chunks, reference_encode, reference_train
from tests import clients
from tests.clients import require_module

ROOT = os.path.dirname(os.path.abspath(__file__))


def load_tests(loader, tests, pattern):
    """Run the examples in the docstrings of every module, the package's too, with the tests, so they cannot rot."""
    package = [importlib.import_module(f"bpelab.{info.name}") for info in pkgutil.iter_modules(bpelab.__path__)]
    for module in (bpe, make_corpus, bpelab, *package, clients):
        tests.addTests(doctest.DocTestSuite(module))
    return tests

# The lab's recorded checksums, copied in as facts: a behaviour change that is
# followed by ``trace_bpe.py --write`` must still turn these tests red.
RECORDED_SHA256 = {
    "corpus.txt": "4600a83ba8bcdb792e41558ed26b86512bf56287c40e013d6d90f6f6634a8ad1",
    "tokenizer.json": "7478ffcb69ca5383828956b1d6db10f2ca6bc925abab7122e8da6f5d05e61657",
    "bpe-trace.json": "e5f2be4deadee0499650534897130ea1c97ae066c3bb422cd1fe3b3c983f8aee",
}

CORPUS = make_corpus.corpus()
LAB = Tokenizer.train(CORPUS, 96)


def lab_file_text():
    """The lab tokenizer as format-1 JSON text."""
    return json.dumps(LAB.to_json(), indent=1) + "\n"


class RecordedTests(unittest.TestCase):
    """The committed artifacts are exactly what the scripts make."""

    def test_corpus_equals_generator(self):
        with open(os.path.join(ROOT, "corpus.txt"), encoding="utf-8", newline="") as stream:
            self.assertEqual(stream.read(), CORPUS)
        self.assertEqual(len(CORPUS), 45223)

    def test_trace_check_passes(self):
        result = subprocess.run(
            [sys.executable, "trace_bpe.py", "--check"], cwd=ROOT, capture_output=True, text=True
        )
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_saved_tokenizer_equals_fresh_training(self):
        with open(os.path.join(ROOT, "tokenizer.json"), encoding="utf-8", newline="") as stream:
            self.assertEqual(stream.read(), lab_file_text())
        loaded = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
        self.assertEqual(loaded.merges, LAB.merges)
        self.assertEqual(loaded.vocab, LAB.vocab)

    def test_artifacts_match_recorded_checksums(self):
        for name, expected in RECORDED_SHA256.items():
            with open(os.path.join(ROOT, name), "rb") as stream:
                self.assertEqual(hashlib.sha256(stream.read()).hexdigest(), expected, name)

    def test_headline_figures(self):
        self.assertEqual(len(LAB.alphabet) + 1, 28)
        self.assertEqual(len(LAB.merges), 68)
        self.assertEqual(len(LAB.encode(CORPUS)), 14381)
        self.assertEqual(LAB.encode("mia has a red ball."), [58, 36, 33, 89, 85, 4])


class MechanismTests(unittest.TestCase):
    """How training and encoding behave, on the corpus and on tiny inputs."""

    def test_round_trip_on_corpus(self):
        self.assertEqual(LAB.decode(LAB.encode(CORPUS)), CORPUS)

    def test_every_learned_token_encodes_to_itself(self):
        for token in LAB.vocab[len(LAB.alphabet) + 1:]:
            self.assertEqual(LAB.tokens(token), [token])

    def test_first_merge_and_counts_never_rise(self):
        self.assertEqual(LAB.merges[0], (" ", "t"))
        self.assertEqual(LAB.history[0], {"pair": [" ", "t"], "token": " t", "count": 2400})
        counts = [entry["count"] for entry in LAB.history]
        self.assertEqual(counts, sorted(counts, reverse=True))

    def test_every_vocabulary_entry_is_a_single_chunk(self):
        for token in LAB.vocab[1:]:
            self.assertEqual(chunks(token), [token])

    def test_unseen_word_falls_back_to_characters(self):
        self.assertEqual(LAB.tokens("maya")[:4], ["m", "a", "y", "a"])
        self.assertEqual(LAB.tokens("maya has a purple umbrella.")[:4], ["m", "a", "y", "a"])

    def test_requesting_128_stops_at_109(self):
        tokenizer = Tokenizer.train(CORPUS, 128)
        self.assertEqual(len(tokenizer.vocab), 109)
        self.assertEqual(len(tokenizer.encode(CORPUS)), 12400)

    def test_merges_replay_in_rank_order(self):
        tokenizer = Tokenizer(["a", "b", "c"], [("b", "c"), ("a", "b")])
        self.assertEqual(tokenizer.tokens("abc"), ["a", "bc"])

    def test_overlapping_occurrences_merge_left_to_right(self):
        tokenizer = Tokenizer(["a"], [("a", "a")])
        self.assertEqual(tokenizer.tokens("aaa"), ["aa", "a"])

    def test_pairs_seen_once_are_not_merged(self):
        self.assertEqual(Tokenizer.train("ab cd", 10).merges, [])
        self.assertEqual(Tokenizer.train("ab cd", 10 ** 7).merges, [])
        self.assertEqual(Tokenizer.train("ab cd ab cd", 10).merges[0], (" ", "c"))

    def test_unknown_characters_become_id_zero(self):
        self.assertEqual(LAB.encode("café"), [7, 5, 0, 0])
        self.assertEqual(LAB.tokens("café"), ["c", "a", UNK, UNK])
        self.assertEqual(LAB.decode([7, 5, 0, 0]), "ca\ufffd\ufffd")

    def test_chunks_concatenate_back(self):
        text = "Hi,  there!\n\n\tx = 3.14 ... café\u00a0ok  "
        self.assertEqual("".join(chunks(text)), text)
        self.assertEqual(chunks("at the park, mia"), ["at", " the", " park", ",", " mia"])

    def test_training_is_deterministic_whatever_the_hash_seed(self):
        script = "import bpe; print(bpe.Tokenizer.train(open('corpus.txt').read(), 96).merges)"
        outputs = set()
        for seed in ("0", "1", "12345"):
            environment = dict(os.environ, PYTHONHASHSEED=seed)
            result = subprocess.run(
                [sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            outputs.add(result.stdout)
        self.assertEqual(len(outputs), 1)


class FailureTests(unittest.TestCase):
    """Wrong arguments get a clear error naming the problem."""

    def test_decode_refuses_ids_outside_the_vocabulary(self):
        for ids in ([5, 96], [-1], [True], [False, 3]):
            with self.subTest(ids=ids):
                with self.assertRaisesRegex(ValueError, "outside the vocabulary") as caught:
                    LAB.decode(ids)
                self.assertIn(repr(ids[0]), str(caught.exception))

    def test_decode_refuses_ids_that_are_not_integers(self):
        for ids in ([1.0], ["3"], [None], [[1]], [5, 2.5]):
            with self.subTest(ids=ids):
                with self.assertRaisesRegex(TypeError, "ids must hold ints") as caught:
                    LAB.decode(ids)
                self.assertIn(repr(ids[-1]), str(caught.exception))

    def test_decode_refuses_a_non_list(self):
        for ids in ("5 6", 5, None, b"\x05"):
            with self.subTest(ids=ids), self.assertRaisesRegex(TypeError, "ids"):
                LAB.decode(ids)

    def test_train_refuses_empty_text(self):
        with self.assertRaisesRegex(ValueError, "empty text"):
            Tokenizer.train("", 96)

    def test_train_refuses_a_size_below_the_base(self):
        with self.assertRaisesRegex(ValueError, "smaller than the 28 base tokens"):
            Tokenizer.train(CORPUS, 20)

    def test_train_refuses_wrong_argument_types(self):
        for text in (b"abc", None, ["abc"], 3.0, True):
            with self.subTest(text=text), self.assertRaisesRegex(TypeError, "text"):
                Tokenizer.train(text, 96)
        for size in (96.0, "96", True, None):
            with self.subTest(vocab_size=size), self.assertRaisesRegex(TypeError, "vocab_size"):
                Tokenizer.train(CORPUS, size)

    def test_encode_refuses_wrong_argument_types(self):
        for text in (b"abc", None, ["abc"], 3.0, True):
            with self.subTest(text=text):
                with self.assertRaisesRegex(TypeError, "text"):
                    LAB.encode(text)
                with self.assertRaisesRegex(TypeError, "text"):
                    LAB.tokens(text)

    def test_constructor_enforces_the_merge_list_rules(self):
        cases = {
            "sorted and distinct": (["b", "a"], []),
            "sorted and distinct ": (["a", "a"], []),
            "one character": (["ab"], []),
            "must not contain": ([UNK], []),
            "list of single characters": ("abc", []),
            "pair": (["a", "b"], [("a", "b", "c")]),
            "strings": (["a", "b"], [("a", 1)]),
            "not a token at that point": (["a", "b"], [("ab", "a")]),
            "already a token": (["a", "b"], [("a", "b"), ("a", "b")]),
            "list of \\[left, right\\] pairs": (["a"], "aa"),
        }
        for message, (alphabet, merges) in cases.items():
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, message.strip()):
                Tokenizer(alphabet, merges)

    def test_unk_cannot_be_merged(self):
        with self.assertRaisesRegex(ValueError, "not a token at that point"):
            Tokenizer(["a"], [(UNK, "a")])

    def test_no_merge_can_make_unk(self):
        merges = [("<", "u"), ("n", "k"), ("<u", "nk"), ("<unk", ">")]
        with self.assertRaisesRegex(ValueError, "'<unk>', which is already a token"):
            Tokenizer(["<", ">", "k", "n", "u"], merges)

    def test_lone_surrogates_cannot_enter_the_alphabet(self):
        with self.assertRaisesRegex(ValueError, "lone surrogate"):
            Tokenizer(["a", "\ud800"], [])
        with self.assertRaisesRegex(ValueError, "lone surrogate"):
            Tokenizer.train("\ud800\udc00 \ud800\udc00 \ud800\udc00", 10)

    def test_patterns_must_be_built_in_names(self):
        for pattern in (["lab"], {}, "nope", " ?\\w+"):
            with self.subTest(pattern=pattern), self.assertRaisesRegex(ValueError, "unknown pattern"):
                Tokenizer(["a"], [], pattern=pattern)
            with self.subTest(pattern=pattern), self.assertRaisesRegex(ValueError, "unknown pattern"):
                Tokenizer.train("ab ab", 10, pattern=pattern)
            with self.subTest(pattern=pattern), self.assertRaisesRegex(ValueError, "unknown pattern"):
                chunks("ab", pattern)

    def test_paths_must_be_paths(self):
        with self.assertRaisesRegex(TypeError, "path"):
            Tokenizer.load(0)
        with self.assertRaisesRegex(TypeError, "paths"):
            Tokenizer.train_from_files([0], 40)
        with self.assertRaisesRegex(TypeError, "byte_level must be True or False"):
            Tokenizer(None, [], byte_level="words")
        with self.assertRaisesRegex(ValueError, "256 byte display characters"):
            Tokenizer(5, [], byte_level=True)


class FileTests(unittest.TestCase):
    """Saving and loading: the format, refusals of malformed files, atomic writes."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def write(self, content, name="tok.json"):
        """Put ``content`` (str or bytes) in a file of the temporary folder and return its path."""
        path = os.path.join(self.folder.name, name)
        data = content.encode("utf-8") if isinstance(content, str) else content
        with open(path, "wb") as stream:
            stream.write(data)
        return path

    def assert_refused(self, content, message):
        """Loading ``content`` raises a ValueError naming the file and containing ``message``."""
        path = self.write(content)
        with self.assertRaises(ValueError) as caught:
            Tokenizer.load(path)
        self.assertIn(path, str(caught.exception))
        self.assertIn(message, str(caught.exception))

    def test_save_and_load_round_trip(self):
        path = os.path.join(self.folder.name, "tok.json")
        LAB.save(path)
        loaded = Tokenizer.load(path)
        self.assertEqual(loaded.encode(CORPUS), LAB.encode(CORPUS))
        self.assertEqual(loaded.history, [])
        self.assertEqual(Tokenizer.from_json(LAB.to_json()).vocab, LAB.vocab)

    def test_a_file_written_by_another_implementation_loads(self):
        # Written by hand, the way any format-1 writer following the contract must write it.
        alphabet = "".join(f'\n  "{char}",' for char in ["a", "b", "c"]).rstrip(",")
        text = (
            '{\n "format_version": 1,\n "alphabet": [' + alphabet + "\n ],\n"
            ' "merges": [\n  [\n   "b",\n   "c"\n  ],\n  [\n   "a",\n   "bc"\n  ]\n ]\n}\n'
        )
        path = self.write(text)
        tokenizer = Tokenizer.load(path)
        self.assertEqual(tokenizer.encode("abcab"), [5, 1, 2])
        resaved = os.path.join(self.folder.name, "again.json")
        tokenizer.save(resaved)
        with open(resaved, encoding="utf-8") as stream:
            self.assertEqual(stream.read(), text)

    def test_unsupported_format_versions_are_refused(self):
        for version in (2, 0, True, "1", None, 1.0):
            body = dict(LAB.to_json(), format_version=version)
            with self.subTest(version=version):
                self.assert_refused(json.dumps(body), "unsupported tokenizer format")

    def test_malformed_files_are_refused(self):
        good = LAB.to_json()
        cases = {
            "not valid JSON": "{not json",
            "not valid UTF-8": b'{"format_version": 1, "alphabet": ["\xff"]}',
            "JSON object": "[1, 2]",
            "missing key 'merges'": json.dumps({"format_version": 1, "alphabet": ["a"]}),
            "missing key 'alphabet'": json.dumps({"format_version": 1, "merges": []}),
            "unexpected key": json.dumps(dict(good, extra=1)),
            "appears twice": '{"format_version": 1, "format_version": 1, "alphabet": [], "merges": []}',
            "nested too deeply": "[" * 100000 + "]" * 100000,
            "sorted and distinct": json.dumps(dict(good, alphabet=["b", "a"])),
            "one character": json.dumps(dict(good, alphabet=["ab"])),
            "must not contain": json.dumps(dict(good, alphabet=[UNK])),
            "list of single characters": json.dumps(dict(good, alphabet={"a": 1})),
            "pair": json.dumps(dict(good, merges=[["a"]])),
            "strings": json.dumps(dict(good, merges=[[" ", 7]])),
            "not a token at that point": json.dumps(dict(good, merges=[["q", "q"]])),
            "already a token": json.dumps(dict(good, merges=good["merges"] + [[" ", "t"]])),
        }
        for message, content in cases.items():
            with self.subTest(message=message):
                self.assert_refused(content, message)

    def test_save_gives_the_usual_permissions(self):
        path = os.path.join(self.folder.name, "tok.json")
        LAB.save(path)
        plain = os.path.join(self.folder.name, "plain.txt")
        with open(plain, "w", encoding="utf-8"):
            pass
        self.assertEqual(os.stat(path).st_mode & 0o777, os.stat(plain).st_mode & 0o777)
        os.chmod(path, 0o640)
        LAB.save(path)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o640)

    def test_saving_to_a_folder_names_it(self):
        for path in (self.folder.name, os.path.join(self.folder.name, "missing") + os.sep):
            with self.subTest(path=path), self.assertRaises(IsADirectoryError) as caught:
                LAB.save(path)
            self.assertIn(path, str(caught.exception))
        self.assertEqual(os.listdir(self.folder.name), [])

    def test_interrupted_save_keeps_the_old_file(self):
        path = os.path.join(self.folder.name, "tok.json")
        LAB.save(path)
        with open(path, "rb") as stream:
            before = stream.read()
        small = Tokenizer(["a", "b"], [("a", "b")])
        with mock.patch.object(files.os, "replace", side_effect=OSError("disk full")):
            with self.assertRaises(OSError):
                small.save(path)
        with open(path, "rb") as stream:
            self.assertEqual(stream.read(), before)
        self.assertEqual(os.listdir(self.folder.name), ["tok.json"])


# --------------------------------------------------------------------------
# The fast paths against the simple definitions
# --------------------------------------------------------------------------

WORD_PIECES = ["ab", "abc", "abcdef", "xyzw01", "aab", "the", "ing"]


def random_corpus(rng, words=200):
    """A seeded random text: words, digits, punctuation, whitespace runs and long runs of one letter."""
    letters = rng.choice(WORD_PIECES)
    parts = []
    for _ in range(rng.randint(1, words)):
        kind = rng.random()
        if kind < 0.5:
            parts.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 8))))
        elif kind < 0.6:
            parts.append(rng.choice(letters) * rng.randint(2, 40))
        elif kind < 0.7:
            parts.append(str(rng.randint(0, 10 ** rng.randint(1, 6))))
        elif kind < 0.8:
            parts.append("".join(rng.choice(".,!?;:-()'") for _ in range(rng.randint(1, 3))))
        else:
            parts.append(rng.choice([" ", "  ", "\n", "\t", " \n  ", "\r\n", "\n\n"]))
        if rng.random() < 0.7:
            parts.append(" ")
    return "".join(parts)


def reference_ids(tokenizer, text):
    """Encode ``text`` with the reference encoder, the simple definition."""
    ids = []
    for chunk in chunks(text):
        characters = [char if char in tokenizer.ids else UNK for char in chunk]
        ids.extend(tokenizer.ids[token] for token in reference_encode(characters, tokenizer.merge_rank))
    return ids


def random_merge_list(rng):
    """A valid but untrained merge list: random pairs of existing tokens, in random order."""
    alphabet = sorted(rng.sample("abc d", rng.randint(1, 5)))
    tokens, merges = list(alphabet), []
    for _ in range(rng.randint(0, 30)):
        left, right = rng.choice(tokens), rng.choice(tokens)
        if left + right not in tokens:
            merges.append((left, right))
            tokens.append(left + right)
    return alphabet, merges


class FastEqualsReferenceTests(unittest.TestCase):
    """The incremental trainer and the queued encoder give exactly the simple algorithm's results."""

    def test_training_matches_the_reference_on_random_corpora(self):
        rng = random.Random(2026)
        for trial in range(200):
            text = random_corpus(rng)
            vocab_size = len(set(text)) + 1 + rng.randint(0, 80)
            ties, min_count = bpe.TIE_RULES[trial % len(bpe.TIE_RULES)], 1 + trial % 3
            with self.subTest(trial=trial, ties=ties, min_count=min_count):
                fast = Tokenizer.train(text, vocab_size, ties=ties, min_count=min_count)
                chunk_counts = Counter(tuple(chunk) for chunk in chunks(text))
                expected = reference_train(chunk_counts, vocab_size - len(set(text)) - 1, ties=ties,
                                           min_count=min_count)
                self.assertEqual([(tuple(e["pair"]), e["count"]) for e in fast.history], expected)
                self.assertEqual(fast.merges, [pair for pair, _ in expected])
                self.assertEqual(fast.ties, ties)
                probe = random_corpus(rng, words=40) + " caf\u00e9 ZZ\u00a0q"
                self.assertEqual(fast.encode(probe), reference_ids(fast, probe))

    def test_first_seen_ties_on_long_chunks_and_from_files_and_counts(self):
        rng = random.Random(77)
        text = "".join(rng.choice("abcab") for _ in range(3000)) + " " + "xyxyyx " * 30
        chunk_counts = Counter(tuple(chunk) for chunk in chunks(text))
        expected = reference_train(chunk_counts, 60, ties="first-seen")
        self.assertNotEqual(expected, reference_train(chunk_counts, 60))
        size = len(set(text)) + 1 + 60
        history = [(tuple(e["pair"]), e["count"]) for e in Tokenizer.train(text, size, ties="first-seen").history]
        self.assertEqual(history, expected)
        counted = Tokenizer.train_from_counts(dict(Counter(chunks(text))), size, ties="first-seen")
        self.assertEqual([(tuple(e["pair"]), e["count"]) for e in counted.history], expected)

    def test_training_matches_the_reference_on_the_corpus(self):
        chunk_counts = Counter(tuple(chunk) for chunk in chunks(CORPUS))
        expected = reference_train(chunk_counts, 81)
        self.assertEqual([(tuple(e["pair"]), e["count"]) for e in Tokenizer.train(CORPUS, 128).history], expected)

    def test_encoding_matches_the_reference_on_hand_made_merge_lists(self):
        rng = random.Random(7)
        for trial in range(400):
            alphabet, merges = random_merge_list(rng)
            tokenizer = Tokenizer(alphabet, merges)
            text = "".join(rng.choice("abcd e") for _ in range(rng.randint(0, 80)))
            with self.subTest(alphabet=alphabet, merges=merges, text=text):
                self.assertEqual(tokenizer.encode(text), reference_ids(tokenizer, text))

    def test_long_chunk_matches_the_reference(self):
        rng = random.Random(3)
        letters = "".join(rng.choice("abcde") for _ in range(20000))
        tokenizer = Tokenizer.train(" ".join(letters[i:i + 9] for i in range(0, 20000, 9)), 300)
        chunk = "".join(rng.choice("abcde") for _ in range(3000))
        self.assertEqual(tokenizer.encode(chunk), reference_ids(tokenizer, chunk))
        self.assertEqual(tokenizer.decode(tokenizer.encode(chunk)), chunk)

    def test_cache_stays_bounded(self):
        tokenizer = Tokenizer.train(CORPUS, 96)
        letters = "abcdeghik"
        words = " ".join(
            letters[number % 9] + letters[number // 9 % 9] + letters[number // 81 % 9] + letters[number // 729]
            for number in range(5000)
        )
        with mock.patch.object(engine, "CACHE_LIMIT", 100), mock.patch.object(blocks, "BLOCK_SIZE", 500):
            tokenizer.encode(words)
            self.assertLessEqual(len(tokenizer._cache), 100 + 500)
            self.assertEqual(tokenizer.decode(tokenizer.encode(words)), words)


class LargerCorporaTests(unittest.TestCase):
    """Training from files and from chunk counts, and progress reports."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def write_files(self, texts):
        """Write each text to its own file (bytes exactly as given) and return the paths."""
        paths = []
        for number, text in enumerate(texts):
            path = os.path.join(self.folder.name, f"part{number}.txt")
            with open(path, "wb") as stream:
                stream.write(text.encode("utf-8"))
            paths.append(path)
        return paths

    def test_block_size_does_not_change_the_merges(self):
        rng = random.Random(11)
        for trial in range(30):
            text = random_corpus(rng, words=120) + "\u00e9t\u00e9 na\u00efve"
            cuts = sorted(rng.sample(range(len(text)), 3))
            paths = self.write_files([text[:cuts[0]], text[cuts[0]:cuts[1]], "", text[cuts[1]:]])
            expected = Tokenizer.train(text, 120).history
            for block_size in (1, 2, 3, 7, 64, 1 << 20):
                with self.subTest(trial=trial, block_size=block_size):
                    found = Tokenizer.train_from_files(paths, 120, block_size=block_size)
                    self.assertEqual(found.history, expected)

    def test_chunking_in_pieces_equals_chunking_the_whole(self):
        rng = random.Random(5)
        for trial in range(200):
            text = random_corpus(rng, words=60) + rng.choice(["", " ", "x", "\n"])
            size = rng.randint(1, 40)
            pieces = list(bpe.safe_blocks(bpe.text_blocks(text, size)))
            self.assertEqual("".join(pieces), text)
            self.assertEqual([c for piece in pieces for c in chunks(piece)], chunks(text))

    def test_train_from_files_refuses_bad_input(self):
        (good,) = self.write_files(["abc abc"])
        bad = os.path.join(self.folder.name, "bad.txt")
        with open(bad, "wb") as stream:
            stream.write(b"abc \xff abc")
        with self.assertRaisesRegex(ValueError, "bad.txt: not valid UTF-8"):
            Tokenizer.train_from_files([good, bad], 40)
        with self.assertRaisesRegex(TypeError, "paths"):
            Tokenizer.train_from_files(good, 40)
        with self.assertRaisesRegex(ValueError, "block_size"):
            Tokenizer.train_from_files([good], 40, block_size=0)
        with self.assertRaisesRegex(ValueError, "empty text"):
            Tokenizer.train_from_files(self.write_files([""]), 40)

    def test_train_from_counts_equals_training_on_the_text(self):
        counts = Counter(chunks(CORPUS))
        self.assertEqual(Tokenizer.train_from_counts(dict(counts), 96).history, LAB.history)

    def test_train_from_counts_refuses_bad_counts(self):
        cases = [
            ({"ab cd": 2}, "'ab cd' is not exactly one chunk"),
            ({"": 2}, "'' is not exactly one chunk"),
            ({("a", "b"): 2}, "must be a str, not tuple"),
            ({"ab": 0}, "counts must be positive ints"),
            ({"ab": -3}, "counts must be positive ints"),
            ({"ab": True}, "counts must be positive ints"),
            ({"ab": 1.5}, "counts must be positive ints"),
        ]
        for chunk_counts, message in cases:
            with self.subTest(chunk_counts=chunk_counts), self.assertRaisesRegex(ValueError, message):
                Tokenizer.train_from_counts(chunk_counts, 40)
        with self.assertRaisesRegex(TypeError, "chunk_counts"):
            Tokenizer.train_from_counts([("ab", 2)], 40)
        with self.assertRaisesRegex(ValueError, "'a<s>' holds the special token '<s>'"):
            Tokenizer.train_from_counts({"ab": 3, "a<s>": 2}, 40, special_tokens=["<s>"])
        with_special = Tokenizer.train_from_counts({"ab": 3, "<s>": 2}, 40, special_tokens=["<s>"])
        self.assertEqual((with_special.alphabet, with_special.special_tokens), (["a", "b"], {"<s>": 4}))
        with self.assertRaisesRegex(ValueError, "empty text"):
            Tokenizer.train_from_counts({}, 40)

    def test_progress_is_reported_about_a_hundred_times(self):
        calls = []
        Tokenizer.train(CORPUS, 109, progress=lambda done, target: calls.append((done, target)))
        self.assertEqual(calls[-1], (81, 81))
        self.assertEqual([done for done, _ in calls], sorted(set(done for done, _ in calls)))
        calls.clear()
        Tokenizer.train(CORPUS, 128, progress=lambda done, target: calls.append((done, target)))
        self.assertEqual(calls[-1], (81, 100))
        self.assertLessEqual(len(calls), 101)
        long_run = []
        bpe.train_merges(Counter(chunks(CORPUS * 3)), 10 ** 4, progress=lambda *call: long_run.append(call))
        self.assertLessEqual(len(long_run), 102)

    def test_each_merge_is_reported_as_it_is_learned(self):
        heard = []
        tokenizer = Tokenizer.train(CORPUS, 96, on_merge=lambda rank, entry: heard.append((rank, entry)))
        self.assertEqual(heard, list(enumerate(tokenizer.history)))
        byte_level = []
        Tokenizer.train(CORPUS, 260, byte_level=True, on_merge=lambda rank, entry: byte_level.append(entry["pair"]))
        self.assertEqual(byte_level[0], ["Ġ", "t"])

    def test_benchmark_quick_smoke(self):
        bench = os.path.join(ROOT, "tools", "bench_bpe.py")
        result = subprocess.run([sys.executable, bench, "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        self.assertIn("| job | implementation |", result.stdout)
        self.assertIn("same merges as ours", result.stdout)
        self.assertNotIn("failed", result.stdout)
        # --quick runs every job in this one process; a full run starts a fresh worker for each, as here.
        spec = {"job": "small-train", "impl": "ours", "corpus": os.path.join(ROOT, "corpus.txt"), "limit": 2000,
                "vocab_size": 40}
        worker = subprocess.run([sys.executable, bench, "--worker", json.dumps(spec)], cwd=ROOT, capture_output=True,
                                text=True, timeout=60, env=dict(os.environ, PYTHONPATH=ROOT))  # (a snapshot's bpe.py)
        self.assertEqual(worker.returncode, 0, worker.stderr[-2000:])
        self.assertEqual(json.loads(worker.stdout)["note"], f"{len(Tokenizer.train(CORPUS[:2000], 40).merges)} merges")

    def test_training_is_silent_by_default(self):
        with mock.patch("sys.stdout") as stdout, mock.patch("sys.stderr") as stderr:
            Tokenizer.train(CORPUS, 96)
        self.assertEqual(stdout.method_calls, [])
        self.assertEqual(stderr.method_calls, [])


# --------------------------------------------------------------------------
# Byte level, special tokens, format 2
# --------------------------------------------------------------------------

SCRIPTS = {
    "English": "The quick brown fox jumps over the lazy dog.",
    "French": "Ça me plaît : l'été à la mer, déjà vu.",
    "Russian": "Съешь же ещё этих мягких французских булок.",
    "Greek": "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
    "Hindi": "नमस्ते दुनिया, आप कैसे हैं?",
    "Chinese": "你好，世界！今天天气很好。",
    "Arabic": "مرحبا بالعالم، كيف حالك؟",
    "Emoji": "👩‍👩‍👧 family, 👍🏽 ok, 🇫🇷 flag",
    "Combining": "a\u0301 e\u0308 n\u0303 x_y __init__ 1\u00b2\u2155",
}
# Assigned only after Unicode 14: a Cyrillic modifier letter, a Kawi letter,
# an emoji and a CJK Extension H ideograph, all from Unicode 15.
NEWER_THAN_PINNED = "\U0001e030\U00011f04 \U0001f6dc \U00031350x"


def random_unicode(rng, length):
    """A random string drawing code points from every plane (lone surrogates left out)."""
    chars = []
    for _ in range(length):
        top = rng.choice([0x7F, 0x7FF, 0xFFFF, 0x10FFFF])
        code = rng.randint(0, top)
        chars.append(chr(code) if not 0xD800 <= code <= 0xDFFF else " ")
    return "".join(chars)


def byte_level_lab():
    """A byte-level tokenizer trained on the corpus plus text in many scripts, with a special token."""
    text = CORPUS + "\n".join(SCRIPTS.values()) * 3
    return Tokenizer.train(text, 400, byte_level=True, special_tokens=["<|endoftext|>"])


BYTES = byte_level_lab()
PLAIN_BYTES = Tokenizer(None, [], byte_level=True)


class ByteLevelTests(unittest.TestCase):
    """Training and encoding on UTF-8 bytes."""

    def test_display_table(self):
        table = bpe.BYTE_TO_CHAR
        self.assertEqual(len(set(table)), 256)
        self.assertEqual((table[ord(" ")], table[ord("\n")], table[ord("a")]), ("Ġ", "Ċ", "a"))
        printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
        self.assertTrue(all(table[byte] == chr(byte) for byte in printable))
        others = [table[byte] for byte in range(256) if byte not in printable]
        self.assertEqual(others, [chr(0x100 + n) for n in range(68)])

    def test_base_is_the_256_bytes(self):
        self.assertEqual(BYTES.vocab[:256], bpe.BYTE_TO_CHAR)
        self.assertEqual(PLAIN_BYTES.encode("é"), [0xC3, 0xA9])
        self.assertNotIn(UNK, BYTES.vocab)
        with self.assertRaisesRegex(ValueError, "smaller than the 256 base tokens"):
            Tokenizer.train("abc", 255, byte_level=True)
        with self.assertRaisesRegex(ValueError, "smaller than the 257 base tokens"):
            Tokenizer.train("abc", 256, byte_level=True, special_tokens=["<s>"])

    def test_ties_break_on_bytes(self):
        # (b" ", b"c") sorts before (b"a", b"b") as bytes, though "Ġ" sorts after "a".
        tokenizer = Tokenizer.train("ab c ab c", 257, byte_level=True)
        self.assertEqual(tokenizer.merges, [("Ġ", "c")])

    def test_ascii_text_learns_the_character_level_merges(self):
        self.assertEqual(chunks(CORPUS, "gpt2"), chunks(CORPUS))
        byte_level = Tokenizer.train(CORPUS, 256 + 68, byte_level=True)
        as_text = [tuple(bpe.display_to_bytes(part).decode() for part in pair) for pair in byte_level.merges]
        self.assertEqual(as_text, LAB.merges)

    def test_worked_example(self):
        tokenizer = Tokenizer.train("the café baker bakes cakes, the café bakes soufflé", 261, byte_level=True)
        self.assertEqual(tokenizer.merges, [("a", "k"), ("ak", "e"), ("Ġ", "b"), ("Ġ", "c"), ("Ġb", "ake")])
        self.assertEqual(
            tokenizer.tokens("the maker baked cakes"),
            ["t", "h", "e", "Ġ", "m", "ake", "r", "Ġbake", "d", "Ġc", "ake", "s"],
        )

    def test_cafe_at_both_levels(self):
        self.assertEqual(LAB.tokens("café"), ["c", "a", UNK, UNK])
        english = Tokenizer.train(CORPUS, 256 + 68, byte_level=True)
        self.assertEqual(english.tokens("café"), ["c", "a", "f", "Ã", "©"])
        self.assertEqual(english.decode(english.encode("café")), "café")

    def test_round_trip_on_random_unicode(self):
        rng = random.Random(99)
        for _ in range(3000):
            text = random_unicode(rng, rng.randint(0, 40))
            self.assertEqual(BYTES.decode(BYTES.encode(text)), text)
        for text in list(SCRIPTS.values()) + [NEWER_THAN_PINNED]:
            self.assertEqual(BYTES.decode(BYTES.encode(text)), text)

    def test_decoding_a_cut_character(self):
        ids = PLAIN_BYTES.encode("é")
        self.assertEqual(PLAIN_BYTES.decode(ids[:1]), "\ufffd")
        self.assertEqual(PLAIN_BYTES.decode_bytes(ids[:1]), b"\xc3")
        self.assertEqual(BYTES.decode_bytes(BYTES.encode("naïve")), "naïve".encode())

    def test_lone_surrogates_become_replacement_characters(self):
        self.assertEqual(BYTES.encode("a\ud800b"), BYTES.encode("a\ufffdb"))
        self.assertEqual(BYTES.encode("\ud83d\ude00"), BYTES.encode("\U0001f600"))
        self.assertEqual(BYTES.decode(BYTES.encode("x\udfff")), "x\ufffd")

    def test_fast_encoder_matches_the_reference_at_the_byte_level(self):
        rng = random.Random(4)
        for _ in range(300):
            text = random_unicode(rng, 20) + rng.choice(list(SCRIPTS.values()))
            expected = []
            for chunk in BYTES.chunks(text):
                pieces = reference_encode(BYTES.start_tokens(chunk), BYTES.merge_rank)
                expected += [BYTES.ids[piece] for piece in pieces]
            self.assertEqual(BYTES.encode(text), expected)

    def test_byte_level_training_matches_the_reference(self):
        rng = random.Random(8)
        for trial in range(60):
            text = random_corpus(rng, 80) + rng.choice(list(SCRIPTS.values()))
            ties, min_count = bpe.TIE_RULES[trial % len(bpe.TIE_RULES)], 1 + trial % 2
            fast = Tokenizer.train(text, 256 + 40, byte_level=True, ties=ties, min_count=min_count)
            sequences = Counter(tuple(bpe.SINGLE_BYTES[b] for b in chunk.encode()) for chunk in chunks(text, "gpt2"))
            expected = [
                ((bpe.bytes_to_display(left), bpe.bytes_to_display(right)), count)
                for (left, right), count in reference_train(sequences, 40, ties=ties, min_count=min_count)
            ]
            self.assertEqual([(tuple(entry["pair"]), entry["count"]) for entry in fast.history], expected)

    def test_offsets_are_character_spans(self):
        text = "mia's café ☕ <|endoftext|> 👩‍👧 x\ud83d\ude00y\ud800"
        for tokenizer in (BYTES, LAB, Tokenizer.train(CORPUS, 100, special_tokens=["<|endoftext|>"])):
            triples = tokenizer.encode_with_offsets(text, allowed_special="all")
            self.assertEqual([token_id for token_id, _, _ in triples], tokenizer.encode(text, allowed_special="all"))
            covered = [start for _, start, _ in triples]
            self.assertEqual(covered, sorted(covered))
            self.assertEqual((triples[0][1], triples[-1][2]), (0, len(text)))
            for token_id, start, end in triples:
                if not tokenizer.byte_level:
                    self.assertEqual(end - start, len(tokenizer.decode([token_id])))
        coffee = [span for token_id, *span in BYTES.encode_with_offsets("a☕") if token_id != 97]
        self.assertEqual(coffee, [[1, 2]] * 3)  # each byte of the cup holds part of the one character
        self.assertEqual(BYTES.encode_with_offsets("\ud83d\ude00")[0][1:], (0, 2))

    def test_token_texts_are_the_text_each_token_stands_for(self):
        hebrew = "שלום עולם, שלום לכם"
        tokenizer = Tokenizer.train(hebrew * 20, 300, byte_level=True)
        self.assertEqual(tokenizer.tokens("שלום")[0][:2], "×©")  # GPT-2's display form is no help to a reader
        self.assertEqual(tokenizer.token_texts(hebrew), ["שלום", " עולם", ",", " שלום", " לכם"])
        bare = Tokenizer(None, [], byte_level=True)
        self.assertEqual(bare.token_texts("aש"), ["a", "\\xd7", "\\xa9"])  # a cut character's bytes, as show writes
        self.assertEqual(bare.token_texts("\\xd7"), ["\\\\", "x", "d", "7"])  # and a real backslash, never mistaken
        unknown = LAB.token_texts("café!")
        self.assertEqual((unknown, LAB.tokens("café!")), (["c", "a", "f", "é", "!"], ["c", "a", UNK, UNK, UNK]))
        text = "mia's café ☕ <|endoftext|> 👩\u200d👧 x"
        for tokenizer in (BYTES, LAB):
            texts = tokenizer.token_texts(text, allowed_special="all" if tokenizer is BYTES else ())
            self.assertEqual(len(texts), len(tokenizer.encode(text, allowed_special="all" if tokenizer is BYTES else ())))
            joined = re.sub(r"(?:\\x[0-9a-f]{2})+", lambda run: bytes.fromhex(run.group().replace("\\x", "")).decode(),
                            "".join(texts))
            self.assertEqual(joined, text)  # the pieces are the text, cut characters' bytes written as \xNN


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
            (dict(good, special_tokens={"<|endoftext|>": 7}), "special tokens take int IDs from 399 on"),
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


class PatternTests(unittest.TestCase):
    """The chunk patterns: explicit classes, the same in every engine and on every Python."""

    def test_no_class_shorthands_in_any_pattern(self):
        for name in patterns.PATTERN_TEMPLATES:
            for syntax in ("python", "rust", "oniguruma"):
                escapes = set(re.findall(r"\\(.)", bpe.pattern_source(name, syntax)))
                # Code points, line breaks and the end of the text are the only escapes.
                self.assertLessEqual(escapes, {"u", "U", "x", "r", "n", "Z", "z"}, (name, syntax))

    def test_every_character_lands_in_exactly_one_chunk(self):
        rng = random.Random(12)
        samples = [random_unicode(rng, 60) for _ in range(500)] + list(SCRIPTS.values()) + ["_ __ a_b"]
        for name in patterns.PATTERN_TEMPLATES:
            for text in samples:
                self.assertEqual("".join(chunks(text, name)), text)

    def test_gpt2_rules(self):
        self.assertEqual(
            chunks("I'll say: don't  stop__ 123abc\n\n x", "gpt2"),
            ["I", "'ll", " say", ":", " don", "'t", " ", " stop", "__", " 123", "abc", "\n\n", " x"],
        )

    @unittest.skipUnless(unicodedata.unidata_version == unicode_ranges.UNICODE_VERSION, "needs the pinned Unicode version")
    def test_classes_match_the_pinned_unicode_version(self):
        # Every character of the Basic Multilingual Plane; above it, every range's ends and their
        # neighbours, and every 31st code point (the regex checks those classes range by range, slowly).
        edges = set()
        for name in ("LETTER_RANGES", "UPPER_RANGES", "LOWER_RANGES", "OTHER_LETTER_RANGES", "MARK_RANGES",
                     "NUMBER_RANGES"):
            for item in getattr(unicode_ranges, name).split():
                for end in item.split("-"):
                    edges.update(range(int(end, 16) - 1, int(end, 16) + 2))
        above = sorted(code for code in edges | set(range(0x10000, 0x110000, 31)) if 0x10000 <= code <= 0x10FFFF)
        sample = "".join(map(chr, [*range(0xD800), *range(0xE000, 0x10000), *above]))
        category = unicodedata.category
        classes = {
            "LETTER_RANGES": lambda char: category(char)[0] == "L",
            "UPPER_RANGES": lambda char: category(char) in ("Lu", "Lt"),
            "LOWER_RANGES": lambda char: category(char) == "Ll",
            "OTHER_LETTER_RANGES": lambda char: category(char) in ("Lm", "Lo"),
            "MARK_RANGES": lambda char: category(char)[0] == "M",
            "NUMBER_RANGES": lambda char: category(char)[0] == "N",
            "SPACE_RANGES": lambda char: re.match(r"\s", char) is not None,
            "WHITE_SPACE_RANGES": lambda char: char in "\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                                               or "\u2000" <= char <= "\u200a",
        }
        everything = set(sample)
        for name, is_member in classes.items():
            members = set(filter(is_member, sample))
            with self.subTest(name):
                for negated, expected in ((False, members), (True, everything - members)):
                    pattern = patterns.char_class(getattr(unicode_ranges, name), "python", negated)
                    self.assertEqual(set(re.findall(pattern, sample)), expected)

    @unittest.skipUnless(unicodedata.unidata_version == unicode_ranges.UNICODE_VERSION, "needs the pinned Unicode version")
    def test_generated_tables_are_current(self):
        result = subprocess.run(
            [sys.executable, os.path.join("tools", "make_unicode_ranges.py"), "--check"], cwd=ROOT, capture_output=True, text=True
        )
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_the_fast_chunker_cuts_exactly_as_the_definition(self):
        rng = random.Random(31)
        astral = ["🍪", "👩\u200d👩\u200d👧", "𝔘𝔫𝔦", "\U0001e030", "𠀀x", "🇫🇷"]
        texts = [random_unicode(rng, rng.randint(0, 60)) for _ in range(2000)] + list(SCRIPTS.values())
        for _ in range(1000):
            parts = [rng.choice(list(SCRIPTS.values()))[:rng.randint(0, 30)] for _ in range(rng.randint(1, 6))]
            for _ in range(rng.randint(0, 4)):  # windows around characters above U+FFFF, near and far apart
                parts.insert(rng.randint(0, len(parts)), rng.choice(astral) + rng.choice(["", " ", "\n", ".", "a"]))
            texts.append("".join(parts))
        for name in bpe.PATTERNS:
            cut = bpe.chunker(name)
            for text in texts:
                self.assertEqual(cut(text), chunks(text, name), (name, text))

    def test_gpt2_chunks_as_with_gpt2s_own_spelling_of_the_contractions(self):
        original = re.compile(patterns.fill_classes(
            "'s|'t|'re|'ve|'m|'ll|'d| ?{letter}+| ?{number}+| ?{other}+|{space}+(?!{not_space})|{space}+", "python"))
        rng = random.Random(17)
        pieces = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'x", " ", "\n", "a", "1", "!", "\x1c"]
        texts = [random_unicode(rng, 30) for _ in range(2000)]
        texts += ["".join(rng.choice(pieces) for _ in range(20)) for _ in range(2000)]
        for text in texts:
            self.assertEqual(chunks(text, "gpt2"), original.findall(text), text)

    def test_characters_newer_than_the_pinned_version_are_other(self):
        self.assertEqual(chunks("ab" + NEWER_THAN_PINNED[0] + "cd", "gpt2"), ["ab", NEWER_THAN_PINNED[0], "cd"])


def interop_samples():
    """Texts the exports are checked on: the corpus, many scripts, and random Unicode."""
    rng = random.Random(2024)
    return [CORPUS, NEWER_THAN_PINNED, *SCRIPTS.values(), *(random_unicode(rng, rng.randint(0, 30)) for _ in range(3000))]


@require_module("tiktoken")
class TiktokenTests(unittest.TestCase):
    """tiktoken, loaded with our export, gives our IDs."""

    def test_same_ids_and_text(self):
        import tiktoken

        encoding = tiktoken.Encoding(**BYTES.to_tiktoken())
        for text in interop_samples():
            ids = BYTES.encode(text)
            self.assertEqual(encoding.encode_ordinary(text), ids, text[:40])
            self.assertEqual(encoding.decode(ids), BYTES.decode(ids))
        special = "mia<|endoftext|>leo"
        self.assertEqual(encoding.encode(special, allowed_special="all"), BYTES.encode(special, allowed_special="all"))

    def test_exports_are_refused_when_tiktoken_would_differ(self):
        with self.assertRaisesRegex(ValueError, "only a byte-level tokenizer"):
            LAB.to_tiktoken()
        ambiguous = Tokenizer(None, [("b", "c"), ("a", "b"), ("ab", "c")], byte_level=True)
        with self.assertRaisesRegex(ValueError, "'abc' as 'a' \\+ 'bc'"):
            ambiguous.to_tiktoken()


@require_module("tokenizers")
class HuggingFaceTests(unittest.TestCase):
    """Hugging Face tokenizers, loaded from our tokenizer.json, gives our IDs."""

    def check(self, ours):
        """Save ``ours`` for Hugging Face, load it there, and compare on every sample."""
        from tokenizers import Tokenizer as HuggingFaceTokenizer

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "tokenizer.json")
            ours.save_huggingface(path)
            theirs = HuggingFaceTokenizer.from_file(path)
        for text in interop_samples():
            ids = ours.encode(text)
            self.assertEqual(theirs.encode(text, add_special_tokens=False).ids, ids, text[:40])
            self.assertEqual(theirs.decode(ids), ours.decode(ids), text[:40])

    def test_byte_level(self):
        self.check(BYTES)

    def test_character_level(self):
        self.check(LAB)


if __name__ == "__main__":
    unittest.main()
