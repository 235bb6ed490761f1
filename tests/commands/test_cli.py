"""Tests for the command line (``python3 bpe.py COMMAND ...``).

Every command runs as a process started in the C locale with Python's UTF-8
mode and locale coercion turned off, so standard streams and arguments are
ASCII as far as Python is concerned: text can only come through intact if
the command line really reads and writes UTF-8 bytes itself.

Most commands run in this process (``run_here``, tests/in_process.py), which
calls ``bpelab.commands.cli.main`` with what such a process has: its arguments as the
C locale decodes them, ASCII streams over bytes, its environment, and its
exit status from ``main`` or ``SystemExit``. That is all those tests look
at, and a run takes milliseconds instead of the 0.3 s a new interpreter
takes to start. The runner is itself tested: the same commands run both
ways give the same bytes and status (``test_text_survives_the_c_locale_both_ways``),
a wrong ``print`` of non-ASCII fails as it would in a process, and a run
leaves nothing behind (``InProcessTests``).

Real processes stay where only a process shows what is tested: the locale's
own decoding of arguments and streams (that test), a reader that goes away
(status 141) and closed standard streams, ``/dev/stdin`` (file descriptor 0;
in this process it is the test runner's), ``python3 -m bpe`` and
``make_corpus.py``, and the colour, progress and reading-from-a-terminal
paths, which run under a pseudo-terminal (``pty``) so ``isatty()`` is true
for real. (No command here starts worker processes or serves a page; the
runner refuses the first, and tests/commands/test_view.py runs the second.)
"""

import collections
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import bpe
import bpelab.commands.cli
from bpelab.commands import widget as widget_page
from bpelab.commands.terminal import OUT
from tests.in_process import BPE_PATH, ROOT, environment, run_here

try:
    import pty
except ImportError:  # Windows has no pseudo-terminals
    pty = None

LAB = os.path.join(ROOT, "tokenizer.json")
CORPUS = os.path.join(ROOT, "corpus.txt")

ENV = environment()

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
STYLED = re.compile(r"\x1b\[([0-9;]+)m([^\x1b]*)\x1b\[0m")
RED = {"1;97;41", "1;97;101"}

# The lesson's first merges, copied in as facts: ``train --verbose --vocab-form`` prints this table, as the lesson
# writes it; plain ``--verbose`` the same merges in the readable form (``READABLE_FIRST_MERGES``).
LESSON_FIRST_MERGES = """\
| merge | pair | token | count |
| --- | --- | --- | --- |
| 1 | `" "` + `"t"` | `" t"` | 2,400 |
| 2 | `"h"` + `"e"` | `"he"` | 1,798 |
| 3 | `" t"` + `"he"` | `" the"` | 1,600 |
| 4 | `" "` + `"g"` | `" g"` | 1,186 |
| 5 | `" "` + `"b"` | `" b"` | 1,101 |
| 6 | `" "` + `"a"` | `" a"` | 1,072 |
"""
READABLE_FIRST_MERGES = """\
| merge | pair | token | count |
| --- | --- | --- | --- |
| 1 | `␣` + `t` | `␣t` | 2,400 |
| 2 | `h` + `e` | `he` | 1,798 |
| 3 | `␣t` + `he` | `␣the` | 1,600 |
| 4 | `␣` + `g` | `␣g` | 1,186 |
| 5 | `␣` + `b` | `␣b` | 1,101 |
| 6 | `␣` + `a` | `␣a` | 1,072 |
"""


def with_stdin(command):
    """``(arguments, stdin)`` of a command written as a tuple of arguments, optionally ending in stdin bytes."""
    if command and isinstance(command[-1], bytes):
        return command[:-1], command[-1]
    return command, b""


def run_all_here(*commands):
    """Run commands (each as ``with_stdin`` reads it) one after another in this process."""
    return [run_here(*args, stdin=stdin) for args, stdin in map(with_stdin, commands)]


def start(command, cwd=None):
    """Start ``command`` as a real process with pipes for all three standard streams."""
    pipe = subprocess.PIPE
    return subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=pipe, env=ENV, cwd=cwd)


