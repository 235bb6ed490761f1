"""PickyBPE: the lab's fast trainer equals its reference event for event, and encodes as that reference encodes.

The reference is github pchizhov/picky_bpe (not on PyPI), restated below
from its files: ``bpe_trainer.py`` (class ``BPE``: ``_merge_pair``,
``_merge_token_in_words``, ``_update_pairs_on_merge``, ``_remove_if_possible``,
``_update_pairs_on_remove``, ``fit``; commit 55f3cd7, 5 September 2024) with
``language.py`` (``Token``, ``Word``; commit afe8e18), and
``picky_tokenize.py`` (``BPEModel._encode_word_by_event_sequence``, which
gives what ``_encode_word_by_events`` gives; commit 4ddc0d0). The
restatement reads words as the lab's chunks, keeps every character (the
reference's ``coverage`` of 1) and, where the reference iterates a set of
words (in an order its objects' memory addresses decide), takes them in the
order first seen; it stops where the reference would index an empty counter.
"""

import json
import os
import random
import tempfile
import unittest
from collections import Counter

import bpe
from bpe import Tokenizer
from bpelab.byte_level import bytes_to_display
from bpelab.commands.drawing import merge_tree
from bpelab.merges.picky import PICKY_TIES, picky_events
from tests.in_process import run_here


class Token:
    """A vocabulary entry as ``language.py``'s ``Token`` keeps it: text, frequency, the parts of its first merge."""

    def __init__(self, text, freq, left=None, right=None):
        self.text, self.freq, self.left, self.right = text, freq, left, right
        self.present, self.atomic, self.words = True, left is None, set()  # words: the indexes of words holding it

    def walk(self):
        return [self] if self.atomic or self.present else self.left.walk() + self.right.walk()


class Word:
    """A distinct word (here a chunk) with its frequency, its tokens and its pairs' counts, as ``Word`` keeps them."""

    def __init__(self, index, tokens, freq):
        self.index, self.tokens, self.freq = index, tokens, freq
        self.recount()

    def recount(self):
        self.pairs = Counter()
        for pair in zip(self.tokens, self.tokens[1:]):
            self.pairs[pair] += self.freq
        for token in self.tokens:
            token.words.add(self.index)

    def merge(self, pair, new):
        merged, at = [], 0
        while at < len(self.tokens):
            if at + 1 < len(self.tokens) and (self.tokens[at], self.tokens[at + 1]) == pair:
                merged.append(new)
                at += 2
            else:
                merged.append(self.tokens[at])
                at += 1
        made = len(self.tokens) - len(merged)
        pair[0].words.discard(self.index)
        pair[1].words.discard(self.index)
        self.tokens = merged
        self.recount()
        return made * self.freq

    def split(self, token, pieces):
        self.tokens = [piece for old in self.tokens for piece in (pieces if old is token else [old])]
        self.recount()


def reference_picky(words, room, threshold):
    """``BPE.fit``'s events on ``words`` (``(tokens, freq)`` in the order first seen), until it grew by ``room``.

    ``("merge", (left, right), count)`` and ``("remove", token, split, count)``, as ``bpelab.merges.picky`` gives them.
    """
    by_text = {}
    for tokens, freq in words:
        for text in tokens:
            by_text.setdefault(text, Token(text, 0)).freq += freq
    table = [Word(index, [by_text[text] for text in tokens], freq) for index, (tokens, freq) in enumerate(words)]
    pairs = Counter()
    for word in table:
        pairs.update(word.pairs)
    events, growth = [], 0

    def remove_if_picky(token, merged):
        nonlocal growth
        if merged / (token.freq + merged) <= threshold or token.atomic:
            return
        token.present = False
        split = token.walk()
        growth -= 1
        for piece in split:
            piece.freq += token.freq
        for pair in zip(split, split[1:]):
            pairs[pair] += token.freq
        around = Counter()
        for index in sorted(token.words):
            word = table[index]
            around.update({pair: count for pair, count in word.pairs.items() if token in pair})
            word.split(token, split)
        for pair, count in around.items():
            if pair[0] is token:
                replaced = (split[-1], split[0]) if pair[1] is token else (split[-1], pair[1])
            else:
                replaced = (pair[0], split[0])
            pairs[replaced] += count
            pairs.pop(pair)
        events.append(("remove", token.text, [piece.text for piece in split], token.freq))
        token.freq, token.words = 0, set()

    while growth < room and pairs:
        pair = max(pairs, key=pairs.__getitem__)  # most_common(1): the first of the most frequent
        count = pairs.pop(pair)
        if count <= 0:
            break
        text = pair[0].text + pair[1].text
        new = by_text.get(text)
        if new is None:
            new = by_text[text] = Token(text, 0, pair[0], pair[1])
        new.present = True
        events.append(("merge", (pair[0].text, pair[1].text), count))
        merged, made = 0, Counter()
        for index in sorted(pair[0].words & pair[1].words):
            word = table[index]
            if pair in word.pairs:
                del word.pairs[pair]
                merged += word.merge(pair, new)
                made.update({other: count for other, count in word.pairs.items() if new in other})
        pairs.update(made)
        for other, count in made.items():
            if other[0] is new:
                replaced = (pair[1], pair[0]) if other[1] is new else (pair[1], other[1])
            else:
                replaced = (other[0], pair[0])
            if replaced in pairs:
                pairs[replaced] -= count
                if pairs[replaced] <= 0:
                    pairs.pop(replaced)
        new.freq += merged
        if pair[0] is pair[1]:
            pair[0].freq -= 2 * merged
            remove_if_picky(pair[0], merged)
        else:
            for token in pair:
                token.freq -= merged
                remove_if_picky(token, merged)
        growth += 1
    return events


