"""Benchmark the lab's BPE tokenizer and compare it with well-known peers.

Run ``python3 bench_bpe.py`` for the full benchmark (10 MB of the Python
standard library's own sources, several minutes to an hour on a small
machine), or ``python3 bench_bpe.py --quick`` for a smoke test that finishes in
seconds. The result is a Markdown table on standard output; progress goes to
standard error.

What is measured, and why it is measured this way:

- Every figure comes from a FRESH Python process (this script, started again
  with a hidden ``--worker`` option). The workers run from a copy of this
  script and ``bpe.py`` taken at the start, so editing ``bpe.py`` during a
  long run cannot mix two versions of the code in one table. A fresh process has no warm caches and
  no memory left over from earlier jobs, so its peak memory (``ru_maxrss``)
  belongs to one job alone.
- Each job runs ``--repeat`` times and the MEDIAN is reported, with the
  fastest and slowest run in brackets: on a shared, noisy machine a single
  run can be off by tens of percent, and the median ignores one outlier.
- Training times are whole-process wall times (start-up, imports, reading
  and chunking the file included), because that is what a user waits for.
  Encoding times are measured inside the process around the encode call
  only, because loading a tokenizer is not encoding.
- Peers (Hugging Face ``tokenizers``, ``tiktoken``, ``subword-nmt``) run on
  the same job in the same run, when installed. The "speed vs ours" column is
  our time divided by theirs: above 1 means the peer is faster.

Sizes: 1 MB here is 1,000,000 bytes of UTF-8; a corpus is cut at a character
boundary, so it can be a few bytes short.

Only the standard library is needed; the peers are optional
(``pip install -r requirements-bench.txt``).
"""

import argparse
import hashlib
import importlib.metadata
import json
import os
import platform
import random
import resource
import shutil
import statistics
import string
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter, namedtuple
from dataclasses import dataclass, field
from functools import partial

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1_000_000
"""One megabyte: 10**6 bytes of UTF-8 text."""

MEMORY_COPIES = 10
"""The memory job trains on the corpus repeated this many times (10 MB -> 100 MB)."""

LETTER_SEED = 20240601
"""Seed for the random-letter chunks, so every run encodes the same letters."""

# The full benchmark and the quick smoke test differ only in sizes. Any option
# given on the command line overrides the preset it would otherwise take.
PRESETS = {
    "full": {
        "mb": 10.0,
        "sizes": [1000, 4096, 8192],
        "repeat": 3,
        "reference_kb": 100.0,
        "letters": [100_000, 1_000_000],
        "peers": True,
    },
    "quick": {
        "mb": 0.05,
        "sizes": [300, 400, 500],
        "repeat": 1,
        "reference_kb": 5.0,
        "letters": [1_000, 10_000],
        "peers": False,
    },
}

Implementation = namedtuple("Implementation", "label distribution env")
"""How an implementation is shown, the pip distribution providing it (None for
the lab itself), and extra environment variables for its worker process."""

# Hugging Face tokenizers uses a Rust thread pool; we pin it to one thread so
# that every implementation is compared single-threaded.
IMPLEMENTATIONS = {
    "ours": Implementation("ours (bpe.py)", None, {}),
    "reference": Implementation("reference (bpe.reference_train)", None, {}),
    "hf": Implementation("HF tokenizers, 1 thread", "tokenizers",
                         {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}),
    "tiktoken": Implementation("tiktoken, same merges", "tiktoken", {}),
    "subword-nmt": Implementation("subword-nmt", "subword-nmt", {}),
}

TRAIN_PEERS = ["hf", "subword-nmt"]
ENCODE_PEERS = ["tiktoken", "hf"]


def label(impl):
    """How an implementation is named in the table."""
    return IMPLEMENTATIONS[impl].label


def log(message):
    """Report progress on standard error, so standard output holds only the table."""
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# 1. The corpus
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


