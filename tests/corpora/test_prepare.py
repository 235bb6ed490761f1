"""Preparing a training set: batch and parallel encoding, token files, counting.

Timings and memory are measured by the benchmark (tools/bench), never here.
"""

import array
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from bpe import Tokenizer
from bpelab import writing
from bpelab.corpora import workers
from make_corpus import corpus
from tests.in_process import run_here
from tests import ROOT

BPE_PATH = os.path.join(ROOT, "bpe.py")
SPECIAL = "<|endoftext|>"
TEXTS = [
    corpus()[:20_000] + f"{SPECIAL}the end.\n",
    "",
    "Ça me plaît : l'été à la mer.\r\n\r\n  " * 40 + "👩‍👩‍👧 ok  \t\n",
    corpus()[20_000:30_000],
]
TOKENIZERS = {
    "characters": Tokenizer.train(corpus(), 120, special_tokens=[SPECIAL]),
    "bytes": Tokenizer.train(corpus() + TEXTS[2], 400, byte_level=True, special_tokens=[SPECIAL]),
    "cl100k pattern": Tokenizer.train(corpus() + TEXTS[2], 350, byte_level=True, pattern="cl100k",
                                      special_tokens=[SPECIAL]),
}


def alive(pid):
    """Whether a process runs (a finished one waiting to be reaped does not)."""
    if os.path.isdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stream:
                return stream.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def read_ids(path, dtype):
    """A token file read back with the standard library's array (the documented one-liner)."""
    ids = array.array({"uint16": "H", "uint32": "I"}[dtype])
    with open(path, "rb") as stream:
        ids.frombytes(stream.read())
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tolist()


