"""Tokens drawn for people (bpelab/commands/drawing.py): what explain replays, what view's trees say, what each
command draws of every script, and inspect on real models.

``replay`` is held to the definitions it equals (``bpe.reference_encode`` on
the lab's merges, ``ranked.reference_encode_leftmost`` on Llama 3's) on
random chunks and on tokens; then over every token of Llama 3, the tree
``bpe view`` draws and the replay ``bpe explain`` shows must say the same
(one token in 16 here, every one in a later ``.ci/run`` step).
The commands run in this process (``tests.in_process.run_here``) on the
scripts of ``tests.lab_samples.FORM_SCRIPTS``, under one byte-level model
(cl100k) and one with byte fallback (Llama 2), loaded once for all of them.
"""

import os
import random
import re
import tempfile
import unittest
from unittest import mock

from bpe import Tokenizer, reference_encode
from bpelab.commands import cli, drawing
from bpelab.merges.ranked import reference_encode_leftmost
from bpelab.reading import collector_paused
from bpelab.text import readable
from tests.clients import model_file, official_tokenizer, open_model, require_models, skip_or_fail
from tests.in_process import run_here
from tests.lab_samples import BYTES, CORPUS, FORM_SCRIPTS, LAB
from tests.text.test_readable import form_bytes


def replayed_steps(tok, tokens):
    """The merges a definition makes on ``tokens``, as ``(rank, tokens after)``: the lab's, all occurrences of a
    pair at once, or Hugging Face's, one at a time."""
    steps = []
    rule = reference_encode_leftmost if drawing.merges_one_at_a_time(tok) else reference_encode
    rule(tokens, tok.merge_rank, on_merge=lambda rank, pair, after: steps.append((rank, after)))
    return steps


def steps_of(tok, done):
    """The steps of a ``replay`` in the same shape: each merge (or, where the merges are ordered as training orders
    them, each run of one pair's merges) with the tokens after it."""
    sequence, steps = [node for node, parts in enumerate(done.parts) if parts is None], []
    for node in range(len(sequence), len(done.ids)):
        left, right, rank = done.parts[node]
        at = sequence.index(left)
        sequence[at:at + 2] = [node]
        after = tuple(tok.vocab[done.ids[item]] for item in sequence)
        if steps and steps[-1][0] == rank and not drawing.merges_one_at_a_time(tok):
            steps[-1] = (rank, after)
        else:
            steps.append((rank, after))
    return steps


class ReplayIsTheDefinition(unittest.TestCase):
    """``drawing.replay`` makes the merges the definitions make, in their order, on any chunk."""

    def test_random_chunks_under_the_lab_and_byte_level_merges(self):
        rng = random.Random(32)
        words = CORPUS.split()
        for tok in (LAB, BYTES):
            for _ in range(300):
                text = " " + "".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                for chunk in tok.chunks(text):
                    tokens = tok.start_tokens(chunk)
                    done = drawing.replay(tok, [tok.ids[token] for token in tokens])
                    self.assertEqual(steps_of(tok, done), replayed_steps(tok, tokens), chunk)
                    self.assertEqual([done.ids[node] for node in done.roots], tok.chunk_ids(chunk))

    def test_a_long_chunk_goes_through_the_heap_alike(self):
        rng = random.Random(5)
        for tok in (LAB, BYTES):
            chunk = "".join(rng.choice("abcdehkst") for _ in range(300))
            tokens = tok.start_tokens(chunk)
            done = drawing.replay(tok, [tok.ids[token] for token in tokens])
            self.assertEqual(steps_of(tok, done), replayed_steps(tok, tokens))

    @require_models("llama3")
    def test_llama3_tokens_and_chunks_one_merge_at_a_time(self):
        tok, rng = open_model("llama3"), random.Random(3)
        starts = [list(tok.vocab[token_id]) for token_id in rng.sample(range(128000), 600)]
        starts += [list(token) * rng.randint(2, 12) for token in map(tok.vocab.__getitem__, rng.sample(range(128000), 40))]
        for tokens in starts:
            done = drawing.replay(tok, [tok.ids[token] for token in tokens])
            self.assertEqual(steps_of(tok, done), replayed_steps(tok, tokens), tokens)


TOKEN_STRIDE = int(os.environ.get("BPE_LAB_TOKEN_STRIDE", "16"))
"""One in how many of Llama 3's tokens ``EveryTokenOfLlama3`` holds view to explain on (every 16th: a quarter of a
second); a later ``.ci/run`` step asks for every one (1: five seconds)."""


