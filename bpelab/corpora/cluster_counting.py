"""Past one machine, on Dask: chunks counted by a cluster, exactly as by one process.

Training's only step whose cost grows with the corpus is counting chunks;
``count_chunks(client, paths, ...)`` cuts the files into partitions that
begin and end at safe cuts (``blocks.safe_partitions``: only a little text
around each boundary is read here), lets the cluster's workers read and
count one partition each, and adds the counts up in partition order: the
result equals ``training.count_chunks`` of the files read as one text,
order included, so ``bpe.Tokenizer.train_from_counts`` on it learns what
``bpe.Tokenizer.train_from_files`` learns. ``bpelab.corpora.cluster_shards``
writes token files on a cluster the same way.

The workers must see the files at the same paths (a shared disk) and
import this package. ``client`` is a ``dask.distributed.Client``; this
module calls its ``map`` and futures and never imports Dask, which the lab
does not need otherwise.
"""

from collections import Counter
from typing import Iterable, Sequence

from bpelab.checks import check_inputs, check_positive_int
from bpelab.corpora.counting import count_partition
from bpelab.text.blocks import PathLike, safe_partitions
from bpelab.text.patterns import check_pattern
from bpelab.text.specials import check_special_text

PARTITION_SIZE = 64 << 20
"""About how many bytes of text each worker reads at a time (64 MiB)."""

def count_chunks(client, paths: Sequence[PathLike], pattern: str = "lab", *, special_tokens: Iterable[str] = (),
                 partition_size: int = PARTITION_SIZE) -> Counter:
    """Each distinct chunk of the files, read as one text, with its count: counted by the cluster's workers.

    Exactly ``training.count_chunks`` of the concatenated files, in the
    order the chunks first appear; hand it to ``Tokenizer.train_from_counts``
    with the same pattern and special tokens.
    """
    paths = check_inputs(paths)
    check_pattern(pattern)
    check_positive_int(partition_size, "partition_size")
    special_tokens = list(special_tokens)
    for text in special_tokens:
        check_special_text(text, byte_level=True)
    futures = client.map(count_partition, safe_partitions(paths, pattern, partition_size), pattern=pattern,
                         special_tokens=special_tokens, pure=False)
    total = Counter()
    for future in futures:  # in partition order, so that each chunk keeps the place where it first appears
        total.update(future.result())
        future.release()
    return total


