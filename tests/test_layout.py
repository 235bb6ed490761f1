"""The house: ``bpe.py`` is the lesson on top, the package ``bpelab`` is the machinery below it.

These tests read the project's source with ``ast`` and hold it to the
layout that README's map, ``bpelab/__init__.py`` and each wing's face
(its ``__init__``) draw: a wing imports only the ground and the wings below
it, imports go one way and never in a circle,
no module reaches into another's private names, the package never imports
``bpe`` (except the programs that use its public API), the lesson stays
short enough to read in a sitting, and the names later lessons import stay
where they were.
"""

import ast
import os
import subprocess
import sys
import unittest

import bpe
import bpelab

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TODAYS_NAMES = [
    "merge_pair", "count_pairs", "best_pair", "TIE_RULES", "reference_train", "reference_encode", "chunks",
    "PATTERNS", "pattern_source", "last_safe_cut", "safe_blocks", "text_blocks", "BLOCK_SIZE", "stream_blocks",
    "read_blocks", "BYTE_TO_CHAR", "CHAR_TO_BYTE", "bytes_to_display", "display_to_bytes", "replace_lone_surrogates",
    "train_merges", "encode_chunk", "chunker", "count_chunks", "CACHE_LIMIT", "Tokenizer", "SpecialTokenInText", "UNK",
    "REPLACEMENT_CHARACTER", "FORMAT_VERSION", "READABLE_FORMATS", "MAX_FILE_BYTES", "read_file_bytes", "read_json",
    "token_file_dtype", "check_output_path", "atomic_writer", "write_text_atomic",
]
"""``bpe.__all__`` before the machinery moved into the package; later issues may add names, never remove these."""

PROGRAMS = {"bpelab.commands.cli"}
"""The package's modules that may import ``bpe`` (its public API only): the programs built on top of it."""

LESSON_LINES = 650
LESSON_WIDTH = 100
LESSON_NAMES = 25
"""The lesson reads in a sitting: at most 650 lines of at most 100 characters, at most 25 names from the package."""
MODULE_LINES = 650
GENERATED = {"bpelab.text.unicode_ranges"}
"""Generated tables, exempt from the length rule."""


def project_sources():
    """Every Python file of the project (tests included) as module name -> path; a package by its own name."""
    found = {}
    for folder, prefix, deep in (("", "", False), ("bpelab", "bpelab.", True), ("tools", "tools.", True),
                                 ("tests", "tests.", True)):
        for here, folders, names in os.walk(os.path.join(ROOT, folder)):
            folders[:] = sorted(name for name in folders if deep and name != "__pycache__" and name != "data")
            inside = os.path.relpath(here, os.path.join(ROOT, folder)).replace(os.sep, ".")
            for name in sorted(names):
                if name.endswith(".py"):
                    module = prefix + ("" if inside == "." else inside + ".") + name[:-3]
                    found[module.removesuffix(".__init__") if module != "__init__" else module] = os.path.join(
                        here, name)
    return found


SOURCES = project_sources()


def read_source(path):
    with open(path, encoding="utf-8") as stream:
        return stream.read()


TREES = {module: ast.parse(read_source(path), path) for module, path in SOURCES.items()}
CODE = {module for module in SOURCES if not module.startswith("tests")}


def import_nodes(module):
    """Every import statement of ``module``, except those under ``if __name__ == "__main__":`` (a script's start)."""
    skipped = set()
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'":
            skipped.update(id(inner) for inner in ast.walk(node))
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped:
            yield node


def absolute(module, node):
    """The module an ``ImportFrom`` names, with a relative one (``from . import x``) resolved against ``module``."""
    if not node.level:
        return node.module
    parts = module.split(".")
    if SOURCES[module].endswith("__init__.py"):  # a package's own module: ``.`` is the package itself
        parts.append("__init__")
    package = parts[:-node.level]
    return ".".join(package + ([node.module] if node.module else [])) or None


def imported(module):
    """``(module it imports, names taken from it, line)`` for every import in ``module`` that is of the project."""
    for node in import_nodes(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SOURCES:
                    yield alias.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom) and absolute(module, node) in SOURCES:
            source = absolute(module, node)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in SOURCES:
                    yield submodule, (), node.lineno
                else:
                    yield source, (alias.name,), node.lineno


def module_aliases(module):
    """Names in ``module`` bound to a project module (``import bpe``, ``from bpelab import engine as e``)."""
    aliases = {}
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in SOURCES:
                    aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and absolute(module, node) in SOURCES:
            for alias in node.names:
                if f"{absolute(module, node)}.{alias.name}" in SOURCES:
                    aliases[alias.asname or alias.name] = f"{absolute(module, node)}.{alias.name}"
    return aliases