def reference_encode(tokens, events, vocabulary):
    """``_encode_word_by_event_sequence``: a chunk that is a token of the vocabulary is itself, else the events
    replayed on its base tokens (``events`` as ``reference_picky`` gives them)."""
    if "".join(tokens) in vocabulary:
        return ["".join(tokens)]
    tokens = list(tokens)
    for event in events:
        if event[0] == "merge":
            tokens = list(bpe.merge_pair(tokens, event[1]))
        else:
            tokens = [piece for token in tokens for piece in (event[2] if token == event[1] else [token])]
    return tokens


WORDS = ["ab", "ba", "abc", "abab", "aab", "bba", "cab", "aaa", "bcb", "abcabc", "ca", "a", "b", "cc", "acb", "é",
         "aé", "1", "12", ",", ".."]
"""Words made of few characters, so that merges use up their parts and tokens are removed and made again."""


def random_text(rng):
    return "".join(rng.choice(WORDS) + rng.choice([" ", " ", "", "\n"]) for _ in range(rng.randint(1, 60)))


def base_tokens(chunk, byte_level):
    """A chunk as its base tokens: characters, or GPT-2's display characters of its bytes."""
    return tuple(bytes_to_display(chunk.encode("utf-8"))) if byte_level else tuple(chunk)


def shown_events(events, shown):
    """``picky_events``' events with their tokens written by ``shown`` (GPT-2's display form for bytes)."""
    return [(kind, tuple(map(shown, what)), *more) if kind == "merge" else
            (kind, shown(what), list(map(shown, more[0])), *more[1:]) for kind, what, *more in events]


class TrainingTests(unittest.TestCase):
    """The fast trainer equals the reference event for event; at a threshold of 1 or more it is plain BPE."""

    def test_random_corpora_event_for_event(self):
        rng = random.Random(39)
        events = removals = 0
        for trial in range(150):
            text, byte_level = random_text(rng), rng.random() < 0.4
            threshold, room = rng.choice([0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]), rng.randint(1, 50)
            counts = Counter(bpe.chunks(text, "gpt2" if byte_level else "lab"))
            with self.subTest(trial=trial, text=text, threshold=threshold, byte_level=byte_level):
                lab = picky_events({chunk.encode("utf-8") if byte_level else chunk: count
                                    for chunk, count in counts.items()}, room, threshold)
                expected = reference_picky([(base_tokens(chunk, byte_level), count) for chunk, count in counts.items()],
                                           room, threshold)
                self.assertEqual(shown_events(lab, bytes_to_display if byte_level else str), expected)
                events += len(lab)
                removals += sum(event[0] == "remove" for event in lab)
        self.assertGreater(events, 4000)  # (4,478 events, 1,177 of them removals)
        self.assertGreater(removals, 1000)

    def test_a_threshold_of_one_or_more_is_plain_bpe(self):
        rng = random.Random(3)
        for trial in range(40):
            text, ties = random_text(rng), rng.choice(PICKY_TIES[1:])
            size = len(set(text)) + 1 + rng.randint(1, 40)
            with self.subTest(trial=trial, ties=ties):
                picky = Tokenizer.train_picky(text, size, threshold=rng.choice([1, 1.5]), ties=ties)
                self.assertEqual(picky.removals, [])
                self.assertEqual(picky.merges, Tokenizer.train(text, size, ties=ties, min_count=1).merges)
                counts = Counter(bpe.chunks(text, "lab"))
                expected = reference_picky([(tuple(chunk), count) for chunk, count in counts.items()], size, 1.0)
                first_counted = Tokenizer.train_picky(text, size, threshold=1.0)
                self.assertEqual(first_counted.merges, [event[1] for event in expected][:len(first_counted.merges)])

    def test_the_tokenizer_holds_the_events_and_its_vocabulary_is_what_is_left(self):
        text = "ab ab ab abc abc abc abc abd " * 3
        tok = Tokenizer.train_picky(text, 10, threshold=0.5)
        self.assertEqual((len(tok), len(tok.merges), len(tok.removals)), (10, 7, 3))  # 5 base tokens + 7 - 3 + <unk>
        present = {}  # each merged token, in the order first made -> whether it is there at the end
        for entry in tok.history:
            present[entry.get("token", entry.get("removed"))] = "token" in entry
        self.assertEqual(tok.vocab[len(tok.alphabet) + 1:], [token for token, there in present.items() if there])
        self.assertEqual([entry["removed"] for entry in tok.history if "removed" in entry],
                         [token for _, token in tok.removals])
        heard = []
        again = Tokenizer.train_picky(text, 10, threshold=0.5, on_merge=lambda rank, entry: heard.append(rank))
        self.assertEqual(heard, list(range(len(tok.history))))
        self.assertEqual(again.history, tok.history)


