"""The long checks the unit suite leaves out (``clients.sweep``), run on their own: ``python3 -m tests.sweeps``.

``.ci/run`` runs this after the unit tests and prints its time. It finds
every test marked as a sweep in the suite and runs those alone, with
``BPE_LAB_SWEEPS=1``; finding none is a failure, so a renamed or unmarked
check cannot leave this step passing with nothing run.
"""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def marked(suite):
    """Every test of ``suite`` whose method is marked by ``clients.sweep``."""
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from marked(test)
        elif getattr(getattr(test, getattr(test, "_testMethodName", ""), None), "sweep", False):
            yield test


def main():
    """Run the marked tests; the exit status says whether they all passed."""
    if os.environ.get("BPE_LAB_SWEEPS") != "1":  # (the mark skips them without it, so the variable comes first)
        os.environ["BPE_LAB_SWEEPS"] = "1"
        os.execv(sys.executable, [sys.executable, "-m", "tests.sweeps", *sys.argv[1:]])
    tests = list(marked(unittest.defaultTestLoader.discover(ROOT, top_level_dir=ROOT)))
    if not tests:
        print("tests.sweeps: no test is marked as a sweep", file=sys.stderr)
        return 1
    result = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite(tests))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
