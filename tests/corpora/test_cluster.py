"""Past one machine: partitions cut at safe cuts, and Dask's workers counting and encoding them.

The partition plan (``blocks.safe_partitions``) is checked on its own, on
random files: counting partitions one by one gives the counts of the files
read as one text, and with ``files_apart`` each file's partitions chunk as
the file does. Then a real two-process ``distributed.LocalCluster``,
started once for the module, counts and encodes, and must give exactly
what one process gives: the counts (in order), the merges, and token-file
shards whose concatenation is ``encode_files``' file.
"""

import json
import logging
import os
import random
import signal
import sys
import tempfile
import time
import unittest
from collections import Counter
from unittest import mock

import bpe
from bpe import Tokenizer
from bpelab.corpora import cluster_counting, cluster_shards, clusters
from bpelab.text import blocks
from tests.clients import installed, skip_or_fail

SPECIAL = "<|endoftext|>"
PIECES = ["ab", " ", "\n", "\u00e9", "\U0001f600", "x", "  ", ".", "\n\n", "1", "\t", "cd", SPECIAL]


def write_files(folder, rng, count, longest=300):
    """Random UTF-8 files made of pieces that make safe cuts rare and varied."""
    paths = []
    for number in range(count):
        path = os.path.join(folder, f"part{number}.txt")
        with open(path, "w", encoding="utf-8", newline="") as stream:
            stream.write("".join(rng.choice(PIECES) for _ in range(rng.randint(0, longest))))
        paths.append(path)
    return paths


def read(path):
    with open(path, encoding="utf-8", newline="") as stream:
        return stream.read()


