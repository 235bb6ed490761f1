"""The open models' real tokenizer.json files: Llama 3, Qwen 3, DeepSeek V3, gpt-oss, and the Hugging Face forms of
Claude's, Gemini's and GPT-4o's tokenizers, exactly as Hugging Face.

Each file (``.models/NAME.json``, fetched by ``.ci/run``; see
``tests/clients.py``) is loaded once, by the lab and by ``tokenizers``
0.23.3, and both encode the same texts: a dozen scripts, code, digits,
whitespace runs, emoji with ZWJ, combining marks, added tokens' text, text
from every Unicode plane, one long chunk. The IDs of
``encode(text, add_special_tokens=False)`` and the decoded text must be the
same. The only difference allowed comes from Unicode versions: Hugging
Face's regex engine knows Unicode 16.0.0, the lab's tables 14.0.0, so a text
holding a code point 14.0.0 had not assigned may be cut differently, and
without those code points it must not be. Without the files or the client
these tests skip (and fail under ``CI=true``); ``tests/imported/test_pipeline.py``
holds small files of the same kinds that need neither. The unit suite holds
the four open models; Claude's, Gemini's and GPT-4o's forms take about 11 s
more to load (ours and theirs), so ``.ci/run`` holds them in a later step,
naming them in ``$BPE_LAB_OPEN_MODELS``.
"""

import json
import os
import random
import unittest

from bpe import Tokenizer
from bpelab.commands.drawing import emitted_whole, merges_one_at_a_time
from tests import ROOT
from tests.clients import MODEL_NAMES, installed, model_file, open_model, skip_or_fail
from tests.text.test_chunk_regex import random_text, unassigned_in_14
from tests.imported.test_safe_cuts import check_in_blocks

OPEN_MODELS = ("llama3", "qwen3", "deepseek_v3", "gptoss")
"""The files the unit suite holds to Hugging Face."""

HUGGING_FACE_FORMS = ("claude", "gemini", "gpt4o")
"""The Hugging Face forms of closed models' tokenizers, held in ``.ci/run``'s later step."""

NAMES = tuple(os.environ.get("BPE_LAB_OPEN_MODELS", ",".join(OPEN_MODELS)).split(","))
"""The files this run holds: ``$BPE_LAB_OPEN_MODELS`` (names from ``tests/clients.py``, comma-separated), else
``OPEN_MODELS``."""
DATA = os.path.join(ROOT, "tests", "data", "hf")


def setUpModule():
    global OURS, THEIRS, TEXTS
    unknown = [name for name in NAMES if name not in MODEL_NAMES]
    if unknown:
        raise ValueError(f"BPE_LAB_OPEN_MODELS names {', '.join(unknown)}: the model files are "
                         f"{', '.join(MODEL_NAMES)}")
    missing = [name for name in NAMES if model_file(name) is None]
    if missing or not installed("tokenizers"):
        skip_or_fail(f"the model files {', '.join(missing)} are missing" if missing else "tokenizers is not installed")
    import tokenizers

    OURS = {name: open_model(name) for name in NAMES}
    THEIRS = {name: tokenizers.Tokenizer.from_file(model_file(name)) for name in NAMES}
    with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as stream:
        TEXTS = [case["text"] for case in json.load(stream)["cases"]]
    rng = random.Random(2026)
    TEXTS += [random_text(rng, rng.randrange(1, 80)) for _ in range(300)]
    with open(os.path.join(ROOT, "bpe.py"),
              encoding="utf-8") as stream:
        TEXTS.append(stream.read())
    TEXTS += ["<|begin_of_text|>hi<|eot_id|>", "x<think>y</think><|im_start|>user", "s<｜User｜>t<|EOT|>",
              "<|start|>system<|message|>hi<|end|>", " việc HE'S 12345 HelloWorld's"]
    TEXTS += ["Hello 日本語 \u1c89\u1c8a!", "Kawi \U00011f04\U00011f05 ab", "\U00031350\U00031351 x", "ok \U0001fae8 ok",
              "Ahom \U0001171e\u0301", "Tangsa \U00016a70\U00016a71 1\U0001e4f2"]  # assigned after Unicode 14.0.0


def theirs(name, text):
    return THEIRS[name].encode(text, add_special_tokens=False).ids


def loaded(test, *names):
    """The lab's tokenizers of ``names``, or a skip of ``test`` when this run leaves one out (``NAMES``)."""
    left_out = [name for name in names if name not in OURS]
    if left_out:
        test.skipTest(f"BPE_LAB_OPEN_MODELS leaves out {', '.join(left_out)}")
    return tuple(OURS[name] for name in names)