class InAFolderOfTexts:
    """Tests whose ``setUp`` makes a temporary folder, ``self.folder``, holding ``TEXTS`` as part0.txt, ...
    (``self.paths``)."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.paths = []
        for number, text in enumerate(TEXTS):
            path = os.path.join(self.folder, f"part{number}.txt")
            with open(path, "wb") as stream:
                stream.write(text.encode("utf-8"))
            self.paths.append(path)


class TokenFileTests(InAFolderOfTexts, unittest.TestCase):

    def test_same_ids_as_encoding_each_whole_file_for_any_block_size_and_worker_count(self):
        out = os.path.join(self.folder, "train.bin")
        for name, tokenizer in TOKENIZERS.items():
            separator = tokenizer.special_tokens[SPECIAL]
            expected = []
            for text in TEXTS:
                expected += tokenizer.encode(text, allowed_special="all") + [separator]
            for block_size, processes in ((1, 1), (61, 2), (1 << 20, 1), (300, 2)):  # (tiny blocks cost workers time)
                with self.subTest(tokenizer=name, block_size=block_size, workers=processes):
                    summary = tokenizer.encode_files(self.paths, out, workers=processes, separator=SPECIAL,
                                                     allowed_special="all", block_size=block_size)
                    self.assertEqual(read_ids(out, "uint16"), expected)
                    with open(out + ".json", encoding="utf-8") as stream:
                        self.assertEqual(json.load(stream), summary)
                    self.assertEqual(summary["tokens"], len(expected))
                    self.assertEqual([entry["tokens"] for entry in summary["files"]],
                                     [len(tokenizer.encode(text, allowed_special="all")) for text in TEXTS])

    def test_the_description(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "train.bin")
        summary = tokenizer.encode_files(self.paths[3:], out)
        self.assertEqual(list(summary), ["dtype", "byteorder", "tokens", "tokenizer_sha256", "files", "separator"])
        self.assertEqual((summary["dtype"], summary["byteorder"], summary["separator"]), ("uint16", "little", None))
        saved = os.path.join(self.folder, "tok.json")
        tokenizer.save(saved)
        import hashlib

        with open(saved, "rb") as stream:
            self.assertEqual(summary["tokenizer_sha256"], hashlib.sha256(stream.read()).hexdigest())
        self.assertEqual(summary["files"], [{"path": self.paths[3], "tokens": summary["tokens"]}])

    def test_large_vocabularies_use_32_bits(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens={"<|end|>": 70_000})
        out = os.path.join(self.folder, "wide.bin")
        summary = tokenizer.encode_files(self.paths[:1], out, separator="<|end|>")
        self.assertEqual(summary["dtype"], "uint32")
        self.assertEqual(read_ids(out, "uint32"), list(TEXTS[0].encode("utf-8")) + [70_000])

    def test_bad_input_leaves_nothing_behind(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "never.bin")
        bad = os.path.join(self.folder, "latin1.txt")
        with open(bad, "wb") as stream:
            stream.write(b"abc " * 1000 + "café".encode("latin-1"))  # é is one byte, 0xE9, in Latin-1
        cases = [
            (lambda: tokenizer.encode_files([self.paths[3], bad], out, block_size=100), ValueError,
             f"{bad}: not valid UTF-8 \\(byte 4,003"),
            (lambda: tokenizer.encode_files([self.paths[0], "missing.txt"], out), FileNotFoundError, "missing.txt"),
            (lambda: tokenizer.encode_files(self.paths, out, separator="<|nope|>"), ValueError,
             "separator '<\\|nope\\|>' is not a special token of this tokenizer"),
            (lambda: tokenizer.encode_files(self.paths, os.path.join(self.folder, "no", "x.bin")), OSError,
             "no folder"),
            (lambda: tokenizer.encode_files(self.paths, out, workers=0), ValueError, "workers must be a positive"),
            (lambda: tokenizer.encode_files(self.paths, self.paths[0]), ValueError, "is also one of the files"),
            (lambda: tokenizer.encode_files(self.paths[:1], out), ValueError, "special token '<\\|endoftext\\|>'"),
        ]
        for encode, error, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(error, message):
                encode()
        self.assertFalse([name for name in os.listdir(self.folder) if "never" in name or name.endswith(".part")])

    def test_a_token_file_never_stands_beside_another_runs_description(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "train.bin")
        tokenizer.encode_files(self.paths[3:], out)
        real = os.replace
        for stopped_at in (1, 2):  # the first rename, or the second
            renames = []

            def rename(source, target):
                renames.append(target)
                if len(renames) == stopped_at:
                    raise KeyboardInterrupt
                real(source, target)

            with self.subTest(stopped_at=stopped_at), mock.patch("os.replace", rename), \
                    self.assertRaises(KeyboardInterrupt):
                tokenizer.encode_files(self.paths[:1], out, allowed_special="all")
            if os.path.exists(out + ".json"):
                with open(out + ".json", encoding="utf-8") as stream:
                    self.assertEqual(2 * json.load(stream)["tokens"], os.path.getsize(out))
            self.assertFalse([name for name in os.listdir(self.folder) if name.endswith(".part")])

    def test_a_bad_separator_lists_a_few_special_tokens(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=[f"<|{i}|>" for i in range(5000)])
        with self.assertRaises(ValueError) as caught:
            tokenizer.encode_files(self.paths, os.path.join(self.folder, "never.bin"), separator="<|nope|>")
        self.assertIn("(it has 5,000: '<|0|>', '<|1|>', '<|2|>', '<|3|>', '<|4|>', ...)", str(caught.exception))

    def test_counting(self):
        tokenizer = TOKENIZERS["characters"]
        counts = tokenizer.count_files(self.paths, allowed_special="all", block_size=64)
        self.assertEqual(counts, [len(tokenizer.encode(text, allowed_special="all")) for text in TEXTS])


class BatchTests(unittest.TestCase):

    def test_encode_batch_keeps_the_order_at_any_worker_count(self):
        rng = random.Random(9)
        texts = [corpus()[start:start + rng.randint(0, 400)] for start in range(0, 40_000, 700)] + ["", "é"]
        for name, tokenizer in TOKENIZERS.items():
            expected = [tokenizer.encode(text) for text in texts]
            for processes in (1, 2):
                with self.subTest(tokenizer=name, workers=processes):
                    self.assertEqual(tokenizer.encode_batch(texts, workers=processes), expected)
        special = TOKENIZERS["bytes"].encode_batch([f"a{SPECIAL}b"], allowed_special="all")
        self.assertEqual(special, [TOKENIZERS["bytes"].encode(f"a{SPECIAL}b", allowed_special="all")])

    def test_worker_processes_end_with_a_killed_parent(self):
        script = (f"import os, signal, sys; sys.path.insert(0, {ROOT!r}); import bpe\n"
                  "from bpelab.corpora import workers\n"
                  "pool = workers.worker_pool(bpe.Tokenizer(None, [], byte_level=True), 2)\n"
                  "print(sorted({pool.submit(os.getpid).result() for _ in range(8)}), flush=True)\n"
                  "os.kill(os.getpid(), signal.SIGKILL)\n")
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
        workers = json.loads(result.stdout)
        self.assertTrue(workers)
        deadline = time.monotonic() + 20
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertFalse(any(map(alive, workers)), "the workers of a killed parent kept running")

    def test_workers_keep_the_default_sigterm_action(self):
        # A save tidies up its own temporary file on SIGTERM; workers started meanwhile must simply end.
        with writing.stopping_cleanly(), workers.worker_pool(TOKENIZERS["bytes"], 1) as pool:
            self.assertEqual(pool.submit(signal.getsignal, signal.SIGTERM).result(), signal.SIG_DFL)
        # ... from the moment they exist, not only once they start work (else SIGTERM sent to a worker
        # between its fork and its start printed the parent's unwinding as a traceback)
        with writing.stopping_cleanly():
            child = os.fork()
            if child == 0:
                os._exit(0 if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL else 1)
            self.assertEqual(os.waitpid(child, 0)[1], 0)

    def test_bad_arguments_are_refused_before_any_work(self):
        tokenizer = TOKENIZERS["bytes"]
        with self.assertRaisesRegex(ValueError, "texts must be a list"):
            tokenizer.encode_batch("abc")
        with self.assertRaisesRegex(TypeError, "each of texts must be a str"):
            tokenizer.encode_batch(["a", 5])
        with self.assertRaisesRegex(TypeError, "workers must be a positive int, not bool"):
            tokenizer.encode_batch(["a"], workers=True)
        with self.assertRaisesRegex(ValueError, "workers must be at most .* not 100,000"):
            tokenizer.encode_batch(["a", "b"], workers=100_000)
        with self.assertRaisesRegex(ValueError, "not a special token"):
            tokenizer.encode_batch(["a"], allowed_special={"<|x|>"})


class CommandLineTests(unittest.TestCase):

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.tokenizer = os.path.join(self.folder, "tok.json")
        TOKENIZERS["bytes"].save(self.tokenizer)
        self.text = os.path.join(self.folder, "text.txt")
        with open(self.text, "wb") as stream:
            stream.write(TEXTS[0].encode())

    def run_bpe(self, *args):
        """``python3 bpe.py`` as a real process, for a command with worker processes (the test runner must not fork)."""
        return subprocess.run([sys.executable, BPE_PATH, *args], capture_output=True, text=True, timeout=120)

    def test_prepare_and_count(self):
        out = os.path.join(self.folder, "train.bin")
        prepared = self.run_bpe("prepare", "-t", self.tokenizer, "-o", out, "--workers", "2", "--separator", SPECIAL,
                                "--allow-special", self.text, self.text)
        self.assertEqual((prepared.returncode, prepared.stderr), (0, ""))
        ids = TOKENIZERS["bytes"].encode(TEXTS[0], allowed_special="all") + [TOKENIZERS["bytes"].special_tokens[SPECIAL]]
        self.assertEqual(read_ids(out, "uint16"), ids * 2)
        self.assertEqual(prepared.stdout, f"{out}: {2 * len(ids):,} tokens as uint16 from 2 files; "
                                          f"described in {out}.json\n")
        counted = run_here("count", "-t", self.tokenizer, "--allow-special", self.text, self.text, text=True)
        self.assertEqual(counted.stdout.split(), [f"{len(ids) - 1:,}", self.text, f"{len(ids) - 1:,}", self.text,
                                                  f"{2 * len(ids) - 2:,}", "total"])

    def test_errors_are_one_line_and_leave_no_file(self):
        out = os.path.join(self.folder, "never.bin")
        cases = [
            (["prepare", "-t", self.tokenizer, "-o", out, "--separator", "<|x|>", self.text], "not a special token"),
            (["prepare", "-t", self.tokenizer, "-o", out, "missing.txt"], "missing.txt: No such file"),
            (["prepare", "-t", self.tokenizer, "-o", os.path.join(self.folder, "no", "x.bin"), self.text], "no folder"),
            (["count", "-t", self.tokenizer, self.text], "special token '<|endoftext|>'"),
        ]
        for args, message in cases:
            result = run_here(*args, text=True)
            with self.subTest(args=args):
                self.assertEqual(result.returncode, 1)
                self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
                self.assertIn(message, result.stderr)
        self.assertEqual(sorted(os.listdir(self.folder)), ["text.txt", "tok.json"])

    def test_a_killed_worker_is_one_line(self):
        out = os.path.join(self.folder, "never.bin")
        script = (f"import os, signal, sys; sys.path.insert(0, {ROOT!r}); import bpe\n"
                  "from bpelab.commands import cli\nfrom bpelab.corpora import workers\n"
                  "workers.start_worker = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # each dies at once\n"
                  f"sys.exit(cli.main(['prepare', '-t', {self.tokenizer!r}, '-o', {out!r}, '--workers', '2', "
                  f"'--allow-special', {self.text!r}, {self.text!r}]))\n")
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        said = "bpe: a worker process was killed before it finished; nothing was written\n"
        self.assertEqual(result.returncode, 1)
        self.assertIn(said, result.stderr)
        other = result.stderr.replace(said, "", 1)  # under load a forked child may report CPython's own
        self.assertTrue(not other or "in: <function _after_fork" in other, result.stderr)  # (threading._after_fork)
        self.assertEqual(sorted(os.listdir(self.folder)), ["text.txt", "tok.json"])


if __name__ == "__main__":
    unittest.main()