def finish(process, stdin=b""):
    """Give a started process its standard input and wait for it."""
    stdout, stderr = process.communicate(stdin, timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def run_process(*args, stdin=b""):
    """Run ``python3 bpe.py`` with ``args`` and bytes on standard input; stdout and stderr are pipes."""
    return finish(start([sys.executable, BPE_PATH, *args]), stdin)


def run_processes(*commands):
    """Run independent commands (each as ``with_stdin`` reads it) as real processes, side by side.

    All are started before any is waited for, so they overlap without threads
    (a thread still winding down would make ``pty.fork`` unsafe).
    """
    commands = [with_stdin(command) for command in commands]
    processes = [start([sys.executable, BPE_PATH, *args]) for args, _ in commands]
    return [finish(process, stdin) for process, (_, stdin) in zip(processes, commands)]


def run_in_terminal(*args, env=None, typed=None):
    """Run ``bpe.py`` with all three standard streams on a pseudo-terminal; return (output, status).

    The terminal turns each newline written into ``\\r\\n``. ``typed``, if
    given, is typed at the terminal (as bytes), followed by Ctrl-D.
    """
    pid, terminal = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
        try:
            os.execve(sys.executable, [sys.executable, BPE_PATH, *args], env or ENV)
        finally:
            os._exit(127)
    if typed is not None:
        os.write(terminal, typed + b"\x04")
    output = []
    try:
        while select.select([terminal], [], [], 30)[0]:
            try:
                data = os.read(terminal, 1 << 16)
            except OSError:  # EIO: the child has closed the terminal
                break
            if not data:
                break
            output.append(data)
        else:
            os.kill(pid, signal.SIGKILL)
    finally:
        os.close(terminal)
        _, status = os.waitpid(pid, 0)
    return b"".join(output), os.waitstatus_to_exitcode(status)


def load_json(path):
    """A JSON file's content."""
    with open(path, encoding="utf-8") as stream:
        return json.load(stream)


def write(folder, name, data):
    """Write bytes to ``folder/name`` and return the path."""
    path = os.path.join(folder, name)
    with open(path, "wb") as stream:
        stream.write(data)
    return path


def setUpModule():
    """Make a temporary folder with test inputs and a byte-level tokenizer trained by the CLI."""
    global TEMP, FOLDER, CAFE, BYTES, BYTES_TRAINING, MARKS_TOKENIZER
    TEMP = tempfile.TemporaryDirectory()
    FOLDER = TEMP.name
    CAFE = write(FOLDER, "cafe.txt", "le café, thé, été, bébé <|end|>\n".encode() * 100)
    BYTES = os.path.join(FOLDER, "bytes.json")
    BYTES_TRAINING = run_here("train", CORPUS, CAFE, "--bytes", "--special", "<|end|>", "--vocab-size", "300",
                              "-o", BYTES)
    # A character-level tokenizer, no merges, whose alphabet holds the characters show draws marks with.
    alphabet = sorted("ab \t\n\\\u2502\u2423\u21b5\u21e5")
    text = json.dumps({"format_version": 1, "alphabet": alphabet, "merges": []})
    MARKS_TOKENIZER = write(FOLDER, "marks.json", text.encode())


def tearDownModule():
    TEMP.cleanup()


class CommandLineTestCase(unittest.TestCase):
    """Assertions shared by the command-line tests."""

    def assertSucceeds(self, result):
        """Exit status 0, and nothing on stderr."""
        self.assertEqual((result.returncode, result.stderr), (0, b""), result.stderr.decode(errors="replace"))

    def assertFails(self, result, message, status=1):
        """The given status, no output, and ``message`` in a one-line stderr with no traceback."""
        stderr = result.stderr.decode("utf-8", errors="replace")
        self.assertEqual(result.returncode, status, stderr)
        self.assertEqual(result.stdout, b"")
        self.assertNotIn("Traceback", stderr)
        self.assertIn(message, stderr)
        self.assertEqual(stderr.count("\n"), 1, stderr)
        self.assertTrue(stderr.startswith("bpe: "), stderr)


class TrainTests(CommandLineTestCase):

    def test_training_on_the_corpus_gives_the_lab_tokenizer_and_a_summary(self):
        out = os.path.join(FOLDER, "lab96.json")
        result = run_here("train", CORPUS, "--vocab-size", "96", "-o", out)
        self.assertSucceeds(result)  # stderr is not a terminal: no progress line
        with open(out, "rb") as mine, open(LAB, "rb") as lab:
            self.assertEqual(mine.read(), lab.read())
        summary = result.stdout.decode()
        self.assertEqual(summary.count("\n"), 1)
        for fact in ("96 tokens", "alphabet of 27 characters", "68 merges learned",
                     "reached the requested 96", "3.145 characters per token", "14,381 tokens"):
            self.assertIn(fact, summary)

    def test_training_on_standard_input_says_why_it_stopped_early(self):
        with open(CORPUS, "rb") as stream:
            corpus = stream.read()
        out = os.path.join(FOLDER, "stdin128.json")
        result, lesson = run_all_here(("train", "-", "--vocab-size", "128", "-o", out, "--verbose", corpus),
                                      ("train", "-", "--vocab-size", "34", "-o", out + ".6", "--verbose", "--vocab-form",
                                       corpus))
        self.assertSucceeds(lesson)
        self.assertEqual("\n".join(lesson.stdout.decode().splitlines()[:8]) + "\n", LESSON_FIRST_MERGES)
        self.assertSucceeds(result)
        *table, summary = result.stdout.decode().splitlines()
        self.assertEqual("\n".join(table[:8]) + "\n", READABLE_FIRST_MERGES)
        self.assertEqual(len(table), 2 + 81)
        self.assertEqual(len(load_json(out)["merges"]), 81)
        for fact in ("109 tokens", "81 merges learned", "no pair occurs twice", "3.647 characters per token"):
            self.assertIn(fact, summary)

    def test_byte_level_training_with_a_special_token_from_two_files(self):
        self.assertSucceeds(BYTES_TRAINING)
        summary = BYTES_TRAINING.stdout.decode()
        self.assertIn("300 tokens, alphabet of 256 bytes", summary)
        saved = load_json(BYTES)
        self.assertEqual((saved["level"], saved["special_tokens"]), ("bytes", {"<|end|>": 299}))

    def test_the_summary_counts_the_text_or_with_min_chunk_count_the_chunks_kept(self):
        # Plain BPE lets its counts go once coded: the summary's tokens are the base tokens less each merge's count.
        with open(CORPUS, encoding="utf-8") as stream:
            text = stream.read()
        counts = collections.Counter(bpe.chunks(text, "gpt2"))
        least = sorted(counts.values())[len(counts) // 2]  # about half the distinct chunks left out
        out, capped_out = os.path.join(FOLDER, "summary.json"), os.path.join(FOLDER, "capped.json")
        whole, capped = run_all_here(("train", CORPUS, "--vocab-size", "300", "--bytes", "-o", out),
                                     ("train", CORPUS, "--vocab-size", "300", "--bytes", "--min-chunk-count",
                                      str(least), "-o", capped_out))
        figures = r"\(([\d,]+) characters, ([\d,]+) tokens\)"
        self.assertSucceeds(whole)
        characters, tokens = (int(n.replace(",", "")) for n in re.search(figures, whole.stdout.decode()).groups())
        self.assertEqual((characters, tokens), (len(text), len(bpe.Tokenizer.load(out).encode(text))))
        self.assertSucceeds(capped)
        kept = {chunk: n for chunk, n in counts.items() if n >= least}
        tokenizer = bpe.Tokenizer.load(capped_out)
        self.assertEqual(tokenizer.merges, bpe.Tokenizer.train_from_counts(kept, 300, byte_level=True).merges)
        summary = capped.stdout.decode()
        self.assertIn(f"on the chunks trained on ({len(kept):,} of {len(counts):,} distinct)", summary)
        self.assertEqual(tuple(int(n.replace(",", "")) for n in re.search(figures, summary).groups()),
                         (sum(len(chunk) * n for chunk, n in kept.items()),
                          sum(len(tokenizer.encode(chunk)) * n for chunk, n in kept.items())))

    def test_errors_in_the_input_are_one_line_with_status_1(self):
        out = os.path.join(FOLDER, "never.json")
        bad_utf8 = write(FOLDER, "latin1.txt", "café".encode("latin-1"))
        missing = os.path.join(FOLDER, "missing.txt")
        results = run_all_here(
            ("train", missing, "--vocab-size", "50", "-o", out),
            ("train", bad_utf8, "--vocab-size", "50", "-o", out),
            ("train", CORPUS, "--vocab-size", "20", "-o", out),
            ("train", CORPUS, "--vocab-size", "50", "-o", os.path.join(missing, "x.json")),
            ("train", bad_utf8, "--vocab-size", "50", "-o", bad_utf8),
        )
        messages = [f"bpe: {missing}: No such file or directory", f"bpe: {bad_utf8}: not valid UTF-8 (byte 3",
                    "smaller than the 28 base tokens", "cannot write here", "is also an input file"]
        for result, message in zip(results, messages):
            self.assertFails(result, message)
        self.assertFalse(os.path.exists(out))
        with open(bad_utf8, "rb") as stream:
            self.assertEqual(stream.read(), "café".encode("latin-1"))

    def test_usage_errors_are_one_line_with_status_2(self):
        results = run_all_here(
            ("train", CORPUS, "-o", "x.json"),
            ("train", CORPUS, "-", "--vocab-size", "50", "-o", "x.json"),
            ("train", CORPUS, "--vocab-size", "many", "-o", "x.json"),
            ("train", CORPUS, "--vocab-size", "0", "-o", "x.json"),
            ("train", CORPUS, "--vocab-size", "-1", "-o", "x.json"),
            ("train", CORPUS, "--vocab-size", "96", "--ties", "random", "-o", "x.json"),
        )
        messages = ["--vocab-size", "standard input", "expected a positive whole number, not 'many'",
                    "not '0'", "not '-1'", "invalid choice: 'random'"]
        for result, message in zip(results, messages):
            self.assertFails(result, message, status=2)
        self.assertFalse(os.path.exists(os.path.join(ROOT, "x.json")))

    @unittest.skipIf(pty is None, "needs a pseudo-terminal")
    def test_progress_is_shown_on_a_terminal(self):
        out = os.path.join(FOLDER, "progress.json")
        output, status = run_in_terminal("train", CORPUS, "--vocab-size", "300", "-o", out)
        text = output.decode()
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"\r\x1b\[Kcounting chunks: 0\.0 of 0\.0 MB, [\d.]+ MB/s, \d+ s left")
        self.assertRegex(text, r"\r\x1b\[K\d+/272 merges +\d+\.\d s +[\d,]+ merges/s")
        self.assertRegex(text, r"\r\x1b\[K[^\r\n]*109 tokens[^\r\n]*\r\n$")  # cleared, then the summary


class EncodeDecodeTests(CommandLineTestCase):

    def test_encode_a_text_argument(self):
        self.assertEqual(run_here("encode", "-t", LAB, "mia has a red ball.").stdout, b"58 36 33 89 85 4\n")
        self.assertEqual(run_here("encode", "-t", LAB, "--json", "mia has a red ball.").stdout,
                         b"[58, 36, 33, 89, 85, 4]\n")

    def test_text_survives_the_c_locale_both_ways(self):
        """Real processes: UTF-8 in arguments, on stdin and in file names, out on stdout and stderr; run_here agrees."""
        text, named = "thé☕", os.path.join(FOLDER, "thé.json")
        tokenizer = bpe.Tokenizer.load(BYTES)
        commands = [("show", "-t", BYTES, text), ("encode", "-t", BYTES, text.encode()),
                    ("train", CORPUS, "--vocab-size", "40", "-o", named), ("decode", "-t", LAB, "thé")]
        real = run_processes(*commands)
        shown, encoded, trained, refused = real
        for result in (shown, encoded, trained):
            self.assertSucceeds(result)
        self.assertEqual(shown.stdout.splitlines()[0], "│".join(tokenizer.readable_tokens(text)).encode())
        self.assertEqual(encoded.stdout.split(), [str(token_id).encode() for token_id in tokenizer.encode(text)])
        self.assertTrue(os.path.isfile(os.path.join(os.fsencode(FOLDER), "thé".encode() + b".json")))
        self.assertTrue(trained.stdout.startswith(named.encode() + b": 40 tokens"), trained.stdout)  # (once a failure)
        self.assertFails(refused, "is not a token ID")
        self.assertTrue(refused.stderr.isascii(), refused.stderr)  # stderr in the C locale escapes what is not ASCII
        for command, process, in_process in zip(commands, real, run_all_here(*commands)):
            self.assertEqual((process.returncode, process.stdout, process.stderr),
                             (in_process.returncode, in_process.stdout, in_process.stderr), command)

    def test_encode_takes_dropout_as_show_does(self):
        text = "mia has a red ball."
        dropped, unseeded, shown, ruled = run_all_here(
            ("encode", "-t", LAB, "--dropout", "0.5", "--seed", "3", text), ("encode", "-t", LAB, "--dropout", "0.5", text),
            ("show", "-t", LAB, "--dropout", "0.5", "--seed", "3", text),
            ("encode", "-t", LAB, "--dropout", "0.5", "--seed", "3", "--dropout-rule", "huggingface", text))
        ids = bpe.Tokenizer.load(LAB).encode(text, dropout=0.5, seed=3)
        self.assertEqual(dropped.stdout.decode().split(), list(map(str, ids)))
        self.assertEqual(ruled.stdout.decode().split(), list(map(str, bpe.Tokenizer.load(LAB).encode(
            text, dropout=0.5, seed=3, dropout_rule="huggingface"))))
        self.assertNotEqual(ids, bpe.Tokenizer.load(LAB).encode(text))
        self.assertFails(unseeded, "--dropout needs --seed N", status=2)
        self.assertEqual(shown.stdout.decode().splitlines()[0].count("│") + 1, len(ids))

    def test_decode_writes_exactly_the_text(self):
        self.assertEqual(run_here("decode", "-t", LAB, "58", "36", "33", "89", "85", "4").stdout,
                         b"mia has a red ball.")
        self.assertEqual(run_here("decode", "-t", LAB, stdin=b"[58, 36,\n 1]").stdout, b"mia has\n")

    def round_trip(self, tokenizer, data):
        """Encode ``data`` from standard input, decode the IDs from standard input; return the bytes."""
        encoded = run_here("encode", "-t", tokenizer, "-", stdin=data)
        self.assertSucceeds(encoded)
        decoded = run_here("decode", "-t", tokenizer, "-", stdin=encoded.stdout)
        self.assertSucceeds(decoded)
        return encoded.stdout, decoded.stdout

    def test_encode_then_decode_reproduces_standard_input(self):
        data = "mia has a red ball.\nthe end\n\n".encode()
        encoded, decoded = self.round_trip(LAB, data)
        self.assertEqual(decoded, data)
        self.assertTrue(encoded.endswith(b" 1 1\n"))  # the trailing newlines were encoded (ID 1 is "\n")

    def test_unknown_characters_decode_to_the_replacement_character(self):
        encoded = run_here("encode", "-t", LAB, "-", stdin="café ☕\n".encode())
        self.assertEqual(encoded.stdout, b"7 5 0 0 2 0 1\n")
        self.assertEqual(encoded.stderr.decode(), "bpe: note: 3 characters not in the tokenizer's alphabet became "
                         "<unk> (ID 0); a byte-level tokenizer (train --bytes) knows every character\n")
        decoded = run_here("decode", "-t", LAB, "-", stdin=encoded.stdout)
        self.assertEqual(decoded.stdout, "ca\ufffd\ufffd \ufffd\n".encode())

    def test_byte_level_round_trips_everything_even_a_cut_character(self):
        data = "café ☕\r\n".encode()
        self.assertEqual(self.round_trip(BYTES, data)[1], data)
        data = "café ☕ <|end|>\n".encode()
        special = run_here("encode", "-t", BYTES, "--allow-special", stdin=data)
        self.assertIn(b" 299 ", special.stdout)
        self.assertEqual(run_here("decode", "-t", BYTES, stdin=special.stdout).stdout, data)
        self.assertEqual(run_here("decode", "-t", BYTES, "99", "195").stdout, b"c\xc3")

    def test_bad_ids_and_bad_input(self):
        results = run_all_here(
            ("decode", "-t", LAB, "58", "96"),
            ("decode", "-t", LAB, "--", "-1"),
            ("decode", "-t", LAB, b"58 x"),
            ("decode", "-t", LAB, b"[58, 36"),
            ("encode", "-t", LAB, b"caf\xe9"),
            ("encode", "-t", BYTES, "<|end|>"),
            ("decode", "-t", LAB, "1_0"),
            ("explain", "-t", BYTES, "a<|end|>"),
            ("decode", "-t", LAB, "[1.5]"),  # once a 15-line traceback
            ("decode", "-t", LAB, '[58, "36"]'),
            ("decode", "-t", LAB, "[true]"),
            ("decode", "-t", LAB, "[[58]]"),
        )
        messages = ["bpe: IDs [96] are outside the vocabulary", "IDs [-1] are outside the vocabulary",
                    "'x' is not a token ID", "not a valid JSON list", "standard input: not valid UTF-8",
                    "special token '<|end|>'; add --allow-special", "'1_0' is not a token ID",
                    "explain replays merges on ordinary text only, so leave it out",
                    "bpe: IDS: 1.5 in the list is not a token ID (a whole number)", "IDS: '36' in the list is not",
                    "IDS: True in the list is not", "IDS: [58] in the list is not"]
        for result, message in zip(results, messages):
            self.assertFails(result, message)

    def test_tokenizer_file_errors(self):
        missing = os.path.join(FOLDER, "missing.json")
        malformed = [write(FOLDER, name, data) for name, data in [
            ("notjson.json", b"{"),
            ("future.json", b'{"format_version": 9}'),
            ("badmerge.json", b'{"format_version": 1, "alphabet": ["a"], "merges": [["a", "b"]]}'),
        ]]
        missing_result, *results = run_all_here(("encode", "-t", missing, "hi"),
                                                *[("decode", "-t", path, "0") for path in malformed])
        self.assertFails(missing_result, f"bpe: {missing}: No such file or directory")
        for path, result in zip(malformed, results):
            with self.assertRaises(ValueError) as caught:
                bpe.Tokenizer.load(path)
            self.assertFails(result, str(caught.exception))
            self.assertEqual(result.stderr.decode(), f"bpe: {caught.exception}\n")


class ShowTests(CommandLineTestCase):
    TEXT = "mia has a café.\nok"
    PLAIN = (
        "mia│␣has│␣a│␣│c│a│<unk>│<unk>│.│↵\n"
        "│o│k\n"
        "18 characters, 12 tokens, 1.500 characters per token, 2 unknown\n"
    )
    # What a terminal shows once the colour codes are taken out: the text, the newline mark, the footer.
    UNCOLOURED = "mia has a café.↵\r\nok\r\n18 characters, 12 tokens, 1.500 characters per token, 2 unknown\r\n"

    def test_one_is_singular(self):
        one, special = run_all_here(("show", "-t", LAB, "a"), ("inspect", "-t", BYTES))
        self.assertEqual(one.stdout.decode().splitlines()[-1], "1 character, 1 token, 1.000 characters per token")
        self.assertTrue(special.stdout.decode().splitlines()[0].endswith("; 1 special token"))

    def test_piped_output_is_plain(self):
        result = run_here("show", "-t", LAB, self.TEXT)
        self.assertEqual((result.returncode, result.stderr.count(b"\n")), (0, 1))
        self.assertIn(b"2 characters not in the tokenizer's alphabet", result.stderr)
        self.assertEqual(result.stdout.decode(), self.PLAIN)

    def test_marks_and_the_boundary_are_named_where_they_are_text(self):
        result = run_here("show", "-t", MARKS_TOKENIZER, "a b\t\n\\│␣↵⇥")
        shown, footer = result.stdout.decode().rsplit("\n", 2)[:2]
        self.assertEqual(shown.split("│"),
                         ["a", "␣", "b", "⇥", "↵\n", "\\", "⟨U+2502⟩", "⟨U+2423⟩", "⟨U+21B5⟩", "⟨U+21E5⟩"])
        self.assertEqual(footer, "10 characters, 10 tokens, 1.000 characters per token")

    def test_byte_level_shows_a_cut_character_and_the_bytes_each_token_holds(self):
        self.assertEqual(run_here("show", "-t", BYTES, "☕").stdout.decode().splitlines()[0], "☕[1/3]│☕[2/3]│☕[3/3]")
        text = "מיה-café☕"
        shown = run_here("show", "-t", BYTES, text).stdout.decode().splitlines()[0]
        self.assertEqual(shown.split("│"), bpe.Tokenizer.load(BYTES).readable_tokens(text))  # one form for both

    @unittest.skipIf(pty is None, "needs a pseudo-terminal")
    def test_a_terminal_gets_colours_that_differ_between_neighbours(self):
        output, status = run_in_terminal("show", "-t", LAB, self.TEXT)
        text = output.decode()
        self.assertEqual(status, 0, text)
        styled = STYLED.findall(text)
        self.assertEqual([token for _, token in styled],
                         ["mia", " has", " a", " ", "c", "a", "f", "é", ".", "↵", "o", "k"])
        styles = [style for style, _ in styled]
        self.assertTrue(all(left != right for left, right in zip(styles, styles[1:])), styles)
        self.assertEqual([token for style, token in styled if style in RED], ["f", "é"])
        note, shown = ANSI.sub("", text).split("\r\n", 1)
        self.assertIn("2 characters not in the tokenizer's alphabet", note)
        self.assertEqual(shown, self.UNCOLOURED)

    @unittest.skipIf(pty is None, "needs a pseudo-terminal")
    def test_no_color_or_a_dumb_terminal_keeps_a_terminal_plain(self):
        for setting in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
            output, status = run_in_terminal("show", "-t", LAB, self.TEXT, env=dict(ENV, **setting))
            self.assertEqual(status, 0)
            self.assertNotIn(b"\x1b[", output)
            self.assertEqual(output.decode().split("\r\n", 1)[1], self.PLAIN.replace("\n", "\r\n"))


class ExplainTests(CommandLineTestCase):

    def lines(self, *args):
        """The output of a successful run, as lists of words."""
        result = run_here(*args)
        self.assertSucceeds(result)
        return [line.split() for line in result.stdout.decode().splitlines()]

    def test_explain_replays_each_chunk_merge_by_merge(self):
        lines = self.lines("explain", "-t", LAB, "mia has")
        self.assertEqual(lines[:6], [
            ["chunk", "1", "of", "2:", "mia"],
            ["start", "m", "i", "a"],
            ["merge", "30:", "i", "+", "a", "m", "ia"],  # merge 1 is the first, as the lessons count
            ["merge", "31:", "m", "+", "ia", "mia"],
            ["tokens", "mia"],
            ["IDs", "58"],
        ])
        self.assertEqual(lines[6:9], [["chunk", "2", "of", "2:", "␣has"], ["start", "␣", "h", "a", "s"],
                                      ["merge", "7:", "␣", "+", "h", "␣h", "a", "s"]])
        self.assertEqual(lines[-2:], [["tokens:", "mia", "␣has"], ["IDs:", "58", "36"]])
        merges = load_json(LAB)["merges"]
        self.assertEqual([merges[29], merges[30], merges[6]], [["i", "a"], ["m", "ia"], [" ", "h"]])

    def test_explain_shows_unknown_characters_and_bytes(self):
        lines = self.lines("explain", "-t", LAB, "café")
        self.assertEqual(lines[1:4],
                         [["start", "c", "a", "<unk>"], ["tokens", "c", "a", "<unk>"], ["IDs", "7", "5", "0"]])
        self.assertEqual(lines[4:6], [["chunk", "2", "of", "2:", "é"], ["start", "<unk>"]])
        lines = self.lines("explain", "-t", BYTES, "café")
        self.assertEqual(lines[1], ["start", "c", "a", "f", "é[1/2]", "é[2/2]"])  # each byte in its character
        self.assertEqual(lines[2][2:], ["é[1/2]", "+", "é[2/2]", "c", "a", "f", "é"])
        self.assertEqual(lines[-1], ["IDs:"] + run_here("encode", "-t", BYTES, "café").stdout.decode().split())


class InspectTests(CommandLineTestCase):

    def test_merges_in_the_order_learned(self):
        result = run_here("inspect", "-t", LAB)
        self.assertSucceeds(result)
        summary, *rows = [line.split() for line in result.stdout.decode().splitlines()]
        self.assertEqual(" ".join(summary), "28 base tokens (characters + <unk>), IDs 0-27; 68 merges; 0 special tokens")
        self.assertEqual(len(rows), 1 + 68)
        self.assertEqual(rows[:3], [["ID", "merge", "token", "made", "from"], ["28", "1", "␣t", "␣", "+", "t"],
                                    ["29", "2", "he", "h", "+", "e"]])  # merge 1 is the first, as the lessons count
        self.assertEqual(rows[1 + 2], ["30", "3", "␣the", "␣t", "+", "he"])

    def test_top_means_the_newest_merges_and_byte_level_starts_with_merges(self):
        everything, top, negative, zero = run_all_here(("inspect", "-t", BYTES), ("inspect", "-t", LAB, "--top", "5"),
                                                       ("inspect", "-t", LAB, "--top", "-1"),
                                                       ("inspect", "-t", LAB, "--top", "0"))
        summary, header, *rows = [line.split() for line in everything.stdout.decode().splitlines()]
        self.assertEqual(summary[:3], ["256", "base", "tokens"])
        self.assertEqual(rows[0], ["256", "1", "␣t", "␣", "+", "t"])
        self.assertEqual(rows[-1], ["299", "<|end|>", "special"])
        top_rows = [line.split()[0] for line in top.stdout.decode().splitlines()[2:]]
        self.assertEqual(top_rows, ["91", "92", "93", "94", "95"])
        self.assertFails(negative, "expected a positive whole number", status=2)
        self.assertFails(zero, "expected a positive whole number, not '0'", status=2)  # was a silent empty list

    def test_a_special_token_shows_as_its_text_even_when_it_spells_a_display_string(self):
        tokenizer = bpe.Tokenizer.train("the the the", 300, byte_level=True, special_tokens=["Ġthe"])
        path = os.path.join(FOLDER, "display.json")
        tokenizer.save(path)
        *_, merged, special = [line.split() for line in run_here("inspect", "-t", path).stdout.decode().splitlines()]
        self.assertEqual((merged[2], special), ("␣the", [str(tokenizer.special_tokens["Ġthe"]), "Ġthe", "special"]))

    def test_columns_are_not_padded_past_a_long_token(self):
        path = write(FOLDER, "long.json", json.dumps(
            {"format_version": 1, "alphabet": ["a", "b"], "merges": [["a", "a"], ["aa", "aa"], ["aaaa", "aaaa"],
                                                                        ["aaaaaaaa", "aaaaaaaa"],
                                                                        ["aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaa"],
                                                                        ["a", "b"]]}).encode())
        lines = run_here("inspect", "-t", path).stdout.decode().splitlines()
        self.assertEqual(lines[-1], " 8      6  ab" + " " * 22 + "  a + b")
        self.assertLess(max(map(len, lines)), 32 + 2 * 24 + 10)


class InProcessTests(CommandLineTestCase):
    """``run_here`` fails where a real process fails, and leaves this process as it found it."""

    def test_printing_text_that_is_not_ascii_fails_as_in_the_c_locale(self):
        with mock.patch.dict(bpelab.commands.cli.COMMANDS, encode=lambda args: print("thé")):  # not through OUT
            result = run_here("encode", "-t", LAB, "x")
        self.assertFails(result, "bpe: 'ascii' codec can't encode character '\\xe9' in position 2")

    def test_each_run_starts_afresh_and_puts_everything_back(self):
        def reader_gone(args):
            OUT.reader_gone = True

        state = (dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr,
                 [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)])
        with mock.patch.dict(bpelab.commands.cli.COMMANDS, encode=reader_gone):
            self.assertEqual(run_here("encode", "-t", LAB, "x", env={"NO_COLOR": "1"}, cwd=FOLDER).returncode, 141)
        runs = [run_here("encode", "-t", LAB, "mia"), run_here("train", CORPUS, "--vocab-size", "20", "-o", "x.json"),
                run_here("encode", "--help"), run_here("train", CORPUS, "--vocab-size", "40", "-o",
                                                       os.path.join(FOLDER, "afresh.json"))]
        self.assertEqual([result.returncode for result in runs], [0, 1, 0, 0])
        self.assertEqual(runs[0].stdout, b"58\n")  # not silenced by the reader gone before
        self.assertEqual((dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr,
                          [signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)]), state)
        self.assertFalse(OUT.reader_gone)