@require_models("llama3")
class EveryTokenOfLlama3(unittest.TestCase):
    """For every one of Llama 3's 128,256 tokens (``TOKEN_STRIDE``), ``bpe view``'s tree and ``bpe explain`` agree
    (588 of them its merges never build from their bytes: ignore_merges gives them whole, and so both say)."""

    def test_view_and_explain_agree_on_every_token(self):
        tok = open_model("llama3")
        kinds = {}
        with collector_paused():  # (128,256 tokens' small lists would wake the collector over Llama 3's millions)
            for token_id in range(0, len(tok), TOKEN_STRIDE):
                self.check_one_token(tok, token_id, kinds)
        if TOKEN_STRIDE == 1:
            self.assertEqual(kinds, {"base": 256, "whole": 126520, "merged": 1224, "special": 256})
        else:  # a sample: of every kind
            self.assertEqual(set(kinds), {"base", "whole", "merged", "special"})
        for token_id in range(0, len(tok), 211):  # and drawn, as the page gets them: a sample of the whole ones
            tree = drawing.merge_tree(tok, token_id)
            self.assertEqual(tree["reason"], drawing.token_build(tok, token_id)[0])
            if tree["nodes"]:
                self.assertEqual(form_bytes(tree["nodes"][0]["text"]), tok.token_bytes(token_id))
        not_built = drawing.merge_tree(tok, tok.encode(" việc")[0])  # the token: explain says whole
        self.assertEqual((not_built["reason"], not_built["nodes"]), (
            "taken whole: with ignore_merges a chunk that is a token is that token, unmerged; its merges would make "
            "3 tokens of it", []))

    def check_one_token(self, tok, token_id, kinds):
        """What view draws of one token (its kind, its tree) against what explain shows of its text."""
        kind = drawing.token_kind(tok, token_id)  # what bpe view draws, before it replays anything
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind == "whole":  # a chunk of its own, taken whole: bpe explain of its text says so too
            self.assertEqual(drawing.chunk_replay(tok, tok.decode_bytes([token_id]).decode())[0], token_id)
        elif kind == "base" and drawing.token_chunk(tok, token_id) is not None:  # an ASCII byte: whole too
            self.assertEqual(drawing.chunk_replay(tok, drawing.token_chunk(tok, token_id))[0], token_id)
        elif kind == "merged":  # the tree view draws is the replay explain shows, and ends in the token
            reason, done = drawing.token_build(tok, token_id)
            chunk = drawing.token_chunk(tok, token_id)
            if chunk is not None:
                self.assertEqual((reason, drawing.chunk_replay(tok, chunk)), (None, (None, done)))
                self.assertEqual(tok.chunk_ids(chunk), [token_id])
            if done is not None:
                self.assertEqual([done.ids[node] for node in done.roots], [token_id])


class PatchedLoading:
    """The command line's ``-t NAME`` opens tokenizers already loaded (the real files take seconds each)."""

    def __init__(self, loaded):
        self.loaded = loaded

    def __enter__(self):
        opened = lambda tokenizer_class, source: self.loaded[source]  # noqa: E731 (the loader's own signature)
        self.patch = mock.patch.object(cli.official, "open_tokenizer", opened)
        self.patch.start()
        return self

    def __exit__(self, *exc):
        self.patch.stop()


def lines_of(*arguments):
    """The standard output of a successful command run here, as lines."""
    result = run_here(*arguments)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode().splitlines()


class EveryCommandOnEveryScript(unittest.TestCase):
    """``show``, ``explain``, ``compare``, ``inspect`` and ``train --verbose`` draw each script as the API's readable
    form, under a byte-level model and a byte-fallback one, and their forms read back to the tokens' bytes."""

    @classmethod
    def setUpClass(cls):
        if model_file("llama2") is None:
            skip_or_fail("the model file llama2.json is not here")
        cls.kinds = {"cl100k": official_tokenizer("cl100k"), "llama2": open_model("llama2")}

    def test_show_explain_and_compare(self):
        with PatchedLoading(self.kinds):
            for script, text in FORM_SCRIPTS.items():
                for name, tok in self.kinds.items():
                    forms = tok.readable_tokens(text)
                    with self.subTest(script=script, tokenizer=name):
                        self.assertEqual(lines_of("show", "-t", name, text)[0], "│".join(forms))
                        explained = lines_of("explain", "-t", name, text)
                        self.assertEqual(explained[-2:], [f"tokens: {' '.join(forms)}",
                                                          f"IDs: {' '.join(map(str, tok.encode(text)))}"])
                        for line in explained:  # every line of every chunk reads back to that chunk's bytes
                            if line.startswith("chunk "):
                                chunk = tok.chunks(text)[int(line.split()[1]) - 1]
                                done = drawing.chunk_replay(tok, chunk)[1]
                                spelled = b"".join(tok.token_bytes(token_id) for token_id, parts in
                                                   zip(done.ids, done.parts) if parts is None)
                            elif line.startswith(("  start", "  merge")):
                                self.assertEqual(b"".join(map(form_bytes, re.split(r"\s{2,}", line)[-1].split(" "))),
                                                 spelled, line)
            compared = lines_of("compare", "-t", "cl100k", "-t", "llama2", *FORM_SCRIPTS.values())
            for text in FORM_SCRIPTS.values():
                for name, tok in self.kinds.items():
                    self.assertIn("│".join(tok.readable_tokens(text)), compared)

    def test_inspect_rows_align_by_display_width(self):
        for script, text in FORM_SCRIPTS.items():
            for name, tok in self.kinds.items():
                ids = sorted(set(tok.encode(text)))
                rows = [("ID", "merge", "token", "made from")] + [(str(i), *cli.made_from_row(tok, i)) for i in ids]
                lines = drawing.format_table(rows, numbers=2).splitlines()
                with self.subTest(script=script, tokenizer=name):
                    self.assertEqual([row[2] for row in rows[1:]], [readable.id_form(tok, i) for i in ids])
                    assert_aligned(self, lines, rows)
                    for row in rows[1:]:
                        if row[1]:  # made from two parts: they read back to the token's bytes, together
                            self.assertEqual(b"".join(map(form_bytes, row[3].split(" + "))),
                                             tok.token_bytes(int(row[0])), row)

    def test_train_verbose_on_each_script(self):
        with tempfile.TemporaryDirectory() as folder:
            for script, text in FORM_SCRIPTS.items():
                path = os.path.join(folder, f"{script}.txt")
                with open(path, "w", encoding="utf-8") as stream:
                    stream.write((text + " ") * 3)
                for level in (["--bytes"], []):
                    out = os.path.join(folder, f"{script}{level}.json")
                    table = lines_of("train", path, "--vocab-size", "300" if level else "40", "-o", out,
                                     "--verbose", *level)[2:-1]
                    tok = Tokenizer.load(out)
                    with self.subTest(script=script, level=level):
                        self.assertEqual(len(table), len(tok.merges))
                        for row, (left, right) in zip(table, tok.merges):
                            pair, token = [cell.strip().strip("`") for cell in row.split(" | ")[1:3]]
                            parts = [tok.token_bytes(tok.ids[part]) for part in (left, right)]
                            self.assertEqual([form_bytes(form.strip("`")) for form in pair.split(" + ")], parts)
                            self.assertEqual(form_bytes(token), b"".join(parts))


