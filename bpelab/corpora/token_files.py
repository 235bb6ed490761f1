"""Token files: a corpus encoded once, ahead of time, for training a model.

A model is trained on text encoded into a flat file of IDs that training
reads with ``numpy.memmap`` (as nanoGPT's data preparation does).
``encode_files`` writes one; each file's IDs are exactly ``bpe.Tokenizer.encode``
of its whole text. Files are read in blocks cut at safe places (see
``bpelab.corpora.cuts``), so memory holds a few blocks whatever the corpus
(an imported model with no rule for its cuts encodes each file whole); with several
workers, the blocks go to processes in order and come back in order, at most
two per worker in flight (``bpelab.corpora.workers``). ``encode_batch`` shares a list of texts among
workers the same way.

The token file holds the IDs as unsigned little-endian integers (``uint16``
when every ID fits, else ``uint32``), each file's after the last, with the
special token ``separator`` (if given) after each file. Beside it,
``out_path + ".json"`` describes it: dtype, byteorder, tokens, the sha256 of
the tokenizer's file, each file's tokens, the separator. Both are written
atomically, and never disagree: the old description is removed before the
new file takes the old one's place (``writing.atomic_described``), so a run
stopped in between leaves a token file without a description, never beside
another run's. Read it back with ``array.array("H")`` and ``frombytes`` (and
``byteswap`` on a big-endian machine), or ``numpy.memmap(path,
dtype="<u2")`` (``"I"`` and ``"<u4"`` for ``uint32``).
"""

import array
import functools
import hashlib
import json
import os
import sys
from typing import Optional, Sequence

from bpelab.checks import check_callback, check_flag, check_inputs, check_list, check_positive_int, check_text, check_workers
from bpelab.corpora import resuming
from bpelab.corpora.cuts import safe_cut
from bpelab.corpora.token_formats import check_format, format_dtype, index_files, index_paths
from bpelab.corpora.workers import results_in_order, worker_pool, worker_state
from bpelab.formats.lab import file_text
from bpelab.merges.training import Progress
from bpelab.messages import listed, named, shown
from bpelab.reading import PathLike, open_text
from bpelab.text.blocks import BLOCK_SIZE, safe_blocks, stream_blocks
from bpelab.text.specials import SpecialChoice, SpecialTokenInText
from bpelab.writing import atomic_described, check_output_path


TOKEN_FILE_TYPES = {"uint16": "H", "uint32": "I", "int32": "i"}
"""The ``array`` type codes of the ID widths token files use (2 and 4 bytes on every platform Python runs on;
``int32`` is Megatron's)."""


def token_file_dtype(n_vocab):
    """``"uint16"`` when every ID of a vocabulary of ``n_vocab`` fits in 16 bits, else ``"uint32"``."""
    return format_dtype("bin", n_vocab)


def _file_blocks(paths, cut, block_size, progress, first=0, offset=0):
    """``(file number, block, where it ends in its file)`` for every block of every file from file ``first``'s
    byte ``offset`` (a block's end), cut at safe places (``cut``, see ``bpelab.corpora.cuts``; None: each file
    whole); ``progress`` hears of each."""
    sizes = [os.stat(path).st_size for path in paths]
    total, done = sum(sizes), sum(sizes[:first])
    for number, path in enumerate(paths[first:], first):
        with open_text(path) as stream:
            end = offset if number == first else 0
            stream.seek(end)
            try:
                for block in safe_blocks(stream_blocks(stream, path, block_size, end), None, cut):
                    end += len(block.encode("utf-8"))
                    yield number, block, end
                    if progress is not None:
                        progress(done + stream.tell(), total)
            except MemoryError:  # (a stretch with no safe cut, held whole)
                raise MemoryError(f"{named(path)}, read up to byte {stream.tell():,}") from None
        done += sizes[number]


def _block_results(tokenizer, paths, blocks, workers, specials, typecode):
    """For each block, in order: its file number, where it ends, and its IDs as a token file holds them
    (``typecode``), or how many there are (``typecode`` None). Several processes share the work if asked.

    A special token refused in a block, or memory running out on it, is
    reported with the file it is in.
    """

    def blamed_on_its_file(number, result):
        try:
            return result()
        except SpecialTokenInText as error:
            raise SpecialTokenInText(error.token, paths[number]) from None
        except MemoryError:
            raise MemoryError(named(paths[number])) from None

    if workers == 1:
        for number, block, end in blocks:
            yield number, end, blamed_on_its_file(number, lambda: encode_block(tokenizer, block, specials, typecode))
        return
    encode = functools.partial(_encode_block_in_worker, specials=specials, typecode=typecode)
    with worker_pool(tokenizer, workers) as pool:
        for (number, _, end), future in results_in_order(pool, encode, blocks, workers):
            yield number, end, blamed_on_its_file(number, future.result)