def stdlib_sources():
    """Paths of the standard library's ``*.py`` files in a fixed (sorted) order.

    Third-party packages live under site-packages (dist-packages on Debian)
    inside the same folder; they differ from machine to machine, so we skip them.
    """
    root = sysconfig.get_paths()["stdlib"]
    for folder, subfolders, files in os.walk(root):
        # Sorting in place also fixes the order os.walk descends in.
        subfolders[:] = sorted(name for name in subfolders if name not in ("site-packages", "dist-packages"))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def stdlib_corpus(limit):
    """Concatenate standard-library sources until ``limit`` bytes; return (bytes, description).

    A file that is not valid UTF-8 is skipped whole (a few test files are
    deliberately in other encodings), so the concatenation stays valid UTF-8.
    """
    parts, size, used, skipped = [], 0, 0, 0
    for path in stdlib_sources():
        if size >= limit:
            break
        with open(path, "rb") as stream:
            data = stream.read()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            skipped += 1
            continue
        parts.append(data)
        size += len(data)
        used += 1
    description = f"Python {platform.python_version()} standard library *.py ({used:,} files"
    description += f", {skipped} non-UTF-8 skipped)" if skipped else ")"
    return cut_utf8(b"".join(parts), limit), description


def file_corpus(path, limit):
    """Read a UTF-8 text file and cut it to ``limit`` bytes; return (bytes, description)."""
    with open(path, "rb") as stream:
        data = stream.read()
    data.decode("utf-8")  # strict: raises UnicodeDecodeError for a file that is not UTF-8
    return cut_utf8(data, limit), os.path.basename(path)


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


# --------------------------------------------------------------------------
# 2. The worker: one job per fresh process
# --------------------------------------------------------------------------
#
# Each implementation is wrapped in a small adapter with the same shape, so
# one job function times them all. Peers are imported inside their adapter:
# a missing package then only skips that peer.


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


def train_ours(path, vocab_size, merges, save_to):
    """Train the lab tokenizer from a file; return a note."""
    from bpe import Tokenizer

    tokenizer = Tokenizer.train_from_files([path], vocab_size)
    if save_to:
        tokenizer.save(save_to)
    return f"{len(tokenizer.merges):,} merges"


def train_hf(path, vocab_size, merges, save_to):
    """Train a Hugging Face BPE model with the same chunking and vocabulary size; return a note."""
    from tokenizers import models, trainers

    import bpe

    tokenizer = hf_pipeline(models.BPE(unk_token=bpe.UNK))
    # Like ours: <unk> is part of the vocabulary size, and a pair must occur twice.
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, show_progress=False, special_tokens=[bpe.UNK]
    )
    tokenizer.train([path], trainer)
    return f"vocab {tokenizer.get_vocab_size():,}"


def train_subword_nmt(path, vocab_size, merges, save_to):
    """Learn the same number of merges with subword-nmt; return a note.

    subword-nmt splits words at spaces and marks word ends with ``</w>``; it
    cannot use our chunk pattern, so its merges differ from ours.
    """
    from subword_nmt.learn_bpe import learn_bpe

    codes = os.path.join(os.path.dirname(path), "subword-nmt-codes.txt")
    with open(path, encoding="utf-8") as infile, open(codes, "w", encoding="utf-8") as outfile:
        learn_bpe(infile, outfile, merges, min_frequency=2)
    with open(codes, encoding="utf-8") as stream:
        learned = sum(1 for _ in stream) - 1  # the first line is a version header
    return f"{learned:,} merges"


TRAINERS = {"ours": train_ours, "hf": train_hf, "subword-nmt": train_subword_nmt}


def encoder_ours(tokenizer_path):
    """A freshly loaded lab tokenizer's ``encode`` (so its cache starts cold)."""
    from bpe import Tokenizer

    return Tokenizer.load(tokenizer_path).encode


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


def encoder_tiktoken(tokenizer_path):
    """tiktoken's single-threaded ``encode_ordinary`` with the lab tokenizer's merges."""
    import tiktoken

    import bpe

    tokenizer = bpe.Tokenizer.load(tokenizer_path)
    encoding = tiktoken.Encoding(
        name="bpe-lab",
        pat_str=bpe.pattern_source("lab", "rust"),  # tiktoken's regex engine is Rust's fancy-regex
        mergeable_ranks=tiktoken_ranks(tokenizer),
        special_tokens={},
    )
    return encoding.encode_ordinary