class EncodingTests(unittest.TestCase):
    """A tokenizer with removals encodes as the reference's ``picky_tokenize.py`` does, and decodes back."""

    def test_random_texts_encode_as_the_reference_does_and_round_trip(self):
        rng = random.Random(5)
        chunks_checked = 0
        for trial in range(50):
            text, byte_level = random_text(rng), rng.random() < 0.4
            pattern = "gpt2" if byte_level else "lab"
            base = 256 if byte_level else len(set(text)) + 1
            tok = Tokenizer.train_picky(text, base + rng.randint(1, 40), threshold=rng.choice([0.4, 0.6, 0.8]),
                                        byte_level=byte_level)
            events = [(kind, tuple(entry["pair"]), entry["count"]) if kind == "merge" else
                      (kind, entry["removed"], entry["split"], entry["count"])
                      for entry in tok.history for kind in ["merge" if "pair" in entry else "remove"]]
            vocabulary = set(tok.vocab)
            others = [random_text(rng) for _ in range(3)]
            for sample in [text, *others]:
                if not byte_level:
                    sample = "".join(char for char in sample if char in tok.alphabet)
                with self.subTest(trial=trial, sample=sample):
                    expected = [piece for chunk in bpe.chunks(sample, pattern)
                                for piece in reference_encode(base_tokens(chunk, byte_level), events, vocabulary)]
                    ids = tok.encode(sample)
                    self.assertEqual([tok.vocab[token_id] for token_id in ids], expected)
                    self.assertEqual(tok.decode(ids), sample)
                    chunks_checked += len(bpe.chunks(sample, pattern))
        self.assertGreater(chunks_checked, 6000)  # (6,514)

    def test_a_long_chunk(self):
        tok = Tokenizer.train_picky("aab aab abab aab " * 4, 16, threshold=0.5)
        self.assertTrue(tok.removals)
        events = [(kind, tuple(entry["pair"]), entry["count"]) if kind == "merge" else
                  (kind, entry["removed"], entry["split"], entry["count"])
                  for entry in tok.history for kind in ["merge" if "pair" in entry else "remove"]]
        text = "aab" * 2_000 + "abab" * 1_000  # one chunk of 10,000 characters
        ids = tok.encode(text)
        self.assertEqual([tok.vocab[token_id] for token_id in ids], reference_encode(text, events, set(tok.vocab)))
        self.assertEqual(tok.decode(ids), text)

    def test_unknown_characters_and_special_tokens(self):
        tok = Tokenizer.train_picky("ab ab abc abc abc<|end|>", 12, threshold=0.5, special_tokens=["<|end|>"])
        ids = tok.encode("abz abc<|end|>", allowed_special="all")
        self.assertEqual(ids[-1], tok.special_tokens["<|end|>"])
        self.assertIn(0, ids)  # z is not in the alphabet
        self.assertEqual(tok.decode(ids), "ab\ufffd abc<|end|>")

    def test_a_special_tokens_id_among_the_tokens_left(self):
        tok = Tokenizer.train_picky("ab ab ab abc abc abc abc abd " * 3, 12, threshold=0.5)
        self.assertTrue(tok.removals)
        merged = len(tok.alphabet) + 1 + 1  # the second token left takes the special token's place
        moved = Tokenizer(tok.alphabet, tok.merges, special_tokens={"<s>": merged}, removals=tok.removals)
        self.assertEqual(moved.vocab, tok.vocab[:merged] + ["<s>"] + tok.vocab[merged:])
        text = "abd abc ab cab abcd"
        ids = moved.encode(text + "<s>", allowed_special="all")
        self.assertEqual([moved.vocab[token_id] for token_id in ids], tok.tokens(text) + ["<s>"])
        self.assertEqual(moved.decode(ids), text + "<s>")


