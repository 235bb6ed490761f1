"""Write the lab's synthetic story corpus, ``corpus.txt``, from a fixed seed.

Every story follows one template, so BPE has obvious structure to find:
names, objects and places repeat, and words like " the" and " has" appear in
every line. Lessons get the text with ``from make_corpus import corpus``;
``python3 make_corpus.py`` writes it, and ``--check`` exits 1, naming the
first differing line, if the committed file differs from the generator.
"""

import argparse
import os
import random
import sys
import tempfile

SEED = 2026
STORY_COUNT = 400
NAMES = ["mia", "leo", "ava", "sam", "zoe", "ben"]
OBJECTS = ["ball", "kite", "book", "cup", "hat", "box"]
COLORS = ["red", "blue", "green", "yellow"]
PLACES = ["park", "garden", "kitchen", "school"]
CORPUS_PATH = "corpus.txt"


def make_story(rng):
    """One story; the draws happen in a fixed order so the seed fixes every word."""
    giver, taker = rng.sample(NAMES, 2)
    thing = rng.choice(OBJECTS)
    color = rng.choice(COLORS)
    place = rng.choice(PLACES)
    return (
        f"{giver} has a {color} {thing}. {giver} goes to the {place}. "
        f"at the {place}, {giver} gives the {thing} to {taker}. "
        f"now {taker} has the {color} {thing}."
    )


def corpus(seed: int = SEED, stories: int = STORY_COUNT) -> str:
    """The whole corpus: one story per line, with a final newline.

    >>> corpus(stories=1)
    'mia has a red hat. mia goes to the garden. at the garden, mia gives the hat to ava. now ava has the red hat.\\n'
    """
    rng = random.Random(seed)
    return "\n".join(make_story(rng) for _ in range(stories)) + "\n"


make_corpus = corpus
"""The name earlier versions of the lab used for ``corpus``."""


def first_difference(found, expected):
    """Where ``found`` first differs from ``expected``, in words (``at line 2: ...``, ``after line 400: ...``), or None."""
    if found == expected:
        return None
    found_lines, expected_lines = found.splitlines(keepends=True), expected.splitlines(keepends=True)
    for number, (have, want) in enumerate(zip(found_lines, expected_lines), start=1):
        if have != want:
            return f"at line {number}: expected {want!r}, found {have!r}"
    return f"after line {min(len(found_lines), len(expected_lines))}: expected {len(expected_lines)} lines, " \
           f"found {len(found_lines)}"


def write_whole(path, text):
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one, never half of one.

    A link is followed (its target is written), and the file keeps its
    permissions (a new one gets the usual ones). The lab's own writer,
    ``bpe.write_text_atomic``, checks far more; this script stands alone on
    the standard library, so it does just this.
    """
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def main(argv=None):
    """Write the corpus, or with --check compare it; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help=f"exit 1 if {CORPUS_PATH} differs from the generator")
    args = parser.parse_args(argv)
    text = corpus()
    if not args.check:
        write_whole(CORPUS_PATH, text)
        print(f"wrote {CORPUS_PATH}: {len(text):,} characters")
        return 0
    try:
        with open(CORPUS_PATH, encoding="utf-8", newline="") as stream:
            found = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        print(f"{CORPUS_PATH}: cannot read it ({error}); run python3 make_corpus.py", file=sys.stderr)
        return 1
    difference = first_difference(found, text)
    if difference:
        print(f"{CORPUS_PATH} differs from the generator {difference}; run python3 make_corpus.py",
              file=sys.stderr)
        return 1
    print(f"{CORPUS_PATH} matches the generator")
    return 0


if __name__ == "__main__":
    sys.exit(main())
