"""The lab installs like a library: ``pip install .`` into a fresh virtual environment, then used from elsewhere.

The build copies the project's modules into a temporary folder first, so the
working tree gets no ``build/`` or ``*.egg-info`` folders. It uses the
setuptools that the new environment's pip brought along when that one can
build wheels, and otherwise lets pip fetch one from the package index; the
test skips when ``venv`` is missing or the build backend cannot be had.
"""

import os
import shutil
import subprocess
import sys
import re
import tempfile
import unittest

from tests.clients import skip_or_fail, sweep

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def listed(key):
    """A list of names in pyproject.toml's ``[tool.setuptools]`` (``py-modules`` or ``packages``)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as stream:
        names = re.search(rf"^{key} = \[(.*)\]$", stream.read(), re.MULTILINE).group(1)
    return [name.strip().strip('"') for name in names.split(",")]


INSTALLED_NAMES = ["bpe.py", "bpelab", "make_corpus.py"]
"""What ``pip install .`` puts at the top level of site-packages: the two modules and the package, nothing else."""


class InstallTests(unittest.TestCase):

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def run_quietly(self, *command, cwd=None):
        return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=cwd or self.folder)

    @sweep
    def test_pip_install_then_use_from_another_folder(self):
        source = os.path.join(self.folder, "source")
        os.mkdir(source)
        for name in ["pyproject.toml", "README.md", *(module + ".py" for module in listed("py-modules"))]:
            shutil.copy(os.path.join(ROOT, name), source)
        for package in sorted({package.split(".")[0] for package in listed("packages")}):  # (its wings within)
            shutil.copytree(os.path.join(ROOT, package), os.path.join(source, package),
                            ignore=shutil.ignore_patterns("__pycache__"))
        venv = os.path.join(self.folder, "venv")
        if self.run_quietly(sys.executable, "-m", "venv", "--without-pip", venv).returncode != 0:
            skip_or_fail("the venv module cannot make an environment here")
        python = os.path.join(venv, "bin", "python")
        # This interpreter's pip installs into the new environment (pip 22.3's --python), which spares copying a
        # pip into it (most of this test's time); an older pip gets the environment its own. pip builds the project
        # in an isolated environment, with the setuptools that pyproject.toml asks for.
        pip = [sys.executable, "-m", "pip", "--python", python]
        if self.run_quietly(*pip, "--version").returncode != 0:
            self.run_quietly(python, "-m", "ensurepip", "--default-pip")
            pip = [python, "-m", "pip"]
        installed = self.run_quietly(*pip, "install", "--quiet", "--disable-pip-version-check", source)
        if installed.returncode != 0 and "setuptools" in installed.stderr \
                and any(sign in installed.stderr for sign in ("No matching distribution", "Could not find a version",
                                                               "Failed to establish", "Network is unreachable")):
            skip_or_fail(f"pip could not fetch the build backend: {installed.stderr.strip()[-300:]}")
        self.assertEqual(installed.returncode, 0, installed.stderr)
        elsewhere = os.path.join(self.folder, "elsewhere")
        os.mkdir(elsewhere)
        script = ("from bpe import Tokenizer; from make_corpus import corpus; "
                  f"print(Tokenizer.load({os.path.join(ROOT, 'tokenizer.json')!r}).encode('mia has a red ball.'), "
                  "len(corpus()))")
        used = self.run_quietly(python, "-c", script, cwd=elsewhere)
        self.assertEqual((used.returncode, used.stdout), (0, "[58, 36, 33, 89, 85, 4] 45223\n"), used.stderr)
        files = self.run_quietly(python, "-c", "import importlib.metadata as m; "
                                 "print(*sorted({f.parts[0] for f in m.files('bpe-lab')}), sep='\\n')", cwd=elsewhere)
        top_level = [name for name in files.stdout.split() if name not in ("..", "__pycache__")
                     and not name.endswith(".dist-info")]
        self.assertEqual(top_level, INSTALLED_NAMES, files.stderr)
        helped = self.run_quietly(os.path.join(venv, "bin", "bpe"), "--help", cwd=elsewhere)
        self.assertEqual(helped.returncode, 0, helped.stderr)
        self.assertIn("usage: bpe", helped.stdout)
        data = self.run_quietly(python, "-c", "import importlib.metadata as m; print(*sorted(str(f) for f in "
                                "m.files('bpe-lab') if f.parts[0] == 'bpelab' and f.suffix in ('.json', '.html', '.css', "
                                "'.js')))", cwd=elsewhere)
        pages = [f"bpelab/commands/pages/{name}.{ending}" for name in ("view", "widget") for ending in ("css", "html", "js")]
        self.assertEqual(data.stdout.split(), ["bpelab/commands/languages.json", *pages], "the package data is installed")
        costs = self.run_quietly(os.path.join(venv, "bin", "bpe"), "compare", "--languages", "-t",
                                 os.path.join(ROOT, "tokenizer.json"), cwd=elsewhere)
        self.assertEqual(costs.returncode, 0, costs.stderr)
        self.assertIn("| English (Latin) | 27.4 ×1.00 1.8, 14 unknown |", costs.stdout)


if __name__ == "__main__":
    unittest.main()