class UsageTests(CommandLineTestCase):

    def test_every_command_has_help(self):
        commands = ("train", "encode", "decode", "show", "explain", "inspect")
        for command, result in zip(commands, run_all_here(*[(command, "--help") for command in commands])):
            self.assertSucceeds(result)
            self.assertIn(f"usage: bpe {command}", result.stdout.decode())

    def test_python_m_bpe_works_from_the_project_folder(self):
        result = finish(start([sys.executable, "-m", "bpe", "--help"], cwd=ROOT))
        self.assertSucceeds(result)
        for command in ("train", "encode", "decode", "show", "explain", "inspect"):
            self.assertIn(command, result.stdout.decode())

    def test_usage_errors(self):
        results = run_all_here((), ("frobnicate",), ("encode", "hi"))
        for result, message in zip(results, ["required", "invalid choice", "-t/--tokenizer"]):
            self.assertFails(result, message, status=2)


def start_shell(command):
    """Start ``sh -c command`` with pipes; the command may use $PYTHON, $BPE and $LAB."""
    environment = dict(ENV, PYTHON=sys.executable, BPE=BPE_PATH, LAB=LAB)
    pipe = subprocess.PIPE
    return subprocess.Popen(["sh", "-c", command], stdin=pipe, stdout=pipe, stderr=pipe, env=environment)


