"""BPE-dropout's three rules: each exactly its source's distribution; subword-nmt's also draw for draw, Hugging Face's
also against ``tokenizers`` by sampling.

subword-nmt (``apply_bpe.encode``) draws ``random.random()`` for every
adjacent pair of a word at every step, then keeps the mergeable pairs whose
draw is above the dropout, exactly the rule of ``reference_encode``. Its
words end in ``</w>``, which changes which pairs are merges at the end of a
word, so the words it is given here end in a character that no merge uses:
then every pair means the same to both, and the same seed must give the same
tokens. The paper's reference code and Hugging Face's are restated in
``tests/merges/dropout_rules.py``, which works out each segmentation's exact chance.
"""

import hashlib
import io
import json
import math
import os
import random
import unittest
from collections import Counter
from fractions import Fraction
from statistics import mean
from unittest import mock

from bpe import Tokenizer, reference_encode
from bpelab.merges import dropout as dropout_module
from bpelab.merges.dropout import DROPOUT_RULES, Dropout
from make_corpus import corpus
from tests import ROOT
from tests.clients import require_module
from tests.merges import dropout_rules
from tests.merges.test_superbpe import run_command

LAB = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
SPANS = Tokenizer(LAB.alphabet, LAB.merges, pattern="superbpe")  # the same merges, on chunks thousands long
BYTES = Tokenizer.train(corpus() + " ünïcödé 🍪 текст", 500, byte_level=True, pattern="o200k")
TEXT = corpus()[:6000]

RECORDED_DIGEST = "525f5273ed97cc329df1d65ef7170c19433896ee3a9b7ce88dc8ecd1fb77e5d6"
"""sha256 of ``json.dumps([LAB.encode(TEXT, ...), SPANS.encode(TEXT, ...)])`` with dropout 0.1 and seed 2020:
4,371 IDs, recorded on CPython 3.10, 3.11, 3.12 and 3.13 alike."""


def merged_ids(tokenizer):
    """What a tokenizer's merges make, by IDs: (left ID, right ID) -> the merged token's ID."""
    ids = tokenizer.ids
    return {(ids[left], ids[right]): ids[left + right] for left, right in tokenizer.merges}


def random_case(rng):
    """A random character-level tokenizer, a few chunks of its letters (some long), and a dropout."""
    letters = "abcd"[:rng.randint(1, 4)]
    text = "".join(rng.choice(letters) for _ in range(rng.randint(2, 150)))
    tokenizer = Tokenizer.train(letters + text * 2, len(letters) + 1 + rng.randint(1, 40))
    chunks = ["".join(rng.choice(letters) for _ in range(rng.choice([0, 1, 5, 30, 33, 200]))) for _ in range(3)]
    return tokenizer, chunks, rng.choice([0.001, 0.1, 0.5, 0.9, 1.0, rng.random()])


class DefinitionTests(unittest.TestCase):
    """The fast encoder equals the definition, and its stream moves on exactly as the definition's does."""

    def check_cases(self, cases, seed):
        rng = random.Random(seed)
        for trial in range(cases):
            tokenizer, chunks, p = random_case(rng)
            stream = rng.randint(0, 2 ** 40)
            expected, theirs = random.Random(stream), Dropout(p, stream)
            for chunk in chunks:
                found = theirs.encode_chunk([tokenizer.ids[char] for char in chunk], merged_ids(tokenizer))
                self.assertEqual(tuple(tokenizer.vocab[token_id] for token_id in found),
                                 reference_encode(chunk, tokenizer.merge_rank, dropout=p, rng=expected), (p, chunk))
            self.assertEqual(theirs.random.random(), expected.random())  # the same number of draws were made

    def test_fast_equals_the_definition_on_random_inputs(self):
        self.check_cases(400, 1)

    def test_drawing_one_at_a_time_gives_the_same(self):
        with mock.patch.object(dropout_module, "BULK_DRAWS", False):
            self.check_cases(100, 2)
            ids = [tokenizer.encode(TEXT, dropout=0.1, seed=2020) for tokenizer in (LAB, SPANS)]
        self.assertEqual(hashlib.sha256(json.dumps(ids).encode()).hexdigest(), RECORDED_DIGEST)

    def test_the_same_seed_gives_the_recorded_ids_on_every_python(self):
        self.assertTrue(dropout_module.BULK_DRAWS)  # (so the bulk draws are what is checked here)
        ids = [tokenizer.encode(TEXT, dropout=0.1, seed=2020) for tokenizer in (LAB, SPANS)]
        self.assertEqual(sum(map(len, ids)), 4371)
        self.assertEqual(hashlib.sha256(json.dumps(ids).encode()).hexdigest(), RECORDED_DIGEST)

    @require_module("subword_nmt")
    def test_subword_nmt_gives_the_same_tokens_with_the_same_seed(self):
        from subword_nmt.apply_bpe import BPE

        rng = random.Random(3)
        for trial in range(60):
            letters = "abcde"[:rng.randint(2, 5)]
            text = "".join(rng.choice(letters) for _ in range(400))
            trained = Tokenizer.train(text, len(set(text)) + 1 + rng.randint(5, 60))
            ours = Tokenizer(sorted(set(trained.alphabet) | {"#"}), trained.merges)  # "#" ends each word, unmerged
            theirs = BPE(io.StringIO("#version: 0.2\n" + "".join(f"{left} {right}\n" for left, right in ours.merges)))
            words = ["".join(rng.choice(letters) for _ in range(rng.randint(0, 60))) + "#" for _ in range(20)]
            p, seed = rng.choice([0.05, 0.1, 0.3, 0.5, 0.9, 1.0]), rng.randint(0, 2 ** 32)
            random.seed(seed)  # subword-nmt draws from the random module's own generator
            segmented = " ".join(theirs.segment_tokens(words, dropout=p)).replace("@@ ", " ").split(" ")
            stream = Dropout(p, seed)
            expected = [ours.vocab[token_id] for word in words
                        for token_id in stream.encode_chunk([ours.ids[char] for char in word], merged_ids(ours))]
            self.assertEqual(segmented, expected, (p, words))


