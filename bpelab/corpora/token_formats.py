"""The token files training code reads: nanoGPT's flat file, Megatron-LM's indexed dataset, datatrove's.

``bpe.Tokenizer.encode_files(..., format=NAME)`` writes the same IDs in
each; this module holds what differs: the width each project chooses for a
vocabulary's size, the files beside the IDs, and what those files hold.
Documents are the input files, one after another, the separator (if any)
ending each, so the IDs are the same in every format (only their width may
differ). The facts come from each project's published source:

- ``bin``: a flat file of IDs, nanoGPT's way; ``uint16`` when the vocabulary
  has at most 65,536 entries, else ``uint32`` (``token_files``).
- ``megatron``: ``PREFIX.bin`` holds the IDs and ``PREFIX.idx`` the index,
  as ``megatron/core/datasets/indexed_dataset.py`` (megatron-core 0.16.1)
  writes and reads them: the 9 bytes ``MMIDIDX\\0\\0``, the version 1
  (``<Q``), the dtype's code (``<B``: 8 for ``uint16``, 4 for ``int32``),
  the number of sequences and of document indices (``<Q`` each), then each
  sequence's length (``int32``), its byte offset in the ``.bin``
  (``int64``) and the document indices (``int64``: 0, then after each
  document the number of sequences so far). A document is one sequence,
  as ``tools/preprocess_data.py`` writes it without ``--split-sentences``;
  a document with no tokens has none. The width is ``DType.optimal_dtype``
  of the vocabulary's size: ``uint16`` under 65,500 entries, else ``int32``.
- ``datatrove``: ``NAME.ds`` holds the IDs, ``NAME.ds.index`` each
  document's end, counted in tokens from the start (``uint64``), and
  ``NAME.ds.metadata`` three lines: the tokenizer's name and the width in
  bytes joined by ``|``, the number of tokens, that number in SI units; as
  ``datatrove/pipeline/tokens/tokenizer.py`` (datatrove 0.10.1) writes them
  and ``datatrove/utils/dataset.py`` reads them. The width is 2 bytes
  (``uint16``) when the vocabulary has at most 65,536 entries, else 4
  (``uint32``), as ``PipelineStepWithTokenizer.token_size`` chooses.

Every integer is little-endian.
"""

import array
import itertools
import struct
import sys

from bpelab.messages import named, shown

FORMATS = ("bin", "megatron", "datatrove")
"""The token-file formats, by the name ``format=`` and ``prepare --format`` take."""

MEGATRON_HEADER = b"MMIDIDX\x00\x00"
"""The first bytes of a Megatron ``.idx`` file (its ``_INDEX_HEADER``)."""

MEGATRON_DTYPE_CODES = {"uint16": 8, "int32": 4}
"""The codes Megatron's ``DType`` gives the two widths its data preparation chooses."""

MAX_SEQUENCE = (1 << 31) - 1
"""The most tokens a Megatron sequence holds (its lengths are ``int32``)."""


def check_format(format):
    """Refuse a format the lab does not write, by name; return it."""
    if format not in FORMATS:
        raise ValueError(f"format {shown(format)} is not one the lab writes; use one of {', '.join(FORMATS)}")
    return format


def format_dtype(format, n_vocab):
    """The ID type a format's own project chooses for a vocabulary of ``n_vocab`` entries.

    >>> [format_dtype(name, 65_500) for name in FORMATS]
    ['uint16', 'int32', 'uint16']
    """
    if format == "megatron":
        return "uint16" if n_vocab < 65_500 else "int32"
    return "uint16" if n_vocab <= 1 << 16 else "uint32"


def index_paths(format, out_path):
    """The files a format writes beside its file of IDs ``out_path``, whose name must end as the format's does."""
    ending = {"megatron": ".bin", "datatrove": ".ds"}.get(format)
    if ending is not None and not str(out_path).endswith(ending):
        raise ValueError(f"{named(out_path)}: a {format} file of IDs is named PREFIX{ending}; "
                         f"give an output that ends in {ending}")
    if format == "megatron":
        return [str(out_path)[:-len(".bin")] + ".idx"]
    if format == "datatrove":
        return [f"{out_path}.index", f"{out_path}.metadata"]
    return []


def index_files(format, dtype, lengths, tokenizer_name):
    """The bytes of each of ``index_paths``' files, for documents of ``lengths`` tokens each."""
    if format == "megatron":
        return [megatron_index(dtype, lengths)]
    if format == "datatrove":
        return [little("Q", itertools.accumulate(lengths)), datatrove_metadata(dtype, sum(lengths), tokenizer_name)]
    return []


def little(typecode, values):
    """``values`` as little-endian integers of the ``array`` type ``typecode``."""
    numbers = array.array(typecode, values)
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers.tobytes()


def megatron_index(dtype, lengths):
    """A Megatron ``.idx`` file for documents of ``lengths`` tokens, each one sequence (none if empty)."""
    sequences = [length for length in lengths if length]
    if sequences and max(sequences) > MAX_SEQUENCE:
        raise ValueError(f"a document of {max(sequences):,} tokens is longer than a Megatron sequence can be "
                         f"({MAX_SEQUENCE:,}); split the file")
    width = 2 if dtype == "uint16" else 4
    pointers = itertools.accumulate([0] + sequences[:-1], lambda offset, length: offset + length * width)
    documents = [0] + list(itertools.accumulate(1 if length else 0 for length in lengths))
    return (MEGATRON_HEADER + struct.pack("<QBQQ", 1, MEGATRON_DTYPE_CODES[dtype], len(sequences), len(documents))
            + little("i", sequences) + little("q", pointers if sequences else []) + little("q", documents))


def datatrove_metadata(dtype, tokens, tokenizer_name):
    """A datatrove ``.ds.metadata`` file: ``NAME|WIDTH``, the number of tokens, that number in SI units."""
    width = 2 if dtype == "uint16" else 4
    return f"{tokenizer_name}|{width}\n{tokens}\n{si_tokens(tokens)}".encode("utf-8")


def si_tokens(count):
    """A number of tokens in SI units with three significant digits, as datatrove's metadata gives it
    (``humanize.metric(count, "T")``).

    >>> si_tokens(0), si_tokens(999), si_tokens(12_404), si_tokens(9_999), si_tokens(123_000), si_tokens(999_999)
    ('0.00 T', '999 T', '12.4 kT', '10.0 kT', '123 kT', '1.00 MT')
    """
    power = len(str(count)) - 1 if count else 0
    scaled = count / 10 ** (power // 3 * 3)
    if round(scaled, max(0, 2 - power % 3)) >= 10 ** (power % 3 + 1):  # rounding carried into the next digit
        power += 1
        scaled = count / 10 ** (power // 3 * 3)
    prefix = " kMGTPEZYRQ"[power // 3].strip()
    return f"{scaled:.{max(0, 2 - power % 3)}f} {prefix}T"