class PipesAndStreamsTests(CommandLineTestCase):
    """A reader that goes away, closed streams, and inputs that are not regular files."""

    def test_a_closed_pipe_does_not_lose_a_training_run(self):
        out = os.path.join(FOLDER, "piped.json")
        process = start([sys.executable, BPE_PATH, "train", CORPUS, "--vocab-size", "96", "-o", out, "--verbose"])
        lines = [process.stdout.readline() for _ in range(3)]  # like | head -3
        process.stdout.close()
        _, stderr = process.communicate(timeout=60)  # (closes stdin and stderr too)
        self.assertEqual(lines[2].decode(), "| 1 | `␣` + `t` | `␣t` | 2,400 |\n")
        self.assertEqual((process.returncode, stderr), (141, b""))
        with open(out, "rb") as mine, open(LAB, "rb") as lab:
            self.assertEqual(mine.read(), lab.read())

    def test_every_command_exits_141_quietly_when_its_reader_is_gone(self):
        commands = [
            ("encode", "-t", LAB, "--file", CORPUS), ("encode", "-t", LAB, "hi"), ("decode", "-t", LAB, "58"),
            ("show", "-t", LAB, "--file", CORPUS), ("explain", "-t", LAB, "mia"), ("inspect", "-t", LAB),
            ("train", CORPUS, "--vocab-size", "40", "-o", os.path.join(FOLDER, "unread.json")),
        ]
        processes = [start([sys.executable, BPE_PATH, *command]) for command in commands]
        for process in processes:
            process.stdout.close()  # before the command has written anything
        for command, process in zip(commands, processes):
            _, stderr = process.communicate(timeout=60)
            self.assertEqual((process.returncode, stderr), (141, b""), command)
        self.assertTrue(os.path.exists(os.path.join(FOLDER, "unread.json")))

    def test_a_reader_that_takes_a_little_then_goes_is_141_too(self):
        long = os.path.join(FOLDER, "long.txt")
        with open(CORPUS, "rb") as stream, open(long, "wb") as out:
            out.write(stream.read() * 4)  # IDs far beyond what a pipe holds: one write is cut short
        process = start([sys.executable, BPE_PATH, "encode", "-t", LAB, "--file", long])
        process.stdout.read(10)  # as `| head -c 10` does
        process.stdout.close()
        _, stderr = process.communicate(timeout=60)
        self.assertEqual((process.returncode, stderr), (141, b""))

    def test_closed_standard_streams_are_one_line(self):
        no_input, no_output = start_shell('exec "$PYTHON" "$BPE" encode -t "$LAB" <&-'), \
            start_shell('exec "$PYTHON" "$BPE" encode -t "$LAB" hi >&-')
        self.assertFails(finish(no_input), "bpe: standard input is closed")
        self.assertFails(finish(no_output), "bpe: standard output is closed")

    def test_training_from_dev_stdin_reports_the_real_counts(self):
        with open(CORPUS, "rb") as stream:
            corpus = stream.read()
        out = os.path.join(FOLDER, "stdin-device.json")
        result = run_process("train", "/dev/stdin", "--vocab-size", "96", "-o", out, stdin=corpus)
        self.assertSucceeds(result)
        self.assertIn("(45,223 characters, 14,381 tokens)", result.stdout.decode())

    def test_special_files_are_refused_in_one_line(self):
        fifo = os.path.join(FOLDER, "out.fifo")
        os.mkfifo(fifo)
        self.addCleanup(os.remove, fifo)
        to_fifo, from_zero = run_all_here(("train", CORPUS, "--vocab-size", "96", "-o", fifo),
                                          ("encode", "-t", "/dev/zero", "hi"))
        self.assertFails(to_fifo, f"bpe: {fifo}: a pipe; only a regular file is written")
        self.assertFails(from_zero, "bpe: /dev/zero: a character device, which is not read")
        endless = run_all_here(("show", "-t", LAB, "--file", "/dev/zero"), ("count", "-t", LAB, "/dev/zero"),
                               ("train", "/dev/zero", "--vocab-size", "96", "-o", os.path.join(FOLDER, "never.json")))
        for result in endless:  # text that never ends is refused before any reading (it once read for ever)
            self.assertFails(result, "bpe: /dev/zero: a character device, which is not read as text")

    def test_huge_ids_name_the_argument(self):
        digits = "9" * 5000
        as_arguments, as_json = run_all_here(("decode", "-t", LAB, digits),
                                             ("decode", "-t", LAB, ("[" + digits + "]").encode()))
        self.assertFails(as_arguments, "bpe: IDS: '99999")
        self.assertFails(as_json, "bpe: standard input: '99999")
        self.assertLess(len(as_arguments.stderr), 200)

    def test_explain_on_a_long_chunk_is_capped(self):
        word = "".join(random.Random(3).choices("abcdefghijklmnopqrstuvwxyz", k=2000))
        path = os.path.join(FOLDER, "long-word.json")
        bpe.Tokenizer.train(word + " " + word, 3000, byte_level=True).save(path)
        result = run_here("explain", "-t", path, word * 5)
        self.assertSucceeds(result)
        self.assertLess(len(result.stdout), 30_000)  # uncapped, every step drew 10,000 tokens
        self.assertIn("(more merges follow; only the first 40 are shown)", result.stdout.decode())
        self.assertIn("(10,000 characters)", result.stdout.decode())