@require_models("llama3", "gemma3")
class InspectOnRealModels(unittest.TestCase):
    """``inspect --top 3`` on Llama 3 and Gemma 3: the newest three merges, then five of the special and added tokens
    and how many more there are; ``--all-special`` lists them all."""

    def test_the_newest_merges_are_merges_and_the_added_tokens_are_summed_up(self):
        for name in ("llama3", "gemma3"):
            tok = open_model(name)
            with PatchedLoading({name: tok}):
                lines = lines_of("inspect", "-t", name, "--top", "3")
                every = lines_of("inspect", "-t", name, "--top", "3", "--all-special")
            table = lines[next(at for at, line in enumerate(lines) if line.split()[:2] == ["ID", "merge"]):]
            added = len(set(tok.special_tokens.values()) | tok.describe()["added_ids"])
            with self.subTest(model=name):
                self.assertEqual(len(table), 1 + 3 + 5 + 1)
                self.assertEqual(table[-1], f"... and {added - 5:,} more special or added tokens (--all-special lists "
                                            "them all)")
                self.assertEqual(len(every), len(lines) - 1 + added - 5)
                for line, rank in zip(table[1:4], range(len(tok.merges) - 3, len(tok.merges))):
                    left, right = tok.merges[rank]
                    self.assertEqual(line.split()[:2], [str(tok.ids[left + right]), str(rank + 1)])
                    self.assertTrue(line.endswith(" + ".join(readable.readable_texts(
                        tok, [tok.ids[left], tok.ids[right]]))), line)
                rows = [("ID", "merge", "token", "made from")] + [
                    (str(tok.ids[left + right]), str(rank + 1), *cli_merge_cells(tok, rank))
                    for rank, (left, right) in enumerate(tok.merges[-3:], len(tok.merges) - 3)]
                assert_aligned(self, table[:4], rows)
                self.assertIn("special", table[4].split())


def cli_merge_cells(tok, rank):
    """The token and made-from cells of ``inspect --top``'s row for merge ``rank``."""
    return drawing.merge_row(tok, rank)[2:]


def assert_aligned(test, lines, rows):
    """Each column of ``inspect``'s table starts, in display columns, where its header does: the numbers
    right-aligned before the token, the token padded by its display width, none running into the next."""
    header = lines[0]
    token_at, made_at = header.index("token"), readable.display_width(header[:header.index("made from")])
    for line, row in zip(lines[1:], rows[1:]):
        test.assertEqual(line[:token_at].split(), [cell for cell in row[:2] if cell], line)
        token = drawing.cut_to(row[2], drawing.INSPECT_WIDTH)
        test.assertTrue(line[token_at:].startswith(token), line)
        rest = line[token_at + len(token):]
        if row[3]:
            padded = token_at + len(token) + len(rest) - len(rest.lstrip(" "))
            test.assertEqual((readable.display_width(line[:padded]), rest.lstrip(" ")), (made_at, row[3]), line)


if __name__ == "__main__":
    unittest.main()
