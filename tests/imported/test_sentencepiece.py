"""SentencePiece's kind of BPE (Llama 2, Gemma 3): characters, ``▁`` for spaces, byte fallback, as Hugging Face.

Small files built here need no client: their IDs must be what the
definitions give (the characters, or a missing one's ``<0xXX>`` bytes, then
``ranked.reference_encode_leftmost``), their text what the decoder's steps
give, and, with ``tokenizers`` installed, what that library gives. The real
files (``.models/llama2.json`` and ``gemma3.json``) are loaded once by the lab
and by ``tokenizers`` 0.23.3 and encode the texts of the open-models tests
(many scripts, code, new code points, random texts, long lines) to the same
IDs and text; a format-3 copy and our Hugging Face export of Llama 2 give
them too. Byte level against byte fallback: Llama 3 and Llama 2 on one
sentence, as docs/formats.md shows them.
"""

import json
import os
import random
import shlex
import unittest
from unittest import mock

from bpe import Tokenizer

from bpelab.commands.drawing import merge_tree
from bpelab.corpora.cuts import safe_cut
from bpelab.formats import official
from bpelab.imported.sentencepiece import decode_tokens, safe_cuts
from bpelab.merges.ranked import reference_encode_leftmost
from tests import ROOT
from tests.clients import installed, model_file, open_model, require_models, require_module, skip_or_fail
from tests import test_readme
from tests.text.test_chunk_regex import random_text
from tests.imported.test_safe_cuts import check_in_blocks

SPACE = "\N{LOWER ONE EIGHTH BLOCK}"
DATA = os.path.join(ROOT, "tests", "data", "hf")


def small_file(byte_tokens=range(256), decoder=None, fuse_unk=True):
    """A SentencePiece-style tokenizer.json: a few characters, merges that rebuild a token, byte tokens."""
    chars = ["<unk>", "<s>", SPACE, "a", "b", "c", "é"] + [f"<0x{byte:02X}>" for byte in byte_tokens]
    merges = [("a", "b"), (SPACE, "a"), ("ab", "a"), (SPACE, "ab"), (SPACE + "a", "b"), ("c", "c"), (SPACE, SPACE),
              ("b", SPACE)]
    vocab = {token: token_id for token_id, token in enumerate(chars + sorted({left + right for left, right in merges},
                                                                             key=[a + b for a, b in merges].index))}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[text], "content": text, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for text in ("<unk>", "<s>")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPACE}, {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}]},
        "pre_tokenizer": None, "post_processor": None,
        "decoder": decoder or {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPACE}, "content": " "}, {"type": "ByteFallback"},
            {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": fuse_unk, "byte_fallback": True, "vocab": vocab,
                  "merges": [f"{left} {right}" for left, right in merges]},
    }


def loaded(body):
    return Tokenizer.load_huggingface("small.json", raw=json.dumps(body).encode("utf-8"))


SMALL_TEXTS = ["abab", "ab aba  b", " cccc", "é€ab", "x", "a\tb", "", "<s>ab<s>", "ab ab ab ab " * 5, "ab🙂 ",
               "€€ d", "a b  c", "bb a"]


