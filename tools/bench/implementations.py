"""Who is measured: the lab and its peers, each behind a small adapter of the same shape per kind of job.

A job (``jobs``) times whatever adapter its spec's ``impl`` names, so one
job function measures them all. Each adapter imports what it wraps inside
itself: a missing peer then only skips that peer, and the benchmark's own
process never imports the lab. The lab is reached through ``bpe``'s public
API alone (``bpe.__all__``; ``docs/api.md``), so the same adapters run any
commit's ``bpe.py``, before and after its machinery moved (``--compare``);
the two documented ``bpelab`` modules the jobs need are found where the
commit keeps them (``documented_module``).

Peers (Hugging Face ``tokenizers``, ``tiktoken``, ``subword-nmt``,
``puretiktoken``, ``rustbpe``, Dask) run on the same job in the same run
when installed (``pip install -r requirements-bench.txt``).
"""

import hashlib
import importlib
import json
import os
from collections import namedtuple
from functools import partial
from itertools import chain

from .corpora import pieces, read_tiktoken_ranks
from .probes import Unmeasured

Implementation = namedtuple("Implementation", "label distribution env")
"""How an implementation is shown, the pip distribution providing it (None for
the lab itself, whose code ``--compare`` runs at both commits), and extra
environment variables for its worker process."""

# Hugging Face tokenizers uses a Rust thread pool; we pin it to one thread so
# that every implementation is compared single-threaded.
ONE_THREAD = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
TWO_THREADS = {"RAYON_NUM_THREADS": "2", "TOKENIZERS_PARALLELISM": "true"}
"""The trainers phase also gives the Rust trainers the two cores the lab's two worker processes use."""

