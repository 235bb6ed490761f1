"""Nothing destroyed, nothing unbounded, every error one clear line: the API's hardening.

Timings are never asserted here (they live in the benchmark, tools/bench); the speed items
are tested by their mechanism: each chunk listed once per pair, the special
token finder built once, loaders that refuse before reading.
"""

import contextlib
import enum
import importlib.util
import json
import os
import random
import resource
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from collections import Counter
from unittest import mock

import bpe
from bpe import Tokenizer
from bpelab import reading, writing
from bpelab.merges import engine
from bpelab.text import specials as special_tokens_module
from make_corpus import corpus
from tests.in_process import run_here

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAB = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
BYTES = Tokenizer.train(corpus(), 300, byte_level=True, special_tokens=["<|endoftext|>"])


class FolderTestCase(unittest.TestCase):
    """A test with its own temporary folder."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def path(self, name):
        return os.path.join(self.folder, name)

    def write(self, name, data=b"old"):
        with open(self.path(name), "wb") as stream:
            stream.write(data)
        return self.path(name)

    def read(self, path):
        with open(path, "rb") as stream:
            return stream.read()


WRITERS = {
    "save": lambda path: LAB.save(path),
    "save_huggingface": lambda path: BYTES.save_huggingface(path),
    "write_text_atomic": lambda path: bpe.write_text_atomic(path, "text\n"),
}
"""Every kind of file this project writes goes through these (token files too, see test_prepare)."""


class WritersTests(FolderTestCase):
    """Saving never replaces what it should not, and keeps links."""

    def assert_refused_and_kept(self, path, kind):
        for name, write in WRITERS.items():
            with self.subTest(writer=name), self.assertRaisesRegex(ValueError, kind) as caught:
                write(path)
            self.assertIn(path, str(caught.exception))
        self.assertEqual([name for name in os.listdir(self.folder) if name.endswith(".part")], [])

    def test_a_pipe_is_never_replaced(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        self.assert_refused_and_kept(fifo, "a pipe")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    @unittest.skipUnless(hasattr(os, "mknod") and os.geteuid() == 0, "making a device needs root")
    def test_a_device_is_never_replaced(self):
        device = self.path("null")
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a copy of /dev/null
        self.assert_refused_and_kept(device, "a character device")
        self.assertTrue(stat.S_ISCHR(os.lstat(device).st_mode))

    def test_dev_stdout_on_a_pipe_is_refused(self):
        script = f"import sys; sys.path.insert(0, {ROOT!r}); import bpe; bpe.write_text_atomic('/dev/stdout', 'x')"
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("/dev/stdout: a pipe", result.stderr)

    def test_a_link_keeps_being_a_link_and_its_target_is_written(self):
        target = self.write("v1.json")
        link = self.path("current.json")
        os.symlink("v1.json", link)
        for name, write in WRITERS.items():
            with self.subTest(writer=name):
                write(link)
                self.assertTrue(os.path.islink(link))
                self.assertNotEqual(self.read(target), b"old")
        dangling = self.path("new-link.json")
        os.symlink("v2.json", dangling)
        LAB.save(dangling)
        self.assertTrue(os.path.islink(dangling))
        self.assertEqual(Tokenizer.load(self.path("v2.json")).merges, LAB.merges)

    def test_a_folder_or_a_missing_folder_is_named(self):
        for path in (self.folder, self.path("missing") + os.sep, os.path.join(self.path("missing"), "x.json")):
            with self.subTest(path=path), self.assertRaises(OSError) as caught:
                LAB.save(path)
            self.assertIn(path, str(caught.exception))
        self.assertEqual(os.listdir(self.folder), [])

    def test_a_failed_save_names_the_target_not_the_temporary_file(self):
        path = self.write("tok.json")
        failure = OSError(28, "No space left on device")

        def fail(source, destination):
            raise OSError(failure.errno, failure.strerror, source, None, destination)

        with mock.patch.object(writing.os, "replace", side_effect=fail), self.assertRaises(OSError) as caught:
            LAB.save(path)
        self.assertEqual(caught.exception.filename, path)
        self.assertNotIn(".part", str(caught.exception))
        self.assertEqual(self.read(path), b"old")
        self.assertEqual(os.listdir(self.folder), ["tok.json"])

    def test_sigterm_sighup_or_sigquit_during_a_save_leaves_no_temporary_file(self):
        path = self.write("tok.json")
        for name in ("SIGTERM", "SIGHUP", "SIGQUIT"):
            script = (
                f"import os, resource, signal, sys; sys.path.insert(0, {ROOT!r}); import bpe\n"
                "from bpelab import writing\n"
                "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"  # (SIGQUIT's default action dumps core)
                # A shell starts a background job with SIGINT and SIGQUIT ignored, and a save leaves an ignored
                # signal ignored: the test sets the default action, as a terminal's process has it.
                f"signal.signal(signal.{name}, signal.SIG_DFL)\n"
                f"writing.os.fsync = lambda fd: os.kill(os.getpid(), signal.{name})\n"
                f"bpe.Tokenizer.load({os.path.join(ROOT, 'tokenizer.json')!r}).save({path!r})\n"
            )
            with self.subTest(signal=name):
                result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
                self.assertEqual(result.returncode, -getattr(signal, name), result.stderr)
                self.assertEqual(os.listdir(self.folder), ["tok.json"])
                self.assertEqual(self.read(path), b"old")

    def test_a_write_that_fails_names_the_file_and_leaves_nothing(self):
        # a full disk, or a file grown too large (here past RLIMIT_FSIZE; -B: no bytecode file is cut short either)
        self.write("tok.json")
        tokens = os.path.join(self.folder, "tokens.bin")
        for args, target in ((["train", os.path.join(ROOT, "bpe.py"), "--vocab-size", "300", "-o", "tok.json"],
                              "tok.json"), (["prepare", "-t", os.path.join(ROOT, "tokenizer.json"),
                                             os.path.join(ROOT, "bpe.py"), "-o", tokens], tokens)):
            with self.subTest(command=args[0]):
                result = subprocess.run([sys.executable, "-B", os.path.join(ROOT, "bpe.py"), *args], cwd=self.folder,
                                        capture_output=True, text=True, preexec_fn=lambda: resource.setrlimit(
                                            resource.RLIMIT_FSIZE, (3000, resource.RLIM_INFINITY)))
                self.assertEqual((result.returncode, result.stderr), (1, f"bpe: {target}: File too large\n"))
                self.assertEqual(sorted(os.listdir(self.folder)), ["tok.json"])
                self.assertEqual(self.read(os.path.join(self.folder, "tok.json")), b"old")

    def test_a_nul_in_a_path_names_the_argument(self):
        with self.assertRaisesRegex(ValueError, "path 'a\\\\x00b' holds a NUL character"):
            LAB.save("a\0b")
        with self.assertRaisesRegex(ValueError, "each of paths 'x\\\\x00' holds a NUL character"):
            Tokenizer.train_from_files(["x\0"], 50)


class LoaderTests(FolderTestCase):
    """Loaders read regular files and pipes, bounded in size and in waiting, and say what else they refuse in one line."""

    LOADERS = {"load": Tokenizer.load, "load_huggingface": Tokenizer.load_huggingface,
               "load_tiktoken": lambda path: Tokenizer.load_tiktoken(path, "o200k")}

    def test_devices_and_sockets_are_refused_by_type_and_a_folder_as_open_refuses_it(self):
        server = socket.socket(socket.AF_UNIX)
        self.addCleanup(server.close)
        server.bind(self.path("socket"))
        for name, load in self.LOADERS.items():
            for path, kind in (("/dev/zero", "a character device"), (self.path("socket"), "a socket")):
                with self.subTest(loader=name, path=path), \
                        self.assertRaisesRegex(ValueError, f"{path}: {kind}, which is not read"):
                    load(path)
            with self.subTest(loader=name, path="a folder"), self.assertRaises(IsADirectoryError) as caught:
                load(self.folder)
            self.assertEqual(caught.exception.filename, self.folder)

    def write_later(self, fifo, data, pieces=4, pause=0.05):
        """Open ``fifo`` for writing in a thread and send ``data`` in a few pieces, with pauses between them."""

        def write():  # the reader may stop early (past the limit), and then the pipe breaks
            with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as stream:
                for start in range(0, len(data), -(-len(data) // pieces)):
                    time.sleep(pause)
                    stream.write(data[start:start + -(-len(data) // pieces)])
                    stream.flush()

        writer = threading.Thread(target=write)
        writer.start()
        self.addCleanup(writer.join)

    def test_a_pipe_is_read_as_its_data_comes(self):
        with open(os.path.join(ROOT, "tokenizer.json"), "rb") as stream:
            data = stream.read()
        for name, load in list(self.LOADERS.items())[:2]:
            fifo = self.path(f"fifo-{name}")
            os.mkfifo(fifo)
            if name == "load_huggingface":
                data = (json.dumps(BYTES.to_huggingface()) + "\n").encode()
            self.write_later(fifo, data)
            loaded = load(fifo)
            self.assertEqual(loaded.encode("mia has a red ball."), (LAB if name == "load" else BYTES).encode(
                "mia has a red ball."))

    def test_a_silent_pipe_is_given_up_after_a_few_seconds(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)  # nobody ever writes to it: opening it to read would wait forever
        with mock.patch.object(reading, "PIPE_WAIT", 0.2), \
                self.assertRaisesRegex(ValueError, f"{fifo}: a pipe that sent nothing for 0.2 seconds"):
            Tokenizer.load(fifo)

    def test_a_pipe_past_the_limit_is_refused(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        self.write_later(fifo, b" " * 5000, pieces=2, pause=0)
        with mock.patch.object(reading, "MAX_FILE_BYTES", 1000), \
                self.assertRaisesRegex(ValueError, f"{fifo}: larger than the 1,000 bytes"):
            Tokenizer.load(fifo)

    def test_the_command_line_reads_a_tokenizer_from_a_shell_pipe_and_from_dev_stdin(self):
        tokenizer = os.path.join(ROOT, "tokenizer.json")
        bpe_path = os.path.join(ROOT, "bpe.py")
        shell = subprocess.run(["bash", "-c", '"$0" "$1" encode -t <(cat "$2") "mia has a red ball."',
                                sys.executable, bpe_path, tokenizer], capture_output=True, text=True, timeout=60)
        self.assertEqual((shell.returncode, shell.stdout, shell.stderr), (0, "58 36 33 89 85 4\n", ""))
        with open(tokenizer, "rb") as stream:
            piped = subprocess.run([sys.executable, bpe_path, "encode", "-t", "/dev/stdin", "mia has a red ball."],
                                   stdin=stream, capture_output=True, text=True, timeout=60)
        self.assertEqual((piped.returncode, piped.stdout, piped.stderr), (0, "58 36 33 89 85 4\n", ""))
        exported = self.path("hf.json")
        BYTES.save_huggingface(exported)
        converted = subprocess.run(["bash", "-c", '"$0" "$1" convert <(cat "$2") -o "$3"', sys.executable, bpe_path,
                                    exported, self.path("copy.json")], capture_output=True, text=True, timeout=60)
        self.assertEqual(converted.returncode, 0, converted.stderr)  # read once, though the loader reads it again
        self.assertEqual(Tokenizer.load(self.path("copy.json")).to_json(), BYTES.to_json())

    def test_files_over_the_limit_are_refused(self):
        huge = self.path("huge.json")
        with open(huge, "wb") as stream:
            stream.truncate(reading.MAX_FILE_BYTES + 1)  # sparse: no disk is used
        with self.assertRaisesRegex(ValueError, "huge.json: larger than the 256 MiB"):
            Tokenizer.load(huge)
        with mock.patch.object(reading, "MAX_FILE_BYTES", 1000):
            bomb = self.path("bomb.tiktoken.gz")
            import gzip
            with gzip.open(bomb, "wb") as stream:
                stream.write(b"\0" * 5000)
            with self.assertRaisesRegex(ValueError, "decompresses to more than"):
                Tokenizer.load_tiktoken(bomb, "o200k")


class QuadraticTests(unittest.TestCase):
    """The mechanisms that keep long chunks, long tokens and many special tokens from costing n²."""

    def test_a_chunk_is_listed_once_per_pair_however_often_the_pair_occurs(self):
        coded = ["\0" * 10_000, "\0\1\0\1\0\1"]
        pair_counts, pair_chunks = engine.index_pairs(coded, [1, 3])
        self.assertEqual(pair_counts, {"\0\0": 9_999, "\0\1": 9, "\1\0": 6})
        self.assertEqual({pair: list(listed) for pair, listed in pair_chunks.items()},
                         {"\0\0": [0], "\0\1": [1], "\1\0": [1]})

    def test_a_merge_visits_each_chunk_once(self):
        visits = Counter()
        real_merge = engine.merge_everywhere

        def counting(pair, new, coded, weights, pair_counts, pair_chunks, least=0):
            visits.update(pair_chunks[pair])
            self.assertEqual(len(pair_chunks[pair]), len(set(pair_chunks[pair])))
            return real_merge(pair, new, coded, weights, pair_counts, pair_chunks, least)

        with mock.patch.object(engine, "merge_everywhere", counting):
            for ties in bpe.TIE_RULES:
                learned = Tokenizer.train("ab" * 5000 + " abab", 40, ties=ties).merges
                self.assertEqual(learned[:2], [("a", "b"), ("ab", "ab")])
        self.assertTrue(visits)

    def test_the_special_token_finder_is_built_once_per_tokenizer(self):
        specials = [f"<|reserved_{number}|>" for number in range(5000)]
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=specials)
        with mock.patch.object(special_tokens_module, "special_finder", wraps=special_tokens_module.special_finder) as built:
            for _ in range(3):
                self.assertEqual(tokenizer.encode("hello world"), list(b"hello world"))
                tokenizer.encode("a<|reserved_4999|>b", allowed_special="all")
        self.assertEqual(built.call_count, 1)  # the same set: all disallowed, then all allowed
        self.assertEqual(tokenizer.encode("<|reserved_12|><|reserved_1|>", allowed_special="all"),
                         [256 + 12, 256 + 1])

    def test_prefixes_find_the_longest_special_token(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=["<a", "<a>", "<a>>", "b" * 128])
        self.assertEqual(tokenizer.encode("x<a>>y<a>z<ab" + "b" * 128, allowed_special="all"),
                         [120, 258, 121, 257, 122, 256, 259, 98])
        chain = [("a" * length) for length in range(1, 129)]
        deep = Tokenizer(None, [], byte_level=True, special_tokens=chain)
        self.assertEqual(deep.encode("a" * 1000, allowed_special="all"), [256 + 127] * 7 + [256 + 103])  # 7 × 128 + 104

    def test_thousands_of_special_tokens_that_begin_each_other(self):
        nested = ["<" + "a" * length for length in range(1, special_tokens_module.MAX_SPECIAL_LENGTH)]  # a trie as deep as allowed
        branching = [f"<{'a' * (number % 50)}{number}>" for number in range(5000)]
        specials = nested + branching
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=specials)
        rng = random.Random(5)
        known = set(specials)
        for _ in range(50):
            text = "".join(rng.choice(["<", "a", "a" * 60, "1", "2", "3>", ">", "x"]) for _ in range(rng.randint(0, 30)))
            expected, position = [], 0
            while position < len(text):  # the simplest reading: the longest special token starting here, if any
                starting = (text[position:end] for end in range(position + 1, len(text) + 1))
                found = max((token for token in starting if token in known), key=len, default=None)
                expected += [tokenizer.special_tokens[found]] if found else list(text[position].encode())
                position += len(found) if found else 1
            self.assertEqual(tokenizer.encode(text, allowed_special="all"), expected, text)
        with self.assertRaisesRegex(ValueError, "has 129 characters; special tokens may have at most 128"):
            Tokenizer(None, [], byte_level=True, special_tokens=["<" + "a" * 128])

    def test_exporting_tokens_built_from_a_long_word_agrees_with_tiktoken_rules(self):
        word = "".join(random.Random(1).choices("abcdefghijklmnopqrstuvwxyz", k=1000))
        tokenizer = Tokenizer.train(word + " " + word, 2000, byte_level=True)
        self.assertGreater(max(map(len, tokenizer.vocab)), 500)
        ranks = tokenizer.to_tiktoken()["mergeable_ranks"]
        self.assertEqual(len(ranks), len(tokenizer))


class SpecialTokenTests(unittest.TestCase):

    def test_tiktoken_export_refuses_special_tokens_that_begin_each_other(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=["<a>>", "<a", "<b>"])
        with self.assertRaisesRegex(ValueError, "special token '<a' begins '<a>>'"):
            tokenizer.to_tiktoken()
        Tokenizer(None, [], byte_level=True, special_tokens=["<a>", "<b>"]).to_tiktoken()

    def test_special_tokens_leave_a_bounded_number_of_ids_unused(self):
        highest = 256 + special_tokens_module.MAX_UNUSED_IDS
        self.assertEqual(len(Tokenizer(None, [], byte_level=True, special_tokens={"<|x|>": highest})), highest + 1)
        for token_id in (highest + 1, 2**64, 10**30):
            with self.subTest(token_id=token_id), self.assertRaisesRegex(ValueError, "may leave at most 1,048,576"):
                Tokenizer(None, [], byte_level=True, special_tokens={"<|x|>": token_id})

    def test_display_strings_and_special_tokens_are_separate_at_the_byte_level(self):
        tokenizer = Tokenizer.train("the the the the", 300, byte_level=True, special_tokens=["Ġthe"])
        self.assertIn("Ġthe", tokenizer.ids)
        self.assertEqual(tokenizer.encode(" the"), [tokenizer.ids["Ġthe"]])
        special = tokenizer.special_tokens["Ġthe"]
        self.assertNotEqual(special, tokenizer.ids["Ġthe"])
        self.assertEqual(tokenizer.encode("Ġthe", allowed_special="all"), [special])
        self.assertEqual(tokenizer.decode([special]), "Ġthe")
        self.assertEqual(Tokenizer.from_json(tokenizer.to_json()).vocab, tokenizer.vocab)


class ChecksBeforeWorkTests(unittest.TestCase):
    """Wrong arguments are refused before any chunk is counted."""

    def assert_refused_before_counting(self, error, message, **options):
        for train in (lambda: Tokenizer.train(corpus(), 96, **options),
                      lambda: Tokenizer.train_from_files([os.path.join(ROOT, "corpus.txt")], 96, **options)):
            with mock.patch.object(bpe, "count_chunks", side_effect=AssertionError("counted")):
                with self.assertRaisesRegex(error, message):
                    train()

    def test_bad_options(self):
        self.assert_refused_before_counting(ValueError, "'<unk>' is the unknown-character token",
                                            special_tokens=["<unk>"])
        self.assert_refused_before_counting(TypeError, "progress must be a function or None, not 5", progress=5)
        self.assert_refused_before_counting(TypeError, "on_merge must be a function or None, not 'x'",
                                            on_merge="x")
        self.assert_refused_before_counting(ValueError, "ties must be 'smallest' or 'first-seen'", ties="last")
        self.assert_refused_before_counting(TypeError, "byte_level must be True or False", byte_level=1)
        self.assert_refused_before_counting(ValueError, "must not contain whitespace", special_tokens=["a b"])

    def test_options_are_keyword_only_and_in_the_same_order(self):
        import inspect

        orders = []
        for train in (Tokenizer.train, Tokenizer.train_from_files, Tokenizer.train_from_counts):
            parameters = inspect.signature(train).parameters.values()
            self.assertEqual([p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD][1:], ["vocab_size"])
            orders.append([p.name for p in parameters if p.kind is p.KEYWORD_ONLY])
        self.assertEqual(orders[1], orders[0] + ["block_size"])
        counted = [name for name in orders[0] if name != "workers"]  # counts need no counting
        self.assertEqual(orders[2], counted + ["superbpe_counts"])


class MessageTests(unittest.TestCase):
    """Errors name what the user gave, shortened when long."""

    def test_long_values_are_shortened(self):
        with self.assertRaises(ValueError) as caught:
            Tokenizer.train("ab ab", 10, pattern="x" * 5_000_000)
        self.assertLess(len(str(caught.exception)), 260)  # the value in 60 characters, the nine patterns, "or a regex"
        self.assertIn("5,000,002 characters", str(caught.exception))

    def test_a_lone_surrogate_is_blamed_on_the_text(self):
        with self.assertRaisesRegex(ValueError, "^text holds the lone surrogate '\\\\ud800' at position 3"):
            Tokenizer.train("ab \ud800 ab", 10)

    def test_any_integer_is_an_id_but_a_bool_is_not(self):
        class Small(enum.IntEnum):
            FIVE = 5

        self.assertEqual(LAB.decode([Small.FIVE, 7]), "ac")
        self.assertEqual(LAB.id_to_token(Small.FIVE), "a")
        if importlib.util.find_spec("numpy"):
            import numpy

            self.assertEqual(LAB.decode(numpy.array([5, 7], dtype=numpy.int64)), "ac")
            self.assertEqual(LAB.decode([numpy.int64(5)]), "a")
        for bad in ([True], [5, False]):
            with self.assertRaisesRegex(ValueError, "outside the vocabulary"):
                LAB.decode(bad)

    def test_a_file_name_that_would_break_the_line_is_escaped(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bad\nname.json")
            with open(path, "w") as stream:
                stream.write("{")
            with self.assertRaises(ValueError) as caught:
                Tokenizer.load(path)
            self.assertIn("bad\\nname.json", str(caught.exception))
            self.assertNotIn("\n", str(caught.exception))
            missing = run_here("count", "-t", os.path.join(ROOT, "tokenizer.json"), "no\nsuch.txt", text=True)
            self.assertEqual((missing.returncode, missing.stderr.count("\n")), (1, 1), missing.stderr)
            self.assertIn("'no\\nsuch.txt': No such file", missing.stderr)
            with self.assertRaises(OSError) as caught:
                LAB.save(os.path.join(folder, "no\nsuch", "x.json"))
            self.assertNotIn("\n", str(caught.exception))
            latin_1 = os.path.join(folder, os.fsdecode(b"caf\xe9.json"))  # a name that is not UTF-8
            with open(latin_1, "w") as stream:
                stream.write("{")
            with self.assertRaises(ValueError) as caught:
                Tokenizer.load(latin_1)
            self.assertTrue(str(caught.exception).startswith(os.path.join(folder, "caf\\xe9.json: ")))

    def test_integers_too_long_to_write_out(self):
        with self.assertRaisesRegex(ValueError, "special token '<\\|e\\|>' has ID an integer of 16,610 bits"):
            Tokenizer(None, [], byte_level=True, special_tokens={"<|e|>": 10**5000})
        with self.assertRaisesRegex(ValueError, "IDs a list holding an integer too long to write out are outside"):
            LAB.decode([10**5000])

    def test_from_json_with_keys_that_are_not_strings(self):
        with self.assertRaisesRegex(ValueError, "every key must be a string"):
            Tokenizer.from_json({"format_version": 1, 1: [], "alphabet": [], "merges": []})


if __name__ == "__main__":
    unittest.main()
