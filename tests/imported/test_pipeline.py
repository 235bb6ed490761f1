"""Imported pipelines without the real files: small files built by Hugging Face, ranked merges, format 3, prefix spaces.

``tests/data/hf`` holds four small ``tokenizer.json`` files that ``tokenizers``
0.23.3 built, one per kind of real file, with the IDs and text it gave
(``tools/make_hf_test_files.py`` writes them). The lab must give the same
without the library; with it, the recorded IDs are checked to be still
the library's, and our own export of each file loads there with the same
IDs. The rest needs no client: Hugging Face's merge rule against its
definition on random tables, format 3's rules, added tokens, normalizing as
Unicode 9.0.0 does, and ``add_prefix_space`` in training and encoding.
"""

import json
import os
import random
import tempfile
import unicodedata
import unittest

import bpe
from bpe import Tokenizer, reference_encode
from bpelab.imported import pipeline
from bpelab.imported.added_tokens import AddedToken
from bpelab.imported.pipeline import Pipeline, normalize
from bpelab.merges import engine, ranked
from tests import ROOT
from tests.clients import require_module
from tests.in_process import run_here

DATA = os.path.join(ROOT, "tests", "data", "hf")
BUILT = ("ranked", "nfc", "sequence", "steps")


def setUpModule():
    global EXPECTED, LOADED
    with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as stream:
        EXPECTED = json.load(stream)
    LOADED = {name: Tokenizer.load_huggingface(os.path.join(DATA, f"{name}.json")) for name in BUILT}


