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

Every integer is little-endian. ``read_documents`` reads either back, each
document's IDs, refusing a partial or inconsistent index by name.
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


MEGATRON_READ_TYPES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 8: "H"}
"""The ``array`` type codes of Megatron's integer ``DType`` codes (6 and 7 are floats, never IDs)."""


def read_documents(path, format):
    """Each document's IDs, as lists, of a Megatron (``PREFIX.bin``) or datatrove (``NAME.ds``) token file.

    Read as the project's own reader reads it, with every check it makes and
    more: a partial or inconsistent index is a ``ValueError`` naming the file
    and what is wrong, never IDs read from the wrong place.
    """
    if check_format(format) == "bin":
        raise ValueError("format 'bin' has no index; its description (OUT.json) counts each file's tokens")
    index_path = index_paths(format, path)[0]
    with open(index_path, "rb") as stream:
        index = stream.read()
    with open(path, "rb") as stream:
        data = stream.read()
    if format == "megatron":
        typecode, starts, ends = _megatron_spans(index_path, index, len(data))
    else:
        typecode, starts, ends = _datatrove_spans(path, index, len(data))
    width = array.array(typecode).itemsize
    return [_numbers(typecode, data[start * width:end * width]) for start, end in zip(starts, ends)]


def _numbers(typecode, data):
    """Little-endian numbers of ``typecode`` as a list."""
    numbers = array.array(typecode, data)
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers.tolist()


def _megatron_spans(name, index, size):
    """The ID type of a Megatron ``.idx`` and each document's first and past-last token, checked against the
    ``.bin``'s ``size`` in bytes."""
    if len(index) < 34 or index[:9] != MEGATRON_HEADER:
        raise ValueError(f"{named(name)}: not a Megatron index (it starts with {shown(index[:9])}, not "
                         f"{shown(MEGATRON_HEADER)}, or ends before its 34-byte header does)")
    version, code, sequences, documents = struct.unpack_from("<QBQQ", index, 9)
    if version != 1 or code not in MEGATRON_READ_TYPES:
        raise ValueError(f"{named(name)}: version {version} with dtype code {code}; "
                         "only version 1 with an integer dtype is read")
    needed = 34 + 12 * sequences + 8 * documents
    if len(index) != needed:
        raise ValueError(f"{named(name)}: partial or too long: {len(index):,} bytes where its header's "
                         f"{sequences:,} sequences and {documents:,} document indices take {needed:,}")
    lengths = _numbers("i", index[34:34 + 4 * sequences])
    pointers = _numbers("q", index[34 + 4 * sequences:34 + 12 * sequences])
    bounds = _numbers("q", index[34 + 12 * sequences:])
    width = array.array(MEGATRON_READ_TYPES[code]).itemsize
    places = [0] + list(itertools.accumulate(length * width for length in lengths))
    if (pointers != places[:-1] or places[-1] > size or not bounds or bounds[0] != 0 or bounds[-1] != sequences
            or any(later < earlier for earlier, later in zip(bounds, bounds[1:]))):
        raise ValueError(f"{named(name)}: its sequences and documents do not describe its .bin of {size:,} bytes "
                         "one after another")
    return MEGATRON_READ_TYPES[code], [places[i] // width for i in bounds[:-1]], [places[i] // width
                                                                              for i in bounds[1:]]


def _datatrove_spans(path, index, size):
    """The ID type of a datatrove ``.ds`` (from its metadata's first line) and each document's first and
    past-last token (from its ``.ds.index``)."""
    metadata = path + ".metadata"
    with open(metadata, "rb") as stream:
        first = stream.read(4096).split(b"\n")[0]
    width = first.rpartition(b"|")[2]
    if width not in (b"2", b"4"):
        raise ValueError(f"{named(metadata)}: its first line is not NAME|2 or NAME|4 (the width of an ID)")
    width = int(width)
    tokens = size // width
    if len(index) % 8 or size % width:
        raise ValueError(f"{named(path + '.index')}: partial: {len(index):,} bytes, not whole 8-byte ends, "
                         f"or the .ds of {size:,} bytes is not whole {width}-byte IDs")
    ends = _numbers("Q", index)
    if any(later < earlier for earlier, later in zip(ends, ends[1:])) or (ends[-1] if ends else 0) != tokens:
        raise ValueError(f"{named(path + '.index')}: its document ends do not rise to the .ds's {tokens:,} IDs")
    return "H" if width == 2 else "I", [0] + ends[:-1], ends
