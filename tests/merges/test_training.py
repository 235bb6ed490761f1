"""Training from files and from chunk counts, block by block, and its progress reports, against training on the text."""

import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import unittest
from collections import Counter
from unittest import mock

import bpe
from bpe import Tokenizer, chunks
from bpelab.corpora import counting
from bpelab.corpora.workers import worker_pool as real_pool
from bpelab.merges import parity, picky, superbpe
from tests import ROOT
from tests.clients import sweep
from tests.in_process import run_here
from tests.lab_samples import CORPUS, LAB, random_corpus


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

    def test_min_chunk_count_trains_on_the_chunks_seen_that_often(self):
        rng = random.Random(41)
        text = " ".join(random_corpus(rng) for _ in range(400))
        for byte_level, pattern, size in ((False, "lab", 300), (True, "gpt2", 600)):
            with self.subTest(byte_level=byte_level):
                kept = {chunk: count for chunk, count in Counter(chunks(text, pattern)).items() if count >= 3}
                expected = Tokenizer.train_from_counts(kept, size, byte_level=byte_level, pattern=pattern)
                capped = Tokenizer.train(text, size, byte_level=byte_level, min_chunk_count=3)
                self.assertEqual(capped.merges, expected.merges)
                self.assertEqual(capped.alphabet, expected.alphabet)
                self.assertNotEqual(capped.merges, Tokenizer.train(text, size, byte_level=byte_level).merges)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "corpus.txt")
            with open(path, "w", encoding="utf-8") as file:
                file.write(text * 3)
            kept = {chunk: count for chunk, count in Counter(chunks(text * 3, "gpt2")).items() if count >= 7}
            self.assertEqual(Tokenizer.train_from_files([path], 600, byte_level=True, workers=2,
                                                        min_chunk_count=7, block_size=4096).merges,
                             Tokenizer.train_from_counts(kept, 600, byte_level=True).merges)
        with self.assertRaisesRegex(ValueError, "min_chunk_count is for plain BPE"):
            Tokenizer.train(text, 300, superbpe=10, min_chunk_count=2)
        with self.assertRaisesRegex(ValueError, "min_chunk_count must be a positive int, not 0"):
            Tokenizer.train(text, 300, min_chunk_count=0)
        with self.assertRaisesRegex(ValueError, "no chunk but a special token's occurs min_chunk_count=100000 times"):
            Tokenizer.train(text, 300, min_chunk_count=100_000)

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

    @sweep
    def test_benchmark_quick_smoke(self):
        result = subprocess.run([sys.executable, "-m", "tools.bench", "--quick"], cwd=ROOT, capture_output=True,
                                text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])
        self.assertIn("| job | implementation |", result.stdout)
        self.assertIn("same merges as ours", result.stdout)
        self.assertNotIn("failed", result.stdout)
        # --quick runs every job in this one process; a full run starts a fresh worker for each, as here.
        spec = {"job": "small-train", "impl": "ours", "corpus": os.path.join(ROOT, "corpus.txt"), "limit": 2000,
                "vocab_size": 40}
        worker = subprocess.run([sys.executable, "-m", "tools.bench.worker", json.dumps(spec)], cwd=ROOT,
                                capture_output=True, text=True, timeout=60)  # (as in a snapshot, bpe.py beside it)
        self.assertEqual(worker.returncode, 0, worker.stderr[-2000:])
        self.assertEqual(json.loads(worker.stdout)["note"], f"{len(Tokenizer.train(CORPUS[:2000], 40).merges)} merges")

    def test_training_is_silent_by_default(self):
        with mock.patch("sys.stdout") as stdout, mock.patch("sys.stderr") as stderr:
            Tokenizer.train(CORPUS, 96)
        self.assertEqual(stdout.method_calls, [])
        self.assertEqual(stderr.method_calls, [])


if __name__ == "__main__":
    unittest.main()


OPTION_CHECKS = {"check_vocab_size": "vocab_size", "check_prefix_space": "add_prefix_space",
                 "check_workers": "workers", "check_superbpe": "superbpe", "check_pattern": "pattern",
                 "check_ratio": "ratio", "check_threshold": "threshold"}
