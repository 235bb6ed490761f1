"""Offsets: ``encode_with_offsets(text, unit="bytes")`` partitions the text's UTF-8, and agrees with Hugging Face's.

Hugging Face gives character offsets (``trim_offsets=False``), and they are
not a partition: a byte token holds its whole character's span, Llama 2's
prepended ``▁`` is given the first character, and where Qwen 3's NFC
composes ``e`` + U+0301 the composed character is given the ``e`` alone.
The lab's byte spans are a partition, and held to Hugging Face's on every
model, token by token:

- a span that starts and ends between characters, over text the tokenizer
  kept as it was, is Hugging Face's span in bytes; a span inside a
  character (or over part of one) lies within Hugging Face's;
- a span over text a normalizer changed holds all of Hugging Face's span
  (the changed text belongs whole to the token holding its first byte), or
  where one character became several tokens (NFKC's ``Ⅻ``, ``XII``, in
  Claude's form) lies within it;
- an empty span is a space or ``▁`` the tokenizer added, or the rest of a
  character a normalizer changed: it lies at or within Hugging Face's span,
  or Hugging Face's span lies within the changed token's before it (where
  NFC composes ``и`` + U+0308 and Hugging Face gives both bytes of ``ӥ`` the
  ``и`` alone).

The character spans are the byte spans widened to whole characters: equal
to Hugging Face's wherever the text was kept. Held on the six open models
(``.models/``), GPT-2's official files and their Hugging Face form, and the
lab's own kinds exported, on seeded random texts of every plane (combining
marks, emoji, byte fallback, special tokens); a later ``.ci/run`` step asks
for more texts (``BPE_LAB_OFFSET_TEXTS``) and adds the Hugging Face forms of
Claude's, Gemini's and GPT-4o's tokenizers (``BPE_LAB_OPEN_MODELS``).
"""

import json
import os
import unittest
from collections import Counter

from bpe import SpecialTokenInText, Tokenizer
from bpelab.byte_level import bytes_to_display
from bpelab.imported.pipeline import Pipeline
from tests.clients import (gpt2_hugging_face_form, official_tokenizer, open_model, require_models, require_module,
                           require_official, their_model)
from tests.formats.test_gpt2_files import texts

OFFSET_TEXTS = int(os.environ.get("BPE_LAB_OFFSET_TEXTS", "150"))
"""How many random texts each tokenizer is held to Hugging Face on; a later ``.ci/run`` step asks for 3,000."""

OPEN_MODELS = tuple(os.environ.get("BPE_LAB_OPEN_MODELS", "llama3,gptoss,qwen3,deepseek_v3,llama2,gemma3").split(","))
"""The real files held: the six open models, or those ``$BPE_LAB_OPEN_MODELS`` names (from ``tests/clients.py``)."""

EXTRA = ["e\u0301x", " x", "  a", "ab e\u0301\u0301 c", "\u0958x \u2000y", "a\u0308\u0323b", "\U0001f642", "\ufb01 fi",
         "\u0301", "a  b   c\n\n\td", "x\u00a0\u3000 y"]
"""Texts that normalizers, prefix spaces and byte tokens treat in their own ways."""


def byte_starts(text):
    """Where each character of ``text`` starts in its UTF-8 (and where the text ends)."""
    starts = [0]
    for char in text:
        starts.append(starts[-1] + len(char.encode("utf-8")))
    return starts


