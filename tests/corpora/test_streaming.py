"""``Tokenizer.encode_iterable`` (bpelab/corpora/streaming.py): lazily, exactly ``encode`` of the text joined.

Every kind of tokenizer with safe cuts is held against its own ``encode``
on random texts cut into pieces at random places (inside special tokens,
inside chunks of several code points, between ``\\r`` and ``\\n``, before
combining marks), with blocks made small so that every text is cut many
times. The buffering is measured in characters read ahead of the IDs given.
"""

import os
import random
import tempfile
import unittest
from unittest import mock

from bpe import SpecialTokenInText, Tokenizer
from bpelab.imported.sentencepiece import token_byte
from bpelab.text import blocks
from tests.clients import (gpt2_hugging_face_form, official_tokenizer, open_model, require_models, require_module,
                           require_official, their_model)
from tests.formats.test_gpt2_files import HF_DATA, ROBERTA_SPECIALS, corpus_lines, roberta_like, texts

TRICKY = ["a\r\n\r\nb", "e\u0301\u0308 x", "👩‍👩‍👧 🙂!", "  \t\n x", "it's 1234567 ", "<|endoftext|>", "x<|endoftext|>y",
          "\u00a0\u3000z", "<s></s>", "\n\n\n", "<a b> <a b>"]


def cut_anywhere(rng, text):
    """``text`` in pieces cut at random places, empty pieces among them."""
    cuts = sorted(rng.randrange(len(text) + 1) for _ in range(rng.randrange(0, 12)))
    return [text[start:end] for start, end in zip([0] + cuts, cuts + [len(text)])]


class Streamed(unittest.TestCase):

    def check_same(self, tok, seed, specials=(), block_size=40, **options):
        """Random texts and tricky ones, a few joined, in random pieces: the IDs ``encode`` gives for each whole.

        (A block is cut only where a special token could not span the cut
        with the block's text on both sides: here 40 characters hold that.)
        """
        rng = random.Random(seed)
        found = texts(seed, 60, specials) + TRICKY * 4
        rng.shuffle(found)
        cases = ["".join(found[at:at + 6]) for at in range(0, len(found), 6)]
        with mock.patch.object(blocks, "BLOCK_SIZE", block_size):
            for text in cases:
                expected = tok.encode(text, **options)
                for _ in range(4):
                    pieces = cut_anywhere(rng, text)
                    self.assertEqual(list(tok.encode_iterable(iter(pieces), **options)), expected, pieces)


class SameAsEncodeTests(Streamed):
    """Each kind of tokenizer gives what ``encode`` gives."""

    def test_the_labs_tokenizers_at_both_levels(self):
        text = " ".join(corpus_lines()[:80]) + " naïve café it's 2024\r\n"
        specials = ["<|endoftext|>", "<|1x|>"]
        self.check_same(Tokenizer.train(text, 120, special_tokens=specials), 1, specials, allowed_special="all")
        for pattern in ("gpt2", "o200k", "superbpe"):  # superbpe: cuts after digits, which special tokens may hold
            tok = Tokenizer.train(text, 320, byte_level=True, pattern=pattern, special_tokens=specials)
            self.check_same(tok, 2, specials, allowed_special="all")
            self.check_same(tok, 3, specials, disallowed_special=())
        prefixed = Tokenizer.train(text, 300, byte_level=True, add_prefix_space=True, special_tokens=specials)
        self.check_same(prefixed, 4, specials, allowed_special="all")

    @require_official("gpt2")
    def test_a_tiktoken_loaded_tokenizer(self):
        self.check_same(official_tokenizer("gpt2"), 5, ["<|endoftext|>"], allowed_special="all")

    @require_module("tokenizers")
    def test_imported_hugging_face_models(self):
        import tokenizers

        with tempfile.TemporaryDirectory() as folder:
            vocab, merges = roberta_like(folder)
            for prefix in (False, True):
                theirs = tokenizers.ByteLevelBPETokenizer(vocab, merges, add_prefix_space=prefix)
                theirs.add_special_tokens(ROBERTA_SPECIALS + ["<a b>"])
                theirs.add_tokens(["\n\n"])  # an added token with whitespace, not special (Gemma 3's kind)
                path = os.path.join(folder, "tokenizer.json")
                theirs.save(path)
                imported = Tokenizer.load_huggingface(path)
                self.assertIsNone(imported.pattern)  # GPT-2's ByteLevel regex
                self.check_same(imported, 6 + prefix, ROBERTA_SPECIALS + ["<a b>"])
                pair = Tokenizer.load_vocab_merges(vocab, merges, add_prefix_space=prefix,
                                                   special_tokens=ROBERTA_SPECIALS)
                self.check_same(pair, 8 + prefix, ROBERTA_SPECIALS)
        in_memory = Tokenizer.from_bytes(*pair.to_bytes(), pattern="cl100k")
        self.check_same(in_memory, 10, ROBERTA_SPECIALS)

    def test_a_pipeline_whose_cuts_are_proven_from_its_steps(self):
        ranked = Tokenizer.load_huggingface(os.path.join(HF_DATA, "ranked.json"))  # Llama 3's regex
        self.check_same(ranked, 11, [token.content for token in ranked.pipeline.added_tokens])

    def test_an_open_file(self):
        tok = Tokenizer.train(" ".join(corpus_lines()[:80]), 300, byte_level=True)
        text = "\r\n".join(corpus_lines()) + "\r\n"
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "text.txt")
            with open(path, "w", encoding="utf-8", newline="") as stream:
                stream.write(text)
            with open(path, encoding="utf-8", newline="") as stream, mock.patch.object(blocks, "BLOCK_SIZE", 512):
                self.assertEqual(list(tok.encode_iterable(stream)), tok.encode(text))


