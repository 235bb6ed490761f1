"""The benchmark's machinery (tools/bench), not its figures: the job runner's reach, --compare's parts, the page.

The smoke run of every phase is ``tests/merges/test_training.py``'s
``test_benchmark_quick_smoke``; here are the parts it does not reach:
another commit's code run by this tree's job runner in a worktree that is
removed afterwards, the order of the alternating runs, the verdict on two
spreads, the sum of a process tree's high-water marks, and
docs/benchmark.md's sections and history. Timings are never asserted.
"""

import ast
import glob
import io
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import bpe
from tests import ROOT
from tests.lab_samples import CORPUS
from tools.bench import benchmark_page, cli, measuring, versions
from tools.bench.corpora import GENERATED_SEED, write_generated
from tools.bench.jobs import job_result
from tools.bench.measuring import Entry, measure_in_turn
from tools.bench.probes import TreeHighWater
from tools.bench.report import change

OLD_FLAT_LAYOUT = "88c6009"
"""A commit from before the package moved into wings (bpelab.engine and the rest side by side)."""


def has_commit(revision):
    """Whether this checkout's history holds ``revision`` (a shallow clone may not)."""
    try:
        versions.resolve_commit(revision)
    except ValueError:
        return False
    return True


class JobRunnerTests(unittest.TestCase):

    def test_the_job_runner_reaches_the_lab_through_bpes_public_api_only(self):
        for path in glob.glob(os.path.join(ROOT, "tools", "bench", "**", "*.py"), recursive=True):
            with open(path, encoding="utf-8") as stream:
                tree = ast.parse(stream.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    self.assertFalse(node.module.startswith("bpelab"), f"{path}:{node.lineno} imports {node.module}")
                    if node.module == "bpe":
                        self.assertLessEqual({alias.name for alias in node.names}, set(bpe.__all__), path)
                elif isinstance(node, ast.Import):
                    self.assertFalse(any(alias.name.startswith("bpelab") for alias in node.names), path)
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "bpe" \
                        and not node.attr.startswith("__"):
                    self.assertIn(node.attr, bpe.__all__, f"{path}:{node.lineno} uses bpe.{node.attr}")

    def test_the_documented_modules_it_needs_are_where_this_tree_keeps_them(self):
        from tools.bench.implementations import DOCUMENTED_MODULES

        for places in DOCUMENTED_MODULES.values():
            self.assertTrue(os.path.exists(os.path.join(ROOT, *places[0].split(".")) + ".py"), places[0])

    @unittest.skipUnless(has_commit(OLD_FLAT_LAYOUT), f"this checkout's history has no {OLD_FLAT_LAYOUT}")
    def test_another_commits_code_runs_the_same_job_in_a_worktree_removed_afterwards(self):
        with tempfile.TemporaryDirectory() as folder:
            saved = os.path.join(folder, "tokenizer.json")
            bpe.Tokenizer.train(CORPUS, 300).save(saved)
            spec = {"job": "encode", "impl": "ours", "corpus": os.path.join(ROOT, "corpus.txt"), "tokenizer": saved,
                    "passes": 1}
            runner = versions.snapshot_tree(os.path.join(folder, "tree")).runner
            with self.assertRaises(KeyboardInterrupt):
                with versions.other_commit(versions.resolve_commit(OLD_FLAT_LAYOUT), folder, runner) as old:
                    checkout = old.lab
                    self.assertFalse(os.path.exists(os.path.join(checkout, "bpelab", "merges")))  # the old layout
                    theirs = measuring.run_once(spec, old, os.path.join(folder, "bytecode"))
                    raise KeyboardInterrupt  # as if the run were stopped here
            self.assertFalse(os.path.exists(checkout))
            self.assertNotIn(checkout, versions.git("worktree", "list", "--porcelain"))
            self.assertNotIn("failed", theirs)
            self.assertEqual(theirs["digest"], job_result(spec)["digest"])  # the same IDs as this tree's encode


HOLD_MB = """
import subprocess, sys, time
held = bytearray({mb} * 10 ** 6)
child = subprocess.Popen([sys.executable, "-c", {child!r}]) if {child!r} else None
time.sleep(0.5)
if child:
    child.wait()
"""
"""A process that holds ``mb`` MB for half a second, and starts ``child`` (Python source) if it is given."""


class MemoryTests(unittest.TestCase):

    @unittest.skipUnless(os.path.exists("/proc/self/status"), "no /proc here")
    def test_the_tree_s_peak_is_each_process_s_last_vmhwm_summed_a_child_that_ended_first_included(self):
        child = HOLD_MB.format(mb=80, child="")
        parent = subprocess.Popen([sys.executable, "-c", HOLD_MB.format(mb=40, child=child)])
        with TreeHighWater(parent.pid) as memory:
            parent.wait()
        self.assertEqual(len(memory.last_kib), 2)
        child_kib, parent_kib = sorted(memory.last_kib.values(), reverse=True)
        self.assertGreaterEqual(child_kib * 1024, 80 * 10 ** 6)
        self.assertGreaterEqual(parent_kib * 1024, 40 * 10 ** 6)
        self.assertLess(parent_kib * 1024, 80 * 10 ** 6)
        self.assertEqual(memory.total_kib, child_kib + parent_kib)


class GeneratedTextTests(unittest.TestCase):

    def test_a_seed_gives_the_same_text_and_the_distinct_chunks_reported_are_a_recount(self):
        with tempfile.TemporaryDirectory() as folder:
            paths = [os.path.join(folder, f"{name}.txt") for name in ("first", "again", "other seed", "smaller")]
            sizes = [write_generated(path, size, seed) for path, size, seed in zip(
                paths, (300_000, 300_000, 300_000, 100_000), (GENERATED_SEED, GENERATED_SEED, 1, GENERATED_SEED))]
            self.assertEqual(sizes, [300_000] * 3 + [100_000])
            texts = []
            for path in paths:
                with open(path, encoding="ascii", newline="") as stream:
                    texts.append(stream.read())
            self.assertEqual(texts[0], texts[1])
            self.assertNotEqual(texts[0], texts[2])
            self.assertTrue(texts[0].startswith(texts[3]))  # a larger size goes on where a smaller one stops
            # The training job in a fresh process, watched from outside: its workers count in the tree's peak.
            spec = {"job": "train-counted", "impl": "ours", "corpus": paths[0], "vocab_size": 300, "ties": "rustbpe",
                    "min_count": 1, "workers": 2, "tree_memory": True}
            result = measuring.run_once(spec, versions.snapshot_tree(os.path.join(folder, "tree")),
                                        os.path.join(folder, "bytecode"))
        chunks = bpe.chunks(texts[0], "gpt2")
        self.assertEqual((result["distinct"], result["chunks"]), (len(set(chunks)), len(chunks)))
        self.assertGreater(len(set(chunks)), 2 * len(set(bpe.chunks(texts[3], "gpt2"))))  # they grow with the text
        self.assertEqual(result["processes"], 3)
        self.assertEqual(len(result["workers_kib"]), 2)
        parent_kib = result["rss_kib"] - sum(result["workers_kib"])  # the tree's sum, less the workers'
        self.assertLess(abs(parent_kib - result["own_kib"]), result["own_kib"] / 10)  # is the job's own


class CompareTests(unittest.TestCase):

    def test_the_runs_alternate_and_every_other_round_goes_backwards(self):
        calls = []

        def run_once(spec, code, bytecode):
            calls.append((spec["impl"], code.name, spec.get("save_to")))
            return {"seconds": 1.0}

        mine, theirs = versions.Code("this tree", "", ""), versions.Code("abc1234", "", "")
        entries = [Entry({"job": "j", "impl": "ours"}, mine, {"save_to": "x"}), Entry({"job": "j", "impl": "ours"},
                                                                                     theirs)]
        with mock.patch.object(measuring, "run_once", run_once), mock.patch.object(measuring, "log"):
            measured = measure_in_turn(entries, 4, "")
        self.assertEqual([name for _, name, _ in calls], ["this tree", "abc1234", "abc1234", "this tree"] * 2)
        self.assertEqual([save for _, _, save in calls], ["x"] + [None] * 7)  # only this tree's first run saves
        self.assertEqual([len(measurement.runs) for measurement in measured], [4, 4])

    def test_a_change_is_beyond_the_spread_only_when_the_interquartile_ranges_part(self):
        old = [1.0, 1.1, 1.2, 1.3, 3.0]
        self.assertEqual(change([1.4, 1.5, 1.5, 1.6, 1.7], old), "slower")
        self.assertEqual(change([0.5, 0.6, 0.7, 0.8, 0.9], old), "faster")
        self.assertEqual(change([1.2, 1.25, 1.3, 1.4, 1.5], old), "")  # one slow outlier does not decide
        self.assertEqual(change([0.9, 1.0, 1.1, 1.2, 9.0], old), "")

    def test_a_revision_that_names_no_commit_or_too_few_runs_are_refused_before_any_work(self):
        for arguments, message in ((["--compare", "no-such-revision"], "--compare 'no-such-revision': no commit"),
                                   (["--compare", "HEAD", "--repeat", "3"], "--repeat 3 with --compare: take at least 5")):
            with self.subTest(arguments), mock.patch("sys.stderr", new_callable=io.StringIO) as stderr:
                with self.assertRaises(SystemExit) as stopped:
                    cli.parse_args(arguments)
                self.assertEqual(stopped.exception.code, 2)
                self.assertIn(message, stderr.getvalue())


class PageTests(unittest.TestCase):

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "benchmark.md")

    def write(self, text):
        with open(self.path, "w", encoding="utf-8") as stream:
            stream.write(text)

    def read(self):
        with open(self.path, encoding="utf-8") as stream:
            return stream.read()

    def test_a_hand_written_page_becomes_the_history_under_the_new_sections(self):
        self.write("# Benchmark\n\nOld figures, by hand.\n\n## A heading of old\n\n| a | b |\n")
        benchmark_page.update_page(self.path, {"encode": "## Encoding\n\nnew figures"})
        page = self.read()
        head, history = page.split(benchmark_page.HISTORY_MARK + "\n\n")
        self.assertEqual(history, "Old figures, by hand.\n\n## A heading of old\n\n| a | b |\n")
        self.assertIn("new figures", head)
        self.assertIn("python3 -m tools.bench --docs --only letters", head)  # a phase not measured yet
        self.assertLess(head.index("new figures"), head.index("--only letters"))  # the phases' order
        self.assertEqual(page.count("# Benchmark\n"), 1)

    def test_one_section_is_replaced_and_the_rest_kept_byte_for_byte(self):
        self.write("# Benchmark\n\nOld.\n")
        benchmark_page.update_page(self.path, {"encode": "encode, first", "letters": "letters, first"})
        first = self.read()
        benchmark_page.update_page(self.path, {"letters": "letters, again"})
        second = self.read()
        self.assertEqual(second, first.replace("letters, first", "letters, again"))
        benchmark_page.update_page(self.path, {})
        self.assertEqual(self.read(), second)

    def test_a_page_whose_markers_do_not_pair_up_is_refused_and_left_alone(self):
        broken = "# Benchmark\n<!-- bench: begin encode -->\nhalf a section\n" + benchmark_page.HISTORY_MARK + "\n\n"
        self.write(broken)
        with self.assertRaisesRegex(ValueError, "benchmark.md: its 1 begin and 0 end markers"):
            benchmark_page.update_page(self.path, {"encode": "new"})
        self.assertEqual(self.read(), broken)
        self.assertEqual(os.listdir(os.path.dirname(self.path)), ["benchmark.md"])

    def test_another_pages_section_is_replaced_alone_and_a_page_without_its_markers_refused(self):
        marked = "# Variants\n\nProse.\n\n<!-- bench: begin variants -->\nold table\n<!-- bench: end variants -->\nMore.\n"
        self.write(marked)
        benchmark_page.replace_section(self.path, "variants", "new table")
        self.assertEqual(self.read(), marked.replace("old table", "new table"))
        for broken in ["# Variants\n", marked.replace("<!-- bench: end variants -->\n", ""), marked + marked]:
            self.write(broken)
            with self.assertRaisesRegex(ValueError, "benchmark.md: it needs one <!-- bench: begin variants -->"):
                benchmark_page.replace_section(self.path, "variants", "new table")
            self.assertEqual(self.read(), broken)


if __name__ == "__main__":
    unittest.main()
