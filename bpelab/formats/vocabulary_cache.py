"""The cache of prepared vocabularies: the second load of a file reads flat arrays instead of deriving its tables.

``bpe.Tokenizer.load_tiktoken``, ``load_huggingface`` and ``load_named``
read a file, check it and derive the tables a model encodes with (for
GPT-4o's 200,000 tokens, seconds of Python loops: the merges recovered
from the ranks, checked, each token's bytes). The first load of a file
keeps what it derived (``bpelab.merges.prepared``) as one entry in the
user's cache folder; a later load of the same file reads the entry back:
strings from one UTF-8 block cut by an array of lengths, pair tables from
arrays of IDs (``array.frombytes``), in C, so it takes a fraction of the
time. The tokenizer is the same, to its IDs and its saved file.

The folder is ``$BPE_LAB_CACHE_DIR`` if that is set (empty turns the cache
off), else ``bpe-lab`` in ``$XDG_CACHE_HOME``, else in ``~/.cache``. It is
the trust boundary, as for pip's and tiktoken's caches: it is made 0700,
and a folder or entry that is not this user's, or that others may write
to, is not read. Nothing in an entry is executed or unpickled: it is JSON
and flat arrays. Before anything in it is used, an entry must start with
the key of this load (the sha256 of the source file's bytes, the lab's
version, which is the sha256 of its own source code, the loader and every
argument that changes the result) and its sha256 must match its content
and that key; an entry that is corrupt, cut short or made for anything
else is passed over and written again. Entries are written atomically
(``bpelab.writing``), so two processes filling one at once both succeed;
a folder that cannot be written (read-only, full) means no cache, never
an error. An entry replaces the one of an older version of the lab for the
same file and arguments; the folder may be deleted at any time.
"""

import array
import functools
import hashlib
import json
import operator
import os
import stat
import sys
import unicodedata
from itertools import accumulate, chain

from bpelab.imported.pipeline import Pipeline
from bpelab.merges.engine import MergeTable
from bpelab.merges.prepared import PreparedMerges
from bpelab.reading import collector_paused
from bpelab.writing import atomic_writer

CACHE_VARIABLE = "BPE_LAB_CACHE_DIR"
"""The environment variable that moves the cache's folder, or, set empty, turns the cache off."""

ENTRY_FORMAT = 1
MAGIC = b"bpe-lab prepared vocabulary\n"
"""How an entry starts; then its sha256 (64 hexadecimal digits) on a line, its key, its layout, its arrays."""

UINT32 = next(code for code in "ILH" if array.array(code).itemsize == 4)
UINT64 = "Q"
"""The array types an entry's IDs (and lengths) and a rank table's entries are kept in."""


def cache_folder():
    """The cache's folder and where that choice came from; the folder is None when the cache is off."""
    if CACHE_VARIABLE in os.environ:
        value = os.environ[CACHE_VARIABLE]
        return (os.path.abspath(value) if value else None), f"${CACHE_VARIABLE}"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):  # (the XDG rule: a relative path is ignored)
        return os.path.join(xdg, "bpe-lab"), "$XDG_CACHE_HOME"
    home = os.path.expanduser("~")
    return (os.path.join(home, ".cache", "bpe-lab") if os.path.isabs(home) else None), "~/.cache"