WORDS = "banana bandana ban nana ana mississippi miss sip sis pi unrelated relate late ted rel un related "
NAMED = Tokenizer.train(corpus() + WORDS * 3, 300)
"""Merges for a few words whose pairs repeat ("banana", "mississippi") or do not ("unrelated")."""

REPEATS = Tokenizer(["a", "b"], [("a", "a"), ("b", "b"), ("a", "bb"), ("b", "aa"), ("abb", "bb"), ("a", "b")])
"""Merges under which "abbaab" leaves used-up places in the queue, where Hugging Face's rule parts from the others."""

COMPETING = Tokenizer(sorted(set("unrelated")),
                      [("e", "d"), ("l", "a"), ("r", "e"), ("u", "n"), ("a", "t"), ("e", "l")])
"""Merges that compete for the letters of "unrelated" ("re" and "el" for its first "e", "la" and "at" for its "a"):
no pair repeats, yet a merge leaves a used-up place in the queue, where Hugging Face's rule parts from the others."""


class Scripted:
    """A random stream that gives the draws ``left_out()`` decides: 0 (below any p) or the largest ``random()``."""

    def __init__(self, left_out):
        self.left_out = left_out

    def random(self):
        return 0.0 if self.left_out() else 1 - 2.0 ** -53


def lab_distribution(tokenizer, word, p, rule):
    """Every segmentation the lab's encoder gives ``word`` by ``rule``, with its exact chance: each way its draws
    can fall, followed one by one (``dropout_rules.ways``)."""
    ids, merged = [tokenizer.ids[char] for char in word], merged_ids(tokenizer)

    def run(left_out):
        stream = Dropout(float(p), 0, rule)
        stream.random = Scripted(left_out)
        return tuple(tokenizer.vocab[token_id] for token_id in stream.encode_chunk(ids, merged))

    return dropout_rules.ways(run, p)


def total_variation(one, other):
    return sum(abs(one.get(key, 0) - other.get(key, 0)) for key in set(one) | set(other)) / 2


def chance_as_far(count, total, chance):
    """An upper bound on the chance that a binomial(total, chance) count lies at least as far from its mean as
    ``count`` does, on either side (Chernoff's: exp(-total * KL) for each side)."""
    distance = abs(count / total - chance)
    if distance == 0:
        return 1.0

    def side(share):
        if not 0 <= share <= 1:
            return 0.0
        divergence = sum(a * math.log(a / b) for a, b in ((share, chance), (1 - share, 1 - chance)) if a > 0)
        return math.exp(-total * divergence)

    return side(chance + distance) + side(chance - distance)


def unlikely_under(counts, exact, level=1e-6):
    """Whether the counts (segmentation -> times drawn) are less likely than ``level`` under ``exact``: an outcome it
    cannot give, or one count further from its mean than a chance of ``level`` shared among the outcomes allows
    (so a sample of ``exact`` itself is called unlikely with a chance below ``level``)."""
    total = sum(counts.values())
    if set(counts) - set(exact):
        return True
    return any(chance_as_far(counts.get(key, 0), total, float(chance)) < level / len(exact)
               for key, chance in exact.items())