class BuiltFileTests(unittest.TestCase):
    """The four small files give the IDs and text Hugging Face gave, and keep them through our files."""

    def test_ids_and_text_are_those_hugging_face_gave(self):
        for name in BUILT:
            tokenizer = LOADED[name]
            for case in EXPECTED["cases"]:
                with self.subTest(name=name, text=case["text"][:30]):
                    ids = tokenizer.encode(case["text"])
                    self.assertEqual(ids, case["ids"][name])
                    self.assertEqual(tokenizer.decode(ids), case["decoded"][name])
                    if "with_template" in case:
                        self.assertEqual(tokenizer.apply_template(ids), case["with_template"][name])

    def test_the_files_hold_what_they_are_for(self):
        from bpelab.commands.drawing import emitted_whole, merges_one_at_a_time

        ranked_kind = LOADED["ranked"]
        self.assertTrue(merges_one_at_a_time(ranked_kind))  # so the one-at-a-time engine runs
        self.assertEqual(ranked_kind.tokens("qzqz"), ["qzq", "z"])  # all occurrences at once would give qz qz
        self.assertEqual(reference_encode(["q", "z", "q", "z"], ranked_kind.merge_rank), ("qz", "qz"))
        self.assertTrue(emitted_whole(ranked_kind, " supercalifragilistic"))
        self.assertEqual(LOADED["nfc"].pipeline.normalizer, [{"step": "NFC"}])
        self.assertEqual(LOADED["nfc"].encode("<think>")[0], LOADED["nfc"].vocab.index("<think>"))
        sequence = LOADED["sequence"]
        self.assertEqual(list(sequence.special_tokens.values())[:3], [0, 1, 2])
        self.assertEqual(sequence.ids["!"], 3)  # the bytes after the special tokens
        self.assertFalse(merges_one_at_a_time(sequence))  # so the lab's own engine runs
        self.assertEqual([step["behavior"] for step in LOADED["steps"].pipeline.pre_tokenizer if step["step"] == "split"],
                         ["merged_with_previous", "merged_with_next", "removed", "contiguous", "isolated", "isolated"])

    def test_a_format_3_copy_encodes_alike_and_saves_byte_identical(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in BUILT:
                with self.subTest(name=name):
                    first, second = os.path.join(folder, "first.json"), os.path.join(folder, "second.json")
                    LOADED[name].save(first)
                    copy = Tokenizer.load(first)
                    copy.save(second)
                    with open(first, "rb") as one, open(second, "rb") as two:
                        self.assertEqual(one.read(), two.read())
                    self.assertEqual(copy.to_json()["format_version"], 3)
                    for case in EXPECTED["cases"]:
                        self.assertEqual(copy.encode(case["text"]), case["ids"][name])

    @require_module("tokenizers")
    def test_the_recorded_ids_are_still_the_librarys_and_our_export_loads_there(self):
        import tokenizers

        self.assertEqual(tokenizers.__version__, EXPECTED["tokenizers"])
        for name in BUILT:
            theirs = tokenizers.Tokenizer.from_file(os.path.join(DATA, f"{name}.json"))
            exported = tokenizers.Tokenizer.from_str(json.dumps(LOADED[name].to_huggingface()))
            for case in EXPECTED["cases"][::3]:
                with self.subTest(name=name, text=case["text"][:30]):
                    self.assertEqual(theirs.encode(case["text"], add_special_tokens=False).ids, case["ids"][name])
                    self.assertEqual(exported.encode(case["text"], add_special_tokens=False).ids, case["ids"][name])


class RankedMergeTests(unittest.TestCase):
    """Hugging Face's rule, one occurrence at a time: the fast encoder against its definition on random tables."""

    def random_table(self, rng, symbols="abc", merges=40, ordered=False):
        """A random merge table over ``symbols``: ranked pairs of tokens, which may rebuild a token."""
        tokens, table = list(symbols), {}
        while len(table) < merges:
            pair = (rng.choice(tokens), rng.choice(tokens))
            if pair in table or (ordered and pair[0] + pair[1] in tokens):
                continue
            table[pair] = len(table)
            if pair[0] + pair[1] not in tokens:
                tokens.append(pair[0] + pair[1])
        return tokens, table

    def test_the_fast_encoder_equals_the_definition_on_random_tables(self):
        rng = random.Random(18)
        for trial in range(150):
            tokens, merge_rank = self.random_table(rng)
            ids = {token: token_id for token_id, token in enumerate(tokens)}
            bits = len(tokens).bit_length()
            table = ranked.rank_table(list(merge_rank), ids, bits)
            for length in (1, 2, 5, 20, 33, 90):
                text = "".join(rng.choice("abc") for _ in range(length))
                expected = ranked.reference_encode_leftmost(text, merge_rank)
                with self.subTest(trial=trial, text=text):
                    self.assertEqual(ranked.encode_ranked([ids[char] for char in text], table, bits),
                                     [ids[token] for token in expected])

    def test_on_a_list_ordered_as_training_orders_it_the_lab_engine_is_exact(self):
        rng = random.Random(19)
        for trial in range(100):
            tokens, merge_rank = self.random_table(rng, ordered=True)
            ids = {token: token_id for token_id, token in enumerate(tokens)}
            bits = len(tokens).bit_length()
            self.assertTrue(ranked.is_lab_ordered(ranked.rank_table(list(merge_rank), ids, bits), bits))
            merged_id = {(ids[left], ids[right]): ids[left + right] for left, right in merge_rank}
            for length in (3, 40, 100):
                text = "".join(rng.choice("abc") for _ in range(length))
                expected = ranked.reference_encode_leftmost(text, merge_rank)
                self.assertEqual(reference_encode(text, merge_rank), expected)
                self.assertEqual(engine.encode_chunk([ids[char] for char in text], merged_id),
                                 [ids[token] for token in expected])

    def test_rebuilding_and_later_parts_are_told_apart(self):
        ids = {token: token_id for token_id, token in enumerate(["a", "b", "ab", "aba"])}
        bits = 3
        self.assertFalse(ranked.is_lab_ordered(ranked.rank_table([("ab", "a"), ("a", "b")], ids, bits), bits))
        self.assertTrue(ranked.is_lab_ordered(ranked.rank_table([("a", "b"), ("ab", "a")], ids, bits), bits))
        self.assertEqual(ranked.reference_encode_leftmost("abab", {("ab", "a"): 0, ("a", "b"): 1}), ("aba", "b"))


class NormalizationTests(unittest.TestCase):
    """Unicode 9.0.0's normal forms from any newer ``unicodedata``: characters assigned later are left alone."""

    def test_characters_unassigned_in_9_are_left_alone(self):
        self.assertEqual(normalize("NFC", "e\u1abf\u0301"), "e\u1abf\u0301")  # Python 3.11 gives é + U+1ABF
        self.assertEqual(normalize("NFKC", "\u32ff"), "\u32ff")  # Python gives 令和
        self.assertEqual(normalize("NFC", "\U00011935\U00011930"), "\U00011935\U00011930")  # Python: U+11938
        self.assertEqual(normalize("NFD", "é\u1abf"), "e\u0301\u1abf")  # and the text around them is normalized

    def test_elsewhere_it_is_unicodedata(self):
        rng = random.Random(9)
        assigned = [code for code in range(0x3000) if unicodedata.category(chr(code)) != "Cn"
                    and not pipeline.unassigned_in_9().match(chr(code))]
        for form in pipeline.UNICODE_FORMS:
            for _ in range(200):
                text = "".join(chr(rng.choice(assigned)) for _ in range(rng.randrange(1, 12)))
                self.assertEqual(normalize(form, text), unicodedata.normalize(form, text))

    @require_module("tokenizers")
    def test_it_equals_hugging_faces_normalizers(self):
        from tokenizers import normalizers

        codes = [code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF and code != 0x0A]
        dense = list(range(0xA0, 0x3400)) + list(range(0xF900, 0xFFF0)) + list(range(0x1D100, 0x1D800))
        rng = random.Random(4)
        marks = [code for code in range(0x300, 0x370)] + [0x1ABF, 0x1AC0, 0x0334, 0x0345, 0x3099, 0x1D165, 0x11930]
        texts = [chr(code) for code in codes[::29] + dense] + [chr(code) + "\u0334" for code in codes[::397]] + [
            chr(rng.choice(dense)) + "".join(chr(rng.choice(marks)) for _ in range(rng.randrange(1, 5)))
            for _ in range(3000)]
        for form in pipeline.UNICODE_FORMS:
            theirs = getattr(normalizers, form)().normalize_str("\n".join(texts)).split("\n")
            ours = normalize(form, "\n".join(texts)).split("\n")
            self.assertEqual(len(theirs), len(ours))
            wrong = [(text, mine, hers) for text, mine, hers in zip(texts, ours, theirs) if mine != hers]
            self.assertEqual(wrong[:3], [], form)


class FormatThreeTests(unittest.TestCase):
    """Format 3: every key required, unknown versions and malformed bodies refused, written only when needed."""

    def setUp(self):
        self.body = LOADED["sequence"].to_json()

    def refused(self, body, message):
        with self.assertRaisesRegex(ValueError, message):
            Tokenizer.from_json(body)

    def test_keys_are_required_and_in_order(self):
        self.assertEqual(list(self.body)[:4], ["format_version", "level", "vocab", "merges"])
        for key in list(self.body)[1:]:
            with self.subTest(key=key):
                self.refused({k: v for k, v in self.body.items() if k != key},
                             f"unsupported tokenizer format 3: missing key '{key}'")
        self.refused(dict(self.body, extra=1), "unsupported tokenizer format 3: unexpected key 'extra'")
        self.refused(dict(self.body, format_version=4), "unsupported tokenizer format 4")
        self.refused(dict(bpe.Tokenizer.train("ab ab ab", 30).to_json(), format_version=3),
                     "unsupported tokenizer format 3: missing key")

    def test_malformed_parts_are_named(self):
        body, steps = self.body, self.body["pre_tokenizer"]
        cases = [
            (dict(body, level="words"), "'level' is 'words'; it must be one of bytes, characters"),
            (dict(body, level="characters"), "decoder is .*bytes.*, which is for byte-level models"),
            (dict(body, merges=["a", "b", "c"]), "a flat list of tokens, two per merge .* not 3 items"),
            (dict(body, merges=["a", 2]), "not all strings"),
            (dict(body, merges=body["merges"] + body["merges"][:2]), "listed twice"),
            (dict(body, merges=["Ġ", "qqq"]), "needs 'qqq', which is not a token of the vocab"),
            (dict(body, vocab=body["vocab"] + ["!"]), "token '!' has two IDs"),
            (dict(body, vocab=body["vocab"][100:]), "needs all 256 byte tokens"),
            (dict(body, pre_tokenizer=[{"step": "whitespace"}]), "pre_tokenizer step 0 is .*the pre_tokenizer steps are"),
            (dict(body, pre_tokenizer=[dict(steps[0], behavior="around")]), "behavior is 'around'"),
            (dict(body, pre_tokenizer=[dict(steps[0], pattern={"regex": "(?<=ab)c"})]),
             "a look-behind at more than one character .* position 0"),
            (dict(body, pre_tokenizer=[dict(steps[0], pattern={"name": "llama"})]), "unknown pattern 'llama'"),
            (dict(body, normalizer=[{"step": "Lowercase"}]), "normalizer step 0"),
            (dict(body, model=dict(body["model"], byte_fallback=True)), "byte_fallback is True"),
            (dict(body, decoder=[]), "a byte-level model decodes with"),
            (dict(body, post_processor={"single": ["$A"]}), "post_processor is"),
            (dict(body, added_tokens=[dict(body["added_tokens"][0], rstrip=True)]), "sets rstrip"),
            (dict(body, added_tokens=[dict(body["added_tokens"][0], id=5)]), "has ID 5, but it is the model's token 0"),
        ]
        for broken, message in cases:
            with self.subTest(message=message):
                self.refused(broken, message)

    def test_our_own_kinds_keep_formats_1_and_2(self):
        self.assertEqual(Tokenizer.train("ab ab ab", 30).to_json()["format_version"], 1)
        self.assertEqual(Tokenizer.train("ab ab ab", 260, byte_level=True).to_json()["format_version"], 2)
        self.assertEqual(bpe.READABLE_FORMATS, (1, 2, 3))


class AddedTokenTests(unittest.TestCase):
    """Added tokens as Hugging Face matches them, and the lab's arguments on top."""

    def tokenizer(self, added, normalizer=()):
        base = Tokenizer.train("a b ab abc bc", 262, byte_level=True)
        return Tokenizer(None, base.merges, byte_level=True, vocab=list(base.vocab), pipeline=Pipeline(
            added_tokens=[AddedToken(len(base) + at, text, special, normalized, False, False, False)
                          for at, (text, special, normalized) in enumerate(added)],
            normalizer=normalizer, pre_tokenizer=[{"step": "split", "pattern": {"name": "gpt2"},
                                                   "behavior": "isolated", "invert": False}]))

    def test_leftmost_then_longest_special_or_not(self):
        tok = self.tokenizer([("xy", False, False), ("xyz", True, False), ("yzw", False, False), ("zw", False, False)])
        xy, xyz, yzw, zw = (tok.vocab.index(text) for text in ("xy", "xyz", "yzw", "zw"))
        self.assertEqual(tok.encode("xyzw"), [xyz, tok.ids["w"]])
        self.assertEqual(tok.encode("qyzw"), [tok.ids["q"], yzw])
        self.assertEqual(tok.encode("xyzw", allowed_special=()), [xy, zw])  # the special one is not sought
        with self.assertRaisesRegex(bpe.SpecialTokenInText, "'xyz'"):
            tok.encode("xyzw", allowed_special=(), disallowed_special="all")
        self.assertEqual(tok.decode([xyz, zw]), "zw")  # special tokens are left out, as Hugging Face's decode does
        self.assertEqual(tok.decode([xyz, zw], skip_special_tokens=False), "xyzzw")

    def test_normalized_ones_are_sought_in_the_normalized_text(self):
        tok = self.tokenizer([("ё", False, True), ("е\u0308x", False, False)], normalizer=[{"step": "NFC"}])
        composed, raw = tok.vocab.index("ё"), tok.vocab.index("е\u0308x")
        self.assertEqual(tok.encode("е\u0308"), [composed])  # NFC makes ё, then it is found
        self.assertEqual(tok.encode("е\u0308x"), [raw])  # the text as written is looked at first

    def test_one_normalized_to_nothing_is_never_found_and_two_alike_are_refused(self):
        gone = self.tokenizer([("<x>", False, True)], normalizer=[{"step": "replace", "old": "<x>", "new": ""}])
        self.assertEqual(gone.encode("ab<x>cd"), gone.encode("abcd"))
        self.assertEqual(len(gone.encode("abcd")), len(self.tokenizer([]).encode("abcd")))
        self.same_as_hugging_face(gone, ["ab<x>cd", "<x>", "a<x>"])
        # tokenizers 0.23.3 finds ﬁ in one process and fi in the next (its choice among patterns alike is a hash
        # map's order): no IDs could be its
        with self.assertRaisesRegex(ValueError, "added tokens 'ﬁ' and 'fi' both normalize to 'fi', and tokenizers "
                                                "0.23.3 finds one or the other at random"):
            self.tokenizer([("\ufb01", False, True), ("fi", False, True)], normalizer=[{"step": "NFKC"}])

    @require_module("tokenizers")
    def same_as_hugging_face(self, tok, texts):
        from tokenizers import Tokenizer as HuggingFaceTokenizer

        with tempfile.TemporaryDirectory() as folder:
            tok.save_huggingface(os.path.join(folder, "tokenizer.json"))
            theirs = HuggingFaceTokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        for text in texts:
            self.assertEqual(tok.encode(text), theirs.encode(text, add_special_tokens=False).ids, text)


class PrefixSpaceTests(unittest.TestCase):
    """``add_prefix_space``: a space before text that lacks one, in training and encoding alike."""

    LINES = "the cat sat on the mat\nthe dog sat on the log\n" * 4

    def test_the_first_word_is_cut_as_every_other(self):
        tok = Tokenizer.train(self.LINES, 300, byte_level=True, add_prefix_space=True, special_tokens=["<s>"])
        self.assertEqual(tok.tokens("the cat"), tok.tokens(" the cat"))
        self.assertEqual(tok.tokens("the<s>the", allowed_special="all"), ["Ġthe", "<s>", "Ġthe"])
        self.assertEqual(tok.chunks("the cat"), [" the", " cat"])
        plain = Tokenizer.train(self.LINES, 300, byte_level=True, special_tokens=["<s>"])
        self.assertNotEqual(plain.tokens("the cat"), tok.tokens("the cat"))
        counted = bpe.count_chunks(["the cat<s>dog"], "gpt2", special_tokens=["<s>"], add_prefix_space=True)
        self.assertEqual(list(counted), [" the", " cat", "<s>", " dog"])

    def test_every_trainer_agrees_and_the_file_keeps_it(self):
        tok = Tokenizer.train(self.LINES, 300, byte_level=True, add_prefix_space=True)
        counts = bpe.count_chunks([self.LINES], "gpt2", add_prefix_space=True)
        self.assertEqual(Tokenizer.train_from_counts(counts, 300, byte_level=True, add_prefix_space=True).merges,
                         tok.merges)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "corpus.txt")
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(self.LINES)
            self.assertEqual(Tokenizer.train_from_files([path], 300, byte_level=True, add_prefix_space=True,
                                                        block_size=7).merges, tok.merges)
            saved = os.path.join(folder, "tok.json")
            tok.save(saved)
            loaded = Tokenizer.load(saved)
        self.assertEqual(tok.to_json()["format_version"], 3)
        self.assertEqual((loaded.add_prefix_space, loaded.pipeline, loaded.to_json()), (True, None, tok.to_json()))

    def test_only_at_the_byte_level(self):
        with self.assertRaisesRegex(ValueError, "add_prefix_space is a byte-level option"):
            Tokenizer.train(self.LINES, 40, add_prefix_space=True)
        with self.assertRaisesRegex(TypeError, "add_prefix_space must be True or False"):
            Tokenizer(None, [], byte_level=True, add_prefix_space=1)

    @require_module("tokenizers")
    def test_hugging_face_gives_the_same_ids_from_our_export(self):
        import tokenizers

        tok = Tokenizer.train(self.LINES, 300, byte_level=True, add_prefix_space=True)
        theirs = tokenizers.Tokenizer.from_str(json.dumps(tok.to_huggingface()))
        for text in ("the cat", " the cat", "dog sat\nthe end", ""):
            self.assertEqual(theirs.encode(text).ids, tok.encode(text))


