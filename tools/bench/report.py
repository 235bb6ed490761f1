"""The report: rows of figures, the ratios the phases derive from them, the header, and the comparison of commits.

A ``Row`` is one implementation's result on one job, shown as a time
(lower is better) or as a throughput in MB/s; its "speed vs ours" is the
baseline's time divided by its own: above 1, the row is faster than ours.
With ``--compare``, each row of the lab's own code has the other commit's
runs too, and ``comparison_table`` shows both medians, their interquartile
ranges and the ratio of the times, flagging a change beyond the spread.
"""

import importlib.metadata
import operator
import os
import platform
import time
from dataclasses import dataclass

from .corpora import MB
from .implementations import IMPLEMENTATIONS, label
from .measuring import Measurement, quartiles


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
    name: str = ""  # shown instead of the implementation's label when set
    micro: bool = False  # show the time in microseconds (for per-call times)

    def seconds(self):
        """The median time, or None when there is no result."""
        return self.measurement.median(self.metric) if self.measurement.runs else None

    def number(self, seconds):
        """A time as this row shows it: MB/s when it measures throughput, µs when asked, else seconds."""
        if self.nbytes:
            return f"{self.nbytes / MB / seconds:,.2f}"
        if self.micro:
            return f"{seconds * 1e6:,.1f}"
        return f"{seconds:#.3g}" if seconds < 100 else f"{seconds:,.0f}"

    def unit(self):
        """The unit ``number`` gives."""
        return "MB/s" if self.nbytes else "µs" if self.micro else "s"

    def figure(self, measurement, spread):
        """A measurement's median as this row shows it, with ``spread(times)`` (low, high) in brackets."""
        times = measurement.values(self.metric)
        shown = f"{self.number(measurement.median(self.metric))} {self.unit()}"
        if len(times) > 1:
            # In MB/s the slowest run has the lowest figure, so list the times the other way round.
            low, high = sorted(spread(times), reverse=bool(self.nbytes))
            shown += f" ({self.number(low)}–{self.number(high)})"
        return shown

    @property
    def title(self):
        """The implementation as this row names it."""
        return self.name or label(self.impl)

    def cells(self):
        """The Markdown cells of this row."""
        if not self.measurement.runs:
            return [self.job, self.title, self.measurement.problem, "", "", self.note]
        vs = ""
        if self.baseline is not None and self.baseline.seconds():
            vs = format_ratio(speed_ratio(self.baseline, self))
        note = "; ".join(part for part in (self.measurement.note, self.note) if part)
        return [self.job, self.title, self.figure(self.measurement, lambda times: (min(times), max(times))),
                rss_mib(self.measurement), vs, note]


def rss_mib(measurement):
    """A measurement's median peak memory in MiB, as the tables show it."""
    return f"{measurement.median('rss_kib') / 1024:,.0f}"


def speed_ratio(ours, other):
    """How many times faster ``other`` is than ``ours`` (ours' time / other's time)."""
    if ours.seconds() is None or other.seconds() is None:
        return None
    return ours.seconds() / other.seconds()


def peak_mb(row):
    """A row's median peak memory in MB (10^6 bytes), or None when it has no result."""
    return row.measurement.median("rss_kib") * 1024 / MB if row.measurement.runs else None


def markdown_table(header, rows):
    """Format rows of cells as a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


FIGURES_HEADER = ["job", "implementation", "median (min–max)", "peak RSS MiB", "speed vs ours", "note"]
RATIOS_HEADER = ["ratio", "value"]


def format_ratio(value, suffix="×"):
    """A ratio with two decimals, or "n/a" when a side is missing."""
    return "n/a" if value is None else f"{value:,.2f}{suffix}"


GROWTH_TARGET = 15
"""The long-input jobs' target (issue 8): at 10n, at most this many times the time at n."""

TESTS = {"<": operator.lt, "≤": operator.le, "≥": operator.ge}


def judged(value, test, target, suffix="×"):
    """A value against its target, e.g. "1.34× (target ≤ 1.2×: missed)"; "n/a" when it is missing."""
    if value is None:
        return "n/a"
    verdict = "met" if TESTS[test](value, target) else "missed"
    return f"{format_ratio(value, suffix)} (target {test} {target:g}{suffix}: {verdict})"


OWN_OUTPUT = {"tiktoken": "IDs numbered its own way, not compared", "findall": "chunks only, no IDs to compare"}
"""Implementations whose output cannot be compared with ours: tiktoken numbers a character-level vocabulary by its
own ranks, and a bare ``re.findall`` gives chunks."""


def mark_agreement(rows, field_name, what):
    """Note on each row after the first whether it gave the same ``what`` as the first (digests in ``field_name``)."""
    first = rows[0].measurement
    for row in rows[1:]:
        if row.impl in OWN_OUTPUT:
            row.note = OWN_OUTPUT[row.impl]
        elif first.runs and row.measurement.runs:
            same = row.measurement.runs[0][field_name] == first.runs[0][field_name]
            row.note = f"same {what} as ours" if same else f"DIFFERENT {what} from ours"


