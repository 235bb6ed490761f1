"""The entry point of each fresh process: run the one job a JSON spec describes and print its result as JSON.

The parent starts ``python3 -m <package>.worker SPEC`` in the folder of the
code being measured (the working tree's copy, or another commit's
checkout), so ``import bpe`` finds that code first; the benchmark's
package itself comes from ``PYTHONPATH`` (see ``versions``). From the
project's root, ``python3 -m tools.bench.worker SPEC`` runs one job on the
working tree as it is.
"""

import json
import sys

from .jobs import job_result


def main(argv=None):
    """Run the job ``argv[0]`` describes; its result is the last line of standard output."""
    (spec,) = sys.argv[1:] if argv is None else argv
    print(json.dumps(job_result(json.loads(spec))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
