"""docs/benchmark.md, written from a run: one section per phase, each with its machine, date and commit.

``--docs`` writes the sections of the phases a run measured (``--only``
picks them) into the page and keeps every other section as it was, so one
phase can be measured again alone; with ``--compare``, the comparison too.
The page's opening prose is rewritten from this module each time; below
its history line, the page keeps what earlier runs recorded by hand,
byte for byte. A page without that line (one written by hand) becomes the
history whole, under the new sections. Sections are found by their marker
comments; a page whose markers do not pair up is refused, never rewritten.
"""

import os
import re
import tempfile

from .phases import ORDER, description, title

COMPARISON = "compare"
"""The section of ``--compare``'s table, before the phases'."""

BEGIN, END = "<!-- bench: begin {} -->", "<!-- bench: end {} -->"
HISTORY_MARK = "<!-- bench: history below -->"
SECTION = re.compile(r"<!-- bench: begin (\S+) -->\n(.*?)<!-- bench: end \1 -->\n", re.DOTALL)

INTRO = """# Benchmark

`python3 -m tools.bench`, run from the project's root, measures training, encoding, loading, long inputs and
dataset preparation on two 10 MB corpora that every machine has or can assemble offline: the Python standard
library's own `*.py` sources ("stdlib"), and English prose ("prose": the standard library's docstrings, the
system's licence texts and its man pages, in a fixed order). Every figure is the median of fresh processes (3
unless `--repeat` says otherwise), with the fastest and slowest run in brackets; the runs of the implementations
compared on one job are taken in turn. Hugging Face `tokenizers` (one thread, the same chunk pattern), `tiktoken`
(the same merges), `puretiktoken`, `subword-nmt`, `rustbpe` and Dask run the same jobs in the same run when
installed (`pip install -r requirements-bench.txt`). "speed vs ours" is our time divided by theirs: above 1,
they are faster. `--only PHASE,...` runs some of the phases, `--quick` is a seconds-long smoke test (the test
suite runs it), and `python3 -m tools.bench --help` lists the rest.

This page is written by `python3 -m tools.bench --docs` on the machine it runs on (the full run takes about an
hour on two cores: the trainers phase trains on 100 MB); `python3 -m tools.bench --docs --only encode` measures
one phase again and rewrites its section alone. Each section says when, on which machine and at which commit it
was measured, and how busy the machine was: on a shared machine other work slows every figure, parallel ones
most, so compare figures measured in the same run, not across sections.

## Before merging: this tree against the commit it changes

A change to the engine, the patterns, loading or `encode` is measured against the commit it starts from before
it is merged, and the ratio is quoted in the merge: `python3 -m tools.bench --compare REV --only encode,letters`
(any phases) checks REV out in a temporary `git worktree`, removed afterwards, and runs each job of the lab's
own code on this tree and on REV in alternation, each run a fresh process, at least 5 runs each (`--repeat`
sets more). It prints both medians with their interquartile range (IQR, the middle half of the runs), the ratio
of the times (this tree / REV: above 1 is slower), in how many rounds (one run of each, one after the other)
this tree was slower, and a verdict: a change is beyond the spread when the two IQRs do not overlap, and a
regression beyond the spread is flagged **SLOWER**. Five runs are few: on a noisy machine about one row in ten
of two equally fast commits is flagged by chance, so a flagged job is run again with `--repeat 9` before it is
believed (a real regression is also slower in most rounds). REV's own `bpe.py` and `bpelab` run
under this tree's job runner, which reaches the lab through `bpe`'s public API only, so old commits (before the
package moved into wings, or before it existed) compare too. The peers run once per turn beside them, on this
tree. `--compare REV --docs` records the comparison below.
"""

HISTORY = f"""---

## History: figures recorded before this page was generated

Everything below this line is history: figures recorded by earlier runs of the benchmark (most with
`tools/bench_bpe.py`, the single script `tools/bench/` was made from, many on older code), kept as they were
written and never regenerated. The sections above replace them as they are measured again.
{HISTORY_MARK}
"""


def section(name, body):
    """A section of the page between its markers."""
    return f"{BEGIN.format(name)}\n{body.strip()}\n{END.format(name)}\n"


def placeholder(name):
    """The section of a phase this page has no figures of yet."""
    heading = "The latest comparison" if name == COMPARISON else title(name)
    command = "--compare REV --docs" if name == COMPARISON else f"--docs --only {name}"
    return f"## {heading}\n\nNot measured on this page yet: `python3 -m tools.bench {command}`."


def parse(text, path):
    """A page's sections by name and its history (the whole text of a hand-written page without the title)."""
    head, marked, history = text.partition(HISTORY_MARK + "\n\n")
    if not marked:
        head, history = "", re.sub(r"\A# [^\n]*\n", "", text).lstrip("\n")
    begins, ends = head.count("<!-- bench: begin "), head.count("<!-- bench: end ")
    sections = dict(SECTION.findall(head))
    if begins != ends or begins != len(sections):
        raise ValueError(f"{path}: its {begins} begin and {ends} end markers of sections do not pair up; "
                         "mend them (or move the file away) and run again: the page is not rewritten")
    return sections, history


def compose(sections, history):
    """The whole page: the opening prose, the comparison, each phase's section in order, the history."""
    names = [COMPARISON] + ORDER
    parts = [INTRO] + [section(name, sections.get(name) or placeholder(name)) for name in names]
    return "\n".join(parts) + "\n" + HISTORY + "\n" + history


def phase_body(name, header, figures, ratios):
    """A phase's section: its title, what it measures, when and where it was measured, its two tables."""
    parts = [f"## {title(name)}", description(name), "\n".join(header)]
    parts += [part for part in (figures, ratios) if part]
    return "\n\n".join(parts)


def write_atomically(path, text):
    """Write ``text`` to ``path`` through a temporary file in the same folder, so a reader never sees half."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".benchmark-", suffix=".md", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        if os.path.exists(path):
            os.chmod(temporary, os.stat(path).st_mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def replace_section(path, name, body):
    """Rewrite the section ``name`` of another page (docs/variants.md's table) between its markers, the rest kept
    byte for byte; a page without exactly one pair of them is refused, never rewritten."""
    with open(path, encoding="utf-8", newline="") as stream:
        text = stream.read()
    begin, end = BEGIN.format(name) + "\n", END.format(name) + "\n"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"{path}: it needs one {begin.strip()} and, after it, one {end.strip()}; mend them and run "
                         "again: the page is not rewritten")
    head, _, rest = text.partition(begin)
    write_atomically(path, head + section(name, body) + rest.partition(end)[2])


def read_page(path):
    """The page's sections and history (none of either when there is no page yet)."""
    if not os.path.exists(path):
        return {}, ""
    with open(path, encoding="utf-8", newline="") as stream:
        return parse(stream.read(), path)


def update_page(path, new_sections):
    """Write ``new_sections`` (name -> body) into the page at ``path``, keeping its other sections and history."""
    sections, history = read_page(path)
    sections.update(new_sections)
    write_atomically(path, compose(sections, history))
