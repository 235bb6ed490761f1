"""Past one machine, on Dask: token files written by a cluster, exactly as by one process.

``encode_shards`` prepares a dataset as ``bpelab.corpora.cluster_counting``
counts chunks: it cuts the files into partitions that begin and end at safe
cuts, and the cluster's workers write one token file per partition (each
file its own text, as ``bpe.Tokenizer.encode_files`` encodes it), then a JSON
manifest is written; the shards, concatenated in the manifest's order, are
byte for byte the file ``encode_files`` writes.

The workers must see the files and the folder at the same paths (a shared
disk) and import this package. ``client`` is a ``dask.distributed.Client``;
this module calls its ``map``, ``scatter`` and futures and never imports
Dask.
"""

import array
import contextlib
import json
import os
from typing import Optional, Sequence

from bpelab.checks import check_positive_int
from bpelab.corpora.cluster_counting import PARTITION_SIZE
from bpelab.corpora.token_files import (TOKEN_FILE_TYPES, encode_block, token_file_dtype, token_file_options,
                                        tokenizer_sha256)
from bpelab.text.blocks import PathLike, partition_blocks, safe_blocks, safe_partitions
from bpelab.text.specials import SpecialChoice, SpecialTokenInText
from bpelab.writing import atomic_writer

MANIFEST = "manifest.json"
"""The manifest's name in the shards' folder."""


def encode_shards(client, tokenizer, paths: Sequence[PathLike], folder: PathLike, *,
                  separator: Optional[str] = None, allowed_special: SpecialChoice = (),
                  disallowed_special: SpecialChoice = "all", partition_size: int = PARTITION_SIZE) -> dict:
    """Encode files into token-file shards, one per partition, written by the workers; return the manifest.

    ``folder`` receives ``shard-00000.bin``, ... and ``manifest.json``: the
    shards' names in order with their token counts and byte ranges, then
    what ``encode_files``' description holds (dtype, byteorder, tokens, the
    tokenizer's sha256, each file's tokens, the separator, which follows
    each file's last shard). Every file is written atomically, the manifest
    last; if a shard fails, the shards already written are removed.
    """
    paths, specials = token_file_options(tokenizer, paths, 1, separator, allowed_special, disallowed_special, 1)
    check_positive_int(partition_size, "partition_size")
    os.makedirs(folder, exist_ok=True)
    dtype = token_file_dtype(len(tokenizer))
    ending = b"" if separator is None else encode_block(tokenizer, separator, {"allowed_special": "all"},
                                                        TOKEN_FILE_TYPES[dtype])
    partitions = safe_partitions(paths, tokenizer.pattern, partition_size, files_apart=True)
    digits = max(5, len(str(len(partitions) - 1)))
    names = [f"shard-{index:0{digits}d}.bin" for index in range(len(partitions))]
    last_of_file = [index + 1 == len(partitions) or partitions[index + 1][0].number != partition[0].number
                    for index, partition in enumerate(partitions)]
    shared = client.scatter(tokenizer, broadcast=True)
    futures = client.map(_encode_partition, partitions, [os.path.join(folder, name) for name in names],
                         [ending if last else b"" for last in last_of_file], tokenizer=shared, specials=specials,
                         dtype=dtype, pure=False)
    try:
        tokens = client.gather(futures)
    except BaseException:
        for name in names:
            with contextlib.suppress(FileNotFoundError):  # a shard never written
                os.remove(os.path.join(folder, name))
        raise
    ending_tokens = len(ending) // array.array(TOKEN_FILE_TYPES[dtype]).itemsize
    manifest = _manifest(tokenizer, paths, partitions, names, tokens, dtype, separator,
                         [ending_tokens if last else 0 for last in last_of_file])
    with atomic_writer(os.path.join(folder, MANIFEST), "folder") as stream:
        stream.write((json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return manifest


def _encode_partition(partition, path, ending, tokenizer, specials, dtype):
    """In a worker: one partition's IDs, then ``ending``, written atomically to ``path``; return how many."""
    typecode = TOKEN_FILE_TYPES[dtype]
    written = 0
    with atomic_writer(path, "folder") as stream:
        for block in safe_blocks(partition_blocks(partition), tokenizer.pattern):
            try:
                data = encode_block(tokenizer, block, specials, typecode)
            except SpecialTokenInText as error:
                raise SpecialTokenInText(error.token, partition[0].path) from None
            stream.write(data)
            written += len(data)
        stream.write(ending)
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

