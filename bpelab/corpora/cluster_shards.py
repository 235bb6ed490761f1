"""Past one machine, on Dask or Ray: token files written by a cluster, exactly as by one process.

``encode_shards`` prepares a dataset as ``bpelab.corpora.cluster_counting``
counts chunks: it cuts the files into partitions that begin and end at safe
cuts, and the cluster's workers write one token file per partition (each
file its own text, as ``bpe.Tokenizer.encode_files`` encodes it), then a JSON
manifest is written; the shards, concatenated in the manifest's order, are
byte for byte the file ``encode_files`` writes.

A run never touches a dataset already in the folder until it is complete
itself: its shards go into a folder of their own that it creates (a name no
other run holds), and the manifest, which names them, is replaced last, in
one rename, so a reader finds the old dataset whole or the new one whole.
Only then are the old manifest's shards removed. A run that fails stops its
workers (each looks for a stop mark between blocks), waits until every task
has ended, and removes exactly the files it wrote; the old dataset stays.

The workers must see the files and the folder at the same paths (a shared
disk) and import this package. ``client`` is a ``dask.distributed.Client``
or the ``ray`` module after ``ray.init()`` (``bpelab.corpora.clusters``,
which says how a worker that dies is reported); neither is imported here.
"""

import array
import contextlib
import hashlib
import json
import os
from typing import Optional, Sequence

from bpelab.checks import check_positive_int
from bpelab.corpora.cluster_counting import PARTITION_SIZE
from bpelab.corpora.clusters import cluster, partition_name
from bpelab.corpora.token_files import (TOKEN_FILE_TYPES, encode_block, token_file_dtype, token_file_options,
                                        tokenizer_sha256)
from bpelab.messages import named
from bpelab.reading import read_json
from bpelab.text.blocks import PathLike, partition_blocks, safe_blocks, safe_partitions
from bpelab.text.specials import SpecialChoice, SpecialTokenInText
from bpelab.writing import atomic_writer

MANIFEST = "manifest.json"
"""The manifest's name in the shards' folder."""

STOP = ".stop"
"""The mark a failed run leaves in its own folder, telling its tasks to stop at their next block."""


class Stopped(Exception):
    """A task gives up its shard: its run failed elsewhere."""


