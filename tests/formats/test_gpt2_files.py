"""GPT-2's pair of files and course material's in-memory vocabulary (bpelab/formats/gpt2.py, bpelab/formats/in_memory.py).

The pair is held against ``tokenizers`` 0.23.3 reading the same files with
``ByteLevelBPETokenizer``: GPT-2's real vocabulary (the official ``gpt2``
encoding, written out as ``vocab.json`` + ``merges.txt``), and small pairs
trained by that library's own trainer in RoBERTa's order (special tokens
first). The in-memory form is held against the same models through their
other forms: lab-trained, tiktoken-loaded, imported from ``tokenizer.json``.
"""

import json
import os
import random
import tempfile
import unittest

from bpe import Tokenizer
from tests.clients import official_tokenizer, require_module, require_official
from tests.text.test_chunk_regex import random_text, unassigned_in_14
from tests import ROOT

HF_DATA = os.path.join(ROOT, "tests", "data", "hf")
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def corpus_lines():
    with open(os.path.join(ROOT, "corpus.txt"), encoding="utf-8") as stream:
        return stream.read().splitlines()


def texts(seed, count=150, specials=()):
    """Random text of every plane (without what Unicode 14.0.0 had not assigned), lines of the corpus, and
    special tokens' text now and then."""
    rng = random.Random(seed)
    found = [" Hello world", "it's 12345 ok\r\n\r\n", "\x1c\x1d a\x85b", "e\u0301 naïve café 你好 🙂👩‍👧"]
    found += rng.sample(corpus_lines(), 20)
    for _ in range(count):
        text = "".join(char for char in random_text(rng, rng.randrange(1, 60)) if not unassigned_in_14(char))
        if specials and rng.random() < 0.3:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(list(specials)) + text[at:]
        found.append(text)
    return found


