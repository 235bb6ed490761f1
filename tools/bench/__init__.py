"""The lab's benchmark: training, encoding, loading and memory, against peers or against another commit.

Run it from the project's root: ``python3 -m tools.bench`` for the full
benchmark (about an hour on a busy two-core machine), ``python3 -m
tools.bench --only encode,long`` for some phases, ``--quick`` for a smoke
run of every phase in seconds, ``--compare REV`` to run the lab's jobs on
this tree and on commit REV in alternation, and ``--docs`` to write the
figures into docs/benchmark.md (``--help`` lists every option). It needs
only the standard library; the peers are optional (``pip install -r
requirements-bench.txt``). docs/benchmark.md says what each phase measures
and how.

Its modules, bottom up (a module uses only those above it in this list):

    corpora         the two corpora, built offline in a fixed order; random letters; the official vocabularies
    probes          what a job measures inside its process: one call's time, a time limit, peak memory
    implementations the lab and its peers, each behind an adapter of one shape, reached through public APIs
    jobs            what one fresh process runs and reports, one function per kind of job (``@job``)
    worker          the entry point of a fresh process: one job's spec in, its result out as JSON
    versions        the code a job runs: the working tree's copy, or another commit's temporary worktree
    measuring       runs in fresh processes, taken in turn; medians, spreads, the measurements
    report          rows, ratios, targets, the header, the comparison of two commits
    plan            what every phase works from: settings, corpora, code, shared tokenizers, measuring in turn
    phases/         one module per phase, in ``phases.ORDER``
    benchmark_page  docs/benchmark.md: a section per phase, each with its machine, date and commit; the history
    cli             the command line and one run, from corpora to report

Adding a phase is one small module in ``phases/`` and its name in
``phases.ORDER`` (``phases/__init__.py`` says what the module holds); a job
is one function in ``jobs`` under ``@job("name")``; an implementation is
one entry in ``implementations.IMPLEMENTATIONS`` and its adapter; a long
input is one ``LongCase`` in ``phases/long.py``. A job imports the lab
(``import bpe``) inside itself and uses only its public API, so that
``--compare`` can run it on any commit.
"""
