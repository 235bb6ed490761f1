"""The vocabulary cache: a warm load gives the very tokenizer a cold one gives, and a bad entry is never used.

``bpelab.formats.vocabulary_cache`` keeps what a load derived in the user's cache
folder. These tests hold a load from the cache to the load without it, for
each kind of model (the lab's, from a ``.tiktoken`` file; a byte-level
given vocabulary, whose merges the lab's engine runs or not; SentencePiece's
kind), small files and real ones; show that a warm load derives nothing;
and take each way an entry or the folder can be wrong: corrupt, cut short,
made for another file or another version of the lab, owned by someone else,
writable by others, a link; a folder that is read-only, full, or not the
user's; two processes filling it at once; the cache turned off; and where
the folder is by default. Each test has a folder of its own (the suite's
runs have one too: ``tests/__init__.py``).
"""

import base64
import contextlib
import errno
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from bpe import Tokenizer
from bpelab import checks
from bpelab.formats import vocabulary_cache
from bpelab.formats import huggingface, tiktoken as tiktoken_files
from bpelab.imported import vocabulary
from bpelab.merges.engine import MergeTable
from tests import ROOT
from tests.clients import model_file, require_models, require_official, sweep
from tests.imported.test_sentencepiece import small_file
from tests.lab_samples import BYTES, SCRIPTS, random_corpus, random_unicode

TEXTS_SEED = 33

SPECIALS = dict(BYTES.special_tokens)
"""The small ``.tiktoken`` file's special tokens (it is ``lab_samples.BYTES`` exported)."""


def never_derived():
    """A context in which parsing a file, recovering merges, checking them or building a rank table fails a test."""
    stack = contextlib.ExitStack()
    for module, name in ((checks, "check_merges"), (tiktoken_files, "recover_pairs"), (huggingface, "parse_json"),
                         (vocabulary, "merge_table")):
        stack.enter_context(mock.patch.object(module, name, side_effect=AssertionError(f"{name} ran again")))
    return stack


def derivations():
    """A context counting in ``calls`` how often merges are recovered from a ``.tiktoken`` file's ranks."""
    return mock.patch.object(tiktoken_files, "recover_pairs", wraps=tiktoken_files.recover_pairs)


def read_bytes(path):
    """A file's bytes."""
    with open(path, "rb") as stream:
        return stream.read()


def sample_texts(tokenizer, count=200):
    """Random texts to encode: prose-like, every plane of Unicode, the scripts, and the special tokens in text."""
    rng = random.Random(TEXTS_SEED)
    specials = list(tokenizer.special_tokens)
    texts = list(SCRIPTS.values())
    for _ in range(count):
        text = random_corpus(rng, 20) if rng.random() < 0.5 else random_unicode(rng, rng.randint(0, 40))
        if specials and rng.random() < 0.3:
            text += rng.choice(specials) + random_corpus(rng, 3)
        texts.append(text)
    return texts


LOAD_SCRIPT = """\
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from bpe import Tokenizer
mine, other = (sys.argv[4].split() or [None, None])
if mine:  # (two processes: each says it is ready, then waits for the other, so that they load at once)
    open(mine, "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(other) and time.monotonic() < deadline:
        time.sleep(0.005)
print(Tokenizer.load_tiktoken(sys.argv[2], "gpt2", json.loads(sys.argv[3])).encode("caf\u00e9"))
"""
"""A process loading the small ``.tiktoken`` file: the lab's root, the file, its special tokens, and for two at once
the names of their ready files."""