def encoder_hf(tokenizer_path):
    """Hugging Face's BPE model loaded with the lab tokenizer's vocabulary and merges."""
    from tokenizers import models

    import bpe

    tokenizer = bpe.Tokenizer.load(tokenizer_path)
    model = models.BPE(vocab=dict(tokenizer.ids), merges=list(tokenizer.merges), unk_token=bpe.UNK)
    pipeline = hf_pipeline(model)
    return lambda text: pipeline.encode(text).ids


ENCODERS = {"ours": encoder_ours, "tiktoken": encoder_tiktoken, "hf": encoder_hf}


def job_train(spec):
    """Train from a file; the parent times the whole process."""
    trainer = TRAINERS[spec["impl"]]
    note = trainer(spec["corpus"], spec["vocab_size"], spec["merges"], spec.get("save_to"))
    return {"note": note}


def job_encode(spec):
    """Encode a corpus file or a random-letter chunk, timing each pass separately.

    The first pass runs on a freshly built encoder (cold cache); a second pass
    over the same text, when asked for, shows the warm-cache speed.
    """
    if "letters" in spec:
        text = random_letters(spec["letters"])
    else:
        text = read_text(spec["corpus"])
    encode = ENCODERS[spec["impl"]](spec["tokenizer"])
    result = {}
    for name in ["cold", "warm"][: spec["passes"]]:
        start = time.perf_counter()
        ids = encode(text)
        result[name] = time.perf_counter() - start
    result["note"] = f"{len(ids):,} tokens"
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


JOBS = {"train": job_train, "encode": job_encode, "small-train": job_small_train}


def peak_rss_kib():
    """This process's peak resident memory in KiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def run_worker(spec_json):
    """Run one job described by a JSON string and print its result as one JSON line."""
    spec = json.loads(spec_json)
    try:
        result = JOBS[spec["job"]](spec)
    except ImportError as error:
        # Only a missing peer is "not installed"; a broken lab module is a failure.
        if spec["impl"] in ("ours", "reference"):
            raise
        result = {"skipped": f"not installed ({error.name})"}
    result["rss_kib"] = peak_rss_kib()
    print(json.dumps(result))
    return 0


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
    """Copy this script and bpe.py into ``folder``; workers run from there.

    A worker's ``import bpe`` finds the module beside the script it runs, so
    every job of one benchmark measures the same code, whatever happens to the
    working copy meanwhile.
    """
    os.makedirs(folder)
    for name in (os.path.basename(__file__), "bpe.py", "bpe_unicode.py"):
        shutil.copy2(os.path.join(HERE, name), os.path.join(folder, name))
    return folder


def run_once(spec, code):
    """Run one job in a fresh process from the code snapshot ``code``; add the whole-process wall time."""
    env = dict(os.environ, **IMPLEMENTATIONS[spec["impl"]].env)
    command = [sys.executable, os.path.join(code, os.path.basename(__file__)), "--worker", json.dumps(spec)]
    start = time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True, env=env, cwd=code)
    wall = time.perf_counter() - start
    if finished.returncode != 0:
        lines = finished.stderr.strip().splitlines() or [f"exit status {finished.returncode}"]
        return {"failed": lines[-1]}
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def measure(spec, repeat, code, first_run_extra=None):
    """Run a job ``repeat`` times from the code snapshot ``code``; stop at the first skip or failure.

    ``first_run_extra`` is merged into the first run's spec only (used to save
    one trained tokenizer without charging the save to every run).
    """
    measurement = Measurement()
    for run in range(repeat):
        this_spec = dict(spec, **first_run_extra) if run == 0 and first_run_extra else spec
        description = ", ".join(f"{k}={v}" for k, v in spec.items() if k not in ("corpus", "tokenizer", "impl"))
        log(f"  {label(spec['impl'])}: {description} (run {run + 1}/{repeat})")
        result = run_once(this_spec, code)
        if "skipped" in result or "failed" in result:
            measurement.problem = result.get("skipped") or f"failed: {result['failed']}"
            log(f"    {measurement.problem}")
            break
        measurement.runs.append(result)
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

    def seconds(self):
        """The median time, or None when there is no result."""
        return self.measurement.median(self.metric) if self.measurement.runs else None

    def number(self, seconds):
        """A time as this row shows it: MB/s when it measures throughput, else seconds."""
        if self.nbytes:
            return f"{self.nbytes / MB / seconds:,.2f}"
        return f"{seconds:#.3g}" if seconds < 100 else f"{seconds:,.0f}"

    def cells(self):
        """The Markdown cells of this row."""
        name = label(self.impl)
        if not self.measurement.runs:
            return [self.job, name, self.measurement.problem, "", "", self.note]
        times = self.measurement.values(self.metric)
        result = f"{self.number(self.seconds())} {'MB/s' if self.nbytes else 's'}"
        if len(times) > 1:
            # In MB/s the slowest run has the lowest figure, so list the times the other way round.
            low, high = sorted([min(times), max(times)], reverse=bool(self.nbytes))
            result += f" ({self.number(low)}–{self.number(high)})"
        rss = f"{self.measurement.median('rss_kib') / 1024:,.0f}"
        vs = ""
        if self.baseline is not None and self.baseline.seconds():
            vs = f"{speed_ratio(self.baseline, self):.2f}×"
        note = "; ".join(part for part in (self.measurement.note, self.note) if part)
        return [self.job, name, result, rss, vs, note]


def speed_ratio(ours, other):
    """How many times faster ``other`` is than ``ours`` (ours' time / other's time)."""
    if ours.seconds() is None or other.seconds() is None:
        return None
    return ours.seconds() / other.seconds()


def markdown_table(header, rows):
    """Format rows of cells as a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def format_ratio(value, suffix="×"):
    """A ratio with two decimals, or "n/a" when a side is missing."""
    return "n/a" if value is None else f"{value:,.2f}{suffix}"