def map_of_the_package():
    """``(ground modules, wings)`` as ``bpelab/__init__.py`` lists them: the wings top down, each ``bpelab.NAME``."""
    ground, wings = [], []
    for line in bpelab.__doc__.splitlines():
        if line.startswith("    "):
            name = line.split()[0]
            (wings if name.endswith("/") else ground).append("bpelab." + name.rstrip("/"))
    return ground, wings


def face(wing):
    """The modules a wing's ``__init__`` lists, bottom up, as ``bpelab.WING.NAME``."""
    docstring = ast.get_docstring(TREES[wing], clean=False)
    return [f"{wing}.{line.split()[0]}" for line in docstring.splitlines()
            if line.startswith("    ") and not line.startswith("     ")]


class ImportTests(unittest.TestCase):

    def test_no_import_cycle(self):
        graph = {module: {target for target, _, _ in imported(module) if target != module} for module in CODE}
        done, path = set(), []

        def visit(module):
            if module in path:
                self.fail("an import cycle: " + " -> ".join(path[path.index(module):] + [module]))
            if module in done:
                return
            path.append(module)
            for target in sorted(graph.get(module, ())):
                visit(target)
            path.pop()
            done.add(module)

        for module in sorted(graph):
            visit(module)

    def test_the_package_does_not_import_the_lesson_except_its_programs(self):
        for module in sorted(CODE):
            if module.startswith("bpelab") and module not in PROGRAMS:
                targets = [(target, line) for target, _, line in imported(module) if target == "bpe"]
                self.assertEqual(targets, [], f"{module} imports bpe")

    def test_the_programs_use_the_lessons_public_api_only(self):
        for module in sorted(PROGRAMS):
            for target, names, line in imported(module):
                if target == "bpe":
                    for name in names:
                        self.assertIn(name, bpe.__all__, f"{module}:{line} imports bpe.{name}, not in bpe.__all__")

    def test_no_private_name_is_used_across_modules(self):
        for module in sorted(SOURCES):
            for target, names, line in imported(module):
                for name in names:
                    self.assertFalse(name.startswith("_"), f"{module}:{line} imports {target}.{name}")
            aliases = module_aliases(module)
            for node in ast.walk(TREES[module]):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                        and node.value.id in aliases and node.attr.startswith("_") and not node.attr.startswith("__"):
                    self.fail(f"{module}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")

    def test_each_wing_imports_only_the_ground_and_the_wings_below_it(self):
        ground, wings = map_of_the_package()
        level = {module: 0 for module in ground}
        for height, wing in enumerate(reversed(wings), 1):  # the map lists the wings top down
            level.update({module: (height, place) for place, module in enumerate(face(wing))})
        for module in sorted(level):
            for target, _, line in imported(module):
                if target.startswith("bpelab.") and target != module and target not in wings:
                    allowed = target in ground if module in ground else level.get(target, 0) == 0 \
                        or level[target] < level[module]
                    self.assertTrue(allowed, f"{module}:{line} imports {target}, which is not below it "
                                    "(the ground, a wing below, or a module listed before it in its wing's face)")

    def test_every_module_is_on_the_map_or_in_a_wings_face(self):
        ground, wings = map_of_the_package()
        listed = set(ground) | {module for wing in wings for module in face(wing)}
        package = {module for module in CODE if module.startswith("bpelab.")} - set(wings)
        self.assertEqual(sorted(package ^ listed), [], "modules missing from the map (or listed but absent)")
        self.assertLessEqual(len(ground), 8, "at most 8 modules stay at the package's top")
        for wing in wings:
            with open(SOURCES[wing], encoding="utf-8") as stream:
                self.assertLessEqual(len(stream.read().splitlines()), 40, f"{wing}'s face is over 40 lines")

    def test_make_corpus_needs_only_the_standard_library(self):
        for node in ast.walk(TREES["make_corpus"]):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module]
                for name in names:
                    self.assertTrue(name.split(".")[0] in sys.stdlib_module_names, f"make_corpus imports {name}")

    def test_running_bpe_py_loads_the_module_once(self):
        result = subprocess.run([sys.executable, "-X", "importtime", os.path.join(ROOT, "bpe.py"), "--help"],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("usage: bpe", result.stdout)
        loaded = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line]
        self.assertIn("bpelab.commands.terminal", loaded)  # the command line ran (as __main__, so it is not listed)
        self.assertNotIn("bpe", loaded)  # and its ``import bpe`` found the running __main__, not a second copy


