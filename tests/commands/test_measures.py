"""The literature's measures of what a language costs (bpelab/commands/measures.py) and ``bpe compare --udhr``.

Each measure is restated here from its definition (docs/languages.md), as
simply as it can be written, and the module's values are held to it on the
five-declaration fixture (tests/commands/test_parallel_texts.py) with the
lab's tokenizer, a byte-level one, and where present Llama 2 (byte fallback)
and o200k; the Rényi efficiency also to the ``tokenization-scorer``
package's. Then the command, as a process would run it.
"""

import contextlib
import csv
import io
import json
import math
import os
import random
import sys
import tempfile
import unittest
from collections import Counter

from bpe import Tokenizer
from bpelab.commands import compare, cost_charts, measures, parallel_texts
from make_corpus import corpus
from tests import ROOT
from tests.clients import model_file, open_model, require_module
from tests.commands.test_cli import pty, run_in_terminal
from tests.commands.test_parallel_texts import write_flores, write_udhr
from tests.in_process import run_here

LAB = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
BYTES = Tokenizer.train(corpus()[:6000], 300, byte_level=True)

try:
    import tokenization_scorer
except ImportError:
    tokenization_scorer = None


def by_definition(tokenizer, text, english):
    """Every measure of ``text`` with ``tokenizer`` as docs/languages.md defines it, written out plainly."""
    return measures_of_ids(tokenizer, text, tokenizer.encode(text, disallowed_special=()),
                           len(tokenizer.encode(english, disallowed_special=())))


def measures_of_ids(tokenizer, text, ids, english_tokens):
    """``by_definition`` once ``text`` is encoded as ``ids`` and English's text as ``english_tokens`` tokens."""
    unk = tokenizer.describe()["unknown_id"]
    unknown = sum(1 for token_id in ids if token_id == unk)
    kept = tokenizer.decode([token_id for token_id in ids if token_id != unk])
    lost = len(text) - len(kept) if unknown else 0
    return {"tokens": len(ids), "premium": len(ids) / english_tokens,
            "bytes_per_token": len(text.encode()) / len(ids), "chars_per_token": len(text) / len(ids),
            "unknown_tokens": unknown, "unknown_share": unknown / len(ids), "unknown_characters": lost,
            "unknown_character_share": lost / len(text), "invalid": lost / len(text) > 0.1,
            "partial_tokens": parts_of_characters(tokenizer, ids), "efficiency": renyi(ids, 2.5)}


def parts_of_characters(tokenizer, ids):
    """Tokens within whose bytes no character lies whole: the characters found on the decoded bytes, each token
    given the byte span it covers."""
    if not tokenizer.describe()["decodes_bytes"]:
        return None
    pieces = [tokenizer.token_bytes(token_id) for token_id in ids]
    data = b"".join(pieces)
    starts = [place for place, byte in enumerate(data) if byte & 0xC0 != 0x80] + [len(data)]
    end_of = dict(zip(starts, starts[1:]))  # where the character starting at each place ends
    count, start = 0, 0
    for piece in pieces:
        end = start + len(piece)
        if not any(place in end_of and end_of[place] <= end for place in range(start, end)):
            count += 1
        start = end
    return count


def renyi(ids, alpha):
    """Rényi entropy of order alpha of the tokens' frequencies over the log of how many distinct tokens there are."""
    counts = Counter(ids)
    if len(counts) < 2:
        return None
    return math.log(sum((count / len(ids)) ** alpha for count in counts.values())) / (1 - alpha) / math.log(len(counts))


def scorer_efficiency(ids):
    """tokenization-scorer's Rényi efficiency (alpha 2.5) of the tokens, written as its input: one line of words."""
    with contextlib.redirect_stderr(io.StringIO()):  # (it reports its vocabulary size and progress there)
        return tokenization_scorer.score([" ".join(map(str, ids))], metric="renyi", power=2.5)


