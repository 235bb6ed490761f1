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
import itertools
import operator
import os
from collections import Counter
from itertools import repeat
from typing import Iterable

from bpelab.checks import check_positive_int, check_sources, check_workers
from bpelab.corpora.workers import results_in_order, worker_pool
from bpelab.merges.learning import trained
from bpelab.merges.superbpe import span_counts
from bpelab.merges.training import count_chunks, reported, training_options, training_text
from bpelab.text.blocks import (can_be_read_again, partition_blocks, read_blocks, safe_blocks, safe_partitions,
                                text_blocks)

TASK_SIZE = (1 << 18, 1 << 24)
"""The smallest and largest task, in characters (or bytes of a file): a quarter of the text per worker
within these, so that every worker has work to the end and the parent adds up few counts."""


def count_in_workers(blocks: Iterable[str], pattern: str = "lab", *, special_tokens: Iterable[str] = (),
                     workers: int = 1, size: int = 0, by_line: bool = False) -> Counter:
    """``count_chunks`` of a text given as blocks, in ``workers`` processes when above 1: the same counts, in order.

    ``size``, the text's length if known, sets the size of the tasks (a
    quarter of the text per worker, within ``TASK_SIZE``). Memory holds at
    most two tasks per worker, and each worker's counts of one. The tasks end
    at the pattern's safe cuts, which are safe ``by_line`` too.
    """
    check_workers(workers)
    return _counted_blocks(blocks, pattern, special_tokens, workers, size, by_line)


def _counted_blocks(blocks, pattern, special_tokens, workers, size, by_line=False):
    """``count_in_workers`` with its options already checked (by ``training.training_options``, say)."""
    count = functools.partial(count_chunks, pattern=pattern, special_tokens=special_tokens, by_line=by_line)
    if workers == 1:
        return count(blocks)
    return _summed(count, _tasks(blocks, pattern, task_size(size, workers)), workers)