class PartitionTests(unittest.TestCase):
    """The plan a cluster follows, without a cluster."""

    def test_partitions_count_and_chunk_as_the_whole(self):
        rng = random.Random(3)
        with tempfile.TemporaryDirectory() as folder:
            for trial in range(150):
                paths = write_files(folder, rng, rng.randint(1, 4))
                pattern, size = rng.choice(bpe.PATTERNS), rng.randint(1, 60)
                with self.subTest(trial=trial, pattern=pattern, size=size):
                    total = Counter()
                    for partition in blocks.safe_partitions(paths, pattern, size):
                        total.update(bpe.count_chunks(blocks.partition_blocks(partition, 7), pattern,
                                                      special_tokens=[SPECIAL]))
                    whole = bpe.count_chunks(bpe.read_blocks(paths), pattern, special_tokens=[SPECIAL])
                    self.assertEqual(list(total.items()), list(whole.items()))
                    apart = blocks.safe_partitions(paths, pattern, size, files_apart=True)
                    for number, path in enumerate(paths):
                        texts = ["".join(blocks.partition_blocks(partition)) for partition in apart
                                 if partition[0].number == number]
                        self.assertTrue(texts, "every file has a partition, an empty one too")
                        self.assertEqual([chunk for text in texts for chunk in bpe.chunks(text, pattern)],
                                         bpe.chunks(read(path), pattern))

    def test_a_long_word_is_read_once_not_once_per_boundary(self):
        read = []
        real_open = blocks.open_text

        def counted(path):
            stream = real_open(path)
            reader = stream.read
            stream.read = lambda size: read.append(len(data := reader(size))) or data
            return stream

        with tempfile.TemporaryDirectory() as folder, mock.patch.object(blocks, "open_text", counted):
            path = os.path.join(folder, "word.txt")
            with open(path, "w") as stream:
                stream.write("a" * 200_000 + " b")
            self.assertEqual(blocks.safe_partitions([path], "gpt2", 1000),
                             [[blocks.Segment(0, path, 0, 200_000)], [blocks.Segment(0, path, 200_000, 200_002)]])
        self.assertLess(sum(read), 2 * 200_002)

    def test_a_bad_byte_is_named_with_its_file_and_offset(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bad.txt")
            with open(path, "wb") as stream:
                stream.write(b"good text " * 100 + b"\xff and more " * 10)
            partitions = blocks.safe_partitions([path], "gpt2", 300)
            with self.assertRaisesRegex(ValueError, r"bad.txt: not valid UTF-8 \(byte 1,000"):
                for partition in partitions:
                    list(blocks.partition_blocks(partition))


CLUSTERS = {}
"""The clusters started for this module, each once: "dask" (a client and its cluster) and "ray" (the module,
initialized, and what the process held before)."""


def dask_client():
    """A client of a real ``distributed.LocalCluster`` of two worker processes, started on first use."""
    if "dask" not in CLUSTERS:
        if not installed("distributed"):
            skip_or_fail("dask[distributed] is not installed")
        import distributed

        cluster = distributed.LocalCluster(host="127.0.0.1", dashboard_address=None, n_workers=2,
                                           threads_per_worker=1, processes=True, silence_logs=logging.ERROR)
        try:
            CLUSTERS["dask"] = distributed.Client(cluster, timeout="60s"), cluster
        except BaseException:
            cluster.close()
            raise
    return CLUSTERS["dask"][0]


def ray_cluster():
    """The ``ray`` module, joined to a local Ray cluster of two CPUs started on first use (no usage reports), which
    ``tearDownModule`` stops."""
    if "ray" not in CLUSTERS:
        if not installed("ray"):
            skip_or_fail("ray is not installed")
        # Ray leaves a SIGTERM handler, sys.excepthook and environment variables in its driver, even after
        # shutdown; they are put back then, so the tests after these see the process as it was.
        process = {"environ": dict(os.environ), "excepthook": sys.excepthook,
                   "signals": {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}}
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        CLUSTERS["ray"] = ray, process
    return CLUSTERS["ray"][0]


def tearDownModule():
    for name, (client, cluster) in list(CLUSTERS.items()):
        if name == "ray":
            client.shutdown()
            os.environ.clear()
            os.environ.update(cluster["environ"])
            sys.excepthook = cluster["excepthook"]
            for number, handler in cluster["signals"].items():
                signal.signal(number, handler)
        else:
            try:
                client.close()
            finally:
                cluster.close()
        del CLUSTERS[name]


class ClusterChecks:
    """A real cluster of two worker processes gives exactly one process's counts, merges and token files.

    Each cluster's tests set ``start``, which returns the client."""

    start = None

    @classmethod
    def setUpClass(cls):
        cls.client = cls.start()
        cls.folder = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def setUp(self):
        self.paths = write_files(tempfile.mkdtemp(dir=self.folder.name), random.Random(self.id()), 4, 3000)

    def test_counts_and_merges_equal_one_process(self):
        counts = cluster_counting.count_chunks(self.client, self.paths, "gpt2", special_tokens=[SPECIAL], partition_size=500)
        one = bpe.count_chunks(bpe.read_blocks(self.paths), "gpt2", special_tokens=[SPECIAL])
        self.assertEqual(list(counts.items()), list(one.items()))
        for ties in ("first-seen", "huggingface"):
            options = {"byte_level": True, "pattern": "gpt2", "special_tokens": [SPECIAL], "ties": ties}
            with self.subTest(ties=ties):
                self.assertEqual(Tokenizer.train_from_counts(counts, 400, **options).history,
                                 Tokenizer.train_from_files(self.paths, 400, **options).history)

    def test_shards_concatenate_to_the_token_file(self):
        with open(self.paths[1], "w"):
            pass  # an empty file: a shard holding only the separator
        tokenizer = Tokenizer.train_from_files(self.paths, 300, byte_level=True, special_tokens=[SPECIAL])
        folder = os.path.join(self.folder.name, "shards")
        manifest = cluster_shards.encode_shards(self.client, tokenizer, self.paths, folder, separator=SPECIAL,
                                         allowed_special="all", partition_size=400)
        out = os.path.join(self.folder.name, "all.bin")
        description = tokenizer.encode_files(self.paths, out, separator=SPECIAL, allowed_special="all")
        shards = b""
        for shard in manifest["shards"]:
            with open(os.path.join(folder, shard["name"]), "rb") as stream:
                data = stream.read()
            self.assertEqual(len(data), 2 * shard["tokens"])
            shards += data
        with open(out, "rb") as stream:
            self.assertEqual(shards, stream.read())
        self.assertGreater(len(manifest["shards"]), 8)
        self.assertEqual({key: manifest[key] for key in description}, description)
        with open(os.path.join(folder, cluster_shards.MANIFEST), encoding="utf-8") as stream:
            self.assertEqual(json.load(stream), manifest)

    def test_a_failing_shard_leaves_no_shard_and_no_manifest(self):
        with open(self.paths[2], "ab") as stream:
            stream.write(b"\xff")
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=[SPECIAL])
        folder = os.path.join(self.folder.name, "failed")
        with self.assertRaisesRegex(ValueError, "part2.txt: not valid UTF-8"):
            cluster_shards.encode_shards(self.client, tokenizer, self.paths, folder, allowed_special="all",
                                  partition_size=400)
        self.assertEqual(os.listdir(folder), [])
        with self.assertRaisesRegex(ValueError, "partition_size must be a positive int, not 0"):
            cluster_counting.count_chunks(self.client, self.paths, partition_size=0)

    def test_a_failed_run_stops_its_tasks_and_leaves_the_earlier_dataset_whole(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=[SPECIAL])
        folder = os.path.join(self.folder.name, "kept")
        cluster_shards.encode_shards(self.client, tokenizer, self.paths, folder, allowed_special="all",
                                     partition_size=400)
        earlier = snapshot(folder)
        bad, big = (os.path.join(self.folder.name, name) for name in ("bad.txt", "big.txt"))
        with open(bad, "wb") as stream:
            stream.write(b"\xff")
        with open(big, "w") as stream:
            stream.write("many words to encode " * 75_000)  # 1.6 MB: tasks still running when the bad one fails
        with self.assertRaisesRegex(ValueError, "bad.txt: not valid UTF-8"):
            cluster_shards.encode_shards(self.client, tokenizer, [bad, big], folder, partition_size=50_000)
        self.assertEqual(snapshot(folder), earlier)
        time.sleep(0.5)  # a task left running would write its shard now
        self.assertEqual(snapshot(folder), earlier)

    def test_a_new_run_replaces_the_dataset_and_then_removes_the_old_shards(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=[SPECIAL])
        folder = os.path.join(self.folder.name, "again")
        first = cluster_shards.encode_shards(self.client, tokenizer, self.paths, folder, allowed_special="all",
                                             partition_size=400)
        second = cluster_shards.encode_shards(self.client, tokenizer, self.paths[:2], folder,
                                              allowed_special="all", partition_size=400)
        self.assertEqual(sorted(snapshot(folder)), sorted([cluster_shards.MANIFEST] + [shard["name"]
                                                                                      for shard in second["shards"]]))
        self.assertTrue(all(os.path.dirname(shard["name"]) not in os.listdir(folder) for shard in first["shards"]))
        with open(os.path.join(folder, cluster_shards.MANIFEST), encoding="utf-8") as stream:
            self.assertEqual(json.load(stream), second)

    def test_a_folder_that_is_not_the_labs_is_refused_and_left_as_it_was(self):
        tokenizer = Tokenizer(None, [], byte_level=True, special_tokens=[SPECIAL])
        for number, manifest in enumerate(('{"name": "my-app", "version": "1.0"}', "not json", '{"shards": 3}')):
            folder = os.path.join(self.folder.name, f"theirs{number}")
            os.mkdir(folder)
            with open(os.path.join(folder, cluster_shards.MANIFEST), "w") as stream:
                stream.write(manifest)
            with self.subTest(manifest=manifest), self.assertRaisesRegex(
                    ValueError, f"^{folder}/manifest.json: not a manifest of the lab's shards, so the folder is not "
                    "the lab's; write the shards into a folder of their own$"):
                cluster_shards.encode_shards(self.client, tokenizer, self.paths, folder, allowed_special="all")
            self.assertEqual(snapshot(folder), {cluster_shards.MANIFEST: manifest.encode("utf-8")})


