"""The jobs: what one fresh process runs and reports, one function per kind of job, registered by name.

A job takes its spec (a JSON object: ``job``, ``impl`` and what that job
needs) and returns its figures as a dict: a time in seconds under a name
the phase reads (``cold``, ``seconds``, ...), a ``note``, often a
``digest`` of the IDs or merges so that the phase can say whether two
implementations agree. ``job_result`` adds the process's peak memory and
turns a missing peer into a skip. The parent starts ``python3 -m
<package>.worker SPEC`` for each run (``worker``), or calls ``job_result``
in its own process for ``--quick``.

Jobs reach the lab through ``bpe``'s public API only (see
``implementations``), imported inside the job, so that a process measures
whichever commit's ``bpe.py`` it was started beside. A new job is one
function here with ``@job("name")`` above it.
"""

import array
import base64
import gzip
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from itertools import chain

from .corpora import LONG_TEXTS, random_letters, read_text
from .implementations import (CHUNKS_ONLY, ENCODERS, IMPLEMENTATIONS, LOADERS, RULE_TRAINERS, TRAINERS,
                              documented_module, load_tiktoken_file)
from .page_typing import typing_result
from .probes import TreeHighWater, TreeMemory, Unmeasured, max_rss_kib, peak_rss_kib, rss_kib, timed, within
from .versions import bpe_digest

LONG_TRAIN_VOCAB = 1000
WORD_VOCAB = 5000
"""Vocabulary sizes of the long-input jobs: training on long chunks, and the tokenizer ``to_tiktoken`` exports."""

TIMEOUT_SECONDS = 60
"""``to_tiktoken`` on a long word is reported as timed out after this long rather than waited for."""

SPECIAL_CALLS = 1000
"""How many times the special-token job calls ``encode("hello world")``."""

MODEL_LONG_TEXTS = {"letters": random_letters, "spaces": lambda length: " " * length,
                    "digits": lambda length: "".join(random.Random(length).choice("0123456789") for _ in range(length))}
"""The long inputs each file's chunk regexes are timed on."""

JOBS = {}
"""Each job's function by name (``@job`` fills it)."""


def job(name):
    """Register the decorated function as the job ``name``."""
    def register(function):
        JOBS[name] = function
        return function
    return register


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


def ids_digest(ids):
    """A SHA-256 of token IDs (any iterable of them), to compare implementations' output; also their number."""
    ids = array.array("I", ids)
    return hashlib.sha256(ids.tobytes()).hexdigest(), len(ids)


@job("train")
def job_train(spec):
    """Train from a file; the parent times the whole process."""
    return {"note": TRAINERS[spec["impl"]](spec)}


@job("train-rule")
def job_train_rule(spec):
    """Train from a file with a library's tie rule (or the library itself); the parent times the whole process."""
    return RULE_TRAINERS[spec["impl"]](spec)


@job("train-counted")
def job_train_counted(spec):
    """``train-rule``, and for ours what its own counting found (``on_counts``): the distinct chunks, all the
    chunks, the seconds from the job's start until the counts were made (reading and counting the file), and
    this process's resident memory then (``counted_kib``: the counts held) and its peak so far."""
    if spec["impl"] != "ours":
        return RULE_TRAINERS[spec["impl"]](spec)
    started, heard = time.perf_counter(), {}

    def on_counts(counts):
        heard.update(distinct=len(counts), chunks=sum(counts.values()), counting=time.perf_counter() - started,
                     counted_kib=rss_kib(os.getpid()), counting_peak_kib=peak_rss_kib())

    result = RULE_TRAINERS["ours"](spec, on_counts=on_counts)
    result.update(heard, learning=time.perf_counter() - started - heard["counting"])
    return result


@job("encode")
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
    result["note"] = f"{count:,} {'chunks' if spec['impl'] in CHUNKS_ONLY else 'tokens'}"
    return result


@job("small-train")
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