def installed_version(distribution):
    """The installed version of a pip distribution, or "not installed"."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def bpe_digest(folder=HERE):
    """A short SHA-256 of the bpe.py in ``folder``, to tie the figures to the code that produced them."""
    with open(os.path.join(folder, "bpe.py"), "rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()[:12]


def header_lines(settings, corpus, digest):
    """The lines that say what machine, code, peers and corpus produced the table."""
    if settings["peers"]:
        peers = ", ".join(
            f"{impl.distribution} {installed_version(impl.distribution)}"
            for impl in IMPLEMENTATIONS.values() if impl.distribution
        )
    else:
        peers = "not run (--no-peers or --quick)"
    return [
        "# BPE benchmark",
        "",
        f"- machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"{platform.python_implementation()} {platform.python_version()}",
        f"- bpe.py sha256 {digest}; peers: {peers}",
        f"- corpus: {corpus['description']}: {corpus['bytes']:,} UTF-8 bytes "
        f"({corpus['bytes'] / MB:.2f} MB), {corpus['chars']:,} characters, {corpus['alphabet']} distinct",
        f"- each figure: median of {settings['repeat']} fresh process(es), (min–max) when more than one; "
        "1 MB = 10^6 UTF-8 bytes; RSS = peak resident memory of the process",
        "- training: whole-process wall time incl. start-up, reading and chunking; "
        "encoding: time of the encode call alone",
        "- speed vs ours: our time / their time (above 1 = faster than ours)",
    ]


# --------------------------------------------------------------------------
# 5. The benchmark plan
# --------------------------------------------------------------------------


def compare(job, impls, measure_impl, metric, nbytes=0):
    """Measure ``impls`` (ours first) on one job and return their rows, each compared with ours."""
    rows = []
    for impl in impls:
        row = Row(job, impl, measure_impl(impl), metric, nbytes)
        row.baseline = rows[0] if rows else None
        rows.append(row)
    return rows


@dataclass
class Plan:
    """What every phase of the benchmark needs: the settings, the corpus and a scratch folder."""

    settings: dict
    corpus: dict
    folder: str
    code: str  # the snapshot of this script and bpe.py that workers run

    @property
    def largest(self):
        """The largest vocabulary size: its tokenizer is the one the encoding jobs use."""
        return max(self.settings["sizes"])

    @property
    def tokenizer_path(self):
        """Where the first training run of ours at the largest size saves its tokenizer."""
        return os.path.join(self.folder, f"ours-{self.largest}.json")

    def impls(self, peers):
        """Ours first, then ``peers`` unless peers are switched off."""
        return ["ours"] + (peers if self.settings["peers"] else [])

    def measure(self, spec):
        """Run a job spec the configured number of times."""
        return measure(spec, self.settings["repeat"], self.code)

    def train(self, corpus_path, vocab_size, impl):
        """Measure training ``impl`` on a file; ours at the largest size also saves its tokenizer."""
        spec = {"job": "train", "impl": impl, "corpus": corpus_path, "vocab_size": vocab_size,
                # subword-nmt counts merges, not vocabulary entries: give it as many as ours learns.
                "merges": max(vocab_size - self.corpus["alphabet"] - 1, 0)}
        save = {"save_to": self.tokenizer_path} if impl == "ours" and vocab_size == self.largest else None
        return measure(spec, self.settings["repeat"], self.code, save)


def bench_training(plan):
    """Training at each vocabulary size, then on the corpus repeated (the memory job)."""
    size_mb = plan.corpus["bytes"] / MB
    impls = plan.impls(TRAIN_PEERS)
    rows = []
    log("training at each vocabulary size")
    for vocab_size in plan.settings["sizes"]:
        group = compare(f"train {size_mb:.2f} MB → vocab {vocab_size:,}", impls,
                        partial(plan.train, plan.corpus["path"], vocab_size), "wall")
        rows += group
        if vocab_size == plan.largest:
            at_largest = group

    log(f"training on the corpus repeated {MEMORY_COPIES} times (memory)")
    big_path = os.path.join(plan.folder, f"corpus-x{MEMORY_COPIES}.txt")
    write_copies(big_path, plan.corpus["data"], MEMORY_COPIES)
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


def bench_encoding(plan):
    """Encoding the whole corpus twice with the largest tokenizer: cold cache, then warm."""
    log("encoding the corpus")
    size_mb, nbytes = plan.corpus["bytes"] / MB, plan.corpus["bytes"]
    spec = {"job": "encode", "corpus": plan.corpus["path"], "tokenizer": plan.tokenizer_path, "passes": 2}
    # One process measures both passes; the warm rows reuse its results.
    runs = {impl: plan.measure(dict(spec, impl=impl)) for impl in plan.impls(ENCODE_PEERS)}
    cold = compare(f"encode {size_mb:.2f} MB, cold cache", list(runs), runs.get, "cold", nbytes)
    warm = compare(f"encode {size_mb:.2f} MB, warm (2nd pass)", list(runs), runs.get, "warm", nbytes)
    ratios = [
        (f"encode throughput {kind}, {label(row.impl)} / ours", format_ratio(speed_ratio(group[0], row)))
        for group, kind in ((cold, "cold"), (warm, "warm"))
        for row in group[1:]
    ]
    return cold + warm, ratios


def bench_letters(plan):
    """Encoding one long chunk of random letters at two lengths, to see how the time grows."""
    log("encoding one long chunk of random letters")
    groups = []
    for length in plan.settings["letters"]:
        spec = {"job": "encode", "letters": length, "tokenizer": plan.tokenizer_path, "passes": 1}
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
    limits = [int(plan.settings["reference_kb"] * 1000)]
    if plan.settings["reference_mb"]:
        limits.append(int(plan.settings["reference_mb"] * MB))
    rows, ratios = [], []
    for limit in limits:
        kb = min(limit, plan.corpus["bytes"]) / 1000
        spec = {"job": "small-train", "corpus": plan.corpus["path"], "limit": limit, "vocab_size": plan.largest}
        ours, reference = compare(f"train first {kb:,.0f} KB in memory → vocab {plan.largest:,}",
                                  ["ours", "reference"], lambda impl: plan.measure(dict(spec, impl=impl)), "seconds")
        if ours.measurement.runs and reference.measurement.runs:
            same = ours.measurement.runs[0]["digest"] == reference.measurement.runs[0]["digest"]
            reference.note = "same merges as ours" if same else "DIFFERENT merges from ours"
            ratios.append((f"speed-up of ours over the reference trainer, first {kb:,.0f} KB",
                           format_ratio(speed_ratio(reference, ours))))
        rows += [ours, reference]
    return rows, ratios


def run_benchmark(settings, folder, code, corpus):
    """Run every phase; return (table rows, derived ratios)."""
    plan = Plan(settings, corpus, folder, code)
    phases = [bench_training, bench_encoding, bench_letters, bench_reference]
    rows, ratios = [], []
    for phase in phases:
        if phase in (bench_encoding, bench_letters) and not os.path.exists(plan.tokenizer_path):
            log(f"no trained tokenizer to encode with; skipping {phase.__name__}")
            continue
        phase_rows, phase_ratios = phase(plan)
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

    parser = argparse.ArgumentParser(
        description="Benchmark the lab's BPE tokenizer (training, encoding, memory) against peers. "
        "Prints a Markdown table; every figure is the median of fresh processes.",
    )
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one run, no peers: a smoke test that takes seconds")
    parser.add_argument("--mb", type=float, help="corpus size in MB of UTF-8 (10^6 bytes; default 10)")
    parser.add_argument("--corpus", metavar="FILE",
                        help="a UTF-8 text file to use instead of the standard library sources (cut to --mb)")
    parser.add_argument("--sizes", type=sizes, help="comma-separated vocabulary sizes (default 1000,4096,8192)")
    parser.add_argument("--repeat", type=int, help="fresh processes per figure, median reported (default 3)")
    parser.add_argument("--reference-kb", type=float,
                        help="KB of corpus for the simple-vs-fast trainer comparison (default 100)")
    parser.add_argument("--reference-mb", type=float,
                        help="also compare on this many MB (e.g. 1; slow: the simple trainer takes a long time)")
    parser.add_argument("--no-peers", action="store_true", help="skip tokenizers, tiktoken and subword-nmt")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: run one job in this process
    args = parser.parse_args(argv)

    preset = PRESETS["quick" if args.quick else "full"]
    settings = {name: getattr(args, name, None) for name in ("mb", "sizes", "repeat", "reference_kb")}
    settings = {name: preset[name] if value is None else value for name, value in settings.items()}
    settings.update(letters=preset["letters"], peers=preset["peers"] and not args.no_peers,
                    reference_mb=args.reference_mb, corpus=args.corpus, worker=args.worker)
    if not settings["sizes"] or min(settings["sizes"]) < 2 or settings["repeat"] < 1 or settings["mb"] <= 0:
        parser.error("--sizes must list sizes of at least 2, --repeat must be at least 1, --mb positive")
    return settings


def prepare_corpus(settings, folder):
    """Build the corpus, write it into ``folder`` and describe it."""
    limit = int(settings["mb"] * MB)
    if settings["corpus"]:
        data, description = file_corpus(settings["corpus"], limit)
    else:
        data, description = stdlib_corpus(limit)
    text = data.decode("utf-8")
    path = os.path.join(folder, "corpus.txt")
    write_copies(path, data, 1)
    return {"path": path, "data": data, "description": description, "bytes": len(data),
            "chars": len(text), "alphabet": len(set(text))}


def main(argv=None):
    """Run the benchmark (or, with the hidden --worker option, one job) and print the table."""
    settings = parse_args(argv)
    if settings["worker"]:
        return run_worker(settings["worker"])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-bpe-") as folder:
        try:
            corpus = prepare_corpus(settings, folder)
        except (OSError, UnicodeDecodeError) as error:
            print(f"bench_bpe.py: cannot use the corpus: {error}", file=sys.stderr)
            return 2
        code = snapshot_code(os.path.join(folder, "code"))
        digest = bpe_digest(code)
        rows, ratios = run_benchmark(settings, folder, code, corpus)
    print("\n".join(header_lines(settings, corpus, digest)))
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
    failed = [row for row in rows if row.measurement.problem.startswith("failed")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