def encode_shards(client, tokenizer, paths: Sequence[PathLike], folder: PathLike, *,
                  separator: Optional[str] = None, allowed_special: SpecialChoice = (),
                  disallowed_special: SpecialChoice = "all", partition_size: int = PARTITION_SIZE) -> dict:
    """Encode files into token-file shards, one per partition, written by the workers; return the manifest.

    ``folder`` receives a folder of this run's shards, ``shards-HASH/``
    (the hash of the plan; ``-2``, ``-3``... if that name is taken), holding
    ``shard-00000.bin``, ..., and ``manifest.json``: the shards' names
    (relative to ``folder``) in order with their token counts and byte
    ranges, then what ``encode_files``' description holds (dtype,
    byteorder, tokens, the tokenizer's sha256, each file's tokens, the
    separator, which follows each file's last shard). Every file is written
    atomically, the manifest last, and then the shards of the manifest it
    replaced are removed; if a shard fails, every task is stopped and waited
    for, and the shards this run wrote are removed, leaving the folder as it was.
    """
    paths, specials = token_file_options(tokenizer, paths, 1, separator, allowed_special, disallowed_special, 1)
    check_positive_int(partition_size, "partition_size")
    os.makedirs(folder, exist_ok=True)
    _shards_named(folder)  # a manifest that is not the lab's is refused now, before any work
    dtype = token_file_dtype(len(tokenizer))
    ending = b"" if separator is None else encode_block(tokenizer, separator, {"allowed_special": "all"},
                                                        TOKEN_FILE_TYPES[dtype])
    partitions = safe_partitions(paths, tokenizer.pattern, partition_size, files_apart=True)
    last_of_file = [index + 1 == len(partitions) or partitions[index + 1][0].number != partition[0].number
                    for index, partition in enumerate(partitions)]
    run = _claim_run_folder(folder, [tokenizer_sha256(tokenizer), paths, partitions, separator, specials])
    digits = max(5, len(str(len(partitions) - 1)))
    names = [f"{run}/shard-{index:0{digits}d}.bin" for index in range(len(partitions))]
    on = cluster(client)
    tasks = on.map(_encode_partition, partitions, [os.path.join(folder, name) for name in names],
                   [ending if last else b"" for last in last_of_file], tokenizer=on.share(tokenizer),
                   specials=specials, dtype=dtype, stop=os.path.join(folder, run, STOP))
    try:
        tokens = list(on.results(tasks, [f"shard {name} ({partition_name(partition)})"
                                         for name, partition in zip(names, partitions)]))
    except BaseException:
        _stop_and_remove(on, tasks, folder, run, names)
        raise
    ending_tokens = len(ending) // array.array(TOKEN_FILE_TYPES[dtype]).itemsize
    manifest = _manifest(tokenizer, paths, partitions, names, tokens, dtype, separator,
                         [ending_tokens if last else 0 for last in last_of_file])
    replaced = _shards_named(folder)
    with atomic_writer(os.path.join(folder, MANIFEST), "folder") as stream:
        stream.write((json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    _remove(folder, [name for name in replaced if os.path.dirname(name) != run])
    return manifest


def _claim_run_folder(folder, plan):
    """Create the folder of this run's shards and return its name: ``shards-`` and the plan's hash, numbered on if
    taken (``os.mkdir`` fails on a name that exists, so two runs never share one)."""
    digest = hashlib.sha256(json.dumps(plan, ensure_ascii=False, default=sorted).encode("utf-8")).hexdigest()[:12]
    for number in range(1, 10_000):
        name = f"shards-{digest}" + (f"-{number}" if number > 1 else "")
        with contextlib.suppress(FileExistsError):
            os.mkdir(os.path.join(folder, name))
            return name
    raise ValueError(f"{folder}: 9,999 folders of shards-{digest} already; remove the old ones")


def _stop_and_remove(on, tasks, folder, run, names):
    """After a failure: tell this run's tasks still there to stop, wait until every one has ended, then remove
    what the run wrote."""
    stop = os.path.join(folder, run, STOP)
    with contextlib.suppress(OSError):
        open(stop, "wb").close()
    try:
        on.wait(tasks)  # each running task stops at its next block; the rest at once
    finally:
        with contextlib.suppress(OSError):  # a worker that died left its shard's temporary file in this run's folder
            names = names + [f"{run}/{name}" for name in os.listdir(os.path.join(folder, run))
                             if name.startswith(".tmp-") and name.endswith(".part")]
        _remove(folder, names + [os.path.join(run, STOP)])


def _remove(folder, names):
    """Remove the files ``names`` (relative to ``folder``) that are there, then their folders if left empty."""
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(folder, name))
    for inner in sorted({os.path.dirname(name) for name in names} - {""}):
        with contextlib.suppress(OSError):  # not empty: something else is in it, and stays
            os.rmdir(os.path.join(folder, inner))


def _shards_named(folder):
    """The shards the folder's manifest names (relative to the folder); none if it has no manifest.

    A manifest that is not one this module writes is refused: the folder is
    not the lab's, and its ``manifest.json`` is not replaced. Only names this
    module writes are taken, ``NAME`` or ``FOLDER/NAME`` with no ``..`` and
    no symbolic link for ``FOLDER``, so a manifest cannot make a run remove
    other files.
    """
    path = os.path.join(folder, MANIFEST)
    if not os.path.lexists(path):
        return []
    try:
        manifest = read_json(path, "folder")
        names = [shard["name"] for shard in manifest["shards"]]
        if not isinstance(manifest.get("tokenizer_sha256"), str):
            raise KeyError("tokenizer_sha256")
    except (ValueError, TypeError, KeyError, AttributeError):
        raise ValueError(f"{named(path)}: not a manifest of the lab's shards, so the folder is not the lab's; "
                         "write the shards into a folder of their own") from None
    return [name for name in names if isinstance(name, str) and 1 <= len(name.split("/")) <= 2
            and not {"", ".", ".."} & set(name.split("/")) and "\\" not in name
            and not os.path.islink(os.path.join(folder, os.path.dirname(name) or "."))]


def _encode_partition(partition, path, ending, tokenizer, specials, dtype, stop):
    """In a worker: one partition's IDs, then ``ending``, written atomically to ``path``; return how many.

    Before each block it looks for ``stop``: a run that failed elsewhere
    leaves it, and the shard is given up (None), its file never made.
    """
    typecode = TOKEN_FILE_TYPES[dtype]
    written = 0
    try:
        with atomic_writer(path, "folder") as stream:
            for block in safe_blocks(partition_blocks(partition), tokenizer.pattern):
                if os.path.exists(stop):
                    raise Stopped(path)
                try:
                    data = encode_block(tokenizer, block, specials, typecode)
                except SpecialTokenInText as error:
                    raise SpecialTokenInText(error.token, partition[0].path) from None
                stream.write(data)
                written += len(data)
            stream.write(ending)
    except Stopped:
        return None
    return (written + len(ending)) // array.array(typecode).itemsize


def _manifest(tokenizer, paths, partitions, names, tokens, dtype, separator, separators):
    """The manifest: the shards in order, then the fields of ``encode_files``' description.

    ``separators`` says how many of each shard's tokens are the separator,
    which a file's count (as ``encode_files`` gives it) leaves out.
    """
    per_file = [0] * len(paths)
    for partition, count, ending in zip(partitions, tokens, separators):
        per_file[partition[0].number] += count - ending
    return {
        "shards": [{"name": name, "tokens": count, "path": partition[0].path, "start": partition[0].start,
                    "end": partition[0].end} for name, count, partition in zip(names, tokens, partitions)],
        "dtype": dtype,
        "byteorder": "little",
        "tokens": sum(tokens),
        "tokenizer_sha256": tokenizer_sha256(tokenizer),
        "files": [{"path": path, "tokens": count} for path, count in zip(paths, per_file)],
        "separator": separator,
    }

