"""The lab's tests: ``python3 -m unittest`` finds them here, in a folder per wing of the package, and in ``test_bpe.py``.

Some tests run ``python3 bpe.py`` as a real process, a few dozen in a run (most
commands run in the tests' own process instead: ``tests.in_process``).
Where Python is told not to write bytecode (``PYTHONDONTWRITEBYTECODE=1``, as
some build machines set it), each of those processes compiles the package's
40 modules from source again, about 0.1 s each time. So the processes the tests
start share one bytecode cache of their own, in a temporary folder that is
removed at the end (``PYTHONPYCACHEPREFIX``): each module is compiled once a
run, and nothing is written into the checkout. In the same way the run has a
cache of prepared vocabularies of its own (``BPE_LAB_CACHE_DIR``, see
``bpelab.formats.vocabulary_cache``): the first load of a real vocabulary in a run fills
it, every later one (in another process too) reads it, and the user's own
cache folder is never written (``tests/formats/test_vocabulary_cache.py`` checks the
default place with a home folder of its own).
"""

import atexit
import os
import shutil
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The project's root folder, where ``bpe.py`` is."""


def share_bytecode_cache():
    """Give every process the tests start one bytecode cache in a temporary folder, removed when the tests end."""
    if "PYTHONPYCACHEPREFIX" not in os.environ:
        folder = tempfile.mkdtemp(prefix="bpe-lab-bytecode-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["PYTHONPYCACHEPREFIX"] = folder
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def share_vocabulary_cache():
    """Give the tests and every process they start one cache of prepared vocabularies, removed when the tests end."""
    folder = tempfile.mkdtemp(prefix="bpe-lab-vocabularies-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["BPE_LAB_CACHE_DIR"] = folder


share_bytecode_cache()
share_vocabulary_cache()