class Checker(unittest.TestCase):
    """Holds a tokenizer's offsets to its rules and to Hugging Face's, and counts how each token was held."""

    def check_partition(self, tokenizer, text, **options):
        """The byte spans partition the text's UTF-8 and the IDs are ``encode``'s; the character spans widen them."""
        spans = tokenizer.encode_with_offsets(text, unit="bytes", **options)
        ids = tokenizer.encode(text, **options)
        self.assertEqual([token_id for token_id, _, _ in spans], ids)
        ends = [0] + [end for _, _, end in spans]
        self.assertEqual([start for _, start, _ in spans], ends[:-1], text)
        self.assertEqual(ends[-1], len(text.encode("utf-8", "surrogatepass") if not tokenizer.byte_level else
                                       text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()))
        characters = tokenizer.encode_with_offsets(text, **options)
        self.assertEqual([token_id for token_id, _, _ in characters], ids)
        return spans, characters

    def check_like_hugging_face(self, ours, theirs, text, counts):
        encoding = theirs.encode(text, add_special_tokens=False)
        if encoding.ids != ours.encode(text, allowed_special="all"):
            counts["other IDs"] += 1  # (none here: the texts avoid what Unicode 14.0.0 had not assigned)
            return
        spans, characters = self.check_partition(ours, text, allowed_special="all")
        normalizes = bool(ours.pipeline and ours.pipeline.normalizer)
        data, starts = text.encode("utf-8"), byte_starts(text)
        between, changed = set(starts), None  # (changed: the span of the token before, if over changed text)
        for (token_id, start, end), (_, first, last), (low, high) in zip(spans, characters, encoding.offsets):
            hers = (starts[low], starts[high])
            where = (text, ours.vocab[token_id], (start, end), hers)
            if start == end:  # (after a changed character's first byte: Hugging Face's span may be that token's)
                self.assertTrue(normalizes or ours.add_prefix_space, where)
                self.assertTrue(hers[0] <= start <= hers[1] or changed and changed[0] <= hers[0] <= hers[1] <= changed[1],
                                where)
                counts["empty"] += 1
                continue
            changed = None
            if not self.spells(ours, token_id, data[start:end]):  # text the normalizer changed
                changed = (start, end)
                self.assertTrue(normalizes, where)
                self.assertTrue(start <= hers[0] and hers[1] <= end or hers[0] <= start and end <= hers[1], where)
                self.assertTrue(first <= low and high <= last or low <= first and last <= high, where)
                counts["normalized"] += 1
            elif start in between and end in between:
                self.assertEqual((start, end), hers, where)
                self.assertEqual((first, last), (low, high), where)
                counts["equal"] += 1
            else:
                self.assertTrue(hers[0] <= start and end <= hers[1], where)
                self.assertEqual((first, last), (low, high), where)
                counts["within"] += 1

    @staticmethod
    def spells(tokenizer, token_id, written):
        """Whether a token stands for the text its span holds: its bytes (but a space the tokenizer put first: a
        prefix space, Llama 2's prepended ▁), or it is unknown."""
        token = tokenizer.token_bytes(token_id)
        prefix = (tokenizer.add_prefix_space or tokenizer.pipeline and tokenizer.pipeline.normalizer) \
            and token.startswith(b" ")
        return written in (token, token[1:] if prefix else token) or token_id == tokenizer.describe()["unknown_id"]

    def check_texts(self, ours, theirs, seed, specials=()):
        counts = Counter()
        for text in texts(seed, OFFSET_TEXTS, specials) + EXTRA:
            self.check_like_hugging_face(ours, theirs, text, counts)
        self.assertGreater(counts["equal"], 20 * OFFSET_TEXTS // 10, counts)
        self.assertGreater(counts["within"] + counts["equal"], counts["empty"] + counts["normalized"], counts)
        return counts


class HuggingFaceTests(Checker):
    """Every model's spans, token by token, against Hugging Face ``tokenizers``' offsets."""

    @require_module("tokenizers")
    @require_models(*OPEN_MODELS)
    def test_the_open_models(self):
        for name in OPEN_MODELS:
            with self.subTest(model=name):
                ours = open_model(name)
                counts = self.check_texts(ours, their_model(name), name,
                                          sorted(ours.special_tokens)[:5])
                if name == "qwen3":  # NFC composes e + U+0301; U+2000 becomes U+2002, whose second byte spans nothing
                    self.assertTrue(counts["normalized"] and counts["empty"], counts)
                if name == "llama2":  # its prepended ▁ spans nothing
                    self.assertTrue(counts["empty"], counts)

    @require_module("tokenizers")
    @require_official("gpt2")
    def test_gpt2_in_its_hugging_face_form(self):
        form, theirs = gpt2_hugging_face_form()
        for kind, ours in (("official files", official_tokenizer("gpt2")), ("Hugging Face form", form)):
            with self.subTest(kind=kind):
                self.check_texts(ours, theirs, "gpt2", ["<|endoftext|>"])

    @require_module("tokenizers")
    def test_the_labs_own_kinds(self):
        from tokenizers import Tokenizer as HuggingFace

        text = "the café, the cat; 東京 🙂 e\u0301 naïve " * 3
        for tokenizer in (Tokenizer.train(text, 60), Tokenizer.train(text, 300, byte_level=True),
                          Tokenizer.train(text, 300, byte_level=True, add_prefix_space=True)):
            with self.subTest(byte_level=tokenizer.byte_level, prefix=tokenizer.add_prefix_space):
                theirs = HuggingFace.from_str(json.dumps(tokenizer.to_huggingface()))
                self.check_texts(tokenizer, theirs, 3)


class RuleTests(Checker):
    """What the spans are where Hugging Face has nothing to compare: special tokens, surrogates, bad units."""

    def test_a_prefix_space_spans_nothing(self):
        tokenizer = Tokenizer(None, [("Ġ", "a")], byte_level=True, add_prefix_space=True)
        self.assertEqual(tokenizer.encode_with_offsets("a b", unit="bytes"), [(256, 0, 1), (32, 1, 2), (98, 2, 3)])
        self.assertEqual(tokenizer.encode_with_offsets("b", unit="bytes"), [(32, 0, 0), (98, 0, 1)])
        self.assertEqual(tokenizer.encode_with_offsets("b"), [(32, 0, 0), (98, 0, 1)])

    def test_special_tokens_span_the_text_they_matched(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens={"<|a|>": 300, "<|also_a|>": 300})
        text = "é<|also_a|>x<|a|>"
        self.assertEqual(tokenizer.encode_with_offsets(text, unit="bytes", allowed_special="all"),
                         [(195, 0, 1), (169, 1, 2), (300, 2, 12), (120, 12, 13), (300, 13, 18)])
        self.assertEqual(tokenizer.encode_with_offsets(text, allowed_special="all")[2:],
                         [(300, 1, 11), (120, 11, 12), (300, 12, 17)])
        with self.assertRaises(SpecialTokenInText):
            tokenizer.encode_with_offsets(text, unit="bytes")

    def test_surrogates_count_as_the_byte_level_encodes_them(self):
        byte_level = Tokenizer(None, [], byte_level=True)
        text = "x\ud83d\ude00y\ud800"  # a pair (one character, 4 bytes) and a lone one (U+FFFD's 3 bytes)
        spans, characters = self.check_partition(byte_level, text)
        self.assertEqual([span[1:] for span in spans], [(at, at + 1) for at in range(9)])
        self.assertEqual(sorted({span[1:] for span in characters}), [(0, 1), (1, 3), (3, 4), (4, 5)])
        characters_only = Tokenizer(["x", "y"], [])
        self.assertEqual([span[1:] for span in characters_only.encode_with_offsets(text)],
                         [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
        with self.assertRaisesRegex(ValueError, "lone surrogate .* byte offsets count UTF-8 bytes"):
            characters_only.encode_with_offsets(text, unit="bytes")

    def test_a_wrong_unit_is_refused_before_any_work(self):
        tokenizer = Tokenizer(None, [], byte_level=True)
        for unit in ("byte", "chars", None, b"bytes"):
            with self.assertRaisesRegex(ValueError, "unit is .*; it must be 'characters' or 'bytes'"):
                tokenizer.encode_with_offsets(12345, unit=unit)  # (the text is not even looked at)

    def test_an_unknown_token_spans_its_run_and_one_out_of_order_is_refused(self):
        vocab = ["<unk>", "a", "b", "<0xC3>", "<0xA9>"]  # é falls back to bytes; ☕ (no byte tokens) is unknown
        pipeline = Pipeline(model={"ignore_merges": False, "byte_fallback": True, "unk_token": "<unk>",
                                   "fuse_unk": True}, decoder=[{"step": "byte_fallback"}, {"step": "fuse"}])
        tokenizer = Tokenizer(None, [], vocab=vocab, pipeline=pipeline)
        self.assertEqual(tokenizer.encode_with_offsets("a☕☕bé", unit="bytes"),
                         [(1, 0, 1), (0, 1, 7), (2, 7, 8), (3, 8, 9), (4, 9, 10)])
        self.assertEqual(tokenizer.encode("☕é"), [3, 4, 0])  # as Hugging Face: the unknown run's token comes last
        with self.assertRaisesRegex(ValueError, "does not spell the text"):
            tokenizer.encode_with_offsets("☕é", unit="bytes")


class TokenBytesTests(unittest.TestCase):
    """``token_bytes`` on every kind of vocabulary: what each ID stands for, as ``decode_bytes`` and the spans say."""

    def check_kind(self, tokenizer, text, **options):
        ids = tokenizer.encode(text, **options)
        self.assertEqual(b"".join(map(tokenizer.token_bytes, ids)), tokenizer.decode_bytes(ids))
        for token_id in set(ids):
            self.assertEqual(tokenizer.token_bytes(token_id), tokenizer.decode_bytes([token_id]))
        with self.assertRaisesRegex(ValueError, "outside the vocabulary"):
            tokenizer.token_bytes(len(tokenizer) + 5)
        with self.assertRaises(TypeError):
            tokenizer.token_bytes("a")
        return ids

    def test_the_labs_own_kinds(self):
        characters = Tokenizer.train("the cat, the hat", 20)
        self.assertEqual(characters.token_bytes(characters.token_to_id("".join(characters.merges[0]))),
                         "".join(characters.merges[0]).encode())
        self.assertEqual(characters.token_bytes(0), "\ufffd".encode())  # <unk> decodes to U+FFFD
        self.check_kind(characters, "the thé")
        byte_level = Tokenizer.train("the café " * 5, 270, byte_level=True, special_tokens=["<|end|>"])
        self.assertEqual(byte_level.token_bytes(0xC3), b"\xc3")  # half a character
        self.assertEqual(byte_level.token_bytes(byte_level.special_tokens["<|end|>"]), b"<|end|>")
        self.check_kind(byte_level, "café<|end|>", allowed_special="all")

    @require_official("gpt2")
    def test_official_vocabularies(self):
        gpt2 = official_tokenizer("gpt2")
        self.assertEqual(gpt2.token_bytes(50256), b"<|endoftext|>")
        self.assertEqual(gpt2.token_bytes(gpt2.token_to_id("Ġthe")), b" the")
        self.check_kind(gpt2, "café 🙂<|endoftext|>", allowed_special="all")

    def test_an_id_with_two_special_texts_gives_its_first(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens={"<|a|>": 300, "<|also_a|>": 300})
        self.assertEqual(tokenizer.token_bytes(300), b"<|a|>")
        self.assertEqual(tokenizer.encode("<|also_a|>", allowed_special="all"), [300])

    def test_imported_kinds(self):
        byte_level = Tokenizer(None, [("a", "b")], byte_level=True, vocab=[bytes_to_display(bytes([byte]))
                                                                          for byte in range(256)] + ["ab", "<｜U｜>"],
                               pipeline=Pipeline(added_tokens=[{"id": 257, "content": "<｜U｜>", "special": True,
                                                                "normalized": False, "lstrip": False, "rstrip": False,
                                                                "single_word": False}]))
        self.assertEqual(byte_level.token_bytes(257), "<｜U｜>".encode())  # its own UTF-8, not display characters
        self.assertEqual(byte_level.token_bytes(256), b"ab")
        self.check_kind(byte_level, "abé<｜U｜>")
        vocab = ["<unk>", "▁", "a", "▁a", "<0xC3>", "<0xA9>"]
        pipeline = Pipeline(normalizer=[{"step": "prepend", "text": "▁"}, {"step": "replace", "old": " ", "new": "▁"}],
                            model={"ignore_merges": False, "byte_fallback": True, "unk_token": "<unk>",
                                   "fuse_unk": True},
                            decoder=[{"step": "replace", "old": "▁", "new": " "}, {"step": "byte_fallback"},
                                     {"step": "fuse"}, {"step": "strip", "char": " ", "start": 1, "stop": 0}])
        characters = Tokenizer(None, [("▁", "a")], vocab=vocab, pipeline=pipeline)
        self.assertEqual((characters.token_bytes(3), characters.token_bytes(4)), (b" a", b"\xc3"))
        self.assertEqual(self.check_kind(characters, "a é☕"), [3, 1, 4, 5, 0])
        self.assertEqual(characters.encode_with_offsets("a é☕", unit="bytes"),
                         [(3, 0, 1), (1, 1, 2), (4, 2, 3), (5, 3, 4), (0, 4, 7)])


if __name__ == "__main__":
    unittest.main()
