"""The fast engine against the definitions: the incremental trainer and the queued encoder, on random corpora and merge lists."""

import random
import unittest
from collections import Counter
from unittest import mock

import bpe
from bpelab.merges import engine
from bpelab.text import blocks
from bpe import Tokenizer, chunks, reference_encode, reference_train
from tests.lab_samples import CORPUS, random_corpus, random_merge_list, reference_ids


class FastEqualsReferenceTests(unittest.TestCase):
    """The incremental trainer and the queued encoder give exactly the simple algorithm's results."""

    def test_training_matches_the_reference_on_random_corpora(self):
        rng = random.Random(2026)
        for trial in range(200):
            text = random_corpus(rng)
            vocab_size = len(set(text)) + 1 + rng.randint(0, 80)
            ties, min_count = bpe.TIE_RULES[trial % len(bpe.TIE_RULES)], 1 + trial % 3
            with self.subTest(trial=trial, ties=ties, min_count=min_count):
                fast = Tokenizer.train(text, vocab_size, ties=ties, min_count=min_count)
                chunk_counts = Counter(tuple(chunk) for chunk in chunks(text))
                expected = reference_train(chunk_counts, vocab_size - len(set(text)) - 1, ties=ties,
                                           min_count=min_count)
                self.assertEqual([(tuple(e["pair"]), e["count"]) for e in fast.history], expected)
                self.assertEqual(fast.merges, [pair for pair, _ in expected])
                self.assertEqual(fast.ties, ties)
                probe = random_corpus(rng, words=40) + " caf\u00e9 ZZ\u00a0q"
                self.assertEqual(fast.encode(probe), reference_ids(fast, probe))

    def test_first_seen_ties_on_long_chunks_and_from_files_and_counts(self):
        rng = random.Random(77)
        text = "".join(rng.choice("abcab") for _ in range(3000)) + " " + "xyxyyx " * 30
        chunk_counts = Counter(tuple(chunk) for chunk in chunks(text))
        expected = reference_train(chunk_counts, 60, ties="first-seen")
        self.assertNotEqual(expected, reference_train(chunk_counts, 60))
        size = len(set(text)) + 1 + 60
        history = [(tuple(e["pair"]), e["count"]) for e in Tokenizer.train(text, size, ties="first-seen").history]
        self.assertEqual(history, expected)
        counted = Tokenizer.train_from_counts(dict(Counter(chunks(text))), size, ties="first-seen")
        self.assertEqual([(tuple(e["pair"]), e["count"]) for e in counted.history], expected)

    def test_pairs_seen_once_join_the_loop_only_when_the_rest_are_used_up(self):
        # The loop tracks pairs seen twice or more (engine.TRACKED_FROM); with min_count=1 it counts every pair
        # again once those are used up. Trained to the end, both phases give the definition's merges.
        rng = random.Random(40)
        counted_again = 0
        for trial in range(60):
            text = random_corpus(rng, words=60)
            counts = Counter(chunk.encode() if trial % 2 else tuple(chunk) for chunk in chunks(text))
            ties = bpe.TIE_RULES[trial % len(bpe.TIE_RULES)]
            with self.subTest(trial=trial, ties=ties), \
                    mock.patch.object(engine, "index_pairs", wraps=engine.index_pairs) as tracked:
                fast = engine.train_merges(counts, 10 ** 4, ties=ties, min_count=1)
                as_tokens = {tuple(bytes([byte]) for byte in chunk) if isinstance(chunk, bytes) else chunk: count
                             for chunk, count in counts.items()}
                self.assertEqual(fast, reference_train(as_tokens, 10 ** 4, ties=ties, min_count=1))
                counted_again += tracked.call_count == 2
                self.assertLessEqual(tracked.call_count, 2)
        self.assertGreater(counted_again, 50)

    def test_the_labs_own_counts_are_let_go_and_a_callers_kept(self):
        text = "the cat sat on the mat, the end " * 5
        heard = []
        trained = Tokenizer.train(text, 60, on_counts=heard.append)
        self.assertEqual(heard[0], {})  # emptied once coded: the merge loop holds the chunks once
        counts = Counter(chunks(text))
        kept = dict(counts)
        self.assertEqual(Tokenizer.train_from_counts(counts, 60).merges, trained.merges)
        self.assertEqual(counts, kept)

    def test_training_matches_the_reference_on_the_corpus(self):
        chunk_counts = Counter(tuple(chunk) for chunk in chunks(CORPUS))
        expected = reference_train(chunk_counts, 81)
        self.assertEqual([(tuple(e["pair"]), e["count"]) for e in Tokenizer.train(CORPUS, 128).history], expected)

    def test_encoding_matches_the_reference_on_hand_made_merge_lists(self):
        rng = random.Random(7)
        for trial in range(400):
            alphabet, merges = random_merge_list(rng)
            tokenizer = Tokenizer(alphabet, merges)
            text = "".join(rng.choice("abcd e") for _ in range(rng.randint(0, 80)))
            with self.subTest(alphabet=alphabet, merges=merges, text=text):
                self.assertEqual(tokenizer.encode(text), reference_ids(tokenizer, text))

    def test_long_chunk_matches_the_reference(self):
        rng = random.Random(3)
        letters = "".join(rng.choice("abcde") for _ in range(20000))
        tokenizer = Tokenizer.train(" ".join(letters[i:i + 9] for i in range(0, 20000, 9)), 300)
        chunk = "".join(rng.choice("abcde") for _ in range(3000))
        self.assertEqual(tokenizer.encode(chunk), reference_ids(tokenizer, chunk))
        self.assertEqual(tokenizer.decode(tokenizer.encode(chunk)), chunk)

    def test_long_chunks_cut_where_no_token_spans_match_the_reference(self):
        rng = random.Random(31)
        words = " ".join(rng.choice(["abc", "bca", "cab", "ddd", "ad"]) for _ in range(3000))
        for byte_level in (False, True):
            tokenizer = Tokenizer.train(words, (256 if byte_level else 5) + 40, byte_level=byte_level)
            for _ in range(10):  # "x" is in no merge; "da", "ac", "cc" and others are in none either
                letters = "abcdx\u00e9" if byte_level else "abcdx"
                chunk = "".join(rng.choice(letters) for _ in range(rng.randint(33, 1000)))
                pieces = reference_encode(tokenizer.start_tokens(chunk), tokenizer.merge_rank)
                self.assertEqual(tokenizer.encode(chunk), [tokenizer.ids[piece] for piece in pieces])
        for _ in range(300):
            alphabet, merges = random_merge_list(rng)
            tokenizer = Tokenizer(alphabet, merges)
            letters = [char for char in alphabet if char != " "] + ["e"]  # "e" is never in the alphabet: <unk>
            chunk = "".join(rng.choice(letters) for _ in range(rng.randint(33, 200)))
            with self.subTest(alphabet=alphabet, merges=merges, chunk=chunk):
                self.assertEqual(tokenizer.encode(chunk), reference_ids(tokenizer, chunk))

    def test_cache_stays_bounded(self):
        tokenizer = Tokenizer.train(CORPUS, 96)
        letters = "abcdeghik"
        words = " ".join(
            letters[number % 9] + letters[number // 9 % 9] + letters[number // 81 % 9] + letters[number // 729]
            for number in range(5000)
        )
        with mock.patch.object(engine, "CACHE_LIMIT", 100), mock.patch.object(blocks, "BLOCK_SIZE", 500):
            tokenizer.encode(words)
            self.assertLessEqual(len(tokenizer._model.cache), 100 + 500)
            self.assertEqual(tokenizer.decode(tokenizer.encode(words)), words)


if __name__ == "__main__":
    unittest.main()
