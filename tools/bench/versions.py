"""The code a job runs: the working tree's, copied at the start, or another commit's, checked out for the run.

Every figure comes from a fresh process started in the folder of the code
it measures, so ``import bpe`` finds that code's ``bpe.py`` (and its
``bpelab``) first. The working tree's ``bpe.py``, ``make_corpus.py`` and
``bpelab/`` are copied at the start, with this benchmark's package, so that
editing them during a long run cannot mix two versions in one table.
``--compare REV`` checks REV out in a temporary ``git worktree`` (removed
afterwards, whatever happens) and runs the same jobs there, with this
benchmark's own job runner on ``PYTHONPATH``: the runner reaches the lab
through ``bpe``'s public API only, so it runs old commits' code too.
"""

import contextlib
import glob
import hashlib
import os
import shutil
import subprocess
import sys
from collections import namedtuple

PACKAGE_FOLDER = os.path.dirname(os.path.abspath(__file__))
"""This benchmark's package, tools/bench/."""

ROOT = os.path.dirname(os.path.dirname(PACKAGE_FOLDER))
"""The project's folder, which holds bpe.py and the package."""

LAB_MODULES = ("bpe.py", "make_corpus.py", "bpelab")
"""The project's modules and package that the jobs may import or run, copied from the working tree."""

COPY_NAME = "bench"
"""The name of the benchmark package's copy in the snapshot, which the workers run (``-m bench.worker``)."""

THIS_TREE = "this tree"
"""How tables name the working tree's code."""

Code = namedtuple("Code", "name lab runner")
"""A version of the lab that jobs run: its name in the tables, the folder that holds its ``bpe.py`` (the workers'
working directory), and the folder that holds the benchmark's package copy (put on the workers' ``PYTHONPATH``)."""


def copy_into(source, target):
    """Copy a file or a folder (without bytecode) to ``target``."""
    if os.path.isdir(source):
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(source, target)


def snapshot_tree(folder):
    """Copy this package and the working tree's lab modules into ``folder``; the working tree's ``Code``."""
    lab = os.path.join(folder, "lab")
    os.makedirs(lab)
    copy_into(PACKAGE_FOLDER, os.path.join(folder, COPY_NAME))
    for name in LAB_MODULES:
        copy_into(os.path.join(ROOT, name), os.path.join(lab, name))
    return Code(THIS_TREE, lab, folder)


def worker_command(python, spec_json):
    """The command line of a fresh process that runs one job."""
    return [python, "-m", f"{COPY_NAME}.worker", spec_json]


def worker_environment(code, bytecode, extra):
    """The environment of a worker of ``code``: ours, with the runner on the path and a shared bytecode cache.

    The workers write their compiled modules to one cache of the run
    (``bytecode``), even where Python is told not to write bytecode, so a
    process after the first loads the lab as a user's installed copy does.
    """
    env = dict(os.environ, **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (code.runner, env.get("PYTHONPATH"))))
    env["PYTHONPYCACHEPREFIX"] = bytecode
    return env


def git(*arguments, root=ROOT):
    """The output of a git command in the project, stripped; ``CalledProcessError`` when it fails."""
    finished = subprocess.run(["git", "-C", root, *arguments], capture_output=True, text=True, check=True)
    return finished.stdout.strip()


def resolve_commit(revision):
    """``revision``'s full commit id, or a ``ValueError`` that says why it names no commit of this project."""
    try:
        return git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except (OSError, subprocess.CalledProcessError):
        raise ValueError(f"--compare {revision!r}: no commit of the repository at {ROOT} has that name "
                         "(give a commit id, a branch or a tag)") from None


@contextlib.contextmanager
def other_commit(commit, folder, runner):
    """Within ``with``: the ``Code`` of ``commit``, checked out in a new worktree under ``folder``, removed after."""
    short = git("rev-parse", "--short", commit)
    checkout = os.path.join(folder, f"commit-{short}")
    git("worktree", "add", "--detach", "--quiet", checkout, commit)
    try:
        yield Code(short, checkout, runner)
    finally:
        try:
            git("worktree", "remove", "--force", checkout)
        except (OSError, subprocess.CalledProcessError):
            shutil.rmtree(checkout, ignore_errors=True)
            git("worktree", "prune")


@contextlib.contextmanager
def code_versions(folder, in_process, commit):
    """Within ``with``: the code a run measures, the working tree's first (None: in this process, for
    ``--quick``), then ``commit``'s when there is one; all in ``folder``."""
    if in_process:
        if ROOT not in sys.path:
            sys.path.insert(0, ROOT)  # the jobs import bpe from the working tree
        yield [None]
        return
    tree = snapshot_tree(os.path.join(folder, "code"))
    if commit is None:
        yield [tree]
        return
    with other_commit(commit, folder, tree.runner) as other:
        yield [tree, other]


def lab_sources(folder):
    """``bpe.py`` and every module of the package in ``folder``, in a fixed order."""
    return [os.path.join(folder, "bpe.py")] + sorted(glob.glob(os.path.join(folder, "bpelab", "**", "*.py"),
                                                               recursive=True))


def bpe_digest(folder=ROOT):
    """A short SHA-256 of bpe.py and the package in ``folder``, to tie the figures to the code that produced them."""
    digest = hashlib.sha256()
    for path in lab_sources(folder):
        with open(path, "rb") as stream:
            digest.update(stream.read())
    return digest.hexdigest()[:12]


def described_commit():
    """The working tree's commit, short, and whether the lab or the benchmark differ from it ("" outside git)."""
    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", *LAB_MODULES, "tools")
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f"{commit} with uncommitted changes" if changed else commit