IMPLEMENTATIONS = {
    "ours": Implementation("ours (bpe.py)", None, {}),
    "ours-format2": Implementation("ours, Tokenizer.load of our format 2", None, {}),
    "ours-format3": Implementation("ours, Tokenizer.load of a format-3 copy", None, {}),
    "reference": Implementation("reference (bpe.reference_train)", None, {}),
    "ours-iterable": Implementation("ours, encode_iterable(open file)", None, {}),
    "ours-warm": Implementation("ours, its vocabulary cache filled", None, {}),
    "findall": Implementation("re.findall of the pattern alone (no merges, no IDs)", None, {}),
    "hf": Implementation("HF tokenizers, 1 thread", "tokenizers", ONE_THREAD),
    "hf-export": Implementation("HF tokenizers, save_huggingface() as exported, 1 thread", "tokenizers", ONE_THREAD),
    "tiktoken": Implementation("tiktoken, same merges", "tiktoken", {}),
    "tiktoken-gpt2": Implementation("tiktoken, our merges, GPT-2's original pattern", "tiktoken", {}),
    "tiktoken-export": Implementation("tiktoken, to_tiktoken() as exported", "tiktoken", {}),
    "tiktoken-batch": Implementation("tiktoken encode_ordinary_batch (8 threads), ~1 MB pieces", "tiktoken", {}),
    "tiktoken-official": Implementation("tiktoken, same vocabulary file", "tiktoken", {}),
    "puretiktoken": Implementation("puretiktoken (pure Python)", "puretiktoken", {}),
    "subword-nmt": Implementation("subword-nmt", "subword-nmt", {}),
    "rustbpe": Implementation("rustbpe, 1 thread", "rustbpe", {"RAYON_NUM_THREADS": "1"}),
    "rustbpe-2": Implementation("rustbpe, 2 threads", "rustbpe", TWO_THREADS),
    "hf-2": Implementation("HF tokenizers, 2 threads", "tokenizers", TWO_THREADS),
    "dask": Implementation("ours, counted on Dask (LocalCluster, 2 worker processes)", "distributed", {}),
    "ours-cli": Implementation("ours, the command line (python3 bpe.py train)", None, {}),
}

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""GPT-2's original chunk pattern, as OpenAI's encoder.py has it (the lab's "gpt2" spells its classes out)."""

DOCUMENTED_MODULES = {
    "cluster_counting": ("bpelab.corpora.cluster_counting", "bpelab.cluster"),
    "chunk_regex": ("bpelab.text.chunk_regex", "bpelab.imported.chunk_regex", "bpelab.chunk_regex"),
    "compare": ("bpelab.commands.compare", "bpelab.compare"),
    "variants": ("bpelab.commands.variants",),
}
"""The ``bpelab`` modules the jobs use beyond ``bpe``, where the package keeps them now and where older commits
kept them (docs/api.md lists the moves)."""


def label(impl):
    """How an implementation is named in the table."""
    return IMPLEMENTATIONS[impl].label


def is_lab(impl):
    """Whether ``impl`` is the lab's own code (which ``--compare`` runs at both commits), not a peer's."""
    return IMPLEMENTATIONS[impl].distribution is None


def documented_module(name):
    """The documented ``bpelab`` module ``name``, imported from where this commit keeps it."""
    for place in DOCUMENTED_MODULES[name]:
        try:
            return importlib.import_module(place)
        except ModuleNotFoundError as error:
            if error.name is None or not place.startswith(error.name):
                raise  # a module it imports is missing: not a question of where it lives
    raise Unmeasured(f"this commit has no {name} module (looked for {', '.join(DOCUMENTED_MODULES[name])})")


# Training: each returns a note, or a note and the merged tokens' digest.


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
    """Train the lab tokenizer from a file (characters, or bytes when asked); return a note.

    ``add_prefix_space`` and ``special_tokens`` are passed on only when the
    spec has them, so that a commit older than those options trains too.
    """
    from bpe import Tokenizer

    options = {name: spec[name] for name in ("add_prefix_space", "special_tokens") if name in spec}
    tokenizer = Tokenizer.train_from_files([spec["corpus"]], spec["vocab_size"],
                                           byte_level=spec.get("byte_level", False), pattern=spec.get("pattern"),
                                           superbpe=spec.get("superbpe"), **options)
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


def merged_tokens(tokenizer):
    """A byte-level lab tokenizer's merged tokens as bytes, in the order learned, and their digest, as a result."""
    import bpe

    tokens = [bpe.display_to_bytes(token) for token in tokenizer.vocab[256:256 + len(tokenizer.merges)]]
    return {"note": f"{len(tokens):,} merges", "digest": merged_tokens_digest(tokens)}


def rule_ours(spec, **hooks):
    """Train at the byte level with one library's tie rule, in ``workers`` processes; the merged tokens' digest.

    ``hooks`` are training's callbacks (``on_counts=``), passed on."""
    import bpe

    return merged_tokens(bpe.Tokenizer.train_from_files(
        [spec["corpus"]], spec["vocab_size"], byte_level=True, pattern="gpt2", ties=spec["ties"],
        min_count=spec["min_count"], workers=spec["workers"], **hooks))


def rule_cli(spec):
    """``rule_ours`` by the command line's road: ``python3 bpe.py train`` in a process of its own, then the saved
    file's merged tokens (its loading is timed too, a small part)."""
    import subprocess
    import sys
    import tempfile

    import bpe

    lab = os.path.dirname(os.path.abspath(bpe.__file__))  # the bpe.py this process imports, as the explain job
    with tempfile.TemporaryDirectory() as folder:
        saved = os.path.join(folder, "trained.json")
        subprocess.run([sys.executable, os.path.join(lab, "bpe.py"), "train", spec["corpus"], "--vocab-size", str(spec["vocab_size"]),
                        "--bytes", "--pattern", "gpt2", "--ties", spec["ties"], "--min-count", str(spec["min_count"]),
                        "--workers", str(spec["workers"]), "-o", saved], check=True, stdout=subprocess.DEVNULL, cwd=lab)
        return merged_tokens(bpe.Tokenizer.load(saved))


def rule_dask(spec):
    """``rule_ours`` with the chunks counted on a two-worker Dask cluster started here (its start counted)."""
    import distributed

    import bpe

    cluster_counting = documented_module("cluster_counting")
    with distributed.LocalCluster(host="127.0.0.1", dashboard_address=None, n_workers=2, threads_per_worker=1,
                                  processes=True) as local, distributed.Client(local, timeout="60s") as client:
        counts = cluster_counting.count_chunks(client, [spec["corpus"]], "gpt2",
                                               partition_size=max(1, os.path.getsize(spec["corpus"]) // 8))
    return merged_tokens(bpe.Tokenizer.train_from_counts(counts, spec["vocab_size"], byte_level=True, pattern="gpt2",
                                                         ties=spec["ties"], min_count=spec["min_count"]))


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
RULE_TRAINERS = {"ours": rule_ours, "ours-cli": rule_cli, "dask": rule_dask, "rustbpe": rule_rustbpe, "hf": rule_hf,
                 "rustbpe-2": rule_rustbpe, "hf-2": rule_hf}


# Loading a vocabulary: each returns what it loaded (with ``n_vocab``).


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


# Encoding: each returns a function from text to IDs (any iterable of ints), built before the clock starts.


def encoder_ours(spec):
    """A freshly loaded lab tokenizer's ``encode`` (so its cache starts cold), special tokens read as text."""
    from bpe import Tokenizer

    tokenizer = load_tiktoken_file(spec) if "vocabulary" in spec else Tokenizer.load(spec["tokenizer"])
    return partial(tokenizer.encode, disallowed_special=())


def encoder_findall(spec):
    """One bare ``re.findall`` pass of the tokenizer's pattern, compiled beforehand: the floor under any encoder that
    cuts with Python's ``re``. It gives each chunk's length (computed after the clock stops), not IDs."""
    import re

    import bpe

    findall = re.compile(bpe.pattern_source(bpe.Tokenizer.load(spec["tokenizer"]).pattern)).findall
    return lambda text: map(len, findall(text))


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


ENCODERS = {"ours": encoder_ours, "findall": encoder_findall, "tiktoken": encoder_tiktoken, "hf": encoder_hf,
            "hf-export": encoder_hf_export, "tiktoken-gpt2": encoder_tiktoken_gpt2,
            "tiktoken-export": encoder_tiktoken_export, "tiktoken-batch": encoder_tiktoken_batch,
            "tiktoken-official": encoder_tiktoken_file, "puretiktoken": encoder_pure}

CHUNKS_ONLY = {"findall"}
"""Encoders that give chunks, not IDs: their output is counted as chunks and never compared with ours."""