class CommandLineAndDatasetTests(unittest.TestCase):
    """The command line reads a tokenizer.json as it is; inspect and explain say what a pipeline does."""

    def run_cli(self, *argv):
        """The lines a successful command prints, run in this process (``tests.in_process.run_here``)."""
        result = run_here(*argv)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.decode("utf-8").splitlines()

    def test_inspect_describes_the_pipeline(self):
        lines = self.run_cli("inspect", "-t", os.path.join(DATA, "nfc.json"), "--top", "1")
        self.assertIn("of 542 IDs", lines[0])
        self.assertEqual(lines[1], "  normalizer: NFC")
        self.assertTrue(lines[2].startswith("  pre-tokenizer: split by the regex (?i:'s|'t|"), lines[2])
        self.assertTrue(lines[2].endswith(", isolated; then the UTF-8 bytes"), lines[2])
        self.assertIn("  2 added tokens not special, always matched: '<think>'=540, '</think>'=541", lines)
        self.assertIn("  post-processor: adds no tokens (a ByteLevel one only maps offsets)", lines)
        steps = self.run_cli("inspect", "-t", os.path.join(DATA, "steps.json"), "--top", "1")
        self.assertIn("post-processor, only on request (apply_template): <s> $A </s>; pairs <s> $A </s> $B </s>",
                      steps[steps.index("  model: BPE") + 2])

    def test_explain_replays_one_at_a_time_and_names_ignore_merges(self):
        lines = self.run_cli("explain", "-t", os.path.join(DATA, "ranked.json"), "qzqz supercalifragilistic")
        self.assertIn("one at a time", lines[0])
        self.assertIn("  whole: a token (ignore_merges)  ␣supercalifragilistic", lines)
        self.assertIn("tokens: qzq z ␣supercalifragilistic", lines)

    def test_offsets_through_the_normalizer(self):
        nfc = LOADED["nfc"]
        self.assertEqual([span[1:] for span in nfc.encode_with_offsets("é x")][-1], (2, 3))
        composed = nfc.encode_with_offsets("e\u0301 x", unit="bytes")  # NFC makes one character of two
        self.assertEqual(b"".join(map(nfc.token_bytes, nfc.encode("e\u0301"))), "é".encode())
        self.assertEqual((composed[0][1], composed[-1][1:]), (0, (4, 5)))
        self.assertEqual([start for _, start, _ in composed[1:]], [end for _, _, end in composed[:-1]])

    def test_token_files_encode_each_file_whole(self):
        tok = LOADED["sequence"]
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for number, case in enumerate(EXPECTED["cases"][:20]):
                paths.append(os.path.join(folder, f"{number}.txt"))
                with open(paths[-1], "w", encoding="utf-8", newline="") as stream:
                    stream.write(case["text"])
            counts = tok.count_files(paths, workers=2, block_size=3)
        self.assertEqual(counts, [len(case["ids"]["sequence"]) for case in EXPECTED["cases"][:20]])


if __name__ == "__main__":
    unittest.main()