class RuleTests(unittest.TestCase):
    """Each rule by name gives exactly the distribution of its source, restated."""

    def test_each_rule_gives_exactly_its_sources_distribution(self):
        cases = [(NAMED, "nanas"), (NAMED, "unrel"), (REPEATS, "aabba")]
        longer = [(REPEATS, "abbaab"), (COMPETING, "unrelated")] + [
            (NAMED, word) for word in ("banana", "missis", "mississippi", "unrelated")]
        checked = 0
        for rule in DROPOUT_RULES:  # (subword-nmt's draws every pair at every step: too many ways for long words)
            for tokenizer, word in cases + (longer if rule != "subword-nmt" else []):
                for p in (Fraction(1, 4), Fraction(1, 2)):
                    with self.subTest(rule=rule, word=word, p=p):
                        expected = dropout_rules.distribution(rule, tuple(word), tokenizer.merge_rank, p)
                        self.assertEqual(lab_distribution(tokenizer, word, p, rule), expected)
                        self.assertEqual(sum(expected.values()), 1)
                        checked += len(expected)
        self.assertGreater(checked, 150)

    def test_the_queued_rules_draw_for_draw_on_long_chunks(self):
        rng = random.Random(4)
        for trial in range(150):
            tokenizer, chunks, p = random_case(rng)
            rule, stream = rng.choice(["reference", "huggingface"]), rng.randint(0, 2 ** 40)
            theirs, ours = random.Random(stream), Dropout(p, stream, rule)
            for chunk in chunks:
                found = ours.encode_chunk([tokenizer.ids[char] for char in chunk], merged_ids(tokenizer))
                expected = dropout_rules.RULES[rule](tuple(chunk), tokenizer.merge_rank, lambda: theirs.random() < p)
                self.assertEqual(tuple(tokenizer.vocab[token_id] for token_id in found), expected, (rule, p, chunk))
            self.assertEqual(ours.random.random(), theirs.random())  # the same number of draws were made

    def test_where_the_rules_part(self):
        p = Fraction(1, 4)
        named = {word: {rule: dropout_rules.distribution(rule, tuple(word), NAMED.merge_rank, p)
                        for rule in DROPOUT_RULES} for word in ("banana", "mississippi", "unrelated")}
        # subword-nmt merges every kept place of a pair at once, the reference one place: they part where pairs repeat
        self.assertGreater(total_variation(named["mississippi"]["subword-nmt"], named["mississippi"]["reference"]), 0.1)
        self.assertGreater(total_variation(named["banana"]["subword-nmt"], named["banana"]["reference"]), 0.05)
        self.assertEqual(named["unrelated"]["subword-nmt"], named["unrelated"]["reference"])
        rng = random.Random(8)
        for _ in range(40):  # and only there: with no pair repeated, each merge is the first kept place in rank order
            letters = rng.sample("abcdefghij", 8)
            word = "".join(letters[:rng.randint(3, 8)])
            self.assertEqual(dropout_rules.distribution("subword-nmt", tuple(word), NAMED.merge_rank, p),
                             dropout_rules.distribution("reference", tuple(word), NAMED.merge_rank, p))
        # Hugging Face's spends draws on used-up places and brings the left-out ones back after them
        repeats = {rule: dropout_rules.distribution(rule, tuple("abbaab"), REPEATS.merge_rank, Fraction(1, 2))
                   for rule in DROPOUT_RULES}
        self.assertGreater(total_variation(repeats["huggingface"], repeats["reference"]), 0.15)
        self.assertGreater(total_variation(repeats["huggingface"], repeats["subword-nmt"]), 0.15)
        # even where no pair repeats, when merges compete for a token: subword-nmt's and the reference's are one there
        competing = {rule: dropout_rules.distribution(rule, tuple("unrelated"), COMPETING.merge_rank, p)
                     for rule in DROPOUT_RULES}
        self.assertEqual(competing["subword-nmt"], competing["reference"])
        self.assertGreater(total_variation(competing["huggingface"], competing["reference"]), 0.2)

    @require_module("tokenizers")
    def test_hugging_face_samples_its_rule(self):
        """Fails only when tokenizers' samples are less likely than one in a million under the restated rule."""
        from tokenizers import Tokenizer as HuggingFaceTokenizer, models

        for tokenizer, word in ((REPEATS, "abbaab"), (COMPETING, "unrelated"), (NAMED, "mississippi"),
                                (NAMED, "unrelated")):
            vocab = {token: token_id for token_id, token in enumerate(tokenizer.vocab)}
            theirs = HuggingFaceTokenizer(models.BPE(vocab=vocab, merges=tokenizer.merges, dropout=0.5,
                                                     unk_token=bpe_unk(tokenizer)))
            counts = Counter(tuple(encoding.tokens) for encoding in theirs.encode_batch([word] * 10000))
            exact = {rule: dropout_rules.distribution(rule, tuple(word), tokenizer.merge_rank, Fraction(1, 2))
                     for rule in DROPOUT_RULES}
            with self.subTest(word=word):
                self.assertFalse(unlikely_under(counts, exact["huggingface"]), counts)
                if tokenizer in (REPEATS, COMPETING):  # the test can tell the rules apart
                    self.assertTrue(unlikely_under(counts, exact["reference"]))
                    self.assertTrue(unlikely_under(counts, exact["subword-nmt"]))

    def test_the_bound_is_a_bound(self):
        # Exact binomial tails, summed, never exceed Chernoff's bound.
        for total, chance in ((40, 0.3), (100, 0.05), (25, 0.5)):
            pmf = [math.comb(total, k) * chance ** k * (1 - chance) ** (total - k) for k in range(total + 1)]
            for count in range(total + 1):
                far = abs(count - total * chance)
                exact = sum(mass for k, mass in enumerate(pmf) if abs(k - total * chance) >= far - 1e-9)
                self.assertLessEqual(exact, chance_as_far(count, total, chance) + 1e-12, (total, chance, count))


