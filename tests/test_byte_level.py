"""The byte level: training and encoding on UTF-8 bytes, GPT-2's printable form, offsets and readable pieces."""

import random
import re
import unittest
from collections import Counter

import bpe
from bpelab.byte_level import SINGLE_BYTES
from bpe import UNK, Tokenizer, chunks, reference_encode, reference_train
from tests.lab_samples import BYTES, CORPUS, LAB, NEWER_THAN_PINNED, PLAIN_BYTES, SCRIPTS, random_corpus, random_unicode


class ByteLevelTests(unittest.TestCase):
    """Training and encoding on UTF-8 bytes."""

    def test_display_table(self):
        table = bpe.BYTE_TO_CHAR
        self.assertEqual(len(set(table)), 256)
        self.assertEqual((table[ord(" ")], table[ord("\n")], table[ord("a")]), ("Ġ", "Ċ", "a"))
        printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
        self.assertTrue(all(table[byte] == chr(byte) for byte in printable))
        others = [table[byte] for byte in range(256) if byte not in printable]
        self.assertEqual(others, [chr(0x100 + n) for n in range(68)])

    def test_base_is_the_256_bytes(self):
        self.assertEqual(BYTES.vocab[:256], bpe.BYTE_TO_CHAR)
        self.assertEqual(PLAIN_BYTES.encode("é"), [0xC3, 0xA9])
        self.assertNotIn(UNK, BYTES.vocab)
        with self.assertRaisesRegex(ValueError, "smaller than the 256 base tokens"):
            Tokenizer.train("abc", 255, byte_level=True)
        with self.assertRaisesRegex(ValueError, "smaller than the 257 base tokens"):
            Tokenizer.train("abc", 256, byte_level=True, special_tokens=["<s>"])

    def test_ties_break_on_bytes(self):
        # (b" ", b"c") sorts before (b"a", b"b") as bytes, though "Ġ" sorts after "a".
        tokenizer = Tokenizer.train("ab c ab c", 257, byte_level=True)
        self.assertEqual(tokenizer.merges, [("Ġ", "c")])

    def test_ascii_text_learns_the_character_level_merges(self):
        self.assertEqual(chunks(CORPUS, "gpt2"), chunks(CORPUS))
        byte_level = Tokenizer.train(CORPUS, 256 + 68, byte_level=True)
        as_text = [tuple(bpe.display_to_bytes(part).decode() for part in pair) for pair in byte_level.merges]
        self.assertEqual(as_text, LAB.merges)

    def test_worked_example(self):
        tokenizer = Tokenizer.train("the café baker bakes cakes, the café bakes soufflé", 261, byte_level=True)
        self.assertEqual(tokenizer.merges, [("a", "k"), ("ak", "e"), ("Ġ", "b"), ("Ġ", "c"), ("Ġb", "ake")])
        self.assertEqual(
            tokenizer.tokens("the maker baked cakes"),
            ["t", "h", "e", "Ġ", "m", "ake", "r", "Ġbake", "d", "Ġc", "ake", "s"],
        )

    def test_cafe_at_both_levels(self):
        self.assertEqual(LAB.tokens("café"), ["c", "a", UNK, UNK])
        english = Tokenizer.train(CORPUS, 256 + 68, byte_level=True)
        self.assertEqual(english.tokens("café"), ["c", "a", "f", "Ã", "©"])
        self.assertEqual(english.decode(english.encode("café")), "café")

    def test_round_trip_on_random_unicode(self):
        rng = random.Random(99)
        for _ in range(3000):
            text = random_unicode(rng, rng.randint(0, 40))
            self.assertEqual(BYTES.decode(BYTES.encode(text)), text)
        for text in list(SCRIPTS.values()) + [NEWER_THAN_PINNED]:
            self.assertEqual(BYTES.decode(BYTES.encode(text)), text)

    def test_decoding_a_cut_character(self):
        ids = PLAIN_BYTES.encode("é")
        self.assertEqual(PLAIN_BYTES.decode(ids[:1]), "\ufffd")
        self.assertEqual(PLAIN_BYTES.decode_bytes(ids[:1]), b"\xc3")
        self.assertEqual(BYTES.decode_bytes(BYTES.encode("naïve")), "naïve".encode())

    def test_lone_surrogates_become_replacement_characters(self):
        self.assertEqual(BYTES.encode("a\ud800b"), BYTES.encode("a\ufffdb"))
        self.assertEqual(BYTES.encode("\ud83d\ude00"), BYTES.encode("\U0001f600"))
        self.assertEqual(BYTES.decode(BYTES.encode("x\udfff")), "x\ufffd")

    def test_fast_encoder_matches_the_reference_at_the_byte_level(self):
        rng = random.Random(4)
        for _ in range(300):
            text = random_unicode(rng, 20) + rng.choice(list(SCRIPTS.values()))
            expected = []
            for chunk in BYTES.chunks(text):
                pieces = reference_encode(BYTES.start_tokens(chunk), BYTES.merge_rank)
                expected += [BYTES.ids[piece] for piece in pieces]
            self.assertEqual(BYTES.encode(text), expected)

    def test_byte_level_training_matches_the_reference(self):
        rng = random.Random(8)
        for trial in range(60):
            text = random_corpus(rng, 80) + rng.choice(list(SCRIPTS.values()))
            ties, min_count = bpe.TIE_RULES[trial % len(bpe.TIE_RULES)], 1 + trial % 2
            fast = Tokenizer.train(text, 256 + 40, byte_level=True, ties=ties, min_count=min_count)
            sequences = Counter(tuple(SINGLE_BYTES[b] for b in chunk.encode()) for chunk in chunks(text, "gpt2"))
            expected = [
                ((bpe.bytes_to_display(left), bpe.bytes_to_display(right)), count)
                for (left, right), count in reference_train(sequences, 40, ties=ties, min_count=min_count)
            ]
            self.assertEqual([(tuple(entry["pair"]), entry["count"]) for entry in fast.history], expected)

    def test_offsets_are_character_spans(self):
        text = "mia's café ☕ <|endoftext|> 👩‍👧 x\ud83d\ude00y\ud800"
        for tokenizer in (BYTES, LAB, Tokenizer.train(CORPUS, 100, special_tokens=["<|endoftext|>"])):
            triples = tokenizer.encode_with_offsets(text, allowed_special="all")
            self.assertEqual([token_id for token_id, _, _ in triples], tokenizer.encode(text, allowed_special="all"))
            covered = [start for _, start, _ in triples]
            self.assertEqual(covered, sorted(covered))
            self.assertEqual((triples[0][1], triples[-1][2]), (0, len(text)))
            for token_id, start, end in triples:
                if not tokenizer.byte_level:
                    self.assertEqual(end - start, len(tokenizer.decode([token_id])))
        coffee = [span for token_id, *span in BYTES.encode_with_offsets("a☕") if token_id != 97]
        self.assertEqual(coffee, [[1, 2]] * 3)  # each byte of the cup holds part of the one character
        self.assertEqual(BYTES.encode_with_offsets("\ud83d\ude00")[0][1:], (0, 2))

    def test_token_texts_are_the_text_each_token_stands_for(self):
        hebrew = "שלום עולם, שלום לכם"
        tokenizer = Tokenizer.train(hebrew * 20, 300, byte_level=True)
        self.assertEqual(tokenizer.tokens("שלום")[0][:2], "×©")  # GPT-2's display form is no help to a reader
        self.assertEqual(tokenizer.token_texts(hebrew), ["שלום", " עולם", ",", " שלום", " לכם"])
        bare = Tokenizer(None, [], byte_level=True)
        self.assertEqual(bare.token_texts("aש"), ["a", "\\xd7", "\\xa9"])  # a cut character's bytes, as show writes
        self.assertEqual(bare.token_texts("\\xd7"), ["\\\\", "x", "d", "7"])  # and a real backslash, never mistaken
        unknown = LAB.token_texts("café!")
        self.assertEqual((unknown, LAB.tokens("café!")), (["c", "a", "f", "é", "!"], ["c", "a", UNK, UNK, UNK]))
        text = "mia's café ☕ <|endoftext|> 👩\u200d👧 x"
        for tokenizer in (BYTES, LAB):
            texts = tokenizer.token_texts(text, allowed_special="all" if tokenizer is BYTES else ())
            self.assertEqual(len(texts), len(tokenizer.encode(text, allowed_special="all" if tokenizer is BYTES else ())))
            joined = re.sub(r"(?:\\x[0-9a-f]{2})+", lambda run: bytes.fromhex(run.group().replace("\\x", "")).decode(),
                            "".join(texts))
            self.assertEqual(joined, text)  # the pieces are the text, cut characters' bytes written as \xNN


if __name__ == "__main__":
    unittest.main()