class MemoryAndRefusalTests(unittest.TestCase):
    """How far ahead it reads, what it must hold whole, and what it refuses."""

    def setUp(self):
        self.tok = Tokenizer.train(" ".join(corpus_lines()[:80]), 300, byte_level=True,
                                   special_tokens=["<|endoftext|>"])

    def read_ahead(self, pieces):
        """The most characters read from ``pieces`` beyond the text of the IDs given so far, and the IDs."""
        read = given = most = 0

        def source():
            nonlocal read
            for piece in pieces:
                read += len(piece)
                yield piece

        ids = []
        for token_id in self.tok.encode_iterable(source()):
            ids.append(token_id)
            given += len(self.tok.decode_bytes([token_id]))  # (ASCII text: one byte a character)
            most = max(most, read - given)
        return most, ids

    def test_a_few_blocks_ahead_however_long_the_stream(self):
        lines = corpus_lines() * 3
        with mock.patch.object(blocks, "BLOCK_SIZE", 1000):
            most, ids = self.read_ahead(line + "\n" for line in lines)
            self.assertLess(most, 3 * 1000)
            self.assertEqual(ids, self.tok.encode("".join(line + "\n" for line in lines)))

    def test_a_long_stretch_without_a_safe_cut_is_held_whole(self):
        run = "a" * 100_000  # one chunk for GPT-2's pattern: encode must see all of it
        pieces = corpus_lines()[:50] + [run] + corpus_lines()[:50]
        with mock.patch.object(blocks, "BLOCK_SIZE", 1000):
            most, ids = self.read_ahead(pieces)
        self.assertGreaterEqual(most, len(run))
        self.assertEqual(ids, self.tok.encode("".join(pieces)))

    def test_refusals_come_before_anything_is_read(self):
        def untouched():
            raise AssertionError("read")
            yield ""

        nfc = Tokenizer.load_huggingface(os.path.join(HF_DATA, "nfc.json"))  # NFC: no rule for its cuts
        with self.assertRaisesRegex(ValueError, "has none the lab can prove"):
            nfc.encode_iterable(untouched())
        with self.assertRaisesRegex(ValueError, "does not support dropout"):
            self.tok.encode_iterable(untouched(), dropout=0.1, seed=1)
        with self.assertRaisesRegex(TypeError, "pass \\[text\\], or use encode"):
            self.tok.encode_iterable("a text")
        with self.assertRaisesRegex(ValueError, "not a special token of this tokenizer"):
            self.tok.encode_iterable(untouched(), allowed_special={"<x>"})
        with self.assertRaisesRegex(TypeError, "item 1 is b'b'.*bytes"):
            list(self.tok.encode_iterable(["a", b"b"]))

    def test_a_disallowed_special_token_split_across_pieces(self):
        ids = self.tok.encode_iterable(["mia has a hat. <|endof", "text|> ok"])
        with self.assertRaises(SpecialTokenInText):
            list(ids)
        self.assertEqual(list(self.tok.encode_iterable(["mia <|endof", "text|> ok"], allowed_special="all")),
                         self.tok.encode("mia <|endoftext|> ok", allowed_special="all"))


if __name__ == "__main__":
    unittest.main()


DECODE_STREAM_SEQUENCES = int(os.environ.get("BPE_LAB_DECODE_STREAM_SEQUENCES", "500"))
"""How many random ID sequences the seven tokenizers decode as streams, in all; a later ``.ci/run`` step asks for
10,000."""

OPEN_MODELS = ("llama3", "gptoss", "qwen3", "deepseek_v3", "llama2", "gemma3")