def as_another_user(uid, function):
    """``function()``'s result (JSON), computed in a child process that runs as the user ``uid``, not as root."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # (the child: everything is imported already, so it needs no access to Python's own files)
        outcome = ["error", "the child ended early"]
        try:
            os.close(read)
            os.setgid(uid)
            os.setuid(uid)
            outcome = ["result", function()]
        except BaseException as error:  # (whatever happens, the child reports it and ends here)
            outcome = ["error", repr(error)]
        finally:
            os.write(write, json.dumps(outcome).encode("utf-8"))
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as stream:
        kind, value = json.loads(stream.read())
    os.waitpid(child, 0)
    if kind == "error":
        raise AssertionError(f"as user {uid}: {value}")
    return value


class Folder(unittest.TestCase):
    """Each test with a cache folder of its own, ``self.folder`` (not yet made), and a small ``.tiktoken`` file."""

    def setUp(self):
        place = tempfile.TemporaryDirectory()
        self.addCleanup(place.cleanup)
        self.place = place.name
        self.folder = os.path.join(self.place, "cache")
        patch = mock.patch.dict(os.environ, {vocabulary_cache.CACHE_VARIABLE: self.folder})
        patch.start()
        self.addCleanup(patch.stop)
        self.ranks = self.write_ranks(BYTES.to_tiktoken()["mergeable_ranks"])

    def write_ranks(self, ranks, name="small.tiktoken"):
        path = os.path.join(self.place, name)
        with open(path, "wb") as stream:
            stream.write(b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in ranks.items()))
        return path

    def load(self, path=None):
        return Tokenizer.load_tiktoken(path or self.ranks, "gpt2", SPECIALS)

    def entries(self):
        """The entries in the folder (temporary files left behind would show here too)."""
        return sorted(os.listdir(self.folder)) if os.path.isdir(self.folder) else []

    def entry(self):
        (name,) = self.entries()
        return os.path.join(self.folder, name)

    def assert_same(self, cached, uncached, texts=None):
        """Two tokenizers are the same: every table, every ID of many texts, each text back, the saved files."""
        for attribute in ("byte_level", "pattern", "alphabet", "merges", "vocab", "ids", "special_tokens",
                          "add_prefix_space", "pipeline"):
            self.assertEqual(getattr(cached, attribute), getattr(uncached, attribute), attribute)
        self.assertEqual(type(cached._model), type(uncached._model))
        self.assertEqual(cached.describe(), uncached.describe())
        mine, theirs = cached._model, uncached._model
        for table in ("merged_id", "table", "decoded", "byte_ids", "lab_ordered", "character_id", "unk_id", "texts"):
            self.assertEqual(getattr(mine, table, None), getattr(theirs, table, None), table)
            self.assertEqual(type(getattr(mine, table, None)), type(getattr(theirs, table, None)), table)
        for text in texts if texts is not None else sample_texts(uncached):
            ids = uncached.encode(text, allowed_special="all")
            self.assertEqual(cached.encode(text, allowed_special="all"), ids, text)
            self.assertEqual(cached.decode(ids), uncached.decode(ids))
        self.assertEqual(cached.to_json(), uncached.to_json())
        self.assertEqual(cached.to_huggingface(), uncached.to_huggingface())
        with tempfile.TemporaryDirectory() as folder:
            for tokenizer, name in ((cached, "cached.json"), (uncached, "uncached.json")):
                tokenizer.save(os.path.join(folder, name))
            with open(os.path.join(folder, "cached.json"), "rb") as one, open(os.path.join(folder, "uncached.json"),
                                                                               "rb") as other:
                self.assertEqual(one.read(), other.read())

    def three_loads(self, load):
        """``load()`` without the cache, filling it, and from it: the three tokenizers."""
        with mock.patch.dict(os.environ, {vocabulary_cache.CACHE_VARIABLE: ""}):
            uncached = load()
        self.assertEqual(self.entries(), [])
        filling = load()
        self.assertEqual(len(self.entries()), 1, "one entry, written by the first load")
        with never_derived():
            warm = load()  # (a warm load parses, checks and derives nothing that the cold one did)
        return uncached, filling, warm


class SameTokenizerTests(Folder):
    """A load from the cache gives what the load without it gives, for every kind of model."""

    def test_the_lab_kind_from_a_tiktoken_file(self):
        uncached, filling, warm = self.three_loads(self.load)
        self.assert_same(filling, uncached)
        self.assert_same(warm, uncached)
        self.assertEqual(warm.encode(SCRIPTS["French"]), BYTES.encode(SCRIPTS["French"]))

    def test_the_lab_kind_with_a_special_token_among_the_ranks(self):
        ranks = {token: rank + (rank >= 300) for token, rank in BYTES.to_tiktoken()["mergeable_ranks"].items()}
        path = self.write_ranks(ranks, "gap.tiktoken")  # (as p50k's <|endoftext|>: ID 300, the ranks go on past it)
        uncached, filling, warm = self.three_loads(lambda: Tokenizer.load_tiktoken(path, "gpt2", {"<|end|>": 300}))
        self.assertEqual(warm.vocab[300], "<|end|>")
        self.assert_same(warm, uncached)

    def test_each_argument_has_an_entry_of_its_own(self):
        first = self.load()
        other = Tokenizer.load_tiktoken(self.ranks, "cl100k", {"<|x|>": len(first.vocab)})
        self.assertEqual(len(self.entries()), 2)
        self.assertEqual((other.pattern, other.special_tokens), ("cl100k", {"<|x|>": len(first.vocab)}))
        self.assertEqual((self.load().pattern, Tokenizer.load_tiktoken(self.ranks, "cl100k", {}).special_tokens),
                         ("gpt2", {}))
        self.assertEqual(len(self.entries()), 3)

    def test_hugging_face_files_of_every_kind(self):
        folder = os.path.join(ROOT, "tests", "data", "hf")
        ordered = set()
        for name in ("ranked", "nfc"):
            with self.subTest(file=name):
                path = os.path.join(folder, f"{name}.json")
                uncached, filling, warm = self.three_loads(lambda: Tokenizer.load_huggingface(path))
                self.assert_same(warm, uncached)
                self.assert_same(filling, uncached, texts=[])
                ordered.add(warm._model.lab_ordered)
                shutil.rmtree(self.folder)
        self.assertEqual(ordered, {True, False}, "merges the lab's engine runs, and merges it does not")
        raw = json.dumps(small_file()).encode("utf-8")
        uncached, filling, warm = self.three_loads(lambda: Tokenizer.load_huggingface("small.json", raw=raw))
        self.assertEqual(type(warm._model).__name__, "CharacterVocabulary")
        self.assert_same(warm, uncached)

    def test_the_lab_kind_from_a_hugging_face_file_it_wrote(self):
        raw = json.dumps(BYTES.to_huggingface()).encode("utf-8")
        uncached, filling, warm = self.three_loads(lambda: Tokenizer.load_huggingface("lab.json", raw=raw))
        self.assertEqual(type(warm._model).__name__, "LabModel")
        self.assert_same(warm, uncached)

    @sweep
    @require_official("cl100k")
    def test_a_real_vocabulary_of_the_lab_kind(self):
        self.real("cl100k", lambda: Tokenizer.load_named("cl100k"))

    @sweep
    @require_models("llama3")
    def test_a_real_byte_level_model(self):
        self.real("llama3", lambda: Tokenizer.load_huggingface(model_file("llama3")))

    @require_models("llama2")
    def test_a_real_sentencepiece_model(self):
        self.real("llama2", lambda: Tokenizer.load_huggingface(model_file("llama2")))

    def real(self, name, load):
        """A real vocabulary: the load that fills the cache derives everything (it is the uncached load, which the
        small files hold to it), and the warm load gives the same tokenizer."""
        filling = load()
        self.assertEqual(len(self.entries()), 1)
        with never_derived():
            warm = load()
        self.assert_same(warm, filling, sample_texts(filling, 100))


class EntryTests(Folder):
    """What an entry holds, and how it is read back."""

    def test_each_kind_of_table_comes_back_as_it_was(self):
        tables = {
            "strings": ["a", "", None, "\n", "\0é", "\ud800", "\U0001f600"],
            "bytes": [b"", None, b"\x00\xff", b"abc"],
            "pairs": [("a", "b"), ("\n", "")],
            "merge table": MergeTable([((1, 2), 3), ((4, 5), 6)]),
            "empty merge table": MergeTable(),
            "rank table": {(1, 2): 3 << 40 | 7},
            "json": {"x": [1, None, True]},
            "flag": False,
        }
        key, name = vocabulary_cache.entry_key("test", b"source", {"argument": 1})
        parts = vocabulary_cache.entry_parts(key, {"alphabet": None}, {"merges": [], **tables})
        call, found = vocabulary_cache.entry_tables(b"".join(parts), key)
        self.assertEqual(call, {"alphabet": None})
        for table, value in tables.items():
            self.assertEqual(found[table], value, table)
            self.assertIs(type(found[table]), type(value), table)
        self.assertEqual(found["merges"], [])

    def test_strings_holding_the_usual_separators_are_joined_by_another(self):
        values = ["a\nb", "c\0d", "".join(map(chr, range(1, 32)))]
        extra, parts = vocabulary_cache.string_parts(values)
        self.assertEqual(extra["separator"], "\ue000")
        self.assertEqual(vocabulary_cache.strings(extra, parts), values)
        with self.assertRaises(vocabulary_cache.Uncacheable):
            vocabulary_cache.string_parts([vocabulary_cache.SEPARATORS])

    def test_a_value_json_would_not_give_back_as_it_was_is_not_kept(self):
        key, _ = vocabulary_cache.entry_key("test", b"source", {})
        for value in ([(1, 2)], {1: "one"}, {"set": {1}}, {"pair": (1, 2)}):
            with self.subTest(value=value), self.assertRaises(vocabulary_cache.Uncacheable):
                vocabulary_cache.entry_parts(key, {}, {"merges": [], "table": value})

    def test_a_whole_entry_this_code_cannot_build_from_is_passed_over(self):
        self.load()
        key, name = vocabulary_cache.entry_key("tiktoken", read_bytes(self.ranks),
                                               {"pattern": "gpt2", "special_tokens": list(map(list, SPECIALS.items()))})
        self.assertEqual(self.entries(), [name])
        call, tables = vocabulary_cache.entry_tables(read_bytes(self.entry()), key)
        for table, spoiled in (("merged_id", None), ("decoded", None), ("alphabet", "not a call argument")):
            with self.subTest(table=table):
                if table == "alphabet":
                    parts = vocabulary_cache.entry_parts(key, dict(call, alphabet=spoiled), tables)
                else:
                    parts = vocabulary_cache.entry_parts(key, call, {name: value for name, value in tables.items()
                                                                     if name != table})
                with open(self.entry(), "wb") as stream:  # (whole, with a right checksum, yet not buildable)
                    stream.write(b"".join(parts))
                with derivations() as derived:
                    again = self.load()
                self.assertEqual(derived.call_count, 1)
                self.assertEqual(again.encode(SCRIPTS["Greek"]), BYTES.encode(SCRIPTS["Greek"]))

    def test_an_entry_is_private_and_names_what_it_is_for(self):
        self.load()
        self.assertEqual(stat.S_IMODE(os.stat(self.folder).st_mode), 0o700)
        self.assertEqual(stat.S_IMODE(os.stat(self.entry()).st_mode), 0o600)
        with open(self.entry(), "rb") as stream:
            lines = stream.read().split(b"\n", 4)
        self.assertEqual(lines[0] + b"\n", vocabulary_cache.MAGIC)
        key = json.loads(lines[2])
        self.assertEqual(key["loader"], "tiktoken")
        self.assertEqual(key["arguments"], {"pattern": "gpt2", "special_tokens": list(map(list, SPECIALS.items()))})
        self.assertEqual(key["lab"], vocabulary_cache.lab_version())
        self.assertEqual(len(key["source_sha256"]), 64)


class BadEntryTests(Folder):
    """An entry that is wrong in any way is passed over, and written again."""

    def spoil(self, change, path=None):
        """Fill the cache, spoil this load's entry with ``change(path)``, load again: the load is right, derived
        again, and its entry is good again."""
        before = set(self.entries())
        self.load(path)
        (name,) = set(self.entries()) - before
        change(os.path.join(self.folder, name))
        with derivations() as derived:
            again = self.load(path)
        self.assertEqual(derived.call_count, 1, "the spoiled entry was used")
        self.assertEqual(again.encode(SCRIPTS["Greek"]), BYTES.encode(SCRIPTS["Greek"]))
        self.assertEqual(set(self.entries()), before | {name})
        with never_derived():
            self.assertEqual(self.load(path).to_json(), again.to_json())  # (the entry written again is good)
        return os.path.join(self.folder, name)

    def each(self, changes):
        """``spoil`` with each change (by what it does), in a folder of its own."""
        for what, change in changes.items():
            with self.subTest(change=what):
                shutil.rmtree(self.folder, ignore_errors=True)
                self.spoil(change)

    def test_a_corrupt_entry(self):
        def flip(at):
            def change(path):
                with open(path, "r+b") as stream:
                    stream.seek(at, os.SEEK_SET if at >= 0 else os.SEEK_END)
                    byte = stream.read(1)
                    stream.seek(-1, os.SEEK_CUR)
                    stream.write(bytes([byte[0] ^ 1]))
            return change
        magic = len(vocabulary_cache.MAGIC)
        self.each({"in the arrays": flip(-10), "in the checksum": flip(magic + 3), "in the key": flip(magic + 70),
                   "in the first line": flip(2)})

    def test_a_truncated_entry(self):
        self.each({"half": lambda path: os.truncate(path, os.path.getsize(path) // 2),
                   "its last byte": lambda path: os.truncate(path, os.path.getsize(path) - 1),
                   "all": lambda path: os.truncate(path, 0)})

    def test_an_entry_made_for_another_file(self):
        other = self.write_ranks(dict(list(BYTES.to_tiktoken()["mergeable_ranks"].items())[:300]), "other.tiktoken")
        shorter = self.load(other)
        (other_entry,) = self.entries()
        self.spoil(lambda path: shutil.copy(os.path.join(self.folder, other_entry), path))
        with never_derived():
            self.assertEqual(self.load(other).to_json(), shorter.to_json())

    def test_an_entry_of_another_version_of_the_lab(self):
        self.load()
        (old,) = self.entries()
        with mock.patch.object(vocabulary_cache, "lab_version", return_value="0" * 64):
            with derivations() as derived:
                self.load()
            self.assertEqual(derived.call_count, 1)
            (newer,) = self.entries()  # the other version's entry replaces the old one, not kept beside it
        self.assertEqual(newer.split(".")[0], old.split(".")[0])
        self.assertNotEqual(newer, old)
        os.replace(os.path.join(self.folder, newer), os.path.join(self.folder, old))
        with derivations() as derived:  # another version's entry under this version's name: its key says so
            self.load()
        self.assertEqual(derived.call_count, 1)

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0, "only root can give a file to another user")
    def test_an_entry_owned_by_someone_else(self):
        path = self.spoil(lambda path: os.chown(path, 54321, 54321))
        self.assertEqual(os.stat(path).st_uid, os.geteuid())

    def test_an_entry_others_may_write_to(self):
        self.each({"0666": lambda path: os.chmod(path, 0o666), "0620": lambda path: os.chmod(path, 0o620)})
        self.assertEqual(stat.S_IMODE(os.stat(self.entry()).st_mode), 0o600)

    def test_a_link_in_place_of_an_entry_is_not_followed_nor_written_through(self):
        target = os.path.join(self.place, "elsewhere")

        def link(path):
            shutil.copy(path, target)
            os.remove(path)
            os.symlink(target, path)
        with open(self.spoil(link), "rb") as entry, open(target, "rb") as stream:
            self.assertEqual(stream.read(), entry.read())  # (the link's target is as it was)
        self.assertFalse(os.path.islink(self.entry()))


class FolderTests(Folder):
    """A folder that cannot be used means no cache, never an error."""

    def assert_no_cache(self, loads=2):
        for _ in range(loads):
            with mock.patch.object(tiktoken_files, "recover_pairs", wraps=tiktoken_files.recover_pairs) as derived:
                self.assertEqual(self.load().encode(SCRIPTS["Hindi"]), BYTES.encode(SCRIPTS["Hindi"]))
            self.assertEqual(derived.call_count, 1)

    def test_turned_off(self):
        with mock.patch.dict(os.environ, {vocabulary_cache.CACHE_VARIABLE: "", "XDG_CACHE_HOME": self.place,
                                          "HOME": self.place}):
            self.assertEqual(vocabulary_cache.cache_folder()[0], None)
            self.assert_no_cache()
        self.assertEqual(sorted(os.listdir(self.place)), ["small.tiktoken"])

    def test_the_default_folder(self):
        environment = {key: value for key, value in os.environ.items() if key != vocabulary_cache.CACHE_VARIABLE}
        with mock.patch.dict(os.environ, dict(environment, XDG_CACHE_HOME=self.place), clear=True):
            self.assertEqual(vocabulary_cache.cache_folder(), (os.path.join(self.place, "bpe-lab"), "$XDG_CACHE_HOME"))
            self.load()
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.place, "bpe-lab")).st_mode), 0o700)
            self.assertEqual(len(os.listdir(os.path.join(self.place, "bpe-lab"))), 1)
        for xdg in ("", "relative/cache"):  # (a relative XDG_CACHE_HOME is ignored, as the XDG rule says)
            with mock.patch.dict(os.environ, dict(environment, XDG_CACHE_HOME=xdg, HOME=self.place), clear=True):
                self.assertEqual(vocabulary_cache.cache_folder()[0], os.path.join(self.place, ".cache", "bpe-lab"))

    def test_a_folder_others_may_write_to_is_not_used(self):
        os.makedirs(self.folder)
        os.chmod(self.folder, 0o777)
        self.assert_no_cache()
        self.assertEqual(self.entries(), [])

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0, "only root can give a folder to another user")
    def test_a_folder_of_someone_else_is_not_used(self):
        os.makedirs(self.folder, mode=0o700)
        os.chown(self.folder, 54321, 54321)
        self.assert_no_cache()
        self.assertEqual(self.entries(), [])

    def test_a_full_disk(self):
        def full(*arguments, **options):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with mock.patch.object(vocabulary_cache, "atomic_writer", side_effect=full):
            self.assert_no_cache()
        self.assertEqual(self.entries(), [])

    def test_a_disk_filling_up_during_the_write_leaves_nothing_behind(self):
        real = vocabulary_cache.atomic_writer

        class Full:
            def __init__(self, stream):
                self.stream = stream

            def write(self, data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def filling(*arguments, **options):
            writer = real(*arguments, **options)

            class Writer:
                def __enter__(self):
                    return Full(writer.__enter__())

                def __exit__(self, *exception):
                    return writer.__exit__(*exception)
            return Writer()
        with mock.patch.object(vocabulary_cache, "atomic_writer", side_effect=filling):
            self.assert_no_cache(1)
        self.assertEqual(self.entries(), [])

    def test_a_read_only_folder(self):
        os.makedirs(self.folder, mode=0o700)
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # (root writes anywhere: the load runs as another user)
            os.chmod(self.place, 0o755)
            for path in (self.folder, self.ranks):
                os.chown(path, 54321, 54321)
            os.chmod(self.folder, 0o500)
            ids = as_another_user(54321, lambda: self.load().encode("café"))
        else:
            os.chmod(self.folder, 0o500)
            self.addCleanup(os.chmod, self.folder, 0o700)
            ids = self.load().encode("café")
        self.assertEqual(ids, BYTES.encode("café"))
        self.assertEqual(self.entries(), [])

    def test_two_processes_filling_it_at_once_both_succeed(self):
        ready = os.path.join(self.place, "ready-")
        processes = [subprocess.Popen([sys.executable, "-c", LOAD_SCRIPT, ROOT, self.ranks, json.dumps(SPECIALS),
                                       f"{ready}{number} {ready}{1 - number}"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
                     for number in (0, 1)]
        for process in processes:
            out, err = process.communicate(timeout=300)
            self.assertEqual((process.returncode, out, err), (0, f"{BYTES.encode('café')}\n", ""))
        self.assertEqual(len(self.entries()), 1)  # one entry, whole, and no temporary file left
        with mock.patch.object(tiktoken_files, "recover_pairs", side_effect=AssertionError("derived again")):
            self.load()


@require_official("p50k")
class OfficialTests(Folder):
    """``load_named`` goes through the cache: p50k_base and p50k_edit share a file, not an entry."""

    def test_names_that_share_a_file(self):
        base = Tokenizer.load_named("p50k")
        edit = Tokenizer.load_named("p50k_edit")
        self.assertEqual(len(self.entries()), 2)
        self.assertNotEqual(base.special_tokens, edit.special_tokens)
        with never_derived():
            self.assertEqual(Tokenizer.load_named("p50k_base").special_tokens, base.special_tokens)
            self.assertEqual(Tokenizer.load_named("p50k_edit").vocab, edit.vocab)


if __name__ == "__main__":
    unittest.main()