class LayoutTests(unittest.TestCase):

    def test_todays_names_still_import_from_bpe(self):
        for name in TODAYS_NAMES:
            self.assertIn(name, bpe.__all__)
            self.assertTrue(hasattr(bpe, name), name)

    def test_the_lesson_reads_in_a_sitting_and_no_module_holds_two_concerns(self):
        for module, path in SOURCES.items():
            with open(path, encoding="utf-8") as stream:
                lines = len(stream.read().splitlines())
            if module == "bpe":
                self.assertLessEqual(lines, LESSON_LINES)
            elif module.startswith(("bpelab", "tools")) and module not in GENERATED:
                self.assertLessEqual(lines, MODULE_LINES, f"{module} has {lines} lines: two concerns?")

    def test_every_module_opens_with_what_it_adds_to_the_lesson(self):
        for module in sorted(CODE):
            docstring = ast.get_docstring(TREES[module])
            self.assertTrue(docstring and len(docstring.split()) >= 8, f"{module} has no docstring worth the name")
            if module.startswith("bpelab.") and module not in GENERATED:
                self.assertRegex(docstring, r"\bbpe(\.py|\.\w+|``)", f"{module}'s docstring does not say how it "
                                 "relates to the lesson (which part of bpe.py it equals, serves or extends)")

    def test_the_lesson_is_short_narrow_and_imports_few_names(self):
        with open(SOURCES["bpe"], encoding="utf-8") as stream:
            lines = stream.read().splitlines()
        wide = [number for number, line in enumerate(lines, 1) if len(line) > LESSON_WIDTH]
        self.assertEqual(wide, [], f"bpe.py lines over {LESSON_WIDTH} characters")
        names = [alias.asname or alias.name for node in TREES["bpe"].body if isinstance(node, ast.ImportFrom)
                 and (node.module or "").startswith("bpelab") for alias in node.names]
        self.assertLessEqual(len(names), LESSON_NAMES, f"bpe.py takes {len(names)} names from bpelab: {names}")
        self.assertFalse([node for node in TREES["bpe"].body if isinstance(node, ast.Import)
                          and any(alias.name.startswith("bpelab") for alias in node.names)])

    def test_the_lesson_re_exports_lazily_from_one_table(self):
        defined = {node.name for node in TREES["bpe"].body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        defined |= {alias.asname or alias.name for node in TREES["bpe"].body
                    if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        forwarded = {name for names in bpe.FORWARDED.values() for name in names}
        self.assertEqual(sorted(set(bpe.__all__) - defined), sorted(forwarded))
        script = ("import sys, bpe; print(sorted(m for m in sys.modules if m.startswith('bpelab.commands'))); "
                  "bpe.compare; print('bpelab.commands.compare' in sys.modules)")
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
        self.assertEqual(result.stdout, "[]\nTrue\n", result.stderr)  # the commands load only when asked for

    def test_the_definitions_need_nothing_from_the_fast_engine(self):
        engine_names = {alias.asname or alias.name for node in TREES["bpe"].body if isinstance(node, ast.ImportFrom)
                        and node.module == "bpelab.merges" for alias in node.names} & {"engine"}
        self.assertEqual(engine_names, set())
        for node in TREES["bpe"].body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bpelab.merges.engine"):
                self.fail(f"bpe.py:{node.lineno} imports from the fast engine")

    def test_no_branch_asks_whether_a_tokenizer_has_a_pipeline(self):
        for module in ("bpe", "bpelab.commands.drawing", "bpelab.text.readable"):
            for node in ast.walk(TREES[module]):
                if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops) \
                        and "pipeline" in ast.unparse(node):
                    self.fail(f"{module}:{node.lineno}: {ast.unparse(node)}: ask the model (Tokenizer.describe)")

    def test_the_tokenizer_is_built_in_one_body(self):
        tokenizer = next(node for node in TREES["bpe"].body if isinstance(node, ast.ClassDef) and node.name == "Tokenizer")
        init = next(node for node in tokenizer.body if isinstance(node, ast.FunctionDef) and node.name == "__init__")
        self.assertFalse([node for node in ast.walk(init) if isinstance(node, (ast.Return, ast.If))],
                         "Tokenizer.__init__ has one body: the model comes from bpelab.imported.models.make_model")
        updates = [node for node in ast.walk(TREES["bpe"]) if isinstance(node, ast.Attribute) and node.attr == "update"
                   and ast.unparse(node.value) == "self.__dict__"]
        self.assertEqual(updates, [], "no attributes copied in with self.__dict__.update")

    def test_the_lesson_meets_the_definitions_before_the_tokenizer(self):
        order = [node.name for node in TREES["bpe"].body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                 and not node.name.startswith("__")]  # (a module's __getattr__ is no part of the lesson)
        self.assertEqual(order, ["merge_pair", "count_pairs", "best_pair", "reference_train", "reference_encode",
                                 "reference_superbpe", "chunks", "Tokenizer"])


if __name__ == "__main__":
    unittest.main()
