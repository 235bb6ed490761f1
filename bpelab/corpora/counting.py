"""Chunk counts made by worker processes (``bpe.Tokenizer.train(..., workers=N)``): the same counts, in the same order, as ``training.count_chunks``.

Counting chunks is the one step of training whose cost grows with the
corpus, and it shares out: ``counted_text`` cuts the text into tasks of
whole blocks that end at safe cuts (``blocks.safe_blocks``), and
``counted_files`` plans byte ranges of the files that begin and end at safe
cuts (``blocks.safe_partitions``), which the workers read themselves; so
each task's chunks are exactly those of the whole text, and ``workers``
processes (``bpelab.corpora.workers``) count one task each at a time.
The tasks' counts come back in order and are added up in order, so every
chunk keeps the place where it first appeared and ``ties="first-seen"``
sees what one process sees: the merges are those of ``workers=1``.
"""

import functools
import operator
import os
from collections import Counter
from itertools import repeat
from typing import Iterable

from bpelab.checks import check_workers
from bpelab.corpora.workers import results_in_order, worker_pool
from bpelab.merges.training import count_chunks
from bpelab.text.blocks import partition_blocks, read_blocks, safe_blocks, safe_partitions, text_blocks

TASK_SIZE = (1 << 18, 1 << 24)
"""The smallest and largest task, in characters (or bytes of a file): a quarter of the text per worker
within these, so that every worker has work to the end and the parent adds up few counts."""


def count_in_workers(blocks: Iterable[str], pattern: str = "lab", *, special_tokens: Iterable[str] = (),
                     workers: int = 1, size: int = 0) -> Counter:
    """``count_chunks`` of a text given as blocks, in ``workers`` processes when above 1: the same counts, in order.

    ``size``, the text's length if known, sets the size of the tasks (a
    quarter of the text per worker, within ``TASK_SIZE``). Memory holds at
    most two tasks per worker, and each worker's counts of one.
    """
    check_workers(workers)
    count = functools.partial(count_chunks, pattern=pattern, special_tokens=special_tokens)
    if workers == 1:
        return count(blocks)
    return _summed(count, _tasks(blocks, pattern, task_size(size, workers)), workers)


def task_size(size, workers):
    """How much text one task holds: a quarter of the text per worker, within ``TASK_SIZE``."""
    return min(max(size // (4 * workers), TASK_SIZE[0]), TASK_SIZE[1])


def _summed(count, tasks, workers):
    """``count`` of each task in ``workers`` processes, the counts added up in the tasks' order."""
    total = Counter()
    with worker_pool(None, workers) as pool:
        for _, counts in results_in_order(pool, count, tasks, workers):
            _add_counts(total, counts.result())
    return total


def count_partition(partition, pattern, special_tokens):
    """The chunk counts of one partition of files (``blocks.safe_partitions``), read by whoever counts them."""
    return count_chunks(partition_blocks(partition), pattern, special_tokens=special_tokens)


def _add_counts(total, counts):
    """Add ``counts`` to ``total`` in place: new chunks go at the end, in their order, as ``Counter.update`` does.

    ``Counter.update`` adds another counter one key at a time in Python;
    here ``dict.update`` takes the keys with their summed counts in C.
    """
    keys = counts.keys()
    dict.update(total, zip(keys, map(operator.add, map(total.get, keys, repeat(0)), counts.values())))


def counted_text(text, options, workers):
    """The chunk counts of ``text`` (``options`` as ``training.training_options`` gives), in ``workers`` processes."""
    return _counted(text_blocks(text), options, workers, len(text))


def counted_files(paths, options, workers, block_size):
    """The chunk counts of files read as one concatenated text, in ``workers`` processes.

    One process reads ``block_size`` bytes at a time. Several workers each
    read their own part of the files (cut at safe cuts by
    ``blocks.safe_partitions``) a block at a time, so the text never passes
    through this process.
    """
    if workers == 1 or options.add_prefix_space:
        return _counted(read_blocks(paths, block_size), options, 1, 0)
    partitions = safe_partitions(paths, options.pattern, task_size(sum(map(os.path.getsize, paths)), workers))
    count = functools.partial(count_partition, pattern=options.pattern, special_tokens=options.specials)
    return _summed(count, partitions, workers)


def _counted(blocks, options, workers, size):
    """The chunk counts of a text's blocks; with a prefix space, in this process (training_options sees to that)."""
    if options.add_prefix_space:
        return count_chunks(blocks, options.pattern, special_tokens=options.specials, add_prefix_space=True)
    return count_in_workers(blocks, options.pattern, special_tokens=options.specials, workers=workers, size=size)


def _tasks(blocks, pattern, task_size):
    """The text as consecutive tasks, lists of blocks that end at safe cuts, of ``task_size`` characters or more
    (the last may be shorter)."""
    task, held = [], 0
    for block in safe_blocks(blocks, pattern):
        task.append(block)
        held += len(block)
        if held >= task_size:
            yield task
            task, held = [], 0
    if task:
        yield task