@functools.lru_cache(maxsize=None)
def lab_version():
    """The lab's version, as entries are keyed: the sha256 of ``bpe.py`` and the package's source files, each by
    its path, and of the Python that runs them (its version and its Unicode database's).

    Any change to the code that derives the tables gives new entries; a
    release number alone would not change between two commits.
    """
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    root = os.path.dirname(package)
    digest = hashlib.sha256(f"{sys.version}\0{unicodedata.unidata_version}\0".encode("utf-8", "surrogateescape"))
    paths = [os.path.join(root, "bpe.py")] if os.path.isfile(os.path.join(root, "bpe.py")) else []
    for folder, folders, names in os.walk(package):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        paths += [os.path.join(folder, name) for name in sorted(names) if name.endswith(".py")]
    for path in paths:
        with open(path, "rb") as stream:
            data = stream.read()
        digest.update(f"{os.path.relpath(path, root)}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
        digest.update(data)
    return digest.hexdigest()


def entry_key(loader, source, arguments):
    """``(key, file name)`` of an entry: what it is for, as JSON text (this file by its sha256, this loader and
    arguments, this lab and machine), and a name made of the sha256 of all but the lab's version, then of the key."""
    load = {"entry_format": ENTRY_FORMAT, "byte_order": sys.byteorder, "loader": loader,
            "source_sha256": hashlib.sha256(source).hexdigest(), "arguments": arguments}
    key = json_text({**load, "lab": lab_version()})
    return key, f"{digest_of(json_text(load))[:32]}.{digest_of(key)[:16]}"


def json_text(value):
    """JSON in one line of ASCII, as an entry holds it."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def digest_of(text):
    """The sha256 of a text, in hexadecimal."""
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def load(cls, source, loader, arguments, load_uncached):
    """The tokenizer ``load_uncached(cls)`` gives, from the cache when it holds this load.

    ``source`` is the file's bytes and ``arguments`` (JSON) every argument
    of the loader that changes the result. On a miss, ``load_uncached`` is
    given ``cls`` wrapped so that its one ``cls(...)`` call fills a
    ``PreparedMerges``, which is kept, with the call's other arguments.
    """
    folder, _ = cache_folder()
    try:
        key, name = (None, None) if folder is None else entry_key(loader, source, arguments)
    except OSError:  # (the lab's source cannot be read: no cache)
        key = None
    if key is None:
        return load_uncached(cls)
    with collector_paused():  # (millions of new objects, none in a cycle: see ``reading.collector_paused``)
        found = read_entry(folder, name, key)
        if found is not None:
            call, tables = found
            try:
                return cls(merges=PreparedMerges(tables["merges"], tables), **call)
            except (KeyError, TypeError, ValueError):  # (an entry this code cannot build from: passed over)
                pass
    filling = Filling(cls)
    tokenizer = load_uncached(filling)
    if len(filling.calls) == 1:
        write_entry(folder, name, key, *filling.calls[0])
    return tokenizer


class Filling:
    """``cls`` as a loader calls it, its merges made a ``PreparedMerges`` to fill, each call's arguments kept."""

    def __init__(self, cls):
        self.cls, self.calls = cls, []

    def __call__(self, alphabet, merges, **options):
        prepared = PreparedMerges(merges)
        tokenizer = self.cls(alphabet, prepared, **options)
        self.calls.append(({"alphabet": alphabet, **options}, prepared.tables))
        return tokenizer


# -- the folder ------------------------------------------------------------------------------------------------------


def private(status):
    """Whether a file's status is this user's and no one else may write to it (the folder's trust rule)."""
    owner = os.geteuid() if hasattr(os, "geteuid") else status.st_uid
    return status.st_uid == owner and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def private_folder(folder, create):
    """Whether ``folder`` is a folder of this user's that no one else may write to; made (0700) if ``create``."""
    if create:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    try:
        status = os.stat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and private(status)


def read_entry(folder, name, key):
    """``(call arguments, tables)`` of the entry for ``key``, or None: missing, not private, not whole, or foreign."""
    if not private_folder(folder, create=False):
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)  # (a link is not followed)
    try:
        with open(os.open(os.path.join(folder, name), flags), "rb") as stream:
            status = os.fstat(stream.fileno())
            if not stat.S_ISREG(status.st_mode) or not private(status):
                return None
            data = stream.read()
    except OSError:
        return None
    return entry_tables(data, key)


