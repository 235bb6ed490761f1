"""Tests for the BPE lab: the recorded figures, the mechanism, bad input and the files.

Run from the project root with ``python3 -m unittest -v``; the tests of the
package's wings are in ``tests/``.
"""

import doctest
import hashlib
import importlib
import importlib.util
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import bpe
import bpelab
import make_corpus
from bpelab import writing
from bpe import UNK, Tokenizer, chunks
from tests import clients
from tests.lab_samples import CORPUS, LAB, lab_file_text

ROOT = os.path.dirname(os.path.abspath(__file__))


def load_tests(loader, tests, pattern):
    """Run the examples in the docstrings of every module, the package's too, with the tests, so they cannot rot."""
    package = [importlib.import_module(info.name) for info in pkgutil.walk_packages(bpelab.__path__, "bpelab.")]
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

    def test_patterns_must_be_built_in_names_or_regexes_read_exactly(self):
        for pattern, message in ((["lab"], "unknown pattern"), ({}, "unknown pattern"), ("nope", "unknown pattern"),
                                 (" ?\\w+", "the word class .* at position 2")):
            with self.subTest(pattern=pattern), self.assertRaisesRegex(ValueError, message):
                Tokenizer(["a"], [], pattern=pattern)
            with self.subTest(pattern=pattern), self.assertRaisesRegex(ValueError, message):
                Tokenizer.train("ab ab", 10, pattern=pattern)
            with self.subTest(pattern=pattern), self.assertRaisesRegex(ValueError, message):
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
        with mock.patch.object(writing.os, "replace", side_effect=OSError("disk full")):
            with self.assertRaises(OSError):
                small.save(path)
        with open(path, "rb") as stream:
            self.assertEqual(stream.read(), before)
        self.assertEqual(os.listdir(self.folder.name), ["tok.json"])


if __name__ == "__main__":
    unittest.main()
