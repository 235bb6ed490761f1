"""Peak memory of ``bpe count`` and ``bpe prepare`` on files of 20 MB and 200 MB, against the tokenizer's own footprint.

The figure issue 28 (finding 3) asks for, measured apart from the benchmark
until its datasets phase can take it: each command runs as a real process
(``python3 bpe.py count -t TOKENIZER FILE``), and while it runs every
process of its tree is read from /proc every 10 ms. A process's VmHWM is
the most it has held, so its last reading is what it held at most before
it exited; the figure is the sum over the processes of the tree. The
footprint is the same command in one process on an empty file (the
tokenizer loaded, and nothing read). The promise holds where each figure
is at most the footprint plus 150 MB for each process of the tree (each
worker holds its own copy of the tokenizer), and the figures at the two
sizes are within 10% of each other.

The text is the standard library's own ``.py`` files that are UTF-8 (code,
comments and docstrings), in sorted order, repeated to the size asked for.
The tokenizers: the lab's ``tokenizer.json``, a byte-level one trained here
with a prefix space and a special token, GPT-2's official vocabulary
(``-t gpt2``, from tiktoken's cache), and Llama 3's and Gemma 3's
``tokenizer.json`` from ``$BPE_LAB_MODELS``. Only the standard library is used.

    python3 tools/measure_memory.py [--sizes 20,200] [--workers 1,2] [--commands count,prepare]
                                    [--tokenizers lab,lab-bytes,gpt2,llama3,gemma3]
"""

import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 10 ** 6
ALLOWANCE_MB = 150
"""What each process may hold above the tokenizer's own footprint."""


def tokenizer_sources(folder):
    """Each tokenizer's ``-t`` argument by name (the byte-level one is trained into ``folder``)."""
    sys.path.insert(0, ROOT)
    import bpe

    with open(os.path.join(ROOT, "corpus.txt"), encoding="utf-8") as stream:
        corpus = stream.read()
    prefixed = os.path.join(folder, "lab-bytes.json")
    bpe.Tokenizer.train(corpus, 2000, byte_level=True, add_prefix_space=True,
                        special_tokens=["<|endoftext|>"]).save(prefixed)
    models = os.environ.get("BPE_LAB_MODELS", os.path.join(ROOT, ".models"))
    return {"lab": os.path.join(ROOT, "tokenizer.json"), "lab-bytes": prefixed, "gpt2": "gpt2",
            "llama3": os.path.join(models, "llama3.json"), "gemma3": os.path.join(models, "gemma3.json")}


def standard_library_text():
    """The standard library's ``.py`` files that are UTF-8, as one text, in sorted order (site-packages left out)."""
    library = sysconfig.get_paths()["stdlib"]
    pieces = []
    for folder, folders, names in os.walk(library):
        folders[:] = sorted(name for name in folders if name not in ("site-packages", "__pycache__"))
        for name in sorted(names):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as stream:
                    data = stream.read()
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                pieces.append(data)
    return b"".join(pieces)


def write_corpus(path, text, size):
    """``size`` bytes of ``text`` repeated, cut at the end of a line."""
    with open(path, "wb") as stream:
        left = size
        while left > 0:
            piece = text[:left]
            if len(piece) < len(text):
                piece = piece[:piece.rfind(b"\n") + 1] or piece
            stream.write(piece)
            left -= len(piece)


def tree(root):
    """The process IDs of ``root`` and all its descendants, as /proc lists them now."""
    found, waiting = [], [root]
    while waiting:
        pid = waiting.pop()
        found.append(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as stream:
                waiting += [int(child) for child in stream.read().split()]
        except OSError:
            pass
    return found


def high_water_kib(pid):
    """VmHWM of a process, in KiB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as stream:
            return next(int(line.split()[1]) for line in stream if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return None


def measured(command):
    """Run ``command``; return the sum over its process tree of each process's last VmHWM, in MB, and the seconds."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    last = {}

    def watch():
        while process.poll() is None:
            for pid in tree(process.pid):
                reading = high_water_kib(pid)
                if reading is not None:
                    last[pid] = max(last.get(pid, 0), reading)
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    _, stderr = process.communicate()
    watcher.join()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {process.returncode}: {stderr.decode(errors='replace')}")
    return sum(last.values()) * 1024 / MB, len(last), time.monotonic() - started


def command_line(what, tokenizer, path, workers, out):
    """The ``bpe`` command measured."""
    command = [sys.executable, os.path.join(ROOT, "bpe.py"), what, "-t", tokenizer, path, "--workers", str(workers)]
    return command + (["-o", out] if what == "prepare" else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,200", help="file sizes in MB")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--commands", default="count,prepare")
    parser.add_argument("--tokenizers", default="lab,lab-bytes,gpt2,llama3,gemma3")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="bpe-memory-") as folder:
        sources = tokenizer_sources(folder)
        text = standard_library_text()
        paths = {0: os.path.join(folder, "empty.txt")}
        open(paths[0], "wb").close()
        for size in sizes:
            paths[size] = os.path.join(folder, f"text-{size}.txt")
            write_corpus(paths[size], text, size * MB)
        print(f"text: the standard library's UTF-8 .py files ({len(text) / MB:.1f} MB), repeated to each size")
        print("| tokenizer | command | workers | footprint (no input) | "
              + " | ".join(f"{size} MB: peak, processes, time" for size in sizes) + " | bound | holds |")
        print("| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in sizes) + " | ---: | --- |")
        for name in args.tokenizers.split(","):
            for what in args.commands.split(","):
                out = os.path.join(folder, "tokens.bin")
                footprint, _, _ = measured(command_line(what, sources[name], paths[0], 1, out))
                for workers in map(int, args.workers.split(",")):
                    cells, peaks, bound = [], [], 0.0
                    for size in sizes:
                        peak, processes, seconds = measured(command_line(what, sources[name], paths[size], workers, out))
                        peaks.append(peak)
                        bound = max(bound, (footprint + ALLOWANCE_MB) * processes)
                        cells.append(f"{peak:,.0f} MB, {processes}, {seconds:,.0f} s")
                    alike = max(peaks) <= 1.1 * min(peaks)
                    holds = all(peak <= bound for peak in peaks) and alike
                    print(f"| {name} | {what} | {workers} | {footprint:,.0f} MB | " + " | ".join(cells)
                          + f" | {bound:,.0f} MB | {'yes' if holds else 'NO'}{'' if alike else ' (grows)'} |",
                          flush=True)


if __name__ == "__main__":
    main()