def encode_block(tokenizer, text, specials, typecode):
    """A block's IDs as unsigned little-endian integers of the type ``typecode``, or their number for None."""
    ids = tokenizer.encode(text, **specials)
    if typecode is None:
        return len(ids)
    ids = array.array(typecode, ids)
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes()


def _encode_block_in_worker(numbered_block, specials, typecode):
    """``encode_block`` of a ``(file number, block, end)`` in a worker process, with the tokenizer it was started with."""
    return encode_block(worker_state(), numbered_block[1], specials, typecode)


def _encode_in_worker(text, options):
    """``encode`` in a worker process, with the tokenizer it was started with (for ``encode_batch``)."""
    return worker_state().encode(text, **options)



def tokenizer_sha256(tokenizer):
    """The sha256 of the tokenizer's file, as token files' descriptions name the tokenizer that made them."""
    return hashlib.sha256(file_text(tokenizer).encode("utf-8")).hexdigest()


def token_file_options(tokenizer, paths, workers, separator, allowed_special, disallowed_special, block_size):
    """Check every option of a token-file job before reading anything; return the paths and the specials."""
    paths = check_inputs(paths)
    check_workers(workers)
    check_positive_int(block_size, "block_size")
    specials = special_choice(tokenizer, allowed_special, disallowed_special)
    if separator is not None and separator not in tokenizer.special_tokens:
        known = tokenizer.special_tokens
        raise ValueError(f"separator {shown(separator)} is not a special token of this tokenizer (it has "
                         + (f"{len(known):,}: {listed(known)})" if known else "none)"))
    return paths, specials