def bpe_unk(tokenizer):
    return tokenizer.vocab[0]


class PropertyTests(unittest.TestCase):
    """What the issue asks of ``encode(text, dropout=p, seed=s)``."""

    def test_no_dropout_is_encode_and_full_dropout_is_the_base_tokens(self):
        for tokenizer in (LAB, BYTES):
            plain = tokenizer.encode(TEXT)
            self.assertEqual(tokenizer.encode(TEXT, dropout=0.0), plain)
            self.assertEqual(tokenizer.encode(TEXT, dropout=0, seed=5), plain)
            base = [tokenizer.ids[token] for chunk in tokenizer.chunks(TEXT) for token in tokenizer.start_tokens(chunk)]
            self.assertEqual(tokenizer.encode(TEXT, dropout=1.0, seed=5), base)

    def test_the_same_seed_gives_the_same_ids_and_decoding_round_trips(self):
        text = TEXT + " ünïcödé 🍪 текст" * 3
        first = BYTES.encode(text, dropout=0.2, seed=7)
        self.assertEqual(BYTES.encode(text, dropout=0.2, seed=7), first)
        self.assertNotEqual(BYTES.encode(text, dropout=0.2, seed=8), first)
        for seed in range(20):
            self.assertEqual(BYTES.decode(BYTES.encode(text, dropout=0.3, seed=seed)), text)
            self.assertEqual(LAB.decode(LAB.encode(TEXT, dropout=0.3, seed=seed)), TEXT)

    def test_the_mean_token_count_rises_with_dropout(self):
        text = TEXT[:1500]
        means = [mean(len(BYTES.encode(text, dropout=p, seed=seed)) for seed in range(8))
                 for p in (0.0, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0)]
        self.assertEqual(means, sorted(set(means)))

    def test_the_chunk_cache_is_neither_read_nor_written(self):
        tokenizer = Tokenizer.from_json(BYTES.to_json())
        tokenizer.encode(TEXT, dropout=0.5, seed=1)
        self.assertEqual(len(tokenizer._model.cache), 0)
        plain = tokenizer.encode(TEXT)
        cached = dict(tokenizer._model.cache)
        self.assertNotEqual(tokenizer.encode(TEXT, dropout=0.5, seed=1), plain)
        self.assertEqual(dict(tokenizer._model.cache), cached)

    def test_special_tokens_are_kept_whole(self):
        tokenizer = Tokenizer(None, BYTES.merges, byte_level=True, special_tokens=["<|endoftext|>"])
        ids = tokenizer.encode("the park<|endoftext|>the park", allowed_special="all", dropout=1.0, seed=1)
        self.assertEqual(ids.count(tokenizer.special_tokens["<|endoftext|>"]), 1)
        self.assertEqual(len(ids), 17)

    def test_batches_give_text_i_the_seed_plus_i(self):
        texts = [TEXT[:300], TEXT[300:700], "", TEXT[:300]]
        batch = BYTES.encode_batch(texts, dropout=0.3, seed=40)
        self.assertEqual(batch, [BYTES.encode(text, dropout=0.3, seed=40 + i) for i, text in enumerate(texts)])
        self.assertNotEqual(batch[0], batch[3])
        self.assertEqual(BYTES.encode_batch(texts, dropout=0.3, seed=40, workers=2), batch)

    def test_each_rule_is_taken_by_encode_encode_batch_and_show(self):
        text = TEXT[:400] + " banana mississippi"
        for tokenizer in (LAB, BYTES, SPANS):
            merged = merged_ids(tokenizer)
            chunk_ids = [[tokenizer.ids[token] for token in tokenizer.start_tokens(chunk)]
                         for chunk in tokenizer.chunks(text)]
            for rule in DROPOUT_RULES:
                with self.subTest(rule=rule):
                    expected = list(Dropout(0.3, 11, rule).encode(chunk_ids, merged))  # one stream, chunk by chunk
                    self.assertEqual(tokenizer.encode(text, dropout=0.3, seed=11, dropout_rule=rule), expected)
                    self.assertEqual(tokenizer.encode_batch([text, text], dropout=0.3, seed=11, dropout_rule=rule),
                                     [expected, tokenizer.encode(text, dropout=0.3, seed=12, dropout_rule=rule)])
        by_rule = {rule: LAB.encode(text, dropout=0.3, seed=11, dropout_rule=rule) for rule in DROPOUT_RULES}
        self.assertEqual(by_rule["subword-nmt"], LAB.encode(text, dropout=0.3, seed=11))  # the default
        self.assertEqual(len(set(map(tuple, by_rule.values()))), 3)  # the same stream, drawn three ways
        path = os.path.join(ROOT, "tokenizer.json")
        status, output = run_command(["show", "-t", path, "--dropout", "0.3", "--seed", "11", "--dropout-rule",
                                      "reference", text])
        self.assertEqual(status, 0, output)
        tokens = len(by_rule["reference"])
        self.assertTrue(output.endswith(f", {tokens:,} tokens, {len(text) / tokens:.3f} characters per token, "
                                        "dropout 0.3 (seed 11, rule reference)\n"), output)

    def test_bad_arguments_are_refused_by_name(self):
        for bad in ("0.1", True, None, [0.1]):
            with self.assertRaisesRegex(TypeError, "dropout must be a float from 0 to 1"):
                LAB.encode("abc", dropout=bad, seed=1)
        for bad in (-0.1, 1.5, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "dropout must be from 0 to 1"):
                LAB.encode("abc", dropout=bad, seed=1)
        with self.assertRaisesRegex(ValueError, "dropout=0.1 needs a seed"):
            LAB.encode("abc", dropout=0.1)
        for bad in (-1, 1.5, "7", True):
            with self.assertRaisesRegex(TypeError, "seed must be a non-negative int"):
                LAB.encode("abc", dropout=0.1, seed=bad)
        with self.assertRaisesRegex(ValueError, "needs a seed"):
            LAB.encode_batch(["abc"] * 3, dropout=0.1, workers=2)
        for bad in ("hf", "subword_nmt", None):
            with self.assertRaisesRegex(ValueError, "dropout_rule must be 'subword-nmt' or 'reference' or "
                                                    "'huggingface', not"):
                LAB.encode("abc", dropout=0.1, seed=1, dropout_rule=bad)
            with self.assertRaisesRegex(ValueError, "dropout_rule must be"):
                LAB.encode_batch(["abc"] * 3, dropout=0.1, seed=1, dropout_rule=bad, workers=2)


class CommandLineTests(unittest.TestCase):

    def test_show_with_dropout(self):
        path = os.path.join(ROOT, "tokenizer.json")
        status, output = run_command(["show", "-t", path, "--dropout", "0.3", "--seed", "4", TEXT[:200]])
        self.assertEqual(status, 0, output)
        tokens = len(LAB.encode(TEXT[:200], dropout=0.3, seed=4))
        self.assertTrue(output.endswith(f", {tokens:,} tokens, {200 / tokens:.3f} characters per token, "
                                        "dropout 0.3 (seed 4)\n"), output)
        status, output = run_command(["show", "-t", path, "--dropout", "0.3", "mia"])
        self.assertEqual((status, output), (2, "bpe: --dropout needs --seed N, so that the same command gives the "
                                               "same tokens (see bpe show --help)\n"))
        status, output = run_command(["show", "-t", path, "--dropout", "1.5", "--seed", "1", "mia"])
        self.assertEqual(status, 2)
        self.assertIn("expected a number from 0 to 1, not '1.5'", output)


if __name__ == "__main__":
    unittest.main()