class Fixture(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.udhr = write_udhr(os.path.join(cls.folder.name, "udhr"))
        cls.documents, _ = parallel_texts.read_udhr(cls.udhr, incomplete=True)
        cls.tokenizers = {"lab": LAB, "bytes": BYTES}
        if model_file("llama2"):
            cls.tokenizers["llama2"] = open_model("llama2")
        cls.rows = measures.measure_documents(cls.tokenizers, cls.documents)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()


class Definitions(Fixture):

    def test_every_measure_is_its_definition(self):
        english = parallel_texts.english_of(self.documents)
        self.assertEqual(len(self.rows), len(self.documents) * len(self.tokenizers))
        for row in self.rows:
            with self.subTest(code=row["code"], tokenizer=row["tokenizer"]):
                doc = next(doc for doc in self.documents if doc["code"] == row["code"])
                reference = " ".join(english["segments"][number] for number in sorted(doc["segments"]))
                expected = by_definition(self.tokenizers[row["tokenizer"]], doc["text"], reference)
                self.assertEqual(list(row), list(measures.ROW_KEYS))
                for key, value in expected.items():
                    if isinstance(value, float):
                        self.assertAlmostEqual(row[key], value, places=12, msg=key)
                    else:
                        self.assertEqual(row[key], value, key)
                self.assertEqual((row["name"], row["script"], row["segments"], row["latitude"]),
                                 (doc["name"], doc["script"], len(doc["segments"]), doc["latitude"]))
        lab_rows = [row for row in self.rows if row["tokenizer"] == "lab"]
        self.assertTrue(any(row["invalid"] for row in lab_rows) and not all(row["invalid"] for row in lab_rows),
                        "the lab's tokenizer knows English's letters, not Hindi's")
        self.assertEqual({row["premium"] for row in self.rows if row["code"] == "eng"}, {1.0})

    def test_an_incomplete_declaration_against_the_same_articles_of_english(self):
        english = parallel_texts.english_of(self.documents)
        georgian = next(row for row in self.rows if row["code"] == "kat" and row["tokenizer"] == "bytes")
        text = " ".join(english["segments"][number] for number in range(1, 24))
        self.assertEqual(georgian["segments"], 23)
        self.assertAlmostEqual(georgian["premium"], georgian["tokens"] / len(BYTES.encode(text)))

    def test_parts_of_characters_on_random_text(self):
        rng = random.Random(38)
        pieces = ["a", " the", "é", "दु", "नि", "東京", "🏳️‍🌈", "\u0301", "  ", "\n", "ж"]
        for tokenizer in [BYTES] + [tok for label, tok in self.tokenizers.items() if label == "llama2"]:
            for _ in range(200):
                text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
                ids = tokenizer.encode(text)
                self.assertEqual(measures.partial_tokens(tokenizer, ids), parts_of_characters(tokenizer, ids), text)
        self.assertIsNone(measures.partial_tokens(LAB, LAB.encode("abc")))

    def test_renyi_efficiency_by_definition(self):
        rng = random.Random(25)
        for _ in range(200):
            ids = [rng.randrange(rng.randint(1, 50)) for _ in range(rng.randint(0, 300))]
            expected = renyi(ids, 2.5)
            if expected is None:
                self.assertIsNone(measures.renyi_efficiency(ids))
            else:
                self.assertAlmostEqual(measures.renyi_efficiency(ids), expected, places=12)
        self.assertEqual(measures.renyi_efficiency([7] * 5), None)

    @unittest.skipIf(sys.version_info < (3, 11), "tokenization-scorer needs Python 3.11")
    @require_module("tokenization_scorer")
    def test_renyi_efficiency_equals_tokenization_scorers(self):
        rng = random.Random(11)
        samples = [[rng.randrange(rng.randint(2, 400)) for _ in range(rng.randint(2, 3000))] for _ in range(100)]
        for doc in self.documents:
            for tokenizer in self.tokenizers.values():
                samples.append(tokenizer.encode(doc["text"], disallowed_special=()))
        worst = 0.0
        for ids in samples:
            if len(set(ids)) > 1:
                worst = max(worst, abs(measures.renyi_efficiency(ids) - scorer_efficiency(ids)))
        self.assertLess(worst, 1e-9)

    def test_workers_change_nothing(self):
        self.assertEqual(measures.measure_documents(self.tokenizers, self.documents, workers=2), self.rows)
        heard = []
        measures.measure_documents({"bytes": BYTES}, self.documents[:2], progress=lambda *seen: heard.append(seen))
        self.assertEqual(heard[-1], (heard[-1][1], len({doc["text"] for doc in self.documents[:2]} |
                                                       {parallel_texts.english_of(self.documents)["text"]})))

    def test_arguments(self):
        with self.assertRaisesRegex(TypeError, "tokenizers must be a non-empty dict"):
            measures.measure_documents([LAB], self.documents)
        with self.assertRaisesRegex(ValueError, "workers must be a positive int"):
            measures.measure_documents({"lab": LAB}, self.documents, workers=0)
        with self.assertRaisesRegex(ValueError, "no English"):
            measures.measure_documents({"lab": LAB}, [doc for doc in self.documents if doc["code"] != "eng"])


class Tables(Fixture):

    def test_sorted_by_the_first_tokenizer(self):
        rows = measures.sort_rows(self.rows, "premium")
        first = [row for row in rows if row["tokenizer"] == "lab"]
        valid = [row["premium"] for row in first if not row["invalid"]]
        self.assertEqual(valid, sorted(valid, reverse=True))
        self.assertEqual([row["invalid"] for row in first], sorted(row["invalid"] for row in first))
        self.assertEqual([row["code"] for row in measures.sort_rows(self.rows, "code")][::len(self.tokenizers)],
                         sorted(doc["code"] for doc in self.documents))
        with self.assertRaisesRegex(ValueError, "cannot sort by 'size'"):
            measures.sort_rows(self.rows, "size")

    def test_markdown_and_csv(self):
        lines = measures.markdown_table(self.rows).splitlines()
        self.assertEqual(lines[2], "| code | language | script | " + " | ".join(self.tokenizers) + " |")
        self.assertEqual(len(lines), 4 + len(self.documents))
        hindi = next(line for line in lines if line.startswith("| hin |"))
        lab = next(row for row in self.rows if row["code"] == "hin" and row["tokenizer"] == "lab")
        self.assertIn(f"×{lab['premium']:.2f} {lab['bytes_per_token']:.1f}, "
                      f"{lab['unknown_character_share']:.1%} unknown: invalid", hindi)
        parsed = list(csv.DictReader(io.StringIO(measures.csv_table(self.rows))))
        self.assertEqual(len(parsed), len(self.rows))
        for found, row in zip(parsed, self.rows):
            for key in measures.ROW_KEYS:
                value = row[key]
                self.assertEqual(found[key], "" if value is None else repr(value) if isinstance(value, float)
                                 else str(value), key)
                if isinstance(value, float):
                    self.assertEqual(float(found[key]), value, "the number in full")


class TheCommand(Fixture):
    """``bpe compare --udhr`` and ``--flores``, run as a process would run it (``tests.in_process.run_here``)."""

    def run_bpe(self, *arguments):
        return run_here("compare", *arguments, cwd=self.folder.name, text=True)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        BYTES.save(os.path.join(cls.folder.name, "bytes.json"))
        cls.lab_file = os.path.join(ROOT, "tokenizer.json")
        cls.two = {cls.lab_file: LAB, "bytes.json": BYTES}
        complete = [doc for doc in cls.documents if doc["code"] != "kat"]
        cls.complete_rows = measures.measure_documents(cls.two, complete)

    def test_the_table_and_its_pictures(self):
        result = self.run_bpe("--udhr", "udhr", "-t", self.lab_file, "-t", "bytes.json", "-o", "chart.svg",
                              "--map", "map.svg")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, measures.markdown_table(self.complete_rows))
        self.assertEqual(result.stderr.splitlines(), [
            "bpe: left out 1 declaration: kat (23 of the 30 articles); --incomplete measures those with articles on "
            "the articles they have", "bpe: wrote the chart to chart.svg", "bpe: wrote the map to map.svg"])
        with open(os.path.join(self.folder.name, "chart.svg"), encoding="utf-8") as stream:
            self.assertEqual(stream.read(), cost_charts.dot_chart(self.complete_rows))
        with open(os.path.join(self.folder.name, "map.svg"), encoding="utf-8") as stream:
            self.assertEqual(stream.read(), cost_charts.premium_map(
                [row for row in self.complete_rows if row["tokenizer"] == self.lab_file]))

    def test_json_csv_sort_and_choice(self):
        result = self.run_bpe("--udhr", "udhr/declaration", "-t", "bytes.json", "--json", "--incomplete",
                              "--languages", "hin,eng,kat", "--sort", "premium")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = [row for row in self.rows if row["tokenizer"] == "bytes" and row["code"] in ("hin", "eng", "kat")]
        expected = measures.sort_rows([dict(row, tokenizer="bytes.json") for row in rows], "premium")
        self.assertEqual(json.loads(result.stdout), expected)
        self.assertEqual(result.stderr, "")
        result = self.run_bpe("--udhr", "udhr", "-t", "bytes.json", "--csv", "--chart", "efficiency", "-o", "e.svg")
        self.assertEqual(result.stdout, measures.csv_table([dict(row, tokenizer="bytes.json")
                                                            for row in self.complete_rows if row["tokenizer"] ==
                                                            "bytes.json"]))

    def test_flores(self):
        write_flores(os.path.join(self.folder.name, "flores"), "plus")
        result = self.run_bpe("--flores", "flores", "-t", "bytes.json", "--csv")
        self.assertEqual(result.returncode, 0, result.stderr)
        documents = parallel_texts.read_flores(os.path.join(self.folder.name, "flores"))
        self.assertEqual(result.stdout, measures.csv_table(measures.measure_documents({"bytes.json": BYTES},
                                                                                     documents)))

    def test_the_lab_sentences_chosen_sorted_and_as_csv(self):
        result = self.run_bpe("--languages", "en,hi,ta", "-t", "bytes.json", "--sort", "premium", "--csv")
        self.assertEqual(result.returncode, 0, result.stderr)
        costs = [cost for cost in compare.language_costs({"bytes.json": BYTES}) if cost["code"] in ("en", "hi", "ta")]
        costs.sort(key=lambda cost: -cost["parity"])
        self.assertEqual(result.stdout, measures.csv_table(costs, list(costs[0])))
        self.assertEqual([line.split(",")[1] for line in result.stdout.splitlines()[1:]], ["ta", "hi", "en"])

    def test_a_file_name_the_locale_cannot_decode_labels_the_map(self):
        latin_1 = os.fsdecode(b"caf\xe9.json")  # (as a listing gives it; run here as in the C locale)
        BYTES.save(os.path.join(self.folder.name, latin_1))
        result = self.run_bpe("--udhr", "udhr", "-t", latin_1, "--csv", "--map", "names.svg")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.folder.name, "names.svg"), encoding="utf-8") as stream:
            self.assertIn("caf\\xe9.json: the premium", stream.read())

    @unittest.skipIf(pty is None, "needs a pseudo-terminal")
    def test_workers_and_the_progress_line_in_a_real_process(self):
        output, status = run_in_terminal("compare", "--udhr", self.udhr, "-t", self.lab_file, "--languages",
                                         "eng,hin", "--workers", "2", "--csv")
        text = output.decode().replace("\r\n", "\n")
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"\r\x1b\[Kmeasuring: 2 of 2 texts and tokenizers, \d+\.\d s\r\x1b\[K")
        rows = [row for row in self.complete_rows if row["tokenizer"] == self.lab_file and row["code"] in ("eng", "hin")]
        self.assertTrue(text.endswith("\r\x1b[K" + measures.csv_table(rows)), text)

    def test_usage_and_input_errors(self):
        for arguments, status, message in (
                (["--udhr", "udhr", "--flores", "f", "-t", "bytes.json"], 2, "bpe: give --udhr or --flores, not both"),
                (["--udhr", "udhr", "-t", "bytes.json", "x"], 2, "bpe: --languages encodes the lab's own sentences"),
                (["--flores", "f", "-t", "bytes.json", "--map", "m.svg"], 2, "bpe: --map needs each language's"),
                (["--udhr", "udhr", "-t", "bytes.json", "--atlas", "a"], 2, "bpe: --atlas draws the land under --map"),
                (["--flores", "f", "-t", "bytes.json", "--incomplete"], 2, "bpe: --incomplete is for --udhr's"),
                (["--languages", "-t", "bytes.json", "--chart", "premium"], 2, "bpe: --chart chooses what -o draws"),
                (["--languages", "-t", "bytes.json", "--workers", "2"], 2, "bpe: --workers shares the encoding"),
                (["--languages", "-t", "bytes.json", "--sort", "efficiency"], 2, "bpe: the lab's sentences sort by"),
                (["-t", "bytes.json", "--csv", "x"], 2, "bpe: --sort and --csv are for the table"),
                (["--udhr", "udhr", "-t", "bytes.json", "--json", "--csv"], 2, "bpe: argument --csv: not allowed"),
                (["--udhr", "udhr", "-t", "bytes.json", "-o", "a.svg", "--map", "a.svg"], 2, "bpe: -o and --map name"),
                (["--languages", "en,xx", "-t", "bytes.json"], 1, "bpe: --languages: no language of the lab's "
                                                                  "sentences is coded 'xx'"),
                (["--udhr", "udhr", "--languages", "eng,xx", "-t", "bytes.json"], 1, "bpe: no document is coded 'xx'"),
                (["--udhr", "nowhere", "-t", "bytes.json"], 1, "bpe: nowhere: not a folder"),
                (["--udhr", "udhr", "-t", "bytes.json", "--map", "m.svg", "--atlas", "bytes.json"], 1,
                 "bpe: bytes.json: not a world-atlas TopoJSON file")):
            with self.subTest(arguments=arguments):
                result = self.run_bpe(*arguments)
                self.assertEqual(result.returncode, status, result.stderr)
                self.assertTrue(result.stderr.startswith(message), result.stderr)
                self.assertEqual(result.stderr.count("\n"), 1)
                self.assertEqual(result.stdout, "")


if __name__ == "__main__":
    unittest.main()