def random_ids(rng, tokenizer, count, byte_tokens=True):
    """``count`` random ID sequences: ordinary IDs (byte tokens, so characters split, and byte fallback's <0xXX>
    unless told not to), special ones now and then, every ID one the vocabulary has."""
    used = [token_id for token_id, token in enumerate(tokenizer.vocab) if token is not None
            and (byte_tokens or token_byte(token) is None)]
    base = [tokenizer.ids[token] for token in tokenizer.alphabet if token in tokenizer.ids]
    bytes_ = [token_id for token_id in base if len(tokenizer.token_bytes(token_id)) == 1
              and (byte_tokens or token_byte(tokenizer.vocab[token_id]) is None)]
    specials = sorted(set(tokenizer.special_tokens.values()))
    pools = [pool for pool in (used, bytes_, specials) if pool]
    return [[rng.choice(rng.choice(pools)) for _ in range(rng.randint(1, 24))] for _ in range(count)]


def steps_of(step, ids):
    """What ``step`` gives for each ID, up to the first error (recorded as "error")."""
    found = []
    for token_id in ids:
        try:
            found.append(step(token_id))
        except Exception:  # (Hugging Face raises its own DecodeStreamError, the lab a ValueError)
            return found + ["error"]
    return found


class DecodeStreamTests(unittest.TestCase):
    """``Tokenizer.decode_stream``: step for step Hugging Face's ``DecodeStream``, and the steps join up to ``decode``."""

    def check_joined(self, tokenizer, sequences, skip):
        """The steps and ``finish()`` join up to ``decode``, wherever the window's text stays what it gave before (a
        byte-fallback run that turns invalid later makes Hugging Face's decoder take back a character: no stream can
        give that, and ``finish`` says so, as ``step`` does)."""
        joined = 0
        for ids in sequences:
            stream = tokenizer.decode_stream(skip_special_tokens=skip)
            steps = [stream.step(token_id) for token_id in ids]
            self.assertFalse([text for text in steps if text and text.endswith("\ufffd")], ids)
            try:
                rest = stream.finish()
            except ValueError as error:
                self.assertIn("cannot stream", str(error))
                continue
            self.assertEqual("".join(filter(None, steps)) + rest, tokenizer.decode(ids, skip_special_tokens=skip), ids)
            joined += 1
        self.assertGreater(joined, len(sequences) // 2)

    def check_like_hugging_face(self, ours, theirs, name):
        from tokenizers import decoders

        rng = random.Random(name)
        streamed, count = [], DECODE_STREAM_SEQUENCES // (len(OPEN_MODELS) + 1)
        for ids in random_ids(rng, ours, count):
            skip = rng.random() < 0.5
            mine, hers = ours.decode_stream(skip_special_tokens=skip), decoders.DecodeStream(skip_special_tokens=skip)
            steps = (steps_of(lambda token_id: mine.step(token_id), ids),
                     steps_of(lambda token_id: hers.step(theirs, token_id), ids))
            self.assertEqual(*steps, (name, ids))  # (a window that cannot stream is an error in both, at one step)
            if "error" not in steps[0] and not skip:
                streamed.append(ids)
        self.assertGreater(len(streamed), count // 4)
        # (A byte-fallback run can turn invalid after a byte of it was given: " " then "\xcf" decode to "��", so
        # Hugging Face's stream and decode part ways there; the join is held where no <0xXX> token is.)
        self.check_joined(ours, random_ids(rng, ours, max(20, count // 4), byte_tokens=False), False)

    @require_module("tokenizers")
    @require_models(*OPEN_MODELS)
    def test_the_open_models_step_as_hugging_face_does(self):
        for name in OPEN_MODELS:
            with self.subTest(model=name):
                self.check_like_hugging_face(open_model(name), their_model(name), name)

    @require_module("tokenizers")
    @require_official("gpt2")
    def test_gpt2_in_its_hugging_face_form(self):
        self.check_like_hugging_face(*gpt2_hugging_face_form(), "gpt2")

    def test_the_lab_kinds_join_up_and_start_after_given_ids(self):
        rng = random.Random(5)
        for tokenizer in (Tokenizer.train("the café, the cat; 東京 🙂" * 3, 40),
                          Tokenizer.train("the café, the cat; 東京 🙂" * 3, 300, byte_level=True,
                                          special_tokens=["<|end|>"])):
            self.check_joined(tokenizer, random_ids(rng, tokenizer, 100), None)
            stream = tokenizer.decode_stream(tokenizer.encode("the ca"))
            self.assertEqual("".join(filter(None, map(stream.step, tokenizer.encode("t")))) + stream.finish(), "t")
            self.assertIn(stream.step(tokenizer.encode("é")[:1]) or stream.finish(), ("é", "\ufffd"))

    def test_an_unknown_id_is_decodes_error_and_changes_nothing(self):
        tokenizer = Tokenizer(None, [], byte_level=True)
        stream = tokenizer.decode_stream()
        self.assertIsNone(stream.step(0xC3))
        with self.assertRaisesRegex(ValueError, "outside the vocabulary"):
            stream.step(256)
        with self.assertRaisesRegex(TypeError, "ids must hold ints"):
            stream.step("a")
        self.assertEqual(stream.step(0xA9), "é")
        with self.assertRaisesRegex(ValueError, "outside the vocabulary"):
            tokenizer.decode_stream([300])
