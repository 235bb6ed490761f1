"""The phases of the benchmark, one module each, in the order they run (``--only`` takes their names).

A phase module has a docstring whose first line is its title in
docs/benchmark.md and whose following paragraphs say there what it
measures, and one function, ``run(plan)``, which returns ``(rows, ratios)``:
``report.Row`` objects for the table of figures and ``(what, value)`` pairs
for the table of ratios. It builds job specs (``jobs``), asks the plan to
measure them (``plan.compared`` for several implementations on one job,
measured in turn; ``plan.alone`` for ours alone; ``plan.measure`` for a
bare ``Measurement``), and picks its sizes with
``plan.pick(full, quick)``, so the smoke run stays quick.

To add a phase: write ``phases/NAME.py`` so, and add NAME to ``ORDER``
below. A new job it needs is one function in ``jobs`` under ``@job(...)``;
a new implementation, one line in ``implementations.IMPLEMENTATIONS`` and
an adapter; a new long input, one ``LongCase`` in ``long``.
"""

import importlib

ORDER = ["train", "encode", "letters", "reference", "cl100k", "long", "datasets", "cache", "superbpe", "models",
         "trainers", "gigabyte", "pair", "stream", "startup", "variants", "page"]
"""The phases in the order they run."""

PHASES = {name: importlib.import_module(f"{__name__}.{name}") for name in ORDER}
"""Each phase's module by name."""


def title(name):
    """A phase's title: the first line of its module's docstring, without its full stop."""
    return PHASES[name].__doc__.strip().splitlines()[0].rstrip(".")


def description(name):
    """What a phase measures, in the paragraphs that follow its title."""
    return PHASES[name].__doc__.strip().partition("\n")[2].strip()
