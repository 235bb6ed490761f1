"""Fetching the official files, only when asked: ``bpe fetch NAME...`` and ``bpe fetch URL --sha256 HEX -o FILE``.

``bpe.Tokenizer.load_named`` downloads nothing; this module is the one
place the lab opens a network connection, and only from the command line's
``fetch``. An official encoding's files come from the addresses tiktoken
0.14.0 downloads them from (``tiktoken_cache.FILES``), each checked against
the sha256 tiktoken checks, and go into tiktoken's cache folder under the
name tiktoken gives them (the sha1 of the address), so that either tool
finds them there. Any other file is fetched the same way to a path of its
own, checked against the sha256 given.

What a download may do is bounded: https only (plain http only to
127.0.0.1, for a test server), at most ``MAX_REDIRECTS`` redirects, each
held to the same rule, at most ``MAX_DOWNLOAD_BYTES`` bytes, ``TIMEOUT``
seconds of silence. The data is written through ``writing.atomic_writer``
and the checksum is checked before the file is put in place, so a wrong
checksum, a download cut short, no network or a folder that cannot be
written leaves nothing behind, and the error is one line. The variable
``BPE_LAB_FETCH_BASE`` replaces the start of every official address
(``https://openaipublic.blob.core.windows.net/``): the tests point it at a
server of their own on 127.0.0.1, and a mirror can be named the same way.
"""

import hashlib
import http.client
import os
import urllib.error
import urllib.parse
import urllib.request

from bpelab.formats.official import ENCODINGS, NAMES
from bpelab.formats.tiktoken_cache import BLOB, FILES, cache_folder, cache_name
from bpelab.messages import named, shown
from bpelab.writing import atomic_writer, check_output_path

MAX_REDIRECTS = 5
"""The most redirects one download follows."""

MAX_DOWNLOAD_BYTES = 256 << 20
"""The largest file fetched (o200k_base.tiktoken is 3.6 MB)."""

TIMEOUT = 30.0
"""How many seconds a connection may stay silent before the download is given up."""

BASE_VARIABLE = "BPE_LAB_FETCH_BASE"


def check_address(url):
    """Refuse an address the lab does not fetch from: https, or http to 127.0.0.1 only."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return url
    if parts.scheme == "http" and parts.hostname == "127.0.0.1":
        return url
    raise ValueError(f"{shown(url)}: the lab fetches over https only (plain http only from 127.0.0.1)")


class Redirects(urllib.request.HTTPRedirectHandler):
    """Follow at most ``MAX_REDIRECTS`` redirects, each to an address ``check_address`` allows."""

    max_redirections = MAX_REDIRECTS

    def redirect_request(self, request, stream, code, message, headers, new_url):
        check_address(urllib.parse.urljoin(request.full_url, new_url))
        return super().redirect_request(request, stream, code, message, headers, new_url)


def fetch(url, sha256, path):
    """Download ``url`` to ``path`` atomically, only if its bytes have this sha256; return how many bytes.

    Nothing is left at ``path`` (nor beside it) unless the whole file came
    and its checksum is right; an error is one line naming the address.
    """
    check_address(url)
    check_output_path(path, "-o/--output")  # (before any connection)
    if not (isinstance(sha256, str) and len(sha256) == 64 and all(char in "0123456789abcdef" for char in sha256)):
        raise ValueError(f"--sha256 must be 64 lowercase hexadecimal digits, not {shown(sha256)}")
    opener = urllib.request.build_opener(Redirects)
    try:
        with opener.open(url, timeout=TIMEOUT) as answer, atomic_writer(path, "-o/--output") as stream:
            size, digest = copied(answer, stream, url)
            if digest != sha256:
                raise ValueError(f"{shown(url)}: its sha256 is {digest}, not {sha256}; nothing was written")
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:  # (urllib gives up on the redirect after MAX_REDIRECTS)
            raise ValueError(f"{shown(url)}: more than {MAX_REDIRECTS} redirects; nothing was written") from None
        raise ValueError(f"{shown(url)}: the server answered {error.code} {error.reason}") from None
    except urllib.error.URLError as error:
        raise ValueError(f"{shown(url)}: cannot download it ({error.reason})") from None
    except (http.client.HTTPException, TimeoutError, ConnectionError) as error:
        raise ValueError(f"{shown(url)}: the download broke off ({error or type(error).__name__}); nothing was "
                         "written") from None
    return size


def copied(answer, stream, url):
    """Copy an answer's body into ``stream``; its size and sha256, refusing more than ``MAX_DOWNLOAD_BYTES``."""
    digest, size = hashlib.sha256(), 0
    promised = answer.headers.get("Content-Length")
    while True:
        block = answer.read(1 << 16)
        if not block:
            if promised is not None and promised.isdigit() and int(promised) != size:
                raise ConnectionError(f"{size:,} of {int(promised):,} bytes")
            break
        size += len(block)
        if size > MAX_DOWNLOAD_BYTES:
            raise ValueError(f"{shown(url)}: larger than {MAX_DOWNLOAD_BYTES:,} bytes; nothing was written")
        digest.update(block)
        stream.write(block)
    return size, digest.hexdigest()


def official_address(filename):
    """Where an official file is fetched from: tiktoken's address, or the same under ``$BPE_LAB_FETCH_BASE``."""
    address = FILES[filename][0]
    base = os.environ.get(BASE_VARIABLE)
    return address if not base else base.rstrip("/") + "/" + address[len(BLOB):]


def fetch_named(name):
    """Fetch the files of the official encoding ``name`` into tiktoken's cache; a line per file saying what was done."""
    if name not in NAMES:
        raise ValueError(f"{shown(name)} is no official vocabulary's name; the names are {', '.join(NAMES)}")
    folder, chosen = cache_folder()
    if not folder:
        raise ValueError(f"nowhere to put {name}'s files: {chosen} is empty, which turns tiktoken's cache off")
    os.makedirs(folder, exist_ok=True)
    said = []
    for filename in ENCODINGS[NAMES[name]].sources[0]:
        path = os.path.join(folder, cache_name(filename))
        if already_here(path, FILES[filename][1]):
            said.append(f"{filename}: already in {named(folder)} ({chosen})")
            continue
        size = fetch(official_address(filename), FILES[filename][1], path)
        said.append(f"{filename}: {size:,} bytes, sha256 checked, into {named(folder)} ({chosen}) as "
                    f"{cache_name(filename)}")
    return said


def already_here(path, sha256):
    """Whether ``path`` is a regular file with this sha256."""
    if not os.path.isfile(path):
        return False
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == sha256