def installed_version(distribution):
    """The installed version of a pip distribution, or "not installed"."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def cpu_model():
    """The processor's model name (from /proc/cpuinfo on Linux), or what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if line.startswith(("model name", "Model")):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown processor"


def machine():
    """The machine in one line: processor, cores, system and Python."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = f"{os.cpu_count()} CPUs" + (f" ({usable} usable)" if usable != os.cpu_count() else "")
    return (f"{cpu_model()}, {cores}, {platform.system()} {platform.machine()}, "
            f"{platform.python_implementation()} {platform.python_version()}")


def peers_line(settings):
    """The peers' versions, or why they did not run."""
    if not settings["peers"]:
        return "not run (--no-peers or --quick)"
    distributions = dict.fromkeys(impl.distribution for impl in IMPLEMENTATIONS.values() if impl.distribution)
    return ", ".join(f"{name} {installed_version(name)}" for name in distributions)


def header_lines(plan, digest, commit):
    """The lines that say what machine, code, peers, corpora and phases produced the tables."""
    settings = plan.settings
    lines = [
        f"- machine: {machine()}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; commit {commit or 'unknown'}; "
        f"bpe.py and bpelab sha256 {digest}",
        f"- peers: {peers_line(settings)}; phases: {', '.join(settings['only'])}",
    ]
    lines += [
        f"- corpus {corpus['name']}: {corpus['description']}: {corpus['bytes']:,} UTF-8 bytes "
        f"({corpus['bytes'] / MB:.2f} MB), {corpus['chars']:,} characters, {corpus['alphabet']} distinct"
        for corpus in plan.corpora.values()
    ]
    lines += [
        f"- each figure: median of {settings['repeat']} fresh process(es), (min–max) when more than one, the runs "
        "of the implementations compared taken in turn; 1 MB = 10^6 UTF-8 bytes; RSS = peak resident memory of "
        "the job's process (VmHWM on Linux)",
        "- training: whole-process wall time incl. start-up, reading and chunking; "
        "other jobs: time of the call measured alone",
        "- speed vs ours: our time / their time (above 1 = faster than ours)",
    ]
    return lines + [f"- {note}" for note in plan.notes]


def load_line(start, end):
    """The machine's load at the start and the end of a run, and what it means for the figures."""
    cpus = os.cpu_count()
    busy = " (busy: the load passed the CPUs' count, so treat the figures as rough)" if max(start, end) > cpus else ""
    return (f"- load average (1 min): {start:.2f} at the start, {end:.2f} at the end, on {cpus} CPUs{busy}: "
            "other work on the machine slows every figure, parallel ones most")


VERDICTS = {"slower": "**SLOWER**: a regression beyond the spread", "faster": "faster, beyond the spread",
            "": "within the spread"}


def change(mine, theirs):
    """Whether one job's times on this tree are "slower" or "faster" than the other commit's beyond the spread
    (their interquartile ranges do not overlap), or "" (within it)."""
    low, high = quartiles(mine)
    their_low, their_high = quartiles(theirs)
    return "slower" if low > their_high else "faster" if high < their_low else ""


def row_change(row):
    """``change`` of a compared row's times, or None when a side has none."""
    mine, theirs = row.measurement, row.measurement.other
    if theirs is None or not (mine.runs and theirs.runs):
        return None
    return change(mine.values(row.metric), theirs.values(row.metric))


def rounds_slower(mine, theirs):
    """In how many rounds this tree's run was slower than the other commit's run of the same round, "k/n"."""
    pairs = list(zip(mine, theirs))
    return f"{sum(own > other for own, other in pairs)}/{len(pairs)}"


def comparison_cells(row):
    """One row of the comparison: both medians with their interquartile ranges, the ratio and the verdict."""
    mine, theirs = row.measurement, row.measurement.other
    cells = [row.job, row.title]
    if row_change(row) is None:
        return cells + [mine.problem or row.figure(mine, quartiles), theirs.problem or row.figure(theirs, quartiles),
                        "", "", "", ""]
    ratio = mine.median(row.metric) / theirs.median(row.metric)
    return cells + [row.figure(mine, quartiles), row.figure(theirs, quartiles), format_ratio(ratio),
                    rounds_slower(mine.values(row.metric), theirs.values(row.metric)),
                    f"{rss_mib(mine)} / {rss_mib(theirs)}", VERDICTS[row_change(row)]]


def comparison_table(rows, other):
    """The rows that ran at both commits, side by side (``other`` names the other commit)."""
    compared = [row for row in rows if row.measurement.other is not None]
    header = ["job", "implementation", "this tree: median (IQR)", f"{other}: median (IQR)",
              f"time, this tree / {other}", "rounds this tree was slower", "peak RSS MiB, this / other", "verdict"]
    return markdown_table(header, [comparison_cells(row) for row in compared]), compared


def regressions(rows):
    """The compared rows whose times are slower beyond the spread."""
    return [row for row in rows if row_change(row) == "slower"]
