"""Measuring: each run of a job in a fresh process, the runs of several jobs taken in turn, medians and spreads.

- Every figure comes from a FRESH Python process (``worker``), started in
  the folder of the code it measures (``versions``). A fresh process has
  no warm caches and no memory left over from earlier jobs, so its peak
  memory belongs to one job alone.
- Each job runs ``--repeat`` times and the MEDIAN is reported, with the
  fastest and slowest run: on a shared, noisy machine a single run can be
  off by tens of percent, and the median ignores one outlier.
- The runs of the jobs that are compared (ours and the peers on one job;
  with ``--compare``, ours at both commits) are taken in turn: each job
  once, then each again, every other round in the opposite order, so a slow
  spell of a noisy machine falls on all of them alike and the ratios hold.
- Training times are whole-process wall times (start-up, imports, reading
  and chunking the file included), because that is what a user waits for.
  Other times are measured inside the process around the call measured
  only (``probes``), because loading a tokenizer is not encoding.
- A job whose spec asks for ``tree_memory`` is watched from outside while
  it runs: its peak memory is then the sum over its process tree (it and
  the worker processes it starts) of each process's VmHWM just before it
  exits (``probes.TreeHighWater``), not its own alone.
"""

import json
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

from .implementations import IMPLEMENTATIONS, label
from .jobs import job_result
from .probes import TreeHighWater, timed
from .versions import worker_command, worker_environment


def log(message):
    """Report progress on standard error, so standard output holds only the tables."""
    print(message, file=sys.stderr, flush=True)


def quartiles(values):
    """The first and third quartiles of ``values`` (linear between the sorted values; one value is both)."""
    ordered = sorted(values)

    def at(fraction):
        position = fraction * (len(ordered) - 1)
        below = int(position)
        above = min(below + 1, len(ordered) - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (position - below)

    return at(0.25), at(0.75)


@dataclass
class Measurement:
    """The results of repeated runs of one job, or why there are none; with ``--compare``, the other commit's."""

    runs: list = field(default_factory=list)
    problem: str = ""
    other: "Measurement" = None  # the same job on the other commit's code (--compare)

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


def run_once(spec, code, bytecode):
    """Run one job in a fresh process of ``code`` (see ``versions``); add the whole-process wall time.

    With no code (``--quick``, a smoke run whose figures nobody reads), the
    job runs in this process instead: every job's code is exercised, without
    starting a process for each.
    """
    if code is None:
        result, wall = timed(job_result, spec)
        result["wall"] = wall
        return result
    env = worker_environment(code, bytecode, IMPLEMENTATIONS[spec["impl"]].env)
    command = worker_command(sys.executable, json.dumps(spec))
    (finished, tree), wall = timed(run_watched, command, spec.get("tree_memory", False), env=env, cwd=code.lab)
    if finished.returncode != 0:
        lines = finished.stderr.strip().splitlines() or [f"exit status {finished.returncode}"]
        return {"failed": lines[-1]}
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    if tree is not None:  # the whole tree's Σ VmHWM stands for the process's own
        result.update(rss_kib=tree.total_kib, processes=len(tree.last_kib), own_kib=result["rss_kib"],
                      workers_kib=[kib for pid, kib in tree.last_kib.items() if pid != tree.root])
    return result


def run_watched(command, tree_memory, **options):
    """``subprocess.run(command)``'s outcome, its output captured; with ``tree_memory``, also the last VmHWM of each
    process of its tree (``TreeHighWater``: the worker processes a job starts count too), else None."""
    if not tree_memory:
        return subprocess.run(command, capture_output=True, text=True, **options), None
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)
    with TreeHighWater(process.pid) as tree:
        stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), tree


def problem_of(result):
    """Why a run gave no figure ("" when it did): the skip reason, or "failed: ..."."""
    if "failed" in result:
        return f"failed: {result['failed']}"
    return result.get("skipped", "")


def job_description(spec):
    """The numbers that say which job a spec is (paths and nested settings would drown the progress line)."""
    return ", ".join(f"{key}={value}" for key, value in spec.items() if key == "job" or isinstance(value, (int, float)))


@dataclass
class Entry:
    """One job to measure on one version of the code, with what only its first run adds (a file to save)."""

    spec: dict
    code: object  # a versions.Code, or None to run in this process
    first_run: dict = field(default_factory=dict)


def take_run(measurement, entry, run, repeat, bytecode):
    """Run ``entry`` once into ``measurement``; False (and the reason kept and logged) at a skip or failure."""
    spec = dict(entry.spec, **entry.first_run) if run == 0 else entry.spec
    where = f", {entry.code.name}" if entry.code is not None else ""
    log(f"  {label(spec['impl'])}: {job_description(spec)} (run {run + 1}/{repeat}{where})")
    result = run_once(spec, entry.code, bytecode)
    measurement.problem = problem_of(result)
    if measurement.problem:
        log(f"    {measurement.problem}")
        return False
    measurement.runs.append(result)
    return True


def measure_in_turn(entries, repeat, bytecode):
    """One ``Measurement`` per entry, their runs taken in turn (each once, then each again, every other round
    backwards); an entry stops at its first skip or failure."""
    measurements = [Measurement() for _ in entries]
    for run in range(repeat):
        order = list(zip(entries, measurements))
        for entry, measurement in reversed(order) if run % 2 else order:
            if not measurement.problem:
                take_run(measurement, entry, run, repeat, bytecode)
    return measurements