class SmallFileTests(unittest.TestCase):
    """The built files: the definitions' IDs, the decoder's rules, the refusals; and the library's IDs if here."""

    def test_ids_are_the_definitions(self):
        tokenizer = loaded(small_file())
        ranks = tokenizer.merge_rank
        rng = random.Random(5)
        texts = SMALL_TEXTS + ["".join(rng.choice("ab c€") for _ in range(rng.randrange(60))) for _ in range(200)]
        for text in texts:
            with self.subTest(text=text):
                expected = []
                for piece in text.split("<s>"):
                    if piece:
                        start = tokenizer.start_tokens(SPACE + piece.replace(" ", SPACE))
                        expected += [tokenizer.ids[token] for token in reference_encode_leftmost(start, ranks)]
                    expected.append(1)
                self.assertEqual(tokenizer.encode(text), expected[:-1])
        self.assertEqual(tokenizer.tokens("é€"), [SPACE, "é", "<0xE2>", "<0x82>", "<0xAC>"])
        self.assertEqual(tokenizer.tokens("aba"), [SPACE, "aba"])  # (ab, a) ranks before (▁, ab)

    def test_missing_bytes_become_unk(self):
        tokenizer = loaded(small_file(byte_tokens=[0xE2, 0x82]))  # € lacks <0xAC>, 🙂 every byte
        self.assertEqual(tokenizer.tokens("€🙂a"), [SPACE, "<unk>", "a"])  # one unk for the run (fuse_unk)
        self.assertEqual(loaded(small_file([], fuse_unk=False)).tokens("€🙂"), [SPACE, "<unk>", "<unk>"])

    def test_the_decoder_steps(self):
        tokenizer = loaded(small_file())
        self.assertEqual(tokenizer.decode(tokenizer.encode(" ab  é€")), " ab  é€")  # Strip takes the prepended one
        byte = tokenizer.ids
        self.assertEqual(tokenizer.decode([byte["<0x41>"], byte["<0xFF>"], byte["a"]]), "\ufffd\ufffda")  # whole run
        self.assertEqual(tokenizer.decode_bytes([byte["<0x41>"], byte["<0xFF>"], byte[SPACE + "a"]]), b"A\xff a")
        self.assertEqual(tokenizer.decode([1, byte["a"]], skip_special_tokens=False), "<s>a")
        metaspace = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "always", "split": True}
        self.assertEqual(loaded(small_file(decoder=metaspace)).decode(tokenizer.encode("ab a")), "ab a")
        self.assertEqual(decode_tokens(["<0x+F>", "<0X41>"], [{"step": "byte_fallback"}]), ["\x0f", "<0X41>"])

    def test_safe_cuts_never_split_a_token(self):
        cuts = safe_cuts(loaded(small_file()).ids)  # "b▁" is a token: no cut after b
        self.assertEqual(cuts.split(f"{SPACE}a{SPACE}{SPACE}c{SPACE}b{SPACE}a"), [f"{SPACE}a", f"{SPACE}{SPACE}c",
                                                                                 f"{SPACE}b{SPACE}a"])
        self.assertIsNone(safe_cuts({"a": 0}))

    def test_merge_trees_follow_the_first_merge_making_each_token(self):
        tokenizer = loaded(small_file())  # its IDs are not in merge order: the byte tokens come first
        tree = merge_tree(tokenizer, tokenizer.ids[SPACE + "ab"])
        self.assertEqual([(node["text"], node["merge"]) for node in tree["nodes"]],
                         [("␣ab", 4), ("␣", None), ("ab", 1), ("a", None), ("b", None)])
        self.assertIn("a byte, for byte fallback", merge_tree(tokenizer, tokenizer.ids["<0xE2>"])["reason"])
        self.assertIn("the unknown token", merge_tree(tokenizer, 0)["reason"])

    def test_format_3_and_refusals(self):
        tokenizer = loaded(small_file())
        body = tokenizer.to_json()
        self.assertEqual((body["level"], body["model"]["byte_fallback"]), ("characters", True))
        copy = Tokenizer.from_json(json.loads(json.dumps(body)))
        self.assertEqual(copy.to_json(), body)
        self.assertEqual([copy.encode(text) for text in SMALL_TEXTS], [tokenizer.encode(text) for text in SMALL_TEXTS])
        good = small_file()
        cases = [
            (dict(good, model=dict(good["model"], unk_token=None)), "without an unk_token drops"),
            (dict(good, model=dict(good["model"], unk_token="<u>")), "unk_token '<u>' is not a token"),
            (dict(good, decoder=None), "decoder is null"),
            (dict(good, decoder={"type": "CTC"}), "decoder 'CTC' is not supported at the character level"),
            (dict(good, normalizer={"type": "Replace", "pattern": {"Regex": " +"}, "content": SPACE}),
             "only a Replace of a string"),
            (dict(good, decoder={"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "sometimes"}),
             "'prepend_scheme' is 'sometimes'"),
            (dict(good, pre_tokenizer={"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "first"}),
             "Metaspace only as a prefix space"),
        ]
        for broken, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, message):
                loaded(broken)
        with self.assertRaisesRegex(ValueError, "lone surrogate"):
            tokenizer.encode("a\ud800")

    @require_module("tokenizers")
    def test_hugging_face_gives_the_same_ids_and_text(self):
        import tokenizers

        for body in (small_file(), small_file(byte_tokens=[0xE2, 0x82]), small_file([], fuse_unk=False)):
            theirs, ours = tokenizers.Tokenizer.from_str(json.dumps(body)), loaded(body)
            exported = tokenizers.Tokenizer.from_str(json.dumps(ours.to_huggingface()))
            for text in SMALL_TEXTS:
                with self.subTest(text=text):
                    ids = theirs.encode(text, add_special_tokens=False).ids
                    self.assertEqual(ours.encode(text), ids)
                    self.assertEqual(exported.encode(text, add_special_tokens=False).ids, ids)
                    self.assertEqual(ours.decode(ids), theirs.decode(ids))


def real_texts():
    """The texts of the open-models tests: the recorded cases, random texts from every plane, bpe.py, and more."""
    with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as stream:
        texts = [case["text"] for case in json.load(stream)["cases"]]
    rng = random.Random(19)
    texts += [random_text(rng, rng.randrange(1, 80)) for _ in range(150)]
    with open(os.path.join(os.path.dirname(DATA), "..", "..", "bpe.py"), encoding="utf-8") as stream:
        texts.append(stream.read())
    texts += ["<s>hi</s> <s>", "x ▁▁▁ y", " " * 32, " " * 40, " \t\t", "<mask>", "a  b", "\n\n\n x", "1> </2 > <",
              "<start_of_turn>user\nhi<end_of_turn>", "<unused5>x", "Kawi \U00011f04\U00011f05 ab", "\U00031350 x",
              "a\U0010fffd\U000e0001"]
    return texts


def setUpModule():
    global OURS, THEIRS
    OURS, THEIRS = {}, {}
    missing = [name for name in ("llama2", "gemma3") if model_file(name) is None]
    if missing or not installed("tokenizers"):
        return  # (the real-file tests skip, or fail under CI=true)
    import tokenizers

    for name in ("llama2", "gemma3"):
        OURS[name] = open_model(name)
        THEIRS[name] = tokenizers.Tokenizer.from_file(model_file(name))


@require_models("llama2", "gemma3")
@require_module("tokenizers")
class RealFileTests(unittest.TestCase):
    """Llama 2 and Gemma 3 give Hugging Face's IDs and text, whole lines and all."""

    def test_the_same_ids_and_text_as_hugging_face(self):
        rng = random.Random(3)
        letters = "".join(rng.choice("日本語のテキストab") for _ in range(10_000))  # no space: one chunk
        words = " ".join("".join(rng.choice("abcdeéß€") for _ in range(rng.randrange(1, 9))) for _ in range(2_000))
        for name in ("llama2", "gemma3"):
            for text in real_texts() + [letters, words, "🙂" * 500]:
                with self.subTest(name=name, text=text[:30]):
                    ids = OURS[name].encode(text)
                    self.assertEqual(ids, THEIRS[name].encode(text, add_special_tokens=False).ids)
                    for skip in (True, False):
                        self.assertEqual(OURS[name].decode(ids, skip_special_tokens=skip),
                                         THEIRS[name].decode(ids, skip_special_tokens=skip))

    def test_what_each_file_is_known_for(self):
        llama2, gemma3 = OURS["llama2"], OURS["gemma3"]
        self.assertEqual(llama2.encode("hi<s>hi"), [12014, 1, 12014])  # ▁ put before each piece between added tokens
        self.assertEqual(llama2.tokens("a\tb"), [SPACE + "a", "<0x09>", "b"])
        self.assertEqual(gemma3.encode(" " * 32), [167, 236743])  # one at a time; all at once gives [152, 152]
        self.assertEqual(gemma3.encode("\n\n"), [108])  # an added token that is not special
        self.assertEqual(gemma3.decode([4, 108]), "<mask>\n\n")  # kept by decode: not special
        self.assertEqual((len(llama2.merges), len(gemma3), gemma3.apply_template([2202])), (58980, 262145, [2, 2202]))

    def test_gemma_3_counts_a_file_block_by_block(self):
        check_in_blocks(self, OURS["gemma3"])  # (Llama 2 puts ▁ first: no cut keeps its IDs, so it reads files whole)
        self.assertIsNone(safe_cut(OURS["llama2"]))

    def test_a_format_3_copy_and_our_export(self):
        import tokenizers

        ours = OURS["llama2"]
        body = ours.to_json()
        copy = Tokenizer.from_json(json.loads(json.dumps(body)))
        self.assertEqual(json.dumps(copy.to_json(), indent=1), json.dumps(body, indent=1))
        exported = tokenizers.Tokenizer.from_str(json.dumps(ours.to_huggingface()))
        for text in real_texts()[::3]:
            with self.subTest(text=text[:30]):
                self.assertEqual(copy.encode(text), ours.encode(text))
                self.assertEqual(exported.encode(text, add_special_tokens=False).ids, ours.encode(text))


@require_models("llama3", "llama2")
class ByteLevelAgainstByteFallbackTests(unittest.TestCase):
    """One sentence, two ways never to meet an unknown character: every text as bytes, or bytes only where needed."""

    SENTENCE = "Tbilisi თბილისი, ሰላም 🦒"

    def test_where_each_falls_back_to_bytes(self):
        if "llama2" not in OURS:
            skip_or_fail("tokenizers is not installed")
        byte_level, fallback = self.byte_level(), OURS["llama2"]
        for tokenizer in (byte_level, fallback):
            self.assertEqual(tokenizer.decode(tokenizer.encode(self.SENTENCE)), self.SENTENCE)
        # Byte fallback: a character is one token, or (only if the vocabulary lacks it) its bytes, each a token.
        missing = [char for char in self.SENTENCE if char not in fallback.ids and char != " "]
        self.assertEqual(missing, ["ሰ", "ላ", "🦒"])
        as_bytes = [token for token in fallback.tokens(self.SENTENCE) if token.startswith("<0x")]
        self.assertEqual(as_bytes, [f"<0x{byte:02X}>" for byte in "".join(missing).encode("utf-8")])
        self.assertFalse([pair for pair in fallback.merges if any(part.startswith("<0x") for part in pair)])
        # Byte level: every token is bytes, and a merge may stop inside a character (Georgian's, all three scripts').
        cut = [piece for piece in byte_level.token_texts(self.SENTENCE) if "\\x" in piece]
        self.assertIn("\\xe1\\x83", cut)  # the first two bytes of a Georgian letter, without the third
        self.assertEqual((len(byte_level.encode(self.SENTENCE)), len(fallback.encode(self.SENTENCE))), (31, 25))


    def test_the_docs_examples_print_what_they_show(self):
        """docs/formats.md's console blocks on the open models' files (tests/test_readme.py leaves them out)."""
        if "llama2" not in OURS:
            skip_or_fail("tokenizers is not installed")
        loaded = {".models/llama3.json": self.byte_level(), ".models/llama2.json": OURS["llama2"]}
        blocks = [test_readme.console_commands(body) for language, _, body, _ in
                  test_readme.fenced_blocks(test_readme.read(os.path.join(test_readme.DOCS, "formats.md")))
                  if language == "console" and ".models/" in body]
        self.assertEqual(len(blocks), 2)
        with mock.patch.object(official, "open_tokenizer", lambda cls, source: loaded[source]):
            for command, output in [command for block in blocks for command in block]:
                with self.subTest(command=command):
                    command, _, head = command.partition(" | head -")  # the one pipe these use
                    found = test_readme.run_command(shlex.split(command)[2:])
                    self.assertTrue(test_readme.lines_match(output, found[:int(head)] if head else found),
                                    f"`{command}` prints\n" + "\n".join(found))

    @classmethod
    def byte_level(cls):
        """Llama 3, loaded once for these tests."""
        if not hasattr(cls, "llama3"):
            cls.llama3 = open_model("llama3")
        return cls.llama3


if __name__ == "__main__":
    unittest.main()