"""The checks of training options that take the option first, by the option each checks."""

NAMED_CHECKS = ("check_flag", "check_choice", "check_positive_int", "check_callback", "check_positive_number",
                "check_whole_number")
"""The checks that are told the option's name (``check_choice(ties, TIE_RULES, "ties")``)."""


@contextlib.contextmanager
def option_checks():
    """Record, by option, every check of a training option made before the merge loop starts.

    Every ``check_*`` function the package's modules hold is wrapped while
    this lasts (a check made inside another check, in ``bpelab.checks``, is
    that check's own business and not counted); the log is closed when the
    first merge loop begins (plain BPE's and SuperBPE's, parity-aware BPE's
    or PickyBPE's), so building the tokenizer at the end (which checks its
    own arguments) does not count.
    """
    log, closed = Counter(), []

    def recorded(holder, name, check):
        def wrapper(*arguments, **keywords):
            if not closed and holder != "bpelab.checks":
                option = OPTION_CHECKS.get(name) or (arguments[-1] if name in NAMED_CHECKS else None)
                if option is not None and not (name == "check_pattern" and holder == "bpelab.text.patterns"):
                    log[option] += 1  # (chunker turning a name into its regex checks nothing new)
            return check(*arguments, **keywords)
        return wrapper

    def closing(learn):
        def learning(*arguments, **keywords):
            closed.append(True)
            return learn(*arguments, **keywords)
        return learning

    with contextlib.ExitStack() as stack:
        for module_name, module in list(sys.modules.items()):
            if module_name.startswith("bpelab"):
                for name, value in list(vars(module).items()):
                    if name.startswith("check_") and callable(value):
                        stack.enter_context(mock.patch.object(module, name, recorded(module_name, name, value)))
        for module, name in ((superbpe, "learn_merges"), (parity, "parity_merges"), (picky, "learn_events")):
            stack.enter_context(mock.patch.object(module, name, closing(getattr(module, name))))
        yield log