@job("variants")
def job_variants(spec):
    """Every variant of BPE trained on one corpus to one size (``Tokenizer.compare_variants``): its rows and table.

    English's text is the corpus's first ``limit`` bytes; each of the lab's
    13 other languages has its five sentences; the 14 languages' sentences
    are parity-aware BPE's development sets; the next ``held_out`` bytes of
    the corpus are the text each variant is measured on.
    """
    import bpe

    languages, variants = documented_module("compare").languages(), documented_module("variants")
    text = read_text(spec["corpus"], spec["limit"] + spec["held_out"])
    english = read_text(spec["corpus"], spec["limit"])
    sentences = [" ".join(language["sentences"]) for language in languages]
    rows = bpe.Tokenizer.compare_variants([english, *sentences[1:]], spec["vocab_size"],
                                          held_out=text[len(english):], dev_texts=sentences)
    return {"rows": rows, "table": variants.variants_table(rows), "note": f"{len(rows)} variants"}


@job("load")
def job_load(spec):
    """Load a vocabulary the way ``impl`` does, timed."""
    loaded, seconds = timed(LOADERS[spec["impl"]], spec)
    return {"seconds": seconds, "note": f"{loaded.n_vocab:,} IDs"}


@job("long-train")
def job_long_train(spec):
    """Train in memory on one long chunk (``LONG_TEXTS``), timed without building the text."""
    import bpe

    text = LONG_TEXTS[spec["text"]](spec["n"])
    tokenizer, seconds = timed(bpe.Tokenizer.train, text, LONG_TRAIN_VOCAB)
    return {"seconds": seconds, "note": f"{len(tokenizer.merges):,} merges"}


@job("to-tiktoken")
def job_to_tiktoken(spec):
    """``to_tiktoken()`` of a byte-level tokenizer trained on a random word twice (``word word``), timed and bounded."""
    import bpe

    word = random_letters(spec["n"])
    tokenizer = bpe.Tokenizer.train(f"{word} {word}", WORD_VOCAB, byte_level=True)
    _, seconds = timed(within, TIMEOUT_SECONDS, tokenizer.to_tiktoken)
    longest = max(map(len, tokenizer.vocab))
    return {"seconds": seconds, "note": f"{len(tokenizer.merges):,} merges, longest token {longest:,} characters"}


@job("special-calls")
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


@job("explain")
def job_explain(spec):
    """``bpe.py explain`` on one chunk of ``n`` random letters (given on standard input): wall time and output size.

    The ``bpe.py`` run is the one this process imports. The memory reported
    is the explain process's (``RUSAGE_CHILDREN``: at least this small
    process's own, carried across exec).
    """
    import bpe

    lab = os.path.dirname(os.path.abspath(bpe.__file__))
    command = [sys.executable, os.path.join(lab, "bpe.py"), "explain", "-t", spec["tokenizer"]]
    text = random_letters(spec["n"]).encode("utf-8")
    finished, seconds = timed(subprocess.run, command, input=text, capture_output=True, cwd=lab)
    if finished.returncode != 0:
        raise RuntimeError(finished.stderr.decode("utf-8", "replace").strip() or f"exit {finished.returncode}")
    return {"seconds": seconds, "rss_kib": max_rss_kib(resource.RUSAGE_CHILDREN),
            "note": f"{len(finished.stdout):,} bytes of output"}


@job("encode-files")
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


@job("command-memory")
def job_command_memory(spec):
    """``bpe.py count`` or ``bpe.py prepare`` of one file as a real process: its wall time, and the sum over its
    process tree (it and its workers) of each process's last VmHWM.

    The ``bpe.py`` run is the one this process imports; a token file that
    ``prepare`` writes is removed.
    """
    import bpe

    lab = os.path.dirname(os.path.abspath(bpe.__file__))
    out = os.path.join(os.path.dirname(spec["corpus"]), "command-tokens.bin")
    command = [sys.executable, os.path.join(lab, "bpe.py"), spec["command"], "-t", spec["tokenizer"], spec["corpus"],
               "--workers", str(spec["workers"])] + (["-o", out] if spec["command"] == "prepare" else [])
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=lab)
    with TreeHighWater(process.pid) as memory:
        _, stderr = process.communicate()
    seconds = time.perf_counter() - started
    for path in (out, out + ".json"):
        if os.path.exists(path):
            os.remove(path)
    if process.returncode != 0:
        raise RuntimeError(stderr.decode("utf-8", "replace").strip() or f"exit {process.returncode}")
    processes = len(memory.last_kib)
    return {"seconds": seconds, "rss_kib": memory.total_kib, "processes": processes,
            "note": f"{processes} process{'es' if processes > 1 else ''}; sum of each one's last VmHWM"}


