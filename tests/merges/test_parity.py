"""Parity-aware BPE: the lab's fast trainer equals its rule said the simple way, and ``ParityBpeTrainer`` itself.

The rule is ``tokenizers`` 0.23.3's ``trainers.ParityBpeTrainer``
(huggingface/tokenizers, ``tokenizers/src/models/bpe/parity_trainer.rs``,
``do_train`` and ``select_language_window``; read at commit 9847f56e of its
pull request 1974, and held here to the installed 0.23.3), restated below as
``reference_parity``: every count recounted after each merge. The lab's
``bpelab.merges.parity`` must give its merges, and so must the library, on random
multilingual corpora made of the lab's 14 languages' sentences, both levels,
both variants, with development sets, target ratios or neither, global
merges and minimum counts. The draws where the library's loop never ends
(``NeverReturns``) are left out of the comparison with it and kept in the
one with the restatement, whose choice there is the lab's.
"""

import functools
import json
import math
import os
import random
import tempfile
import unittest
from collections import Counter, deque

import bpe
from bpe import Tokenizer, count_pairs, merge_pair
from bpelab.byte_level import bytes_to_display
from bpelab.commands import compare, parallel_texts
from bpelab.merges import parity
from tests.commands.test_parallel_texts import write_udhr
from tests.clients import installed, require
from tests.in_process import run_here

LANGUAGES = compare.languages()
"""The lab's 14 languages, five parallel sentences each (bpelab/languages.json)."""


@functools.lru_cache(maxsize=None)
def udhr_texts():
    """The udhr fixture's five declarations (tests/commands/test_parallel_texts.py) as parity-aware BPE's input:
    ``(training texts, development sets)``, each language's articles 1 to 20, then its articles 21 to 23 (the
    incomplete declaration has 23)."""
    with tempfile.TemporaryDirectory() as folder:
        documents, _ = parallel_texts.read_udhr(write_udhr(os.path.join(folder, "udhr")), incomplete=True)

    def articles(doc, numbers):
        return " ".join(doc["segments"][number] for number in numbers)

    return ([articles(doc, range(1, 21)) for doc in documents], [articles(doc, range(21, 24)) for doc in documents])


class NeverReturns(Exception):
    """ParityBpeTrainer's window loop would run for ever here (see ``window_choice``)."""


def window_choice(scores, window, window_size, threshold, passed):
    """The window variant's language, as ``select_language_window`` picks it, and None or ``NeverReturns``.

    Each pass takes the best language not yet masked nor passed over (0 when
    there is none: the loop's starting value); a language over its share of
    the window is masked and the pass repeats; once all are masked, the last
    one masked is taken. Masking a masked language again changes nothing, so
    there the library loops for ever; the lab takes the last one masked that
    is still going.
    """
    masked = []
    while True:
        going = [at for at in range(len(scores)) if at not in masked and at not in passed]
        best = max(going, key=lambda at: (scores[at], -at)) if going else 0
        if window.count(best) / window_size <= threshold:
            return best, None
        if best in masked:
            if len(masked) < len(scores):
                return [at for at in masked if at not in passed][-1], NeverReturns
            return best, None
        masked.append(best)
        if len(masked) == len(scores):
            return best, None


def length(counts):
    return sum(len(tokens) * count for tokens, count in counts.items())


def reference_parity(languages, max_merges, dev=None, ratio=None, variant="base", window_size=100, alpha=2.0,
                     global_merges=0, min_count=1, strict=False, never=None):
    """ParityBpeTrainer's merges, the simple way: ``(pair, language)`` each (None for a global merge).

    ``languages`` and ``dev`` are chunk counts per language, each chunk a
    tuple of tokens as the library writes them. Where the library would
    never return, ``strict`` raises ``NeverReturns``; otherwise the last
    language still going that was tried takes the merge (the lab's choice),
    and ``never`` (a list) gets a note of it.
    """
    current = [dict(counts) for counts in languages]
    devs = [dict(counts) for counts in dev] if dev else None
    initial = [float(length(counts)) for counts in current]
    passed, window, learned = set(), deque(), []
    while len(learned) < max_merges and len(passed) < len(current):
        language = None
        if len(learned) >= global_merges:
            if ratio is not None:
                scores = [-((initial[at] / length(counts)) / ratio[at]) for at, counts in enumerate(current)]
            else:
                scores = [length(counts) for counts in devs or current]
            if variant == "base":
                language = max((at for at in range(len(scores)) if at not in passed), key=lambda at: (scores[at], -at))
            else:
                language, trouble = window_choice(scores, window, window_size, alpha / len(current), passed)
                if trouble and strict:
                    raise trouble
                if trouble and never is not None:
                    never.append(len(learned))
                window.append(language)
                if len(window) > window_size:
                    window.popleft()
        counts = sum((count_pairs(each) for each in current), Counter()) if language is None \
            else count_pairs(current[language])
        pair = max(counts, key=lambda pair: (counts[pair], pair), default=None)
        if pair is None or counts[pair] < min_count:
            if language is None:
                break
            passed.add(language)
            continue
        learned.append((pair, language))
        current = [{merge_pair(tokens, pair): count for tokens, count in each.items()} for each in current]
        if devs:
            devs = [{merge_pair(tokens, pair): count for tokens, count in each.items()} for each in devs]
    return learned