class DaskTests(ClusterChecks, unittest.TestCase):
    start = staticmethod(dask_client)


class RayTests(ClusterChecks, unittest.TestCase):
    start = staticmethod(ray_cluster)

    def test_shards_and_manifest_equal_dasks_byte_for_byte(self):
        tokenizer = Tokenizer.train_from_files(self.paths, 300, byte_level=True, special_tokens=[SPECIAL])
        made = []
        for name, client in (("ray", self.client), ("dask", dask_client())):
            folder = os.path.join(self.folder.name, name)
            made.append((cluster_shards.encode_shards(client, tokenizer, self.paths, folder, separator=SPECIAL,
                                                      allowed_special="all", partition_size=300), snapshot(folder)))
        self.assertEqual(made[0], made[1])
        self.assertGreater(len(made[0][0]["shards"]), 8)

    def test_a_worker_that_dies_is_one_line_naming_its_shard(self):
        folder = os.path.join(self.folder.name, "died")
        cluster_shards.encode_shards(self.client, Tokenizer(None, [], byte_level=True), self.paths[:1], folder)
        earlier = snapshot(folder)
        with open(self.paths[3], "a", encoding="utf-8") as stream:
            stream.write(" " + "x" * 1000 + " die here " + "y" * 1000)
        with self.assertRaises(clusters.WorkerLost) as caught:
            cluster_shards.encode_shards(self.client, DyingTokenizer(None, [], byte_level=True), self.paths,
                                         folder, partition_size=500)
        message = str(caught.exception)
        self.assertRegex(message, r"^shard shards-[0-9a-f]{12}/shard-000\d\d.bin \(.*part3.txt bytes [\d,]+ to "
                                  r"[\d,]+\): the worker running it died \(WorkerCrashedError\); nothing of this run "
                                  r"is kept$")
        self.assertEqual(snapshot(folder), earlier)
        counted = cluster_counting.count_chunks(self.client, self.paths[:2], partition_size=500)
        self.assertEqual(list(counted.items()), list(bpe.count_chunks(bpe.read_blocks(self.paths[:2])).items()),
                         "the cluster works on after losing a worker")


class DyingTokenizer(Tokenizer):
    """A tokenizer whose worker process is killed when it meets the word "die" (pickled by reference to here)."""

    def encode(self, text, **options):
        if " die " in text:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().encode(text, **options)


def snapshot(folder):
    """Every file under ``folder`` (its path there, with ``/``) -> its bytes."""
    found = {}
    for here, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(here, name)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, folder).replace(os.sep, "/")] = stream.read()
    return found


if __name__ == "__main__":
    unittest.main()