def encode_files(tokenizer, paths: Sequence[PathLike], out_path: PathLike, *, workers: int = 1,
                 separator: Optional[str] = None, allowed_special: SpecialChoice = None,
                 disallowed_special: SpecialChoice = None, block_size: int = BLOCK_SIZE,
                 progress: Progress = None, format: str = "bin", resume: bool = False) -> dict:
    """Encode UTF-8 files into one flat file of token IDs for training a model; return its description.

    (``Tokenizer.encode_files``.) Each file's IDs are exactly ``encode`` of
    its whole text, in order, with the special token ``separator`` (if given)
    after each; memory holds a few blocks, not the text; ``progress(bytes_done,
    bytes_total)`` hears of each block. ``out_path + ".json"`` describes the
    file (this module's docstring gives the format and how to read it); all
    are written atomically. ``format="megatron"`` or ``"datatrove"`` writes
    the IDs and the index those projects read beside them instead
    (``bpelab.corpora.token_formats``), each file a document. With
    ``resume=True`` a stopped run leaves its work for the same call to go on
    with, and gives the same bytes as one that was never stopped
    (``bpelab.corpora.resuming``).
    """
    paths, specials = token_file_options(tokenizer, paths, workers, separator, allowed_special, disallowed_special,
                                          block_size)
    check_callback(progress, "progress")
    indexes = index_paths(check_format(format), out_path)
    description_path = os.fspath(out_path) + ".json"
    check_flag(resume, "resume")
    kept = list(resuming.kept_paths(out_path)) if resume else []
    for output in [out_path, *indexes, description_path, *kept]:
        target = check_output_path(output, "out_path")
        for path in paths:
            if os.path.exists(target) and os.path.samefile(path, target):
                raise ValueError(f"{named(output)}: is also one of the files to encode; "
                                 "write the tokens somewhere else")
    dtype = format_dtype(format, len(tokenizer))
    typecode = TOKEN_FILE_TYPES[dtype]
    width = array.array(typecode).itemsize
    ending = b"" if separator is None else encode_block(tokenizer, separator, {"allowed_special": "all"}, typecode)
    point = resuming.fresh_point(len(paths))
    if resume:
        plan = resuming.run_plan(tokenizer_sha256(tokenizer), paths, format, dtype, separator, specials, block_size)
        point = resuming.starting_point(out_path, plan)
    with atomic_described(out_path, indexes + [description_path], "out_path",
                          kept=resuming.kept_paths(out_path)[0] if resume else None) as (stream, descriptions):
        checkpoints = None
        if resume:
            stream.truncate(point["bytes"])
            stream.seek(point["bytes"])
            checkpoints = resuming.Checkpoints(out_path, plan, stream)
        blocks = _file_blocks(paths, safe_cut(tokenizer), block_size, progress, point["file"], point["offset"])
        results = _block_results(tokenizer, paths, blocks, workers, specials, typecode)
        counts = _write_ids(stream, results, ending, width, point, checkpoints)
        summary = {} if format == "bin" else {"format": format}
        summary.update({
            "dtype": dtype,
            "byteorder": "little",
            "tokens": sum(counts) + len(paths) * len(ending) // width,
            "tokenizer_sha256": tokenizer_sha256(tokenizer),
            "files": [{"path": path, "tokens": count} for path, count in zip(paths, counts)],
            "separator": separator,
        })
        lengths = [count + len(ending) // width for count in counts]
        name = f"sha256:{summary['tokenizer_sha256']}"  # (datatrove's metadata names the tokenizer)
        for index, data in zip(descriptions, index_files(format, dtype, lengths, name)):
            index.write(data)
        descriptions[-1].write((json.dumps(summary, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
        if checkpoints is not None:
            checkpoints.finish()
    return summary


def _write_ids(stream, results, ending, width, point, checkpoints):
    """Write each block's IDs in order, and ``ending`` after each file's, from ``point`` on; return each file's
    count of IDs (the separators left out). ``checkpoints`` (if any) hear of each point passed."""
    counts, ended = list(point["counts"]), point["ended"]  # ended: files whose IDs and separator are all written
    for number, end, data in results:
        while ended < number:
            stream.write(ending)
            ended += 1
        stream.write(data)
        counts[number] += len(data) // width
        if checkpoints is not None:
            checkpoints.passed({"file": number, "offset": end, "bytes": stream.tell(), "counts": counts,
                                "ended": ended})
    while ended < len(counts):
        stream.write(ending)
        ended += 1
    return counts


def count_files(tokenizer, paths: Sequence[PathLike], *, workers: int = 1, allowed_special: SpecialChoice = None,
                disallowed_special: SpecialChoice = None, block_size: int = BLOCK_SIZE,
                progress: Progress = None) -> list[int]:
    """The number of tokens in each of the UTF-8 files, read block by block as ``encode_files`` reads them.

    (``Tokenizer.count_files``.)
    """
    paths, specials = token_file_options(tokenizer, paths, workers, None, allowed_special, disallowed_special,
                                          block_size)
    check_callback(progress, "progress")
    counts = [0] * len(paths)
    blocks = _file_blocks(paths, safe_cut(tokenizer), block_size, progress)
    for number, _, count in _block_results(tokenizer, paths, blocks, workers, specials, None):
        counts[number] += count
    return counts


def special_choice(tokenizer, allowed_special, disallowed_special):
    """The special-token arguments, checked now (before long work), as keyword arguments for ``encode``.

    Encoding no text at all checks them exactly as encoding each block will.
    """
    tokenizer.encode("", allowed_special=allowed_special, disallowed_special=disallowed_special)
    return {"allowed_special": allowed_special, "disallowed_special": disallowed_special}


def encode_batch(tokenizer, texts: Sequence[str], *, workers: int = 1, allowed_special: SpecialChoice = None,
                 disallowed_special: SpecialChoice = None, dropout: float = 0.0,
                 seed: Optional[int] = None, dropout_rule: str = "subword-nmt") -> list[list[int]]:
    """Encode each of ``texts``: a list of ID lists, in order (``Tokenizer.encode_batch``).

    With ``workers`` above 1, that many processes share the work; each is
    given the tokenizer once, when it starts, with what it has cached. With
    ``dropout=p`` (and ``dropout_rule``, see ``encode``), text number ``i`` (from 0) is encoded with
    the seed ``seed + i``, so the result is the same whatever the number of
    workers.
    """
    check_list(texts, "texts", "strings")
    for text in texts:
        check_text(text, "each of texts")
    check_workers(workers)
    specials = special_choice(tokenizer, allowed_special, disallowed_special)
    tokenizer.encode("", dropout=dropout, seed=seed, dropout_rule=dropout_rule)  # checks them, as the specials
    options = [dict(specials, dropout=dropout, seed=None if seed is None else seed + number, dropout_rule=dropout_rule)
               for number in range(len(texts))]
    if workers == 1 or len(texts) < 2:
        return [tokenizer.encode(text, **choice) for text, choice in zip(texts, options)]
    with worker_pool(tokenizer, workers) as pool:
        return list(pool.map(_encode_in_worker, texts, options, chunksize=max(1, len(texts) // (4 * workers))))