def task_size(size, workers):
    """How much text one task holds: a quarter of the text per worker, within ``TASK_SIZE``."""
    return min(max(size // (4 * workers), TASK_SIZE[0]), TASK_SIZE[1])


def _summed(count, tasks, workers, on_task=None):
    """``count`` of each task in ``workers`` processes, the counts added up in the tasks' order (``on_task()``
    hears of each)."""
    total = Counter()
    with worker_pool(None, workers) as pool:
        for _, counts in results_in_order(pool, count, tasks, workers):
            _add_counts(total, counts.result())
            if on_task is not None:
                on_task()
    return total


def count_partition(partition, pattern, special_tokens, by_line=False):
    """The chunk counts of one partition of files (``blocks.safe_partitions``), read by whoever counts them."""
    return count_chunks(partition_blocks(partition), pattern, special_tokens=special_tokens, by_line=by_line)


def _add_counts(total, counts):
    """Add ``counts`` to ``total`` in place: new chunks go at the end, in their order, as ``Counter.update`` does.

    ``Counter.update`` adds another counter one key at a time in Python;
    here ``dict.update`` takes the keys with their summed counts in C.
    """
    keys = counts.keys()
    dict.update(total, zip(keys, map(operator.add, map(total.get, keys, repeat(0)), counts.values())))


def counted_text(text, options):
    """``(chunk counts, SuperBPE's stage-2 counts or None)`` of ``text``, in ``options.workers`` processes.

    ``options`` are the run's ``training.TrainingOptions``. At the byte
    level a lone surrogate is read as U+FFFD (as ``encode`` reads it); at
    the character level it is refused, since no file could hold it.
    """
    text = training_text(text, options.byte_level)
    size = len(text.encode("utf-8")) if options.count_progress else 0
    counts = _counted(reported(text_blocks(text), options, 0, size), options, options.workers, len(text))
    return counts, span_counts(options, text_blocks(text))


def train_from_files(cls, paths, vocab_size, block_size, **options):
    """``bpe.Tokenizer.train_from_files``: the options checked before any file is read, the files' chunks counted
    (``counted_files``), the merges learned from the counts."""
    options = training_options(vocab_size, **options)
    return trained(cls, *counted_files(paths, block_size, options), options, owned=True)


def train_from_iterator(cls, documents: Iterable[str], vocab_size: int, **options):
    """Train on documents, any iterable of strings, read once: no chunk crosses from one document into the next.

    (``bpe.Tokenizer.train_from_iterator``, as Hugging Face's and rustbpe's
    ``train_from_iterator`` take documents.) The options are ``train``'s, all
    checked before the first document is read (``training.training_options``).
    Each document is counted on its own as it comes, so memory holds the
    distinct chunks and one document, never the corpus: ``counted_documents``.
    """
    options = training_options(vocab_size, **options)
    return trained(cls, *counted_documents(documents, options), options, owned=True)


def counted_documents(documents, options):
    """``(chunk counts, SuperBPE's stage-2 counts or None)`` of documents, each cut on its own (a prefix space, if
    asked, in front of each), added up in order; both counts in the one pass. A document that is no str is a
    ``TypeError`` naming its position (0 for the first)."""
    if isinstance(documents, (str, bytes)) or not hasattr(documents, "__iter__"):
        raise TypeError(f"documents must be an iterable of strings (a list, a generator...), not "
                        f"{'a single ' if isinstance(documents, (str, bytes)) else ''}{type(documents).__name__}")
    if options.workers > 1:
        raise ValueError("train_from_iterator counts its documents in this process, as they come; leave workers at 1")
    counts, spans, done = Counter(), None if options.superbpe is None else Counter(), 0
    for position, document in enumerate(documents):
        if not isinstance(document, str):
            raise TypeError(f"document {position} is {type(document).__name__}, not a str: documents must be strings")
        document = training_text(document, options.byte_level, f"document {position}")
        _add_counts(counts, _counted(text_blocks(document), options, 1, 0))
        if spans is not None:
            _add_counts(spans, span_counts(options, text_blocks(document)))
        if options.count_progress is not None:
            done += len(document.encode("utf-8"))
            options.count_progress(done, 0)
    return counts, spans


def counted_files(paths, block_size, options):
    """``(chunk counts, SuperBPE's stage-2 counts or None)`` of inputs read as one concatenated text.

    Each input is a file's path or an open binary stream. One process reads
    ``block_size`` bytes at a time. Several workers each read their own part
    of the files (cut at safe cuts by ``blocks.safe_partitions``) a block at
    a time, so the text never passes through this process; input that can
    be read only once (a stream, a pipe) is read here and handed to the
    workers in tasks of whole blocks, and held for SuperBPE's second count. ``options.count_progress`` hears of the bytes
    counted (SuperBPE's second count goes on from the first's total).
    """
    inputs = check_sources(paths)
    check_positive_int(block_size, "block_size")
    once = [source for source in inputs if not can_be_read_again(source)]
    size = 0 if once else sum(map(os.path.getsize, inputs))
    twice = 2 if options.superbpe is not None else 1
    if options.workers > 1 and not once and not options.add_prefix_space:
        counts = _counted_partitions(inputs, options, size * twice)
    else:
        held = read_blocks(inputs, block_size)
        if once and twice == 2:
            held, again = itertools.tee(held)
        counts = _counted(reported(held, options, 0, size * twice), options, options.workers, size)
    if options.superbpe is None:
        return counts, None
    blocks = again if once else read_blocks(inputs, block_size)
    return counts, span_counts(options, reported(blocks, options, size, size * twice))


def _counted_partitions(paths, options, total):
    """The chunk counts of files in several workers, each reading its own partitions (see ``counted_files``)."""
    partitions = safe_partitions(paths, options.pattern, task_size(sum(map(os.path.getsize, paths)),
                                                                    options.workers))
    count = functools.partial(count_partition, pattern=options.pattern, special_tokens=options.specials,
                              by_line=options.by_line)
    sizes = [sum(segment.end - segment.start for segment in partition) for partition in partitions]
    return _summed(count, partitions, options.workers, _partition_progress(options, sizes, total))


def _partition_progress(options, sizes, total):
    """Each partition's result, told to ``count_progress`` as the bytes counted so far; None without it."""
    if options.count_progress is None:
        return None
    done = itertools.accumulate(sizes)
    return lambda: options.count_progress(next(done), total)


def _counted(blocks, options, workers, size):
    """The chunk counts of a text's blocks; with a prefix space, in this process (training_options sees to that)."""
    if options.add_prefix_space:
        return count_chunks(blocks, options.pattern, special_tokens=options.specials, add_prefix_space=True)
    return _counted_blocks(blocks, options.pattern, options.specials, workers, size, options.by_line)


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
