"""The variants' table: each row is what its own trainer and ``encode`` give, measured by the definitions."""

import json
import os
import tempfile
import unittest
from statistics import fmean

from bpe import Tokenizer, SuperBPE
from bpelab.commands import compare, measures, parallel_texts
from bpelab.commands.variants import VARIANT_KEYS, variants_table
from bpelab.merges.dropout import DROPOUT_RULES
from tests.in_process import run_here

LANGUAGES = compare.languages()
TEXTS = [" ".join(language["sentences"][1:]) * 3 for language in LANGUAGES[:3]]  # English, Spanish, Vietnamese
HELD_OUT = LANGUAGES[0]["sentences"][0] + " " + LANGUAGES[1]["sentences"][0]
SIZE = 256 + 120
OPTIONS = {"byte_level": True, "pattern": "o200k", "min_count": 1}


def expected_row(tokenizer, encodings):
    """A row's measures computed the plain way: ``encodings(text)`` lists each draw's IDs of ``text``."""
    held = encodings(HELD_OUT)
    used = {token_id for ids in held for token_id in ids}
    ordinary = [token_id for token_id, token in enumerate(tokenizer.vocab) if token is not None]

    def tokens(language):
        return fmean(len(ids) for ids in encodings(" ".join(language["sentences"])))

    premiums = [tokens(language) / tokens(LANGUAGES[0]) for language in LANGUAGES[1:]]
    mean = fmean(len(ids) for ids in held)
    return {"vocab_size": len(tokenizer), "tokens": mean, "bytes_per_token": len(HELD_OUT.encode()) / mean,
            "efficiency": fmean(measures.renyi_efficiency(ids) for ids in held),
            "unused_share": len(set(ordinary) - used) / len(ordinary), "premium": fmean(premiums),
            "worst_premium": max(premiums)}


class CompareVariantsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = Tokenizer.compare_variants(TEXTS, SIZE, held_out=HELD_OUT, dev_texts=TEXTS[::-1], superbpe=40,
                                              threshold=0.8, window_size=5, dropout=0.2, draws=3)

    def test_each_row_is_its_own_trainers_tokenizer_measured(self):
        corpus = "\n".join(TEXTS)
        superbpe = {"byte_level": True, "min_count": 1}  # (each split's own patterns)
        trained = [Tokenizer.train(corpus, SIZE, **OPTIONS),
                   Tokenizer.train(corpus, SIZE, superbpe=SuperBPE(40, split="repository"), **superbpe),
                   Tokenizer.train(corpus, SIZE, superbpe=SuperBPE(40, split="paper"), **superbpe),
                   Tokenizer.train_parity(TEXTS, SIZE, dev_texts=TEXTS[::-1], **OPTIONS),
                   Tokenizer.train_parity(TEXTS, SIZE, dev_texts=TEXTS[::-1], variant="window", window_size=5,
                                          **OPTIONS),
                   Tokenizer.train_picky(corpus, SIZE, threshold=0.8, **OPTIONS)]
        self.assertTrue(trained[-1].removals)  # (PickyBPE removed tokens here: its vocabulary is what is left)
        self.assertNotEqual(trained[3].merges, trained[4].merges)
        self.assertEqual([trained[1].pattern, trained[2].pattern], ["superbpe", "superbpe-paper"])  # each split's
        plain = trained[0]
        encodings = [lambda text, tokenizer=tokenizer: [tokenizer.encode(text)] for tokenizer in trained]
        encodings += [lambda text, rule=rule: [plain.encode(text, dropout=0.2, seed=seed, dropout_rule=rule)
                                               for seed in range(3)] for rule in DROPOUT_RULES]
        labels = ["plain BPE", "SuperBPE, repository split (t = 40)", "SuperBPE, paper split (t = 40)",
                  "parity-aware BPE, base", "parity-aware BPE, window", "PickyBPE (threshold 0.8)",
                  *[f"BPE-dropout, {rule} (p = 0.2, mean of 3 draws)" for rule in DROPOUT_RULES]]
        self.assertEqual([row["variant"] for row in self.rows], labels)
        for row, tokenizer, encode in zip(self.rows, trained + [plain] * 3, encodings):
            with self.subTest(variant=row["variant"]):
                self.assertEqual(list(row), list(VARIANT_KEYS))
                expected = expected_row(tokenizer, encode)
                self.assertEqual({key: row[key] for key in expected}, expected)
                self.assertGreaterEqual(row["train_seconds"], 0)
        for row in self.rows[-3:]:
            self.assertEqual(row["train_seconds"], self.rows[0]["train_seconds"])  # dropout trains nothing
            self.assertGreater(row["tokens"], self.rows[0]["tokens"])

    def test_the_premium_and_efficiency_are_the_measures_of_parallel_texts(self):
        plain = Tokenizer.train("\n".join(TEXTS), SIZE, **OPTIONS)
        documents = [parallel_texts.document(language["code"], language["name"], language["code"],
                                             dict(enumerate(language["sentences"])), source="udhr", path="-")
                     for language in LANGUAGES + [{"code": "held", "name": "held", "sentences": [HELD_OUT]}]]
        rows = measures.measure_documents({"plain": plain}, documents, english=documents[0])
        premiums = [row["premium"] for row in rows[1:-1]]
        self.assertAlmostEqual(self.rows[0]["premium"], fmean(premiums), places=12)
        self.assertAlmostEqual(self.rows[0]["worst_premium"], max(premiums), places=12)
        self.assertEqual(self.rows[0]["efficiency"], rows[-1]["efficiency"])

    def test_the_table(self):
        table = variants_table(self.rows)
        lines = table.splitlines()
        self.assertEqual(len(lines), 4 + len(self.rows))
        for line, row in zip(lines[4:], self.rows):
            self.assertTrue(line.startswith(f"| {row['variant']} | {SIZE:,} |"))
            self.assertIn(f"| {row['bytes_per_token']:.3f} |", line)
            self.assertIn(f"×{row['worst_premium']:.2f} ({row['language']})", line)

    def test_bad_options_are_refused_before_any_training(self):
        class Untrainable(Tokenizer):
            @classmethod
            def train(cls, *arguments, **options):
                raise AssertionError("trained before the options were checked")

        for options, error in [({"window_size": 0}, ValueError), ({"alpha": 0.0}, ValueError),
                               ({"threshold": "high"}, TypeError), ({"dropout": 1.5}, ValueError),
                               ({"draws": 0}, ValueError), ({"superbpe": -1}, ValueError),
                               ({"dev_texts": TEXTS[:2]}, ValueError), ({"held_out": ""}, ValueError),
                               ({"held_out": b"bytes"}, TypeError), ({"pattern": "nope"}, ValueError)]:
            with self.subTest(options=options), self.assertRaises(error):
                Untrainable.compare_variants(TEXTS, SIZE, **{"held_out": HELD_OUT, **options})
        with self.assertRaises(ValueError):
            Untrainable.compare_variants("one text", SIZE, held_out=HELD_OUT)
        with self.assertRaises(ValueError):
            Untrainable.compare_variants(TEXTS, 10, held_out=HELD_OUT)

    def test_the_command_line(self):
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for number, text in enumerate(TEXTS + [HELD_OUT]):
                paths.append(os.path.join(folder, f"{number}.txt"))
                with open(paths[-1], "w", encoding="utf-8") as file:
                    file.write(text)
            *languages, held = paths
            result = run_here("compare", "--variants", *languages, "--vocab-size", str(SIZE), "--held-out", held,
                              "--json", text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            rows = json.loads(result.stdout)
            expected = Tokenizer.compare_variants(TEXTS, SIZE, held_out=HELD_OUT, draws=10)
            for row, mine in zip(rows, expected):
                self.assertEqual({key: row[key] for key in VARIANT_KEYS if key != "train_seconds"},
                                 {key: mine[key] for key in VARIANT_KEYS if key != "train_seconds"})
            printed = run_here("compare", "--variants", *languages, "--vocab-size", str(SIZE), "--held-out", held,
                               "--dev", languages[0], text=True)
            self.assertNotEqual(printed.returncode, 0)
            self.assertIn("3 languages", printed.stderr)
            for arguments, message in [(["--variants", held, "--held-out", held], "--vocab-size"),
                                       (["--variants", held, "--vocab-size", "300"], "--held-out"),
                                       (["--variants", held, "--vocab-size", "300", "--held-out", held, "-t", "gpt2"],
                                        "give no -t"),
                                       (["--vocab-size", "300", "-t", "gpt2", "hi"], "--variants"),
                                       (["hi"], "-t TOK")]:
                with self.subTest(arguments=arguments):
                    refused = run_here("compare", *arguments, text=True)
                    self.assertEqual(refused.returncode, 2)
                    self.assertIn(message, refused.stderr)


if __name__ == "__main__":
    unittest.main()