@job("cache")
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


@job("encode-counted")
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


@job("export-tiktoken")
def job_export_tiktoken(spec):
    """Setup: write a byte-level lab tokenizer's ``to_tiktoken()`` ranks as a gzip-compressed ``.tiktoken`` file."""
    import bpe

    ranks = bpe.Tokenizer.load(spec["tokenizer"]).to_tiktoken()["mergeable_ranks"]
    with gzip.open(spec["out"], "wb") as stream:
        for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
            stream.write(base64.b64encode(token) + b" %d\n" % rank)
    return {"note": f"{len(ranks):,} tokens"}


@job("save-format2")
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


@job("load-model")
def job_load_model(spec):
    """Load a real tokenizer.json (or its format-3 copy), timed."""
    loaded, seconds = timed(model_loaded, spec)
    size = loaded.get_vocab_size(with_added_tokens=True) if spec["impl"] == "hf" else loaded.n_vocab
    return {"seconds": seconds, "note": f"{size:,} IDs"}


@job("encode-lines")
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


@job("save-format3")
def job_save_format3(spec):
    """Setup: import a real tokenizer.json and save it in our format 3."""
    from bpe import Tokenizer

    tokenizer = Tokenizer.load_huggingface(spec["model"])
    tokenizer.save(spec["saved"])
    return {"note": f"{tokenizer.n_vocab:,} IDs"}


@job("encode-long-line")
def job_encode_long_line(spec):
    """Encode one line of ``n`` CJK letters without a space (one chunk, no safe cut) with a real tokenizer.json."""
    tokenizer = model_loaded(spec)
    rng = random.Random(spec["n"])
    text = "".join(rng.choice("日本語のテキスト東京大学中文字") for _ in range(spec["n"]))
    ids, seconds = timed(tokenizer.encode, text)
    return {"seconds": seconds, "note": f"{len(ids):,} tokens"}


@job("chunk-long")
def job_chunk_long(spec):
    """Cut one long input with a translated chunk regex (translated and compiled beforehand, untimed)."""
    regex = documented_module("chunk_regex").translate(spec["regex"])
    regex.chunks("warm up: compile the pattern 123")
    text = MODEL_LONG_TEXTS[spec["text"]](spec["n"])
    found, seconds = timed(regex.chunks, text)
    return {"seconds": seconds, "note": f"{len(found):,} chunks"}


@job("save-pair")
def job_save_pair(spec):
    """Setup: write GPT-2's vocab.json + merges.txt, from the official vocabulary where this machine has its files
    (``official``), else from a stand-in tokenizer file; says which."""
    from bpe import Tokenizer

    official = spec["official"]
    if official:
        try:
            tokenizer = Tokenizer.load_named("gpt2")
        except ValueError:  # the official files are not here (or not whole)
            official = False
    if not official:
        tokenizer = Tokenizer.load(spec["tokenizer"])
    tokenizer.save_vocab_merges(spec["vocab"], spec["merges"])
    return {"official": official, "note": f"{tokenizer.n_vocab:,} IDs"}


@job("load-pair")
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


@job("stream")
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


NEW_PROCESS_TEXT = "Hello, world! The quick brown fox jumps over the lazy dog."
"""The one short text a new process of the startup job encodes (its first encode counts)."""

NEW_PROCESS = """\
import json, time
started = time.process_time()
{imports}
imported = time.process_time()
tokenizer = {load}
loaded = time.process_time()
ids = {encode}
encoded = time.process_time()
print(json.dumps([ids, imported - started, loaded - imported, encoded - loaded]))
"""
"""What the startup job's new process runs: it prints its IDs and the CPU seconds of its import, load, first encode."""