class Folder(unittest.TestCase):
    """Each test gets a temporary folder; ``path(name)`` is a file in it."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def path(self, name):
        return os.path.join(self.folder.name, name)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        return self.path(name)


def roberta_like(folder, vocab_size=400):
    """vocab.json + merges.txt trained by tokenizers' own trainer: RoBERTa's special tokens first, then the bytes
    in its order, then the merges."""
    import tokenizers

    trained = tokenizers.ByteLevelBPETokenizer()
    text = corpus_lines()[:150] + ["naïve café 你好 🙂 12345 it's", "Привет мир"]
    trained.train_from_iterator(text, vocab_size=vocab_size, min_frequency=2, special_tokens=ROBERTA_SPECIALS,
                                show_progress=False)
    trained.save_model(folder)
    return os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt")


def hugging_face(vocab, merges, specials=(), **options):
    import tokenizers

    theirs = tokenizers.ByteLevelBPETokenizer(vocab, merges, **options)
    theirs.add_special_tokens(list(specials))
    return theirs


@require_module("tokenizers")
class PairAsHuggingFaceTests(Folder):
    """The IDs and text ``tokenizers`` gives for the same pair of files."""

    def check_same(self, ours, theirs, seed, specials=(), count=150):
        for text in texts(seed, count, specials):
            ids = theirs.encode(text).ids
            self.assertEqual(ours.encode(text, allowed_special="all"), ids, text)
            self.assertEqual(ours.decode(ids), theirs.decode(ids))

    def test_a_roberta_like_pair_with_and_without_prefix_space_and_specials(self):
        vocab, merges = roberta_like(self.folder.name)
        with open(merges, encoding="utf-8") as stream:
            self.assertTrue(stream.readline().startswith("#version"))
        with open(vocab, encoding="utf-8") as stream:
            self.assertEqual(list(json.load(stream))[:6], ROBERTA_SPECIALS + ["!"])
        for prefix in (False, True):
            ours = Tokenizer.load_vocab_merges(vocab, merges, add_prefix_space=prefix)
            self.check_same(ours, hugging_face(vocab, merges, add_prefix_space=prefix), prefix)
            ours = Tokenizer.load_vocab_merges(vocab, merges, add_prefix_space=prefix, special_tokens=ROBERTA_SPECIALS)
            self.assertEqual(ours.special_tokens, {text: ROBERTA_SPECIALS.index(text) for text in ROBERTA_SPECIALS})
            self.check_same(ours, hugging_face(vocab, merges, ROBERTA_SPECIALS, add_prefix_space=prefix), 2 + prefix,
                            ROBERTA_SPECIALS)

    def test_no_version_line_and_crlf_line_ends(self):
        vocab, merges = roberta_like(self.folder.name)
        with open(merges, encoding="utf-8") as stream:
            lines = stream.read().splitlines()[1:]
        bare = self.write("bare.txt", "\r\n".join(lines) + "\r\n")
        self.assertEqual(Tokenizer.load_vocab_merges(vocab, bare).merges, [tuple(line.split(" ")) for line in lines])
        self.check_same(Tokenizer.load_vocab_merges(vocab, bare), hugging_face(vocab, merges), 7)

    @require_official("gpt2")
    def test_gpt2s_real_pair(self):
        official = official_tokenizer("gpt2")
        vocab, merges = self.path("vocab.json"), self.path("merges.txt")
        official.save_vocab_merges(vocab, merges)
        ours = Tokenizer.load_vocab_merges(vocab, merges)
        self.assertIsNone(ours.pattern)  # GPT-2's ByteLevel regex, as tokenizers has it
        self.check_same(ours, hugging_face(vocab, merges), 11, count=80)
        # With the lab's pattern named, the files give back the official tokenizer itself, of the lab's kind.
        again = Tokenizer.load_vocab_merges(vocab, merges, special_tokens=["<|endoftext|>"], pattern="gpt2")
        self.assertIsNone(again.pipeline)
        self.assertEqual((again.vocab, again.merges, again.special_tokens),
                         (official.vocab, official.merges, official.special_tokens))


class PairTests(Folder):
    """Writing the pair, and refusing malformed files by name, entry and line."""

    def setUp(self):
        super().setUp()
        self.tok = Tokenizer.train(" ".join(corpus_lines()[:60]), 300, byte_level=True,
                                   special_tokens=["<|endoftext|>"])
        self.vocab, self.merges = self.path("vocab.json"), self.path("merges.txt")
        self.tok.save_vocab_merges(self.vocab, self.merges)

    def test_the_labs_tokenizer_round_trips(self):
        again = Tokenizer.load_vocab_merges(self.vocab, self.merges, special_tokens=["<|endoftext|>"], pattern="gpt2")
        self.assertEqual(again.to_json(), self.tok.to_json())
        with open(self.merges, encoding="utf-8") as stream:
            self.assertEqual(stream.readline(), "#version: 0.2\n")
        with open(self.vocab, encoding="utf-8") as stream:
            self.assertEqual(json.load(stream)["<|endoftext|>"], 300 - 1)
        plain = Tokenizer.load_vocab_merges(self.vocab, self.merges)
        self.assertEqual(plain.special_tokens, {})
        text = "mia has a red hat."
        self.assertEqual(plain.encode(text), self.tok.encode(text))

    def test_what_the_files_cannot_say_is_refused(self):
        with self.assertRaisesRegex(ValueError, "only a byte-level tokenizer"):
            Tokenizer.train("a b a b", 10).save_vocab_merges(self.vocab, self.merges)
        nfc = Tokenizer.load_huggingface(os.path.join(HF_DATA, "nfc.json"))
        with self.assertRaisesRegex(ValueError, "more than vocab.json and merges.txt can say; save it with"):
            nfc.save_vocab_merges(self.path("v2.json"), self.path("m2.txt"))
        self.assertFalse(os.path.exists(self.path("v2.json")))
        with self.assertRaisesRegex(ValueError, "one file"):
            self.tok.save_vocab_merges(self.vocab, self.vocab)
        with self.assertRaises(IsADirectoryError):
            self.tok.save_vocab_merges(self.folder.name, self.merges)

    def test_malformed_vocab_json(self):
        merges = self.merges
        for text, problem in [("[1, 2]", "expected a JSON object"), ('{"a": "1"}', "entry 'a': '1' is no ID"),
                              ('{"a": -1}', "entry 'a'"), ('{"a": 1, "b": 1}', "entries 'a' and 'b' share ID 1"),
                              ('{"a": 1,', "not valid JSON")]:
            path = self.write("vocab.json", text)
            with self.subTest(text), self.assertRaisesRegex(ValueError, "vocab.json.*" + problem.replace("(", "\\(")):
                Tokenizer.load_vocab_merges(path, merges)

    def test_malformed_merges_txt(self):
        with open(self.merges, encoding="utf-8") as stream:
            lines = stream.read().splitlines()
        for bad, number, problem in [("a b c", 4, "expected two tokens"), ("", 4, "expected two tokens"),
                                     ("a ", 4, "expected two tokens"), ("#version: 0.2", 4, "only the first line may be #version"),
                                     ("Ġzz qq", 4, "the merge 'Ġzz' 'qq' needs 'Ġzz'")]:
            path = self.write("merges.txt", "\n".join(lines[:3] + [bad] + lines[3:]) + "\n")
            with self.subTest(bad), self.assertRaisesRegex(ValueError, f"merges.txt'?: line {number}: {problem}"):
                Tokenizer.load_vocab_merges(self.vocab, path)
        path = self.write("merges.txt", "\n".join(lines[1:3] + ["Ġzz qq"]) + "\n")  # no #version: lines count from 1
        with self.assertRaisesRegex(ValueError, "line 3: the merge"):
            Tokenizer.load_vocab_merges(self.vocab, path)
        with open(self.path("merges.txt"), "wb") as stream:
            stream.write(b"#version: 0.2\n\xff\xfe\n")
        with self.assertRaisesRegex(ValueError, "not valid UTF-8"):
            Tokenizer.load_vocab_merges(self.vocab, self.path("merges.txt"))

    def test_special_tokens_must_be_entries_of_their_own(self):
        with self.assertRaisesRegex(ValueError, "'<pad>' is not an entry of"):
            Tokenizer.load_vocab_merges(self.vocab, self.merges, special_tokens=["<pad>"])
        with self.assertRaisesRegex(ValueError, "'a'.*which is a single byte"):
            Tokenizer.load_vocab_merges(self.vocab, self.merges, special_tokens=["a"])
        made = self.tok.vocab[256]
        with self.assertRaisesRegex(ValueError, f"{made!r}.*made by merge 0; a special token must be"):
            Tokenizer.load_vocab_merges(self.vocab, self.merges, special_tokens=[made])
        with self.assertRaisesRegex(TypeError, "special_tokens must be a list"):
            Tokenizer.load_vocab_merges(self.vocab, self.merges, special_tokens="<|endoftext|>")
        with self.assertRaisesRegex(TypeError, "add_prefix_space"):
            Tokenizer.load_vocab_merges(self.vocab, self.merges, add_prefix_space=1)
        with self.assertRaisesRegex(ValueError, "unknown pattern"):
            Tokenizer.load_vocab_merges(self.vocab, self.merges, pattern="gpt3")


class InMemoryTests(unittest.TestCase):
    """``from_bytes`` and ``to_bytes``: exact round trips, the same IDs as the model's other forms, refusals by name."""

    def check_round_trip(self, tok, pattern, seed, specials=(), given=None):
        vocab, merges, special_tokens = tok.to_bytes() if given is None else given
        self.assertTrue(all(type(value) is bytes for value in vocab.values()))
        shuffled = dict(random.Random(seed).sample(sorted(vocab.items()), len(vocab)))  # a dict in any order
        again = Tokenizer.from_bytes(shuffled, merges, special_tokens, pattern=pattern)
        self.assertEqual(again.to_bytes(), (vocab, merges, special_tokens))
        for text in texts(seed, 40, specials):
            self.assertEqual(again.encode(text, allowed_special="all"), tok.encode(text, allowed_special="all"), text)
        return again

    def test_lab_trained_tokenizers(self):
        text = " ".join(corpus_lines()[:80])
        for pattern in ("gpt2", "o200k"):
            tok = Tokenizer.train(text, 350, byte_level=True, pattern=pattern, special_tokens=["<|endoftext|>", "<x>"])
            again = self.check_round_trip(tok, pattern, 1, ["<|endoftext|>", "<x>"])
            self.assertEqual(again.to_json(), tok.to_json())  # the lab's kind again
        with self.assertRaisesRegex(ValueError, "only a byte-level tokenizer"):
            Tokenizer.train(text, 60).to_bytes()

    def test_a_tiktoken_loaded_tokenizer(self):
        tok = Tokenizer.train(" ".join(corpus_lines()[:80]), 320, byte_level=True, pattern="cl100k")
        ranks = tok.to_tiktoken()["mergeable_ranks"]
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "small.tiktoken")
            with open(path, "wb") as stream:
                order = list(ranks.items())
                random.Random(3).shuffle(order)  # any line order
                stream.write(b"".join(__import__("base64").b64encode(token) + b" %d\n" % rank for token, rank in order))
            loaded = Tokenizer.load_tiktoken(path, "cl100k", {"<|endoftext|>": 320})
        self.check_round_trip(loaded, "cl100k", 2, ["<|endoftext|>"])

    @require_official("gpt2")
    def test_gpt2s_order_where_byte_exclamation_mark_is_id_0(self):
        official = official_tokenizer("gpt2")
        vocab, merges, specials = official.to_bytes()
        self.assertEqual((vocab[0], vocab[256], merges[0], specials), (b"!", b" t", (b" ", b"t"), ["<|endoftext|>"]))
        self.assertEqual(vocab[50256], b"<|endoftext|>")
        self.check_round_trip(official, "gpt2", 3, specials, (vocab, merges, specials))

    def test_imported_models(self):
        for name in ("ranked", "nfc", "sequence", "steps"):  # Llama 3's, Qwen 3's, DeepSeek V3's kinds
            tok = Tokenizer.load_huggingface(os.path.join(HF_DATA, f"{name}.json"))
            vocab, merges, specials = tok.to_bytes()
            self.assertEqual(Tokenizer.from_bytes(vocab, merges, specials).to_bytes(), (vocab, merges, specials))
            self.assertEqual(specials, [token.content for token in tok.pipeline.added_tokens])

    @require_module("tokenizers")
    def test_roberta_order_special_tokens_first(self):
        with tempfile.TemporaryDirectory() as folder:
            vocab, merges = roberta_like(folder)
            imported = Tokenizer.load_vocab_merges(vocab, merges, special_tokens=ROBERTA_SPECIALS, pattern="gpt2")
        tok_vocab, tok_merges, specials = imported.to_bytes()
        self.assertEqual((tok_vocab[0], tok_vocab[4], specials), (b"<s>", b"<mask>", ROBERTA_SPECIALS))
        self.check_round_trip(imported, "gpt2", 5, ROBERTA_SPECIALS)
        # Course material appends special tokens that vocab lacks, at the next free IDs.
        more = Tokenizer.from_bytes(tok_vocab, tok_merges, ["<s>", "<|endoftext|>"])
        self.assertEqual(more.special_tokens, {"<s>": 0, "<|endoftext|>": len(tok_vocab)})

    def test_bad_forms_are_refused_by_name(self):
        vocab = {token_id: bytes([token_id]) for token_id in range(256)}
        vocab[256] = b"ab"
        merges = [(b"a", b"b")]
        self.assertEqual(Tokenizer.from_bytes(vocab, merges).encode("abc"), [256, 99])
        for bad_vocab, bad_merges, problem in [
            ({**vocab, "257": b"x"}, merges, "vocab has the key '257'; IDs must be ints"),
            ({**{key: value for key, value in vocab.items() if key != 1}, True: b"\x01"}, merges,
             "vocab has the key True"),
            ({**vocab, 257.0: b"x"}, merges, "vocab has the key 257.0"),
            ({**vocab, -1: b"x"}, merges, "vocab has the key -1"),
            ({**vocab, 257: "cd"}, merges, "vocab entry 257 is 'cd'; each token must be non-empty bytes"),
            ({**vocab, 257: b""}, merges, "vocab entry 257 is b''"),
            ({**vocab, 257: b"ab"}, merges, "vocab entries 256 and 257 are both b'ab'"),
            (vocab, [(b"a", b"c")], "merge 0 \\(b'a', b'c'\\) needs b'ac', which is not in vocab"),
            (vocab, [(b"a", "b")], "merge 0 is \\(b'a', 'b'\\); each merge must be a pair of bytes"),
            (vocab, [(b"a", b"b", b"c")], "merge 0 is"),
            ({token_id: value for token_id, value in vocab.items() if token_id != 7}, merges, "all 256 byte tokens"),
        ]:
            with self.subTest(problem), self.assertRaisesRegex(ValueError, problem):
                Tokenizer.from_bytes(bad_vocab, bad_merges)
        with self.assertRaisesRegex(TypeError, "vocab must be a dict"):
            Tokenizer.from_bytes(list(vocab.values()), merges)
        with self.assertRaisesRegex(TypeError, "merges must be a list"):
            Tokenizer.from_bytes(vocab, {(b"a", b"b"): 256})
        with self.assertRaisesRegex(TypeError, "special_tokens must be a list"):
            Tokenizer.from_bytes(vocab, merges, "<s>")
        with self.assertRaisesRegex(ValueError, "special token 'x' is given twice"):
            Tokenizer.from_bytes(vocab, merges, ["x", "x"])
        with self.assertRaisesRegex(ValueError, "special token b'x' must be a non-empty string"):
            Tokenizer.from_bytes(vocab, merges, [b"x"])
        with self.assertRaisesRegex(ValueError, "'ab' is vocab entry 256, which is made by merge 0"):
            Tokenizer.from_bytes(vocab, merges, ["ab"])
        with self.assertRaisesRegex(ValueError, "unknown pattern"):
            Tokenizer.from_bytes(vocab, merges, pattern="gpt-2")


if __name__ == "__main__":
    unittest.main()