class RealFileTests(unittest.TestCase):
    """Each file gives Hugging Face's IDs and text."""

    def test_the_same_ids_and_text_as_hugging_face(self):
        total = 0
        for name in NAMES:
            ours, differing = OURS[name], 0
            for text in TEXTS:
                with self.subTest(name=name, text=text[:40]):
                    ids = ours.encode(text)
                    if ids != theirs(name, text):  # only for a code point Unicode 14.0.0 had not assigned
                        differing += 1
                        self.assertTrue(any(map(unassigned_in_14, text)), "a difference without a reason")
                        kept = "".join(char for char in text if not unassigned_in_14(char))
                        self.assertEqual(ours.encode(kept), theirs(name, kept))
                    else:
                        self.assertEqual(ours.decode(ids), THEIRS[name].decode(ids))
                        self.assertEqual(ours.decode(ids, skip_special_tokens=False),
                                         THEIRS[name].decode(ids, skip_special_tokens=False))
            self.assertLess(differing, len(TEXTS) // 10, name)
            total += differing
        if set(OPEN_MODELS) <= set(NAMES):  # the texts do reach code points the two Unicode versions see differently
            self.assertGreater(total, 0)  # (in the four's regexes: the three forms cut none of the texts differently)

    def test_one_long_chunk_and_long_runs(self):
        rng = random.Random(7)
        letters = "".join(rng.choice("abcdefghij") for _ in range(50_000))
        for name in NAMES:
            for text in (letters, " " * 20_000 + "x", "1" * 30_000, "🙂" * 5_000):
                with self.subTest(name=name, text=text[:10]):
                    self.assertEqual(OURS[name].encode(text), theirs(name, text))

    def test_what_each_file_is_known_for(self):
        llama3, qwen3, deepseek, gptoss = loaded(self, *OPEN_MODELS)
        self.assertEqual(llama3.encode(" việc"), [100769])  # given whole by ignore_merges: the merges would not
        self.assertTrue(emitted_whole(llama3, " việc"))
        self.assertEqual(len(llama3.merges), 280147)
        self.assertEqual(llama3.encode("<|begin_of_text|>hi<|eot_id|>"), [128000, 6151, 128009])
        self.assertEqual(qwen3.encode("x<think>"), [87, 151667])  # not special, matched all the same
        self.assertEqual(qwen3.encode("e\u1abf\u0301"), [68, 157, 103, 123, 53839])  # NFC as of Unicode 9.0.0
        self.assertEqual(deepseek.encode("Hello 日本語"), [19923, 223, 88768])
        self.assertEqual(deepseek.encode("s<｜User｜>"), [85, 128803])
        self.assertEqual(gptoss.encode("HelloWorld's"), [13225, 13046, 885])
        self.assertEqual((len(gptoss.merges), len(gptoss)), (446189, 200019))
        self.assertEqual([merges_one_at_a_time(tokenizer) for tokenizer in (llama3, deepseek)], [True, False])
        self.assertEqual(llama3.apply_template([6151]), [6151])  # its post-processor adds no token

    def test_what_the_hugging_face_forms_are_known_for(self):
        claude, gemini, gpt4o = loaded(self, *HUGGING_FACE_FORMS)
        if model_file("gptoss") is None:
            skip_or_fail("the model file gptoss is missing")
        gptoss = open_model("gptoss")  # (loaded once: the four's run has it already)
        self.assertEqual(claude.encode("\ufb01ne"), claude.encode("fine"))  # NFKC first: the ligature is "fi"
        self.assertEqual(claude.encode("hello  world"), [9381, 225, 2253])  # GPT-2's regex in its ByteLevel step
        self.assertEqual(gemini.encode("日本語"), [62938])  # no pre-tokenizer: the text is one piece
        self.assertEqual(len(gemini), 256000)
        for text in TEXTS[::8]:  # GPT-4o's Split keeps only the matches (Removed, inverted): gpt-oss's pieces
            self.assertEqual(gpt4o.encode(text), gptoss.encode(text))


class FileTests(unittest.TestCase):
    """A format-3 copy and our Hugging Face export give the same IDs; a second save is byte-identical."""

    def test_llama_3_and_gpt_oss_count_a_file_block_by_block(self):
        for name, tokenizer in zip(("llama3", "gptoss"), loaded(self, "llama3", "gptoss")):
            with self.subTest(name=name):
                check_in_blocks(self, tokenizer)

    def test_a_format_3_copy(self):
        deepseek, = loaded(self, "deepseek_v3")
        body = deepseek.to_json()
        copy = Tokenizer.from_json(json.loads(json.dumps(body)))
        self.assertEqual(json.dumps(copy.to_json(), indent=1), json.dumps(body, indent=1))
        for text in TEXTS[::4]:
            self.assertEqual(copy.encode(text), deepseek.encode(text))

    def test_our_export_loads_in_hugging_face(self):
        import tokenizers

        llama3, = loaded(self, "llama3")
        exported = tokenizers.Tokenizer.from_str(json.dumps(llama3.to_huggingface()))
        for text in TEXTS[::4]:
            self.assertEqual(exported.encode(text, add_special_tokens=False).ids, llama3.encode(text))


if __name__ == "__main__":
    unittest.main()