class FrictionTests(CommandLineTestCase):
    """What new users ran into on real text."""

    def test_encode_and_show_read_a_file(self):
        with open(CORPUS, "rb") as stream:
            corpus_bytes = stream.read()
        by_file, by_stdin, both = run_all_here(("encode", "-t", LAB, "--file", CORPUS),
                                               ("encode", "-t", LAB, "-", corpus_bytes),
                                               ("encode", "-t", LAB, "--file", CORPUS, "hi"))
        self.assertSucceeds(by_file)
        self.assertEqual(by_file.stdout, by_stdin.stdout)
        self.assertEqual(len(by_file.stdout.split()), 14381)
        self.assertFails(both, "either as TEXT or with --file")

    @unittest.skipIf(pty is None, "needs a pseudo-terminal")
    def test_reading_from_a_terminal_says_so(self):
        output, status = run_in_terminal("encode", "-t", LAB, typed=b"mia has a red ball.\n")
        self.assertEqual(status, 0, output)
        self.assertIn(b"bpe: reading the text from the terminal; end it with Ctrl-D", output)
        self.assertIn(b"58 36 33 89 85 4 1\r\n", output)

    def test_the_pattern_can_be_chosen_and_the_lab_one_is_described_as_ascii_only(self):
        russian = write(FOLDER, "russian.txt", "«привет», сказал он. «привет», сказала она.\n".encode() * 20)
        out = os.path.join(FOLDER, "russian.json")
        trained, helped = run_all_here(("train", russian, "--vocab-size", "60", "--pattern", "o200k", "-o", out),
                                       ("train", "--help"))
        self.assertSucceeds(trained)
        self.assertEqual(load_json(out)["pattern"], "o200k")
        self.assertEqual(bpe.chunks("«привет», café", "o200k"), ["«привет", "»,", " café"])
        self.assertIn("lab knows only ASCII letters and digits", " ".join(helped.stdout.decode().split()))

    def test_running_out_of_memory_is_one_line_naming_what_was_read(self):
        real_encode = bpe.Tokenizer.encode

        def encode(tokenizer, text, **options):  # as encode fails on a text too long for the memory there is
            if text:
                raise MemoryError
            return real_encode(tokenizer, text, **options)

        cases = [(("count", "-t", LAB, CORPUS), "encode", encode, CORPUS),
                 (("encode", "-t", LAB, "hello"), "encode", encode, "the text given as TEXT"),
                 (("show", "-t", LAB, "--file", CORPUS), "encode", encode, CORPUS),
                 (("train", CORPUS, "--vocab-size", "300", "-o", os.path.join(FOLDER, "out-of-memory.json")),
                  "train_from_files", MemoryError, CORPUS),
                 (("inspect", "-t", LAB), "from_json", MemoryError, f"{LAB}, the tokenizer")]
        for args, method, effect, where in cases:
            with self.subTest(command=args[0]), mock.patch.object(bpe.Tokenizer, method, side_effect=effect,
                                                                  autospec=True):
                self.assertFails(run_here(*args), f"bpe: out of memory on {where}; give it less at a time")
        self.assertFalse(os.path.exists(os.path.join(FOLDER, "out-of-memory.json")))

    def test_a_text_longer_than_the_page_takes_is_refused_before_it_is_written(self):
        limit = widget_page.MAX_CHARS
        self.assertIn('"text": "' + "x" * limit, widget_page.page("x" * limit))
        for name in ("text", "test"):
            with self.subTest(name=name), self.assertRaisesRegex(ValueError, f"{name} has 2,001 characters; the "
                                                                             "page takes at most 2,000"):
                widget_page.page(**{name: "x" * (limit + 1)})
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "page.html")
            for option in ("--text", "--test"):
                result = run_here("widget", "-o", out, option, "é" * (limit + 1))
                self.assertEqual((result.returncode, result.stderr), (2, f"bpe: {option} has 2,001 characters; the "
                                 "page takes at most 2,000 (see bpe widget --help)\n".encode()))
            self.assertEqual(os.listdir(folder), [])

    @unittest.skipUnless(shutil.which("git") and os.path.isdir(os.path.join(ROOT, ".git")), "needs a git checkout")
    def test_the_widget_written_by_default_is_not_taken_for_work_in_the_checkout(self):
        default = bpelab.commands.cli.build_parser(bpelab.commands.cli.COMMANDS).parse_args(["widget"]).output
        ignored = subprocess.run(["git", "check-ignore", "--quiet", default], cwd=ROOT)
        self.assertEqual(ignored.returncode, 0, f"git would show {default} as a new file after 'bpe widget'")

    def test_make_corpus_check_names_the_first_differing_line(self):
        with open(CORPUS, encoding="utf-8") as stream:
            lines = stream.read().splitlines(keepends=True)
        changed = lines[:1] + [lines[1].replace("has", "had", 1)] + lines[2:]
        for text, message in (("".join(changed), "corpus.txt differs from the generator at line 2: expected"),
                              ("".join(lines[:-1]), "corpus.txt differs from the generator after line 399: "
                                                    "expected 400 lines, found 399;")):
            with tempfile.TemporaryDirectory() as folder:
                with open(os.path.join(folder, "corpus.txt"), "w", encoding="utf-8") as stream:
                    stream.write(text)
                result = finish(start([sys.executable, os.path.join(ROOT, "make_corpus.py"), "--check"], cwd=folder))
            self.assertEqual(result.returncode, 1)
            self.assertIn(message, result.stderr.decode())  # (it once said "differs at after line")


if __name__ == "__main__":
    unittest.main()