def write_entry(folder, name, key, call, tables):
    """Keep the entry ``name`` for ``key`` (atomically, 0600), replacing one of an older version of the lab; nothing
    if it cannot be written."""
    try:
        parts = entry_parts(key, call, tables)
    except Uncacheable:
        return
    try:
        if not private_folder(folder, create=True):
            return
        for other in os.listdir(folder):  # (this file's entry of another version, or one not to be written through)
            if other.split(".")[0] == name.split(".")[0]:
                try:
                    os.unlink(os.path.join(folder, other))
                except FileNotFoundError:
                    pass  # (another process took it away first)
        with atomic_writer(os.path.join(folder, name), mode=0o600) as stream:
            for part in parts:
                stream.write(part)
    except OSError:
        return


# -- the entries -----------------------------------------------------------------------------------------------------


class Uncacheable(Exception):
    """A value an entry cannot hold (only JSON, lists of strings or bytes, string pairs and tables of ID pairs)."""


def entry_parts(key, call, tables):
    """An entry as the pieces of bytes it is written in: the head, then each table's arrays."""
    if "merges" not in tables:
        raise Uncacheable("no merges among the tables")
    layout, arrays = {"call": [], "tables": []}, []
    for section, values in (("call", call), ("tables", tables)):
        for name, value in values.items():
            try:
                codec, extra, parts = encoded(value)
            except (OverflowError, TypeError, ValueError):  # (an ID past the arrays' range, a text JSON cannot hold)
                raise Uncacheable(name) from None
            layout[section].append([name, codec, extra, [len(part) for part in parts]])
            arrays += parts
    body = key.encode("ascii") + b"\n" + json_text(layout).encode("ascii") + b"\n"
    digest = hashlib.sha256(body)
    for part in arrays:
        digest.update(part)
    return [MAGIC, digest.hexdigest().encode() + b"\n", body, *arrays]


def entry_tables(data, key):
    """``(call arguments, tables)`` of an entry's bytes, or None unless it is whole and for exactly ``key``."""
    head = len(MAGIC) + 65
    key_line = key.encode("ascii") + b"\n"
    if not data.startswith(MAGIC) or data[head:head + len(key_line)] != key_line:
        return None
    content = memoryview(data)[head:]
    if hashlib.sha256(content).hexdigest().encode() != data[len(MAGIC):head - 1]:
        return None
    try:
        layout_end = data.index(b"\n", head + len(key_line))
        layout = json.loads(data[head + len(key_line):layout_end])
        offset, found = layout_end + 1, {}
        for section in ("call", "tables"):
            found[section] = {}
            for name, codec, extra, lengths in layout[section]:
                parts = []
                for length in lengths:
                    parts.append(content[offset - head:offset - head + length])
                    offset += length
                found[section][name] = decoded(codec, extra, parts)
        if offset != len(data):
            return None
    except (ValueError, KeyError, TypeError, IndexError):  # (whole, by its sha256, yet unreadable: not ours)
        return None
    return found["call"], found["tables"]


def encoded(value):
    """``(codec, JSON extra, parts)``: how an entry holds a value (a list of strings as one block of text)."""
    if isinstance(value, Pipeline):
        if Pipeline(**json.loads(json_text(value.to_json()))) != value:
            raise Uncacheable("a pipeline that JSON does not give back as it was")
        return "pipeline", value.to_json(), []
    if type(value) is MergeTable or isinstance(value, dict) and value and set(map(type, value)) == {tuple}:
        if type(value) not in (dict, MergeTable) or value and set(map(len, value)) != {2}:
            raise Uncacheable(type(value).__name__)
        left, right = map(FIRST, value), map(SECOND, value)  # (each step in C: a table has 500,000 pairs)
        return "pair_table", type(value).__name__, [array.array(UINT32, left).tobytes(),
                                                    array.array(UINT32, right).tobytes(),
                                                    array.array(UINT64, value.values()).tobytes()]
    if isinstance(value, list) and value:
        kinds = set(map(type, value)) - {type(None)}
        if kinds <= {str}:
            return "strings", *string_parts(value)
        if kinds == {bytes}:
            return "bytes", None, bytes_parts(value)
        if kinds == {tuple} and set(map(len, value)) == {2}:
            left, right = list(map(FIRST, value)), list(map(SECOND, value))
            if set(map(type, left)) | set(map(type, right)) == {str}:
                (left_extra, left_parts), (right_extra, right_parts) = string_parts(left), string_parts(right)
                return "pairs", [left_extra, right_extra], left_parts + right_parts
    if repr(json.loads(json_text(value))) != repr(value):  # (a TypeError for what JSON cannot hold at all)
        raise Uncacheable(f"a {type(value).__name__} that JSON does not give back as it was")
    return "json", value, []