STARTUP_PROGRAMS = {
    "ours": ("from bpe import Tokenizer", {"named": "Tokenizer.load_named({name!r})",
                                           "huggingface": "Tokenizer.load_huggingface({path!r})"},
             "tokenizer.encode({text!r})"),
    "tiktoken-official": ("import tiktoken", {"named": "tiktoken.get_encoding({name!r} + '_base')"},
                          "tokenizer.encode({text!r})"),
    "hf": ("from tokenizers import Tokenizer", {"huggingface": "Tokenizer.from_file({path!r})"},
           "tokenizer.encode({text!r}, add_special_tokens=False).ids"),
}
"""How each implementation's new process imports its library, loads a vocabulary (by name or from a
tokenizer.json) and encodes the text."""
STARTUP_PROGRAMS["ours-warm"] = STARTUP_PROGRAMS["ours"]

TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}_base.tiktoken"
"""Where tiktoken downloads an official file from; its cache names the file by the sha1 of this address."""


def startup_program(spec):
    """The program of the startup job's new process for ``spec`` (``impl``, ``vocabulary``: name and how loaded)."""
    imports, loads, encode = STARTUP_PROGRAMS[spec["impl"]]
    vocabulary = spec["vocabulary"]
    load = loads[vocabulary["how"]].format(name=vocabulary["name"], path=vocabulary.get("path"))
    return NEW_PROCESS.format(imports=imports, load=load, encode=encode.format(text=NEW_PROCESS_TEXT))


def tiktoken_has_file(name):
    """Whether tiktoken's cache holds the official file of ``name`` (so ``get_encoding`` downloads nothing)."""
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    digest = hashlib.sha1(TIKTOKEN_URL.format(name=name).encode()).hexdigest()
    return bool(folder) and os.path.isfile(os.path.join(folder, digest))


def new_process(spec, cwd, environment):
    """Run the startup program once: its IDs and CPU report, its wall time, its CPU time (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    finished, wall = timed(subprocess.run, [sys.executable, "-c", startup_program(spec)], capture_output=True,
                           text=True, cwd=cwd, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode != 0:
        raise RuntimeError((finished.stderr.strip().splitlines() or [f"exit {finished.returncode}"])[-1])
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return json.loads(finished.stdout.strip().splitlines()[-1]), wall, cpu


@job("startup")
def job_startup(spec):
    """A new process that imports a library, loads a vocabulary and encodes one short text, timed whole.

    The lab's process runs beside the ``bpe.py`` this process imports,
    with a vocabulary cache of its own: ``ours`` an empty one (the run
    fills it: cold), ``ours-warm`` one filled beforehand, untimed, by the
    same code (a folder per version of the code, under ``cache``). The
    wall time counts the interpreter's start, the import, the load and
    the first encode; the CPU time (user + system) is the process's own.
    """
    environment, cwd, cold = dict(os.environ), os.getcwd(), None
    if spec["vocabulary"]["how"] == "named" and spec["impl"] == "tiktoken-official" \
            and not tiktoken_has_file(spec["vocabulary"]["name"]):
        raise Unmeasured("tiktoken's cache has no official file here (TIKTOKEN_CACHE_DIR): it would download it")
    if spec["impl"] in ("ours", "ours-warm"):
        import bpe

        cwd = os.path.dirname(os.path.abspath(bpe.__file__))
        os.makedirs(spec["cache"], exist_ok=True)
        if spec["impl"] == "ours":
            cold = environment["BPE_LAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="cold-", dir=spec["cache"])
        else:
            environment["BPE_LAB_CACHE_DIR"] = os.path.join(spec["cache"], f"warm-{bpe_digest(cwd)}")
            if not os.path.isdir(environment["BPE_LAB_CACHE_DIR"]):
                new_process(spec, cwd, environment)  # (fills it: untimed)
    try:
        (ids, imported, loaded, encoded), wall, cpu = new_process(spec, cwd, environment)
    finally:
        if cold is not None:
            shutil.rmtree(cold, ignore_errors=True)
    digest, count = ids_digest(ids)
    return {"seconds": wall, "cpu": cpu, "import": imported, "load": loaded, "encode": encoded, "digest": digest,
            "rss_kib": max_rss_kib(resource.RUSAGE_CHILDREN), "note": f"{count} IDs"}


@job("page-typing")
def job_page_typing(spec):
    """Ten keys typed into ``bpe view``'s page of ``tokenizers`` (``page_typing``): the median and worst trial."""
    import bpe

    root = os.path.dirname(os.path.abspath(bpe.__file__))
    return typing_result(root, spec["tokenizers"], spec["chars"], spec["trials"])