class EachOptionIsCheckedOnceTests(unittest.TestCase):
    """The training options are one object, checked once, where the public API receives them (issue 30)."""

    OPTIONS = {"vocab_size", "byte_level", "add_prefix_space", "workers", "superbpe", "pattern", "ties", "min_count",
               "progress", "on_merge", "count_progress", "on_counts"}

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.path = os.path.join(self.folder.name, "corpus.txt")
        with open(self.path, "w", encoding="utf-8") as stream:
            stream.write(CORPUS[:20000])

    SHARED = {"vocab_size", "byte_level", "pattern", "min_count", "progress", "on_merge", "count_progress", "on_counts"}
    PARITY = SHARED | {"variant", "window_size", "alpha", "global_merges", "ratio"}
    PICKY = SHARED | {"ties", "threshold"}
    """The options of the variants: those every trainer takes (``training.shared_options``), and their own."""

    def assert_once(self, log, options=OPTIONS):
        self.assertEqual({option: log[option] for option in options}, dict.fromkeys(options, 1))

    def test_every_entry_point_checks_each_option_once(self):
        options = {"byte_level": True, "ties": "first-seen", "min_count": 3, "superbpe": 30}
        calls = {
            "train": lambda: Tokenizer.train(CORPUS[:20000], 300, **options),
            "train_from_files": lambda: Tokenizer.train_from_files([self.path], 300, workers=2, **options),
            "train_from_iterator": lambda: Tokenizer.train_from_iterator(CORPUS[:20000].split(". "), 300, **options),
            "train_from_counts": lambda: Tokenizer.train_from_counts(
                bpe.count_chunks([CORPUS[:20000]], "o200k"), 300,
                superbpe_counts=bpe.count_chunks([CORPUS[:20000]], "superbpe"), **options),
        }
        for name, call in calls.items():
            with self.subTest(entry=name), option_checks() as log:
                call()
                self.assert_once(log)

    def test_every_variants_entry_point_checks_each_option_once(self):
        texts, dev = [CORPUS[:8000], CORPUS[8000:16000]], [CORPUS[16000:17000], CORPUS[17000:18000]]
        paths = []
        for number, text in enumerate(texts + dev):
            paths.append(os.path.join(self.folder.name, f"{number}.txt"))
            with open(paths[-1], "w", encoding="utf-8") as stream:
                stream.write(text)
        counts = [bpe.count_chunks([text], "gpt2") for text in texts + dev]
        shared = {"byte_level": True, "min_count": 2, "on_counts": lambda counts: None}
        own = dict(shared, variant="window", window_size=5, alpha=1.5, global_merges=3)
        calls = {
            "train_parity": (self.PARITY, lambda: Tokenizer.train_parity(texts, 300, dev_texts=dev, **own)),
            "train_parity_from_files": (self.PARITY, lambda: Tokenizer.train_parity_from_files(
                paths[:2], 300, ratio=[1.0, 1.5], **own)),
            "train_parity_from_counts": (self.PARITY, lambda: Tokenizer.train_parity_from_counts(
                counts[:2], 300, dev_counts=counts[2:], **own)),
            "train_picky": (self.PICKY, lambda: Tokenizer.train_picky(texts[0], 300, threshold=0.9, **shared)),
            "train_picky_from_files": (self.PICKY, lambda: Tokenizer.train_picky_from_files(
                paths[:2], 300, threshold=0.9, ties="smallest", **shared)),
            "train_picky_from_counts": (self.PICKY, lambda: Tokenizer.train_picky_from_counts(
                counts[0], 300, threshold=0.9, **shared)),
        }
        for name, (options, call) in calls.items():
            with self.subTest(entry=name), option_checks() as log:
                self.assertGreater(len(call().merges), 10)
                self.assert_once(log, options)

    def test_the_command_line_is_one_call_into_the_api(self):
        out = os.path.join(self.folder.name, "tok.json")
        with option_checks() as log:
            result = run_here("train", self.path, "--bytes", "--vocab-size", "300", "--superbpe", "30",
                              "--ties", "first-seen", "--min-count", "3", "-o", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assert_once(log)
        self.assertEqual(Tokenizer.load(out).merges, Tokenizer.train_from_files(
            [self.path], 300, byte_level=True, superbpe=30, ties="first-seen", min_count=3).merges)

    def test_the_command_line_trains_each_variant_with_one_call_into_the_api(self):
        dev = os.path.join(self.folder.name, "dev.txt")
        with open(dev, "w", encoding="utf-8") as stream:
            stream.write(CORPUS[20000:21000])
        out = os.path.join(self.folder.name, "tok.json")
        runs = [(self.PARITY, ["--parity", "window", "--window-size", "5", "--alpha", "1.5", "--dev", dev]),
                (self.PICKY, ["--picky", "0.9", "--ties", "greatest"])]
        for options, flags in runs:
            with self.subTest(flags=flags), option_checks() as log:
                result = run_here("train", self.path, "--bytes", "--vocab-size", "300", "--min-count", "2", *flags,
                                  "-o", out)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assert_once(log, options)


class InputReadOnceTests(unittest.TestCase):
    """Input that cannot be read again (a pipe, an open stream) is read by the parent, workers or not (issue 28.11)."""

    def test_a_pipe_and_a_stream_train_as_the_file_does(self):
        text = CORPUS[:30000]
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "corpus.txt")
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(text)
            expected = Tokenizer.train_from_files([path], 400, byte_level=True, superbpe=20).merges
            fifo = os.path.join(folder, "pipe")
            os.mkfifo(fifo)
            def write():
                with open(fifo, "w", encoding="utf-8") as stream:
                    stream.write(text)

            writer = threading.Thread(target=write)
            writer.start()
            pools = []
            with mock.patch.object(counting, "worker_pool", side_effect=lambda *args: pools.append(args) or
                                   real_pool(*args)):
                through_pipe = Tokenizer.train_from_files([fifo], 400, byte_level=True, superbpe=20, workers=2)
            writer.join()
            self.assertEqual(pools, [(None, 2)])  # the parent read the pipe and handed its blocks to two workers
            with open(path, "rb") as stream:
                through_stream = Tokenizer.train_from_files([stream], 400, byte_level=True, superbpe=20, workers=2)
        self.assertEqual(through_pipe.merges, expected)
        self.assertEqual(through_stream.merges, expected)