FIRST, SECOND = operator.itemgetter(0), operator.itemgetter(1)
"""A pair's parts."""

SEPARATORS = "\0\n" + "".join(map(chr, range(1, 32))) + "".join(map(chr, range(0xE000, 0xE100)))
"""The characters that may join a list of strings in an entry: the first that none of them holds."""


def string_parts(values):
    """A list of strings, None among them: ``(extra, parts)``, the strings joined by a character none holds (the
    extra says which, and how many strings), and where the Nones are."""
    gaps = gaps_of(values)
    texts = [value or "" for value in values] if gaps else values
    for separator in SEPARATORS:  # (a separator no string holds is in the block once between each two)
        block = separator.join(texts)
        if block.count(separator) == len(texts) - 1:
            return {"separator": separator, "count": len(values)}, [block.encode("utf-8", "surrogatepass"), gaps]
    raise Uncacheable("strings that hold every separator")


def bytes_parts(values):
    """A list of bytes, None among them: all of them in one block, their lengths, and where the Nones are."""
    gaps = gaps_of(values)
    present = [value or b"" for value in values] if gaps else values
    return [b"".join(present), array.array(UINT32, map(len, present)).tobytes(), gaps]


def gaps_of(values):
    """Where the Nones of a list are, as an array's bytes (the usual list has none: that is one pass, in C)."""
    if None not in values:
        return b""
    return array.array(UINT32, [at for at, value in enumerate(values) if value is None]).tobytes()


def decoded(codec, extra, parts):
    """The value ``encoded`` wrote as ``(codec, extra, parts)``."""
    if codec == "json":
        return extra
    if codec == "pipeline":
        return Pipeline(**extra)
    if codec == "pair_table":
        left, right, values = (numbers(part, code) for part, code in zip(parts, (UINT32, UINT32, UINT64)))
        return {"dict": dict, "MergeTable": MergeTable}[extra](zip(zip(left, right, strict=True), values,
                                                                   strict=True))
    if codec == "strings":
        return strings(extra, parts)
    if codec == "pairs":
        return list(zip(strings(extra[0], parts[:2]), strings(extra[1], parts[2:]), strict=True))
    block, lengths, gaps = parts
    ends = list(accumulate(numbers(lengths, UINT32)))
    if codec != "bytes" or (ends[-1] if ends else 0) != len(block):
        raise ValueError("the lengths do not add up to the block")
    return with_gaps(list(map(bytes(block).__getitem__, map(slice, chain((0,), ends), ends))), gaps)


def strings(extra, parts):
    """The list of strings ``string_parts`` wrote: the block split at its separator, None put back at the gaps."""
    block, gaps = parts
    values = str(block, "utf-8", "surrogatepass").split(extra["separator"]) if extra["count"] else []
    if len(values) != extra["count"]:
        raise ValueError("not as many strings as the entry says")
    return with_gaps(values, gaps)


def with_gaps(values, gaps):
    """``values`` with None at each place the array ``gaps`` names."""
    for at in numbers(gaps, UINT32):
        values[at] = None
    return values


def numbers(part, code):
    """An array of numbers, read from its bytes."""
    found = array.array(code)
    found.frombytes(part)
    return found
