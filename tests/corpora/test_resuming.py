"""Resuming a stopped prepare: the same bytes as one run never stopped, and a checkpoint that does not fit refused."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from bpe import Tokenizer
from bpelab.corpora import resuming
from tests import ROOT
from tests.corpora.test_prepare import SPECIAL, TEXTS, TOKENIZERS, InAFolderOfTexts
from tests.in_process import run_here


class Stop(Exception):
    """What the progress callback raises to stop a run part way (as Ctrl-C would)."""


def stopping_after(blocks):
    """A progress callback that stops the run when ``blocks`` blocks have been read."""
    seen = []

    def progress(done, total):
        seen.append(done)
        if len(seen) == blocks:
            raise Stop(done)

    return progress


def everything(folder):
    """Every file in ``folder`` -> its bytes."""
    found = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as stream:
            found[name] = stream.read()
    return found


class ResumeTests(InAFolderOfTexts, unittest.TestCase):

    def setUp(self):
        super().setUp()
        self.options = {"separator": SPECIAL, "allowed_special": "all", "block_size": 500}
        patch = mock.patch.object(resuming, "CHECKPOINT_SECONDS", 0)  # a checkpoint after every block
        patch.start()
        self.addCleanup(patch.stop)

    def saved_tokenizer(self):
        """The byte-level tokenizer, the file it is saved in, and a new folder to write the tokens into."""
        saved = os.path.join(self.folder, "tok.json")
        TOKENIZERS["bytes"].save(saved)
        return TOKENIZERS["bytes"], saved, tempfile.mkdtemp(dir=self.folder)

    def whole_run(self, tokenizer, name, **options):
        """The files one run never stopped writes, in a folder of their own."""
        folder = tempfile.mkdtemp(dir=self.folder)
        tokenizer.encode_files(self.paths, os.path.join(folder, name), **self.options, **options)
        return everything(folder)

    def test_stopped_anywhere_and_resumed_the_bytes_are_a_whole_runs(self):
        for tokenizer_name, format, name in (("bytes", "bin", "train.bin"), ("cl100k pattern", "megatron", "m.bin"),
                                             ("characters", "datatrove", "d.ds")):
            tokenizer = TOKENIZERS[tokenizer_name]
            expected = self.whole_run(tokenizer, name, format=format)
            for stops in ([1], [3, 30], [45, 1, 2]):
                with self.subTest(tokenizer=tokenizer_name, format=format, stops=stops):
                    folder = tempfile.mkdtemp(dir=self.folder)
                    out = os.path.join(folder, name)
                    for blocks in stops:
                        with self.assertRaises(Stop):
                            tokenizer.encode_files(self.paths, out, **self.options, format=format, resume=True,
                                                   progress=stopping_after(blocks),
                                                   workers=2 if format == "datatrove" else 1)
                        left = set(os.listdir(folder))  # (with workers, blocks read ahead: no checkpoint yet)
                        self.assertTrue({name + ".resume"} <= left <= {name + ".resume", name + ".resume.json"})
                    tokenizer.encode_files(self.paths, out, **self.options, format=format, resume=True)
                    self.assertEqual(everything(folder), expected)

    def test_a_killed_run_goes_on_from_its_last_checkpoint(self):
        tokenizer, saved, folder = self.saved_tokenizer()
        out = os.path.join(folder, "train.bin")
        script = (f"import os, signal, sys; sys.path.insert(0, {ROOT!r}); import bpe\n"
                  "from bpelab.corpora import resuming\nresuming.CHECKPOINT_SECONDS = 0\n"
                  "seen = []\n"
                  "def progress(done, total):\n"
                  "    seen.append(done)\n"
                  "    if len(seen) == 20: os.kill(os.getpid(), signal.SIGKILL)\n"
                  f"bpe.Tokenizer.load({saved!r}).encode_files({self.paths!r}, {out!r}, separator={SPECIAL!r}, "
                  "allowed_special='all', block_size=500, resume=True, progress=progress)\n")
        killed = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
        self.assertEqual(killed.returncode, -signal.SIGKILL)
        with open(out + ".resume.json", encoding="utf-8") as stream:
            self.assertGreater(json.load(stream)["point"]["bytes"], 0)
        tokenizer.encode_files(self.paths, out, **self.options, resume=True)
        self.assertEqual(everything(folder), self.whole_run(tokenizer, "train.bin"))

    def test_prepare_resume_goes_on_from_a_stopped_run(self):
        tokenizer, saved, folder = self.saved_tokenizer()
        out = os.path.join(folder, "train.ds")
        with self.assertRaises(Stop):  # after two files' blocks (the command line's blocks are 64 KiB)
            tokenizer.encode_files(self.paths, out, separator=SPECIAL, allowed_special="all", format="datatrove",
                                   resume=True, progress=stopping_after(2))
        result = run_here("prepare", "-t", saved, "-o", out, "--format", "datatrove", "--separator", SPECIAL,
                          "--allow-special", "--resume", *self.paths, text=True)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        whole = tempfile.mkdtemp(dir=self.folder)
        tokenizer.encode_files(self.paths, os.path.join(whole, "train.ds"), separator=SPECIAL, allowed_special="all",
                               format="datatrove")
        self.assertEqual(everything(folder), everything(whole))

    def test_a_checkpoint_that_does_not_fit_is_refused_and_kept(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "train.bin")
        with self.assertRaises(Stop):
            tokenizer.encode_files(self.paths, out, **self.options, resume=True, progress=stopping_after(5))
        kept = {name: data for name, data in everything(self.folder).items() if ".resume" in name}
        other = Tokenizer.train(TEXTS[3], 300, byte_level=True, special_tokens=[SPECIAL])
        checkpoint = f"{out}.resume.json: that run was made from "
        cases = [
            (lambda: other.encode_files(self.paths, out, **self.options, resume=True),
             "another tokenizer \\(sha256 [0-9a-f]{12}\\.\\.\\.\\)"),
            (lambda: tokenizer.encode_files(self.paths[:3], out, **self.options, resume=True),
             "other input files"),
            (lambda: tokenizer.encode_files(self.paths, out, separator=SPECIAL, allowed_special="all",
                                            resume=True), "other options \\(block_size\\)"),
            (lambda: tokenizer.encode_files(self.paths, out, **self.options, format="megatron", resume=True),
             "other options \\(format\\)"),
        ]
        for call, problem in cases:
            with self.subTest(problem=problem), self.assertRaisesRegex(ValueError, f"^{checkpoint}{problem}; "):
                call()
        with open(self.paths[3], "a", encoding="utf-8") as stream:
            stream.write("more")
        with self.assertRaisesRegex(ValueError, f"^{checkpoint}{self.paths[3]} as it was before it changed; "):
            tokenizer.encode_files(self.paths, out, **self.options, resume=True)
        with open(out + ".resume", "r+b") as stream:
            stream.truncate(10)
        kept[os.path.basename(out) + ".resume"] = kept[os.path.basename(out) + ".resume"][:10]
        self.assertEqual({name: data for name, data in everything(self.folder).items() if ".resume" in name}, kept)
        with open(self.paths[3], "wb") as stream:
            stream.write(TEXTS[3].encode("utf-8"))
        os.utime(self.paths[3], ns=(0, 0))
        with self.assertRaisesRegex(ValueError, f"{self.paths[3]} as it was before it changed"):  # the time too
            tokenizer.encode_files(self.paths, out, **self.options, resume=True)
        with open(out + ".resume.json", "w", encoding="utf-8") as stream:
            stream.write('{"plan": {}}')
        with self.assertRaisesRegex(ValueError, f"^{out}.resume.json: not a checkpoint of the lab's"):
            tokenizer.encode_files(self.paths, out, **self.options, resume=True)
        self.assertFalse(os.path.exists(out))

    def test_ids_shorter_than_their_checkpoint_are_refused(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "train.bin")
        with self.assertRaises(Stop):
            tokenizer.encode_files(self.paths, out, **self.options, resume=True, progress=stopping_after(9))
        with open(out + ".resume", "r+b") as stream:
            stream.truncate(10)
        with self.assertRaisesRegex(ValueError, f"^{out}.resume: holds 10 bytes of IDs where its checkpoint "
                                                "counts [\\d,]+; remove it and"):
            tokenizer.encode_files(self.paths, out, **self.options, resume=True)

    def test_a_checkpoint_edited_by_hand_is_refused(self):
        tokenizer = TOKENIZERS["bytes"]
        out = os.path.join(self.folder, "train.bin")
        with self.assertRaises(Stop):
            tokenizer.encode_files(self.paths, out, **self.options, resume=True, progress=stopping_after(9))
        with open(out + ".resume.json", encoding="utf-8") as stream:
            saved = json.load(stream)
        for field, value in (("file", 50), ("offset", saved["point"]["offset"] - 100), ("offset", -5),
                             ("offset", "5"), ("ended", 1)):
            edited = json.loads(json.dumps(saved))
            edited["point"][field] = value
            with open(out + ".resume.json", "w", encoding="utf-8") as stream:
                json.dump(edited, stream)
            with self.subTest(field=field, value=value), self.assertRaisesRegex(
                    ValueError, f"^{out}.resume.json: changed since the run wrote it \\(its sha256"):
                tokenizer.encode_files(self.paths, out, **self.options, resume=True)
        self.assertFalse(os.path.exists(out))

    def test_an_input_where_the_run_keeps_its_work_is_refused_and_kept(self):
        tokenizer, saved, folder = self.saved_tokenizer()
        out = os.path.join(folder, "train.bin")
        for kept in resuming.kept_paths(out):
            with open(self.paths[0], "rb") as source, open(kept, "wb") as copy:
                copy.write(source.read())
            with self.subTest(kept=kept), self.assertRaisesRegex(ValueError, f"^{kept}: is also one of the files"):
                tokenizer.encode_files([self.paths[1], kept], out, **self.options, resume=True)
            result = run_here("prepare", "-t", saved, "-o", out, "--resume", kept, text=True)
            self.assertEqual((result.returncode, result.stderr.count("\n")), (1, 1), result.stderr)
            self.assertIn("is also an input file", result.stderr)
            with open(self.paths[0], "rb") as source, open(kept, "rb") as copy:
                self.assertEqual(copy.read(), source.read())
            os.remove(kept)

    def test_prepare_never_writes_over_its_tokenizer(self):
        tokenizer, saved, folder = self.saved_tokenizer()
        with open(saved, "rb") as stream:
            before = stream.read()
        linked = os.path.join(folder, "linked.bin")
        os.symlink(saved, linked + ".resume")  # the IDs a resumable run keeps, a link to the tokenizer
        cases = {"the tokenizer itself": [saved], "its description": [saved[:-len(".json")]],
                 "the IDs kept": [linked, "--resume"]}
        for case, output in cases.items():
            with self.subTest(case=case):
                result = run_here("prepare", "-t", saved, "-o", *output, self.paths[0], text=True)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn("is also an input file", result.stderr)
        with open(saved, "rb") as stream:
            self.assertEqual(stream.read(), before)

if __name__ == "__main__":
    unittest.main()