class FileTests(unittest.TestCase):
    """Saved with its removals, loaded back the same; forms that hold merges only refuse it by name."""

    def setUp(self):
        self.tok = Tokenizer.train_picky("ab ab ab abc abc abc abc abd " * 3, 270, threshold=0.5, byte_level=True)
        self.assertTrue(self.tok.removals)

    def test_saved_and_loaded(self):
        body = self.tok.to_json()
        self.assertEqual((body["format_version"], body["removals"]), (2, [list(removal) for removal in self.tok.removals]))
        loaded = Tokenizer.from_json(json.loads(json.dumps(body)))
        self.assertEqual((loaded.vocab, loaded.merges, loaded.removals), (self.tok.vocab, self.tok.merges,
                                                                          self.tok.removals))
        text = "abd abc ab ba cab"
        self.assertEqual(loaded.encode(text), self.tok.encode(text))
        characters = Tokenizer.train_picky("ab ab ab abc abc abc abc", 12, threshold=0.5)
        self.assertEqual(characters.to_json()["format_version"], 2)  # format 1 has no removals

    def test_malformed_removals_are_refused(self):
        body = self.tok.to_json()
        for removals, message in [([[0, "ab"], [5]], "removal 1 is"), ([[99, "ab"]], "'after' must count the merges"),
                                  ([[1, "ab"], [0, "ab"]], "'after' must count the merges"),
                                  ([[0, "ab"]], "removes no merged token"), ([[1, "a"]], "removes no merged token"),
                                  ([[1, 7]], "its token must be a string")]:
            with self.subTest(removals=removals), self.assertRaisesRegex(ValueError, message):
                Tokenizer.from_json(dict(body, removals=removals))
        with self.assertRaisesRegex(ValueError, "uses 'ab', which is not a token at that point"):
            Tokenizer(["a", "b", "c"], [("a", "b"), ("ab", "c"), ("ab", "c")], removals=[(2, "ab")])

    def test_forms_without_removals_refuse_it(self):
        for write in (self.tok.to_huggingface, self.tok.to_tiktoken, self.tok.to_bytes):
            with self.subTest(write=write.__name__), self.assertRaisesRegex(ValueError, "removed tokens while it trained"):
                write()
        with tempfile.TemporaryDirectory() as folder, self.assertRaisesRegex(ValueError, "removed tokens"):
            self.tok.save_vocab_merges(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt"))
        with self.assertRaisesRegex(ValueError, "not supported for a PickyBPE tokenizer"):
            self.tok.encode("ab", dropout=0.5, seed=1)

    def test_the_command_line(self):
        with tempfile.TemporaryDirectory() as folder:
            path, out = os.path.join(folder, "text.txt"), os.path.join(folder, "picky.json")
            with open(path, "w", encoding="utf-8") as stream:
                stream.write("ab ab ab abc abc abc abc abd " * 3)
            result = run_here("train", path, "--vocab-size", "12", "--picky", "0.5", "--verbose", "-o", out,
                              text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("removed |", result.stdout)
            self.assertIn("tokens removed again", result.stdout)
            expected = Tokenizer.train_picky("ab ab ab abc abc abc abc abd " * 3, 12, threshold=0.5)
            self.assertEqual(Tokenizer.load(out).history, [])
            self.assertEqual((Tokenizer.load(out).merges, Tokenizer.load(out).removals),
                             (expected.merges, expected.removals))
            shown = run_here("show", "-t", out, "abd abc", text=True)
            self.assertEqual(shown.returncode, 0, shown.stderr)
            inspected = run_here("inspect", "-t", out, "--top", str(len(expected.merges)), text=True)
            self.assertEqual(inspected.returncode, 0, inspected.stderr)
            self.assertIn(f"{len(expected.removals)} removals (PickyBPE)", inspected.stdout)
            self.assertEqual(run_here("explain", "-t", out, "abd", text=True).returncode, 1)
            made = merge_tree(expected, len(expected) - 1)  # (no tree of merges shows removals)
            self.assertIn("PickyBPE", made["reason"])
            for refused in (["train", path, "--vocab-size", "12", "--picky", "0.5", "--ties", "huggingface", "-o", out],
                            ["train", path, "--vocab-size", "12", "--ties", "first-counted", "-o", out],
                            ["train", path, "--vocab-size", "12", "--picky", "0.5", "--superbpe", "3", "-o", out]):
                with self.subTest(refused=refused):
                    self.assertEqual(run_here(*refused, text=True).returncode, 2)


if __name__ == "__main__":
    unittest.main()