def written(text, pattern, byte_level):
    """A text's chunk counts, each chunk as its tokens are written (GPT-2's display characters at the byte level)."""
    counts = Counter(bpe.chunks(text, pattern))
    if byte_level:
        return {tuple(bytes_to_display(chunk.encode("utf-8"))): count for chunk, count in counts.items()}
    return {tuple(chunk): count for chunk, count in counts.items()}


def random_run(rng, languages=5, words=30):
    """A random parity-aware run: texts in some of the lab's languages, development sets or ratios, the options."""
    chosen = rng.sample(LANGUAGES, rng.randint(1, languages))
    pool = lambda language: " ".join(language["sentences"]).split() + ["ab", "ba", "aab", "1", "22"]
    texts = [" ".join(rng.choice(pool(language)) for _ in range(rng.randint(1, words))) for language in chosen]
    options = {"variant": rng.choice(parity.VARIANTS)}
    if options["variant"] == "window":
        options.update(window_size=rng.randint(1, 6), alpha=rng.choice([0.5, 1.0, 1.5, 2.0, 3.0]))
    if rng.random() < 0.3:
        options["global_merges"] = rng.randint(0, 10)
    dev = [rng.choice(language["sentences"]) for language in chosen] if rng.random() < 0.6 else None
    if dev is None and rng.random() < 0.5:
        options["ratio"] = [rng.choice([0.5, 1.0, 1.3, 2.0]) for _ in chosen]
    return texts, dev, options, rng.random() < 0.5, rng.choice(["lab", "gpt2", "o200k"]), rng.randint(1, 3)


def lab_parity(texts, dev, options, byte_level, pattern, min_count, merges):
    """The lab's parity-aware tokenizer, asked for ``merges`` merges (its vocabulary counted as it counts it)."""
    base = 256 if byte_level else len(set("".join(texts + (dev or [])))) + 1
    return Tokenizer.train_parity(texts, base + merges, dev_texts=dev, byte_level=byte_level, pattern=pattern,
                                  min_count=min_count, **options)


def reference_of(texts, dev, options, byte_level, pattern, min_count, merges, never=None):
    return reference_parity([written(text, pattern, byte_level) for text in texts], merges,
                            dev=dev and [written(text, pattern, byte_level) for text in dev], min_count=min_count,
                            never=never, **options)


@functools.lru_cache(maxsize=None)
def random_runs(count=70, seed=39):
    """Random runs, each ``(run, merges wanted, the restatement's merges, whether ParityBpeTrainer never returns)``."""
    rng, runs = random.Random(seed), []
    for _ in range(count):
        run, wanted, never = random_run(rng), rng.randint(1, 60), []
        runs.append((run, wanted, reference_of(*run, wanted, never=never), bool(never)))
    return runs


