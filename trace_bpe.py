"""Record what BPE learns on the story corpus, or check that the record still holds.

``--write`` makes the corpus, trains a tokenizer on it to 96 entries, and
writes ``corpus.txt``, ``tokenizer.json`` and ``bpe-trace.json`` beside this
script. ``--check`` rebuilds all three in memory and exits 1, naming the file
and the first differing line, if any committed file is missing or differs.
"""

import argparse
import json
import os
import sys

from bpe import Tokenizer, write_text_atomic
import make_corpus
from make_corpus import CORPUS_PATH, STORY_COUNT, corpus

VOCAB_SIZE = 96
SWEEP_SIZES = [40, 64, 96, 128]
SAMPLE_TEXTS = ["mia has a red ball.", "maya has a purple umbrella.", "café"]
TOKENIZER_PATH = "tokenizer.json"
TRACE_PATH = "bpe-trace.json"
HERE = os.path.dirname(os.path.abspath(__file__))
"""The project's folder, where the three files live whatever the current folder."""


def characters_per_token(text, token_count):
    """How many characters one token covers on average, to 3 places."""
    return round(len(text) / token_count, 3)


def sweep_entry(text, requested):
    """Train at one requested size and report what it achieved."""
    tokenizer = Tokenizer.train(text, requested)
    token_count = len(tokenizer.encode(text))
    return {
        "requested": requested,
        "vocab_size": len(tokenizer.vocab),
        "tokens": token_count,
        "characters_per_token": characters_per_token(text, token_count),
    }


def sample_entry(tokenizer, text):
    """How one sample sentence is split, numbered and decoded."""
    ids = tokenizer.encode(text)
    return {"text": text, "tokens": tokenizer.tokens(text), "ids": ids, "decoded": tokenizer.decode(ids)}


def build_trace(text, tokenizer):
    """The trace as a dict, keys in the recorded order."""
    corpus_ids = tokenizer.encode(text)
    return {
        "corpus": {"characters": len(text), "stories": STORY_COUNT},
        "alphabet": tokenizer.alphabet,
        "base_vocab_size": len(tokenizer.alphabet) + 1,
        "vocab_size": len(tokenizer.vocab),
        "merge_count": len(tokenizer.merges),
        "first_merges": tokenizer.history[:12],
        "last_merges": tokenizer.history[-5:],
        "corpus_tokens": len(corpus_ids),
        "characters_per_token": characters_per_token(text, len(corpus_ids)),
        "round_trip": tokenizer.decode(corpus_ids) == text,
        "sweep": [sweep_entry(text, size) for size in SWEEP_SIZES],
        "samples": [sample_entry(tokenizer, text) for text in SAMPLE_TEXTS],
    }


def build_artifacts():
    """The three committed files, as path -> exact text."""
    text = corpus()
    tokenizer = Tokenizer.train(text, VOCAB_SIZE)
    trace = build_trace(text, tokenizer)
    return {
        CORPUS_PATH: text,
        TOKENIZER_PATH: json.dumps(tokenizer.to_json(), indent=1) + "\n",
        TRACE_PATH: json.dumps(trace, indent=2, ensure_ascii=False) + "\n",
    }


def file_difference(path, expected):
    """Describe how the file ``path`` (in the project's folder) differs from ``expected``, or None if it does not."""
    try:
        with open(os.path.join(HERE, path), encoding="utf-8", newline="") as stream:
            found = stream.read()
    except FileNotFoundError:
        return f"{path} is missing"
    except (OSError, UnicodeDecodeError) as error:
        return f"{path} cannot be read: {error}"
    difference = make_corpus.first_difference(found, expected)
    return None if difference is None else f"{path} differs {difference}"


def main(argv=None):
    """Write or check the three artifacts; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate and write the three files")
    mode.add_argument("--check", action="store_true", help="exit 1 if any committed file differs")
    args = parser.parse_args(argv)
    artifacts = build_artifacts()
    if args.write:
        for path, text in artifacts.items():
            write_text_atomic(os.path.join(HERE, path), text)
            print(f"wrote {path}")
        return 0
    problems = [problem for path, text in artifacts.items() if (problem := file_difference(path, text))]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("run python3 trace_bpe.py --write to regenerate", file=sys.stderr)
        return 1
    print(f"ok: {', '.join(artifacts)} match a fresh run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
