"""Past one machine, on Dask or Ray: chunks counted by a cluster, exactly as by one process.

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
import this package. ``client`` is a ``dask.distributed.Client`` or the
``ray`` module after ``ray.init()`` (``bpelab.corpora.clusters``); neither
is imported here, and the lab does not need them otherwise.
"""

from collections import Counter
from typing import Iterable, Sequence

from bpelab.checks import check_inputs, check_positive_int
from bpelab.corpora.clusters import cluster, partition_name
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
    partitions = safe_partitions(paths, pattern, partition_size)
    on = cluster(client)
    tasks = on.map(count_partition, partitions, pattern=pattern, special_tokens=special_tokens)
    total = Counter()
    names = [f"partition {number:,} of {len(partitions):,} ({partition_name(partition)})"
             for number, partition in enumerate(partitions, 1)]
    for counts in on.results(tasks, names):  # in partition order: each chunk keeps the place it first appears in
        total.update(counts)
    return total