class DefinitionTests(unittest.TestCase):
    """The fast trainer equals the rule said the simple way, on random multilingual corpora."""

    def test_random_multilingual_corpora(self):
        merges = 0
        for trial, (run, wanted, expected, _) in enumerate(random_runs()):
            with self.subTest(trial=trial, run=run):
                lab = lab_parity(*run, wanted)
                self.assertEqual(lab.merges, [tuple(map("".join, pair)) for pair, _ in expected])
                self.assertEqual([entry["language"] for entry in lab.history], [language for _, language in expected])
                merges += len(lab.merges)
        self.assertGreater(merges, 1500)  # (1,559)

    def assert_like_the_restatement(self, texts, dev, merges, window_size, languages):
        """Both variants learn the restatement's ``merges`` merges at the byte level, more than ``languages`` of
        the corpora taking some."""
        for variant in parity.VARIANTS:
            with self.subTest(variant=variant):
                lab = Tokenizer.train_parity(texts, 256 + merges, dev_texts=dev, variant=variant,
                                             window_size=window_size, byte_level=True, pattern="o200k")
                expected = reference_parity([written(text, "o200k", True) for text in texts], merges,
                                            variant=variant, window_size=window_size,
                                            dev=[written(text, "o200k", True) for text in dev])
                self.assertEqual(len(lab.merges), merges)
                self.assertEqual(lab.merges, [tuple(map("".join, pair)) for pair, _ in expected])
                self.assertGreater(len(set(entry["language"] for entry in lab.history)), languages)

    def test_all_fourteen_languages_with_their_sentences_as_development_sets(self):
        texts = [" ".join(language["sentences"]) for language in LANGUAGES]
        self.assert_like_the_restatement(texts, [language["sentences"][0] for language in LANGUAGES], 40, 20, 5)

    def test_udhr_articles_as_development_sets(self):
        texts, dev = udhr_texts()
        self.assert_like_the_restatement(texts, dev, 60, 10, 3)  # (4 of the 5 languages take merges here)

    def test_where_the_library_never_returns_the_last_language_tried_takes_the_merge(self):
        # Window 1, alpha 1 of 2 languages: a language that took the last merge is over its share. Language 1
        # runs out of pairs first; then language 0, over its share, is tried, and the pass falls back on it again.
        texts, dev = ["aaaa bbbb", "cd"], ["aaaa bbbb aaaa", "cd cd cd cd cd cd cd cd"]
        counts = [written(text, "lab", False) for text in texts]
        devs = [written(text, "lab", False) for text in dev]
        with self.assertRaises(NeverReturns):
            reference_parity(counts, 6, dev=devs, variant="window", window_size=1, alpha=1.0, strict=True)
        lab = Tokenizer.train_parity(texts, 6 + 6, dev_texts=dev, variant="window", window_size=1, alpha=1.0)
        expected = reference_parity(counts, 6, dev=devs, variant="window", window_size=1, alpha=1.0)
        self.assertEqual([(left + right, entry["language"]) for (left, right), entry in zip(lab.merges, lab.history)],
                         [("".join(pair), language) for pair, language in expected])
        self.assertEqual(len(lab.merges), 6)

    def test_files_and_counts_give_what_texts_give(self):
        texts = [" ".join(language["sentences"]) for language in LANGUAGES[:4]]
        dev = [language["sentences"][0] for language in LANGUAGES[:4]]
        from_texts = Tokenizer.train_parity(texts, 400, dev_texts=dev, byte_level=True, global_merges=5)
        counts = [bpe.count_chunks([text], "gpt2") for text in texts]
        dev_counts = [bpe.count_chunks([text], "gpt2") for text in dev]
        from_counts = Tokenizer.train_parity_from_counts(counts, 400, dev_counts=dev_counts, byte_level=True,
                                                         global_merges=5)
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for at, text in enumerate(texts + dev):
                paths.append(os.path.join(folder, f"{at}.txt"))
                with open(paths[-1], "w", encoding="utf-8") as stream:
                    stream.write(text)
            from_files = Tokenizer.train_parity_from_files(paths[:4], 400, dev_paths=paths[4:], byte_level=True,
                                                           global_merges=5, block_size=7)
        self.assertEqual(from_counts.history, from_texts.history)
        self.assertEqual(from_files.history, from_texts.history)
        self.assertEqual([entry["language"] for entry in from_texts.history[:5]], [None] * 5)
        loaded = Tokenizer.from_json(json.loads(json.dumps(from_texts.to_json())))
        self.assertEqual(loaded.encode(texts[1]), from_texts.encode(texts[1]))

    def test_bad_options_are_refused_before_any_work(self):
        for bad, message in [({"variant": "windowed"}, "variant must be 'base' or 'window'"),
                             ({"window_size": 0}, "window_size must be a positive int"),
                             ({"alpha": 0}, "alpha must be a positive number"),
                             ({"alpha": math.inf}, "alpha must be a positive number"),
                             ({"global_merges": -1}, "global_merges must be an int, 0 or more"),
                             ({"ratio": [1.0]}, "ratio has 1 targets for 2 languages"),
                             ({"ratio": [1.0, 0.0]}, "each ratio must be a positive number"),
                             ({"ratio": [1.0, 1.0], "dev_texts": ["a", "b"]}, "not both"),
                             ({"dev_texts": ["a"]}, "1 development sets for 2 languages"),
                             ({"ties": "smallest"}, "unexpected keyword argument 'ties'")]:
            with self.subTest(bad=bad), self.assertRaisesRegex((TypeError, ValueError), message):
                Tokenizer.train_parity(["ab ab", "cd cd"], 30, **bad)
        with self.assertRaisesRegex(ValueError, "at least one language"):
            Tokenizer.train_parity([], 30)
        with self.assertRaisesRegex(TypeError, "each of texts must be a str"):
            Tokenizer.train_parity(["ab", b"cd"], 30)

    def test_the_command_line(self):
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for name, text in [("en", LANGUAGES[0]), ("hi", LANGUAGES[-1]), ("en.dev", LANGUAGES[0]),
                               ("hi.dev", LANGUAGES[-1])]:
                paths.append(os.path.join(folder, name + ".txt"))
                with open(paths[-1], "w", encoding="utf-8") as stream:
                    stream.write(" ".join(text["sentences"][:2] if "dev" in name else text["sentences"]))
            out = os.path.join(folder, "parity.json")
            result = run_here("train", paths[0], paths[1], "--bytes", "--vocab-size", "300", "--parity", "window",
                              "--window-size", "10", "--dev", paths[2], "--dev", paths[3], "-o", out, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("parity-aware (window)", result.stdout)
            texts = [" ".join(LANGUAGES[0]["sentences"]), " ".join(LANGUAGES[-1]["sentences"])]
            dev = [" ".join(LANGUAGES[0]["sentences"][:2]), " ".join(LANGUAGES[-1]["sentences"][:2])]
            expected = Tokenizer.train_parity(texts, 300, dev_texts=dev, variant="window", window_size=10,
                                              byte_level=True)
            self.assertEqual(Tokenizer.load(out).merges, expected.merges)
            refused = run_here("train", paths[0], "--vocab-size", "300", "--dev", paths[2], "-o", out, text=True)
            self.assertNotEqual(refused.returncode, 0)
            self.assertIn("--dev", refused.stderr)


def has_parity_trainer():
    """Whether ``tokenizers`` is here with its ``ParityBpeTrainer`` (0.23.3 has it; 0.22 does not)."""
    if not installed("tokenizers"):
        return False
    from tokenizers import trainers

    return hasattr(trainers, "ParityBpeTrainer")


@require(has_parity_trainer(), "tokenizers 0.23.3, with trainers.ParityBpeTrainer, is not installed")
class ParityBpeTrainerTests(unittest.TestCase):
    """``tokenizers``' ``ParityBpeTrainer`` learns exactly the lab's merges, given the lab's chunks."""

    @staticmethod
    def library_merges(texts, dev, options, byte_level, pattern, min_count, merges):
        from tokenizers import Regex, Tokenizer as LibraryTokenizer, models, pre_tokenizers, trainers

        tokenizer = LibraryTokenizer(models.BPE())
        split = pre_tokenizers.Split(Regex(bpe.pattern_source(pattern, "oniguruma")), "isolated")
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]) if byte_level else split
        options = dict(options)
        ratio = options.pop("ratio", None)
        trainer = trainers.ParityBpeTrainer(num_merges=merges, min_frequency=min_count, show_progress=False,
                                            **options)
        trainer.train_from_iterator(tokenizer, [[text] for text in texts],
                                    dev_iterators=dev and [[text] for text in dev], ratio=ratio)
        return [tuple(merge) for merge in json.loads(tokenizer.to_str())["model"]["merges"]]

    def test_random_multilingual_corpora(self):
        merges = left_out = 0
        for trial, (run, wanted, expected, never) in enumerate(random_runs()):
            if never:  # (the library would not return: the restatement above holds the lab's choice there)
                left_out += 1
                continue
            with self.subTest(trial=trial, run=run):
                self.assertEqual(self.library_merges(*run, wanted), [tuple(map("".join, pair)) for pair, _ in expected])
                merges += len(expected)
        self.assertGreater(merges, 1400)  # (1,417 of 64 runs; 6 left out)
        self.assertLess(left_out, 10)

    def test_all_fourteen_languages_both_variants_and_ratios(self):
        texts = [" ".join(language["sentences"]) * 2 for language in LANGUAGES]
        dev = [" ".join(language["sentences"][1:3]) for language in LANGUAGES]
        for options, dev_sets in [({"variant": "window", "window_size": 10, "alpha": 1.5, "global_merges": 40}, dev),
                                  ({"ratio": [1.0 + at / 10 for at in range(14)]}, None)]:
            with self.subTest(options=options):
                lab = Tokenizer.train_parity(texts, 256 + 300, dev_texts=dev_sets, byte_level=True, pattern="o200k",
                                             **options)
                self.assertEqual(len(lab.merges), 300)
                self.assertEqual(lab.merges, self.library_merges(texts, dev_sets, options, True, "o200k", 1, 300))

    def test_udhr_articles_as_development_sets(self):
        texts, dev = udhr_texts()
        for options in [{"variant": "base"}, {"variant": "window", "window_size": 10}]:
            with self.subTest(options=options):
                lab = Tokenizer.train_parity(texts, 256 + 200, dev_texts=dev, byte_level=True, pattern="o200k",
                                             **options)
                self.assertEqual(len(lab.merges), 200)
                self.assertEqual(lab.merges, self.library_merges(texts, dev, options, True, "o200k", 1, 200))


if __name__ == "__main__":
    unittest.main()
